# SPDX-License-Identifier: GPL-2.0-only
"""lanloss.testbed.snmp against a real agent: net-snmp's snmpd (lanloss.testbed.snmp_agent)
serving a namespace built here, whose port p2 drops in its qdisc. ifOutDiscards over SNMP
(served by testbed/snmp_qdisc_pass.py) must equal the qdisc's own drop count; an agent
that does not answer is a reading error, never zeros; `lanloss bed check` reports each
inventory switch in one line."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from test_bed_input import key  # noqa: F401 - the fixture of an inventory's key file

from lanloss.testbed import snmp, snmp_agent
from lanloss.testbed.transport import Local

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (network namespaces)"),
    pytest.mark.skipif(snmp_agent.available() is not None, reason="needs snmp and snmpd"),
    pytest.mark.netns,
]

NS = "llsnmp-agent"  # not under the harness prefix, whose runs clean up their own


def sh(*argv: str) -> str:
    return subprocess.run(argv, check=True, capture_output=True, text=True, timeout=20).stdout


def _qdisc_drops(dev: str) -> int:
    return sum(q.get("drops", 0) for q in json.loads(sh("ip", "netns", "exec", NS, "tc", "-s",
                                                       "-j", "qdisc", "show", "dev", dev))
               if q.get("root"))  # fmt: skip


@pytest.fixture(scope="module")
def agent(tmp_path_factory):
    """A namespace with a veth pair p1/p2 (p2 shaped to 1 Mbit/s, 3 kB of queue) and an
    agent serving it."""
    if os.path.exists(f"/run/netns/{NS}"):
        sh("ip", "netns", "del", NS)
    sh("ip", "netns", "add", NS)
    served = None
    try:
        # no IPv6 (router solicitations would add frames to the ports' counters)
        for key in ("all", "default"):
            sh("ip", "netns", "exec", NS, "sysctl", "-qw", f"net.ipv6.conf.{key}.disable_ipv6=1")
        for cmd in (
            "link set lo up",
            "link add p1 type veth peer name p2",
            "link set p1 up",
            "link set p2 up",
            "addr add 10.98.0.1/24 dev p2",
            "neigh add 10.98.0.2 lladdr 02:00:00:00:00:02 dev p2",
        ):
            sh("ip", "-n", NS, *cmd.split())
        sh("ip", "netns", "exec", NS, "tc", "qdisc", "add", "dev", "p2", "root", "tbf",
           "rate", "1mbit", "burst", "1600", "limit", "3000")  # fmt: skip
        transport = Local("sw", NS)
        served = snmp_agent.serve(NS, str(tmp_path_factory.mktemp("snmpd")), transport)
        yield served, transport
    finally:
        if served is not None:
            served.stop()
            assert served.proc.poll() is not None  # stopped by its PID
        sh("ip", "netns", "del", NS)


def _blast(count: int) -> None:
    """`count` 1400-byte datagrams out of p2, far faster than its 1 Mbit/s."""
    code = (
        "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
        f"for _ in range({count}): s.sendto(b'x' * 1400, ('10.98.0.2', 9))"
    )
    sh("ip", "netns", "exec", NS, "python3", "-c", code)


def test_if_out_discards_over_snmp_are_the_qdisc_drops(agent):
    served, transport = agent
    reader = snmp.SwitchReader("sw", served.agent, ["p2", "p1"], transport)
    before = reader.snapshot()
    assert before.errors == {}
    _blast(300)
    after = reader.snapshot()
    moved = snmp.delta(before, after)
    drops = _qdisc_drops("p2")
    assert drops > 200  # 3 kB of queue holds two datagrams; the shaper sends a few more
    assert moved["ifmib"]["p2"]["ifOutDiscards"] == drops
    assert moved["ifmib"]["p1"]["ifOutDiscards"] == 0
    assert moved["pause"] == {}  # Linux's agent has no EtherLike-MIB pause table


def test_an_agent_that_does_not_answer_is_an_error_not_zeros(agent):
    _, transport = agent
    silent = snmp.Agent("127.0.0.1", snmp_agent.PORT + 1, community="lanloss",
                        timeout_s=0.3, retries=0)  # fmt: skip
    snap = snmp.SwitchReader("sw", silent, ["p2"], transport).snapshot()
    assert snap.parsed == {"ifmib": {}, "dot3": {}}
    assert snap.errors["snmp"].startswith("SNMP agent 127.0.0.1:1162: Timeout")


INVENTORY = """
ssh: {{key: id}}
switches:
  sw1:
    address: 127.0.0.1
    snmp: {{version: 2c, community: {community}, port: {port}, timeout: 0.5}}
hosts:
  pc1: {{address: 127.0.0.1, data_address: 10.9.0.1, interface: eth1, role: sender,
        switch: sw1, switch_port: p1}}
  pc2: {{address: 127.0.0.1, data_address: 10.9.0.2, interface: eth1, role: receiver,
        switch: sw1, switch_port: {port_of_pc2}}}
"""


def _inventory(key_file, **kw) -> str:
    path = key_file.parent / "inv.yaml"
    values = {"community": snmp_agent.COMMUNITY, "port": snmp_agent.PORT, "port_of_pc2": "p2"}
    path.write_text(INVENTORY.format(**{**values, **kw}))
    return str(path)


def _switch_row(stdout: str) -> str:
    """bed check's table row of switch sw1."""
    (row,) = [x for x in stdout.splitlines() if x.startswith("sw1 ")]
    return row


def _no_sshd(findings: list[str]) -> bool:
    """The hosts here are names for the agent's ports: no sshd answers for them."""
    hosts = [
        x for x in findings if x.startswith(("lanloss bed check: pc1:", "lanloss bed check: pc2:"))
    ]
    return len(hosts) == 2 and all("unreachable over ssh" in x for x in hosts)


def _check(bed, inventory: str):  # noqa: F811
    res = bed("check", "--backend", "ssh", "--inventory", inventory, netns=NS)
    findings = [x for x in res.stderr.splitlines() if x.startswith("lanloss bed check: ")]
    return res, findings


def test_bed_check_reports_each_switch_and_its_ports(agent, bed, key):  # noqa: F811
    index = int(sh("ip", "netns", "exec", NS, "cat", "/sys/class/net/p2/ifindex"))
    res, findings = _check(bed, _inventory(key, port_of_pc2=index))
    assert res.returncode == 1 and _no_sshd(findings), res.stderr
    assert not [x for x in findings if x.startswith("lanloss bed check: switch sw1")]
    p1 = int(sh("ip", "netns", "exec", NS, "cat", "/sys/class/net/p1/ifindex"))
    row = _switch_row(res.stdout)
    assert row.split()[:4] == ["sw1", "switch", "snmp", "v2c"]
    assert row.endswith(f"127.0.0.1:{snmp_agent.PORT}: p1=ifIndex {p1}, {index}=ifIndex {index}")


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"port_of_pc2": "Gi1/0/9"}, "no port named 'Gi1/0/9' (ifName: lo, p1, p2)"),
        ({"port": snmp_agent.PORT + 1}, f"SNMP agent 127.0.0.1:{snmp_agent.PORT + 1}: Timeout"),
        ({"community": "wrong"}, f"SNMP agent 127.0.0.1:{snmp_agent.PORT}: Timeout"),
    ],
)
def test_bed_check_names_the_switch_it_cannot_read(agent, bed, key, change, why):  # noqa: F811
    res, findings = _check(bed, _inventory(key, **change))
    assert res.returncode == 1 and _no_sshd(findings), res.stderr
    (line,) = [x for x in findings if x.startswith("lanloss bed check: switch sw1: ")]
    assert why in line and "check its address and SNMP credentials" in line
    assert _switch_row(res.stdout).split()[2] == "no"


V3_CONFIG = """agentAddress udp:127.0.0.1:{port}
createUser lanloss SHA "auth-pass-1" AES "priv-pass-1"
rouser lanloss priv
"""


@pytest.fixture
def v3_agent(agent, tmp_path):
    """A second snmpd in the namespace answering only SNMPv3 user lanloss (authPriv)."""
    port = snmp_agent.PORT + 2
    (tmp_path / "state").mkdir()
    conf = tmp_path / "snmpd.conf"
    conf.write_text(V3_CONFIG.format(port=port))
    env = {**os.environ, "MIBS": "", "SNMP_PERSISTENT_DIR": str(tmp_path / "state")}
    proc = subprocess.Popen(
        ["ip", "netns", "exec", NS, snmp_agent.SNMPD, "-f", "-C", "-c", str(conf),
         "-Lf", str(tmp_path / "log")],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        yield port
    finally:
        proc.terminate()
        proc.wait(10)


def test_snmpv3_auth_priv_reads_the_port_counters(agent, v3_agent):
    _, transport = agent
    v3 = snmp.Agent("127.0.0.1", v3_agent, "3", user="lanloss", auth_protocol="SHA",
                    auth_password="auth-pass-1", priv_protocol="AES",
                    priv_password="priv-pass-1", timeout_s=0.5)  # fmt: skip
    for _ in range(50):  # the agent's start: each try waits up to 0.5 s for an answer
        ready = transport.run(["snmpget", *v3.client_args(), snmp_agent.SYS_UPTIME])
        if ready.ok:
            break
    assert ready.ok
    by_v3 = snmp.SwitchReader("sw", v3, ["p1", "p2"], transport).snapshot()
    assert by_v3.errors == {}
    link = json.loads(sh("ip", "-n", NS, "-s", "-j", "link", "show", "p2"))[0]
    sent = link["stats64"]["tx"]["packets"]
    assert sent > 0 and by_v3.parsed["ifmib"]["p2"]["ifHCOutUcastPkts"] == sent
    wrong = snmp.Agent(**{**vars(v3), "priv_password": "not-the-pass"})
    snap = snmp.SwitchReader("sw", wrong, ["p1"], transport).snapshot()
    assert snap.parsed == {"ifmib": {}, "dot3": {}} and "snmp" in snap.errors
