# SPDX-License-Identifier: GPL-2.0-only
"""Campus what-if (config/studies/campus.yaml): 300 members of one multicast group behind six
edge switches, one of them on a 10 Mbit/s port, fed by two 1 Gbit/s servers.

One row of panels per receiving-host preset: (a) loss per member versus the group's offered
rate (both servers together), for three groups: the 100 Mbit/s members on the other edge
switches, those that share the slow member's edge switch (its neighbours, found from the
topology file) and the slow member; medians with a bar over the group; (b) where the
group's datagrams were lost (drops summed over members, by drop point), PAUSE off and on
side by side; (c) goodput per member, with the slow port's closed-form capacity. With PAUSE
off the slow member loses alone, at its own port. With PAUSE on its edge switch pauses the
trunk from the core whenever the slow port backs up: the core's port to that edge switch
then overflows (two servers share it, so neither server's ingress reaches XOFF and the
servers are never paused), and the neighbours lose what the core drops, as much as the slow
member, and get the rest late; the other edge switches lose nothing.
"""

from __future__ import annotations

import os

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.patches import Patch
from matplotlib.ticker import FixedLocator, NullLocator

from lanloss import paths
from lanloss.analysis import wire
from lanloss.analysis.figures import common
from lanloss.record import DROP_POINTS

STUDY = "campus"
SHOWS = (
    "campus what-if: 300 multicast members (one on 10 Mbit/s) behind six edge switches: "
    "loss per member vs offered, where it is lost, and PAUSE's effect of the slow member"
)
REQUIRED = (
    "source",
    "run_file",
    "receiver",
    "rate",
    "pause",
    "host",
    "payload",
    "topology",
    "sent",
    "lost",
    "goodput_bps",
    *(f"drop_{p}" for p in DROP_POINTS),
)
SLOW = "slow"
SLOW_LINK_BPS = 10e6
SENDERS = 2  # the topology's servers: the group gets twice the per-server rate
PAUSE_COLOR = {"off": "#1f77b4", "on": "#d62728"}
GROUPS = {  # group -> (label, marker, linestyle)
    "other": ("100 Mbit/s members on other edge switches", "o", "-"),
    "neighbour": ("100 Mbit/s members on the slow member's edge switch", "^", "-."),
    "slow": ("the 10 Mbit/s member", "s", "--"),
}
# one colour per drop point (tab20's dark half, then its light half: 11 points)
DROP_COLORS = tuple(plt.get_cmap("tab20").colors[0::2] + plt.get_cmap("tab20").colors[1::2])


def edge_of(path: str) -> dict[str, str]:
    """host -> the switch it hangs off, from a topology file ({} when it cannot be read)."""
    if not path or not os.path.exists(paths.data_file(path)):
        return {}
    from lanloss import topology

    try:
        t = topology.load(path)
    except Exception:  # the figure still draws: neighbours are then not told apart
        return {}
    switches = set(t["switches"])
    out = {}
    for a, b, _, _ in t["links"]:
        if a in switches and b not in switches:
            out[b] = a
        elif b in switches and a not in switches:
            out[a] = b
    return out


def members(table: pd.DataFrame) -> pd.DataFrame:
    """One row per run and member: its flows (one per server) summed, and its group."""
    t = table[table["source"].astype(str) == "sim"].copy()
    if t.empty:
        return t
    drops = [f"drop_{p}" for p in DROP_POINTS]
    keys = ["run_file", "receiver"]
    first = {c: "first" for c in ("rate", "pause", "host", "payload", "topology")}
    agg = {**first, **{c: "sum" for c in ("sent", "lost", "goodput_bps", *drops)}}
    m = t.groupby(keys, sort=False).agg(agg).reset_index()
    m["pause"] = m["pause"].astype(str)
    m["host"] = m["host"].astype(str)
    m["offered_mbps"] = SENDERS * m["rate"].astype(float) / 1e6
    sent = m["sent"].astype(float)
    m["loss"] = np.where(sent > 0, m["lost"].astype(float) / sent.where(sent > 0), np.nan)
    m["goodput_mbps"] = m["goodput_bps"].astype(float) / 1e6
    m["slow"] = m["receiver"].astype(str) == SLOW
    m["group"] = "other"
    for topo in m["topology"].astype(str).unique():
        edge = edge_of(topo)
        here = m["topology"].astype(str) == topo
        if SLOW in edge:
            same = m["receiver"].astype(str).map(edge) == edge[SLOW]
            m.loc[here & same, "group"] = "neighbour"
    m.loc[m["slow"], "group"] = "slow"
    return m


def spread(g: pd.DataFrame, value: str) -> pd.DataFrame:
    """Median over members per offered rate, with the range as lo/hi."""
    out = g.groupby("offered_mbps")[value].agg(["median", "min", "max"]).reset_index()
    return out.rename(columns={"median": "mean", "min": "lo", "max": "hi"})


def _curves(ax_a, ax_c, g: pd.DataFrame, pause: str) -> None:
    """(a) loss and (c) goodput per member against the offered rate, a curve per group."""
    kw = {"color": PAUSE_COLOR[pause]}
    for group, (_, marker, ls) in GROUPS.items():
        gg = g[g["group"] == group]
        for ax, value in ((ax_a, "loss"), (ax_c, "goodput_mbps")):
            common.plot_source(
                ax, spread(gg, value), "offered_mbps", "sim", marker=marker, ls=ls, **kw
            )


def _checks(host: str, pause: str, g: pd.DataFrame, slow_cap: float) -> list[dict]:
    """At the highest offered rate: the members' goodput against the closed forms."""
    rows = []
    top = g["offered_mbps"].max()
    at_top = g[g["offered_mbps"] == top]
    point = f"{host}, PAUSE {pause}, {top:g} Mbit/s offered"
    if pause == "off" and not g[g["slow"]].empty:
        rows.append(
            common.error_row(
                point,
                "slow member's goodput",
                "Mbit/s",
                slow_cap,
                sim=at_top[at_top["slow"]]["goodput_mbps"].mean(),
                relation="approx",
                reference="closed-form payload capacity of its 10 Mbit/s port (analysis/wire.py)",
                evidence="closed form",
            )
        )
    others = at_top[at_top["group"] == "other"]
    if not others.empty:
        rows.append(
            common.error_row(
                point,
                "members on other edge switches: goodput, lowest",
                "Mbit/s",
                top,
                sim=others["goodput_mbps"].min(),
                relation="approx",
                reference="the offered rate: the slow member's edge switch is the "
                "only branch it slows",
                evidence="closed form",
            )
        )
    near = at_top[at_top["group"] == "neighbour"]
    if pause == "on" and not near.empty:
        rows.append(
            common.error_row(
                point,
                "the slow member's neighbours: goodput, highest",
                "Mbit/s",
                slow_cap * 1.01,
                sim=near["goodput_mbps"].max(),
                relation="max",
                reference="the slow port's closed-form capacity (+1 %): the paused "
                "trunk carries no more than the slow port drains",
                evidence="closed form",
            )
        )
    return rows


def _where_lost(ax_b, h: pd.DataFrame) -> set[str]:
    """(b) drops summed over members, per offered rate and PAUSE setting (bars side by
    side, PAUSE on hatched); the drop points that lost anything."""
    used: set[str] = set()
    by = h.groupby(["pause", "offered_mbps"])[[f"drop_{p}" for p in DROP_POINTS]].sum()
    sent = h.groupby(["pause", "offered_mbps"])["sent"].sum()
    offered = sorted(h["offered_mbps"].unique())
    width = 0.38
    for k, pause in enumerate(("off", "on")):
        bottom = np.zeros(len(offered))
        for j, point in enumerate(DROP_POINTS):
            col = f"drop_{point}"
            vals = np.array(
                [by[col].get((pause, x), 0) / max(sent.get((pause, x), 0), 1) for x in offered]
            )
            if not vals.any():
                continue
            used.add(point)
            ax_b.bar(
                np.arange(len(offered)) + (k - 0.5) * width,
                vals,
                width,
                bottom=bottom,
                color=DROP_COLORS[j % len(DROP_COLORS)],
                edgecolor="white",
                hatch="" if pause == "off" else "//",
                label=point,
            )
            bottom += vals
    ax_b.set_xticks(np.arange(len(offered)), [f"{x:g}" for x in offered])
    return used


def _label(ax_a, ax_b, ax_c, host: str, slow_cap: float) -> None:
    """A host's row: the slow port's capacity marked, scales, labels and titles."""
    ax_a.axvline(slow_cap, color=common.COLOR["closed_form"], ls=":", lw=1.5)
    ax_c.axhline(slow_cap, color=common.COLOR["closed_form"], ls=":", lw=1.5)
    ax_a.set_xscale("log")
    ax_a.set_yscale("symlog", linthresh=1e-4)
    ax_a.set_ylim(0, 1.2)
    ax_a.set_xlabel("group's offered payload rate (Mbit/s, both servers)")
    ax_a.set_ylabel("loss per member")
    ax_a.set_title(f"(a) {host}: loss per member", fontsize=11)
    ax_b.set_xlabel("group's offered payload rate (Mbit/s); left PAUSE off, right (hatched) on")
    ax_b.set_ylabel("lost / sent, summed over members")
    ax_b.set_title(f"(b) {host}: where it is lost", fontsize=11)
    ax_c.set_xscale("log")
    ax_c.set_yscale("log")
    ax_c.set_xlabel("group's offered payload rate (Mbit/s, both servers)")
    ax_c.set_ylabel("goodput per member (Mbit/s)")
    ax_c.set_title(f"(c) {host}: goodput per member", fontsize=11)


def _offered_ticks(axes, m: pd.DataFrame) -> None:
    """Panels (a) and (c): a tick at each offered rate."""
    offered = sorted(m["offered_mbps"].unique()) if not m.empty else []
    if not offered:
        return
    for row in axes:
        for ax in (row[0], row[2]):
            ax.xaxis.set_major_locator(FixedLocator(offered))
            ax.xaxis.set_minor_locator(NullLocator())
            ax.set_xticklabels([f"{x:g}" for x in offered])


def _handles(slow_cap: float, used_drops: set[str]) -> list:
    handles = [
        common.handle("sim", "PAUSE off", color=PAUSE_COLOR["off"]),
        common.handle("sim", "PAUSE on", color=PAUSE_COLOR["on"]),
        *(
            common.handle(
                "sim", f"{label} (median, bar over them)", color="0.3", marker=mk, linestyle=ls
            )
            for label, mk, ls in GROUPS.values()
        ),
        common.handle("closed_form", f"slow port's capacity ({slow_cap:.2f} Mbit/s)"),
    ]
    for j, point in enumerate(DROP_POINTS):
        if point in used_drops:
            handles.append(Patch(color=DROP_COLORS[j % len(DROP_COLORS)], label=f"lost at {point}"))
    return handles


def draw(table: pd.DataFrame, fit: dict | None = None):
    common.require_columns(table, REQUIRED, STUDY)
    m = members(table)
    notes = common.source_notes(table, ("sim",))
    hosts = sorted(m["host"].unique()) if not m.empty else ["(none)"]
    fig, axes = common.new_figure(len(hosts), 3, size=(17, 5.2 * len(hosts)))
    payload = int(m["payload"].iloc[0]) if not m.empty else 64
    slow_cap = wire.saturation_goodput_bps(payload, SLOW_LINK_BPS) / 1e6
    rows = []
    used_drops: set[str] = set()
    for i, host in enumerate(hosts):
        ax_a, ax_b, ax_c = axes[i]
        h = m[m["host"] == host] if not m.empty else m
        for pause in ("off", "on"):
            g = h[h["pause"] == pause] if not h.empty else h
            if g.empty:
                continue
            _curves(ax_a, ax_c, g, pause)
            rows += _checks(host, pause, g, slow_cap)
        if not h.empty:
            used_drops |= _where_lost(ax_b, h)
        _label(ax_a, ax_b, ax_c, host, slow_cap)
    _offered_ticks(axes, m)
    if m.empty:
        notes.append("no simulated runs: only the axes are drawn")
    handles = _handles(slow_cap, used_drops)
    common.finish(fig, "Campus: 300 multicast members, one slow", handles, notes, "below")
    return fig, common.with_notes(common.error_table(STUDY, rows), notes)
