# SPDX-License-Identifier: GPL-2.0-only
"""Subcommands `table`, `fit`, `validate` and `plan` (registered in lanloss.cli.SUBCOMMAND_MODULES).

    lanloss table --study NAME --out results/tables/NAME.parquet RUN.json|DIR ...
    lanloss table --columns
    lanloss fit TABLE.parquet --out results/fits/NAME.json [--bootstrap N] [--seed S]
                [--level 0.95] [--host-out FILE.yaml]
    lanloss validate TABLE.parquet [--fit FIT.json [--host-file HOST.yaml] | --holdout]
                [--out VALIDATION.csv] [--jobs N]
    lanloss plan --fit FIT.json [what-if options] --loss-target 1e-4 [--verify] [--json]

Bad input (a missing file, a record of an unknown schema, a what-if value that does not
parse) is one line naming it, exit code 2, before anything is written; outputs are written
atomically.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from typing import Any

from lanloss import options as vocab
from lanloss import outputs
from lanloss.record import dump_json, write_atomic


def _cmd_table(args: argparse.Namespace) -> int:
    from lanloss.analysis import tables

    if args.columns:
        print("\n".join(tables.columns()))
        return 0
    if not args.out or not args.inputs or not args.study:
        raise vocab.OptionError("table: needs --study NAME, --out FILE and run records")
    outputs.check_file(args.out, "--out")
    df = tables.build(tables.record_files(args.inputs), args.study)
    tables.write_parquet_atomic(df, args.out)
    print(f"{args.out}: {len(df)} rows from {df['run_file'].nunique()} runs", file=sys.stderr)
    return 0


def _read_table(path: str):
    from lanloss import inputs

    df = inputs.read_parquet(path, "table")  # InputError: one line naming the file
    from lanloss.analysis import tables

    tables.check_table(df, path)
    return df


def _cmd_fit(args: argparse.Namespace) -> int:
    import yaml

    from lanloss.analysis import fit, fit_report

    if args.seed < 0:
        raise vocab.OptionError(f"--seed: {args.seed} must not be negative")
    if args.bootstrap < 0:
        raise vocab.OptionError(f"--bootstrap: {args.bootstrap} must not be negative")
    if not 0.5 <= args.level < 1:
        raise vocab.OptionError(f"--level: {args.level} is not in [0.5, 1)")
    outputs.check_file(args.out, "--out")
    outputs.check_file(args.host_out, "--host-out")
    df = _read_table(args.table)
    data, excluded, _ = fit.usable(df)
    if len(data) == 0:
        why = ", ".join(f"{n} {k}" for k, n in excluded.items()) or "no rows"
        raise vocab.OptionError(
            f"table {args.table!r} has no usable runs ({why}); the model is fitted to UDP "
            "runs that sent something"
        )
    study = args.study
    if study is None:
        names = df["study"].dropna().unique() if "study" in df else []
        study = (
            str(names[0]) if len(names) == 1 else os.path.splitext(os.path.basename(args.table))[0]
        )
    from lanloss import progress

    with progress.task(progress.wanted(args.progress), "fit: starting") as bar:
        doc = fit.fit_table(
            df,
            bootstrap_n=args.bootstrap,
            seed=args.seed,
            level=args.level,
            study=study,
            include_unmet=args.include_unmet,
            say=bar.describe,
        )
    doc["table"] = os.path.abspath(args.table)
    problems = fit_report.validate(doc)
    if problems:  # pragma: no cover - a bug, not bad input
        raise RuntimeError(f"fit produced an invalid document: {problems}")
    if args.host_out:
        write_atomic(
            args.host_out, yaml.safe_dump(doc["host_preset"], sort_keys=False), "--host-out"
        )
    write_atomic(args.out, dump_json(doc))
    verdict = doc["describes_data"]
    if not verdict["ok"]:  # written, to be looked at; plan refuses it
        print(
            f"lanloss: error: fit {args.out}: describes nothing: {verdict['reason']}",
            file=sys.stderr,
        )
        return 1
    for line in doc["discrepancy"]["summary"]:
        print(line, file=sys.stderr)
    return 0


def _cmd_validate(args: argparse.Namespace) -> int:
    from lanloss.analysis import validate

    if args.jobs < 1:
        raise vocab.OptionError(f"--jobs: {args.jobs} must be at least 1")
    if args.holdout and (args.fit or args.host_file):
        raise vocab.OptionError("--holdout fits the kept points itself: no --fit or --host-file")
    if args.host_file and not args.fit:
        raise vocab.OptionError("--host-file needs the --fit it was written by")
    from lanloss import inputs

    for path, flag in ((args.fit, "--fit"), (args.host_file, "--host-file")):
        if path:
            inputs.check_file(path, flag)  # exists, a file, not too big: or one line
    outputs.check_file(args.out, "--out")
    outputs.check_file(args.json_out, "--json-out")
    df = _read_table(args.table)
    doc = None
    if args.fit:
        from lanloss.analysis import plan

        doc = plan.load_fit(args.fit)

    def progress(done: int, total: int) -> None:
        if sys.stderr.isatty():
            print(f"\rsimulating {done}/{total}", end="" if done < total else "\n", file=sys.stderr)

    t, summary = validate.validate(
        df, doc, args.host_file, holdout=args.holdout, jobs=args.jobs, progress=progress
    )
    print("\n".join(validate.render(t, summary)))
    if args.out:
        write_atomic(args.out, t.to_csv(index=False))
    if args.json_out:
        write_atomic(args.json_out, dump_json(summary), "--json-out")
    return 0


def _what_if(args: argparse.Namespace) -> dict[str, Any]:
    from lanloss.analysis import what_if

    given = {
        o.name: getattr(args, f"wi_{o.name}")
        for o in vocab.OPTIONS
        if getattr(args, f"wi_{o.name}", None) is not None
    }
    return what_if.parse_what_if(given)


def _cmd_plan(args: argparse.Namespace) -> int:
    from lanloss.analysis import plan

    target = args.loss_target
    if not (0 < target < 1) or math.isnan(target):
        raise vocab.OptionError(f"--loss-target: {target!r} is not between 0 and 1")
    if args.verify_duration <= 0:
        raise vocab.OptionError(f"--verify-duration: {args.verify_duration!r} must be positive")
    what_if = _what_if(args)
    doc = plan.load_fit(args.fit)
    host = what_if.pop("host", None)
    if host is not None and host != "ideal" and host not in ("fit", "calibrated"):
        if host not in plan.lm.presets():
            known = ", ".join(["ideal", "fit", *plan.lm.presets()])
            raise vocab.OptionError(f"host: unknown host {host!r} (known: {known})")
    from lanloss.analysis.network import ModelError

    try:
        result, sc = plan.plan(doc, what_if, target, host=host, changes=not args.no_changes)
    except ModelError as exc:  # a what-if the model cannot build (e.g. its topology file)
        raise vocab.OptionError(str(exc)) from None
    if args.verify:
        if host is not None:
            what_if["host"] = host
        result["verify"] = plan.verify(sc, result, what_if, args.verify_duration)
    if args.json:
        sys.stdout.write(json.dumps(result, indent=2, default=float) + "\n")
    else:
        print(plan.render(result))
    if args.verify and not result["verify"].get("ok", True):
        return 1
    return 0


def _float(text: str) -> float:
    """A finite number (NaN and infinity are no level, target or duration)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("table", help="run records -> one Parquet table (a row per run and flow)")
    p.add_argument("inputs", nargs="*", metavar="RUN.json|DIR", help="records, or folders of them")
    p.add_argument("--study", help="study name written to every row")
    p.add_argument("--out", help="the Parquet file to write (atomically)")
    p.add_argument("--columns", action="store_true", help="print the table's columns and exit")
    p.set_defaults(func=_cmd_table)

    p = sub.add_parser("fit", help="fit the loss model to a table (sim and testbed jointly)")
    p.add_argument("table", metavar="TABLE.parquet")
    p.add_argument("--out", required=True, help="the fit (JSON) to write")
    p.add_argument("--bootstrap", type=int, default=200, help="replicates over runs [200]")
    p.add_argument("--seed", type=int, default=1, help="bootstrap RNG seed [1]")
    p.add_argument("--level", type=_float, default=0.95, help="confidence level [0.95]")
    p.add_argument("--study", help="study name (default: the table's)")
    p.add_argument("--host-out", metavar="FILE.yaml", help="also write the host preset here")
    p.add_argument(
        "--include-unmet",
        action="store_true",
        help="also fit disturbed runs: a sender that fell behind its rate or pattern, a "
        "receiver kept off the CPU longer than its socket buffer lasts (left out by default)",
    )
    from lanloss import progress

    progress.add_args(p)
    p.set_defaults(func=_cmd_fit)

    p = sub.add_parser(
        "validate",
        help="the calibrated simulator and the fitted curve at every testbed point of a table",
    )
    p.add_argument("table", metavar="TABLE.parquet")
    p.add_argument("--fit", metavar="FIT.json", help="a `lanloss fit` of this table")
    p.add_argument(
        "--host-file", metavar="HOST.yaml", help="its calibrated host (default: the fit's)"
    )
    p.add_argument(
        "--holdout",
        action="store_true",
        help="fit on two thirds of each panel's rates, judge the other third",
    )
    p.add_argument("--out", metavar="VALIDATION.csv", help="write the table here (atomically)")
    p.add_argument("--json-out", metavar="SUMMARY.json", help="write the summary here")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="parallel sim runs")
    p.set_defaults(func=_cmd_validate)

    p = sub.add_parser("plan", help="highest rate under a loss target, bottleneck, what moves it")
    p.add_argument("--fit", required=True, metavar="FIT.json", help="a `lanloss fit` result")
    p.add_argument("--loss-target", type=_float, default=1e-4, help="loss target [1e-4]")
    p.add_argument("--verify", action="store_true", help="simulate the answer and +10%%")
    p.add_argument("--verify-duration", type=_float, default=0.5, help="seconds [0.5]")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--no-changes", action="store_true", help="skip 'what moves it'")
    g = p.add_argument_group("what-if (shared vocabulary; --rate asks whether that rate fits)")
    for o in vocab.OPTIONS:
        text = (
            "host: ideal, fit (the fit's host preset, default) or a preset"
            if o.name == "host"
            else o.help
        )
        g.add_argument(o.flag, dest=f"wi_{o.name}", metavar=o.kind.upper(), help=text)
    p.set_defaults(func=_cmd_plan)
