# SPDX-License-Identifier: GPL-2.0-only
"""What seed 003's Java threads cost per message on this machine, against a C read.

    python testbed/java_costs/measure.py [--sizes 64,1400] [--count 90000] [--reps 5]
                                         [--out FILE.json]

Builds ThesisPath.java (with ThesisStream.java, gc_loss.py's; javac) and thesis_path.c (cc)
under build/java_costs, then runs, for each size and repetition in turn: the C reader alone
(plain), the thesis' threads in C (copy) and in Java (copy: one reused receive packet and a
copy of each message queued; fresh: a new 65,507-byte packet per message), on loopback,
each beside `thesis_path blast` (a sender of 64 datagrams per sendmmsg() to a free port,
killed by its PID after the run).
Each program reads in windows begun with the socket's buffer full (its 4 MiB ask, capped by
net.core.rmem_max) and the queue empty, so that the receiving thread does not wait: its CPU
time (user and system) over the windows, divided by their messages, is its busy cost per
message, and its voluntary context switches there (sleeps) show whether it waited. Java
runs with the Parallel collector (Java 8's default, the thesis' era). Printed per size: the
median over the repetitions of the receiving thread's cost, its ratio to the C reader's,
its sleeps per message, and the Java collector's collections and milliseconds per
collection over the windows.

The ratios, not the costs, are what carry to another machine: the java-2015 preset's read
cost is the modern preset's C read cost times the Java copy thread's ratio at 1400 bytes,
pooled over runs: the median of every repetition of each (lanloss/host_presets.py). Needs
javac, java and cc; no root (loopback only).
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import statistics
import subprocess
import sys
from pathlib import Path
from typing import NoReturn

HERE = Path(__file__).resolve().parent
BUILD = HERE.parents[1] / "build" / "java_costs"
MAX_DATAGRAM = 65507
# (language, mode) in the order each repetition runs them
RUNS = (("c", "plain"), ("c", "copy"), ("java", "copy"), ("java", "fresh"))
JAVA_FLAGS = ["-XX:+UseParallelGC"]  # Java 8's default collector


def fail(msg: str) -> NoReturn:
    """One line naming the running script (this one, or gc_pauses.py that imports it)."""
    print(f"{Path(sys.argv[0]).name}: {msg}", file=sys.stderr)
    raise SystemExit(2)


def sizes_arg(text: str) -> list[int]:
    """--sizes: comma-separated datagram sizes in bytes, each 8 (the stamp) to 65,507."""
    try:
        sizes = [int(s) for s in text.split(",")]
    except ValueError:
        fail(f"--sizes {text!r}: comma-separated whole numbers of bytes")
    for s in sizes:
        if not 8 <= s <= MAX_DATAGRAM:
            fail(f"--sizes {text!r}: each size 8 to {MAX_DATAGRAM} bytes (got {s})")
    return sizes


def build(out: Path) -> dict[str, list[str]]:
    """Compile both programs into @p out; the command that runs each language."""
    for tool in ("javac", "java", "cc"):
        if shutil.which(tool) is None:
            fail(f"{tool} not found on PATH (install a JDK and a C compiler)")
    out.mkdir(parents=True, exist_ok=True)
    sources = [str(HERE / "ThesisPath.java"), str(HERE / "ThesisStream.java")]
    subprocess.run(["javac", "-d", str(out), *sources], check=True)
    c_bin = out / "thesis_path"
    subprocess.run(
        ["cc", "-O2", "-Wall", "-pthread", "-o", str(c_bin), str(HERE / "thesis_path.c")],
        check=True,
    )
    return {"c": [str(c_bin)], "java": ["java", *JAVA_FLAGS, "-cp", str(out), "ThesisPath"]}


def free_port() -> int:
    """A UDP port on 127.0.0.1 that no socket holds now."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_once(cmds: dict[str, list[str]], lang: str, mode: str, size: int, count: int) -> dict:
    """One run's JSON object: the receiving program beside a blaster of its own."""
    port = str(free_port())
    blaster = subprocess.Popen([*cmds["c"], "blast", port, str(size)])
    try:
        cp = subprocess.run(
            [*cmds[lang], mode, port, str(size), str(count)], capture_output=True, text=True
        )
    finally:
        blaster.kill()  # by its PID: the one process this run started
        blaster.wait()
    if cp.returncode != 0:
        raise SystemExit(f"measure.py: {lang} {mode} failed: {cp.stderr.strip()}")
    return json.loads(cp.stdout)


def per_message(runs: list[dict]) -> dict[str, float | None]:
    """Medians over runs: the receiving thread's microseconds and sleeps per message, the
    collector's collections and milliseconds per collection (None without one)."""
    gc = [r["gc_ms"] / r["gc_collections"] for r in runs if r["gc_collections"] > 0]
    return {
        "recv_us": statistics.median(r["recv_cpu_ns"] / r["messages"] / 1e3 for r in runs),
        "recv_sleeps_per_message": statistics.median(
            r["recv_sleeps"] / r["messages"] for r in runs
        ),
        "gc_collections": statistics.median(r["gc_collections"] for r in runs),
        "gc_ms_per_collection": statistics.median(gc) if gc else None,
    }


def summarise(results: dict[int, dict[str, list[dict]]]) -> dict:
    """Per size: each (language, mode)'s medians and its receiving thread's ratio to C's."""
    out: dict = {}
    for size, by_run in results.items():
        rows = {key: per_message(runs) for key, runs in by_run.items()}
        base = rows["c plain"]["recv_us"]
        for row in rows.values():
            row["recv_ratio_to_c_plain"] = row["recv_us"] / base
        out[size] = rows
    return out


def render(summary: dict) -> str:
    def us(v: float | None) -> str:
        return "-" if v is None else f"{v:.3f}"

    lines = [
        "size  run         recv us  x C read  sleeps/msg  GC: collections, ms each",
    ]
    for size, rows in summary.items():
        for key, r in rows.items():
            gc = (
                f"{r['gc_collections']:g}, {us(r['gc_ms_per_collection'])}"
                if key.startswith("java")
                else ""
            )
            lines.append(
                f"{size:<5} {key:<11} {us(r['recv_us']):>7}  {r['recv_ratio_to_c_plain']:>8.2f}"
                f"  {r['recv_sleeps_per_message']:>10.4f}  {gc}"
            )
    return "\n".join(lines)


def run_args(
    argv: list[str] | None, doc: str, sizes: str, count: int
) -> tuple[argparse.Namespace, list[int]]:
    """The options of a measuring script (its defaults @p sizes and @p count), checked:
    bad input is refused in one line before anything is built or run."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--sizes", default=sizes, help="datagram sizes, bytes (8-65507)")
    ap.add_argument("--count", type=int, default=count, help="messages per run (>= 1000)")
    ap.add_argument("--reps", type=int, default=5, help="repetitions (>= 1)")
    ap.add_argument("--out", type=Path, help="write the runs and the summary here (JSON)")
    a = ap.parse_args(argv)
    parsed = sizes_arg(a.sizes)
    if a.count < 1000:
        fail(f"--count {a.count}: at least 1000 messages per run")
    if a.reps < 1:
        fail(f"--reps {a.reps}: at least 1")
    if a.out is not None and a.out.exists():
        fail(f"--out {a.out}: exists (not overwritten)")
    return a, parsed


def main(argv: list[str] | None = None) -> int:
    a, sizes = run_args(argv, __doc__, "64,1400", 90_000)
    cmds = build(BUILD)
    results: dict[int, dict[str, list[dict]]] = {
        s: {f"{lang} {mode}": [] for lang, mode in RUNS} for s in sizes
    }
    for _ in range(a.reps):
        for size in sizes:
            for lang, mode in RUNS:
                results[size][f"{lang} {mode}"].append(run_once(cmds, lang, mode, size, a.count))
    summary = summarise(results)
    print(render(summary))
    if a.out is not None:
        tmp = a.out.with_name(a.out.name + ".part")
        tmp.write_text(json.dumps({"runs": results, "summary": summary}, indent=1) + "\n")
        tmp.replace(a.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
