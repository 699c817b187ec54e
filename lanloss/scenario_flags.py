# SPDX-License-Identifier: GPL-2.0-only
"""The scenario program's flags as C++ (scenario-flags.h), generated from the one option
table (lanloss.options.OPTIONS) at build time: for each option the simulator implements,
its name, help text, default, choices and range; the named topologies; the traffic
patterns. The program (ns3-scratch/scenario-options.cc) registers and checks its flags
from this table only, so no option's text, default, choice or bound is written twice.

    python -m lanloss.scenario_flags --cxx-header PATH
"""

from __future__ import annotations

import json
import sys

from lanloss import options
from lanloss.options import Option


def _c_string(text: str) -> str:
    """A C++ string literal of ``text`` (JSON's escapes are C++'s for ASCII and \\u)."""
    return json.dumps(text, ensure_ascii=True)


def _bound(value: float | None) -> str:
    return "false, 0.0" if value is None else f"true, {float(value)!r}"


def _choices_name(opt: Option) -> str:
    return f"{opt.name.upper()}_CHOICES"


def _choices(opt: Option) -> list[str]:
    if not opt.choices:
        return []
    items = ", ".join(_c_string(c) for c in opt.choices)
    return [f"inline constexpr const char* {_choices_name(opt)}[] = {{{items}, nullptr}};"]


def _row(opt: Option) -> str:
    default = "" if opt.default is None else options.flag_text(opt, opt.default)
    choices = _choices_name(opt) if opt.choices else "nullptr"
    return (
        f"    {{{_c_string(opt.name)}, {_c_string(opt.help)}, {_c_string(default)}, "
        f"{choices}, {_bound(opt.minimum)}, {_bound(opt.maximum)}}},"
    )


def _topology_constant(name: str) -> str:
    return name.upper().replace("-", "_")


HEADER_TOP = """\
// SPDX-License-Identifier: GPL-2.0-only
// Generated from lanloss/options.py (OPTIONS, TOPOLOGIES) by
// `python -m lanloss.scenario_flags --cxx-header`; do not edit.
#ifndef LANLOSS_SCENARIO_FLAGS_H
#define LANLOSS_SCENARIO_FLAGS_H

#include <cstddef>
#include <string_view>

namespace lanloss::flags
{

/** One option of the shared vocabulary, as the scenario program's flag --NAME=TEXT. */
struct Flag
{
    const char* name;
    const char* help;
    const char* defaultText;    //!< as the flag takes it; "" = unset (no default)
    const char* const* choices; //!< nullptr-terminated, or nullptr: not a choice
    bool hasMinimum;
    double minimum; //!< in the option's canonical unit (bit/s, bytes, seconds)
    bool hasMaximum;
    double maximum;
};
"""


def cxx_header() -> str:
    sim = options.for_source("sim")
    topologies = [
        f"inline constexpr std::string_view {_topology_constant(t)} = {_c_string(t)};"
        for t in options.TOPOLOGIES
    ]
    return "\n".join(
        [
            HEADER_TOP,
            "/** The named LANs (lanloss.options.TOPOLOGIES); any other topology is a file. */",
            "namespace topology",
            "{",
            *topologies,
            f"inline constexpr std::size_t COUNT = {len(options.TOPOLOGIES)};",
            "} // namespace topology",
            "",
            "/** The traffic patterns (option pattern): group 2 is a burst's size. */",
            f"inline constexpr const char* PATTERN_RE = {_c_string(options._PATTERN_RE.pattern)};",
            "",
            *[line for o in sim for line in _choices(o)],
            "",
            "/** Every option the simulator implements, in the vocabulary's order. */",
            "inline constexpr Flag TABLE[] = {",
            *[_row(o) for o in sim],
            "};",
            "",
            "} // namespace lanloss::flags",
            "",
            "#endif",
            "",
        ]
    )


def main(argv: list[str]) -> int:
    """``python -m lanloss.scenario_flags --cxx-header PATH``: write the header (the build
    runs it)."""
    from lanloss.generated import header_main

    return header_main(argv, "--cxx-header", "lanloss.scenario_flags", cxx_header)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
