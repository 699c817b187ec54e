# SPDX-License-Identifier: GPL-2.0-only
"""Reading the files a user names: one place, with limits, and one-line errors.

Every command that reads a user's file (topology, host file, inventory, study, run
record, fit, table) goes through here:

    read_text(path, what)   the file's text: it exists, is a regular file (not a
                            folder, FIFO or device), is at most MAX_BYTES, is UTF-8
    load_yaml(path, what)   read_text + YAML with the limits below
    load_json(path, what)   read_text + JSON with the limits below
    check_file(path, what)  the checks of read_text without reading (binary files such
                            as Parquet tables, which their own reader opens)

Limits (a file over one is refused, not read further):
  - MAX_BYTES: 16 MiB per file;
  - MAX_DEPTH: 64 levels of nested lists and mappings;
  - MAX_NODES: 100,000 values in a YAML document, an alias counting as every value it
    repeats (a few hundred bytes of nested aliases would otherwise expand to billions);
    an alias inside the node it names (a recursive structure) is refused.

YAML is read as the user wrote it:
  - a duplicate key in one mapping is refused, naming the key and its line;
  - a mapping key written without quotes is the text written (`0x1A:` is "0x1A", not
    26; `on:` is "on", not True); values keep YAML's types (`rate: 10` is a number);
  - dates are kept as text; `!!binary`, `!!set`, `!!omap` and `!!pairs` are refused: a
    document holds only mappings, lists, text, numbers, booleans and null, as JSON.
JSON: a duplicate key in one object is refused too.

Every failure is an InputError (an OptionError: `lanloss` prints it as one line and
exits 2) reading "<what> <path>: <why>". ``shown(value)`` is a value shortened for such
a line: validators of loaded documents print values with it, never with a bare repr.
"""

from __future__ import annotations

import json
import os
import reprlib
import stat
from typing import Any

from lanloss.options import OptionError

MAX_BYTES = 16 * 1024 * 1024
MAX_DEPTH = 64
MAX_NODES = 100_000
SHOWN_CHARS = 60


class InputError(OptionError):
    """A file that cannot be read as the input it should be; one line naming it."""

    def __init__(self, what: str, path: str, why: str) -> None:
        super().__init__(f"{what} {shown_path(path)}: {why}")
        self.what, self.path, self.why = what, path, why


# -- showing values in one line ------------------------------------------------------------

_repr = reprlib.Repr()
_repr.maxlevel = 3
_repr.maxstring = _repr.maxother = _repr.maxlong = SHOWN_CHARS
_repr.maxlist = _repr.maxtuple = _repr.maxdict = _repr.maxset = 6


def shown(value: Any) -> str:
    """repr(value) of at most about SHOWN_CHARS characters, in one line; built without
    rendering the whole value (a large structure is cut, not printed and then cut)."""
    text = _repr.repr(value)
    if len(text) > SHOWN_CHARS:
        text = text[: SHOWN_CHARS - 3] + "..."
    return text


def shown_path(path: Any) -> str:
    """A path as typed when it prints in one line; its repr (escapes shown) otherwise."""
    text = os.fsdecode(path) if isinstance(path, bytes) else str(path)
    return text if text.isprintable() else repr(text)


# -- reading -------------------------------------------------------------------------------


def _human(n: int) -> str:
    """Whole MiB as MiB, anything else in bytes (16 MiB, 16,777,217 bytes)."""
    return f"{n // 2**20} MiB" if n and n % 2**20 == 0 else f"{n:,} bytes"


def check_file(path: str, what: str, limit: int | None = MAX_BYTES) -> os.stat_result:
    """The file exists, is a regular file and (limit not None) at most `limit` bytes."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputError(what, path, "does not exist") from None
    except NotADirectoryError:
        raise InputError(what, path, "does not exist (a part of its path is a file)") from None
    except OSError as exc:
        raise InputError(what, path, f"cannot read ({exc.strerror})") from None
    except ValueError:  # an embedded NUL
        raise InputError(what, path, "is not a file name") from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError(what, path, "is a folder, not a file")
    if not stat.S_ISREG(st.st_mode):
        raise InputError(what, path, "is not a regular file (a device, FIFO or socket)")
    if limit is not None and st.st_size > limit:
        raise InputError(
            what, path, f"is {_human(st.st_size)}, more than the {_human(limit)} allowed"
        )
    return st


def read_bytes(path: str, what: str, limit: int = MAX_BYTES) -> bytes:
    """The file's bytes (check_file's rules; a file that grows past `limit` is refused)."""
    check_file(path, what, limit)
    try:
        with open(path, "rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise InputError(what, path, f"cannot read ({exc.strerror})") from None
    if len(data) > limit:
        raise InputError(what, path, f"is more than the {_human(limit)} allowed")
    return data


def read_text(path: str, what: str, limit: int = MAX_BYTES) -> str:
    """The file's text: UTF-8 (a leading byte-order mark is dropped); a byte that is not
    UTF-8 is refused with its offset."""
    data = read_bytes(path, what, limit)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            what, path, f"is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from None
    return text.removeprefix("\ufeff")


# -- YAML (lanloss/yaml_reader.py) ---------------------------------------------------


def one_line(text: str, chars: int = 2 * SHOWN_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= chars else text[: chars - 3] + "..."


def parse_yaml(text: str, what: str, path: str) -> Any:
    """One YAML document (the limits and rules of this module), or InputError."""
    from lanloss import yaml_reader  # PyYAML: 17 ms of every start that reads no YAML

    try:
        return yaml_reader.parse(text)
    except yaml_reader.Unreadable as exc:
        raise InputError(what, path, str(exc)) from None


def load_yaml(path: str, what: str, limit: int = MAX_BYTES) -> Any:
    """A YAML file's one document (None when empty); InputError naming the file."""
    return parse_yaml(read_text(path, what, limit), what, path)


# -- JSON ----------------------------------------------------------------------------------


class _Refused(Exception):
    """A JSON document over a limit or outside what lanloss reads (the message is its why)."""


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Refused(f"duplicate key {shown(key)} in one object")
        out[key] = value
    return out


def _check_depth(doc: Any) -> None:
    todo = [(doc, 1)]
    while todo:
        value, depth = todo.pop()
        if depth > MAX_DEPTH:
            raise _Refused(f"nested deeper than {MAX_DEPTH} levels")
        items = value.values() if isinstance(value, dict) else value
        todo += [(v, depth + 1) for v in items if isinstance(v, (dict, list))]


def parse_json(text: str, what: str, path: str) -> Any:
    """One JSON document (the limits and rules of this module), or InputError."""
    try:
        doc = json.loads(text, object_pairs_hook=_object)
        if isinstance(doc, (dict, list)):
            _check_depth(doc)
        return doc
    except _Refused as exc:
        raise InputError(what, path, str(exc)) from None
    except json.JSONDecodeError as exc:
        raise InputError(what, path, f"not valid JSON at line {exc.lineno}: {exc.msg}") from None
    except RecursionError:  # deeper than the interpreter's own limit
        raise InputError(what, path, f"nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # a number too long to convert (int's digit limit)
        raise InputError(what, path, f"not valid JSON: {one_line(str(exc))}") from None


def load_json(path: str, what: str, limit: int = MAX_BYTES) -> Any:
    """A JSON file's document; InputError naming the file."""
    return parse_json(read_text(path, what, limit), what, path)


# -- Parquet tables --------------------------------------------------------------------------

MAX_TABLE_BYTES = 1024**3  # a table file; a study's table is a few MiB
MAX_TABLE_DATA = 4 * 1024**3  # its columns uncompressed (as the file's own metadata says)


def read_parquet(path: str, what: str) -> Any:
    """A Parquet table as a pandas DataFrame; a file that is not Parquet, is damaged or whose
    columns would unpack to more than MAX_TABLE_DATA is one InputError line."""
    check_file(path, what, MAX_TABLE_BYTES)
    import pyarrow.parquet as pq

    try:
        meta = pq.ParquetFile(path).metadata
        data = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
    except Exception as exc:  # pyarrow raises several kinds for a file that is not Parquet
        raise InputError(
            what, path, f"is not a readable Parquet table ({one_line(str(exc))})"
        ) from None
    if data > MAX_TABLE_DATA:
        raise InputError(
            what, path, f"holds {_human(data)} of data, more than the {_human(MAX_TABLE_DATA)} read"
        )
    import pandas as pd

    try:
        return pd.read_parquet(path)
    except Exception as exc:  # a damaged page, a type pandas cannot hold, no memory
        raise InputError(what, path, f"is a damaged Parquet table ({one_line(str(exc))})") from None
