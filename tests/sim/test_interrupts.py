# SPDX-License-Identifier: GPL-2.0-only
"""SIGTERM or kill -9 of `lanloss sim run`: the scenario program goes with it (a handler
for SIGTERM/SIGHUP, a parent-death signal for kill -9) and the temporary folder is removed
on every signal that can be caught."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _start_long_run(tmp_path: Path, output: int) -> subprocess.Popen:
    """A 600 s `lanloss sim run` with its temporary folder in @tmp_path; @output is where
    its stdout and stderr go (subprocess.PIPE or DEVNULL)."""
    return subprocess.Popen(
        [sys.executable, "-m", "lanloss.cli", "sim", "run", "--rate", "90Mbps"]
        + ["--duration", "600s", "--out", str(tmp_path / "never.json")],
        cwd=REPO,
        env={**os.environ, "TMPDIR": str(tmp_path)},
        stdout=output,
        stderr=output,
        text=True,
    )


def test_sigterm_of_sim_run_stops_the_program_and_removes_its_folder(tmp_path, built):
    proc = _start_long_run(tmp_path, subprocess.PIPE)
    child = _wait_child(proc, "lanloss-sim")
    assert list(tmp_path.glob("lanloss-sim-*"))
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143, err
    assert err.strip().splitlines() == ["lanloss: SIGTERM received; stopped"]
    assert not _alive(child)
    assert list(tmp_path.iterdir()) == []  # no temporary folder, no record


def test_kill_9_of_sim_run_takes_the_program_along(tmp_path, built):
    proc = _start_long_run(tmp_path, subprocess.DEVNULL)
    child = _wait_child(proc, "lanloss-sim")
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + 3
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child)


def _wait_child(proc: subprocess.Popen, name: str) -> int:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                stat = Path(f"/proc/{pid}/stat").read_text()
            except OSError:
                continue
            comm = stat[stat.index("(") + 1 : stat.rindex(")")]
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            if ppid == proc.pid and comm == name[:15]:
                return int(pid)
        time.sleep(0.05)
    raise AssertionError(f"{name} never started")


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_sigterm_of_a_sweep_stops_its_point_and_writes_nothing_half(tmp_path, built):
    out = tmp_path / "runs"
    proc = subprocess.Popen(
        [sys.executable, "-m", "lanloss.cli", "sweep", "--set", "rate=80Mbps,90Mbps"]
        + ["--fixed", "duration=600s", "--out", str(out)],
        cwd=REPO,
        env={**os.environ, "TMPDIR": str(tmp_path)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    child = _wait_child(proc, "lanloss-sim")
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143, err
    assert err.strip().splitlines() == ["lanloss: SIGTERM received; stopped"]
    assert not _alive(child)
    assert not list(tmp_path.glob("lanloss-sim-*"))
    # no record, no temporary file (the sweep's lock file stays: see lanloss/sweep.py)
    assert [p.name for p in out.iterdir()] == [".lanloss-sweep.lock"]
