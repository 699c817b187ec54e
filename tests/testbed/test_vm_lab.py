# SPDX-License-Identifier: GPL-2.0-only
"""The ssh backend against the vm backend's guests as if they were lab machines
(testbed/vm_lab.py): `bed run --backend vm --keep-lan --lab-inventory` leaves two guests
(real sshd, the real e1000e driver: the other vm tests drive e1000) standing on a switch
namespace whose snmpd serves its ports, all reached from this machine's namespace over
management links; `bed check` and `bed run --backend ssh` then use the inventory it wrote,
as for a lab.

While the lab is in use the test holds the machine lock (taken the moment the vm run lets
go of it): any other netns or vm run on this machine replays every journal that changed
the machine, a standing LAN's too, and would take the lab down."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from bed_process import run_waiting_for_the_machine
from vm_guest_image import GUEST_TEST_MARKS, build_or_fail

from lanloss.record import load
from lanloss.testbed import runfolder, snmp_agent, vmimage
from lanloss.testbed.journal import journal_path

pytestmark = [
    *GUEST_TEST_MARKS,
    pytest.mark.skipif(snmp_agent.available() is not None, reason="needs snmp and snmpd"),
]
REPO = Path(__file__).resolve().parents[2]
PREFIX = "lltb-vmlab-"
SWITCH_NS = f"{PREFIX}sw1"
# The lab: s1's link at 20 Mbit/s, r1's at 5 Mbit/s; standing it runs a point well below
# r1's rate. The lab's run then offers 10 Mbit/s: the switch port to r1 (p2) drops.
STAND = ["--sender-rate", "20Mbps", "--edge-rate", "5Mbps", "--rate", "1Mbps",
         "--payload", "1472", "--duration", "0.5s", "--vm-nic", "e1000e",
         "--no-progress"]  # fmt: skip
LAB_POINT = ["--rate", "10Mbps", "--payload", "1472", "--duration", "1s", "--no-progress"]


def _bed(*args: str, prefix: str = PREFIX) -> list[str]:
    return [sys.executable, "-m", "lanloss.cli", "bed", *args, "--prefix", prefix]


def _env(state: Path) -> dict[str, str]:
    return {**os.environ, "LANLOSS_STATE_DIR": str(state)}


# Holds the lock file argv[1] (a blocking flock: queued in the kernel) until its stdin ends.
HOLDER = (
    "import fcntl, os, sys\n"
    "fd = os.open(sys.argv[1], os.O_RDWR)\n"
    "fcntl.flock(fd, fcntl.LOCK_EX)\n"
    "print('held', flush=True)\n"
    "sys.stdin.read()\n"
)


class MachineHold:
    """The machine lock (journal.lock_machine's file), held by a child process: it queues
    in the kernel once the vm run holds the lock, so it has it the moment that run lets go
    (other runs poll for it), and holds it until release() (or this process's end: its
    stdin closes)."""

    def __init__(self) -> None:
        self.path = os.path.join(runfolder.folder(), "machine.lock")
        self.proc: subprocess.Popen | None = None

    def after(self, run: subprocess.Popen) -> None:
        """Queue for the lock once `run` holds it (its PID is in the lock file)."""
        while Path(self.path).read_text().strip() != str(run.pid):
            assert run.poll() is None, f"the vm run ended first: {run.communicate()[1]}"
            time.sleep(0.05)
        self.proc = subprocess.Popen(
            [sys.executable, "-c", HOLDER, self.path],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def wait(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        assert self.proc.stdout.readline().strip() == "held"

    def release(self) -> None:
        if self.proc is not None:
            self.proc.kill()  # one process: the lock goes with it
            self.proc.wait()
            self.proc = None


def _port_drops(port: str) -> int:
    """The switch port's root qdisc drops, read in the switch namespace itself."""
    out = subprocess.run(["tc", "-s", "-j", "-n", SWITCH_NS, "qdisc", "show", "dev", port],
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    return next(q["drops"] for q in json.loads(out) if q.get("root"))


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    build_or_fail()
    d = tmp_path_factory.mktemp("vmlab")
    state = d / "state"
    state.mkdir()
    inventory = d / "lab.yaml"
    hold = MachineHold()
    stand = subprocess.Popen(
        _bed("run", "--backend", "vm", *STAND, "--keep-lan", "5min",
             "--lab-inventory", str(inventory), "--out", str(d / "stand.json")),
        cwd=REPO, env=_env(state), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        hold.after(stand)
        _, err = stand.communicate(timeout=600)
        assert stand.returncode == 0, err
        hold.wait()
        journal = Path(journal_path(str(state), PREFIX))
        standing = journal.exists() and json.loads(journal.read_text())["phase"] == "standing"
        assert standing, "another netns or vm run took the lab down before it was held"
        yield {"dir": d, "inventory": inventory, "stand": load(str(d / "stand.json"))}
    finally:
        if stand.poll() is None:
            stand.kill()
        hold.release()
        cp = run_waiting_for_the_machine(_bed("restore"), timeout=300, env=_env(state))
        assert cp.returncode == 0, cp.stderr


def _ssh_bed(lab, *args: str) -> subprocess.CompletedProcess:
    """`lanloss bed ARGS --backend ssh --inventory <the lab's>` from this machine's namespace,
    under a prefix of its own (the lab's prefix is the standing LAN's)."""
    state = lab["dir"] / "ssh-state"
    state.mkdir(exist_ok=True)
    argv = _bed(*args, "--backend", "ssh", "--inventory", str(lab["inventory"]),
                prefix="lltb-vmlabssh-")  # fmt: skip
    return subprocess.run(argv, cwd=REPO, env=_env(state), capture_output=True, text=True,
                          timeout=300)  # fmt: skip


def test_the_inventory_names_the_guests_and_the_switch_agent(lab):
    inv = yaml.safe_load(lab["inventory"].read_text())
    link = lab["stand"].env["vm"]["lab"]["links"]["sw1"]
    assert inv["switches"]["sw1"]["address"] == link["there"]
    assert inv["hosts"]["s1"] == {
        "address": link["there"], "ssh": {"port": 2201}, "data_address": "10.77.0.1",
        "interface": "eth0", "role": "sender", "switch": "sw1", "switch_port": "p1",
    }  # fmt: skip
    assert inv["hosts"]["r1"]["ssh"] == {"port": 2202}
    assert inv["ssh"]["key"] == vmimage.load_manifest()["key"]


def test_check_sees_the_guests_e1000e_as_mapped_and_the_switch_over_snmp(lab):
    cp = _ssh_bed(lab, "check")
    assert cp.returncode == 0, cp.stderr
    rows = {line.split()[0]: line.split() for line in cp.stdout.splitlines()[1:]}
    # name role reach priv kernel iface driver map ...: each guest's e1000e, read through its map
    kernel = lab["stand"].env["vm"]["kernel"]
    for name, role in (("s1", "sender"), ("r1", "receiver")):
        want = [name, role, "ssh", "root", kernel, "eth0", "e1000e", "e1000e"]
        assert rows[name][:8] == want, cp.stdout
    assert rows["sw1"][:4] == ["sw1", "switch", "snmp", "v2c"]
    agent = lab["stand"].env["vm"]["lab"]["links"]["sw1"]["there"]
    assert re.search(rf" {agent}:1161: p1=ifIndex \d+, p2=ifIndex \d+$", cp.stdout, re.M)
    # two guests, two clocks set from QEMU's RTC at boot (a second's resolution) and no NTP:
    # hundreds of milliseconds apart, which the check finds and says how to remedy
    (clock,) = [x for x in cp.stderr.splitlines() if "r1: warning: clock against s1" in x]
    assert ": unsynchronized, offset " in clock and "(ping-pong)" in clock
    assert clock.endswith("— run chrony or ptp4l on both hosts, or one-way latency will be null")


def test_a_lab_run_attributes_switch_drops_over_snmp_nic_drops_by_the_driver_map(lab, tmp_path):
    out = tmp_path / "lab-run.json"
    before = _port_drops("p2")
    cp = _ssh_bed(lab, "run", *LAB_POINT, "--out", str(out))
    after = _port_drops("p2")
    assert cp.returncode == 0, cp.stderr
    rec = load(str(out))
    assert rec.env["backend"] == "ssh" and rec.conservation_error() == 0
    # the switch's drops: SNMP's ifOutDiscards of r1's port, the namespace's own qdisc count
    dropped = after - before
    assert dropped > 0 and rec.drops["switch_egress"] == dropped
    assert rec.extra["counters"]["sw1"]["ifmib"]["p2"]["ifOutDiscards"] == dropped
    assert "sw1 p2 ifOutDiscards (SNMP)" in json.dumps(rec.extra["attribution"]["detail"])
    assert rec.drops["unexplained"] == 0
    # r1's NIC: read through the e1000e driver's counter map, no counter left unmapped
    nic = rec.extra["nic"]["r1"]["eth0"]
    assert nic["driver"] == "e1000e" and nic["map"] == "e1000e"
    assert "unmapped_counters" not in rec.extra
    assert rec.extra["attribution"]["complete"] is True
    # two kernels: the receiver's clock was measured against the sender's
    assert rec.env["clock_shared"] is False
    probe = rec.env["clocks"]["offsets"]["r1"]["s1"]["probe"]
    assert probe["answered"] > 0 and 0 < probe["uncertainty_ns"] <= probe["rtt_min_ns"]
