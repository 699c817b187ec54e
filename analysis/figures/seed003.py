# SPDX-License-Identifier: GPL-2.0-only
"""Seed 003: TCP and UDP at 1 Gbit/s for 1400-, 40000- and 65000-byte messages: received
versus offered, loss versus offered, and the mean send time per message versus offered.

The summary withholds the thesis' measurements on purpose (they are an independent check),
so the only reference is the closed-form payload capacity of the link
(``lanloss.analysis.wire``: UDP per payload, fragments included; TCP with full-size
segments): grey dotted lines, one per payload and protocol. The thesis timed a mean send
time per packet at one clock, the sender's: panel (c) shows the same, the simulated senders'
mean time per send() call (its CPU plus the time it was blocked: the table's
``send_time_us``), which rises once the offered rate passes what the link takes.
"""

from __future__ import annotations

import math

import pandas as pd

from lanloss.analysis import wire
from lanloss.analysis.figures import common

STUDY = "seed003"
CITATION = (
    "a Swedish master's thesis comparing TCP and UDP for radar signal processing in a 10GbE "
    "HPC cluster, with Java sender and receiver programs (Lund University / Saab, 2015), known "
    "here from its summary (seed file 003_summary.md, which names no author and withholds the "
    "measurements)"
)
CITATION_SHORT = "master's thesis, Lund University / Saab, 2015: TCP vs UDP (from its summary)"
SHOWS = (
    "seed 003, the Java TCP/UDP comparison: received and loss vs offered at 1 Gbit/s for "
    "1400-, 40000- and 65000-byte messages, and the mean send time per message vs offered, "
    "against the wire capacity"
)
REQUIRED = (
    "source",
    "run_file",
    "protocol",
    "payload",
    "mtu",
    "edge_rate",
    "rate",
    "offered_bps",
    "sent",
    "lost",
    "goodput_bps",
    "send_time_us",
)
LINK_BPS = 1e9
SMALL = 1400.0  # the thesis' small message
FAR_BELOW = 0.8  # "far below the capacity": under 80 % of it
PAYLOAD_COLORS = ("#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#17becf")
PROTO_STYLE = {"udp": {"marker": "o", "ls": "-"}, "tcp": {"marker": "s", "ls": "--"}}


def capacity_mbps(protocol: str, payload: int, mtu: int) -> float:
    """The link's payload capacity: the closed form (docs/physics.md §1)."""
    if protocol == "tcp":
        return wire.tcp_goodput_bps(LINK_BPS, mtu) / 1e6
    return wire.saturation_goodput_bps(payload, LINK_BPS, mtu) / 1e6


def prepared(table: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    r = common.runs(table)
    if r.empty:
        return r, []
    r, notes = common.drawn_runs(
        r, lambda r: common.simulated_at(r, LINK_BPS), "not simulated at 1 Gbit/s"
    )
    r["protocol"] = r["protocol"].astype(str)
    r["offered_mbps"] = common.offered_mbps(r)
    r["recv_mbps"] = r["goodput_bps"].astype(float) / 1e6
    r["send_ms"] = r["send_time_us"].astype(float) / 1e3
    return r, notes


def _at_top(g: pd.DataFrame, column: str) -> float:
    """The value at the highest offered rate (its runs pooled by mean)."""
    pts = common.points(g, ["offered_mbps"], column)
    return float(pts.sort_values("offered_mbps")["mean"].iloc[-1]) if not pts.empty else math.nan


def behaviour_rows(r: pd.DataFrame) -> list[dict]:
    """What the thesis states (its numbers are withheld), as predicted bounds: small messages
    far below the capacity, received flat past it, UDP losing more and more, TCP slightly
    better than UDP. The java-2015 host's costs are orders of magnitude, fitted to nothing."""
    if r.empty:
        return []
    cite = "seed 003 summary (findings)"
    rows = []
    for proto in ("udp", "tcp"):
        small = r[(r["protocol"] == proto) & (r["payload"].astype(float) == SMALL)]
        if small.empty:
            continue
        cap = capacity_mbps(proto, int(SMALL), int(small["mtu"].iloc[0]))
        rows.append(
            common.error_row(
                f"{proto} {SMALL:g} B at the highest offered rate",
                "received, as a share of the capacity (small messages stay far below it)",
                "",
                FAR_BELOW,
                sim=_at_top(small, "recv_mbps") / cap,
                relation="below",
                reference=cite,
                evidence="predicted",
            )
        )
    udp = r[(r["protocol"] == "udp") & (r["payload"].astype(float) > SMALL)]
    if not udp.empty:
        loss = common.pooled_loss(udp, ["offered_mbps"]).sort_values("offered_mbps")
        rows.append(
            common.error_row(
                "udp, large messages, highest offered rate",
                "loss (UDP flat with growing loss past the capacity)",
                "",
                0.0,
                sim=float(loss["loss"].iloc[-1]),
                relation="above",
                reference=cite,
                evidence="predicted",
                missing="the thesis' UDP loss at its Java receiver (work in the receive "
                "thread, buffers the OS capped): the model's Java reader keeps up, and a "
                "Java sender blocks on its socket, so nothing is lost",
            )
        )
    big = r[r["payload"].astype(float) > SMALL]
    if set(big["protocol"]) >= {"udp", "tcp"}:
        per = {p: _at_top(big[big["protocol"] == p], "recv_mbps") for p in ("udp", "tcp")}
        rows.append(
            common.error_row(
                "large messages at the highest offered rate",
                "TCP received / UDP received (TCP slightly better than UDP)",
                "",
                1.0,
                sim=per["tcp"] / per["udp"],
                relation="min",
                reference=cite,
                evidence="predicted",
                missing="the UDP receiver's loss above (without it UDP's smaller headers "
                "carry more payload than TCP's)",
            )
        )
    return rows


def draw(table: pd.DataFrame, fit: dict | None = None):
    common.require_columns(table, REQUIRED, STUDY)
    r, notes = prepared(table)
    notes = common.source_notes(table, ("sim",)) + notes
    fig, axes = common.new_figure(1, 3, size=(16, 5.6))
    ax_a, ax_b, ax_c = axes[0]
    payloads = sorted(r["payload"].astype(float).unique()) if not r.empty else []
    color = {p: PAYLOAD_COLORS[i % len(PAYLOAD_COLORS)] for i, p in enumerate(payloads)}
    handles = []
    rows = []
    top = max([*r["offered_mbps"], LINK_BPS / 1e6]) if not r.empty else LINK_BPS / 1e6
    ax_a.plot([0, top], [0, top], color="0.8", lw=1)
    groups = list(r.groupby(["protocol", "payload"])) if not r.empty else []
    for (proto, payload), g in groups:
        style = PROTO_STYLE.get(proto, {"marker": "D", "ls": "-."})
        kw = {"color": color[payload], **style}
        mtu = int(g["mtu"].iloc[0])
        cap = capacity_mbps(proto, int(payload), mtu)
        ax_a.axhline(cap, color=common.COLOR["closed_form"], ls=":", lw=1.5)
        common.plot_source(
            ax_a, common.points(g, ["offered_mbps"], "recv_mbps"), "offered_mbps", "sim", **kw
        )
        loss = common.pooled_loss(g, ["offered_mbps"])
        common.plot_source(ax_b, loss, "offered_mbps", "sim", y="loss", **kw)
        send = common.points(g, ["offered_mbps"], "send_ms")
        common.plot_source(ax_c, send, "offered_mbps", "sim", **kw)
        label = f"{proto.upper()}, {payload:g} B (capacity {cap:.1f} Mbit/s)"
        handles.append(
            common.handle("sim", label, color=kw["color"], marker=kw["marker"], linestyle=kw["ls"])
        )
        ceiling = common.points(g, ["offered_mbps"], "recv_mbps")["mean"].max()
        rows.append(
            common.error_row(
                f"{proto} {payload:g} B at 1 Gbit/s, MTU {mtu}",
                "received payload rate, highest over offered",
                "Mbit/s",
                cap,
                sim=ceiling,
                relation="approx",
                reference="closed-form payload capacity (analysis/wire.py, docs/physics.md §1)",
                evidence="closed form",
            )
        )
    rows += behaviour_rows(r)
    if r.empty:
        notes.append("no simulated runs at 1 Gbit/s: only the axes are drawn")
    if not r.empty and r["send_ms"].isna().any():
        notes.append("runs without the senders' send times (older records): not in panel (c)")
    ax_a.set_xlabel("offered payload rate (Mbit/s)")
    ax_a.set_ylabel("received payload rate (Mbit/s)")
    ax_a.set_title("(a) received vs offered", fontsize=11)
    ax_b.set_yscale("symlog", linthresh=1e-5)
    ax_b.set_ylim(0, 1.5)
    ax_b.set_xlabel("offered payload rate (Mbit/s)")
    ax_b.set_ylabel("loss (lost / sent)")
    ax_b.set_title("(b) loss vs offered", fontsize=11)
    lost = int(r["lost"].sum()) if not r.empty and "lost" in r else 0
    if not r.empty and lost == 0:
        # say it on the panel, not with an empty one: the thesis saw UDP lose here
        ax_b.text(
            0.5,
            0.5,
            "no datagram lost at any point: the Java\nsenders block on their sockets and the\n"
            "model's Java receiver keeps up, where\nthe thesis' UDP lost more and more",
            transform=ax_b.transAxes,
            ha="center",
            va="center",
            fontsize=10,
        )
        notes.append("no run lost a datagram: panel (b) states it")
    ax_c.set_yscale("log")
    ax_c.set_xlabel("offered payload rate (Mbit/s)")
    ax_c.set_ylabel("mean send time per message (ms)")
    ax_c.set_title("(c) send time per message vs offered (the thesis' measure)", fontsize=11)
    for ax in axes[0]:
        ax.set_xlim(left=0)
    handles.append(common.handle("closed_form", "closed-form capacity (the reference)"))
    title = "Seed 003: the Java TCP/UDP comparison at 1 Gbit/s, by message size"
    common.finish(fig, f"{title}\n{CITATION_SHORT}", handles, notes, "below")
    return fig, common.with_notes(common.error_table(STUDY, rows), notes)
