# SPDX-License-Identifier: GPL-2.0-only
"""How often seed 003's Java receiver stops for its collector, and for how long.

    python testbed/java_costs/gc_pauses.py [--sizes 40000,65000] [--count 20000]
                                           [--reps 5] [--out FILE.json]

Runs the thesis' threads in Java (ThesisPath copy: each message's bytes copied into the
DataHandler's queue, the allocation the thesis' receiver makes per message) beside
`thesis_path blast` on loopback, with the Parallel collector (Java 8's default) and the
heap Java 8's ergonomics give a PC of ERA_MEMORY_GIB: an initial heap of 1/64 of the
memory, a maximum of 1/4 (Oracle's Java SE 8 GC tuning guide, "Ergonomics"). The JVM's
own log (-Xlog:gc) gives each young collection's pause and the young generation's use
before it. Printed per size: the young collections, the first one's use before it (the
initial eden: what the program allocates between its first collections) and the median
pause over every collection of every repetition.

The java-2015 preset's Collector takes its two constants from here
(lanloss/host_presets.py). Needs javac, java and cc; no root (loopback only).
"""

from __future__ import annotations

import json
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import measure  # noqa: E402  (this directory's harness: build, ports, sizes)

ERA_MEMORY_GIB = 8  # a 2015 PC's memory: an order of magnitude (the thesis names none)
ERA_HEAP = [f"-Xms{ERA_MEMORY_GIB * 1024 // 64}m", f"-Xmx{ERA_MEMORY_GIB * 1024 // 4}m"]
# "[0.202s][info][gc] GC(0) Pause Young (Allocation Failure) 32M->0M(123M) 3.299ms"
YOUNG = re.compile(r"Pause Young \([^)]*\) (\d+)M->(\d+)M\((\d+)M\) ([\d.]+)ms")


def young_collections(log: str) -> list[dict]:
    """Each young collection in a -Xlog:gc log: heap use before and after (MiB), the pause."""
    return [
        {"before_mib": int(b), "after_mib": int(a), "pause_ms": float(ms)}
        for b, a, _, ms in YOUNG.findall(log)
    ]


def run_once(java: list[str], blaster: list[str], size: int, count: int) -> list[dict]:
    """One run of the Java threads (@p java: the JVM and its flags, no class), its young
    collections."""
    port = str(measure.free_port())
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "gc.log"
        sender = subprocess.Popen([*blaster, "blast", port, str(size)])
        try:
            cp = subprocess.run(
                [*java, f"-Xlog:gc:file={log}", *ERA_HEAP, "ThesisPath", "copy", port]
                + [str(size), str(count)],
                capture_output=True,
                text=True,
            )
        finally:
            sender.kill()  # by its PID: the one process this run started
            sender.wait()
        if cp.returncode != 0:
            raise SystemExit(f"gc_pauses.py: java failed: {cp.stderr.strip()}")
        json.loads(cp.stdout)  # the run completed and reported
        return young_collections(log.read_text())


def summarise(runs: dict[int, list[list[dict]]]) -> dict[int, dict]:
    """Per size: collections per run, the first collection's use before it, the median pause
    (None for the last two where no run was collected)."""
    out = {}
    for size, reps in runs.items():
        every = [c for rep in reps for c in rep]
        firsts = [rep[0]["before_mib"] for rep in reps if rep]
        out[size] = {
            "collections_per_run": statistics.median(len(rep) for rep in reps),
            "first_before_mib": statistics.median(firsts) if firsts else None,
            "median_pause_ms": statistics.median(c["pause_ms"] for c in every) if every else None,
            "pauses": len(every),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    a, sizes = measure.run_args(argv, __doc__, "40000,65000", 20_000)
    cmds = measure.build(measure.BUILD)
    java = [c for c in cmds["java"] if c != "ThesisPath"]
    runs: dict[int, list[list[dict]]] = {s: [] for s in sizes}
    for _ in range(a.reps):
        for size in sizes:
            runs[size].append(run_once(java, cmds["c"], size, a.count))
    summary = summarise(runs)
    print(f"heap {' '.join(ERA_HEAP)} (Java 8's ergonomics on {ERA_MEMORY_GIB} GiB)")
    print("size    collections/run  first: MiB before  median pause ms  (of n)")
    for size, s in summary.items():
        if not s["pauses"]:
            print(f"{size:>5}  {0:>15}  no collection")
            continue
        print(
            f"{size:>5}  {s['collections_per_run']:>15g}  {s['first_before_mib']:>17g}"
            f"  {s['median_pause_ms']:>15.3f}  ({s['pauses']})"
        )
    if a.out is not None:
        tmp = a.out.with_name(a.out.name + ".part")
        tmp.write_text(json.dumps({"heap": ERA_HEAP, "runs": runs, "summary": summary}) + "\n")
        tmp.replace(a.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
