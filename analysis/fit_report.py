# SPDX-License-Identifier: GPL-2.0-only
"""The fit document of ``lanloss fit`` (schema ``lanloss.fit/1``, described in
``lanloss.analysis.fit``): the calibrated host preset, the plain-language discrepancy
summary, the matched sim/bed points, and ``validate`` for the document's shape."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import logit

from lanloss.analysis import loss_model as lm

SCHEMA = "lanloss.fit/1"
# A testbed host's priors, and the base of its calibrated preset: the model of the netns
# testbed's veth host (lanloss/host_presets.py).
TESTBED_BASE = lm.BED_HOST


def host_preset(out_params: dict, base: str, data: pd.DataFrame, study: str | None):
    """The host file for the simulator: testbed-calibrated costs over the netns preset, or
    (no testbed runs) the simulator's own preset as the fit sees it."""
    has_bed = len(data) and (data["source"].astype(str) == "bed").any()
    est = {n: v["estimate"] for n, v in out_params.items()}
    ident = {n: v["identified"] for n, v in out_params.items()}
    preset = lm.presets()[base]
    if has_bed:
        name = f"calibrated-{study}" if study else "calibrated"
        out = {
            "name": name,
            "base": TESTBED_BASE,
            "cores": lm.BED_CORES,
            "irq_cost": est["irq_cost"],
            "packet_cost": est["packet_cost"],
            "read_cost": est["read_cost"],
            "truesize": round(est["truesize"]) if ident["truesize"] else 0,
        }
        return out, True
    # no testbed: the simulator's preset as this model sees it (its scales)
    out = {
        "name": f"{base}-as-fitted" if study is None else f"{base}-{study}",
        "base": base,
        "cores": int(preset.get("cores", 1)),
        "irq_cost": float(preset["irq_cost"]) * est["sim_irq_scale"],
        "packet_cost": float(preset["packet_cost"]) * est["sim_packet_scale"],
        "read_cost": float(preset["read_cost"]) * est["sim_read_scale"],
        "truesize": int(preset.get("truesize", 0) or 0),
    }
    return out, False


# ----------------------------------------------------------------------------------------
# Where the simulator differs


_NOT_MATCHED = {"seed", "source", "host", "link_delay", "wan_delay"}


def matched_points(data: pd.DataFrame, top: int = 5) -> list[dict[str, Any]]:
    """Configurations run by both sources: loss and main drop point each, largest gaps first."""
    from lanloss import options as vocab
    from lanloss.record import DROP_POINTS

    keys = [o.name for o in vocab.OPTIONS if o.name in data.columns and o.name not in _NOT_MATCHED]
    keys += ["rate_max"] if "rate_max" in data else []
    d = data.copy()
    for k in keys:
        d[k] = d[k].astype(str)
    out = []
    for cfg, g in d.groupby(keys, dropna=False):
        srcs = set(g["source"].astype(str))
        if not {"sim", "bed"} <= srcs:
            continue
        entry: dict[str, Any] = {}
        cfg_d = dict(zip(keys, cfg if isinstance(cfg, tuple) else (cfg,), strict=True))
        varied = {k: cfg_d[k] for k in keys if d[k].nunique() > 1}
        entry["point"] = varied
        for s in ("sim", "bed"):
            gs = g[g["source"].astype(str) == s]
            sent, lost = gs["sent"].sum(), gs["lost"].sum()
            drops = {p: int(gs[f"drop_{p}"].sum()) for p in DROP_POINTS if f"drop_{p}" in gs}
            main = max(drops, key=drops.get) if drops and max(drops.values()) > 0 else None
            entry[s] = {
                "loss": float(lost / sent) if sent else None,
                "drop_point": main,
                "runs": int(gs["run_file"].nunique()),
            }
        ls, lb = entry["sim"]["loss"] or 0.0, entry["bed"]["loss"] or 0.0
        entry["gap_logit"] = float(
            logit(np.clip(lb, 1e-6, 1 - 1e-6)) - logit(np.clip(ls, 1e-6, 1 - 1e-6))
        )
        out.append(entry)
    out.sort(key=lambda e: -abs(e["gap_logit"]))
    return out[:top]


def _fmt(v: float, unit: str) -> str:
    if unit == "s":
        return f"{v * 1e6:.3g} us"
    if unit == "B":
        return f"{v:.0f} B"
    return f"{v:.3g}"


# The testbed host's parameters a netns testbed's runs can pin (veth has no interrupts and
# its kernel work runs on the sender's CPU): the summary says when they are not pinned.
PINNABLE_ON_NETNS = ("read_cost", "truesize", "arrival_scv")
# A discrepancy whose whole interval lies within this many logit units of 0 (odds within
# x1.22) is a match; wider, an interval that holds 0 shows no difference, nothing more.
MATCH_LOGIT = 0.2


def discrepancy_sentence(key: str, d: dict[str, Any], where: str) -> str:
    """One discrepancy as a sentence its interval supports: a difference only where the
    interval excludes 0, a match only where the whole interval is within MATCH_LOGIT of 0,
    and otherwise that the data cannot tell."""
    e, ci = d["estimate"], d.get("ci")
    if d.get("identified") is False:
        return f"Nothing tells the testbed from the model {where}: {d.get('note', '')}."
    if not ci:
        return (
            f"The testbed {'loses more' if e > 0 else 'loses less' if e < 0 else 'matches'} "
            f"than the model {where} ({key} {e:+.2f}; no interval: not bootstrapped)."
        )
    ci_txt = f"{key} {e:+.2f}, CI [{ci[0]:+.2f}, {ci[1]:+.2f}]"
    if ci[0] > 0 or ci[1] < 0:
        lo, hi = sorted((math.exp(ci[0]), math.exp(ci[1])))
        return (
            f"The testbed loses {'more' if ci[0] > 0 else 'less'} than the model {where}: "
            f"odds x{math.exp(e):.3g} (x{lo:.3g} to x{hi:.3g}; {ci_txt})."
        )
    if max(abs(ci[0]), abs(ci[1])) <= MATCH_LOGIT:
        return f"The testbed matches the model {where} ({ci_txt})."
    return (
        f"No difference between the testbed and the model {where} is shown, nor ruled out "
        f"({ci_txt}: the interval holds 0)."
    )


def summary(doc, disc, out_params, base, data) -> list[str]:
    """Plain-language lines: where the simulator differs from the testbed, and how sure."""
    lines: list[str] = []
    runs = doc["data"]["runs"]
    if not runs.get("bed") and not runs.get("sim"):
        return ["No usable runs: nothing was fitted; the host preset is the prior's."]
    if not runs.get("bed"):
        lines.append("Only simulator runs: there is no testbed to compare with.")
    if not runs.get("sim"):
        lines.append("Only testbed runs: the discrepancy is between the testbed and the model.")
    if disc.get("d0"):
        for key, where in (
            ("d0", "at the network's stages (wire, switch)"),
            ("d1", "at the host's stages (interrupts, cpu, socket buffer)"),
        ):
            lines.append(discrepancy_sentence(key, disc[key], where))
        lines.append(
            f"AIC {'prefers' if disc['preferred'] == 'with' else 'does not need'} the discrepancy"
            f" (with {disc['aic_with']:.1f}, without {disc['aic_without']:.1f})."
        )
    preset = lm.presets().get(base, {})
    for name, key in (
        ("irq_cost", "irq_cost"),
        ("packet_cost", "packet_cost"),
        ("read_cost", "read_cost"),
    ):
        p = out_params[name]
        if p["identified"] and key in preset:
            ratio = p["estimate"] / float(preset[key])
            ci = p["ci"]
            ci_s = f" [{_fmt(ci[0], 's')}, {_fmt(ci[1], 's')}]" if ci else ""
            lines.append(
                f"Testbed {p['meaning'].replace('testbed ', '')}: {_fmt(p['estimate'], 's')}{ci_s},"
                f" x{ratio:.3g} the simulator's {base} preset ({_fmt(float(preset[key]), 's')})."
            )
    for name, p in out_params.items():
        if name not in PINNABLE_ON_NETNS:
            continue
        if "pin it" in (p.get("note") or "") and runs.get("bed"):
            state = "identified only sometimes" if p["identified"] else "not identified"
            lines.append(f"Testbed {name} {state}: {p['note']}.")
        elif "narrower than the run-to-run" in (p.get("note") or ""):
            lines.append(f"Testbed {name}: {p['note']}.")
    for name in ("sim_irq_scale", "sim_packet_scale", "sim_read_scale"):
        p = out_params[name]
        if p["identified"]:
            lines.append(
                f"The simulator behaves as if its {name[4:-6]} cost were x{p['estimate']:.3g}"
                " its configured value (1 = this model matches the simulator)."
            )
    for m in disc.get("matched_points", [])[:3]:
        s, b = m["sim"], m["bed"]
        pt = ", ".join(f"{k}={v}" for k, v in m["point"].items()) or "the one configuration"
        lines.append(
            f"At {pt}: simulator {100 * (s['loss'] or 0):.3g}% lost"
            + (f" (mostly {s['drop_point']})" if s["drop_point"] else "")
            + f", testbed {100 * (b['loss'] or 0):.3g}%"
            + (f" (mostly {b['drop_point']})" if b["drop_point"] else "")
            + "."
        )
    return lines


# ----------------------------------------------------------------------------------------
# The document's shape


def validate(doc: Any) -> list[str]:
    """Problems with a fit document's shape (empty when it is a valid lanloss.fit/1)."""
    errs: list[str] = []

    def need(obj, key, kinds, where):
        if not isinstance(obj, dict) or key not in obj:
            errs.append(f"{where}: missing {key!r}")
            return None
        if kinds is not None and not isinstance(obj[key], kinds):
            errs.append(f"{where}.{key}: expected {kinds}, got {type(obj[key]).__name__}")
            return None
        return obj[key]

    if not isinstance(doc, dict):
        return ["not a JSON object"]
    if doc.get("schema") != SCHEMA:
        errs.append(f"schema: expected {SCHEMA!r}, got {doc.get('schema')!r}")
    model = need(doc, "model", dict, "fit")
    if model is not None:
        need(model, "name", str, "model")
        need(model, "version", int, "model")
    data = need(doc, "data", dict, "fit")
    if data is not None:
        for k in ("runs", "rows", "excluded"):
            need(data, k, dict, "data")
        need(data, "notes", list, "data")
    ps = need(doc, "parameters", dict, "fit")
    for name, p in (ps or {}).items():
        w = f"parameters.{name}"
        need(p, "source", str, w)
        need(p, "estimate", (int, float), w)
        need(p, "identified", bool, w)
        need(p, "prior", (int, float), w)
        need(p, "unit", str, w)
        ci = need(p, "ci", (list, type(None)), w)
        if isinstance(ci, list) and (len(ci) != 2 or not ci[0] <= ci[1]):
            errs.append(f"{w}.ci: expected [low, high], got {ci}")
    q = need(doc, "fit_quality", dict, "fit")
    for s, v in (q or {}).items():
        for k in ("rows", "runs", "deviance", "dispersion", "loss_max_abs_error", "loss_rms_error"):
            need(v, k, (int, float), f"fit_quality.{s}")
    disc = need(doc, "discrepancy", dict, "fit")
    if disc is not None:
        for k in ("form", "tau", "stages", "d0", "d1", "aic_with", "aic_without", "preferred"):
            need(disc, k, None, "discrepancy")
        need(disc, "summary", list, "discrepancy")
        need(disc, "matched_points", list, "discrepancy")
    hp = need(doc, "host_preset", dict, "fit")
    if hp is not None:
        for k in ("name", "base", "cores", "irq_cost", "packet_cost", "read_cost", "truesize"):
            need(hp, k, None, "host_preset")
    need(doc, "host_preset_calibrated", bool, "fit")
    b = need(doc, "bootstrap", dict, "fit")
    if b is not None:
        for k in ("replicates", "failed", "seed", "level"):
            need(b, k, (int, float), "bootstrap")
    return errs
