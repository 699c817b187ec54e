# SPDX-License-Identifier: GPL-2.0-only
"""Seed 003: TCP and UDP at 1 Gbit/s for 1400-, 40000- and 65000-byte messages: received
versus offered, loss versus offered, and the mean send time per message versus offered, each
as the thesis measured it.

The summary withholds the thesis' measurements on purpose (they are an independent check),
so the only reference is the closed-form payload capacity of the link
(``lanloss.analysis.wire``: UDP per payload, fragments included; TCP with full-size
segments): grey dotted lines, one per payload and protocol.

The thesis' measures (its program listings, 003_summary.md "Method details"):

- send time: a round trip at the sender's clock. The receiver's echo thread sends each
  message's 8-byte send stamp back to the sender's port 8888, where a timing thread adds
  its arrival time minus the stamp. The study runs the simulator with option ``echo``
  (models/model/message-echo.h, echo-timer.h): panel (c) is the table's ``echo_rtt_us``;
  records without it fall back to the mean time per send() call (``send_time_us``), said so
  in a note.
- loss: with TCP, the data the sender could not write within its interval, discarded at the
  sender: 1 - written / offered (the simulated sender does not catch up on a late schedule,
  so what it did not write is the discarded share); with UDP, what the receiving thread did
  not take from its socket in time: lost / sent at the receiver.
"""

from __future__ import annotations

import math

import pandas as pd

from lanloss.analysis import wire
from lanloss.analysis.figures import common, evidence

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
    "1400-, 40000- and 65000-byte messages (loss as the thesis counted it: TCP's data not "
    "written in time, UDP's not read in time), and the mean send time per message vs "
    "offered (the thesis' echo round trip at the sender's clock), against the wire capacity"
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
MEASURES = [
    "measures as the thesis took them: (b) TCP loss is the offered data the sender could not "
    "write within its schedule (discarded at the sender), UDP loss what the receiving thread "
    "did not read in time (lost / sent at the receiver); (c) send time is the round trip from "
    "the stamp a message carries to its echo's return at the sender (the receiver's echo "
    "thread, the sender's timing thread: option echo)",
]
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
    r["send_ms"] = send_time_ms(r)
    r["thesis_loss"] = thesis_loss(r)
    return r, notes


def send_time_ms(r: pd.DataFrame) -> pd.Series:
    """The thesis' send time: the echo round trip (option echo), else, for records without
    it, the mean time per send() call."""
    call = r["send_time_us"].astype(float)
    if "echo_rtt_us" not in r:
        return call / 1e3
    return r["echo_rtt_us"].astype(float).where(r["echo_rtt_us"].notna(), call) / 1e3


def thesis_loss(r: pd.DataFrame) -> pd.Series:
    """Loss as the thesis counted it. TCP: the share of the offered data the sender could not
    write in time (discarded at the sender): 1 - written / offered over the run; UDP: the
    datagrams the receiver lost, lost / sent."""
    written = r["sent"].astype(float) * r["payload"].astype(float) * 8.0
    offered = r["offered_bps"].astype(float) * r["duration"].astype(float)
    tcp = (1.0 - written / offered.where(offered > 0)).clip(lower=0.0)
    udp = r["lost"].astype(float) / r["sent"].astype(float).where(r["sent"] > 0)
    return tcp.where(r["protocol"] == "tcp", udp)


def _at_top(g: pd.DataFrame, column: str) -> float:
    """The value at the highest offered rate (its runs pooled by mean)."""
    pts = common.points(g, ["offered_mbps"], column)
    return float(pts.sort_values("offered_mbps")["mean"].iloc[-1]) if not pts.empty else math.nan


# The Java sender's cost per send() that was set in the change that brought the 1400-byte
# rows, and makes them hold: runs with it are calibrated to those rows, not predictions.
CALIBRATED_SEND_COST = 20e-6


def small_message_evidence(small: pd.DataFrame) -> str:
    """calibrated when any of the 1400-byte runs has the send cost set from their rows
    (CALIBRATED_SEND_COST), else predicted (a cost with another source)."""
    if "send_cost" not in small:
        return "predicted"
    cost = small["send_cost"].astype(float)
    same = (cost - CALIBRATED_SEND_COST).abs() < 1e-12  # whole nanoseconds, as resolved
    return "calibrated" if bool(same.any()) else "predicted"


def behaviour_rows(r: pd.DataFrame) -> list[dict]:
    """What the thesis states (its numbers are withheld), as predicted bounds: small messages
    far below the capacity, received flat past it, UDP losing more and more, TCP slightly
    better than UDP. The 1400-byte rows are calibrated where the runs' Java send cost is the
    one set with them (small_message_evidence); the others are predictions, split by the
    ideal host's runs (evidence.py)."""
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
                evidence=small_message_evidence(small),
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
                missing="the thesis' UDP loss at its Java receiver: the model's Java reader "
                "keeps up between its collector's pauses, a Java sender blocks on its "
                "socket, and the socket holds what a pause brings",
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
                missing="UDP's loss in its receiver's collector pauses is a small fraction "
                "of the payload UDP's smaller headers carry over TCP's, and TCP's reader "
                "stops for the same pauses",
            )
        )
    return rows


def draw(table: pd.DataFrame, fit: dict | None = None):
    """The figure of the era host's runs; the ideal host's runs set the rows' kinds."""
    common.require_columns(table, REQUIRED, STUDY)
    return evidence.scored(_figure, table, fit)


def _mark_calibrated(ax, r: pd.DataFrame, rows: list[dict]) -> list:
    """Ring the small messages' received rate at the highest offered rate (calibrated rows)."""
    if r.empty or not any(x["kind"] == "calibrated" for x in rows):
        return []
    for _, g in r[r["payload"].astype(float) == SMALL].groupby("protocol"):
        pts = common.points(g, ["offered_mbps"], "recv_mbps").sort_values("offered_mbps")
        common.mark_kind(ax, [pts["offered_mbps"].iloc[-1]], [pts["mean"].iloc[-1]], "calibrated")
    return [common.kind_handle("calibrated")]


def _figure(table: pd.DataFrame, fit: dict | None = None):
    r, notes = prepared(table)
    notes = common.source_notes(table, ("sim",)) + notes
    fig, axes = common.new_figure(1, 3, size=(16, 5.6))
    ax_a, ax_b, ax_c = axes[0]
    payloads = sorted(r["payload"].astype(float).unique()) if not r.empty else []
    color = {p: PAYLOAD_COLORS[i % len(PAYLOAD_COLORS)] for i, p in enumerate(payloads)}
    handles = []
    rows = []
    top = max([*r["offered_mbps"], LINK_BPS / 1e6]) if not r.empty else LINK_BPS / 1e6
    low = min([*r["offered_mbps"], 1.0]) if not r.empty else 1.0
    ax_a.plot([low, top], [low, top], color="0.8", lw=1)  # received = offered
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
        loss = common.points(g, ["offered_mbps"], "thesis_loss")
        common.plot_source(ax_b, loss, "offered_mbps", "sim", **kw)
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
    handles += _mark_calibrated(ax_a, r, rows)
    if r.empty:
        notes.append("no simulated runs at 1 Gbit/s: only the axes are drawn")
    if not r.empty and r["send_ms"].isna().any():
        notes.append("runs without the senders' send times (older records): not in panel (c)")
    if not r.empty and "echo_rtt_us" in r and r["echo_rtt_us"].isna().any():
        notes.append(
            "runs without the echo round trip (no option echo, or no message stamped inside "
            "the goodput window): panel (c) shows their mean time per send() call instead"
        )
    ax_a.set_xlabel("offered payload rate (Mbit/s)")
    ax_a.set_ylabel("received payload rate (Mbit/s)")
    ax_a.set_yscale("log")
    ax_a.set_title("(a) received vs offered", fontsize=11)
    ax_b.set_yscale("symlog", linthresh=1e-5)
    ax_b.set_ylim(0, 1.5)
    ax_b.set_xlabel("offered payload rate (Mbit/s)")
    ax_b.set_ylabel("loss: TCP unwritten / offered, UDP lost / sent")
    ax_b.set_title("(b) loss vs offered (the thesis' definition)", fontsize=11)
    lost = float(r["thesis_loss"].fillna(0).sum()) if not r.empty else 0.0
    if not r.empty and lost == 0:
        # say it on the panel, not with an empty one: the thesis saw UDP lose here
        ax_b.text(
            0.5,
            0.5,
            "nothing lost at any point: the Java\nsenders block on their sockets and the\n"
            "model's Java receiver keeps up, where\nthe thesis' UDP lost more and more",
            transform=ax_b.transAxes,
            ha="center",
            va="center",
            fontsize=10,
        )
        notes.append("no run lost anything: panel (b) states it")
    notes += MEASURES
    ax_c.set_yscale("log")
    ax_c.set_xlabel("offered payload rate (Mbit/s)")
    ax_c.set_ylabel("mean send time per message: echo round trip (ms)")
    ax_c.set_title("(c) send time vs offered (the thesis' echo round trip)", fontsize=11)
    for ax in axes[0]:
        ax.set_xscale("log")  # the thesis' range: 0.1 MB/s to far beyond the link
    handles.append(common.handle("closed_form", "closed-form capacity (the reference)"))
    title = "Seed 003: the Java TCP/UDP comparison at 1 Gbit/s, by message size"
    common.finish(fig, f"{title}\n{CITATION_SHORT}", handles, notes, "below")
    return fig, common.with_notes(common.error_table(STUDY, rows), notes)
