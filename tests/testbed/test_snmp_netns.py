# SPDX-License-Identifier: GPL-2.0-only
"""The switch's counters over SNMP, against a real agent: `lanloss bed run --switch-snmp`
serves each emulated switch with net-snmp's snmpd inside its namespace (ifOutDiscards =
the shapers' drops, through testbed/snmp_qdisc_pass.py), and the run's switch drops are
attributed from IF-MIB. The same run, attributed again from the harness's own counters of
those switches, must give exactly the same drops."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from bed_process import start, wait_for_traffic

from lanloss.record import load
from lanloss.testbed import attribution, netns
from lanloss.testbed.counters import get

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (network namespaces)"),
    pytest.mark.skipif(
        not os.path.exists("/usr/sbin/snmpd") or shutil.which("snmpget") is None,
        reason="needs net-snmp (Debian packages snmp, snmpd)",
    ),
    pytest.mark.netns,
    pytest.mark.slow,
]

POINT = [
    "--topology", "two-tier", "--senders", "2", "--receivers", "2",
    "--sender-rate", "1Gbps", "--rate", "150Mbps", "--duration", "1s", "--payload", "1472",
]  # fmt: skip


def _snmpd_pids() -> set[int]:
    out = set()
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as fh:
                    if fh.read().split(b"\0")[0].endswith(b"snmpd"):
                        out.add(int(pid))
            except OSError:
                continue
    return out


def _paths(rec, prefix: str) -> list[attribution.FlowPath]:
    """The record's flows with the switch ports they cross (the run's own plan)."""
    plan = netns.plan(rec.params, prefix)
    out = []
    for i, f in enumerate(rec.flows):
        ingress, egress = netns.flow_ports(plan, f.sender, f.receiver)
        out.append(
            attribution.FlowPath(
                f.sender, "eth0", f.receiver, "eth0", i, "machine", f.sent, f.received,
                ingress=ingress, egress=egress,
            )
        )  # fmt: skip
    return out


def _switch_drops(paths, deltas) -> dict[str, int]:
    srcs = [s for s in attribution.sources(paths, deltas, "udp") if s.point.startswith("switch")]
    totals = attribution.attribute(paths, srcs)["totals"]
    return {k: totals[k] for k in ("switch_ingress", "switch_egress")}


def test_switch_drops_over_snmp_equal_the_harness_own_count(bed, tmp_path, ns_prefix):
    agents_before = _snmpd_pids()
    out = tmp_path / "run.json"
    res = bed("run", "--out", str(out), "--switch-snmp", *POINT, timeout=240)
    assert res.returncode == 0, res.stderr
    rec = load(str(out))
    assert rec.conservation_error() == 0
    switches = set(rec.env["topology"]["switches"])
    assert switches == {"core", "edge1", "edge2"}
    counted = rec.extra["counters"]

    # the record's switch drops came from SNMP
    detail = [d for d in rec.extra["attribution"]["detail"] if d["point"] == "switch_egress"]
    assert detail and all(d["counter"].endswith("ifOutDiscards (SNMP)") for d in detail)

    # the same run attributed once over SNMP, once from the harness's own counters
    paths = _paths(rec, ns_prefix)
    over_snmp = _switch_drops(paths, counted)
    own = {n: {k: v for k, v in d.items() if k != "ifmib"} for n, d in counted.items()}
    from_harness = _switch_drops(paths, own)
    assert over_snmp == from_harness
    assert over_snmp["switch_egress"] > 0  # 2 x 150 Mbit/s into 100 Mbit/s edge ports
    assert rec.drops["switch_egress"] == over_snmp["switch_egress"]

    # port by port: IF-MIB against the kernel's counters of the same port
    for sw in switches:
        for port in rec.env["topology"]["switches"][sw]:
            d = counted.get(sw, {})
            assert get(d, "ifmib", port, "ifOutDiscards") == get(d, "qdisc", port, "drops")
            assert get(d, "ifmib", port, "ifInDiscards") == get(d, "dev", port, "rx_drop")
            # Linux's IF-MIB: ifHCOutUcastPkts is the port's tx_packets (read after the
            # agent's counter cache refreshed: every frame of the run is in it)
            sent = get(d, "dev", port, "tx_packets")
            assert get(d, "ifmib", port, "ifHCOutUcastPkts") == sent

    # the agents are gone with the run (stopped by their PID)
    assert _snmpd_pids() <= agents_before


def test_switch_snmp_is_refused_where_there_is_no_emulated_switch(bed, tmp_path):
    inv = tmp_path / "inv.yaml"
    inv.write_text("hosts: {}\n")
    res = bed("run", "--backend", "ssh", "--inventory", str(inv), "--switch-snmp")
    assert res.returncode == 2
    last = res.stderr.strip().splitlines()[-1]
    assert last.endswith(
        "--switch-snmp: the ssh backend has no emulated switch to serve over SNMP "
        "(a lab's switches are read from the inventory's `switches:`)"
    )


def test_a_killed_runs_agents_are_stopped_by_restore(tmp_path, ns_prefix):
    """snmpd is journalled by PID: a harness killed mid-run leaves it, `bed restore` ends it."""
    state = tmp_path / "state"
    state.mkdir()
    agents_before = _snmpd_pids()
    proc = start(state, ns_prefix, "--switch-snmp", "--rate", "10Mbps", "--duration", "60s")
    try:
        wait_for_traffic(state, proc, ns_prefix)
        ours = _snmpd_pids() - agents_before
        assert len(ours) == 1  # one switch (star), one agent
        proc.kill()
        proc.communicate()
        assert ours <= _snmpd_pids()  # the killed run could not stop it
    finally:
        proc.kill()
        res = subprocess.run(
            [sys.executable, "-m", "lanloss.cli", "bed", "restore", "--prefix", ns_prefix],
            env={**os.environ, "LANLOSS_STATE_DIR": str(state)},
            capture_output=True, text=True, timeout=180,
        )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert not ours & _snmpd_pids()
