# SPDX-License-Identifier: GPL-2.0-only
"""Threads on one socket: what a second reading thread does on this machine's kernel, beside
the simulator's Linux socket locks (seed 004's Model 3).

The real kernel (netns testbed, root): one and two reading threads sharing one UDP socket
(`--readers N --reuseport off`), 32-byte datagrams at the sender's full rate on a 1 Gbit/s
veth LAN, each datagram followed by `--recv-work` of busy work, so that the readers, not the
sender, bound the rate. The simulator: seed 004's host (`x3440-2010`: the queue spinlock,
lock_sock around the free, every sleeping thread woken) at the seed's own point (1-byte
payloads at the line rate), one and two threads. Printed: delivered datagrams/s per run,
the medians, and the ratio two/one of each. The two are different machines: the comparison
is of the sign and size of the second thread's effect, not of rates.

    .venv/bin/python bench/shared_socket.py            # 3 reps x 2 points, ~1 min
    .venv/bin/python bench/shared_socket.py --reps 5 --work 2us
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

LANLOSS = [sys.executable, "-m", "lanloss.cli"]
PREFIX = "lanloss-shsock-"
BED_POINT = ["--edge-rate", "1Gbps", "--payload", "32", "--rate", "max", "--duration", "2s",
             "--warmup", "0.2s", "--reuseport", "off", "--no-log", "--no-progress"]  # fmt: skip
SIM_POINT = ["--host", "x3440-2010", "--edge-rate", "1Gbps", "--tx-queue", "64KiB",
             "--payload", "1", "--rate", "max", "--duration", "0.2s", "--warmup", "0.05s",
             "--reuseport", "off", "--no-progress"]  # fmt: skip


def delivered_pps(record: Path) -> float:
    """Datagrams/s the receiving application read (goodput over the payload)."""
    rec = json.loads(record.read_text())
    return rec["totals"]["goodput_bps"] / (8 * rec["params"]["payload"])


def run(kind: str, readers: int, extra: list[str], out: Path, env: dict[str, str]) -> float:
    args = ["bed", "run", "--prefix", PREFIX] if kind == "bed" else ["sim", "run"]
    point = BED_POINT if kind == "bed" else SIM_POINT
    cmd = [*LANLOSS, *args, *point, *extra, "--readers", str(readers), "--out", str(out)]
    cp = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if cp.returncode != 0:
        raise SystemExit(f"{kind} run failed: {cp.stderr.strip()}")
    return delivered_pps(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--work", default="5us", help="busy work per datagram on the testbed")
    ap.add_argument("--no-bed", action="store_true", help="the simulator only (not root)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "LANLOSS_STATE_DIR": tmp}
        kinds = ["sim"] if a.no_bed else ["bed", "sim"]
        for kind in kinds:
            reps = a.reps if kind == "bed" else 1  # the simulator is deterministic
            extra = ["--recv-work", a.work] if kind == "bed" else []
            got: dict[int, list[float]] = {1: [], 2: []}
            for rep in range(reps):
                for readers in (1, 2):
                    out = Path(tmp) / f"{kind}-{readers}-{rep}.json"
                    got[readers].append(run(kind, readers, extra, out, env))
            med = {n: statistics.median(v) for n, v in got.items()}
            for n in (1, 2):
                runs = ", ".join(f"{v:,.0f}" for v in got[n])
                print(f"{kind}: {n} thread(s): {runs} datagrams/s (median {med[n]:,.0f})")
            print(f"{kind}: two threads / one = {med[2] / med[1]:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
