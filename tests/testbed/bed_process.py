# SPDX-License-Identifier: GPL-2.0-only
"""A `lanloss bed run` started in the background, for the tests that kill or signal it in
its traffic phase (test_bed_kill.py, test_bed_restore.py, test_bed_lan.py, test_bed_ssh.py),
and the kernel-wide settings such a run changes and must restore."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from lanloss.testbed.settings import SYSCTLS, sysctl_path

REPO = Path(__file__).resolve().parents[2]


def bed_cmd(prefix: str, *args: str) -> list[str]:
    """The command line of `lanloss bed run --prefix PREFIX ARGS...`."""
    return [sys.executable, "-m", "lanloss.cli", "bed", "run", "--prefix", prefix, *args]


def start(state: Path, prefix: str, *args: str) -> subprocess.Popen:
    """`lanloss bed run` with its state in @state, writing (if it ever ends) never.json."""
    return subprocess.Popen(
        bed_cmd(prefix, "--out", str(state / "never.json"), *args),
        cwd=REPO,
        env={**os.environ, "LANLOSS_STATE_DIR": str(state)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for_traffic(state: Path, proc: subprocess.Popen, prefix: str) -> None:
    """Return half a second into the run's traffic phase, as its journal says; fail if the
    run ends first or does not get there within 90 s (set-up is slow on a loaded 2-vCPU
    machine)."""
    journal = state / f"journal-{prefix.rstrip('-')}.json"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        try:
            if json.loads(journal.read_text()).get("phase") == "traffic":
                time.sleep(0.5)  # well inside the traffic phase
                return
        except (FileNotFoundError, json.JSONDecodeError):
            pass
        time.sleep(0.05)
    raise AssertionError("the run never reached its traffic phase")


def kill_and_wait(proc: subprocess.Popen, running: Callable[[], list], seconds: float) -> list:
    """SIGKILL the run, reap it, and poll ``running()`` (its tools, by whatever probe) until
    it is empty or ``seconds`` have passed: the kernel signals the tools at once, and they
    take a moment to write their report and go. Returns what is still running."""
    proc.kill()
    proc.communicate()
    deadline = time.monotonic() + seconds
    while (left := running()) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def read_settings() -> dict[str, bytes]:
    """The kernel-wide settings the harness captures, as raw bytes from /proc/sys."""
    out = {}
    for key in SYSCTLS:
        try:
            out[key] = Path(sysctl_path(key)).read_bytes()
        except FileNotFoundError:
            pass
    return out


def raising_args() -> list[str]:
    """Options that make the harness change rmem_max, wmem_max and netdev_max_backlog."""
    s = read_settings()
    rmem = int(s["net.core.rmem_max"]) + (1 << 20)
    wmem = int(s["net.core.wmem_max"]) + (1 << 20)
    backlog = int(s["net.core.netdev_max_backlog"]) + 1000
    return [
        "--rcvbuf",
        str(rmem),
        "--sndbuf",
        str(wmem),
        "--backlog",
        str(backlog),
        "--rate",
        "20Mbps",
    ]


def machine_busy(res: subprocess.CompletedProcess) -> bool:
    """`bed restore`/`bed cleanup` refused because a run holds the machine lock."""
    return res.returncode == 1 and "machine.lock" in res.stderr and "holds" in res.stderr


def run_waiting_for_the_machine(
    cmd: list[str], timeout: float, env: dict[str, str], patience: float = 900
) -> subprocess.CompletedProcess:
    """Run a `lanloss bed` command; restore and cleanup refuse at once while another run
    (another test, on a shared machine) holds the machine lock: try those again until it
    is free, as a user would."""
    deadline = time.monotonic() + patience
    while True:
        res = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout, cwd=REPO, env=env
        )
        if not machine_busy(res) or time.monotonic() > deadline:
            return res
        time.sleep(1.0)
