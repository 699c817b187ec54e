# SPDX-License-Identifier: GPL-2.0-only
"""Seed 000, figure 6: send and receive throughput versus payload for the default receiver
(an interrupt per packet) and the ITR-optimised one, and delivered versus offered (livelock).

The seed prints figure 6 without numbers; what its text states is in
analysis/reference/seed000_fig6_facts.csv and is drawn as black dash-dotted limits: losses at
about 20 Mbit/s on a 100 Mbit/s LAN (section 5), ITR 2500 best (6.4.1), loss below 1e-4 once
tuned (6.4.2), less delivered past a critical rate (7). The simulator's receiver is the
monitoring client (``host w7x-client-2008``: the e1000-era PC whose cost per datagram read
was fitted to the seed's one number, losses from about 20 Mbit/s, by ``lanloss calibrate``:
that row is calibrated, ringed in (c)) with ``itr`` 0 or 2500; each variant (host, itr) has
its own colour. The socket-buffer rows of (d) are imposed (the study's reader stall decides
them, ringed); the other rows are predictions, split into host- and wire-bound by the study's
runs of the ``ideal`` host at the same points (analysis/figures/evidence.py).

(a) per payload, the runs at the highest offered rate (the send rate the sender reaches);
(b, c) the payload swept over offered rates: delivered and loss versus offered; (d) the
socket-buffer stage.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from lanloss.analysis import wire
from lanloss.analysis.figures import common, evidence

STUDY = "seed000"
CITATION = (
    'S. Tambach and C. Hennig, "Wie zuverlässig ist der Empfang von Netzwerkpaketen bei der '
    'Verwendung des Transportprotokolls UDP?" (short title "How reliable is UDP?"): an article '
    "on a master's thesis at FH Stralsund with the Max-Planck-Institut für Plasmaphysik, "
    "Greifswald, on the Wendelstein 7-X multicast monitoring system (no year given; after 2006)"
)
CITATION_SHORT = 'S. Tambach, C. Hennig: "How reliable is UDP?" (FH Stralsund / IPP Greifswald)'
SHOWS = (
    "seed 000, the W7-X multicast monitoring client (its figure 6): send and receive "
    "throughput vs payload, default vs ITR-optimised receiver (e1000-era host), and "
    "delivered vs offered (receive livelock)"
)
REFERENCE = "seed000_fig6_facts.csv"
REQUIRED = (
    "source",
    "run_file",
    "protocol",
    "host",
    "itr",
    "payload",
    "rate",
    "edge_rate",
    "offered_bps",
    "sent",
    "lost",
    "goodput_bps",
)
LOSS_LIMIT_NAME = "tuned_loss"
CALIBRATED_LOSS = 1e-3  # the loss lanloss calibrate sets the ITR-0 onset to (CALIBRATIONS)
VARIANT_COLORS = ("#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#17becf", "#e377c2", "#bcbd22")
REF_STYLE = {"color": common.COLOR["reference"], "ls": "-.", "lw": 1.4}


def _itr_text(itr: float) -> str:
    if math.isnan(itr):
        return "preset ITR"
    return "ITR 0 (an interrupt per packet)" if itr == 0 else f"ITR {itr:g}/s"


def prepared(table: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    notes = []
    r = common.runs(table)
    if r.empty:
        return r, notes
    bed = r["source"].astype(str) == "bed"
    if bed.any():
        notes.append(f"{int(bed.sum())} testbed runs not drawn (seed 000's figure is simulated)")
    tcp = r["protocol"].astype(str) == "tcp"
    if tcp.any():
        notes.append(f"{int(tcp.sum())} TCP runs not drawn (seed 000 is UDP multicast)")
    r = r[~bed & ~tcp].copy()
    r["itr"] = r["itr"].astype(float)
    r["host"] = r["host"].astype(str)
    r["variant"] = [f"{h}, {_itr_text(i)}" for h, i in zip(r["host"], r["itr"], strict=True)]
    r["offered_mbps"] = common.offered_mbps(r)
    r["send_mbps"] = r["offered_bps"].astype(float) / 1e6
    r["recv_mbps"] = r["goodput_bps"].astype(float) / 1e6
    return r, notes


def saturation_runs(r: pd.DataFrame) -> pd.DataFrame:
    """Per variant and payload, the runs at the highest offered rate."""
    if r.empty:
        return r
    top = r.groupby(["variant", "payload"])["offered_mbps"].transform("max")
    return r[np.isclose(r["offered_mbps"], top)]


def sweep_payload(r: pd.DataFrame) -> float:
    """The payload swept over the most offered rates (at least 3), else NaN."""
    if r.empty:
        return math.nan
    n = r.groupby("payload")["offered_mbps"].nunique()
    return float(n.idxmax()) if n.max() >= 3 else math.nan


def livelock_ratio(runs: pd.DataFrame) -> float:
    """Delivered at the highest offered rate over the most delivered at any lower one: below
    1 is the seed's livelock, "less arrives than at lower rates" (section 7). NaN with fewer
    than two offered rates."""
    means = runs.groupby("offered_mbps")["recv_mbps"].mean().sort_index()
    if len(means) < 2 or means.iloc[:-1].max() <= 0:
        return math.nan
    return float(means.iloc[-1] / means.iloc[:-1].max())


def onset_mbps(runs: pd.DataFrame, limit: float) -> float:
    """The lowest offered rate whose pooled loss exceeds `limit` (NaN if none does)."""
    if runs.empty:
        return math.nan
    g = runs.groupby("offered_mbps")[["lost", "sent"]].sum()
    lossy = g[(g["lost"] / g["sent"].where(g["sent"] > 0)) > limit]
    return float(lossy.index.min()) if len(lossy) else math.nan


def _throughput_panel(ax, sat: pd.DataFrame, variants: list, color: dict, link_bps: float):
    """(a) throughput versus payload at the send rate the sender reaches."""
    payloads = np.unique(np.r_[np.geomspace(1, 1472, 80).round(), sat["payload"].astype(float)])
    ax.plot(
        payloads,
        [wire.saturation_goodput_bps(int(p), link_bps) / 1e6 for p in payloads],
        color=common.COLOR["closed_form"],
        ls=":",
        lw=2,
    )
    if not sat.empty:
        send = common.points(sat, ["payload"], "send_mbps")
        common.plot_source(ax, send, "payload", "sim", color="0.2", ls="--", mfc="white")
    for v in variants:
        pts = common.points(sat[sat["variant"] == v], ["payload"], "recv_mbps")
        common.plot_source(ax, pts, "payload", "sim", color=color[v])
    # the seed's ~20 Mbit/s is an offered rate: it is drawn on (b) and (c), not here
    ax.set_xscale("log")
    ax.set_xlabel("UDP payload (bytes)")
    ax.set_ylabel("throughput (Mbit/s of payload)")
    ax.set_title("(a) send and receive throughput vs payload", fontsize=11)


def _sweep_panels(
    ax_b, ax_c, sweep: pd.DataFrame, p_sweep: float, variants: list, color: dict, refs: tuple
) -> None:
    """(b) delivered and (c) loss versus offered, at the swept payload."""
    onset_ref, loss_ref, link_bps = refs
    top = sweep["offered_mbps"].max() if not sweep.empty else 2 * onset_ref
    ax_b.plot([0, top], [0, top], color="0.75", lw=1)
    if not math.isnan(p_sweep):
        cap = wire.saturation_goodput_bps(int(p_sweep), link_bps) / 1e6
        ax_b.axhline(cap, color=common.COLOR["closed_form"], ls=":", lw=2)
    for v in variants:
        runs_v = sweep[sweep["variant"] == v]
        common.plot_source(
            ax_b,
            common.points(runs_v, ["offered_mbps"], "recv_mbps"),
            "offered_mbps",
            "sim",
            color=color[v],
        )
        loss = common.pooled_loss(runs_v, ["offered_mbps"])
        common.plot_source(ax_c, loss, "offered_mbps", "sim", y="loss", color=color[v])
    for ax in (ax_b, ax_c):
        ax.axvline(onset_ref, **REF_STYLE)  # seed sec. 5: losses at ~20 Mbit/s offered
        ax.set_xlabel("offered payload rate (Mbit/s)")
        ax.set_xlim(left=0)
    common.note(
        ax_b,
        "seed sec. 7: past a critical rate\nless arrives than at lower rates",
        (onset_ref, 0),
        (6, 8),
    )
    ax_b.set_ylim(bottom=0)
    ax_b.set_ylabel("delivered payload rate (Mbit/s)")
    what = f"{p_sweep:g}-byte payloads" if not math.isnan(p_sweep) else "no rate sweep"
    ax_b.set_title(f"(b) delivered vs offered, {what}", fontsize=11)
    ax_c.axhline(loss_ref, **REF_STYLE)
    common.note(ax_c, f"seed: < {loss_ref:g} once tuned (sec. 6.4.2)", (0, loss_ref), (4, 4))
    ax_c.set_yscale("symlog", linthresh=1e-5)
    ax_c.set_ylim(0, 1.5)
    ax_c.set_ylabel("datagram loss (lost / sent)")
    ax_c.set_title(f"(c) loss vs offered, {what}", fontsize=11)


def _handles(variants: list, color: dict) -> list:
    return [
        common.handle("closed_form", "closed-form 100 Mbit/s wire limit"),
        common.handle(
            "sim", "sim: send throughput (offered)", color="0.2", linestyle="--", mfc="white"
        ),
        *[
            common.handle("sim", f"sim receive: {v}", color=color[v], linestyle="-")
            for v in variants
        ],
        common.handle(
            "reference", "seed 000 statements (sec. 5, 6.4.2)", linestyle="-.", marker=""
        ),
    ]


def draw(table: pd.DataFrame, fit: dict | None = None):
    """The figure of the era host's runs; the ideal host's runs set the rows' kinds."""
    common.require_columns(table, REQUIRED, STUDY)
    # the ideal host has no interrupts to throttle: a study gives it no itr
    return evidence.scored(_figure, common.ideal_for_every(table, ["itr"], ["payload"]), fit)


def _figure(table: pd.DataFrame, fit: dict | None = None):
    facts, _ = common.load_reference(REFERENCE)
    fact = {row.fact: row for row in facts.itertuples()}
    onset_ref = float(fact["loss_onset_rate"].value)
    loss_ref = float(fact[LOSS_LIMIT_NAME].value)
    best_itr = float(fact["best_itr"].value)
    link_bps = float(fact["edge_rate"].value) * 1e6

    r, notes = prepared(table)
    notes = common.source_notes(table, ("sim",)) + notes
    stalled = _stalled(r)
    stage, r = r[stalled], r[~stalled]  # the socket-buffer stage has a panel of its own
    # by host, then by ITR as a number (0, 500, 1000, 2500, ...), not as text
    order = r.drop_duplicates("variant").sort_values(["host", "itr"]) if not r.empty else r
    variants = list(order["variant"]) if not r.empty else []
    color = {v: VARIANT_COLORS[i % len(VARIANT_COLORS)] for i, v in enumerate(variants)}
    fig, axes = common.new_figure(1, 4, size=(21, 5.6))
    ax_a, ax_b, ax_c, ax_d = axes[0]

    sat = saturation_runs(r)
    _throughput_panel(ax_a, sat, variants, color, link_bps)
    if sat.empty:
        notes.append("no simulator runs: panel (a) shows the closed form only")
    p_sweep = sweep_payload(r)
    sweep = r[r["payload"] == p_sweep] if not math.isnan(p_sweep) else r.iloc[0:0]
    _sweep_panels(ax_b, ax_c, sweep, p_sweep, variants, color, (onset_ref, loss_ref, link_bps))
    if math.isnan(p_sweep):
        notes.append("no payload swept over 3 or more offered rates: panels (b) and (c) are empty")

    rows = _errors(r, sat, sweep, p_sweep, onset_ref, loss_ref, best_itr)
    rows += _socket_stage(ax_d, stage, loss_ref, notes)
    if _evidence("loss_onset_rate") == "calibrated":  # the point the read cost was set from
        common.mark_kind(ax_c, [onset_ref], [CALIBRATED_LOSS], "calibrated")
    handles = _handles(variants, color) + [
        common.kind_handle(k) for k in ("calibrated", "imposed") if k in {x["kind"] for x in rows}
    ]
    title = "Seed 000, figure 6: UDP receive loss of the W7-X multicast monitoring client"
    common.finish(fig, f"{title}\n{CITATION_SHORT}", handles, notes, "below")
    return fig, common.with_notes(common.error_table(STUDY, rows), notes)


def _evidence(fact: str) -> str:
    from lanloss.analysis.calibrate import calibrated_rows

    return "calibrated" if (fact,) in calibrated_rows("000") else "predicted"


def _errors(r, sat, sweep, p_sweep, onset_ref, loss_ref, best_itr) -> list[dict]:
    cite = f"seed 000 ({REFERENCE})"
    rows = []
    default = sweep[sweep["itr"] == 0]
    tuned = sweep[sweep["itr"] == best_itr]
    if not default.empty:
        rows.append(
            common.error_row(
                f"ITR 0, {p_sweep:g} B: lowest offered rate losing more than {loss_ref:g}",
                "loss onset rate",
                "Mbit/s",
                onset_ref,
                sim=onset_mbps(default, loss_ref),
                relation="approx",
                reference=f"{cite}, sec. 5",
                # the w7x-client-2008 preset's read cost was fitted to it (lanloss calibrate)
                evidence=_evidence("loss_onset_rate"),
            )
        )
        rows.append(
            common.error_row(
                f"ITR 0, {p_sweep:g} B: delivered at the highest offered rate",
                "fraction of the most delivered at a lower rate",
                "",
                1.0,
                sim=livelock_ratio(default),
                relation="below",
                reference=f"{cite}, sec. 7",
                evidence="predicted",
            )
        )
    if not tuned.empty:
        near = tuned[np.isclose(tuned["offered_mbps"], _nearest(tuned["offered_mbps"], onset_ref))]
        g = near[["lost", "sent"]].sum()
        rows.append(
            common.error_row(
                f"ITR {best_itr:g}, {p_sweep:g} B at {near['offered_mbps'].iloc[0]:g} Mbit/s",
                "datagram loss, one-sided 95 % upper bound",
                "",
                loss_ref,
                sim=loss_upper_bound(int(g["lost"]), int(g["sent"])),
                relation="max",
                reference=f"{cite}, sec. 6.4.2",
                evidence="predicted",
            )
        )
    itrs = sat["itr"].dropna().unique() if not sat.empty else []
    # compare the ITRs on the payloads every one of them ran
    common_payloads = (
        set.intersection(*[set(sat.loc[sat["itr"] == i, "payload"]) for i in itrs])
        if len(itrs)
        else set()
    )
    if len(itrs) >= 2 and common_payloads:
        same = sat[sat["payload"].isin(common_payloads)]
        lost = same.groupby("itr")["lost"].sum()
        rows.append(
            common.error_row(
                "fewest interrupts among the ITRs receiving the most (all payloads they ran)",
                "best ITR",
                "interrupts/s",
                best_itr,
                sim=best_itr_of(lost),
                relation="equal",
                reference=f"{cite}, sec. 6.4.1",
                evidence="predicted",
                missing="what made 2500 better than fewer interrupts on the seed's PC: in the "
                "model an interrupt only costs CPU, so a lower rate loses no more until its "
                "batches overflow the RX ring",
            )
        )
    return rows


def _stalled(r: pd.DataFrame) -> pd.Series:
    """Runs whose reader stalls (stall_period > 0): the study's socket-buffer stage."""
    if r.empty or "stall_period" not in r:
        return pd.Series(False, index=r.index)
    return r["stall_period"].astype(float).fillna(0) > 0


def _socket_stage(ax, stage: pd.DataFrame, loss_ref: float, notes: list[str]) -> list[dict]:
    """(d) Seed 000 sec. 6.4.2: with ITR 2500 losses remained, in bursts, and the kernel
    module found them in the socket's receive buffer; bigger buffers removed them. Here the
    receiving application stalls now and then (its own work: the study sets how long and
    how often, an order of magnitude, not a number of the seed) at one offered rate, with
    the preset's socket buffer and a bigger one."""
    ax.set_title("(d) the socket-buffer stage", fontsize=11)
    ax.set_xlabel("socket receive buffer (SO_RCVBUF)")
    ax.set_ylabel("datagram loss (lost / sent)")
    if stage.empty:
        ax.text(0.5, 0.5, "no runs with reader stalls", transform=ax.transAxes, ha="center")
        notes.append("no runs with reader stalls: panel (d), the socket-buffer stage, is empty")
        return []
    sock = "drop_socket_rcvbuf"
    cols = ["lost", "sent"] + ([sock] if sock in stage else [])
    g = stage.groupby(stage["rcvbuf"].astype(float))[cols].sum().sort_index()
    loss = g["lost"] / g["sent"]
    labels = [f"{b / 1024:g} KiB" for b in g.index]
    ax.bar(labels, loss, color=VARIANT_COLORS[3], width=0.5)
    for i, (b, row) in enumerate(g.iterrows()):
        share = row[sock] / row["lost"] if sock in row and row["lost"] else math.nan
        text = "none lost" if row["lost"] == 0 else f"{loss[b]:.2%}, {share:.0%} socket_rcvbuf"
        ax.annotate(text, (i, loss[b]), xytext=(0, 4), textcoords="offset points", ha="center")
    # every row of this panel is imposed: a buffer of K bytes overflows when the datagrams
    # arriving during a stall, lambda * T_off, exceed it, whatever the host's costs
    common.mark_kind(ax, range(len(g)), loss, "imposed")
    ax.set_ylim(0, max(float(loss.max()) * 1.5, 1e-3))
    first = stage.iloc[0]
    what = (
        f"ITR {float(first['itr']):g}, {float(first['payload']):g} B at "
        f"{float(first['offered_mbps']):g} Mbit/s; the reader stalls "
        f"{float(first['stall_length']) * 1e3:g} ms every {float(first['stall_period']) * 1e3:g} ms"
    )
    ax.text(0.5, 0.93, what, transform=ax.transAxes, ha="center", fontsize=9)
    cite = f"seed 000 ({REFERENCE}), sec. 6.4.2"
    small, big = g.iloc[0], g.iloc[-1]
    rows = [
        common.error_row(
            f"{what}; SO_RCVBUF {g.index[0]:g} B",
            "datagram loss (losses remain after the ITR fix)",
            "",
            loss_ref,
            sim=float(small["lost"] / small["sent"]),
            relation="above",
            reference=cite,
            evidence="imposed",
        ),
        common.error_row(
            f"{what}; SO_RCVBUF {g.index[0]:g} B",
            "share of the loss in the socket receive buffer",
            "",
            0.99,
            sim=float(small[sock] / small["lost"]) if sock in small and small["lost"] else math.nan,
            relation="min",
            reference=cite,
            evidence="imposed",
        ),
    ]
    if len(g) > 1:
        rows.append(
            common.error_row(
                f"{what}; SO_RCVBUF {g.index[-1]:g} B",
                "datagram loss, one-sided 95 % upper bound (a bigger buffer removes it)",
                "",
                loss_ref,
                sim=loss_upper_bound(int(big["lost"]), int(big["sent"])),
                relation="max",
                reference=cite,
                evidence="imposed",
            )
        )
    return rows


def loss_upper_bound(lost: int, sent: int, confidence: float = 0.95) -> float:
    """One-sided Clopper-Pearson upper bound of a loss ratio: with 0 lost of n it is
    1 - 0.05^(1/n), so "< 1e-4" needs about 30,000 datagrams without a loss."""
    if sent <= 0:
        return math.nan
    if lost >= sent:
        return 1.0
    from scipy.stats import beta

    return float(beta.ppf(confidence, lost + 1, sent - lost))


def best_itr_of(lost: pd.Series) -> float:
    """The seed's "best" ITR from datagrams lost per ITR setting (summed over the same
    payloads): of the settings that lose the fewest, the one with the fewest interrupts,
    i.e. the least CPU spent on them (seed 000 sec. 6.4.1: the throttle cut the CPU load
    drastically). ITR 0 (an interrupt per packet) has the most interrupts of all."""
    best = lost[lost == lost.min()]
    throttled = [i for i in best.index if i > 0]
    return float(min(throttled)) if throttled else 0.0


def _nearest(values: pd.Series, target: float) -> float:
    v = values.astype(float).to_numpy()
    return float(v[np.argmin(np.abs(v - target))])
