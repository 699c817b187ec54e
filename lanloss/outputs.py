# SPDX-License-Identifier: GPL-2.0-only
"""Output paths checked before any work: a bad --out or --pcap is one line, not a
traceback after the run (FileExistsError, NotADirectoryError, PermissionError)."""

from __future__ import annotations

import os

from lanloss.options import OptionError


def _nearest_existing(path: str) -> str:
    """The deepest ancestor of `path` that exists (the folder that will be written to)."""
    cur = os.path.dirname(os.path.abspath(path))
    while not os.path.exists(cur):
        parent = os.path.dirname(cur)
        if parent == cur:
            break
        cur = parent
    return cur


def _check_parent(path: str, flag: str) -> None:
    anc = _nearest_existing(path)
    if not os.path.isdir(anc):
        raise OptionError(f"{flag}: {path!r}: {anc!r} is a file, not a folder")
    if not os.access(anc, os.W_OK | os.X_OK):
        raise OptionError(f"{flag}: {path!r}: cannot write in {anc!r}")


def check_file(path: str | None, flag: str = "--out") -> None:
    """A file to (over)write: not a folder, and its folder can be made and written."""
    if not path:
        return
    if os.path.isdir(path):
        raise OptionError(f"{flag}: {path!r} is a directory, not a file")
    _check_parent(path, flag)


def check_dir(path: str | None, flag: str = "--out") -> None:
    """A folder to write into: not an existing file, and it can be made and written."""
    if not path:
        return
    if os.path.exists(path) and not os.path.isdir(path):
        raise OptionError(f"{flag}: {path!r} is an existing file, not a folder")
    if os.path.isdir(path):
        if not os.access(path, os.W_OK | os.X_OK):
            raise OptionError(f"{flag}: cannot write in {path!r}")
        return
    _check_parent(os.path.join(path, "x"), flag)
