# SPDX-License-Identifier: GPL-2.0-only
"""The ssh backend with an inventory switch read over SNMP: the lab of test_bed_ssh.py
(sshd hosts h1, h2 and the harness's namespace on one bridge) with net-snmp's snmpd
serving the bridge's namespace on the lab network, as a managed switch's agent."""

from __future__ import annotations

import os

import pytest
from test_bed_ssh import NET, SSH_NS, lab, sh  # noqa: F401 - lab is the fixture used here

from lanloss.record import load
from lanloss.testbed import snmp_agent
from lanloss.testbed.transport import Local

# what every test of the ssh lab with a switch agent needs (also test_bed_check.py and
# test_lab_walkthrough.py)
SSH_SNMP_LAB = [
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (network namespaces, sshd)"),
    pytest.mark.skipif(not os.path.exists("/usr/sbin/sshd"), reason="needs openssh-server"),
    pytest.mark.skipif(snmp_agent.available() is not None, reason="needs snmp and snmpd"),
    pytest.mark.netns,
    pytest.mark.slow,
]
pytestmark = SSH_SNMP_LAB

AGENT = f"{NET}.254"


@pytest.fixture
def switch_agent(lab, tmp_path):  # noqa: F811
    """snmpd in the bridge's namespace, on an address of the bridge, for the lab's hosts."""
    sw = f"{SSH_NS}sw"
    sh("ip", "-n", sw, "addr", "add", f"{AGENT}/24", "dev", "br0")
    harness = Local("ctl", lab["ctl"])  # where the harness reaches it from
    served = snmp_agent.serve(sw, str(tmp_path / "snmpd"), harness, address=AGENT,
                              clients=f"{NET}.0/24")  # fmt: skip
    try:
        yield served
    finally:
        served.stop()
        sh("ip", "-n", sw, "addr", "del", f"{AGENT}/24", "dev", "br0")


def with_switch(lab, port: int, name: str = "hosts-with-switch", snmp: str = "") -> str:  # noqa: F811
    """The lab's inventory with its bridge as switch lab-sw (agent at AGENT:port, `snmp`:
    more of its SNMP settings, ", key: value"), written beside its key, which it names
    relatively, as NAME.yaml."""
    text = lab["inventory"].read_text()
    text = text.replace("hosts:\n", (
        "switches:\n"
        f"  lab-sw: {{address: {AGENT}, snmp: {{community: {snmp_agent.COMMUNITY}, "
        f"port: {port}{snmp}, counter_refresh: {snmp_agent.REFRESH_S}}}}}\n"
        "hosts:\n"))  # fmt: skip
    text = text.replace("role: sender}", "role: sender, switch: lab-sw, switch_port: p2}")
    text = text.replace("role: receiver}", "role: receiver, switch: lab-sw, switch_port: p3}")
    inv = lab["dir"] / f"{name}.yaml"
    inv.write_text(text)
    return str(inv)


def _logins(lab) -> int:  # noqa: F811
    """ssh logins the lab's sshd servers have accepted so far (their logs)."""
    return sum(
        (lab["dir"] / f"sshd-{h}.log").read_text().count("Accepted publickey") for h in ("h1", "h2")
    )


def test_a_lab_run_reads_its_switch_ports(lab, switch_agent, bed, tmp_path):  # noqa: F811
    out = tmp_path / "run.json"
    res = bed("run", "--backend", "ssh", "--inventory", with_switch(lab, snmp_agent.PORT),
              "--rate", "20Mbps", "--payload", "1472", "--duration", "0.5s", "--out", str(out),
              netns=lab["ctl"])  # fmt: skip
    assert res.returncode == 0, res.stderr
    rec = load(str(out))
    assert rec.conservation_error() == 0 and rec.totals["received"] == rec.totals["sent"] > 0
    topo = rec.env["topology"]
    assert set(topo["switches"]) == {"lab-sw"}
    assert set(topo["switches"]["lab-sw"]["ports"]) == {"p2", "p3"}
    assert topo["hosts"]["h2"]["switch_port"] == ["lab-sw", "p3"]
    moved = rec.extra["counters"]["lab-sw"]["ifmib"]
    # every datagram crossed the switch: in at h1's port, out at h2's (with the harness's
    # own ssh traffic to those hosts besides, so at least as many)
    assert moved["p2"]["ifHCInUcastPkts"] >= rec.totals["sent"]
    assert moved["p3"]["ifHCOutUcastPkts"] >= rec.totals["received"]
    assert rec.drops["switch_egress"] == rec.drops["switch_ingress"] == 0
    assert "lab-sw" not in rec.extra.get("counter_errors", {})


def test_a_silent_switch_stops_the_run_before_any_host(lab, bed, tmp_path):  # noqa: F811
    out = tmp_path / "run.json"
    silent = snmp_agent.PORT + 7  # nothing listens there
    logins = _logins(lab)
    res = bed("run", "--backend", "ssh", "--inventory", with_switch(lab, silent),
              "--rate", "20Mbps", "--duration", "0.5s", "--out", str(out),
              netns=lab["ctl"])  # fmt: skip
    assert res.returncode == 1 and not out.exists()
    line = [x for x in res.stderr.splitlines() if "switch lab-sw" in x]
    assert len(line) == 1
    assert f"SNMP agent {AGENT}:{silent}: Timeout" in line[0] and "SNMP credentials" in line[0]
    assert _logins(lab) == logins  # no host was contacted
