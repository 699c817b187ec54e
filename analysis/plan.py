# SPDX-License-Identifier: GPL-2.0-only
"""`lanloss plan`: the highest rate a configuration carries under a loss target, and why.

From a fitted model (``lanloss fit`` output) and a what-if (vocabulary options: payload,
receivers, cast, rcvbuf, itr, pause, link speeds, host, readers, ...), the planner searches
the offered rate per sender (bisection in log rate) whose predicted long-run loss, on the
worst flow, stays under the target. The host is the fit's ``host_preset`` (calibrated from
the testbed when the fit had testbed runs) unless ``--host`` names a preset or ``ideal``;
predictions are the model's for the simulator with that host (its fitted theta_sim).

The binding bottleneck is the stage (wire, switch, interrupts, cpu, socket_buffer) whose own
loss reaches the target at the lowest rate; the margin is how much further the next one
lets the rate go. "What moves it" re-plans with one change at a time (rcvbuf x4, itr 2500,
pause on, 1G edge, jumbo frames, twice the readers, 4x switch buffer). ``--verify`` runs the
simulator at the answer and 10 % above it and prints measured next to predicted loss.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lanloss import host_values, inputs, units
from lanloss import options as vocab
from lanloss.analysis import fit_report
from lanloss.analysis import loss_model as lm

RATE_LO, RATE_HI = 1e3, 1e12  # search range, payload bit/s per sender
GRID = 73  # log-spaced rates scanned for the first crossing (x1.33 apart)
REL_TOL = 1e-5


def load_fit(path: str) -> dict[str, Any]:
    doc = inputs.load_json(path, "--fit")  # InputError: one line naming the file
    errs = fit_report.validate(doc)
    if errs:
        raise vocab.OptionError(f"--fit: {path!r} is not a lanloss fit: {errs[0]}")
    check_fit_fields(doc, path)
    runs = doc["data"]["runs"]
    if not sum(int(n) for n in runs.values()):
        raise vocab.OptionError(
            f"--fit: {path!r} was fitted to no runs (its table had no usable ones): "
            "nothing to plan from; fit a table with UDP runs"
        )
    verdict = fit_verdict(doc)
    if not verdict["ok"]:
        raise vocab.OptionError(
            f"--fit: {path!r} describes nothing: {verdict['reason']}; nothing to plan from"
        )
    return doc


def check_fit_fields(doc: dict[str, Any], path: str) -> None:
    """The values plan reads, beyond fit_report's shape: run and row counts are whole
    numbers, parameter estimates finite and positive (they are costs and sizes)."""

    def bad(where: str, value: Any, what: str) -> vocab.OptionError:
        return vocab.OptionError(f"--fit: {path!r}: {where}: {value!r} is not {what}")

    for key in ("runs", "rows"):
        for source, n in doc["data"][key].items():
            if isinstance(n, bool) or not isinstance(n, int) or n < 0:
                raise bad(f"data.{key}.{source}", n, "a whole number (0 or more)")
    for name, p in doc["parameters"].items():
        estimate = p["estimate"]
        if isinstance(estimate, bool) or not math.isfinite(estimate) or estimate <= 0:
            raise bad(f"parameters.{name}.estimate", estimate, "a finite positive number")
    verdict = doc.get("describes_data")
    if verdict is not None and not (
        isinstance(verdict, dict)
        and isinstance(verdict.get("ok"), bool)
        and isinstance(verdict.get("reason"), str)
    ):
        raise bad("describes_data", verdict, "{ok: true|false, reason: text}")


def fit_verdict(doc: dict[str, Any]) -> dict[str, Any]:
    """Whether the fit describes its runs: its own `describes_data`, or for a fit written
    without one, the same rule on its fit_quality (lanloss.analysis.fit.describes_data)."""
    if doc.get("describes_data") is not None:
        return doc["describes_data"]
    from lanloss.analysis.fit import quality_verdict

    return quality_verdict(doc["fit_quality"])


@dataclass
class Scenario:
    params: dict[str, Any]  # canonical options + host values
    host_label: str
    theta: dict[str, float]
    asked_rate: float | None = None  # the what-if's own --rate, if any
    notes: list[str] = field(default_factory=list)


def scenario(doc: dict[str, Any], what_if: dict[str, Any], host: str | None) -> Scenario:
    """The configuration to plan: vocabulary defaults < host < the what-if's values."""
    params: dict[str, Any] = {o.name: o.default for o in vocab.OPTIONS}
    asked = what_if.get("rate")
    params.update({k: v for k, v in what_if.items() if k != "rate"})
    if what_if.get("sender_rate") is None:  # the vocabulary's rule: default edge_rate
        params["sender_rate"] = params["edge_rate"]
    theta = {k: float(v["estimate"]) for k, v in doc["parameters"].items()}
    presets = lm.presets()
    choice = host or what_if.get("host") or "fit"
    notes: list[str] = []
    if choice == "ideal":
        params["host"] = "ideal"
        label = "ideal (no CPU or socket limits)"
    else:
        if choice in ("fit", "calibrated"):
            hp = doc["host_preset"]
            base = hp["base"]
            values = {**presets[base], **{k: v for k, v in hp.items() if k not in ("name", "base")}}
            cal = doc.get("host_preset_calibrated")
            label = (
                f"{hp['name']} ({'calibrated from the testbed' if cal else 'the fit'}; base {base})"
            )
        elif choice in presets:
            base, values, label = choice, dict(presets[choice]), f"{choice} preset"
        else:
            known = ", ".join(["ideal", "fit", *presets])
            raise vocab.OptionError(f"host: unknown host {choice!r} (known: {known})")
        params["host"] = base
        for k, v in values.items():
            if k not in what_if:
                params[k] = v
    disc = doc.get("discrepancy") or {}
    for key, where in (("d0", "network"), ("d1", "host")):
        d = disc.get(key)
        if d and abs(d["estimate"]) > 0.5:
            notes.append(
                f"the testbed differs from the model at the {where}'s stages by odds "
                f"x{math.exp(d['estimate']):.2g} (fit discrepancy {key}); the plan is the model's"
            )
    return Scenario(params, label, theta, asked if isinstance(asked, (int, float)) else None, notes)


HOST_STAGES = ("interrupts", "cpu", "socket_buffer")


def evaluate(sc: Scenario, rates: np.ndarray, duration: float = math.inf, alone: str = ""):
    """Predicted worst-flow loss and stage losses at each offered rate (bit/s per sender).

    alone="network": the host is ideal; alone="host": the network delivers everything
    offered (each part's own limit, not hidden behind the other).
    """
    rows: list[dict[str, Any]] = []
    which: list[float] = []
    for r in rates:
        p = dict(sc.params, rate=float(r), duration=duration)
        flows = lm.rows_for(p, "sim", frame=False)
        rows += flows
        which += [float(r)] * len(flows)
    prep = lm.prepare(rows, duration=duration)
    if alone == "network":
        prep.host_on[:] = False
    elif alone == "host":
        prep.net_keep[:] = 1.0
        prep.net_thru[:] = 1.0
        prep.loss_wire[:] = 0.0
        prep.loss_switch[:] = 0.0
    pred = lm.predict(prep, sc.theta)
    idx = np.array(which)
    out_loss = np.empty(len(rates))
    out_stage = {s: np.empty(len(rates)) for s in lm.STAGES}
    for i, r in enumerate(rates):
        m = idx == float(r)
        out_loss[i] = pred.loss[m].max()
        for s in lm.STAGES:
            out_stage[s][i] = pred.stages[s][m].max()
    worst = int(np.argmax(pred.loss[idx == float(rates[-1])]))
    link = prep.bottleneck_link[int(np.flatnonzero(idx == float(rates[-1]))[worst])]
    return out_loss, out_stage, link


def max_rate(sc: Scenario, target: float, stage: str | None = None) -> float:
    """Highest rate with predicted loss (of one stage alone, or in total) <= target.

    inf when no rate reaches the target (the sender slows instead, or the stage never binds).
    """
    alone = "" if stage is None else ("host" if stage in HOST_STAGES else "network")
    if stage in HOST_STAGES and sc.params.get("host") == "ideal":
        return math.inf

    def losses(rates: np.ndarray) -> np.ndarray:
        total, stages, _ = evaluate(sc, rates, alone=alone)
        return stages[stage] if stage else total

    # the first crossing: a stage's own loss need not grow with the rate (below the knee
    # the socket buffer loses, above it the CPU takes over)
    grid = np.geomspace(RATE_LO, RATE_HI, GRID)
    over = np.flatnonzero(losses(grid) > target)
    if len(over) == 0:
        return math.inf
    if over[0] == 0:
        return 0.0
    lo, hi = math.log(grid[over[0] - 1]), math.log(grid[over[0]])
    while hi - lo > REL_TOL:
        mid = (lo + hi) / 2
        if losses(np.array([math.exp(mid)]))[0] <= target:
            lo = mid
        else:
            hi = mid
    return math.exp(lo)


def _changes(sc: Scenario) -> list[tuple[str, dict[str, Any]]]:
    p = sc.params
    host = p.get("host") != "ideal"
    out: list[tuple[str, dict[str, Any]]] = []
    if host:
        rcv = p.get("rcvbuf") or lm.RMEM_DEFAULT / 2
        out.append((f"rcvbuf x4 ({int(rcv * 4)} bytes)", {"rcvbuf": rcv * 4}))
        if p.get("itr") != 2500:
            out.append(("itr 2500", {"itr": 2500}))
        readers = int(p["readers"])
        cores = int(p["cores"])  # a host preset names its cores
        out.append(
            (
                f"readers x2 ({2 * readers}, on {max(cores, 2 * readers + 1)} cores)",
                {"readers": 2 * readers, "cores": max(cores, 2 * readers + 1)},
            )
        )
    if p.get("pause") != "on":
        out.append(("pause on", {"pause": "on"}))
    if float(p["edge_rate"]) < 1e9:
        out.append(
            (
                "1G edge",
                {"edge_rate": 1e9, "sender_rate": max(float(p["sender_rate"]), 1e9)},
            )
        )
    if int(p["mtu"]) < 9000:
        out.append(("jumbo frames (mtu 9000)", {"mtu": 9000}))
    out.append(("switch_buffer x4", {"switch_buffer": float(p["switch_buffer"]) * 4}))
    return out


def _fmt_rate(bps: float) -> str:
    if not math.isfinite(bps):
        return "unlimited"
    return units.format_rate(int(round(bps))) if bps >= 1 else "0"


def plan(
    doc: dict[str, Any],
    what_if: dict[str, Any],
    target: float,
    host: str | None = None,
    changes: bool = True,
) -> tuple[dict[str, Any], Scenario]:
    """-> (the plan as a JSON-able mapping, the scenario it planned)."""
    if not 0 < target < 1:
        raise vocab.OptionError(f"--loss-target: {target!r} is not between 0 and 1")
    sc = scenario(doc, what_if, host)
    best = max_rate(sc, target)
    per_stage = {s: max_rate(sc, target, s) for s in lm.STAGES}
    ranked = sorted(per_stage.items(), key=lambda kv: kv[1])
    binding, first = ranked[0]
    nxt, second = ranked[1]
    probe = best if math.isfinite(best) and best > 0 else RATE_HI
    _, _, link = evaluate(sc, np.array([probe * 1.5]), alone="network")
    P = int(sc.params["payload"])
    answer: dict[str, Any] = {
        "max_rate_bps": best if math.isfinite(best) else None,
        "max_rate_pps": best / (8 * P) if math.isfinite(best) else None,
        "bottleneck": binding if math.isfinite(first) else None,
        "bottleneck_link": link if binding in ("wire", "switch") else None,
        "next_bottleneck": nxt if math.isfinite(second) else None,
        "margin": (second / first - 1) if math.isfinite(second) and first > 0 else None,
    }
    if sc.asked_rate is not None:
        loss, _, _ = evaluate(sc, np.array([sc.asked_rate]))
        answer["asked_rate_bps"] = sc.asked_rate
        answer["asked_rate_loss"] = float(loss[0])
        answer["asked_rate_ok"] = bool(loss[0] <= target)
    out: dict[str, Any] = {
        "loss_target": target,
        "host": sc.host_label,
        "configuration": {k: v for k, v in sc.params.items() if k not in ("rate", "duration")},
        "answer": answer,
        "stages": {s: (v if math.isfinite(v) else None) for s, v in per_stage.items()},
        "what_moves_it": [],
        "notes": sc.notes,
    }
    if changes:
        for label, change in _changes(sc):
            alt = Scenario({**sc.params, **change}, sc.host_label, sc.theta)
            r = max_rate(alt, target)
            out["what_moves_it"].append(
                {
                    "change": label,
                    "max_rate_bps": r if math.isfinite(r) else None,
                    "relative": (r / best - 1) if math.isfinite(r) and best > 0 else None,
                }
            )
    return out, sc


def verify(
    sc: Scenario, result: dict[str, Any], what_if: dict[str, Any], duration: float
) -> dict[str, Any]:
    """Simulate at the answer and 10 % above; measured worst-flow loss next to the model's."""
    from lanloss import sim

    best = result["answer"]["max_rate_bps"]
    if best is None:
        return {"skipped": "no finite rate to verify"}
    target = result["loss_target"]
    given: dict[str, Any] = {k: v for k, v in what_if.items() if k in vocab.BY_NAME}
    if sc.params.get("host") not in (None, "ideal"):
        given["host"] = sc.params["host"]
        for k in host_values.HOST_OPTIONS:
            if k in vocab.BY_NAME and sc.params.get(k) is not None:
                given[k] = sc.params[k]
    warmup = min(float(given.get("warmup", vocab.BY_NAME["warmup"].default)), duration / 10)
    rows = []
    for factor in (1.0, 1.1):
        rate = best * factor
        text = {k: _text(v) for k, v in given.items()}
        text.update(rate=f"{rate:.9g}", duration=f"{duration!r}s", warmup=f"{warmup!r}s")
        params = vocab.resolve(text, "sim")
        record = sim.run_point(params)
        measured = max((f.lost / f.sent for f in record.flows if f.sent), default=0.0)
        predicted, _, _ = evaluate(sc, np.array([rate]), duration=duration)
        rows.append(
            {
                "rate_bps": rate,
                "measured_loss": float(measured),
                "predicted_loss": float(predicted[0]),
                "meets_target": bool(measured <= target),
            }
        )
    ok = rows[0]["meets_target"] and not rows[1]["meets_target"]
    return {"duration_s": duration, "points": rows, "ok": ok}


def _text(v: Any) -> str:
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _lan_text(c: dict[str, Any]) -> str:
    """The LAN in words: a topology file's own hosts and link speeds, not the (unused)
    receivers / sender_rate / edge_rate options."""
    from lanloss import topology

    topo = str(c["topology"])
    if topo in topology.NAMED:
        return (
            f"{c['receivers']} receiver(s), sender {_fmt_rate(float(c['sender_rate']))}, "
            f"edge {_fmt_rate(float(c['edge_rate']))}"
        )
    try:
        t = topology.load(topo)
    except Exception:  # the plan itself already loaded it; keep the header best-effort
        return f"topology {topo}"
    roles = list(t["hosts"].values())
    speeds = sorted({float(r) for _, _, r, _ in t["links"]})
    return (
        f"topology {topo} ({roles.count('sender')} sender(s), {roles.count('receiver')} "
        f"receiver(s), {len(t['switches'])} switches, links "
        + "/".join(_fmt_rate(v) for v in speeds)
        + ")"
    )


def render(result: dict[str, Any]) -> str:
    """The human-readable plan."""
    a = result["answer"]
    c = result["configuration"]
    target = result["loss_target"]
    lines = [
        f"Plan: {c['payload']}-byte UDP, {_lan_text(c)}, {c['cast']}, "
        f"mtu {c['mtu']}, pause {c['pause']}; host: {result['host']}",
    ]
    if a["max_rate_bps"] is None:
        lines.append(
            f"Loss stays under {target:g} at every rate: nothing is lost (the sender slows)."
        )
    else:
        lines.append(
            f"Highest offered rate with loss <= {target:g}: {_fmt_rate(a['max_rate_bps'])} per "
            f"sender ({a['max_rate_pps']:.0f} datagrams/s)"
        )
    if a["bottleneck"]:
        where = f" ({a['bottleneck_link']})" if a.get("bottleneck_link") else ""
        nxt = (
            f"; next: {a['next_bottleneck']}, {100 * a['margin']:.1f}% higher"
            if a["next_bottleneck"]
            else "; nothing else limits it"
        )
        lines.append(f"Bottleneck: {a['bottleneck']}{where}{nxt}")
    if "asked_rate_bps" in a:
        verdict = "yes" if a["asked_rate_ok"] else "no"
        lines.append(
            f"Can it take {_fmt_rate(a['asked_rate_bps'])}? {verdict} "
            f"(predicted loss {a['asked_rate_loss']:.3g})"
        )
    if result["what_moves_it"]:
        lines.append("What moves it:")
        for m in result["what_moves_it"]:
            rel = f" ({100 * m['relative']:+.1f}%)" if m["relative"] is not None else ""
            lines.append(f"  {m['change']:<36} {_fmt_rate(m['max_rate_bps'] or math.inf)}{rel}")
    for n in result.get("notes", []):
        lines.append(f"Note: {n}")
    v = result.get("verify")
    if v:
        if "skipped" in v:
            lines.append(f"Verify: skipped ({v['skipped']})")
        else:
            lines.append(f"Verify (simulation, {v['duration_s']:g} s):")
            for p in v["points"]:
                lines.append(
                    f"  {_fmt_rate(p['rate_bps']):>14}: measured loss {p['measured_loss']:.3g}, "
                    f"predicted {p['predicted_loss']:.3g}, "
                    f"{'meets' if p['meets_target'] else 'misses'} the target"
                )
            lines.append(
                "  OK: the answer meets the target and 10% more does not"
                if v["ok"]
                else "  NOT OK: the simulation disagrees with the plan"
            )
    return "\n".join(lines)
