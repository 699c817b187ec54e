# SPDX-License-Identifier: GPL-2.0-only
"""Run every benchmark of the project, one after the other (`make bench`).

Benchmarks print ratios against a baseline measured side by side in the same run;
they are never timed tests. Each bench/*.py with a main() is run as a script.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHES = [
    "sim_speed.py",
    "host_speed.py",
    "scale.py",
    "bed_tools.py",
    "bed_points.py",
    "cli_startup.py",
    "workflow_speed.py",
    "fit_coverage.py",
    "shared_socket.py",
]


# Arguments a benchmark runs with here: scale.py measures its goal's range, 128 to 8,192
# hosts (time per datagram, the median of 3 runs, and its exponent over 1,024 hosts and
# more), and counts the star's cache misses per datagram that explain it (callgrind, 0.02 s
# simulated at each size); about 15 minutes.
ARGS = {"scale.py": ["--sizes", "64,512,1024,2048", "--big", "--reps", "3", "--misses", "0.02"]}


def main() -> int:
    failed = []
    for name in BENCHES:
        script = HERE / name
        if not script.exists():
            continue
        print(f"\n=== {' '.join([name, *ARGS.get(name, [])])} ===", flush=True)
        if subprocess.run([sys.executable, str(script), *ARGS.get(name, [])]).returncode != 0:
            failed.append(name)
    if failed:
        print(f"benchmarks failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
