# SPDX-License-Identifier: GPL-2.0-only
"""The vm lab's parts that need no guest (testbed/vm_lab.py): the inventory it writes is
one the ssh backend loads, naming what the plan built; the management subnets avoid every
route here; --lab-inventory is refused, in one line, where no lab can stand."""

from __future__ import annotations

import ipaddress
import subprocess
import sys
from pathlib import Path

from lanloss import options
from lanloss.testbed import inventory, netns, snmp_agent, vm_lab

REPO = Path(__file__).resolve().parents[2]


def _two_tier_plan():
    params = options.resolve({"topology": "two-tier", "senders": "2", "receivers": "2"}, "bed")
    return netns.plan(params, "lltb-labu-")


def test_the_lab_inventory_loads_and_names_each_guest_its_port_and_switch(tmp_path):
    plan = _two_tier_plan()
    key = tmp_path / "id"
    key.write_text("a key file; nothing is contacted\n")
    key.chmod(0o600)
    image = {"key": str(key), "known_hosts": str(tmp_path / "known_hosts")}
    links = {sw.name: {"there": f"10.78.0.{4 * k + 2}"} for k, sw in enumerate(plan.switches)}
    ports = {h.name: 2201 + k for k, h in enumerate(plan.hosts)}
    path = tmp_path / "lab.yaml"
    vm_lab.write(str(path), vm_lab.inventory(plan, links, ports, image))
    inv = inventory.load(str(path))
    assert set(inv.hosts) == {h.name for h in plan.hosts}
    assert set(inv.switches) == {sw.name for sw in plan.switches}
    for node in plan.hosts:
        spec = inv.hosts[node.name]
        assert spec.address == links[node.switch]["there"]
        assert spec.ssh.port == ports[node.name] and spec.ssh.user == "root"
        assert spec.ssh.key == str(key) and spec.ssh.strict_host_key_checking == "yes"
        assert (spec.data_address, spec.interface) == (node.address, "eth0")
        assert spec.switch == node.switch
        assert spec.switch_port == plan.port_towards(node.switch, node.name).name
    for sw in plan.switches:
        agent = inv.switches[sw.name].agent
        assert (agent.address, agent.port) == (links[sw.name]["there"], snmp_agent.PORT)
        assert agent.community == snmp_agent.COMMUNITY
    # each flow crosses the switch ports of its path: the edges' links to the core
    s, r = plan.flows[0][:2]
    ingress, egress = inv.flow_ports(s, r)
    assert ingress and egress and len(inv.links) == len(plan.switches) - 1


def test_management_subnets_overlap_no_route_of_this_machine(monkeypatch):
    taken = [ipaddress.IPv4Network("10.78.0.0/29"), ipaddress.IPv4Network("10.78.0.12/30")]
    monkeypatch.setattr(vm_lab, "_routes", lambda: taken)
    got = vm_lab.free_subnets(3)
    assert [str(n) for n in got] == ["10.78.0.8/30", "10.78.0.16/30", "10.78.0.20/30"]


def test_link_names_fit_an_interface_name_and_differ_by_namespace():
    names = {vm_lab.link_name(f"lltb-labu-sw{k}") for k in range(50)}
    assert len(names) == 50 and all(len(n) <= 15 for n in names)


def _bed(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "lanloss.cli", "bed", *args, "--prefix", "lltb-labu-"]
    env = {"LANLOSS_STATE_DIR": str(tmp_path / "state"), "PATH": "/usr/sbin:/usr/bin:/bin"}
    return subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=60)


def test_a_lab_needs_a_standing_lan_and_guests_only(tmp_path):
    lab = str(tmp_path / "lab.yaml")
    for args, words in (
        (["--backend", "vm", "--lab-inventory", lab], "add --keep-lan"),
        (["--backend", "vm", "--keep-lan", "--vm-guests", "receivers", "--lab-inventory", lab],
         "use --vm-guests all"),
        (["--backend", "netns", "--lab-inventory", lab], "only the vm backend"),
    ):  # fmt: skip
        res = _bed(tmp_path, "run", *args)
        lines = res.stderr.strip().splitlines()
        assert res.returncode == 2 and len(lines) == 1, res.stderr
        assert "--lab-inventory" in lines[0] and words in lines[0], lines[0]
    assert not (tmp_path / "lab.yaml").exists()
