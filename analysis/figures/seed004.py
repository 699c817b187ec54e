# SPDX-License-Identifier: GPL-2.0-only
"""Seed 004: UDP payload limits, and receive capacity versus the number of receiving
processes at 1 Gbit/s (1-byte and 100-byte payloads).

(a) IP fragments per datagram by the wire model at MTU 1500 and 576, the seed's limits (1472,
548, 65507) as black crosses; (b) datagrams per second the receivers take and (c) the NIC's
traffic, by process count, the simulator (``readers``; ``reuseport on``: a socket per
process, as the seed's one process per port; the x3440-2010 host) against the seed's Model 1
and Model 2 tables, and Model 3 (two threads on one descriptor: ``reuseport off``) in (b).

Evidence: the x3440-2010 preset's costs were fitted to three of the nine receive rates
(lanloss/analysis/calibrate.py, ``CALIBRATIONS``): those rows are ``calibrated`` (ringed in
(b); Model 3's one thread repeats Model 1's one process), the other rates ``predicted``, split
into host- and wire-bound by the ideal host's runs (analysis/figures/evidence.py). The NIC
traffic is the wire's: with one 1-byte process the run offers what the seed's sender reached
(``input``, a diamond in (c)), otherwise the line rate (``closed form``). The seed's NIC
traffic counts frame bytes without preamble, FCS and IFG
(analysis/reference/seed004_model2.csv); the simulator's is the frames that reach the
receiver (sent less the drops before it) counted the same way, as a rate: the steady receive
rate times the datagrams arriving per datagram received.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.ticker import FuncFormatter

from lanloss.analysis import wire
from lanloss.analysis.figures import common, evidence

STUDY = "seed004"
CITATION = (
    '"UDP (packet length, packet collection capability, packet loss and process structure '
    'selection)": an article, in English translation, on UDP payload sizes and on how many '
    "datagrams per second a Xeon X3440 receives by process structure (seed file "
    "004_5d7119de010d2da5.txt; no author, venue or year given)"
)
CITATION_SHORT = (
    '"UDP (packet length, packet collection capability, packet loss and process structure '
    'selection)"'
)
SHOWS = (
    "seed 004, UDP receive capacity: payload limits (1472 / 548) from the wire model, and "
    "datagrams/s vs receiving processes at 1 Gbit/s (1- and 100-byte payloads) against its "
    "Model 1/2 tables"
)
MODELS = {1: "seed004_model1.csv", 100: "seed004_model2.csv"}
LIMITS = "seed004_payload_limits.csv"
REQUIRED = (
    "source",
    "run_file",
    "host",
    "readers",
    "payload",
    "mtu",
    "edge_rate",
    "duration",
    "sent",
    "lost",
    "goodput_bps",
    "drop_sender_socket",
    "drop_sender_queue",
    "drop_switch_ingress",
    "drop_switch_egress",
)
LINK_BPS = 1e9
PAYLOAD_COLORS = {1: "#1f77b4", 100: "#2ca02c"}
BEFORE_NIC = ("sender_socket", "sender_queue", "switch_ingress", "switch_egress")
ETH_HEADER = 14  # the seed's NIC traffic: frames without preamble, FCS and IFG
MIN_FRAME_NO_FCS = 60


MODEL3 = "seed004_model3.csv"
# What the model lacks where a predicted row may not hold (shown with the row when it is off).
MISSING = {
    (1, 8, "pps"): "where the scheduler put 8 processes on 8 logical CPUs: the model pins "
    "reader i to CPU i, so reader 4 runs on the sibling of the softirq's CPU 0 and slows it "
    "to 0.65 of a core (hyper-threading, Smt of x3440-2010)",
    (1, 2, "pps_shared"): "what made the second thread cost in 2010: with Linux 2.6.32's locks "
    "(the queue spinlock, lock_sock around the free, every sleeping thread woken) the thread "
    "off the interrupt's core reads the whole line rate; this machine's kernel also gains "
    "from a second thread (bench/shared_socket.py)",
}


def _evidence(payload: int, processes: int, column: str) -> str:
    from lanloss.analysis.calibrate import SEED004_ONE_PROCESS_RATE, calibrated_rows

    if column == "nic_mbps":  # the wire's traffic: an input at 1 process, else line rate
        one = payload == 1 and int(processes) == 1 and SEED004_ONE_PROCESS_RATE
        return "input" if one else "closed form"
    return (
        "calibrated" if (payload, int(processes), column) in calibrated_rows("004") else "predicted"
    )


def nic_bytes(payload: int, mtu: int = 1500) -> int:
    """Bytes a NIC counter sees per datagram: each fragment's frame without FCS, padded."""
    return sum(max(MIN_FRAME_NO_FCS, ip + ETH_HEADER) for ip in wire.fragment_sizes(payload, mtu))


def largest_unfragmented(mtu: int) -> int:
    """The largest UDP payload the wire model sends in one frame (bisection on the model)."""
    lo, hi = 0, wire.MAX_UDP_PAYLOAD
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if len(wire.fragment_sizes(mid, mtu)) == 1:
            lo = mid
        else:
            hi = mid - 1
    return lo


def line_rate_pps(payload: int, mtu: int = 1500) -> float:
    return wire.wire(payload, mtu).datagrams_per_s(LINK_BPS)


def prepared(table: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    r = common.runs(table)
    if r.empty:
        return r, []
    r, notes = common.drawn_runs(
        r,
        lambda r: common.simulated_at(r, LINK_BPS) & r["payload"].astype(float).isin(list(MODELS)),
        "that are not simulated at 1 Gbit/s with 1- or 100-byte payloads",
    )
    r["payload"] = r["payload"].astype(int)
    r["readers"] = r["readers"].astype(float).fillna(1.0)
    reuseport = r["reuseport"].astype(str) if "reuseport" in r else pd.Series("off", index=r.index)
    # Model 3: several threads on one socket; Models 1 and 2: a socket per process
    r["threads_on_one_socket"] = (reuseport != "on") & (r["readers"] > 1)
    r["pps"] = r["goodput_bps"].astype(float) / (8 * r["payload"])
    # Counts cover the whole run (a saturating sender's queue drains after `duration`), the
    # goodput only the steady part: scale the receive rate by arrivals per datagram received.
    at_nic = r["sent"].astype(float) - sum(r[f"drop_{p}"].astype(float) for p in BEFORE_NIC)
    received = r["sent"].astype(float) - r["lost"].astype(float)
    per_received = at_nic / received.where(received > 0)
    nic_pps = (r["pps"] * per_received).fillna(at_nic / r["duration"].astype(float))
    per = [nic_bytes(p, int(m)) for p, m in zip(r["payload"], r["mtu"], strict=True)]
    r["nic_mbps"] = nic_pps * np.array(per) * 8 / 1e6
    return r, notes


def draw(table: pd.DataFrame, fit: dict | None = None):
    """The figure of the era host's runs; the ideal host's runs set the rows' kinds."""
    common.require_columns(table, REQUIRED, STUDY)
    # the ideal host has no readers to count: a study gives it none (nor reuseport)
    columns = ["readers", "reuseport"] if "reuseport" in table else ["readers"]
    ideal = common.ideal_for_every(table, columns, ["payload", "rate"])
    return evidence.scored(_figure, ideal, fit)


def _figure(table: pd.DataFrame, fit: dict | None = None):
    r, notes = prepared(table)
    notes = common.source_notes(table, ("sim",)) + notes
    fig, axes = common.new_figure(1, 3, size=(16, 5.6))
    ax_a, ax_b, ax_c = axes[0]
    rows = _limits_panel(ax_a)
    handles = [
        common.handle(
            "reference", "seed 004 (limits; Model 1 / 2 tables; squares: Model 3)", linestyle="-"
        ),
        common.handle("closed_form", "wire model / 1 Gbit/s line rate"),
    ]
    for payload, ref_file in MODELS.items():
        ref, _ = common.load_reference(ref_file)
        c = PAYLOAD_COLORS[payload]
        ls = "-" if payload == 1 else "--"
        g = r[(r["payload"] == payload) & ~r["threads_on_one_socket"]] if not r.empty else r
        pps_line = line_rate_pps(payload)
        nic_line = pps_line * nic_bytes(payload) * 8 / 1e6
        for ax, col, unit, line, quantity in (
            (ax_b, "pps", "datagrams/s", pps_line, "packets_per_s"),
            (ax_c, "nic_mbps", "Mbit/s", nic_line, "nic_mbps"),
        ):
            ax.plot(
                ref["processes"],
                ref[quantity],
                color=common.COLOR["reference"],
                marker=common.MARKER["reference"],
                ls=ls,
                lw=1,
                zorder=4,
            )
            ax.axhline(line, color=c, ls=":", lw=1.8)
            pts = common.points(g, ["readers"], col)
            common.plot_source(ax, pts, "readers", "sim", color=c)
            got = pts.set_index("readers")["mean"] if not pts.empty else pd.Series(dtype=float)
            for ref_row in ref.itertuples():
                kind = _evidence(payload, ref_row.processes, col)
                if kind in common.KIND_MARK:
                    common.mark_kind(ax, [ref_row.processes], [getattr(ref_row, quantity)], kind)
                rows.append(
                    common.error_row(
                        f"{payload} B payload, {ref_row.processes} processes",
                        "datagrams received per second" if col == "pps" else "NIC traffic",
                        unit,
                        getattr(ref_row, quantity),
                        sim=float(got.get(float(ref_row.processes), math.nan)),
                        model=line,
                        relation="approx",
                        reference=f"seed 004 ({ref_file}); model: the 1 Gbit/s line rate",
                        evidence=kind,
                        missing=MISSING.get((payload, int(ref_row.processes), col), ""),
                    )
                )
        host = ", ".join(sorted(set(g["host"].astype(str)))) if not g.empty else "no runs"
        handles.append(
            common.handle(
                "sim", f"sim ({host} host), {payload}-byte payload", color=c, linestyle="-"
            )
        )
    rows += _model3(ax_b, r, handles)
    handles += [common.kind_handle(k) for k in ("calibrated", "input")]
    if r.empty:
        notes.append("no simulated runs at 1 Gbit/s with 1- or 100-byte payloads")
    for ax in (ax_b, ax_c):
        ax.set_xscale("log", base=2)
        ax.set_xticks([1, 2, 4, 8])
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.set_xlabel("receiving processes (readers)")
        ax.set_ylim(bottom=0)
    ax_b.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v / 1e3:,.0f}k"))
    ax_b.set_ylabel("datagrams received per second")
    ax_b.set_title("(b) receive capacity (solid: 1 B, dashed: 100 B)", fontsize=11)
    ax_c.set_ylabel("NIC traffic (Mbit/s, frames without FCS)")
    ax_c.set_title("(c) traffic at the receiving NIC", fontsize=11)
    title = "Seed 004: UDP payload limits and receive capacity by receiving processes"
    common.finish(fig, f"{title}\n{CITATION_SHORT}", handles, notes)
    return fig, common.with_notes(common.error_table(STUDY, rows), notes)


def _model3(ax, r: pd.DataFrame, handles: list) -> list[dict]:
    """Model 3: two threads reading one descriptor, against one process (panel b)."""
    ref, _ = common.load_reference(MODEL3)
    ax.plot(ref["threads"], ref["packets_per_s"], color=common.COLOR["reference"], marker="s",
            ls=":", lw=1, zorder=4)  # fmt: skip
    one = (
        r[(r["payload"] == 1) & ~r["threads_on_one_socket"] & (r["readers"] == 1)]
        if not r.empty
        else r
    )
    shared = r[(r["payload"] == 1) & r["threads_on_one_socket"]] if not r.empty else r
    got = {}
    for threads, g in ((1, one), *((int(k), v) for k, v in shared.groupby("readers"))):
        pts = common.points(g, ["readers"], "pps")
        if not pts.empty:
            got[threads] = float(pts["mean"].iloc[0])
    if 2 in got:
        ax.plot([2], [got[2]], color="#d62728", marker="s", ms=8, ls="none", zorder=5)
        handles.append(
            common.handle(
                "sim",
                "sim, 1 B, 2 threads on one socket (Model 3)",
                color="#d62728",
                marker="s",
                linestyle="none",
            )  # fmt: skip
        )
    rows = []
    for row in ref.itertuples():
        rows.append(
            common.error_row(
                f"1 B payload, {row.threads} thread(s) on one socket",
                "datagrams received per second",
                "datagrams/s",
                row.packets_per_s,
                sim=got.get(int(row.threads), math.nan),
                model=line_rate_pps(1),
                relation="approx",
                reference=f"seed 004 ({MODEL3}); model: the 1 Gbit/s line rate",
                # one thread is Model 1's one process; two share a socket (not a target)
                evidence=_evidence(1, row.threads, "pps" if row.threads == 1 else "pps_shared"),
                missing=MISSING.get((1, int(row.threads), "pps_shared"), ""),
            )
        )
    return rows


def _limits_panel(ax) -> list[dict]:
    """IP fragments per datagram at MTU 1500 and 576, the seed's limits marked."""
    limits, _ = common.load_reference(LIMITS)
    payloads = np.unique(np.geomspace(1, wire.MAX_UDP_PAYLOAD, 400).astype(int))
    payloads = np.unique(np.r_[payloads, 547, 548, 549, 1471, 1472, 1473])
    for mtu, ls in ((1500, ":"), (576, "--")):
        frags = [len(wire.fragment_sizes(int(p), mtu)) for p in payloads]
        ax.step(
            payloads,
            frags,
            where="post",
            color=common.COLOR["closed_form"],
            ls=ls,
            lw=1.8,
            label=f"wire model, MTU {mtu}",
        )
    ax.legend(loc="upper left", fontsize=9, frameon=False)
    # label offsets (points) so that 548 and 1472, a factor 2.7 apart, do not collide
    offsets = {548: (-8, 14, "right"), 1472: (8, 14, "left")}
    rows = []
    for lim in limits.itertuples():
        mtu = None if pd.isna(lim.mtu) else int(lim.mtu)
        if mtu is None:
            model = 2**16 - 1 - wire.IP_HEADER - wire.UDP_HEADER  # the IPv4 total length field
            y = len(wire.fragment_sizes(wire.MAX_UDP_PAYLOAD, 1500))
            where = "no MTU: 16-bit IP length"
        else:
            model = largest_unfragmented(mtu)
            y = 1
            where = f"MTU {mtu}"
        ax.plot([lim.payload_bytes], [y], color="black", marker="X", ms=10, ls="none", zorder=5)
        dx, dy, ha = offsets.get(int(lim.payload_bytes), (-10, -22, "right"))
        ax.annotate(
            f"{lim.payload_bytes} ({where})",
            (lim.payload_bytes, y),
            xytext=(dx, dy),
            textcoords="offset points",
            fontsize=9,
            ha=ha,
        )
        rows.append(
            common.error_row(
                f"largest UDP payload, {where}",
                "UDP payload",
                "bytes",
                lim.payload_bytes,
                model=model,
                relation="equal",
                reference=f"seed 004 ({LIMITS}); model: lanloss.analysis.wire",
                evidence="closed form",
            )
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("UDP payload (bytes)")
    ax.set_ylabel("IP fragments per datagram")
    ax.set_title("(a) payload limits: fragments per datagram", fontsize=11)
    return rows
