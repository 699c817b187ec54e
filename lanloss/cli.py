# SPDX-License-Identifier: GPL-2.0-only
"""The `lanloss` command: one entry point, a subcommand per part.

    lanloss sim run [options]     one simulation point -> run record (JSON)
    lanloss sweep ...             a grid of points, one record each (resumable)
    lanloss bed ...               the testbed harness (see lanloss.testbed.cli)
    lanloss options               the shared option vocabulary as a table

Bad input is a one-line error naming the bad value, exit code 2, and no output
file (records are written atomically, after the run).
"""

from __future__ import annotations

import argparse
import re
import sys

from lanloss import options as vocab
from lanloss.options import OptionError
from lanloss.record import RecordError

EXIT_USAGE = 2


class UsageError(Exception):
    """Bad input: printed as one line, exit code 2."""


def _given_once(base: type[argparse.Action]) -> type[argparse.Action]:
    """``base`` (a single-valued action) refusing a second use of its option in one parse:
    with "last wins" a repeated flag would silently drop a value the user typed."""

    class Once(base):  # type: ignore[misc, valid-type]
        def __call__(self, parser, namespace, values, option_string=None):  # type: ignore[no-untyped-def]
            if option_string is not None:
                seen = parser._given_options
                if self in seen:
                    _, was = seen[self]
                    shown = "" if not isinstance(values, str) else f" ({was!r}, then {values!r})"
                    parser.error(f"{option_string} given twice{shown}; give it once")
                seen[self] = (option_string, values)
            super().__call__(parser, namespace, values, option_string)

    Once.__name__ = f"Once{base.__name__}"
    return Once


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors and exit code 2 (argparse's own default).

    Flags are never abbreviated (``--dur`` is not ``--duration``), and a single-valued
    option given twice is an error; options that collect values (action="append")
    stay repeatable.

    Values that start with a dash and a digit, "inf" or "nan" ("--duration -2s") are
    taken as values, so the vocabulary check can name them instead of argparse
    complaining about a missing argument.
    """

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = re.compile(r"^-([0-9.]|inf|nan)", re.IGNORECASE)
        self._given_options: dict[argparse.Action, tuple[str, object]] = {}
        for name in (None, "store", "store_const", "store_true", "store_false"):
            self.register("action", name, _given_once(self._registry_get("action", name)))

    def parse_known_args(self, args=None, namespace=None):  # type: ignore[no-untyped-def]
        self._given_options = {}  # per parse: each parser (and subparser) counts its own
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message}")


def add_vocabulary_options(parser: argparse.ArgumentParser, source: str) -> None:
    """One --flag per vocabulary option the source implements (values parsed later)."""
    group = parser.add_argument_group("run options (shared vocabulary)")
    for opt in vocab.for_source(source):
        default = "" if opt.default is None else f" [default: {opt.default}]"
        group.add_argument(
            opt.flag,
            dest=opt.name,
            default=None,
            metavar=opt.kind.upper(),
            help=f"{opt.help}{default}",
        )


def given_options(args: argparse.Namespace, source: str) -> dict[str, str]:
    """The vocabulary options the user actually passed."""
    return {
        o.name: getattr(args, o.name)
        for o in vocab.for_source(source)
        if getattr(args, o.name, None) is not None
    }


def _cmd_options(args: argparse.Namespace) -> int:
    print(vocab.markdown_table(args.source))
    return 0


# The module that adds each subcommand (its add_parser(sub) adds them all). A command line
# naming one loads only that module: a simulation point does not import the testbed, the
# analysis or the figures (tests/test_cli_lazy.py checks this table against the modules).
SUBCOMMAND_MODULES = {
    "sim": "lanloss.sim",  # sim run
    "sweep": "lanloss.sweep",
    "bed": "lanloss.testbed.cli",  # bed run/restore/cleanup/check
    "study": "lanloss.study",  # study check/points/schema (the workflow's studies)
    "figures": "lanloss.analysis.figures_cli",  # the seed papers' figures
    "table": "lanloss.analysis.cli",
    "fit": "lanloss.analysis.cli",
    "validate": "lanloss.analysis.cli",
    "plan": "lanloss.analysis.cli",
    "calibrate": "lanloss.analysis.calibrate",  # per-seed host presets
}


def _modules_for(argv: list[str]) -> list[str]:
    """The modules whose subcommands the parser needs for @argv: the one its first word
    names, or all of them (help, a mistyped or missing command: argparse lists them)."""
    command = argv[0] if argv else None
    if command in SUBCOMMAND_MODULES:
        return [SUBCOMMAND_MODULES[command]]
    return list(dict.fromkeys(SUBCOMMAND_MODULES.values()))


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser for @argv (default: every subcommand)."""
    import importlib

    parser = _Parser(prog="lanloss", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name in _modules_for([] if argv is None else argv):
        importlib.import_module(name).add_parser(sub)

    p = sub.add_parser("options", help="print the shared option vocabulary")
    p.add_argument("--source", choices=("sim", "bed"), default=None)
    p.set_defaults(func=_cmd_options)
    return parser


def main(argv: list[str] | None = None) -> int:
    from lanloss.child import Stopped, signals_unwind
    from lanloss.sim import SimFailed
    from lanloss.testbed.errors import BedError, Cancelled

    try:
        with signals_unwind():  # SIGTERM/SIGHUP unwind: temp folders and children go
            argv = sys.argv[1:] if argv is None else list(argv)
            args = build_parser(argv).parse_args(argv)
            return int(args.func(args) or 0)
    except (UsageError, OptionError, RecordError) as exc:
        print(f"lanloss: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (SimFailed, BedError) as exc:
        print(f"lanloss: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("lanloss: interrupted", file=sys.stderr)
        return 130
    except Stopped as exc:
        print(f"lanloss: {exc} received; stopped", file=sys.stderr)
        return 128 + exc.signum
    except Cancelled as exc:  # a testbed sweep's run, after its restore
        print(f"lanloss: {exc} received; settings restored", file=sys.stderr)
        return 143


if __name__ == "__main__":
    sys.exit(main())
