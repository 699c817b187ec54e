# SPDX-License-Identifier: GPL-2.0-only
"""The scenario program's flags are the vocabulary's (lanloss/options.py): the same names,
and where the program has a default of its own, the same value. `lanloss sim run` passes
every flag, so the program's defaults matter only to its direct users; they must not
drift from the vocabulary's all the same."""

from __future__ import annotations

import re
import subprocess

import pytest

from lanloss import options as vocab
from lanloss import paths, scenario_flags, sim
from lanloss.sim import SCENARIO

NOT_OPTIONS = {"out", "pcap", "print_spec", "check", "udp_fast_path"}
# every host value of a preset, as `lanloss sim run` passes them
_PRESET_FLAGS = sim.scenario_flags(vocab.resolve({"host": "e1000-2008"}, "sim"))


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


def test_the_programs_flags_are_generated_from_the_vocabulary(built):
    """One table: the program's flags (help, default, choices, range) are scenario-flags.h,
    which the build writes from lanloss/options.py; a program built from another vocabulary
    fails here."""
    generated = paths.BUILD / "ns3-scratch" / "generated" / "scenario-flags.h"
    assert generated.read_text() == scenario_flags.cxx_header()
    source = (paths.REPO / "ns3-scratch" / "scenario-options.cc").read_text()
    # no flag of the vocabulary is registered by hand there, so no default, help text or
    # bound is spelt twice: they come from flags::TABLE
    assert set(re.findall(r'cmd\.AddValue\("(\w+)"', source)) == NOT_OPTIONS
    assert "cmd.AddValue(f.name, f.help, text)" in source
    for opt in vocab.for_source("sim"):
        assert f'"{opt.help}"' not in source, opt.name


def test_the_programs_help_is_the_vocabularys(built):
    out = subprocess.run(
        [str(paths.program(SCENARIO)), "--PrintHelp"], capture_output=True, text=True
    ).stdout
    for opt in vocab.for_source("sim"):
        assert f"--{opt.name}:" in out and opt.help in out, opt.name


def test_the_program_refuses_what_the_vocabulary_refuses(built):
    """Choices and ranges come from the same table: the program names the same bound."""
    for flag, value, says in (
        ("rx_ring", "79", "is below the minimum 80"),
        ("mtu", "9217", "is above the maximum 9216"),
        ("pause_style", "fast", "is not one of (xon, timed)"),
        ("frame_loss", "0.9999995", "is above the maximum 0.999999"),
        ("rcvbuf", "1GiB", f"is above the maximum {vocab.SOCKET_BUFFER_MAX}"),
    ):
        host = [] if flag not in ("rx_ring", "rcvbuf") else _PRESET_FLAGS
        done = subprocess.run(
            [str(paths.program(SCENARIO)), *host, f"--{flag}={value}"],
            capture_output=True,
            text=True,
        )
        assert done.returncode == 2, (flag, done.stderr)
        assert done.stderr.strip() == f"lanloss-sim: error: {flag}: '{value}' {says}"
        with pytest.raises(vocab.OptionError):
            vocab.parse_value(vocab.BY_NAME[flag], value)


def test_the_programs_topologies_are_the_vocabularys():
    text = scenario_flags.cxx_header()
    for name in vocab.TOPOLOGIES:
        assert f'= "{name}";' in text
    assert f"COUNT = {len(vocab.TOPOLOGIES)};" in text
