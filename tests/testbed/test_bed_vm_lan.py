# SPDX-License-Identifier: GPL-2.0-only
"""vm guests that stay up across points (`bed run --backend vm --keep-lan`): the guest
booted by the first point serves the second (held by the LAN's keeper, not by the run),
each point's NIC settings are applied in it and restored before the next, a point's CPU
quota (recv_cpu: the guest's whole QEMU) is left by the guest, not taken down with it, and
`bed restore` takes guest, keeper, namespaces and the machine's settings down. The
guest's ssh master stands with it: the later points reach the guest through the first
point's connection (a new one is a key exchange in the guest: seconds at -icount)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from vm_guest_image import GUEST_TEST_MARKS, build_or_fail

from lanloss.testbed.journal import journal_path

pytestmark = GUEST_TEST_MARKS
REPO = Path(__file__).resolve().parents[2]
PREFIX = "lltb-vmlan-"
POINT = ["--vm-guests", "receivers", "--payload", "64", "--duration", "2s", "--no-progress"]


def _bed(state: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "lanloss.cli", "bed", *args, "--prefix", PREFIX]
    env = {**os.environ, "LANLOSS_STATE_DIR": str(state)}
    return subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=900)


def _point(state: Path, out: Path, *args: str) -> dict:
    cp = _bed(state, "run", "--backend", "vm", *POINT, *args, "--keep-lan", "--out", str(out))
    assert cp.returncode == 0, cp.stderr
    return json.loads(out.read_text())


def _master(standing: dict) -> tuple[str, int | None]:
    """The standing guest's ssh master: its folder, and the PID `ssh -O check` gives (None:
    no master answers there)."""
    folder = standing["lan"]["ssh_masters"]["r1"]
    sockets = os.listdir(folder) if os.path.isdir(folder) else []
    if len(sockets) != 1:
        return folder, None
    cp = subprocess.run(
        ["ssh", "-o", f"ControlPath={os.path.join(folder, sockets[0])}", "-O", "check", "x"],
        capture_output=True,
        text=True,
    )
    found = re.search(r"Master running \(pid=(\d+)\)", cp.stderr)
    return folder, int(found.group(1)) if found else None


def _mine(pattern: str) -> list[str]:
    """Live processes whose command line holds pattern (this test's guests, keeper)."""
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if pattern in cmd and "pytest" not in cmd:
            out.append(pid)
    return out


@pytest.fixture(scope="module")
def points(tmp_path_factory):
    build_or_fail()
    state = tmp_path_factory.mktemp("vmlan")
    try:
        first = _point(state, state / "1.json", "--rate", "4Mbps", "--recv-cpu", "50")
        standing = json.loads(Path(journal_path(str(state), PREFIX)).read_text())
        master_first = _master(standing)
        second = _point(state, state / "2.json", "--rate", "8Mbps", "--itr", "0")
        master_second = _master(json.loads(Path(journal_path(str(state), PREFIX)).read_text()))
        # a rate no sender here reaches: the attempt is disturbed and measured again
        again = ["--rate", "800Mbps", "--retry-disturbed", "1"]
        third = _point(state, state / "3.json", *again)
        guests_between = _mine("qemu-system")
        restored = _bed(state, "restore")
        folder = master_first[0]
        return {
            "masters": [master_first, master_second],
            "master_after": (os.path.exists(folder), _outlives(master_first[1])),
            "first": first,
            "second": second,
            "third": third,
            "standing": standing,
            "guests_between": guests_between,
            "restored": restored,
            "left": _mine(PREFIX) + [n for n in os.listdir("/run/netns") if n.startswith(PREFIX)],
        }
    finally:
        _bed(state, "restore")


def test_the_second_point_runs_on_the_guest_the_first_booted(points):
    standing = points["standing"]
    guest = standing["lan"]["guests"]["r1"]
    assert standing["phase"] == "standing"
    assert {p["pid"] for p in standing["lan_procs"]} >= {guest["pid"]}  # kept by the keeper
    second = points["second"]["env"]
    assert second["lan"]["reused"] is True and second["lan"]["points_served"] == 2
    assert str(guest["pid"]) in points["guests_between"]  # the same QEMU, still running
    assert set(points["first"]["env"]["vm"]["boot_s"]) == {"r1"}


def test_the_later_points_reach_the_guest_over_the_first_points_ssh_master(points):
    (folder, pid), second = points["masters"]
    assert pid is not None, f"no ssh master in {folder} once the first point ended"
    assert second == (folder, pid)  # the same master, left up for the second point
    assert points["master_after"] == (False, False)  # bed restore ended it, folder and all


def test_a_quota_on_the_guest_ends_with_its_point_and_the_guest_stays(points):
    first, second = points["first"]["env"], points["second"]["env"]
    assert first["hosts"]["r1"]["cpu_limit"]["percent"] == 50
    assert first["restore"]["ok"] is True
    assert "cpu_limit" not in second["hosts"]["r1"]  # the second point runs at full speed
    assert second["lan"]["reused"] is True  # the cgroup went, its guest did not


def test_each_point_sets_and_restores_its_own_nic_settings_in_the_standing_guest(points):
    second = points["second"]["env"]
    coalesce = [c for c in second["changes"] if c["host"] == "r1" and c["kind"] == "coalesce"]
    assert coalesce and coalesce[0]["want"]["rx-usecs"] == 0
    rx = second["hosts"]["r1"]
    assert rx["settings_after"] == rx["settings_before"] and second["restore"]["ok"] is True
    # the first point left the guest as it found it: the second found the driver's default
    assert coalesce[0]["before"]["rx-usecs"] == 3


def test_restore_takes_guest_keeper_and_namespaces_down(points):
    assert points["restored"].returncode == 0, points["restored"].stderr
    assert points["left"] == []


def test_every_datagram_of_a_point_on_the_standing_guest_is_accounted_for(points):
    """Each attempt's senders wait for its own receiver to bind. The guest's run folder
    is the harness's, so a second attempt of the same point (the third point, disturbed
    and measured again) finds the first attempt's ready file there; its senders must not
    start on it, or the first datagrams meet a closed port in the guest (Udp NoPorts,
    which no drop point counts: unexplained)."""
    assert len(points["third"]["extra"]["disturbed_attempts"]) == 1
    for name in ("first", "second", "third"):
        rec = points[name]
        no_ports = rec["extra"]["counters"]["r1"]["snmp"]["Udp"].get("NoPorts", 0)
        assert no_ports == 0, f"{name} point: {no_ports} datagrams met no socket"
        assert rec["drops"]["unexplained"] == 0


def _outlives(pid: int | None, seconds: float = 15.0) -> bool:
    """The process is still there after `seconds` (an ssh master told "-O exit" closes
    its connection to the guest first)."""
    deadline = time.monotonic() + seconds
    while pid is not None and time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        time.sleep(0.1)
    return pid is not None
