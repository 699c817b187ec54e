# SPDX-License-Identifier: GPL-2.0-only
"""Seed 002: TCP throughput versus window over a long 1 Gbit/s link (two sites joined by a
WDM channel of a few hundred km), standard and jumbo frames.

The summary withholds the article's measurements, so the references are the two limits a
TCP flow cannot pass: window / RTT (black dash-dotted) and the closed-form payload rate of
the link with full-size segments (grey dotted, per MTU); and the numbers the summary states
(analysis/reference/seed002_facts.csv): the 16 KB default window, and about 80,000 standard
frames per second to fill Gigabit Ethernet, which panel (b) compares with the frame rate the
receiver handles (received payload / MSS). The rows on the hosts' load at the largest
window are calibrated (ringed): the study's host costs were set from the summary's statement.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.ticker import FuncFormatter

from lanloss.analysis import wire
from lanloss.analysis.figures import common, evidence

STUDY = "seed002"
CITATION = (
    "a German article on Gigabit Ethernet between two computing centres over a WDM channel of "
    "several hundred km, for tele-immersive visualisation (DFN, 2002), known here from its "
    "summary (seed file 002_summary.md, which names no authors and withholds the measurements)"
)
CITATION_SHORT = "DFN, 2002: Gigabit Ethernet between two computing centres (from its summary)"
SHOWS = (
    "seed 002, the long-distance 1 Gbit/s TCP link: TCP throughput vs window over two sites, "
    "standard vs jumbo frames, against window/RTT and the wire limit"
)
REFERENCE = "seed002_facts.csv"
REQUIRED = (
    "source",
    "run_file",
    "protocol",
    "topology",
    "tcp_window",
    "mtu",
    "wan_delay",
    "link_delay",
    "edge_rate",
    "backbone_rate",
    "sent",
    "lost",
    "goodput_bps",
)
MTU_COLORS = {1500: "#1f77b4", 9000: "#2ca02c"}
TCP_HEADERS = 20 + 20 + 12  # IP, TCP, timestamps option: MSS = MTU - 52


CPU_BOUND_IDLE = 0.05  # "overloaded": the receiving host idle less than 5 % of the time
NEAR_WIRE = 0.95  # "came close to the payload rate": within 5 % of the wire limit


def _host_rows(r: pd.DataFrame, rate: float) -> list[dict]:
    """The summary's stated behaviour at the largest window, as bounds: standard frames
    overload the receiving host (its CPU saturated, below the wire limit), jumbo frames come
    close to the link's payload rate with CPU to spare. Calibrated: the xeon-2002 host's and
    the sender's costs were set "so that standard frames' ~80,000 frames/s load them"
    (config/studies/seed002.yaml), in the change that brought these rows."""
    rows = []
    if r.empty or "cpu_idle" not in r:
        return rows
    for mtu in (1500, 9000):
        g = r[r["mtu"] == mtu]
        if g.empty:
            continue
        top = g[g["window_kib"] == g["window_kib"].max()]
        cap = wire.tcp_goodput_bps(rate, mtu) / 1e6
        idle = float(top["cpu_idle"].astype(float).mean())
        mbps = float(top["mbps"].mean())
        if mtu == 1500:
            rows.append(
                common.error_row(
                    "MTU 1500, largest window: the receiving host",
                    "CPU idle share (standard frames overload the host)",
                    "",
                    CPU_BOUND_IDLE,
                    sim=idle,
                    relation="below",
                    reference="seed 002 summary: ~80,000 frames/s overloaded the hosts",
                    evidence="calibrated",
                )
            )
            rows.append(
                common.error_row(
                    "MTU 1500, largest window",
                    "TCP throughput (per-packet cost, not the wire, limits it)",
                    "Mbit/s",
                    cap,
                    sim=mbps,
                    relation="below",
                    reference="seed 002 summary; the wire limit",
                    evidence="calibrated",
                )
            )
        else:
            rows.append(
                common.error_row(
                    "MTU 9000, largest window",
                    "TCP throughput (jumbo frames come close to the payload rate)",
                    "Mbit/s",
                    NEAR_WIRE * cap,
                    sim=mbps,
                    relation="min",
                    reference="seed 002 summary; 95 % of the wire limit",
                    evidence="calibrated",
                )
            )
    return rows


def link_bps(rows: pd.DataFrame) -> float:
    """The slowest link of the path (hosts' edge links and the backbone)."""
    return float(np.nanmin([rows["edge_rate"].astype(float).min(), rows["backbone_rate"].min()]))


def whole_segments_mbps(window_bytes: float, mtu: int, rtt: float) -> float:
    """A sender that puts only whole segments in flight (ns-3's TCP: a window's remainder
    smaller than a segment waits for an ACK) carries floor(window / MSS) segments per
    round trip. Linux would also send the remainder (Minshall's Nagle), reaching window/RTT;
    the difference shows where the window holds fewer than a few segments: MTU 9000 with
    16 KiB (one 8960-byte segment per RTT, 17.0 Mbit/s, against window/RTT 31.0)."""
    mss = mtu - TCP_HEADERS
    return (window_bytes // mss) * mss * 8 / rtt / 1e6


def rtt_s(wan_delay: float, link_delay: float, edge_bps: float, backbone_bps: float, mtu: int):
    """Round trip of a full segment and its ACK over host - switch - switch - host:
    propagation both ways plus store-and-forward of each frame on the three links (two
    edge links and the backbone)."""
    per_byte = 8 * (2 / edge_bps + 1 / backbone_bps)
    frames = wire.frame_wire_bytes(mtu) + wire.frame_wire_bytes(TCP_HEADERS)
    return 2 * (wan_delay + 2 * link_delay) + frames * per_byte


def prepared(table: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    notes: list[str] = []
    r = common.runs(table)
    if r.empty:
        return r, notes
    keep = (
        (r["source"].astype(str) == "sim")
        & (r["protocol"].astype(str) == "tcp")
        & r["tcp_window"].notna()
    )
    if (~keep).any():
        notes.append(f"{int((~keep).sum())} runs that are not simulated TCP with a window")
    r = r[keep].copy()
    r["mtu"] = r["mtu"].astype(int)
    r["window_kib"] = r["tcp_window"].astype(float) / 1024
    r["mbps"] = r["goodput_bps"].astype(float) / 1e6
    # full-size data frames: goodput over one segment's payload (MTU - IP/TCP headers); one
    # Ethernet frame carries one TCP segment, so frames and segments per second are the same
    r["frames_per_s"] = r["goodput_bps"].astype(float) / 8 / (r["mtu"] - TCP_HEADERS)
    return r, notes


def _lan(r: pd.DataFrame, notes: list[str]) -> tuple[float, float, float, float, float]:
    """(the link rate, edge and backbone rates, wan and link delays) of the runs, or the
    seed's 1 Gbit/s link when there are none."""
    if r.empty:
        notes.append("no simulated TCP runs with a window: only the seed's numbers are drawn")
        return 1e9, 1e9, 1e9, 2e-3, 1e-6
    if r["wan_delay"].nunique() > 1:
        notes.append("several wan_delay values: window/RTT drawn for the first")
    return (
        link_bps(r),
        float(r["edge_rate"].iloc[0]),
        float(r["backbone_rate"].iloc[0]),
        float(r["wan_delay"].iloc[0]),
        float(r["link_delay"].iloc[0]),
    )


def _mtu_curves(ax_a, ax_b, r: pd.DataFrame, mtu: int, lan: tuple) -> tuple[list, list[dict]]:
    """One MTU's runs: throughput and frames/s against the window, its wire limit, and each
    window's check against min(window/RTT, wire limit). -> (legend handles, error rows)"""
    rate, edge, backbone, wan, link = lan
    c = MTU_COLORS.get(mtu, "#9467bd")
    cap = wire.tcp_goodput_bps(rate, mtu) / 1e6
    ax_a.axhline(cap, color=c, ls=":", lw=1.8)
    g = r[r["mtu"] == mtu] if not r.empty else r
    name = "jumbo" if mtu > 1500 else "standard"
    common.plot_source(ax_a, common.points(g, ["window_kib"], "mbps"), "window_kib", "sim", color=c)
    common.plot_source(
        ax_b, common.points(g, ["window_kib"], "frames_per_s"), "window_kib", "sim", color=c
    )
    handles = [
        common.handle("sim", f"sim, MTU {mtu} ({name} frames)", color=c, linestyle="-"),
        common.handle("closed_form", f"wire limit, MTU {mtu}: {cap:.1f} Mbit/s", color=c),
    ]
    rows = []
    for w, pt in common.points(g, ["window_kib"], "mbps").set_index("window_kib").iterrows():
        rtt = rtt_s(wan, link, edge, backbone, mtu)
        limit = min(w * 1024 * 8 / rtt / 1e6, cap)
        rows.append(
            common.error_row(
                f"MTU {mtu}, window {w:g} KiB",
                "TCP throughput, at most min(window/RTT, wire limit)",
                "Mbit/s",
                limit,
                sim=pt["mean"],
                model=min(whole_segments_mbps(w * 1024, mtu, rtt), cap),
                relation="max",
                reference="window/RTT and the closed-form wire limit",
                evidence="closed form",
            )
        )
    return handles, rows


def _seed_marks(ax_a, ax_b, fact: dict[str, float]) -> None:
    """The seed's stated numbers: its default window and its frames per second."""
    default_kib = fact["default_window"] / 1024
    for ax in (ax_a, ax_b):
        ax.axvline(default_kib, color="black", ls="--", lw=1)
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.set_xlabel("TCP window (KiB)")
    common.note(ax_a, "seed: default 16 KB window", (default_kib, 0), (4, 6))
    frames_ref = fact["frames_per_s_1g"]
    ax_b.axhline(frames_ref, color="black", ls="-.", lw=1.4)
    common.note(
        ax_b,
        f"seed: ~{frames_ref:,.0f} standard frames/s fill 1 Gbit/s",
        (default_kib, frames_ref),
        (4, 4),
    )


def _frames_row(r: pd.DataFrame, rate: float, fact: dict[str, float]) -> dict:
    """Standard frames per second at the largest window against the seed's figure."""
    big = r[r["mtu"] == 1500] if not r.empty else r
    sim_frames = (
        common.points(big, ["window_kib"], "frames_per_s")
        .sort_values("window_kib")["mean"]
        .iloc[-1]
        if not big.empty
        else np.nan
    )
    return common.error_row(
        "MTU 1500 at 1 Gbit/s, largest window",
        "frames per second at the receiver",
        "frames/s",
        fact["frames_per_s_1g"],
        sim=sim_frames,
        model=rate / 8 / wire.frame_wire_bytes(1500),
        relation="approx",
        reference=f"seed 002 summary ({REFERENCE})",
        evidence="closed form",  # the summary's figure is 1 Gbit/s over a frame's bits
    )


def draw(table: pd.DataFrame, fit: dict | None = None):
    """The figure of the era host's runs; the ideal host's runs (if any) set the rows' kinds."""
    common.require_columns(table, REQUIRED, STUDY)
    return evidence.scored(_figure, table, fit)


def _mark_calibrated(ax_a, r: pd.DataFrame, rows: list[dict]) -> list:
    """Ring the largest window's throughput per MTU: the rows there are calibrated."""
    if r.empty or not any(x["kind"] == "calibrated" for x in rows):
        return []
    for _, g in r.groupby("mtu"):
        top = g[g["window_kib"] == g["window_kib"].max()]
        common.mark_kind(ax_a, [top["window_kib"].iloc[0]], [top["mbps"].mean()], "calibrated")
    return [common.kind_handle("calibrated")]


def _figure(table: pd.DataFrame, fit: dict | None = None):
    facts, _ = common.load_reference(REFERENCE)
    fact = {row.fact: float(row.value) for row in facts.itertuples()}
    r, notes = prepared(table)
    notes = common.source_notes(table, ("sim",)) + notes
    fig, axes = common.new_figure(1, 2, size=(14, 5.8))
    ax_a, ax_b = axes[0]
    rows = []
    lan = _lan(r, notes)
    rate, edge, backbone, wan, link = lan
    windows = np.geomspace(8, 8192, 200)
    rtt = rtt_s(wan, link, edge, backbone, 1500)
    ax_a.plot(windows, windows * 1024 * 8 / rtt / 1e6, color="black", ls="-.", lw=1.4)
    handles = [
        common.handle(
            "reference",
            f"window / RTT (RTT {rtt * 1e3:.3f} ms at MTU 1500)",
            linestyle="-.",
            marker="",
        )
    ]
    for mtu in sorted(set(r["mtu"]) | {1500, 9000}) if not r.empty else [1500, 9000]:
        more_handles, more_rows = _mtu_curves(ax_a, ax_b, r, mtu, lan)
        handles += more_handles
        rows += more_rows
    _seed_marks(ax_a, ax_b, fact)
    rows.append(_frames_row(r, rate, fact))
    rows += _host_rows(r, rate)
    handles += _mark_calibrated(ax_a, r, rows)
    ax_a.set_ylim(bottom=0, top=rate / 1e6 * 1.08)
    ax_a.set_ylabel("TCP throughput (Mbit/s of payload)")
    ax_a.set_title("(a) throughput vs window", fontsize=11)
    ax_b.set_ylim(bottom=0)
    ax_b.set_ylabel("data frames (one TCP segment each) per second received")
    ax_b.set_title("(b) per-packet load: data frames per second", fontsize=11)
    km = wan * 1e3 * fact["fibre_speed"]  # seed 002: about 200 km of fibre per ms
    common.finish(
        fig,
        f"Seed 002: TCP over {km:,.0f} km of 1 Gbit/s fibre, standard vs jumbo frames\n"
        f"{CITATION_SHORT}",
        handles,
        notes,
    )
    return fig, common.with_notes(common.error_table(STUDY, rows), notes)
