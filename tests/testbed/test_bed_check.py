# SPDX-License-Identifier: GPL-2.0-only
"""`lanloss bed check --backend ssh` against the namespace lab of test_bed_ssh.py (sshd hosts
h1, h2 and the harness's namespace on one bridge) with net-snmp's snmpd as the bridge's
managed-switch agent (test_snmp_ssh.py): the table, and one line naming the host and the
remedy for each finding, with the exit status it implies."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from load_rules import shared_clock_as_on_idle, without_wide_bound_warnings
from test_bed_ssh import NET, SSH_NS, lab, sh, start_sshd  # noqa: F401 - lab: a fixture
from test_snmp_ssh import AGENT, SSH_SNMP_LAB, switch_agent, with_switch  # noqa: F401 - a fixture

from lanloss.testbed import snmp_agent

pytestmark = SSH_SNMP_LAB

WARN_PAUSE = (
    "lanloss bed check: {host}: warning: cannot set pause on eth0: ethtool -a: netlink error: "
    "Operation not supported — the run records it as unsupported and goes on; --pause needs "
    "ethtool -A"
)


def inventory(lab, name: str, snmp_port: int = snmp_agent.PORT, **changes: str) -> str:  # noqa: F811
    """The lab's inventory with its bridge as switch lab-sw (agent at AGENT:snmp_port, a
    short timeout), each `old=new` of changes applied to its text; written beside its key."""
    path = Path(with_switch(lab, snmp_port, name, snmp=", timeout: 0.5"))
    text = path.read_text()
    for old, new in changes.values():
        assert old in text, old
        text = text.replace(old, new)
    path.write_text(text)
    return str(path)


def check(bed, lab, inv: str, *options: str):  # noqa: F811
    res = bed("check", "--backend", "ssh", "--inventory", inv, *options, netns=lab["ctl"])
    # a clock verdict of two namespaces of one kernel that only a busy machine's wide bound
    # made "unsynchronized" is not a finding of the lab's (load_rules)
    findings = [x for x in res.stderr.splitlines() if x.startswith("lanloss bed check: ")]
    return res, without_wide_bound_warnings(findings)


def rows(table: str) -> dict[str, list[str]]:
    """The table's rows by name; the last column (clock / ports) kept whole."""
    lines = table.splitlines()
    out = {}
    for line in lines[1:]:
        cells = line.split(maxsplit=13)  # 14 columns, the last with spaces
        out[cells[0]] = cells
    return out


def test_a_good_lab_is_one_table_and_exit_0(lab, switch_agent, bed):  # noqa: F811
    res, findings = check(bed, lab, inventory(lab, "good"))
    assert res.returncode == 0, res.stderr
    table = rows(res.stdout)
    assert res.stdout.splitlines()[0].split() == [
        "name", "role", "reach", "priv", "kernel", "iface", "driver", "map",
        "-A", "-C", "-G", "ITR", "tools", "clock", "/", "ports",
    ]  # fmt: skip
    kernel = os.uname().release
    for name, role in (("h1", "sender"), ("h2", "receiver")):
        # veth: read through the kernel view by design; no pause, coalescing or ring
        # parameters; no InterruptThrottleRate; the tools copied at the run (same machine)
        assert table[name][:13] == [
            name, role, "ssh", "root", kernel, "eth0", "veth", "kernel",
            "no", "no", "no", "-", table[name][12],
        ]  # fmt: skip
        assert table[name][12] in ("copy", "installed")  # installed once a run copied them
    assert table["h1"][13] == "-"
    # one kernel: one CLOCK_REALTIME, the measured offset 0 within its bound
    clock = shared_clock_as_on_idle(table["h2"][13])
    assert clock.startswith("h1: offset ") and "(ping-pong)" in clock
    off, unc = clock.split()[2], clock.split()[5]
    assert abs(float(off)) <= float(unc) + 0.1
    switch = table["lab-sw"]
    assert switch[:4] == ["lab-sw", "switch", "snmp", "v2c"]
    assert switch[-1].startswith(f"{AGENT}:{snmp_agent.PORT}: p2=ifIndex ")
    assert ", p3=ifIndex " in switch[-1]
    # veth cannot take the default pause off: a warning per host, not a problem
    assert findings == [WARN_PAUSE.format(host="h1"), WARN_PAUSE.format(host="h2")]


def test_json_says_the_same(lab, switch_agent, bed):  # noqa: F811
    res, _ = check(bed, lab, inventory(lab, "good"), "--json")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["ok"] is True and doc["problems"] == []
    assert without_wide_bound_warnings(doc["warnings"]) == [
        WARN_PAUSE.format(host="h1"),
        WARN_PAUSE.format(host="h2"),
    ]
    h2 = next(h for h in doc["hosts"] if h["name"] == "h2")
    assert (h2["driver"], h2["driver_map"], h2["privilege"]) == ("veth", "kernel", "root")
    assert h2["ethtool"] == {"-A": False, "-C": False, "-G": False}
    assert list(h2["clock"]) == ["h1"]
    (sw,) = doc["switches"]
    assert sw["reachable"] and set(sw["ports"]) == {"p2", "p3"}


def test_an_unmapped_driver_on_a_receiver_is_a_problem(lab, switch_agent, bed):  # noqa: F811
    """A macvlan interface on h2 (driver "macvlan", in no counter map) as its NIC under test."""
    ns = f"{SSH_NS}h2"
    sh("ip", "-n", ns, "link", "add", "link", "eth0", "name", "mv0", "type", "macvlan")
    try:
        inv = inventory(
            lab, "macvlan", iface=(f"{NET}.3, interface: eth0", f"{NET}.3, interface: mv0")
        )
        res, findings = check(bed, lab, inv)
    finally:
        sh("ip", "-n", ns, "link", "del", "mv0")
    assert res.returncode == 1, res.stderr
    assert rows(res.stdout)["h2"][5:8] == ["mv0", "macvlan", "none"]
    line = [f for f in findings if "macvlan" in f]
    assert line == [
        "lanloss bed check: h2: driver macvlan of mv0 is not in the NIC counter map — its NIC "
        "drops would be left unexplained: use a NIC whose driver is mapped (bnxt_en, e1000, "
        "e1000e, ena, i40e, ice, igb, igc, ixgbe, mlx4_en, mlx5_core, r8169, tg3, virtio_net, "
        "vmxnet3), or add a map for macvlan to testbed/nic_counters.py"
    ]


def test_a_capability_the_options_ask_for_is_a_problem(lab, switch_agent, bed):  # noqa: F811
    res, findings = check(bed, lab, inventory(lab, "good"), "--pause", "on", "--itr", "2500")
    assert res.returncode == 1, res.stderr
    pause = (
        "lanloss bed check: {host}: cannot set pause on eth0: ethtool -a: netlink error: "
        "Operation not supported — leave --pause out, or use a NIC whose driver supports "
        "ethtool -A"
    )
    assert findings == [
        pause.format(host="h1"),
        pause.format(host="h2"),
        "lanloss bed check: h2: cannot set itr on eth0: ethtool -c: netlink error: Operation "
        "not supported — leave --itr out, or use a NIC whose driver supports ethtool -C",
    ]


def test_a_silent_switch_agent_is_a_problem(lab, bed):  # noqa: F811
    silent = snmp_agent.PORT + 7  # nothing listens there
    res, findings = check(bed, lab, inventory(lab, "silent", snmp_port=silent))
    assert res.returncode == 1, res.stderr
    assert rows(res.stdout)["lab-sw"][:3] == ["lab-sw", "switch", "no"]
    (line,) = [f for f in findings if "switch" in f]
    assert line.startswith(
        f"lanloss bed check: switch lab-sw: SNMP agent {AGENT}:{silent}: Timeout"
    ), line
    assert line.endswith(
        " — check its address and SNMP credentials, that this machine may query the agent "
        "(its access list), and the hosts' switch_port names"
    )


def test_an_unreachable_host_is_a_problem(lab, switch_agent, bed):  # noqa: F811
    inv = inventory(lab, "unreachable", port=(f"{NET}.3,", f"{NET}.3, ssh: {{port: 2222}},"))
    res, findings = check(bed, lab, inv)
    assert res.returncode == 1, res.stderr
    assert rows(res.stdout)["h2"][:3] == ["h2", "receiver", "no"]
    (line,) = [f for f in findings if "unreachable" in f]
    assert line.startswith(f"lanloss bed check: h2: unreachable over ssh: host h2 (root@{NET}.3")
    assert "2222" in line and "refused" in line
    assert line.endswith(
        " — check its address, the ssh key and user in the inventory, and that sshd runs"
    )


@pytest.fixture
def root_without_net_admin(lab):  # noqa: F811
    """A second sshd on h2 (port 2200) whose bounding set lacks CAP_NET_ADMIN: its root
    logins cannot change network settings, as root in a container that drops it."""
    server = start_sshd(f"{SSH_NS}h2", lab["dir"], "h2-nocap", f"{NET}.3:2200",
                        wrap=("setpriv", "--bounding-set", "-net_admin", "--"))  # fmt: skip
    try:
        yield
    finally:
        server.terminate()
        server.wait(10)


def test_a_login_without_net_admin_is_a_problem_where_the_run_changes_a_setting(
    lab, switch_agent, root_without_net_admin, bed  # noqa: F811
):  # fmt: skip
    login = (f"{NET}.3,", f"{NET}.3, ssh: {{port: 2200}},")
    inv = inventory(lab, "nocap", login=login)
    res, findings = check(bed, lab, inv)
    assert res.returncode == 0, res.stderr  # nothing to change on h2: a warning
    assert rows(res.stdout)["h2"][3] == "none" and rows(res.stdout)["h1"][3] == "root"
    assert (
        "lanloss bed check: h2: warning: logged in as uid 0 without CAP_NET_ADMIN — a run that "
        "changes a setting there will fail; log in as root (ssh: user: root) where root has "
        "CAP_NET_ADMIN"
    ) in findings
    res, findings = check(bed, lab, inv, "--mtu", "1400")
    assert res.returncode == 1, res.stderr
    assert (
        "lanloss bed check: h2: logged in as uid 0 without CAP_NET_ADMIN: the run changes mtu "
        "eth0 — log in as root (ssh: user: root) where root has CAP_NET_ADMIN"
    ) in findings
