# SPDX-License-Identifier: GPL-2.0-only
"""`lanloss figures`: one of the seed papers' figures from a study's table (and fit).

    lanloss figures NAME --table T.parquet [--fit F.json] [--validation V.csv] --out DIR
        -> DIR/NAME.png, DIR/NAME.pdf, DIR/NAME-errors.csv (written whole or not at all)
    lanloss figures --list
    lanloss figures --score DIR/NAME-errors.csv ...
        -> per figure and in total: host-bound predicted rows that hold (within 5 % or their
           bound) and within 10 %, wire-bound rows apart, the other kinds' counts (Markdown)
    lanloss figures --regress REFDIR DIR/NAME-errors.csv ... [STUDY-summary.csv ...] [--update]
        -> every simulator-side number that moved against its committed reference (REFDIR/
           the same file name), one line each; exit 1 if any did; --update rewrites them
           (lanloss.analysis.regression)

A source or a fit the table lacks is drawn without, and said in the figure's note and on
stderr; a table missing a column the figure reads is one line naming it, exit 2.
"""

from __future__ import annotations

import argparse
import sys

from lanloss import inputs, outputs, progress
from lanloss.analysis import figures

# Bad input is an OptionError: `lanloss` prints it as one line and exits 2 (also when run
# as `python -m lanloss.cli`, where lanloss.cli's own classes are a second copy).
from lanloss.options import OptionError


def _listing() -> str:
    lines = []
    for name in figures.FIGURES:
        mod = figures.module(name)
        lines.append(f"{name:8}  study {mod.STUDY:8}  {mod.SHOWS}")
    return "\n".join(lines)


def _read_table(path: str):
    return inputs.read_parquet(path, "--table")  # InputError: one line naming the file


def _read_fit(path: str | None) -> dict | None:
    if path is None:
        return None
    try:
        fit = inputs.load_json(path, "--fit")
    except inputs.InputError as exc:
        raise OptionError(f"--fit: {path!r} is not a readable JSON fit ({exc.why})") from None
    if not isinstance(fit, dict):
        raise OptionError(f"--fit: {path!r} is not a JSON object")
    from lanloss.analysis import fit_report

    problems = fit_report.validate(fit)  # every figure, also those that draw without it
    if problems:
        raise OptionError(f"--fit: {path!r} is not a lanloss fit: {problems[0]}")
    return fit


def _read_validation(path: str):
    import pandas as pd

    inputs.check_file(path, "--validation")
    try:
        v = pd.read_csv(path)
    except Exception as exc:  # pandas raises several kinds for a file that is not CSV
        raise OptionError(
            f"--validation: {path!r} is not a readable CSV ({inputs.one_line(str(exc))})"
        ) from None
    missing = {"panel", "rate_mbps", "bed_loss", "sim_loss", "sim_ok", "model_ok"} - set(v)
    if missing:
        raise OptionError(
            f"--validation: {path!r} is not a lanloss validate table: no {sorted(missing)}"
        )
    return v


def _read_errors(path: str):
    """An error table `lanloss figures` wrote (NAME-errors.csv): its kinds must be known."""
    import pandas as pd

    from lanloss.analysis.figures import common

    inputs.check_file(path, "--score")
    try:
        frame = pd.read_csv(path, keep_default_na=True)
    except Exception as exc:  # pandas raises several kinds for a file that is not CSV
        raise OptionError(
            f"--score: {path!r} is not a readable CSV ({inputs.one_line(str(exc))})"
        ) from None
    missing = [c for c in common.ERROR_COLUMNS if c not in frame.columns]
    if missing:
        raise OptionError(f"--score: {path!r} is not a lanloss error table: no {missing[0]!r}")
    unknown = sorted(set(frame["kind"].astype(str)) - set(common.KINDS))
    if unknown:
        raise OptionError(f"--score: {path!r}: unknown kind {unknown[0]!r}")
    if frame["figure"].nunique() > 1:
        raise OptionError(f"--score: {path!r} holds rows of several figures")
    return frame


def _score(paths: list[str]) -> int:
    from lanloss.analysis.figures import evidence

    tables = {}
    for path in paths:
        frame = _read_errors(path)
        name = str(frame["figure"].iloc[0]) if len(frame) else path
        if name in tables:
            raise OptionError(f"--score: figure {name!r} given twice ({path!r})")
        tables[name] = frame
    print(evidence.score_table(tables), end="")
    return 0


def _regress(paths: list[str], update: bool) -> int:
    from lanloss.analysis import regression

    if len(paths) < 2:
        raise OptionError("--regress: give the reference folder, then the fresh tables")
    outcomes = regression.check(paths[0], paths[1:])
    print(regression.report(outcomes), end="")
    if update:
        for path in regression.update(outcomes):
            print(f"lanloss figures: updated {path}", file=sys.stderr)
        return 0
    return 1 if any(o.moved() for o in outcomes) else 0


def _cmd(args: argparse.Namespace) -> int:
    from lanloss.analysis.figures import common, evidence

    if args.list:
        print(_listing())
        return 0
    if args.update and not args.regress:
        raise OptionError("figures: --update goes with --regress")
    if args.regress:
        if args.name or args.table or args.out or args.score:
            raise OptionError(
                "figures: --regress takes a reference folder and tables only (no NAME, --table,"
                " --out, --score)"
            )
        return _regress(args.regress, args.update)
    if args.score:
        if args.name or args.table or args.out:
            raise OptionError("figures: --score takes error tables only (no NAME, --table, --out)")
        return _score(args.score)
    if args.name is None:
        raise OptionError("figures: name a figure (lanloss figures --list shows them)")
    if args.name not in figures.FIGURES:
        raise OptionError(
            f"figures: unknown figure {args.name!r} (known: {', '.join(figures.FIGURES)})"
        )
    if not args.table or not args.out:
        raise OptionError("figures: --table and --out are required")
    outputs.check_dir(args.out, "--out")
    for path in common.saved_paths(args.out, args.name).values():
        outputs.check_file(path, "--out")
    table = _read_table(args.table)
    fit = _read_fit(args.fit)
    extra = {}
    if args.validation:
        if args.name != "simbed":
            raise OptionError(f"--validation: only simbed draws it, not {args.name!r}")
        extra["validation"] = _read_validation(args.validation)
    with progress.task(progress.wanted(args.progress), f"figures {args.name}: drawing") as bar:
        try:
            fig, errors = figures.module(args.name).draw(table, fit, **extra)
        except common.FigureInputError as exc:
            raise OptionError(str(exc)) from None
        bar.describe(f"figures {args.name}: saving PNG, PDF, error table, caption")
        saved = common.save(fig, errors, args.out, args.name)
    for note in common.notes_of(errors):
        print(f"lanloss figures {args.name}: {note}", file=sys.stderr)
    print(f"lanloss figures {evidence.summary_line(args.name, errors)}", file=sys.stderr)
    for path in saved:
        print(path)
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "figures",
        help="draw a seed paper's figure from a study's table (PNG, PDF, error table)",
        description=__doc__.split("\n\n")[0],
    )
    p.add_argument("name", nargs="?", help=f"the figure: {', '.join(figures.FIGURES)}")
    p.add_argument("--table", metavar="T.parquet", help="the study's table (lanloss table)")
    p.add_argument("--fit", metavar="F.json", help="the study's fit (lanloss fit), if any")
    p.add_argument(
        "--validation", metavar="V.csv", help="simbed: a `lanloss validate` table to draw"
    )
    p.add_argument("--out", metavar="DIR", help="folder for NAME.png, NAME.pdf, NAME-errors.csv")
    p.add_argument("--list", action="store_true", help="print every figure and its study")
    p.add_argument(
        "--score",
        nargs="+",
        metavar="NAME-errors.csv",
        help="print the kinds' counts of these error tables, per figure and in total",
    )
    p.add_argument(
        "--regress",
        nargs="+",
        metavar="PATH",
        help="REFDIR, then fresh NAME-errors.csv / STUDY-summary.csv files: print every "
        "simulator-side number that differs from REFDIR's reference (exit 1 if any)",
    )
    p.add_argument(
        "--update",
        action="store_true",
        help="with --regress: write the fresh tables as the references",
    )
    progress.add_args(p)
    p.set_defaults(func=_cmd)
