# SPDX-License-Identifier: GPL-2.0-only
"""The simulator against the testbed (netns, ssh or vm): loss versus offered rate, one
panel per configuration (the options that vary in the table, rate and seed aside; with both
sources, a testbed configuration's panel holds the simulator's configuration that models it,
``simulated_as``), with the fitted model (``lanloss fit``) and its band for each source.

Measured points pool the repetitions (lost / sent; bars: the range over runs). The fitted
curves come from ``figures.fitted`` (the estimate, and the 95 % band over the fit's bootstrap
replicates: where the curve may lie given the parameters' uncertainty, not where one run
may land; the replicates are drawn at each source's run-to-run spread, so the band is as
wide as the repetitions' agreement allows); the testbed's curve includes the fitted
discrepancy. The grey dotted line is the closed-form
capacity of the receiver's link, where it lies within CAPACITY_IN_VIEW times the panel's
top rate (a note names it otherwise). The error table compares, at every configuration and rate
that both sources ran, the simulator's loss and goodput with the testbed's (the reference),
and the fitted testbed model with it.
"""

from __future__ import annotations

import math
import textwrap
from typing import Any

import numpy as np
import pandas as pd

from lanloss import options as vocab
from lanloss import units
from lanloss.analysis import wire
from lanloss.analysis.figures import common, fitted

STUDY = "simbed"
SHOWS = (
    "simulator vs testbed: loss vs offered rate per configuration, with the fitted "
    "loss model and its band for each source"
)
REQUIRED = (
    "source",
    "run_file",
    "rate",
    "rate_max",
    "seed",
    "payload",
    "mtu",
    "edge_rate",
    "duration",
    "offered_bps",
    "sent",
    "lost",
    "goodput_bps",
)
NOT_A_PANEL = {"rate", "seed"}
# the link's capacity is drawn when it lies within this many times a panel's top offered rate
CAPACITY_IN_VIEW = 4
CURVE_POINTS = 60
# the fitted curve's band: the bootstrap's, stretched to the reported intervals (figures/fitted.py)
BAND_LABEL = "95 % band (bootstrap, with the host's drift between repetitions)"


def _fmt(name: str, value) -> str:
    """An option's value as a reader writes it (100Mbps, 16KiB, 50us)."""
    opt = vocab.BY_NAME.get(name)
    if opt is None or opt.kind in ("choice", "pattern", "topology", "host"):
        return f"{name} {value}"
    v = float(value)
    if opt.kind in ("rate", "rate_or_max"):
        return f"{name} {units.format_rate(v)}"
    if opt.kind == "size":
        return f"{name} {v / 1024:g}KiB" if v >= 1024 and v % 1024 == 0 else f"{name} {v:g}B"
    if opt.kind == "time":
        return f"{name} {v * 1e6:g}us" if v < 1e-3 else f"{name} {v * 1e3:g}ms"
    return f"{name} {v:g}"


def panel_keys(table: pd.DataFrame) -> list[str]:
    """Options that vary across the table (rate and seed aside): one panel per combination.

    With both sources in the table, only options both implement and both set: what one
    source alone needs to run a point (the simulator's ``host``) or is given alone (a study's
    per-source setting, ``bed: {rcvbuf: 4MiB}``: ``one_source_settings``) does not split the
    pair.
    """
    both = _both_sources(table)
    alone = one_source_settings(table) if both else {}
    keys = []
    for opt in vocab.OPTIONS:
        if opt.name in NOT_A_PANEL or opt.name not in table.columns or opt.name in alone:
            continue
        if both and not (opt.sim and opt.bed):
            continue
        if table[opt.name].astype(str).nunique(dropna=False) > 1:
            keys.append(opt.name)
    return keys


def _both_sources(table: pd.DataFrame) -> bool:
    return "source" in table and table["source"].astype(str).nunique() > 1


def one_source_settings(table: pd.DataFrame) -> dict[str, tuple[str, list[str]]]:
    """Options that only one source's rows set, where both sources are in the table:
    {option: (that source, [its one value as a reader writes it])}. A grid gives an option to
    both sources; one that only one source ever sets is a study's per-source setting, made so
    that the pair measures the same thing (the testbed's 4 MiB socket buffer, so that the
    switch decides as in the simulator's ideal host), and its rows share their panel. A
    simulator host's values from its preset are not settings (``_from_preset``)."""
    if not _both_sources(table):
        return {}
    out = {}
    for opt in vocab.OPTIONS:
        if opt.name in NOT_A_PANEL or opt.name not in table.columns or not (opt.sim and opt.bed):
            continue
        if table[opt.name].isna().all():
            continue
        is_set = table.apply(
            lambda row, k=opt.name: not _unset(row[k]) and not _from_preset(row, k), axis=1
        )
        setters = table.loc[is_set, "source"].astype(str).unique()
        values = list(dict.fromkeys(_fmt(opt.name, v) for v in table.loc[is_set, opt.name]))
        if len(setters) == 1 and len(values) == 1:  # two values would pool two configurations
            out[opt.name] = (str(setters[0]), values)
    return out


def _unset(value) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def _from_preset(row: pd.Series, key: str) -> bool:
    """A simulator host value its preset filled in (the testbed leaves it unset)."""
    from lanloss.host_values import HOST_OPTIONS, PRESETS

    preset = PRESETS.get(str(row.get("host")))
    if key not in HOST_OPTIONS or preset is None or str(row.get("source")) != "sim":
        return False
    try:
        return float(row[key]) == float(preset[key])
    except (TypeError, ValueError):
        return str(row[key]) == str(preset[key])


def _label(row: pd.Series, keys: list[str]) -> str:
    """A configuration's label: the varying options it sets (unset ones, and a simulator
    host's values from its preset, left out: the testbed's point has none of them)."""
    parts = [_fmt(k, row[k]) for k in keys if not _unset(row[k]) and not _from_preset(row, k)]
    return ", ".join(parts) or ("all runs" if not keys else "defaults")


def _key(frame: pd.DataFrame, keys: list[str]) -> pd.Series:
    """Each row's configuration label (``_label``)."""
    if frame.empty:
        return pd.Series([], dtype=object, index=frame.index)
    return frame.apply(_label, axis=1, keys=keys)


def simulated_as(table: pd.DataFrame, keys: list[str]) -> dict[str, set[str]]:
    """{testbed configuration: the simulator's configurations that model it}.

    The simulator runs a testbed point with its host's values and its emulated NIC's rules
    applied (``lanloss.host_values``): on ``qemu-e1000`` an rx-usecs of 0 or 125 is
    QEMU's interrupt floor, so the guest's itr 0 and itr 8000 are one simulator
    configuration, drawn in both testbed panels. Each testbed configuration's settings are
    resolved so for every simulator host in the table and labelled as a simulator row."""
    from lanloss.host_values import emulation_rules

    bed = table[table["source"].astype(str) == "bed"]
    sim = table[table["source"].astype(str) == "sim"]
    hosts = list(dict.fromkeys(sim["host"].dropna().astype(str))) if "host" in sim else []
    out: dict[str, set[str]] = {}
    for _, row in bed.drop_duplicates(subset=keys or None).iterrows():
        config = _label(row, keys)
        for host in hosts:
            params = {k: row[k] for k in keys if not _unset(row[k])}
            params |= {"host": host, "mtu": row.get("mtu"), "payload": row.get("payload")}
            emulation_rules(params, explicit=set(params) - {"rx_fifo"})
            as_sim = row.copy()
            for k, v in params.items():
                if k in as_sim.index:
                    as_sim[k] = v
            as_sim["source"] = "sim"
            out.setdefault(config, set()).add(_label(as_sim, keys))
    return out


def _panels(r: pd.DataFrame, modelled: dict[str, set[str]]) -> dict[str, pd.DataFrame]:
    """{panel title: its runs}. With both sources, a testbed configuration's panel holds its
    runs and those of the simulator's configurations that model it (``simulated_as``); a
    simulator configuration that models none gets its own panel. Otherwise one panel per
    configuration."""
    if r.empty:
        return {}
    out: dict[str, pd.DataFrame] = {}
    drawn: set[str] = set()
    sim = r["source"].astype(str) == "sim"
    for config in dict.fromkeys(r["config"]):
        if config in modelled:
            as_sim = modelled[config]
            out[config] = r[(~sim & (r["config"] == config)) | (sim & r["config"].isin(as_sim))]
            drawn |= as_sim
    for config in dict.fromkeys(r.loc[sim, "config"]):
        if config not in drawn:  # titled apart if a testbed configuration has its label
            title = config if config not in out else f"{config} (simulator)"
            out[title] = r[sim & (r["config"] == config)]
    for config in dict.fromkeys(r.loc[~sim, "config"]):  # testbed-only tables
        if config not in out:
            out[config] = r[r["config"] == config]
    return out


def _curve_rows(template: pd.Series, rates: np.ndarray) -> pd.DataFrame:
    rows = pd.DataFrame([template] * len(rates)).reset_index(drop=True)
    rows["rate"] = rates
    rows["rate_max"] = False
    rows["run_file"] = [f"curve-{i}" for i in range(len(rates))]
    return rows


def draw(table: pd.DataFrame, fit: dict | None = None, validation: pd.DataFrame | None = None):
    """validation: a ``lanloss validate`` table; its calibrated-simulator points are drawn
    in their panels and its verdicts counted in the notes."""
    common.require_columns(table, REQUIRED, STUDY)
    notes = common.source_notes(table, common.SOURCES)
    if fit is None:
        notes.append("no fit given (--fit): the fitted model is not drawn")
    else:
        fitted.check(fit)
    keys = panel_keys(table)
    for _, (src, values) in one_source_settings(table).items():
        notes.append(f"{common.SOURCE_LABEL[src]} only, in the panels of both: {', '.join(values)}")
    flows = table.assign(config=_key(table, keys))
    r = common.runs(flows)
    if not r.empty:
        r["offered_mbps"] = common.offered_mbps(r)
        r["mbps"] = r["goodput_bps"].astype(float) / 1e6
    panels = _panels(r, simulated_as(table, keys) if _both_sources(table) else {})
    configs = list(panels)
    n = max(len(configs), 1)
    ncols = min(n, 3)
    nrows = math.ceil(n / ncols)
    width = max(5.2 * ncols + 1, 12)  # room for the legend below a single panel
    fig, axes = common.new_figure(nrows, ncols, size=(width, 4.2 * nrows + 1.6))
    rows: list[dict] = []
    beyond: list[float] = []  # capacities not drawn (CAPACITY_IN_VIEW)
    drawn_capacity = False
    skipped_curves = 0
    for i, config in enumerate(configs):
        ax = axes[i // ncols][i % ncols]
        here = panels[config]
        top = float(here["offered_mbps"].max())
        for src, f in common.by_source(here).items():
            loss = common.pooled_loss(f, ["offered_mbps"])
            common.plot_source(ax, loss, "offered_mbps", src, y="loss", connect=False)
            if fit is None or f.empty:
                continue
            template = flows[flows["run_file"] == f["run_file"].iloc[0]].iloc[0]
            rates = np.linspace(0.3 * f["offered_mbps"].min(), 1.15 * top, CURVE_POINTS) * 1e6
            try:
                c = fitted.curves(fit, _curve_rows(template, rates))
            except Exception as exc:  # the model cannot describe this configuration
                skipped_curves += 1
                notes.append(f"no fitted curve for {src} at {config}: {exc}")
                continue
            x = rates / 1e6
            ax.plot(x, c["est"], color=common.COLOR[src], lw=1.8, zorder=2)
            ax.fill_between(x, c["lo"], c["hi"], color=common.COLOR[src], alpha=0.18, lw=0)
        if validation is not None:
            v = validation[validation["panel"] == config]
            ax.plot(v["rate_mbps"], v["sim_loss"], "x", color="black", ms=7, mew=1.6, zorder=4)
        payload = int(here["payload"].iloc[0])
        cap = wire.saturation_goodput_bps(
            payload, float(here["edge_rate"].min()), int(here["mtu"].iloc[0])
        )
        if cap / 1e6 <= CAPACITY_IN_VIEW * top:
            ax.axvline(cap / 1e6, color=common.COLOR["closed_form"], ls=":", lw=2)
            drawn_capacity = True
        else:  # a host-bound panel: the link's capacity would squeeze its points to the left
            beyond.append(cap / 1e6)
        ax.set_yscale("symlog", linthresh=1e-4)
        ax.set_ylim(0, 1.5)
        ax.set_xlim(left=0)
        ax.set_title(textwrap.fill(config, 56), fontsize=9.5)
        ax.set_xlabel("offered payload rate (Mbit/s)")
        ax.set_ylabel("datagram loss (lost / sent)")
        rows += _errors(here, config, fit, flows)
    for j in range(len(configs), nrows * ncols):  # unused slots (an empty table keeps one)
        axes[j // ncols][j % ncols].set_visible(not configs and j == 0)
    if not configs:
        notes.append("the table has no runs")
    if beyond:
        notes.append(
            f"the receiver's link's closed-form capacity is beyond the axes in {len(beyond)} "
            f"panel(s) ({min(beyond):.4g}-{max(beyond):.4g} Mbit/s): not drawn"
        )
    handles = [
        common.handle("sim"),
        common.handle("bed", common.source_label("bed", table), mfc="white"),
    ]
    if drawn_capacity:
        handles.append(common.handle("closed_form", "closed-form capacity of the receiver's link"))
    if fit is not None:
        handles += [
            common.handle("line", "fitted model: simulator", color=common.COLOR["sim"], lw=1.8),
            common.handle(
                "line",
                "fitted model: testbed (with discrepancy)",
                color=common.COLOR["bed"],
                lw=1.8,
            ),
            common.handle("band", BAND_LABEL, color="0.5"),
        ]
    if validation is not None:
        handles.append(
            common.handle(
                "line",
                "simulator with the calibrated host",
                color="black",
                marker="x",
                linestyle="none",
                mew=1.6,
            )
        )
        notes += validation_notes(validation)
    common.finish(fig, "Simulator vs testbed: loss versus offered rate", handles, notes)
    return fig, common.with_notes(common.error_table(STUDY, rows), notes)


def validation_notes(v: pd.DataFrame) -> list[str]:
    """What agrees and what does not, in numbers (a ``lanloss validate`` table)."""
    j = v[v["judged"].astype(bool)] if "judged" in v else v
    out = []
    for src, name in (("sim", "calibrated simulator"), ("model", "fitted testbed curve")):
        ok = j[f"{src}_ok"].astype(bool)
        line = f"{name}: within max(0.5 %, 15 %) of the testbed at {int(ok.sum())} of {len(j)}"
        worst = j.loc[~ok]
        if len(worst):
            w = worst.loc[(worst[f"{src}_error"]).abs().idxmax()]
            line += (
                f"; worst {w['panel']}, {w['rate_mbps']:g} Mbit/s: {100 * w[f'{src}_loss']:.2f} %"
                f" vs {100 * w['bed_loss']:.2f} %"
            )
        out.append(line)
    return out


def _errors(here: pd.DataFrame, config: str, fit: dict | None, flows: pd.DataFrame) -> list[dict]:
    """Per rate both sources ran: loss and goodput, the testbed as the reference."""
    loss = common.pooled_loss(here, ["offered_mbps"]).set_index(["source", "offered_mbps"])
    good = common.points(here, ["offered_mbps"], "mbps").set_index(["source", "offered_mbps"])
    rates = sorted(
        set(here.loc[here["source"] == "sim", "offered_mbps"])
        & set(here.loc[here["source"] == "bed", "offered_mbps"])
    )
    model = pd.Series(np.nan, index=rates, dtype=float)
    if fit is not None and rates:
        template = flows[(flows["config"] == config) & (flows["source"] == "bed")].iloc[0]
        try:
            c = fitted.curves(fit, _curve_rows(template, np.array(rates) * 1e6))
            model = pd.Series(c["est"].to_numpy(), index=rates)
        except Exception:  # said in the figure's notes already
            pass
    rows = []
    for x in rates:
        point = f"{config}, {x:g} Mbit/s"
        rows.append(
            _bed_row(
                point,
                "datagram loss",
                "",
                loss["loss"],
                x,
                model=float(model.get(x, math.nan)),
                relation="bar",  # lanloss validate's: loss near 0 has no relative error
                reference=f"{_BED_REFERENCE}; model: the fit's testbed curve",
            )
        )
        rows.append(_bed_row(point, "goodput", "Mbit/s", good["mean"], x, reference=_BED_REFERENCE))
    return rows


_BED_REFERENCE = "testbed (netns) measurement"


def _bed_row(point: str, quantity: str, unit: str, value: pd.Series, x: float, **kw: Any) -> dict:
    """One error row at offered rate `x` from `value` (indexed by source and rate), the
    testbed's value the reference. Predicted: the simulator's netns preset is fitted to no
    testbed point."""
    ref = float(value.loc[("bed", x)])
    sim = float(value.loc[("sim", x)])
    return common.error_row(
        point, quantity, unit, ref, sim=sim, bed=ref, evidence="predicted", **kw
    )
