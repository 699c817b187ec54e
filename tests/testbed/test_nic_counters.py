# SPDX-License-Identifier: GPL-2.0-only
"""The driver counter map (lanloss.testbed.nic_counters) against published `ethtool -S` dumps
(tests/testbed/fixtures/ethtool/<driver>-<n>.txt, each citing its source in its first lines),
read with the harness's own parser, and the attribution of synthetic deltas built on them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from lanloss.record import DROP_POINTS, RunRecord
from lanloss.testbed import attribution, counters, run_record
from lanloss.testbed import nic_counters as nc

FIXTURES = Path(__file__).parent / "fixtures" / "ethtool"
IFACE = "eth0"


def _stats(path: Path) -> dict[str, int]:
    """A fixture's dump (its source comments left out) through counters.parse_ethtool_stats."""
    text = path.read_text(encoding="utf-8")
    return counters.parse_ethtool_stats(
        "\n".join(line for line in text.splitlines() if not line.startswith("#"))
    )


def _fixtures(driver: str) -> list[Path]:
    return sorted(FIXTURES.glob(f"{driver}-*.txt"))


def test_every_fixture_cites_its_source_and_parses():
    files = sorted(FIXTURES.glob("*.txt"))
    assert len(files) >= 18
    for f in files:
        head = f.read_text(encoding="utf-8").splitlines()[0]
        assert head.startswith("# Source: "), f.name
        assert _stats(f), f.name


def test_every_mapped_driver_has_a_fixture_or_says_why_not():
    unchecked = {d for d, m in nc.DRIVERS.items() if not m.fixture}
    assert unchecked == {"igc", "mlx4_en"}  # named in nic_counters' docstring
    for driver in nc.DRIVERS:
        if driver != "igc":
            assert _fixtures(driver), driver
    for driver in unchecked:
        assert driver in nc.__doc__


@pytest.mark.parametrize("driver", sorted(d for d, m in nc.DRIVERS.items() if m.fixture))
def test_every_mapped_name_is_in_a_published_dump(driver):
    names = set().union(*(_stats(f) for f in _fixtures(driver)))
    m = nc.DRIVERS[driver]
    for rule in m.rules:
        assert any(rule.matches(n) for n in names), (driver, rule.pattern)
    for pattern in m.in_dev_drop:
        assert any(re.fullmatch(pattern, n) for n in names), (driver, pattern)
    # and no drop-like name of those dumps is left unmapped
    assert [n for n in names if m.rule_for(n) is None and nc.looks_like_rx_drop(n)] == []


def test_standard_statistics_names_are_known():
    for f in _fixtures("standard"):
        for name in _stats(f):
            assert any(r.matches(name) for r in nc.STANDARD), name


def test_vmxnet3_per_queue_blocks_are_summed():
    stats = _stats(FIXTURES / "vmxnet3-1.txt")
    assert stats["ucast pkts rx"] == 40863 + 143523
    assert stats["LRO pkts rx"] == 5283 + 604


def _delta(driver_file: str, bumps: dict[str, int], dev: dict[str, int]) -> dict:
    """counters.delta of two snapshots: the published dump, and the same dump with `bumps`
    added (every name must be in the dump) and /proc/net/dev moved by `dev`."""
    before = _stats(FIXTURES / driver_file)
    assert set(bumps) <= set(before), set(bumps) - set(before)
    after = {k: v + bumps.get(k, 0) for k, v in before.items()}
    dev0 = {"rx_drop": 1000, "rx_fifo": 10}
    dev1 = {k: v + dev.get(k, 0) for k, v in dev0.items()}
    a = counters.Snapshot("r1", 0.0, {"ethtool": {IFACE: before}, "dev": {IFACE: dev0}})
    b = counters.Snapshot("r1", 1.0, {"ethtool": {IFACE: after}, "dev": {IFACE: dev1}})
    return counters.delta(a, b)


def _attribute(driver: str | None, delta: dict, lost: int):
    path = attribution.FlowPath(
        "s1", "eth0", "r1", IFACE, 0, "r1", 100_000, 100_000 - lost, receiver_driver=driver
    )
    deltas = {"r1": delta}
    res = attribution.attribute([path], attribution.sources([path], deltas, "udp"))
    return res, attribution.nic_reports([path], deltas)[("r1", IFACE)]


def _case(
    driver: str,
    bumps: dict[str, int],
    dev: dict[str, int],
    want: tuple[int, int, int],
    dump: int = 1,
):
    """One driver's case: its published dump <driver>-<dump>.txt, the counters increased,
    /proc/net/dev moved, and the drops expected at rx_fifo, rx_ring and rx_error."""
    points = dict(zip(("rx_fifo", "rx_ring", "rx_error"), want, strict=True))
    return pytest.param(driver, f"{driver}-{dump}.txt", bumps, dev, points, id=driver)


CASES = [
    _case(
        "e1000",
        {"rx_missed_errors": 30, "rx_crc_errors": 5, "rx_errors": 5, "rx_no_buffer_count": 90},
        {"rx_drop": 37, "rx_fifo": 2},
        (32, 7, 5),
    ),
    _case(
        "e1000e",
        {"rx_missed_errors": 11, "rx_short_length_errors": 2, "rx_length_errors": 2},
        {"rx_drop": 11},
        (11, 0, 2),
    ),
    _case(
        "igb",
        {
            "rx_queue_0_drops": 2,
            "rx_queue_2_drops": 40,
            "rx_fifo_errors": 42,
            "rx_missed_errors": 10,
            "rx_no_buffer_count": 50,
        },
        {"rx_drop": 10, "rx_fifo": 42},
        (10, 42, 0),
    ),
    _case(
        "ixgbe",
        {"rx_no_dma_resources": 20, "rx_missed_errors": 15, "rx_crc_errors": 1, "rx_errors": 1},
        {"rx_drop": 15},
        (15, 20, 1),
    ),
    _case(
        "i40e",
        {"rx_dropped": 25, "port.rx_dropped": 50, "port.rx_crc_errors": 3, "rx_crc_errors": 3},
        {"rx_drop": 25},
        (50, 25, 3),
    ),
    _case(
        "ice",
        {"rx_dropped": 25, "rx_dropped.nic": 50, "rx_crc_errors.nic": 3},
        {"rx_drop": 25},
        (50, 25, 3),
    ),
    _case(
        "mlx5_core",
        {
            "rx_out_of_buffer": 100,
            "rx_discards_phy": 60,
            "rx_prio0_discards": 60,
            "rx0_buff_alloc_err": 4,
        },
        {"rx_drop": 100, "rx_fifo": 60},
        (60, 100, 0),
    ),
    _case(
        "bnxt_en",
        {
            "[3]: rx_discards": 11,
            "[7]: rx_discards": 9,
            "rx_total_ring_discards": 20,
            "rx_stat_discard": 4,
            "rx_discard_packets_cos0": 4,
            "rx_fcs_err_frames": 2,
            "rx_stat_err": 2,
        },
        {"rx_drop": 20},
        (4, 20, 2),
    ),
    _case(
        "tg3",
        {"rx_discards": 12, "rx_fcs_errors": 1, "rx_errors": 1, "rxbds_empty": 300},
        {"rx_drop": 12},
        (12, 0, 1),
    ),
    _case("r8169", {"rx_missed": 8, "rx_errors": 2, "align_errors": 2}, {"rx_drop": 11}, (8, 3, 2)),
    _case("virtio_net", {"rx_queue_1_drops": 6, "rx_drops": 6}, {"rx_drop": 6}, (0, 6, 0), dump=2),
    _case(
        "vmxnet3",
        {"pkts rx OOB": 13, "drv dropped rx total": 2, "fcs": 2},
        {"rx_drop": 15},
        (0, 13, 2),
    ),
    _case(
        "ena",
        {"queue_0_rx_page_alloc_fail": 1, "queue_2_rx_empty_rx_ring": 3},
        {"rx_drop": 9},
        (0, 9, 0),
    ),
]


@pytest.mark.parametrize("driver,fixture,bumps,dev,want", CASES)
def test_drops_land_at_the_drivers_drop_points(driver, fixture, bumps, dev, want):
    res, nic = _attribute(driver, _delta(fixture, bumps, dev), lost=sum(want.values()))
    assert nic.map == driver and nic.complete, (nic.unmapped, nic.uncertain)
    assert {k: res["totals"][k] for k in nc.NIC_POINTS} == want
    assert res["totals"]["unexplained"] == 0


def test_all_drivers_with_a_fixture_have_a_case():
    assert {c.id for c in CASES} == {d for d, m in nc.DRIVERS.items() if m.fixture}


@pytest.mark.parametrize("driver", [None, "veth", "e1000"])
def test_the_kernel_view_and_e1000_keep_the_original_rule(driver):
    """No map (veth, unknown): rx_fifo = fifo + rx_missed_errors, rx_ring = drop - missed."""
    delta = {
        "ethtool": {IFACE: {"rx_missed_errors": 30}},
        "dev": {IFACE: {"rx_drop": 37, "rx_fifo": 2}},
    }
    res, nic = _attribute(driver, delta, lost=39)
    assert nic.map == (driver if driver == "e1000" else "kernel")
    assert (res["totals"]["rx_fifo"], res["totals"]["rx_ring"]) == (32, 7)
    assert res["totals"]["unexplained"] == 0
    assert [
        s.point
        for s in attribution.sources(
            [attribution.FlowPath("s1", "e", "r1", IFACE, 0, "r1", 9, 0, receiver_driver=driver)],
            {"r1": delta},
            "udp",
        )
    ] == ["rx_fifo", "rx_ring"]


def test_an_unknown_moved_counter_is_listed_and_attribution_is_incomplete():
    """veth's XDP queue drop counter is in no map: listed by name and value, its drops left
    in unexplained, the attribution marked incomplete."""
    delta = _delta(
        "veth-1.txt", {"rx_queue_0_drops": 7, "rx_queue_0_xdp_packets": 50}, {"rx_drop": 7}
    )
    res, nic = _attribute("veth", delta, lost=7)
    assert nic.unmapped == {"rx_queue_0_drops": 7}  # xdp_packets is not drop-like
    assert not nic.complete
    why = attribution.incomplete({("r1", IFACE): nic})
    assert why == ["r1 eth0 (veth): moved, not in the kernel map: rx_queue_0_drops=7"]


def test_an_uncertain_counter_makes_attribution_incomplete():
    delta = _delta(
        "mlx5_core-1.txt",
        {"rx_out_of_buffer": 5, "rx0_xdp_drop": 3, "rx_xdp_drop": 3},
        {"rx_drop": 5},
    )
    res, nic = _attribute("mlx5_core", delta, lost=8)
    assert res["totals"]["rx_ring"] == 5 and res["totals"]["unexplained"] == 3
    assert nic.uncertain == {"rx0_xdp_drop": 3, "rx_xdp_drop": 3} and not nic.complete


def test_a_counter_going_backwards_is_not_a_negative_drop():
    delta = _delta("r8169-1.txt", {}, {})
    delta["ethtool"][IFACE]["rx_missed"] = -65530  # the 16-bit RxMissed wrapped
    res, nic = _attribute("r8169", delta, lost=0)
    assert res["totals"]["rx_fifo"] == 0 and nic.uncertain == {"rx_missed": -65530}


def test_standard_statistics_fill_only_points_the_driver_lacks():
    std0 = _stats(FIXTURES / "standard-1.txt")
    std1 = dict(
        std0, **{"eth-mac-FrameCheckSequenceErrors": std0["eth-mac-FrameCheckSequenceErrors"] + 4}
    )
    std = counters._sub(std0, std1)
    ena = nc.nic_drops("ena", {}, {}, std)  # ena has no FCS counter of its own
    bnxt = nc.nic_drops("bnxt_en", {}, {}, std)  # bnxt has rx_fcs_err_frames
    assert ena.points["rx_error"] == 4 and ena.complete
    assert bnxt.points["rx_error"] == 0 and bnxt.complete


def test_driver_pause_counters():
    stats = {"rx_flow_control_xon": 3, "rx_flow_control_xoff": 4, "tx_flow_control_xoff": 2}
    assert nc.nic_drops("e1000e", stats, {}).pause == {"rx": 7, "tx": 2}
    assert not nc.map_for("virtio_net").counts_pause


def test_the_record_lists_unmapped_counters_and_stays_valid():
    delta = _delta("veth-1.txt", {"rx_queue_0_drops": 7}, {"rx_drop": 7})
    path = attribution.FlowPath(
        "s1", "eth0", "r1", IFACE, 0, "r1", 1000, 993, receiver_driver="veth"
    )
    outcome = run_record.Outcome(None, {"r1": delta}, {}, {}, {"r1": {"driver": "veth"}})
    section = run_record._nic_section([path], outcome, "udp")
    assert section["attribution"]["complete"] is False
    assert section["extra"]["unmapped_counters"] == {"r1": {IFACE: {"rx_queue_0_drops": 7}}}
    assert section["extra"]["nic"]["r1"][IFACE]["map"] == "kernel"
    record = {
        "schema": "lanloss.run/1",
        "source": "bed",
        "params": {"rate": 1},
        "flows": [{"sender": "s1", "receiver": "r1", "sent": 1000, "received": 993, "lost": 7}],
        "totals": {"sent": 1000, "received": 993},
        "drops": {k: 0 for k in DROP_POINTS} | {"rx_ring": 7},
        "pause": {},
        "timing": {},
        "extra": {
            "attribution": {"detail": [], "flags": [], **section["attribution"]},
            **section["extra"],
        },
    }
    back = RunRecord.from_dict(json.loads(json.dumps(RunRecord.from_dict(record).to_dict())))
    assert back.extra["unmapped_counters"]["r1"][IFACE] == {"rx_queue_0_drops": 7}
    assert back.extra["attribution"]["incomplete"]
    assert run_record._nic_section([path], outcome, "tcp") == {"attribution": {}, "extra": {}}


def _host(name: str, iface: str):
    from lanloss.testbed.hosts import Host
    from lanloss.testbed.inventory import HostSpec

    return Host(HostSpec(name, "receiver", "", "10.0.0.2", iface), transport=None)


def test_pause_falls_back_to_the_drivers_counters():
    """No `ethtool -I -a` statistics: an e1000e's flow-control counters fill the record's
    pause section, marked with their source; virtio_net (no PAUSE) and veth add nothing."""
    state = run_record.RunState(
        "now", hosts={"r1": _host("r1", IFACE), "r2": _host("r2", IFACE), "r3": _host("r3", "v")}
    )
    deltas = {
        "r1": {"ethtool": {IFACE: {"rx_flow_control_xoff": 4, "tx_flow_control_xon": 1}}},
        "r2": {"ethtool": {IFACE: {"rx_queue_0_drops": 3}}},
        "r3": {"ethtool": {"v": {"rx_queue_0_drops": 3}}},
    }
    facts = {"r1": {"driver": "e1000e"}, "r2": {"driver": "virtio_net"}, "r3": {"driver": "veth"}}
    pause = run_record._pause(state, run_record.Outcome(None, deltas, {}, {}, facts))
    assert pause == {
        "frames_sent": 1,
        "ports": {
            "r1:eth0": {
                "frames_sent": 1,
                "frames_received": 4,
                "source": "e1000e ethtool -S counters",
            }
        },
    }
    # the standard statistics win where the NIC reports them
    deltas["r1"]["pause"] = {IFACE: {"tx_pause_frames": 9, "rx_pause_frames": 8}}
    pause = run_record._pause(state, run_record.Outcome(None, deltas, {}, {}, facts))
    assert pause["ports"]["r1:eth0"] == {"frames_sent": 9, "frames_received": 8}
