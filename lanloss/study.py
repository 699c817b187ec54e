# SPDX-License-Identifier: GPL-2.0-only
"""Studies: a named grid of points over the shared vocabulary, as the workflow runs them.

A study is a YAML mapping (``config/studies/<name>.yaml``; the default study is
``config/config.yaml``, which also holds the workflow's own keys):

    name: default                 # [a-z0-9_-]+ ; results go under results/*/<name>
    description: "..."
    source: [sim, bed]            # which sources run every point
    repetitions: 2                # seeds 1..N (option `seed`; N <= 1000), unless seed is given
    # or repetitions: {min: 2, max: 8, until: 0.5, sim: 1}: testbed seeds 1..min, then more
    #                             # while the loss's 95 % interval is >= 0.5 pp wide on each
    #                             # side (lanloss.repetitions); simulator seeds 1..sim
    fixed: {duration: 0.5s}       # options held for every point
    grid: {rate: [20Mbps, 95Mbps]}   # cross product of lists over option names
    # or grids: [{...}, {...}]    # sub-grids whose points are unioned; an entry may
    #                             # restrict itself with `source: [bed]`, and hold
    #                             # options for one source only: `sim: {host: netns}`
    figures: [simbed]             # `lanloss figures NAME` on this study's table
    fit: true                     # `lanloss fit` on this study's table

Validation is the JSON schema (``schema()``, derived from ``lanloss.options.OPTIONS``;
``workflow/schemas/study.schema.yaml`` is generated from it) with defaults filled,
then ``lanloss.options.resolve(point, source)`` for every point of every source, so
a bad value or an option a source does not implement is named before anything runs.

A point's id is ``lanloss.sweep.point_id`` of its resolved parameters: the same
point has the same id for the simulator and the testbed, and a record's file stem
names its parameters (results/runs/<study>/<source>/<point>.json).

    lanloss study check FILE...      validate, print the number of points
    lanloss study points FILE        one line per point: source, id, flags
    lanloss study schema             the JSON schema (YAML) the workflow validates with
"""

from __future__ import annotations

import argparse
import functools
import itertools
import os
import re
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from lanloss import inputs
from lanloss import options as vocab
from lanloss.options import OptionError
from lanloss.repetitions import MAX_ADAPTIVE, MAX_FIXED, MIN_RUNS, Repetitions
from lanloss.sweep import point_id

SOURCES = ("sim", "bed")
NAME_PATTERN = "^[a-z0-9_-]+$"  # checked again with fullmatch: `$` matches before a final "\n"
# Keys of config/config.yaml that belong to the workflow, not to its default study.
WORKFLOW_KEYS = ("studies", "results", "bed", "bed_args", "bed_retries")


class StudyError(OptionError):
    """A bad study: one line naming the study, the place and the bad value (exit 2)."""


# -- the schema -----------------------------------------------------------------------


def _value_schema(opt: vocab.Option) -> dict[str, Any]:
    """JSON schema of one option's value as a study may write it (text or number)."""
    kind = opt.kind
    if kind == "choice":
        choices: list[Any] = list(opt.choices)
        if set(opt.choices) == {"off", "on"}:
            choices += [False, True]  # YAML 1.1 reads bare off/on as booleans
        return {"enum": choices}
    if kind == "int":
        s: dict[str, Any] = {"type": ["integer", "string"], "pattern": r"^\s*[+-]?[0-9]+\s*$"}
        if opt.minimum is not None:
            s["minimum"] = opt.minimum
        if opt.maximum is not None:
            s["maximum"] = opt.maximum
        return s
    if kind == "pattern":
        return {"type": "string", "pattern": vocab._PATTERN_RE.pattern}
    if kind in ("rate", "rate_or_max"):
        return {"type": ["string", "number"], "exclusiveMinimum": 0}
    if kind in ("size", "time", "probability"):
        return {"type": ["string", "number"], "minimum": 0}
    if kind in ("topology", "host"):
        return {"type": "string"}
    return {"type": ["string", "number"]}  # a kind added later: resolve() checks it


def schema() -> dict[str, Any]:
    """The study schema (JSON Schema 2020-12), derived from the option vocabulary."""
    values = {o.name: {"$ref": f"#/$defs/option/{o.name}"} for o in vocab.OPTIONS}
    lists = {
        o.name: {"type": "array", "minItems": 1, "items": {"$ref": f"#/$defs/option/{o.name}"}}
        for o in vocab.OPTIONS
    }

    def sources() -> dict[str, Any]:  # a fresh dict per use: no YAML anchors in the file
        return {"type": "array", "minItems": 1, "uniqueItems": True, "items": {"enum": [*SOURCES]}}

    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "lanloss study",
        "description": "A named grid of points over the lanloss option vocabulary "
        "(config/README.md explains every key).",
        "type": "object",
        "properties": {
            "name": {"type": "string", "pattern": NAME_PATTERN},
            "description": {"type": "string", "default": ""},
            "source": {**sources(), "default": ["sim"]},
            "repetitions": {
                "oneOf": [
                    {"type": "integer", "minimum": 1, "maximum": MAX_FIXED},
                    {"$ref": "#/$defs/adaptive"},
                ],
                "default": 1,
            },
            "fixed": {"$ref": "#/$defs/fixed", "default": {}},
            "grid": {"$ref": "#/$defs/grid"},
            "grids": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/grid"}},
            "figures": {
                "type": "array",
                "uniqueItems": True,
                "items": {"type": "string", "pattern": NAME_PATTERN},
                "default": [],
            },
            "fit": {"type": "boolean", "default": False},
        },
        "required": ["name"],
        "additionalProperties": False,
        "not": {"required": ["grid", "grids"]},
        "$defs": {
            "option": {o.name: _value_schema(o) for o in vocab.OPTIONS},
            "adaptive": {  # lanloss.repetitions; min defaults to 2, sim to 1
                "type": "object",
                "properties": {
                    "min": {"type": "integer", "minimum": MIN_RUNS, "maximum": MAX_ADAPTIVE},
                    "max": {"type": "integer", "minimum": MIN_RUNS, "maximum": MAX_ADAPTIVE},
                    "until": {"type": "number", "exclusiveMinimum": 0, "maximum": 100},
                    "sim": {"type": "integer", "minimum": 1, "maximum": MAX_FIXED},
                },
                "required": ["max", "until"],
                "additionalProperties": False,
            },
            "fixed": {
                "type": "object",
                "properties": values,
                "additionalProperties": False,
            },
            "grid": {
                "type": "object",
                "properties": {
                    **lists,
                    "source": sources(),
                    # options one source needs to run the point (the simulator's host
                    # model): they do not change which point it is for the other
                    **{s: {"$ref": "#/$defs/fixed"} for s in SOURCES},
                },
                "additionalProperties": False,
            },
        },
    }


def schema_yaml() -> str:
    header = (
        "# The lanloss study schema. GENERATED from lanloss.options by\n"
        "#   .venv/bin/lanloss study schema > workflow/schemas/study.schema.yaml\n"
        "# Do not edit; tests/workflow/test_study.py checks that it is current.\n"
    )
    return header + yaml.safe_dump(schema(), sort_keys=False, width=100)


@functools.cache
def _validator():  # type: ignore[no-untyped-def]
    """A validator that fills "default"s, as Snakemake's validate(set_default=True) does.

    jsonschema is imported here, not at the top: every `lanloss` command imports
    this module to register its subcommand, and only studies need the schema."""
    import jsonschema

    base = jsonschema.Draft202012Validator
    validate_properties = base.VALIDATORS["properties"]

    def set_defaults(validator, properties, instance, schema_):  # type: ignore[no-untyped-def]
        if isinstance(instance, dict):
            for prop, sub in properties.items():
                if "default" in sub:
                    instance.setdefault(prop, sub["default"])
        yield from validate_properties(validator, properties, instance, schema_)

    return jsonschema.validators.extend(base, {"properties": set_defaults})(schema())


def _where(error: Any) -> str:
    parts = []
    for p in error.absolute_path:
        parts.append(f"[{p}]" if isinstance(p, int) else (f".{p}" if parts else str(p)))
    return "".join(parts) or "(top level)"


def validate(data: Any, where: str) -> dict[str, Any]:
    """Check a study mapping against the schema and fill its defaults (in place)."""
    if not isinstance(data, dict):
        raise StudyError(f"study {where}: expected a mapping, got {type(data).__name__}")
    repetitions(data.get("repetitions", 1), where)  # its own one-line messages
    errors = sorted(_validator().iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        if e.validator == "not":
            msg = "give either grid or grids, not both"
        elif e.validator == "additionalProperties":
            known = e.schema.get("properties", {})
            extra = sorted(k for k in e.instance if k not in known)
            what = "key" if not e.absolute_path else "option"
            msg = f"unknown {what} {inputs.shown(extra[0])}" if extra else e.message
        else:  # the schema's message with the study's value shortened
            msg = e.message.replace(repr(e.instance), inputs.shown(e.instance), 1)
        raise StudyError(f"study {where}: {_where(e)}: {msg}")
    _check_name(data["name"], where)
    return data


_ADAPTIVE_KEYS = ("min", "max", "until", "sim")


def _whole(value: Any, where: str, lo: int, hi: int, what: str) -> int:
    """A count written as a YAML integer (not 2.0, "2" or true) from lo to hi."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise StudyError(f"{where}: {inputs.shown(value)} is not a whole number ({what})")
    if not lo <= value <= hi:
        raise StudyError(f"{where}: {value} is not from {lo} to {hi} ({what})")
    return value


def repetitions(value: Any, where: str) -> Repetitions:
    """A study's `repetitions`: a count (seeds 1..N on every source) or the adaptive mapping
    {min, max, until, sim} (lanloss.repetitions). StudyError names the bad value."""
    at = f"study {where}: repetitions"
    if not isinstance(value, dict):
        what = "runs per point, or {min, max, until} for adaptive runs"
        return Repetitions.fixed(_whole(value, at, 1, MAX_FIXED, what))
    unknown = [k for k in value if k not in _ADAPTIVE_KEYS]
    if unknown:
        raise StudyError(
            f"{at}: unknown key {inputs.shown(unknown[0])} (known: {', '.join(_ADAPTIVE_KEYS)})"
        )
    missing = [k for k in ("max", "until") if k not in value]
    if missing:
        raise StudyError(f"{at}: {missing[0]} missing (adaptive: {{min, max, until[, sim]}})")
    lo = _whole(
        value.get("min", MIN_RUNS),
        f"{at}.min",
        MIN_RUNS,
        MAX_ADAPTIVE,
        "an interval needs two runs; each run above min is a round of the workflow",
    )
    hi = _whole(value["max"], f"{at}.max", MIN_RUNS, MAX_ADAPTIVE, "runs per testbed point")
    if lo > hi:
        raise StudyError(f"{at}: min {lo} is more than max {hi}")
    until = value["until"]
    if (
        isinstance(until, bool)
        or not isinstance(until, (int, float))
        or not 0 < until <= 100  # NaN fails too
    ):
        raise StudyError(
            f"{at}.until: {inputs.shown(until)} is not a half-width in percentage points "
            "above 0 and at most 100"
        )
    sim = _whole(value.get("sim", 1), f"{at}.sim", 1, MAX_FIXED, "simulator runs per point")
    return Repetitions(lo, hi, float(until), sim)


def _check_name(name: str, where: str) -> None:
    """The whole name matches NAME_PATTERN: it names folders and Snakemake wildcards, where
    a trailing newline (which the schema's `$` lets through) breaks them."""
    if not re.fullmatch(NAME_PATTERN.strip("^$"), name):
        raise StudyError(f"study {where}: name: {name!r} is not [a-z0-9_-]+")


def _check_overlap(study: Study, entry: dict[str, Any], k: int) -> None:
    """An option is given in one place per point: in `fixed`, in a grid's lists, or in a grid's
    `sim:`/`bed:` mapping. Which would win is a guess, so two places are an error (as
    `lanloss sweep --set X --fixed X`)."""
    where = f"grids[{k}]" if len(study.grids) > 1 else "grid"
    lists = [n for n in entry if n not in ("source", *SOURCES)]
    for name in lists:
        if name in study.fixed:
            raise StudyError(
                f"study {study.where}: {name} is in both fixed and {where}; give it in one"
            )
    for source in SOURCES:
        for name in entry.get(source) or {}:
            if name in lists or name in study.fixed:
                other = where if name in lists else "fixed"
                raise StudyError(
                    f"study {study.where}: {name} is in both {where}.{source} and {other}; "
                    "give it in one"
                )


# -- points -----------------------------------------------------------------------------


def _text(value: Any) -> str:
    """A study value as the CLI takes it (bare YAML off/on came in as booleans)."""
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


@dataclass(frozen=True)
class Point:
    """One run of a study: a source and a full parameter set."""

    id: str
    source: str
    given: dict[str, str]  # the options as the study wrote them (plus the seed)
    params: dict[str, Any]  # resolved: every option, canonical units
    group: str = ""  # the id of the point without its seed: what its repetitions share

    def cli_args(self) -> list[str]:
        """Flags for `lanloss sim run` / `lanloss bed run` that reproduce this point."""
        out = []
        for name, value in self.given.items():
            out += [vocab.BY_NAME[name].flag, value]
        return out


@dataclass
class Study:
    name: str
    description: str
    sources: tuple[str, ...]
    repetitions: Repetitions
    fixed: dict[str, Any]
    grids: list[dict[str, Any]]
    figures: list[str]
    fit: bool
    where: str = ""
    points: list[Point] = field(default_factory=list)  # the runs planned before any has run
    # adaptive repetitions: the testbed runs the rule may add (seeds min+1..max)
    later: list[Point] = field(default_factory=list)

    def points_for(self, source: str) -> list[Point]:
        return [p for p in self.points if p.source == source]

    def repetitions_of(self, source: str) -> dict[str, list[Point]]:
        """Every run a source may make, planned or later, by point (group), in seed order."""
        out: dict[str, list[Point]] = {}
        for p in self.points + self.later:
            if p.source == source:
                out.setdefault(p.group, []).append(p)
        for runs in out.values():
            runs.sort(key=lambda p: int(p.params["seed"]))
        return out

    def varied_options(self) -> list[str]:
        """Options of the grids that take more than one value over the study's points, in
        vocabulary order: what tells its points apart (seed aside; values a host preset
        fills in follow from `host`)."""
        named = {n for g in self.grids for n in g if n not in ("source", "seed")}
        values: dict[str, set[str]] = {n: set() for n in named}
        for p in self.points:
            for n in named:
                values[n].add(repr(p.params.get(n)))
        return [n for n in vocab.BY_NAME if n in named and len(values[n]) > 1]

    def point(self, source: str, pid: str) -> Point:
        for p in self.points + self.later:
            if p.source == source and p.id == pid:
                return p
        raise KeyError(f"study {self.name}: no {source} point {pid!r}")


def _expand(
    study: Study, entry: dict[str, Any], k: int
) -> list[tuple[str, dict[str, str], dict[str, Any], bool]]:
    """(source, given, params, planned) for every run of one grid entry, all validated;
    planned is False for the testbed's adaptive repetitions above min."""
    _check_overlap(study, entry, k)
    entry = dict(entry)
    sources = tuple(entry.pop("source", study.sources))
    only = {s: {n: _text(v) for n, v in (entry.pop(s, None) or {}).items()} for s in SOURCES}
    stray = [s for s in sources if s not in study.sources]
    where = f"grids[{k}]" if len(study.grids) > 1 else "grid"
    if stray:
        raise StudyError(
            f"study {study.where}: {where}.source: {stray[0]!r} is not among the "
            f"study's sources {list(study.sources)}"
        )
    seeded = "seed" in entry or "seed" in study.fixed
    reps = study.repetitions
    if seeded and (reps.max > 1 or reps.sim > 1):
        raise StudyError(
            f"study {study.where}: repetitions {reps.min if reps.until is None else reps.text()}"
            f" given but the seed is set in {where if 'seed' in entry else 'fixed'}; use one or"
            " the other"
        )
    runs = {s: 1 if seeded else (reps.max if s == "bed" else reps.sim) for s in sources}
    seeds = [None] if seeded else list(range(1, max(runs.values()) + 1))
    names = list(entry)
    out = []
    for combo in itertools.product(*(entry[n] for n in names)):
        given = {n: _text(v) for n, v in study.fixed.items()}
        given.update({n: _text(v) for n, v in zip(names, combo, strict=True)})
        for seed in seeds:
            g = dict(given) if seed is None else {**given, "seed": str(seed)}
            for source in (s for s in sources if seed is None or seed <= runs[s]):
                gs = {**g, **only[source]}
                try:
                    params = vocab.resolve(gs, source)
                except OptionError as exc:
                    shown = ", ".join(f"{n}={v}" for n, v in gs.items())
                    raise StudyError(
                        f"study {study.where}: {source} point {{{shown}}}: {exc}"
                    ) from None
                out.append((source, gs, params, seed is None or seed <= reps.planned(source)))
    return out


# bed_args say where and how the testbed measures: the testbed options of `lanloss bed run`
# and its --prefix/--state-dir. What it measures is the study's (the point ids and records
# show it), and the workflow gives --out and --no-progress itself; these are refused.
BED_ARGS_REFUSED = {
    "--slow-receiver": "is a run option (recv_cpu, recv_work): give it in the study",
    "--progress": "is set by the workflow (--no-progress)",
    "--no-progress": "is set by the workflow",
    "--keep-lan": "is set by the workflow (its testbed points share one standing LAN)",
}


def bed_restore_tokens(bed_args: str | None) -> list[str]:
    """The tokens of (checked) bed_args that `lanloss bed restore` takes (--prefix,
    --state-dir): the workflow takes down the LAN its points left standing with them."""
    tokens = bed_args_tokens(bed_args)
    out: list[str] = []
    for i, token in enumerate(tokens):
        flag = token.split("=", 1)[0]
        if flag in ("--prefix", "--state-dir"):
            out += [token] if "=" in token else tokens[i : i + 2]
    return out


@functools.cache
def _bed_run_parser() -> argparse.ArgumentParser:
    """`lanloss bed run`'s options, parsed as that command parses them (no --out, no --help)."""
    from lanloss.cli import _Parser
    from lanloss.testbed import cli as bed_cli

    parser = _Parser(prog="lanloss bed run", add_help=False)
    bed_cli._run_args(parser)
    return parser


def _bed_args_options() -> tuple[dict[str, argparse.Action], set[str]]:
    """(the options bed_args may hold -> their actions, the vocabulary's option strings)."""
    parser = _bed_run_parser()
    allowed: dict[str, argparse.Action] = {}
    vocabulary: set[str] = set()
    for group in parser._action_groups:
        for action in group._group_actions:
            if group.title == "testbed" or action.dest in ("prefix", "state_dir"):
                allowed.update((flag, action) for flag in action.option_strings)
            else:
                vocabulary.update(action.option_strings)
    for flag in BED_ARGS_REFUSED:
        allowed.pop(flag, None)
    return allowed, vocabulary


def bed_args_tokens(bed_args: str | None) -> list[str]:
    """bed_args as `lanloss bed run` arguments, each a whole token (shlex), checked: only the
    testbed options, with values that command accepts. StudyError names the first bad token.
    The workflow passes them on with shlex.join: no shell sees them as syntax."""
    if bed_args is not None and not isinstance(bed_args, str):
        raise StudyError(f"bed_args: {bed_args!r} is not a string of options")
    try:
        tokens = shlex.split(bed_args or "")
    except ValueError as exc:
        raise StudyError(f"bed_args: {bed_args!r}: {exc}") from None
    allowed, vocabulary = _bed_args_options()
    i = 0
    while i < len(tokens):
        token = tokens[i]
        flag = token.split("=", 1)[0]
        action = allowed.get(flag) if token.startswith("--") else None
        if action is None:
            if flag in BED_ARGS_REFUSED:
                why = BED_ARGS_REFUSED[flag]
            elif flag in vocabulary:
                why = "is a run option: give it in the study (fixed or grid)"
            else:
                why = (
                    "is not a testbed option of `lanloss bed run` (bed_args take "
                    f"{', '.join(sorted(allowed))})"
                )
            raise StudyError(f"bed_args: {token!r} {why}")
        i += 2 if action.nargs != 0 and "=" not in token else 1  # the option's value
    from lanloss.cli import UsageError
    from lanloss.testbed import runner

    try:
        args = _bed_run_parser().parse_args(tokens)
        runner.check_prefix(args.prefix)
    except (UsageError, OptionError) as exc:
        raise StudyError(f"bed_args: {bed_args!r}: {exc}") from None
    return tokens


def bed_backend(bed_args: str | None) -> tuple[str, str, str | None]:
    """(backend, tool, inventory) that `lanloss bed run {bed_args}` will use; bed_args
    checked by bed_args_tokens."""
    args = _bed_run_parser().parse_args(bed_args_tokens(bed_args))
    return args.backend, args.tool, args.inventory


def _check_figures(study: Study) -> None:
    from lanloss.analysis.figures import FIGURES

    for name in study.figures:
        if name not in FIGURES:
            raise StudyError(
                f"study {study.where}: figures: unknown figure {name!r} "
                f"(known: {', '.join(FIGURES)})"
            )


def _check_backend(study: Study, bed_args: str | None) -> None:
    """Every testbed point against the backend and tool that will run it."""
    from lanloss import sim
    from lanloss.testbed import runner

    for p in study.points_for("sim"):
        try:
            sim.check_point(p.params)  # a topology file, read and checked whole
        except OptionError as exc:
            shown = ", ".join(f"{n}={v}" for n, v in p.given.items())
            raise StudyError(f"study {study.where}: sim point {{{shown}}}: {exc}") from None
    try:
        backend, tool, inventory = bed_backend(bed_args)
    except StudyError as exc:
        raise StudyError(f"study {study.where}: {exc}") from None
    bed_points = study.points_for("bed")
    inv = None
    if backend == "ssh" and inventory and bed_points:
        from lanloss.testbed import inventory as inv_mod

        inv = inv_mod.load(inventory)
    for p in bed_points:
        try:
            runner.check_params(p.params, set(p.given), backend, tool)
            if inv is not None:  # enough hosts of each role for the point
                from lanloss.testbed import inventory as inv_mod

                inv_mod.select(inv, int(p.params["senders"]), int(p.params["receivers"]))
        except OptionError as exc:
            shown = ", ".join(f"{n}={v}" for n, v in p.given.items())
            raise StudyError(
                f"study {study.where}: bed point {{{shown}}} on backend {backend}: {exc}"
            ) from None


def from_mapping(data: Any, where: str = "", bed_args: str | None = None) -> Study:
    """A validated study with every point expanded and resolved; its figures exist and its
    testbed points suit the backend `bed_args` selects (default: netns)."""
    if not isinstance(data, dict):
        shown = "empty" if data is None else f"a {type(data).__name__}"
        raise StudyError(f"study {where or '?'}: expected a mapping (name, grid, ...), got {shown}")
    data = validate(dict(data), where or str(data.get("name", "?")))
    grids = data.get("grids") or [data.get("grid") or {}]
    study = Study(
        name=data["name"],
        description=data["description"],
        sources=tuple(data["source"]),
        repetitions=repetitions(data["repetitions"], where or data["name"]),
        fixed=dict(data["fixed"]),
        grids=[dict(g) for g in grids],
        figures=list(data["figures"]),
        fit=bool(data["fit"]),
        where=where or data["name"],
    )
    seen: set[tuple[str, str]] = set()
    for k, entry in enumerate(study.grids):
        for source, given, params, planned in _expand(study, entry, k):
            pid = point_id(params)
            if (source, pid) in seen:  # the same point from two grid entries
                continue
            seen.add((source, pid))
            group = point_id({n: v for n, v in params.items() if n != "seed"})
            (study.points if planned else study.later).append(
                Point(pid, source, given, params, group)
            )
    _check_figures(study)
    _check_backend(study, bed_args)
    return study


def _read_yaml(path: str | Path) -> Any:
    """A study file's document (lanloss.inputs: its limits, no duplicate keys, keys as
    written), or a StudyError (the workflow turns that one into its own one-line error)."""
    try:
        return inputs.load_yaml(str(path), "study")
    except inputs.InputError as exc:
        raise StudyError(str(exc)) from None


def load(path: str | Path) -> Study:
    """A study file (or the workflow config, whose own keys are set aside)."""
    data = _read_yaml(path)
    bed_args = None
    if isinstance(data, dict) and ("studies" in data or "bed_args" in data):
        wf, data = split_config(data)
        check_workflow_keys(wf)
        bed_args = wf.get("bed_args")
    return from_mapping(data, str(path), bed_args)


def split_config(config: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """config/config.yaml -> (workflow keys, the default study's mapping)."""
    wf = {k: v for k, v in config.items() if k in WORKFLOW_KEYS}
    default = {k: v for k, v in config.items() if k not in WORKFLOW_KEYS}
    return wf, default


def check_results(results: Any) -> None:
    """`results` names every output path of the workflow's jobs: a folder path that Snakemake
    and the jobs' command lines carry as one word (they are quoted; wildcard braces, control
    characters and a leading '-', read as an option, they cannot carry)."""
    if not isinstance(results, str) or not results.strip():
        raise StudyError(f"results: {results!r} is not a folder path")
    bad = [c for c in results if c in "{}" or not c.isprintable()]
    if bad:
        raise StudyError(f"results: {results!r}: a folder path without {bad[0]!r}")
    if results.startswith("-"):
        raise StudyError(f"results: {results!r} starts with '-' (an option); write ./{results}")


def check_workflow_keys(wf: dict[str, Any]) -> None:
    """The workflow's own keys that the schema cannot judge: results and bed_args."""
    if "results" in wf:
        check_results(wf["results"])
    if wf.get("bed_args"):
        bed_args_tokens(str(wf["bed_args"]))


def study_mappings(
    config: dict[str, Any], basedir: str | Path, config_path: str = "config/config.yaml"
) -> list[tuple[str, dict[str, Any]]]:
    """(where, raw mapping) of every study the workflow config names.

    `studies` lists names or paths: the default study's own name is the study in
    config.yaml itself; another NAME is config/studies/NAME.yaml under basedir; a
    value ending in .yaml/.yml is a study file (relative to the working directory).
    """
    wf, default = split_config(config)
    names = wf.get("studies") or [default.get("name")]
    if isinstance(names, str):
        names = [names]
    out = []
    for entry in names:
        entry = str(entry)
        if entry == default.get("name"):
            out.append((config_path, default))
        elif entry.endswith((".yaml", ".yml")):
            out.append((entry, _read_yaml(entry)))
        else:
            path = Path(basedir) / "config" / "studies" / f"{entry}.yaml"
            if not path.exists():
                raise StudyError(
                    f"studies: no study {entry!r} (looked for {path} and the default "
                    f"study {default.get('name')!r} in {config_path})"
                )
            out.append((str(path), _read_yaml(path)))
    return out


def check_unique(studies: list[Study]) -> None:
    seen: dict[str, str] = {}
    for s in studies:
        if s.name in seen:
            raise StudyError(
                f"study {s.where}: name {s.name!r} is also the name of {seen[s.name]}; "
                "results would collide"
            )
        seen[s.name] = s.where


def bed_decision(mode: Any, bed_args: str, euid: int) -> tuple[bool, str]:
    """Whether the workflow runs the testbed points, and if not, why (for the message).

    mode: auto (run them when the backend can: the netns backend needs root, an ssh
    inventory does not), on (must run: an error if it cannot), off. YAML's bare on/off
    arrive as booleans.
    """
    mode = {True: "on", False: "off"}.get(mode, str(mode))
    if mode not in ("auto", "on", "off"):
        raise StudyError(f"bed: {mode!r} is not auto, on or off")
    if mode == "off":
        return False, "bed: off in the config"
    args = shlex.split(bed_args or "")
    ssh = "--backend=ssh" in args or any(
        a == "--backend" and b == "ssh" for a, b in zip(args, args[1:], strict=False)
    )
    if ssh or euid == 0:
        return True, ""
    if mode == "on":
        raise StudyError("bed: on, but the netns testbed needs root (run as root, or bed: auto)")
    return False, "not root (the netns testbed needs root namespaces; run as root to include it)"


def run_path(results: str, study: str, point: Point) -> str:
    return os.path.join(results, "runs", study, point.source, f"{point.id}.json")


# -- the `lanloss study` command -----------------------------------------------------------


def _cmd_check(args: argparse.Namespace) -> int:
    studies = [load(p) for p in args.files]
    check_unique(studies)
    for s in studies:
        counts = ", ".join(f"{src} {len(s.points_for(src))}" for src in s.sources)
        later = f"; up to {len(s.later)} more testbed runs ({s.repetitions.text()})"
        print(f"study {s.name} ({s.where}): {len(s.points)} runs ({counts}){later * bool(s.later)}")
    return 0


def _cmd_points(args: argparse.Namespace) -> int:
    s = load(args.file)
    for p in s.points:
        if args.source and p.source != args.source:
            continue
        print(f"{p.source}\t{p.id}\t{shlex.join(p.cli_args())}")
    return 0


def _cmd_schema(args: argparse.Namespace) -> int:
    sys.stdout.write(schema_yaml())
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    p_study = sub.add_parser("study", help="workflow studies: check, list points, schema")
    ssub = p_study.add_subparsers(dest="study_command", required=True, parser_class=type(p_study))
    p = ssub.add_parser("check", help="validate study files (every point, every source)")
    p.add_argument("files", nargs="+", metavar="STUDY.yaml")
    p.set_defaults(func=_cmd_check)
    p = ssub.add_parser("points", help="list a study's points: source, id, run flags")
    p.add_argument("file", metavar="STUDY.yaml")
    p.add_argument("--source", choices=SOURCES)
    p.set_defaults(func=_cmd_points)
    p = ssub.add_parser("schema", help="print the study JSON schema (YAML)")
    p.set_defaults(func=_cmd_schema)
