# SPDX-License-Identifier: GPL-2.0-only
"""YAML as lanloss reads it (the rules and limits in lanloss/inputs.py's docstring).

Apart from lanloss.inputs so that a command that reads no YAML (a testbed point, a
simulation point) does not import PyYAML.
"""

from __future__ import annotations

from typing import Any

import yaml

from lanloss.inputs import MAX_DEPTH, MAX_NODES, one_line, shown


class Unreadable(Exception):
    """A document that is not YAML, or is over a limit or outside what lanloss reads: the
    message is why, in one line."""


_Base: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's parser when built


def _line(node_or_event: Any) -> str:
    mark = getattr(node_or_event, "start_mark", None)
    return f" at line {mark.line + 1}" if mark is not None else ""


class _Refused(yaml.YAMLError):
    """A YAML document over a limit or outside what lanloss reads (the message is its why)."""


class _Loader(_Base):
    """Safe YAML with plain mapping keys as written, no duplicate keys, JSON's types only."""

    def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
        if not isinstance(node, yaml.MappingNode):
            return super().construct_mapping(node, deep=deep)  # its own "expected a mapping"
        self._refuse_duplicates(node)
        self.flatten_mapping(node)  # `<<: *base` merges: the mapping's own keys override
        mapping: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = self._key(key_node)
            try:
                hash(key)
            except TypeError:
                raise _Refused(f"a key that is a list or mapping{_line(key_node)}") from None
            mapping[key] = self.construct_object(value_node, deep=deep)
        return mapping

    def _refuse_duplicates(self, node: Any) -> None:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self._key(key_node)
            try:
                first = seen.get(key)
            except TypeError:
                raise _Refused(f"a key that is a list or mapping{_line(key_node)}") from None
            if first is not None:
                raise _Refused(
                    f"duplicate key {shown(key)}{_line(key_node)} (first at line {first})"
                )
            seen[key] = key_node.start_mark.line + 1

    def _key(self, key_node: Any) -> Any:
        if isinstance(key_node, yaml.ScalarNode) and not key_node.style:  # None or "": plain
            return key_node.value  # a plain key is its text: 0x1A, 010, on, null stay text
        return self.construct_object(key_node, deep=True)


def _timestamp_as_text(loader: Any, node: Any) -> str:
    return str(node.value)


def _refuse_tag(loader: Any, node: Any) -> Any:
    raise _Refused(f"tag {shown(node.tag)}{_line(node)} is not read (mappings, lists, scalars)")


_Loader.add_constructor("tag:yaml.org,2002:timestamp", _timestamp_as_text)
for _tag in ("binary", "set", "omap", "pairs"):
    _Loader.add_constructor(f"tag:yaml.org,2002:{_tag}", _refuse_tag)


def _check_events(text: str) -> None:
    """Depth, size with aliases expanded, and recursive aliases, from the parser's events
    (flat: no recursion and nothing built, whatever the document holds)."""
    open_nodes: list[tuple[str | None, int]] = []  # (anchor, values before it) per level
    sizes: dict[str, int] = {}  # anchor -> values of its node, aliases expanded
    values = 0
    for event in yaml.parse(text, Loader=_Base):
        if isinstance(event, yaml.CollectionStartEvent):
            if len(open_nodes) >= MAX_DEPTH:
                raise _Refused(f"nested deeper than {MAX_DEPTH} levels{_line(event)}")
            open_nodes.append((event.anchor, values))
            values += 1
        elif isinstance(event, yaml.CollectionEndEvent):
            anchor, before = open_nodes.pop()
            if anchor is not None:
                sizes[anchor] = values - before
        elif isinstance(event, yaml.ScalarEvent):
            values += 1
            if event.anchor is not None:
                sizes[event.anchor] = 1
        elif isinstance(event, yaml.AliasEvent):
            if any(event.anchor == anchor for anchor, _ in open_nodes):
                raise _Refused(
                    f"alias *{shown(event.anchor)[1:-1]}{_line(event)} is inside the node it "
                    "names (a recursive structure)"
                )
            values += sizes.get(event.anchor, 1)  # an undefined one: the composer names it
        if values > MAX_NODES:
            raise _Refused(
                f"more than {MAX_NODES:,} values{_line(event)} (an alias counts as every "
                "value it repeats)"
            )


def _why(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or (str(exc).strip().splitlines() or [""])[0]
    at = f" at line {mark.line + 1}" if mark is not None else ""
    return f"not valid YAML{at}: {one_line(str(problem))}"


def parse(text: str) -> Any:
    """One YAML document, or Unreadable."""
    try:
        _check_events(text)
        return yaml.load(text, Loader=_Loader)  # noqa: S506 - _Loader is a SafeLoader
    except _Refused as exc:
        raise Unreadable(str(exc)) from None
    except yaml.YAMLError as exc:
        raise Unreadable(_why(exc)) from None
    except ValueError as exc:  # a number too long to convert (int's digit limit)
        raise Unreadable(f"not valid YAML: {one_line(str(exc))}") from None
