# SPDX-License-Identifier: GPL-2.0-only
"""Every trace source of the lanloss ns-3 module names a callback typedef that exists and
has the trace's signature, as ns-3's own modules keep theirs (a tool reading the TypeIds,
or a user connecting a sink of the named type, gets what the source calls).

Read from the sources: each ``AddTraceSource(name, help, MakeTraceSourceAccessor(&C::m_x),
"ns3::Scope::Typedef")``, the declared type of ``m_x`` (``TracedCallback<A, B>``: those
arguments; ``TracedValue<T>``: old and new value), and the typedef's parameter list (in
the module's headers, or the ns-3 core ones it may name).
"""

from __future__ import annotations

import re
from pathlib import Path

MODEL = Path(__file__).resolve().parent.parent / "models" / "model"

# ns-3's own callback typedefs the module may name, with their parameter types
NS3_TYPEDEFS = {
    "ns3::Packet::TracedCallback": ["Ptr<const Packet>"],
    "ns3::Packet::AddressTracedCallback": ["Ptr<const Packet>", "const Address&"],
    "ns3::TracedValueCallback::Uint16": ["uint16_t", "uint16_t"],
    "ns3::TracedValueCallback::Uint32": ["uint32_t", "uint32_t"],
}

SOURCE_RE = re.compile(
    r'AddTraceSource\(\s*"(\w+)",.*?MakeTraceSourceAccessor\(\s*&(\w+)::(\w+)\),\s*"([\w:]+)"\)',
    re.S,
)


def _split_args(text: str) -> list[str]:
    args, depth, cur = [], 0, ""
    for ch in text:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        if ch == "," and depth == 0:
            args.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return [a for a in [*args, cur.strip()] if a]


def _param_types(params: str) -> list[str]:
    """'Ptr<const Packet> packet, uint32_t port' -> ['Ptr<const Packet>', 'uint32_t']."""
    out = []
    for p in _split_args(params):
        p = re.sub(r"\s*\b\w+$", "", p) if re.search(r"[\w>&*]\s+\w+$", p) else p
        out.append(re.sub(r"\s+", " ", p).replace(" &", "&").strip())
    return out


def _module_typedefs() -> dict[str, list[str]]:
    found = {}
    for header in MODEL.glob("*.h"):
        text = header.read_text()
        for m in re.finditer(r"typedef void \(\*(\w+)\)\(([^)]*)\);", text):
            # the enclosing class: the last class defined (not forward-declared) before it
            owner = list(re.finditer(r"^class (\w+)\b[^;{]*\{", text[: m.start()], re.M))
            scope = owner[-1].group(1) if owner else ""
            found[f"ns3::{scope}::{m.group(1)}"] = _param_types(m.group(2))
    return found


def _member_types() -> dict[tuple[str, str], list[str]]:
    members = {}
    for header in MODEL.glob("*.h"):
        text = header.read_text()
        for cls in re.finditer(r"^class (\w+)\b[^;{]*\{.*?^};", text, re.M | re.S):
            body = cls.group(0)
            for m in re.finditer(r"TracedCallback<([^;]*)>\s+(m_\w+);", body):
                members[(cls.group(1), m.group(2))] = _param_types(m.group(1))
            for m in re.finditer(r"TracedValue<([^;]*)>\s+(m_\w+);", body):
                members[(cls.group(1), m.group(2))] = [m.group(1).strip()] * 2
    return members


def _sources():
    for cc in MODEL.glob("*.cc"):
        yield from SOURCE_RE.findall(cc.read_text())


def test_the_parser_sees_every_trace_source():
    names = {name for name, *_ in _sources()}
    assert {"MacTx", "PauseTx", "EgressDrop", "RxFifoDrop", "SocketDrop", "Rx", "Tx"} <= names
    assert len(names) >= 20


def test_every_trace_source_names_a_declared_typedef_of_its_signature():
    typedefs = {**NS3_TYPEDEFS, **_module_typedefs()}
    members = _member_types()
    problems = []
    for name, cls, member, callback in _sources():
        declared = members.get((cls, member))
        if declared is None:
            problems.append(f"{cls}::{name}: member {member} not found as a traced member")
            continue
        if callback not in typedefs:
            problems.append(f"{cls}::{name}: callback {callback} is not declared")
            continue
        if typedefs[callback] != declared:
            problems.append(
                f"{cls}::{name}: {callback} takes {typedefs[callback]}, the trace calls with "
                f"{declared}"
            )
    assert problems == []
