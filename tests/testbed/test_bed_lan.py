# SPDX-License-Identifier: GPL-2.0-only
"""A LAN that stands between the runs of one prefix (`bed run --keep-lan`): the next run of
the same shape reuses it, changing only what differs (rates, buffers); a run of another
shape, of another prefix, a failed run and `bed restore` take it down, and with it the
machine's settings the LAN needed. Every object is the test's own (prefix lltb-lan-)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from bed_process import start, wait_for_traffic
from test_bed_kill import leftovers, restore

from lanloss.record import load

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (network namespaces, sysctls)"),
    pytest.mark.netns,
]
REPO = Path(__file__).resolve().parents[2]
PREFIX = "lltb-lan-"
OTHER = "lltb-lan2-"
HYSTERESIS = Path("/sys/module/sch_htb/parameters/htb_hysteresis")
SHORT = ["--duration", "0.3s", "--warmup", "0.05s"]


def bed(state: Path, *args: str, prefix: str = PREFIX, **kw) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "lanloss.cli", "bed", *args]
    if args[0] in ("run", "restore"):
        cmd += ["--prefix", prefix]
    env = {**os.environ, "LANLOSS_STATE_DIR": str(state), **kw.pop("env", {})}
    return subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, env=env, timeout=180, **kw)


def run_point(state: Path, out: Path, *args: str, prefix: str = PREFIX, **kw):
    res = bed(state, "run", "--out", str(out), *SHORT, *args, prefix=prefix, **kw)
    assert res.returncode == 0, res.stderr
    rec = load(str(out))
    assert rec.conservation_error() == 0
    return rec


def journal(state: Path, prefix: str = PREFIX) -> dict | None:
    path = state / f"journal-{prefix.rstrip('-')}.json"
    return json.loads(path.read_text()) if path.exists() else None


def namespaces(prefix: str = PREFIX) -> list[str]:
    return sorted(n for n in os.listdir("/run/netns") if n.startswith(prefix))


def port_limit(ns: str, dev: str) -> str:
    out = subprocess.run(
        ["tc", "-n", ns, "qdisc", "show", "dev", dev], capture_output=True, text=True
    ).stdout
    return out.split("bfifo", 1)[1].split("limit", 1)[1].split()[0]


@pytest.fixture
def state(tmp_path):
    """A state folder, and htb_hysteresis at the kernel's default 0 (sch_htb loads at 0), so
    the LAN has the machine change these tests follow; the value found is put back."""
    found = HYSTERESIS.read_text() if HYSTERESIS.exists() else None
    if found is not None:
        HYSTERESIS.write_text("0\n")
    d = tmp_path / "state"
    d.mkdir()
    yield d
    restore(d, PREFIX)
    restore(d, OTHER)
    if found is not None:
        HYSTERESIS.write_text(found)
    assert leftovers(PREFIX) == [] and leftovers(OTHER) == []


def machine_before(rec) -> str:
    """htb_hysteresis as the run found it on this machine (its settings_before)."""
    return rec.env["hosts"]["machine"]["settings_before"]["param sch_htb.htb_hysteresis"]


def test_consecutive_points_share_one_lan_and_restore_takes_it_down(state, tmp_path):
    first = run_point(state, tmp_path / "1.json", "--rate", "50Mbps", "--keep-lan")
    before = machine_before(first)
    assert first.env["lan"] == {"reused": False, "kept": True, "points_served": 1}
    assert namespaces() == [f"{PREFIX}r1", f"{PREFIX}s1", f"{PREFIX}sw1"]
    j = journal(state)
    assert j["phase"] == "standing" and j["lan"]["points"] == 1
    # what stays is the LAN: its namespaces and the machine change it needs, with the value
    # from before it; the point's own changes, processes and folders are gone
    assert [c["target"] for c in j["changes"]] == ["sch_htb.htb_hysteresis"]
    assert str(j["changes"][0]["before"]) == before
    assert j["procs"] == [] and j["local_dirs"] == [] and j["cgroups"] == []
    assert HYSTERESIS.read_text().strip() == "1"
    inodes = {n: os.stat(f"/run/netns/{n}").st_ino for n in namespaces()}

    second = run_point(
        state,
        tmp_path / "2.json",
        "--rate",
        "150Mbps",
        "--sender-rate",
        "1Gbps",
        "--switch-buffer",
        "64KiB",
        "--keep-lan",
    )
    lan = second.env["lan"]
    assert lan["reused"] is True and lan["points"] == 1 and lan["points_served"] == 2
    assert lan["carried"] == [f"param sch_htb.htb_hysteresis on machine: {before} -> 1"]
    assert {n: os.stat(f"/run/netns/{n}").st_ino for n in namespaces()} == inodes  # the same
    assert port_limit(f"{PREFIX}sw1", "p2") == "64Kb"  # only rates and buffers changed
    assert second.drops["switch_egress"] > 0  # 150 of 1 Gbit/s into the 100 Mbit/s port
    assert second.drops["sender_socket"] == 0
    assert second.env["restore"]["ok"] is True

    res = bed(state, "restore")
    assert res.returncode == 0, res.stderr
    assert namespaces() == [] and journal(state) is None
    assert HYSTERESIS.read_text().strip() == before


def test_a_point_of_another_shape_replaces_the_standing_lan(state, tmp_path):
    run_point(state, tmp_path / "1.json", "--rate", "50Mbps", "--keep-lan")
    rec = run_point(state, tmp_path / "2.json", "--rate", "50Mbps", "--receivers", "2")
    assert rec.env["lan"] == {"reused": False, "kept": False}
    assert namespaces() == [] and journal(state) is None  # the run did not keep its own


def test_a_run_of_another_prefix_takes_the_standing_lan_down_first(state, tmp_path):
    first = run_point(state, tmp_path / "1.json", "--rate", "50Mbps", "--keep-lan")
    other = run_point(state, tmp_path / "2.json", "--rate", "50Mbps", prefix=OTHER)
    assert namespaces(PREFIX) == [] and journal(state) is None
    # the other run recorded the machine's own value, not the standing LAN's
    assert machine_before(other) == machine_before(first)


def test_a_failed_point_does_not_leave_its_lan_standing(state, tmp_path):
    run_point(state, tmp_path / "1.json", "--rate", "50Mbps", "--keep-lan")
    res = bed(
        state,
        "run",
        "--out",
        str(tmp_path / "2.json"),
        *SHORT,
        "--keep-lan",
        env={"LANLOSS_BED_FAULT": "after-apply"},
    )
    assert res.returncode == 1 and "injected fault" in res.stderr
    assert namespaces() == [] and journal(state) is None


def test_a_standing_lan_that_lost_a_namespace_is_rebuilt_not_reused(state, tmp_path):
    run_point(state, tmp_path / "1.json", "--rate", "50Mbps", "--keep-lan")
    subprocess.run(["ip", "netns", "del", f"{PREFIX}r1"], check=True)
    rec = run_point(state, tmp_path / "2.json", "--rate", "50Mbps", "--keep-lan")
    assert rec.env["lan"]["reused"] is False and rec.env["lan"]["kept"] is True
    assert namespaces() == [f"{PREFIX}r1", f"{PREFIX}s1", f"{PREFIX}sw1"]


def test_a_killed_run_on_a_reused_lan_is_restored_by_the_next_run(state, tmp_path):
    before = machine_before(run_point(state, tmp_path / "1.json", "--rate", "50Mbps", "--keep-lan"))
    proc = start(state, PREFIX, "--keep-lan", "--rate", "20Mbps", "--duration", "20s")
    wait_for_traffic(state, proc, PREFIX)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    time.sleep(0.2)
    assert journal(state)["phase"] == "traffic"
    run_point(state, tmp_path / "2.json", "--rate", "50Mbps", prefix=OTHER)
    assert namespaces(PREFIX) == [] and journal(state) is None
    assert HYSTERESIS.read_text().strip() == before
