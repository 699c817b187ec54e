# SPDX-License-Identifier: GPL-2.0-only
"""`lanloss bed run --backend vm`: QEMU guests whose emulated Intel 82545EM is driven by
the guest kernel's real e1000 driver, on the netns backend's emulated switch.

Two runs in all, to keep the cost to a few minutes on two shared cores (TCG): the first,
two guests, is killed with SIGKILL while they run traffic (nothing of it may be left:
guest, tap, namespace, tool); the second restores the first one's journal, then applies
ethtool -C, -G, -A and the driver's InterruptThrottleRate in the receiver's guest, runs a
short lossy point from a namespace sender, restores, and attributes every lost datagram.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from vm_guest_image import GUEST_TEST_MARKS, build_or_fail

from lanloss.testbed.journal import journal_path

pytestmark = GUEST_TEST_MARKS
REPO = Path(__file__).resolve().parents[2]
PREFIX = "lltb-vm-"
HTB = Path("/sys/module/sch_htb/parameters/htb_hysteresis")


def _bed(state: Path, *args: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "lanloss.cli",
        "bed",
        "run",
        "--backend",
        "vm",
        "--prefix",
        PREFIX,
        "--no-progress",
        *args,
    ]


def _leftovers() -> dict[str, list[str]]:
    """Namespaces, processes (QEMU, tools, ssh) and taps of this prefix still here."""
    ns = sorted(n for n in os.listdir("/run/netns") if n.startswith(PREFIX))
    procs = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if PREFIX in cmd and "pytest" not in cmd:
            procs.append(f"{pid}: {cmd[:120]}")
    taps = [line for line in Path("/proc/net/dev").read_text().splitlines() if "lltb" in line]
    return {"namespaces": ns, "processes": procs, "taps": taps}


def _phase(state: Path) -> str | None:
    try:
        return json.loads(Path(journal_path(str(state), PREFIX)).read_text()).get("phase")
    except (OSError, ValueError):
        return None


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    build_or_fail()
    state = tmp_path_factory.mktemp("vmstate")
    env = {**os.environ, "LANLOSS_STATE_DIR": str(state)}
    htb_before = HTB.read_text().strip() if HTB.exists() else None

    # 1: kill -9 while the guests run traffic
    t0 = time.monotonic()
    proc = subprocess.Popen(
        _bed(
            state,
            "--rate",
            "1Mbps",
            "--payload",
            "64",
            "--duration",
            "120s",
            "--out",
            str(state / "never.json"),
        ),
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    while _phase(state) != "traffic":
        if proc.poll() is not None:
            pytest.fail(
                f"the run to be killed ended first ({proc.returncode}): {proc.stderr.read()}"
            )
        if time.monotonic() - t0 > 600:
            proc.kill()
            pytest.fail("the run to be killed never reached its traffic phase")
        time.sleep(0.5)
    time.sleep(3)  # the tools are running in the guests
    during = _leftovers()
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 30
    after = _leftovers()
    while any(after.values()) and time.monotonic() < deadline:
        time.sleep(0.5)
        after = _leftovers()
    killed = {"during": during, "after": after, "journal_kept": _phase(state) is not None}

    # 2: the next run restores, then a short lossy point with every real-NIC setting: a
    # namespace sends 15.6k datagrams/s into a guest held to 25 % of a CPU
    out = state / "run.json"
    cp = subprocess.run(
        _bed(
            state,
            "--vm-guests",
            "receivers",
            "--recv-cpu",
            "25",
            "--rate",
            "8Mbps",
            "--payload",
            "64",
            "--duration",
            "3s",
            "--itr",
            "0",
            "--rx-ring",
            "80",
            "--rcvbuf",
            "4KiB",
            "--driver-param",
            "InterruptThrottleRate=0",
            "--out",
            str(out),
        ),
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert cp.returncode == 0, cp.stderr
    record = json.loads(out.read_text())
    return {
        "killed": killed,
        "stderr": cp.stderr,
        "record": record,
        "htb_before": htb_before,
        "htb_after": HTB.read_text().strip() if HTB.exists() else None,
        "left": _leftovers(),
    }


def test_kill9_leaves_no_guest_tap_namespace_or_tool(runs):
    k = runs["killed"]
    assert k["during"]["namespaces"] and k["during"]["processes"]  # there was something
    assert k["after"] == {"namespaces": [], "processes": [], "taps": []}
    assert k["journal_kept"]  # the machine's htb_hysteresis is restored by the next run


def test_the_next_run_restores_the_killed_runs_journal(runs):
    assert "found restore journal" in runs["stderr"]
    assert runs["htb_after"] == runs["htb_before"]
    assert runs["left"] == {"namespaces": [], "processes": [], "taps": []}


def _changes(record, host):
    return {c["kind"]: c for c in record["env"]["changes"] if c["host"] == host}


def test_a_guest_boots_and_the_harness_applies_and_restores_its_nic(runs):
    r = runs["record"]
    vm = r["env"]["vm"]
    assert vm["accelerator"] in ("tcg", "kvm") and vm["accelerator_why"]
    assert set(vm["boot_s"]) == {"r1"}
    assert r["env"]["hosts"]["s1"]["netns"] == PREFIX + "s1"  # --vm-guests receivers
    rx = r["env"]["hosts"]["r1"]
    assert rx["driver"] == "e1000" and rx["kernel"].startswith("Linux 6.1")
    ch = _changes(r, "r1")
    assert ch["coalesce"]["want"]["rx-usecs"] == 0 and ch["coalesce"]["before"]["rx-usecs"] == 3
    assert ch["ring"]["before"] == 256 and ch["ring"]["want"] == 80
    assert ch["driver_param"]["before"] == 3 and ch["driver_param"]["want"] == 0
    assert ch["pause"]["want"]["rx"] == "off"  # the default, where the NIC has PAUSE
    assert r["env"]["restore"] == {"ok": True, "mismatches": {}}
    assert rx["settings_after"] == rx["settings_before"]
    assert "RX:\t\t256" in rx["settings_after"]["ethtool -g eth0"]
    # the receiver's NIC raised interrupts, counted from its /proc/interrupts line
    assert r["extra"]["counters"]["r1"]["interrupts"]["eth0"] > 0


def test_every_lost_datagram_is_attributed(runs):
    r = runs["record"]
    lost = r["totals"]["sent"] - r["totals"]["received"]
    assert lost > 0, r["totals"]
    assert abs(r["drops"]["unexplained"]) <= 0.01 * lost, (r["drops"], r["extra"]["attribution"])
    assert r["drops"]["rx_fifo"] + r["drops"]["socket_rcvbuf"] > 0.9 * lost
    assert r["totals"]["offered_met"]  # the namespace sender keeps its rate


def test_a_guest_receiver_gets_realtime_stamps_and_a_measured_offset(runs):
    r = runs["record"]
    clk = r["env"]["clocks"]
    # a namespace sender and a guest receiver: two kernels, two clocks
    assert r["env"]["clock_shared"] is False and clk["stamp_clock"] == "realtime"
    probe = clk["offsets"]["r1"]["s1"]["probe"]  # the guest runs the probe with the shared /usr
    assert probe["answered"] >= 1 and probe["uncertainty_ns"] * 2 >= probe["rtt_min_ns"] > 0
    # latency is reported only as the rule allows; otherwise null, with the reason
    lat, why = r["flows"][0]["latency_us"], next(iter(clk["latency_null_reason"].values()), None)
    if why is None:
        assert lat["p50"] >= clk["latency_factor"] * probe["uncertainty_ns"] / 1e3
    else:
        assert lat == {"p50": None, "p99": None, "max": None}
