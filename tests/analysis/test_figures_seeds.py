# SPDX-License-Identifier: GPL-2.0-only
"""The seed figures (seed000 ... seed004): each draws from a small table, writes PNG, PDF and
its error table, and the error table's numbers are the ones the seed and the physics give.

Real simulator runs (UDP and TCP, the e1000-era and modern hosts, itr, readers, two
sites); synthetic rows only for a hand-made table with exact numbers and for a testbed
value without root: each test says which.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest
from figures_tables import real_table, synthetic

from lanloss.analysis import wire
from lanloss.analysis.figures import common, seed000, seed001, seed002, seed003, seed004, simbed

FIGS = (seed000, seed001, seed002, seed003, seed004, simbed)


def _pts(fixed: dict, variants: list[dict]) -> list[dict]:
    return [{**fixed, **v} for v in variants]


@pytest.fixture(scope="module")
def gig(tmp_path_factory, built):
    """Real runs at 1 Gbit/s (modern host): 1400-byte UDP at 500 and 1200 Mbit/s and TCP at
    1200 Mbit/s; 1- and 100-byte UDP as fast as the sender goes, one and two readers."""
    fixed = {"edge_rate": "1Gbps", "host": "modern", "duration": "0.02s", "warmup": "0.005s"}
    variants = [{"payload": 1400, "rate": r} for r in ("500Mbps", "1200Mbps")]
    variants += [{"payload": 1400, "rate": "1200Mbps", "protocol": "tcp"}]
    variants += [{"payload": p, "rate": "max", "readers": k} for p in (1, 100) for k in (1, 2)]
    return real_table(tmp_path_factory.mktemp("gig"), _pts(fixed, variants), "gig")


@pytest.fixture(scope="module")
def lan(tmp_path_factory, built):
    """Real runs at 100 Mbit/s with the e1000-era host: netperf-like streams (seed 001) and
    multicast 64-byte datagrams below and above the ITR-0 knee, and at the wire (seed 000)."""
    fixed = {"edge_rate": "100Mbps", "host": "e1000-2008", "duration": "0.05s", "warmup": "0.01s"}
    variants = [
        {"payload": 576, "rate": "max", "rcvbuf": "16KiB"},
        {"payload": 64512, "rate": "max", "protocol": "tcp", "tcp_window": "64KiB"},
    ]
    for itr in (0, 2500):
        m = {"payload": 64, "itr": itr, "cast": "multicast"}
        variants += [{**m, "rate": r} for r in ("20Mbps", "40Mbps")]
        variants += [{**m, "rate": "max", "tx_queue": "16KiB"}]
    # the socket-buffer stage: the tuned host whose reader stalls 10 ms every 100 ms
    stall = {"payload": 64, "itr": 2500, "cast": "multicast", "rate": "20Mbps"}
    stall |= {"stall_period": "100ms", "stall_length": "10ms", "duration": "0.35s"}
    variants += [{**stall, "rcvbuf": b} for b in ("54784", "1MiB")]
    return real_table(tmp_path_factory.mktemp("lan"), _pts(fixed, variants), "lan")


@pytest.fixture(scope="module")
def wan(tmp_path_factory, built):
    """Real TCP over two sites joined by 1 Gbit/s and 2 ms: windows 16 KiB and 1 MiB."""
    fixed = {
        "topology": "two-site",
        "edge_rate": "1Gbps",
        "backbone_rate": "1Gbps",
        "wan_delay": "2ms",
        "protocol": "tcp",
        "payload": 16384,  # a message fits the 2 x 16 KiB send buffer
        "rate": "max",
        "duration": "0.2s",
        "warmup": "0.1s",
    }
    variants = [{"tcp_window": w, "mtu": 1500} for w in ("16KiB", "1MiB")]
    variants += [{"tcp_window": "1MiB", "mtu": 9000}]
    return real_table(tmp_path_factory.mktemp("wan"), _pts(fixed, variants), "wan")


def saved(fig, errors, tmp_path, name):
    paths = common.save(fig, errors, str(tmp_path), name)
    for p in paths:
        assert (tmp_path / p.split("/")[-1]).stat().st_size > 0, p
    written = pd.read_csv(paths[2])
    assert list(written.columns) == list(common.ERROR_COLUMNS)
    assert set(written["kind"]) <= set(common.KINDS)
    return written


def by_point(errors: pd.DataFrame, point: str, quantity: str | None = None) -> pd.Series:
    rows = errors[errors["point"] == point]
    if quantity:
        rows = rows[rows["quantity"] == quantity]
    assert len(rows) == 1, (point, quantity, errors["point"].tolist())
    return rows.iloc[0]


def test_seed001_real_streams_and_a_synthetic_testbed_row(lan, gig, tmp_path):
    """Simulator real (UDP 576 B with a 16 KiB buffer, TCP with a 64 KiB window, 100 Mbit/s);
    one synthetic testbed row (no root needed) for the testbed column."""
    udp = lan[(lan["payload"] == 576)]
    bed = synthetic(
        udp, [{"source": "bed", "goodput_bps": 88.0e6, "sent": 1000, "received": 990}], "b"
    )
    table = pd.concat([lan, gig, bed], ignore_index=True)
    fig, errors = seed001.draw(table)
    written = saved(fig, errors, tmp_path, "seed001")
    assert len(written) == 2  # the two seed cells a run matches
    row = by_point(errors, "udp 576 B, buffer 16384 B")
    assert row["reference_value"] == 89.59  # seed 001, table LL
    assert row["sim_value"] == pytest.approx(udp["goodput_bps"].iloc[0] / 1e6)
    assert row["model_value"] == pytest.approx(89.7196, abs=1e-4)  # 576 / 642 of 100 Mbit/s
    assert row["sim_value"] == pytest.approx(row["model_value"], rel=0.005)  # wire-limited
    assert row["bed_value"] == 88.0
    assert row["bed_rel_error_pct"] == pytest.approx(100 * (88.0 - 89.59) / 89.59)
    tcp = by_point(errors, "tcp 65536 B, buffer 65536 B")  # a 64512-byte TCP run stands for it
    assert tcp["reference_value"] == 94.10
    assert tcp["sim_value"] == pytest.approx(wire.tcp_goodput_bps(100e6) / 1e6, rel=0.01)
    assert any("runs not at rate max on 100 Mbit/s" in n for n in common.notes_of(errors))


BEST_ITR = "fewest interrupts among the ITRs receiving the most (all payloads they ran)"


def test_seed000_hand_made_table_gives_exact_numbers(gig, tmp_path):
    """Synthetic, hand-made: 64-byte payloads on 100 Mbit/s; with itr 0 delivery peaks at
    25 Mbit/s and falls, with itr 2500 nothing is lost."""
    cap64 = wire.saturation_goodput_bps(64, 100e6)
    frac0 = {10e6: 1, 20e6: 1, 25e6: 1, 30e6: 0.8, 35e6: 0.6, 40e6: 0.3, 45e6: 0.15, cap64: 0.1}
    rows = []
    for itr, frac in ((0.0, frac0), (2500.0, dict.fromkeys(frac0, 1))):
        for rate, f in frac.items():
            rows.append(
                {
                    "host": "e1000-2008",
                    "itr": itr,
                    "payload": 64.0,
                    "rate": rate,
                    "offered_bps": rate,
                    "sent": 10000,
                    "received": int(10000 * f),
                    "goodput_bps": rate * f,
                    "edge_rate": 100e6,
                    "rate_max": False,
                }
            )
        cap = wire.saturation_goodput_bps(1472, 100e6)
        rows.append(
            {
                "host": "e1000-2008",
                "itr": itr,
                "payload": 1472.0,
                "rate": cap,
                "offered_bps": cap,
                "sent": 1000,
                "received": 1000,
                "goodput_bps": cap,
                "edge_rate": 100e6,
                "rate_max": False,
            }
        )
    fig, errors = seed000.draw(synthetic(gig, rows, "s000"))
    saved(fig, errors, tmp_path, "seed000")
    onset = by_point(errors, "ITR 0, 64 B: lowest offered rate losing more than 0.0001")
    assert onset["reference_value"] == 20 and onset["sim_value"] == 30
    assert onset["sim_rel_error_pct"] == pytest.approx(50.0)
    livelock = by_point(errors, "ITR 0, 64 B: delivered at the highest offered rate")
    assert livelock["reference_value"] == 1.0
    assert livelock["sim_value"] == pytest.approx(0.1 * cap64 / 25e6)  # 4.92 of 25 Mbit/s
    assert livelock["sim_meets"] == True  # noqa: E712  less arrives than at lower rates
    tuned = by_point(errors, "ITR 2500, 64 B at 20 Mbit/s")
    # 0 lost of 10,000 is no evidence of < 1e-4: its 95 % upper bound is 3.0e-4
    assert tuned["sim_value"] == pytest.approx(1 - 0.05 ** (1 / 10000))
    assert tuned["sim_meets"] == False  # noqa: E712
    best = by_point(errors, BEST_ITR)
    assert best["sim_value"] == 2500 and best["sim_rel_error_pct"] == 0


def test_seed000_loss_bound_and_best_itr_definitions():
    assert seed000.loss_upper_bound(0, 30_000) == pytest.approx(9.986e-5, rel=1e-3)
    assert seed000.loss_upper_bound(0, 29_000) > 1e-4  # not enough datagrams to say < 1e-4
    assert seed000.loss_upper_bound(5, 100) == pytest.approx(0.1023, rel=0.01)
    assert math.isnan(seed000.loss_upper_bound(0, 0))
    # lost per ITR: 500 and 1000 lose (ring), 2500 and up lose nothing: 2500 is best
    lost = pd.Series({0.0: 9000, 500.0: 2500, 1000.0: 12, 2500.0: 0, 5000.0: 0})
    assert seed000.best_itr_of(lost) == 2500.0
    assert seed000.best_itr_of(pd.Series({0.0: 0, 2500.0: 40})) == 0.0


def test_seed000_real_e1000_host(lan, tmp_path):
    """Real: the e1000-era host, multicast 64-byte datagrams; ITR 0 loses past its knee
    (58.8 kpps, 30 Mbit/s), ITR 2500 loses nothing: seed 000's finding."""
    fig, errors = seed000.draw(lan)
    saved(fig, errors, tmp_path, "seed000")
    stalled = lan["stall_period"].astype(float).fillna(0) > 0
    m = lan[(lan["payload"] == 64) & ~stalled].assign(mbps=lambda f: f["offered_bps"] / 1e6)
    itr0 = m[(m["itr"] == 0) & m["rate"].notna()].set_index("rate")
    assert itr0.loc[20e6, "lost"] == 0 and itr0.loc[40e6, "loss"] > 0.1
    onset = by_point(errors, "ITR 0, 64 B: lowest offered rate losing more than 0.0001")
    assert onset["sim_value"] == 40 and onset["sim_rel_error_pct"] == pytest.approx(100.0)
    tuned = by_point(errors, "ITR 2500, 64 B at 20 Mbit/s")
    sent = m[(m["itr"] == 2500) & (m["rate"] == 20e6)]["sent"].sum()
    assert tuned["sim_value"] == pytest.approx(1 - 0.05 ** (1 / sent))  # 0 lost of `sent`
    best = by_point(errors, BEST_ITR)
    assert best["sim_value"] == 2500
    # (d) the socket-buffer stage: the small buffer loses, all of it in the socket; 1 MiB none
    stage = "ITR 2500, 64 B at 20 Mbit/s; the reader stalls 10 ms every 100 ms; SO_RCVBUF"
    small = by_point(errors, f"{stage} 54784 B", "datagram loss (losses remain after the ITR fix)")
    assert small["sim_value"] > 1e-3 and small["sim_meets"] == True  # noqa: E712
    share = by_point(errors, f"{stage} 54784 B", "share of the loss in the socket receive buffer")
    assert share["sim_value"] == 1.0
    big = lan[stalled & (lan["rcvbuf"].astype(float) == 2**20)]
    assert big["lost"].sum() == 0 and big["sent"].sum() > 10_000
    livelock = by_point(errors, "ITR 0, 64 B: delivered at the highest offered rate")
    top = m[(m["itr"] == 0)].sort_values("mbps")
    expected = top["goodput_bps"].iloc[-1] / top["goodput_bps"].iloc[:-1].max()
    assert livelock["sim_value"] == pytest.approx(expected)


def test_seed003_real_udp_and_tcp(gig, tmp_path):
    fig, errors = seed003.draw(gig)
    saved(fig, errors, tmp_path, "seed003")
    udp = by_point(errors, "udp 1400 B at 1 Gbit/s, MTU 1500")
    # the thesis' numbers are withheld: the capacities (closed form) and its stated behaviour
    # (a prediction: these runs do not have the Java send cost set from the 1400-byte rows;
    # no ideal-host runs here, so not split)
    assert set(errors["kind"]) == {"closed form", "predicted"}
    stated = errors[errors["kind"] == "predicted"]
    # (no message above 1400 bytes here: the rows on large messages need them)
    assert set(stated["point"]) == {
        "udp 1400 B at the highest offered rate",
        "tcp 1400 B at the highest offered rate",
    }
    cap = wire.saturation_goodput_bps(1400, 1e9) / 1e6
    assert udp["reference_value"] == pytest.approx(cap)
    measured = gig[(gig["payload"] == 1400) & (gig["protocol"] == "udp")]["goodput_bps"]
    assert udp["sim_value"] == pytest.approx(measured.max() / 1e6)
    assert abs(udp["sim_rel_error_pct"]) < 0.5  # the simulator's wire is the closed form
    tcp = by_point(errors, "tcp 1400 B at 1 Gbit/s, MTU 1500")
    assert tcp["reference_value"] == pytest.approx(wire.tcp_goodput_bps(1e9) / 1e6)
    assert abs(tcp["sim_rel_error_pct"]) < 1.0
    # 1- and 100-byte payloads are drawn too (they are UDP at 1 Gbit/s)
    assert {"udp 1 B at 1 Gbit/s, MTU 1500", "udp 100 B at 1 Gbit/s, MTU 1500"} <= set(
        errors["point"]
    )


def test_seed003_small_messages_are_calibrated_only_with_the_cost_set_from_them():
    assert seed003.small_message_evidence(pd.DataFrame({"send_cost": [20e-6]})) == "calibrated"
    assert seed003.small_message_evidence(pd.DataFrame({"send_cost": [8.67e-6]})) == "predicted"
    assert seed003.small_message_evidence(pd.DataFrame({"payload": [1400]})) == "predicted"


def test_seed002_real_windows(wan, tmp_path):
    """Real TCP over 400 km: the 16 KiB window gives at most window/RTT, 1 MiB the wire."""
    fig, errors = seed002.draw(wan)
    saved(fig, errors, tmp_path, "seed002")
    small = by_point(errors, "MTU 1500, window 16 KiB")
    rtt = 2 * (2e-3 + 2 * 1e-6) + 3 * (1538 + 90) * 8 / 1e9  # propagation + 3 store-and-forward
    assert small["reference_value"] == pytest.approx(16384 * 8 / rtt / 1e6)
    assert small["sim_meets"] == True and -15 < small["sim_rel_error_pct"] <= 0  # noqa: E712
    for mtu in (1500, 9000):
        big = by_point(errors, f"MTU {mtu}, window 1024 KiB")
        assert big["reference_value"] == pytest.approx(wire.tcp_goodput_bps(1e9, mtu) / 1e6)
        assert abs(big["sim_rel_error_pct"]) < 1.0
    frames = by_point(errors, "MTU 1500 at 1 Gbit/s, largest window")
    assert frames["kind"] == "closed form"  # ~81,000 frames/s is 1 Gbit/s over 1538 B
    assert frames["reference_value"] == 80000
    assert frames["model_value"] == pytest.approx(1e9 / 8 / 1538)  # 81,274 frames/s
    assert frames["sim_value"] == pytest.approx(frames["model_value"], rel=0.01)  # wire-limited


def test_seed002_whole_segments_bound():
    # MTU 9000: MSS 8948; a 16 KiB window holds one whole segment, 17,896 B two
    rtt = 16384 * 8 / 31.04e6
    assert seed002.whole_segments_mbps(16384, 9000, rtt) == pytest.approx(8948 * 8 / rtt / 1e6)
    assert seed002.whole_segments_mbps(17896, 9000, rtt) == pytest.approx(2 * 8948 * 8 / rtt / 1e6)
    assert seed002.whole_segments_mbps(16384, 1500, rtt) == pytest.approx(11 * 1448 * 8 / rtt / 1e6)


@pytest.fixture(scope="module")
def x3440(tmp_path_factory, built):
    """Real runs of seed 004's host (x3440-2010): 1- and 100-byte datagrams at the line rate,
    one and two processes on sockets of their own, and two threads on one socket; and the
    ideal host with both payloads at the line rate (the rows' kinds)."""
    fixed = {"edge_rate": "1Gbps", "host": "x3440-2010", "tx_queue": "64KiB",
             "duration": "0.05s", "warmup": "0.01s", "rate": "max"}  # fmt: skip
    variants = [{"payload": p, "readers": k, "reuseport": "on"} for p in (1, 100) for k in (1, 2)]
    variants += [{"payload": 1, "readers": 2, "reuseport": "off"}]
    # the ideal host takes no readers: its run stands for every process count (seed004.draw)
    variants += [{"payload": p, "host": "ideal"} for p in (1, 100)]
    return real_table(tmp_path_factory.mktemp("x3440"), _pts(fixed, variants), "x3440")


def test_seed004_real_readers(x3440, tmp_path):
    """Real: seed 004's host, one and two processes (Model 1, 2) and two threads (Model 3)."""
    fig, errors = seed004.draw(x3440)
    saved(fig, errors, tmp_path, "seed004")
    for where, value in (("MTU 1500", 1472), ("MTU 576", 548), ("no MTU: 16-bit IP length", 65507)):
        row = by_point(errors, f"largest UDP payload, {where}")
        assert row["reference_value"] == value and row["model_value"] == value
        assert row["kind"] == "closed form"
    one = x3440[(x3440["payload"] == 1) & (x3440["readers"] == 1)]
    pps = by_point(errors, "1 B payload, 1 processes", "datagrams received per second")
    assert pps["reference_value"] == 791676.1
    assert pps["sim_value"] == pytest.approx(one["goodput_bps"].iloc[0] / 8)
    assert pps["model_value"] == pytest.approx(1e9 / 8 / 84)  # 1,488,095: minimum frames
    # the preset was fitted to these (lanloss calibrate): not evidence; the rest is predicted
    for point in (
        "1 B payload, 1 processes",
        "1 B payload, 2 processes",  # calibrated even with an ideal-host run at its point
        "100 B payload, 1 processes",
    ):
        assert by_point(errors, point, "datagrams received per second")["kind"] == "calibrated"
    # the ideal host receives the line rate; the era host is within 5 % of it, the seed too:
    # the row checks the wire's arithmetic, not the host
    pps100 = by_point(errors, "100 B payload, 2 processes", "datagrams received per second")
    assert pps100["ideal_value"] == pytest.approx(1e9 / 8 / 166, rel=0.005)
    assert pps100["kind"] == "wire-bound"
    # two processes on sockets of their own: the first on the interrupt's core, 1.28x one
    two = by_point(errors, "1 B payload, 2 processes", "datagrams received per second")
    assert two["sim_value"] == pytest.approx(1016197, rel=0.03)
    hundred = by_point(errors, "100 B payload, 2 processes", "datagrams received per second")
    assert hundred["sim_value"] == pytest.approx(1e9 / 8 / 166, rel=0.005)  # the wire
    # Model 3: two threads on one socket, a prediction, with what the model lacks said
    m3 = by_point(errors, "1 B payload, 2 thread(s) on one socket", "datagrams received per second")
    assert m3["reference_value"] == 509868
    # the ideal host takes the line rate of minimum frames, far from the seed's 509,868: the
    # seed's host decided the number, so the row is host-bound whatever the era host gives
    assert m3["ideal_value"] == pytest.approx(1e9 / 8 / 84, rel=0.005)
    assert m3["kind"] == "host-bound"
    nic = by_point(errors, "100 B payload, 2 processes", "NIC traffic")
    assert nic["reference_value"] == 855.542 and nic["kind"] == "closed form"
    nic1 = by_point(errors, "1 B payload, 1 processes", "NIC traffic")
    assert nic1["kind"] == "input" and math.isnan(nic1["ideal_value"])
    # the figure rings what is not a prediction: calibrated in (b), the input in (c)
    ax_b, ax_c = fig.axes[1], fig.axes[2]
    assert _ringed(ax_b, "calibrated") >= {(1.0, 791676.1), (2.0, 1016197.0), (1.0, 571433.4)}
    assert _ringed(ax_c, "input") == {(1.0, 514.361)}
    assert nic["model_value"] == pytest.approx(1e9 / 8 / 166 * 142 * 8 / 1e6)  # 855.42
    assert nic["sim_value"] == pytest.approx(nic["model_value"], rel=0.005)
    # the seed measured the wire: its 2-process value is within 0.02 % of the line rate
    assert abs(nic["model_rel_error_pct"]) < 0.02
    assert math.isnan(by_point(errors, "1 B payload, 8 processes", "NIC traffic")["sim_value"])
    # Model 3 with Linux 2.6.32's socket locks (x3440-2010): the thread off the interrupt's
    # core reads the line rate, above two processes whose first shares the softirq's core;
    # the row says what the model lacks
    assert m3["sim_value"] == pytest.approx(1e9 / 8 / 84, rel=0.005)
    assert m3["sim_value"] > two["sim_value"] and "2.6.32" in m3["missing"]


def _ringed(ax, kind: str) -> set[tuple[float, float]]:
    """The points an axis rings in `kind`'s style (common.mark_kind)."""
    style = common.KIND_MARK[kind]
    return {
        (float(x), float(y))
        for line in ax.get_lines()
        if line.get_marker() == style["marker"]
        and line.get_mfc() == "none"
        and line.get_mec() == style["color"]
        for x, y in zip(line.get_xdata(), line.get_ydata(), strict=True)
    }


@pytest.mark.parametrize("fig_module", FIGS, ids=lambda m: m.STUDY)
def test_every_figure_draws_an_empty_table_and_says_so(gig, fig_module, tmp_path):
    fig, errors = fig_module.draw(gig.iloc[0:0])
    title = fig.get_suptitle()
    saved(fig, errors, tmp_path, fig_module.STUDY)
    assert common.notes_of(errors), fig_module.STUDY
    if fig_module.STUDY.startswith("seed"):  # a paper's figure names the paper it reproduces
        assert title.startswith(f"Seed {fig_module.STUDY[4:]}")
        assert title.endswith(f"\n{fig_module.CITATION_SHORT}")
        caption = (tmp_path / f"{fig_module.STUDY}-caption.md").read_text()
        assert caption.startswith(f"Reproduces {fig_module.CITATION}.\n")
