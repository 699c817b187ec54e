# SPDX-License-Identifier: GPL-2.0-only
"""What seed 003's Java receiver loses in its collector's pauses, against the model's rule.

    python testbed/java_costs/gc_loss.py [--size 8000] [--rate 14000] [--warm 1]
                                         [--seconds 2] [--rcvbuf 65536] [--reps 3]
                                         [--jvm-cpus 1] [--out FILE.json]

The thesis' threads (ThesisStream.java: ThesisPath's receiving thread, DataHandler and
TimeCalculator, reading a stream) take SIZE-byte datagrams that this script sends on
loopback, RATE a second for WARM + SECONDS (in batches, at most 4,000 a second; each
datagram numbered; the first WARM seconds warm the program up and are not counted), from a socket
that asks for RCVBUF bytes. The JVM runs with the Parallel collector and
gc_pauses.py's heap (Java 8's ergonomics on 8 GiB) and logs its collections (-Xlog:gc). It
is pinned to JVM_CPUS (CPU 1) and this sender to CPU 0, where loopback's receive work runs.

The model's rule (docs/physics.md §4; HostReader CollectEvery and CollectPause): a pause of
T loses what arrives in it beyond the K datagrams the socket holds, max(0, RATE T - K). K
is measured first: datagrams sent to a socket of RCVBUF that nobody reads, then counted
out. Per run: the datagrams lost (sent - received), the young collections during the
traffic (the JVM's log between its count at the first datagram and at the end), the rule's
loss from those pauses, and the rule's loss from the java-2015 preset's constants (a pause
of its length each time its bytes have been read). Needs javac, java and taskset; no root
(loopback only).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gc_pauses  # noqa: E402  (the era's heap, the JVM log's collections)
import measure  # noqa: E402  (this directory's harness: build, ports, refusals)

SENDER_CPU = 0
CPU_LIST = re.compile(r"\d+(-\d+)?(,\d+(-\d+)?)*")  # taskset's -c list
# The sender sleeps until its next datagram is due, but at least this long: what came due
# meanwhile goes in one batch (at most 4,000 batches a second).
MIN_SLEEP_S = 0.25e-3


def socket_capacity(size: int, rcvbuf: int) -> int:
    """Datagrams of @p size that a loopback socket asking for @p rcvbuf holds unread: more
    are sent than its doubled rcvbuf could hold, then what it kept is counted out."""
    with (
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as rx,
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as tx,
    ):
        rx.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        rx.bind(("127.0.0.1", 0))
        for _ in range(2 * (2 * rcvbuf // size + 2)):
            tx.sendto(bytes(size), rx.getsockname())
        rx.setblocking(False)
        held = 0
        while True:
            try:
                rx.recv(size)
            except BlockingIOError:
                return held
            held += 1


def send_paced(port: int, size: int, rate: float, count: int) -> float:
    """@p count numbered datagrams to 127.0.0.1:@p port at @p rate a second, the ones due
    sent together each time it wakes (MIN_SLEEP_S); the seconds it took."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as tx:
        tx.connect(("127.0.0.1", port))
        payload = bytearray(size)
        start = time.perf_counter()
        sent = 0
        while sent < count:
            due = min(count, int((time.perf_counter() - start) * rate) + 1)
            while sent < due:
                struct.pack_into("<Q", payload, 0, sent)
                tx.send(payload)
                sent += 1
            time.sleep(max(start + sent / rate - time.perf_counter(), MIN_SLEEP_S))
        return time.perf_counter() - start


def no_collection_heap(size: int, count: int) -> list[str]:
    """The control's heap: a young generation twice what the run copies, so the collector
    never runs during it (the era heap's maximum grown to hold it)."""
    young = 2 * size * count // 2**20 + 64
    return [f"-Xmn{young}m", f"-Xms{young + 64}m", f"-Xmx{max(young + 64, 2048)}m"]


def run_once(
    java: list[str], size: int, rate: float, warm: int, count: int, rcvbuf: int, heap: list[str]
) -> dict:
    """One stream: the receiver's JSON and its young collections during the traffic. @p java
    starts with the JVM's taskset."""
    port = measure.free_port()
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "gc.log"
        jvm = subprocess.Popen(
            [*java, f"-Xlog:gc:file={log}", *heap]
            + ["ThesisStream", str(port), str(size), str(warm), str(count), str(rcvbuf)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            if jvm.stdout.readline().strip() != "ready":
                raise SystemExit(f"gc_loss.py: ThesisStream failed: {jvm.stderr.read().strip()}")
            seconds = send_paced(port, size, rate, warm + count)
            out, err = jvm.communicate(timeout=120)
        finally:
            if jvm.poll() is None:
                jvm.kill()  # by its PID: the one process this run started
                jvm.wait()
        if jvm.returncode != 0:
            raise SystemExit(f"gc_loss.py: ThesisStream failed: {err.strip()}")
        r = json.loads(out)
        young = gc_pauses.young_collections(log.read_text())
    r["send_s"] = seconds
    r["pauses_ms"] = [c["pause_ms"] for c in young[r["gc_first"] : r["gc_last"]]]
    return r


def rule_loss(rate: float, pauses_s: list[float], held: int) -> float:
    """The model's rule: each pause loses what arrives in it beyond the socket's @p held."""
    return sum(max(0.0, rate * t - held) for t in pauses_s)


def preset_loss(rate: float, size: int, received: int, held: int, every: int, pause: float):
    """The rule with the java-2015 preset's collector: a pause of @p pause each @p every
    bytes read (the run's @p received datagrams of @p size)."""
    return (received * size // every) * max(0.0, rate * pause - held)


def render(runs: list[dict], controls: list[dict]) -> str:
    """A line per repetition: what it lost and its control lost, the collections, the
    pauses' median and the rule's loss from them and from the preset."""
    lines = ["run  lost  control lost  collections  median pause ms  rule: pauses, preset"]
    for i, (r, c) in enumerate(zip(runs, controls, strict=True)):
        pauses = sorted(r["pauses_ms"])
        med = pauses[len(pauses) // 2] if pauses else 0.0
        lines.append(
            f"{i:>3}  {r['lost']:>4}  {c['lost']:>12}  {len(pauses):>11}  {med:>15.3f}"
            f"  {r['rule_own']:>12.1f}, {r['rule_preset']:.1f}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=8000, help="datagram bytes (8-65507)")
    ap.add_argument("--rate", type=float, default=14_000, help="datagrams a second (> 0)")
    ap.add_argument("--warm", type=float, default=1.0, help="seconds not counted (>= 0)")
    ap.add_argument("--seconds", type=float, default=2.0, help="of counted traffic (> 0)")
    ap.add_argument("--rcvbuf", type=int, default=65_536, help="SO_RCVBUF asked (bytes, >= 1)")
    ap.add_argument("--reps", type=int, default=3, help="runs (>= 1)")
    ap.add_argument("--jvm-cpus", default="1", help="the JVM's CPUs (a taskset -c list)")
    ap.add_argument("--out", type=Path, help="write the runs and their sums here (JSON)")
    a = ap.parse_args(argv)
    if not 8 <= a.size <= measure.MAX_DATAGRAM:
        measure.fail(f"--size {a.size}: 8 to {measure.MAX_DATAGRAM} bytes")
    for name, value, ok, rule in [
        ("--rate", a.rate, a.rate > 0, "above 0 datagrams a second"),
        ("--seconds", a.seconds, a.seconds > 0, "above 0"),
        ("--warm", a.warm, a.warm >= 0, "0 or more seconds"),
        ("--rcvbuf", a.rcvbuf, a.rcvbuf >= 1, "at least 1 byte"),
        ("--reps", a.reps, a.reps >= 1, "at least 1"),
    ]:
        if not ok:
            measure.fail(f"{name} {value:g}: {rule}")
    if not CPU_LIST.fullmatch(a.jvm_cpus):
        measure.fail(f"--jvm-cpus {a.jvm_cpus!r}: a CPU list such as 1 or 0,1")
    if a.out is not None and a.out.exists():
        measure.fail(f"--out {a.out}: exists (not overwritten)")
    if len(os.sched_getaffinity(0)) < 2:
        measure.fail("needs two CPUs (the sender on one, the JVM on the other)")
    java = [c for c in measure.build(measure.BUILD)["java"] if c != "ThesisPath"]
    java = ["taskset", "-c", a.jvm_cpus, *java]
    os.sched_setaffinity(0, {SENDER_CPU})
    held = socket_capacity(a.size, a.rcvbuf)
    warm, count = int(a.rate * a.warm), int(a.rate * a.seconds)
    control = no_collection_heap(a.size, warm + count)
    runs, controls = [], []
    for _ in range(a.reps):  # alternating: the machine's spells fall on both alike
        point = (a.size, a.rate, warm, count, a.rcvbuf)
        runs.append(run_once(java, *point, gc_pauses.ERA_HEAP))
        controls.append(run_once(java, *point, control))
    from lanloss.host_presets import JAVA_COLLECTOR

    for r, c in zip(runs, controls, strict=True):
        for x in (r, c):
            x["lost"] = count - x["received"]
        r["rule_own"] = rule_loss(a.rate, [t / 1e3 for t in r["pauses_ms"]], held)
        r["rule_preset"] = preset_loss(
            a.rate, a.size, r["received"], held, JAVA_COLLECTOR.every, JAVA_COLLECTOR.pause
        )
    print(
        f"{a.size}-byte datagrams at {a.rate:g}/s for {a.seconds:g} s after {a.warm:g} s,"
        f" SO_RCVBUF {a.rcvbuf}, the socket holds {held}"
    )
    print(f"heap {' '.join(gc_pauses.ERA_HEAP)}; the control's {' '.join(control)}")
    print(render(runs, controls))
    if a.out is not None:
        tmp = a.out.with_name(a.out.name + ".part")
        meta = {"size": a.size, "rate": a.rate, "warm": a.warm, "seconds": a.seconds}
        meta |= {"rcvbuf": a.rcvbuf, "jvm_cpus": a.jvm_cpus}
        meta |= {"held": held, "heap": gc_pauses.ERA_HEAP, "control_heap": control}
        tmp.write_text(json.dumps({**meta, "runs": runs, "controls": controls}) + "\n")
        tmp.replace(a.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
