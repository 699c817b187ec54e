# SPDX-License-Identifier: GPL-2.0-only
"""The scenario program's flags are the vocabulary's (lanloss/options.py): the same names,
and where the program has a default of its own, the same value. `lanloss sim run` passes
every flag, so the program's defaults matter only to its direct users; they must not
drift from the vocabulary's all the same."""

from __future__ import annotations

import re
import subprocess

from lanloss import options as vocab
from lanloss import paths
from lanloss.sim import SCENARIO

NOT_OPTIONS = {"out", "pcap", "print_spec", "check"}


def _program_flags() -> dict[str, str | None]:
    out = subprocess.run(
        [str(paths.program(SCENARIO)), "--PrintHelp"], capture_output=True, text=True
    ).stdout
    section = out.split("Program Options:")[1].split("General Arguments:")[0]
    flags = {}
    for name, rest in re.findall(r"^\s+--(\w+):\s+(.*)$", section, re.M):
        m = re.search(r"\[([^\]]*)\]$", rest)
        flags[name] = m.group(1) if m else None
    return flags


def test_the_programs_flags_are_the_simulators_options(built):
    flags = set(_program_flags()) - NOT_OPTIONS
    assert flags == {o.name for o in vocab.for_source("sim")}


def test_the_programs_defaults_are_the_vocabularys(built):
    drift = []
    for name, text in _program_flags().items():
        opt = vocab.BY_NAME.get(name)
        if opt is None or text is None or opt.default is None:
            continue
        if vocab.parse_value(opt, text) != opt.default:
            drift.append(f"{name}: program {text!r}, vocabulary {opt.default!r}")
    assert drift == []


def test_the_programs_defaults_are_generated_from_the_vocabulary(built):
    """One table: the program's defaults are scenario-defaults.h, which the build writes
    from lanloss/options.py; a program built from another vocabulary fails here."""
    generated = paths.BUILD / "ns3-scratch" / "generated" / "scenario-defaults.h"
    assert generated.read_text() == vocab.cxx_defaults()
    source = (paths.REPO / "ns3-scratch" / "scenario-options.cc").read_text()
    # no default is spelt there: every flag variable starts from defaults::NAME
    assert not re.search(r'std::string \w+ = "', source)
