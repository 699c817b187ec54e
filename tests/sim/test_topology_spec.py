# SPDX-License-Identifier: GPL-2.0-only
"""Each topology is generated once (lanloss.topology) and both sides build that one:

* the scenario program builds from the spec file `lanloss sim run` writes, and what it
  builds (printed back by ``--print_spec``, after parsing) is what LanSpec::Star/TwoTier/
  TwoSite, kept for the module's C++ users, build from the topology's name;
* the netns backend's namespaces, links and flows are the same nodes, rates and flows.

A change to one generator and not the other fails here.
"""

from __future__ import annotations

import subprocess

import pytest

from lanloss import options, paths, sim, topology
from lanloss.sim import SCENARIO
from lanloss.testbed import netns

CASES = [
    {"topology": "star"},
    {"topology": "star", "senders": 3, "receivers": 5, "sender_rate": "1Gbps"},
    {"topology": "star", "senders": 4, "receivers": 2, "link_delay": "3.3us"},
    {"topology": "two-tier", "senders": 2, "receivers": 4, "edge_switches": 3},
    {"topology": "two-tier", "senders": 1, "receivers": 3, "edge_switches": 1},
    {"topology": "two-tier", "receivers": 7, "edge_switches": 4, "backbone_rate": "10Gbps"},
    {"topology": "two-site", "senders": 2, "receivers": 3, "wan_delay": "1.6ms"},
    {"topology": "two-site", "edge_rate": "10Mbps", "sender_rate": "1Gbps", "wan_delay": "7ms"},
]


def _ids(case: dict) -> str:
    return "-".join(f"{v}" for v in case.values())


def _printed(flags: list[str]) -> str:
    proc = subprocess.run(
        [str(paths.program(SCENARIO)), *flags, "--print_spec"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _parse(text: str) -> dict:
    out: dict = {"switch": [], "host": [], "link": [], "flow": []}
    for line in text.splitlines():
        if line.strip() and not line.startswith("#"):
            kind, *rest = line.split()
            out[kind].append(tuple(rest))
    return out


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_the_program_builds_the_generated_lan_as_its_own_generators(built, tmp_path, case):
    params = options.resolve({k: str(v) for k, v in case.items()}, "sim")
    by_name = _printed(sim.scenario_flags(params))
    spec = sim.write_spec(params, str(tmp_path / "lan.spec"))
    from_file = _printed(sim.scenario_flags(params, spec))
    assert from_file == by_name

    # and what the program printed is the Python dict, node for node, in build order
    topo = topology.of_params(params)
    printed = _parse(from_file)
    assert [s for (s,) in printed["switch"]] == topo["switches"]
    assert dict(printed["host"]) == topo["hosts"]
    assert [h for h, _ in printed["host"]] == list(topo["hosts"])
    assert printed["link"] == [
        (a, b, f"{bps}bps", f"{round(delay * 1e9)}ns") for a, b, bps, delay in topo["links"]
    ]
    assert printed["flow"] == [(a, b) for a, b, _ in topology.default_flows(topo["hosts"])]


@pytest.mark.parametrize("case", [c for c in CASES if c["topology"] != "two-site"], ids=_ids)
def test_the_netns_backend_builds_the_programs_lan(built, case):
    """Same nodes, roles, links (rates; the bed emulates no delay) and unicast flows."""
    sim_params = options.resolve({k: str(v) for k, v in case.items()}, "sim")
    printed = _parse(_printed(sim.scenario_flags(sim_params)))
    bed_given = {k: str(v) for k, v in case.items() if k not in ("link_delay", "wan_delay")}
    plan = netns.plan(options.resolve(bed_given, "bed"), "lltb-")
    assert [n.name for n in plan.switches] == [s for (s,) in printed["switch"]]
    assert [(n.name, n.kind) for n in plan.hosts] == printed["host"]
    assert [(a, b, f"{bps}bps") for a, b, bps, _ in plan.links] == [
        (a, b, rate) for a, b, rate, _ in printed["link"]
    ]
    assert [(a, b) for a, b, _ in plan.flows] == printed["flow"]


def test_an_unknown_name_is_refused():
    with pytest.raises(options.OptionError, match="ring"):
        topology.named("ring", senders=1, receivers=1, edge_rate=1, sender_rate=1, backbone_rate=1)
