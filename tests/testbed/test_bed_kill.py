# SPDX-License-Identifier: GPL-2.0-only
"""Nothing is left running or changed after a kill: the traffic tools die with a killed
`lanloss bed run` (parent-death signal), and a run of *another* prefix (and another state
folder) finds the killed run's journal on this machine and restores it before it records
its own settings_before (one journal per machine)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from bed_process import (
    bed_cmd,
    kill_and_wait,
    raising_args,
    read_settings,
    start,
    wait_for_traffic,
)

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (network namespaces, sysctls)"),
    pytest.mark.netns,
    pytest.mark.slow,
]
REPO = Path(__file__).resolve().parents[2]
PREFIX_A = "lltb-a-"
PREFIX_B = "lltb-b-"


def running(pattern: str) -> list[str]:
    """Live (not zombie) processes whose command line contains pattern."""
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if pattern in cmd and state != "Z":
            out.append(f"{pid} {cmd}")
    return out


def tools_of(prefix: str) -> list[str]:
    """lanloss-send/-recv started by a run of this prefix (their files are in its run dir)."""
    return [p for p in running(f"{prefix}run-") if "lanloss-send" in p or "lanloss-recv" in p]


def leftovers(prefix: str) -> list[str]:
    names = os.listdir("/run/netns") if os.path.isdir("/run/netns") else []
    cg = os.listdir("/sys/fs/cgroup/cpu") if os.path.isdir("/sys/fs/cgroup/cpu") else []
    cg2 = os.listdir("/sys/fs/cgroup") if os.path.isdir("/sys/fs/cgroup") else []
    return [n for n in names + cg + cg2 if n.startswith(prefix)]


def restore(state: Path, prefix: str) -> None:
    """`bed cleanup`, again while another run (another test) holds the machine lock."""
    deadline = time.monotonic() + 900
    while True:
        res = subprocess.run(
            [sys.executable, "-m", "lanloss.cli", "bed", "cleanup", "--prefix", prefix],
            cwd=REPO,
            env={**os.environ, "LANLOSS_STATE_DIR": str(state)},
            capture_output=True,
            text=True,
            timeout=120,
        )
        busy = res.returncode == 1 and "machine.lock" in res.stderr
        if not busy or time.monotonic() > deadline:
            return
        time.sleep(1.0)


def test_tools_die_with_a_killed_run(tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    proc = start(state, PREFIX_A, "--rate", "10Mbps", "--duration", "60s")
    try:
        wait_for_traffic(state, proc, PREFIX_A)
        assert tools_of(PREFIX_A), "the run's tools were not found running"
        assert kill_and_wait(proc, lambda: tools_of(PREFIX_A), 3) == []
    finally:
        proc.kill()
        restore(state, PREFIX_A)
    assert not leftovers(PREFIX_A)


def test_a_run_of_another_prefix_restores_the_killed_runs_journal(tmp_path):
    state_a, state_b = tmp_path / "a", tmp_path / "b"
    state_a.mkdir()
    state_b.mkdir()
    before = read_settings()
    proc = start(state_a, PREFIX_A, *raising_args(), "--slow-receiver", "50%", "--duration", "30s")
    try:
        wait_for_traffic(state_a, proc, PREFIX_A)
        proc.kill()
        proc.communicate()
        assert read_settings() != before  # the killed run left its changes
        assert leftovers(PREFIX_A)

        out = tmp_path / "b.json"
        res = subprocess.run(
            bed_cmd(PREFIX_B, "--rate", "10Mbps", "--duration", "0.5s", "--out", str(out)),
            cwd=REPO,
            env={**os.environ, "LANLOSS_STATE_DIR": str(state_b)},
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert res.returncode == 0, res.stderr
        assert f"prefix {PREFIX_A!r}" in res.stderr and "restoring first" in res.stderr
        rec = json.loads(out.read_text())
        machine = rec["env"]["hosts"]["machine"]["settings_before"]
        for key, value in before.items():
            # the machine's own, not A's (the record holds the text without its newline)
            assert machine[f"sysctl {key}"] == value.decode().rstrip("\n"), key
        assert read_settings() == before
        # nothing of A is left: namespaces, cgroup, journal, tools
        assert not leftovers(PREFIX_A)
        assert not list(state_a.glob("journal*"))
        assert tools_of(PREFIX_A) == []
    finally:
        proc.kill()
        restore(state_a, PREFIX_A)
        restore(state_b, PREFIX_B)
