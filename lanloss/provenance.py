# SPDX-License-Identifier: GPL-2.0-only
"""Where and with what a run was made, for the record's ``env`` (as iperf3 and flent
record theirs): the UTC start, the machine's name, and a hash of the programs that made
the numbers (the scenario program; the testbed's tools)."""

from __future__ import annotations

import datetime as _dt
import hashlib
import os
import socket
from collections.abc import Iterable


def utc_now() -> str:
    """ISO 8601, UTC, to the millisecond: 2026-11-24T17:50:00.123Z."""
    now = _dt.datetime.now(_dt.UTC)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


def hostname() -> str:
    return socket.gethostname()


def files_sha256(paths: Iterable[str | os.PathLike]) -> str | None:
    """One SHA-256 over the files' contents in the order given (None if one is missing)."""
    h = hashlib.sha256()
    for path in paths:
        try:
            with open(path, "rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    h.update(block)
        except OSError:
            return None
    return h.hexdigest()
