# SPDX-License-Identifier: GPL-2.0-only
"""Errors of the testbed harness.

Bad input (inventory, options) is ``lanloss.options.OptionError`` and is raised
before any host is touched (exit 2). What goes wrong while hosts are being used
is a ``BedError`` (exit 1): one line naming the host and what failed.
"""

from __future__ import annotations


class BedError(RuntimeError):
    """A run-time failure on a host or in the harness; the message is one line."""


class HostUnreachable(BedError):
    """A host did not answer (ssh exit 255, timeout, missing namespace)."""


class Cancelled(BaseException):
    """SIGTERM/SIGHUP during a run: unwinds like Ctrl-C so restore still runs."""
