# SPDX-License-Identifier: GPL-2.0-only
"""The `lanloss` command loads only the module of the subcommand it runs: the table that
says which module adds which subcommand is checked against the modules themselves."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

from lanloss import cli


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(action.choices)


def test_the_table_names_every_subcommand_and_the_module_that_adds_it():
    full = _subparsers(cli.build_parser())
    assert set(full) == set(cli.SUBCOMMAND_MODULES) | {"options"}
    for command in cli.SUBCOMMAND_MODULES:
        alone = _subparsers(cli.build_parser([command]))
        assert command in alone, command
        # the same parser as in the full command: help, options and their order
        assert alone[command].format_help() == full[command].format_help(), command


def test_help_and_a_mistyped_command_list_every_subcommand():
    for argv in ([], ["--help"], ["simm"]):
        assert set(_subparsers(cli.build_parser(argv))) == set(cli.SUBCOMMAND_MODULES) | {"options"}


def test_a_simulation_point_imports_neither_the_testbed_nor_the_analysis():
    probe = (
        "import json, sys\n"
        "from lanloss import cli\n"
        "cli.build_parser(['sim', 'run'])\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('lanloss', 'pandas')))))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    loaded = json.loads(out.stdout)
    assert "lanloss.sim" in loaded
    elsewhere = ("lanloss.testbed", "lanloss.analysis", "pandas")
    assert not [m for m in loaded if m.startswith(elsewhere)]


def test_a_testbed_point_does_not_import_numpy_yaml_or_logging():
    # every testbed run is a process of its own: numpy's import alone costs it about 0.1 s,
    # PyYAML's 17 ms (it reads no YAML), logging's 9 ms (concurrent.futures imports it)
    probe = (
        "import sys\n"
        "from lanloss import cli\n"
        "cli.build_parser(['bed', 'run'])\n"
        "import lanloss.testbed.runner, lanloss.testbed.run_record\n"
        "from lanloss.analysis import rx_truesize as rx\n"
        "assert rx.socket_capacity(rx.sk_rcvbuf(None), rx.datagram_truesize(64, 1500)) == 278\n"
        "print(sorted({'numpy', 'yaml', 'logging', 'concurrent.futures'} & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
