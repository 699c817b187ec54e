# SPDX-License-Identifier: GPL-2.0-only
"""Child processes that die with lanloss, and signals that unwind it.

A `kill -9` of lanloss runs no Python code, so nothing of ours can stop its children
then: the kernel must. ``die_with_parent`` asks it to (prctl PR_SET_PDEATHSIG, Linux),
in the child between fork and exec; the setting survives exec (not of set-user-ID
programs), so it covers `nsenter ... taskset ... lanloss-send` chains that exec. The
signal comes when the *thread* that forked the child ends: lanloss starts the children
that outlive a call (the tools, the LAN's keeper) from its main thread; a worker thread
(the per-host reads) waits for each child it starts before it ends.

``signals_unwind`` turns SIGTERM and SIGHUP into an exception like Ctrl-C, so `finally`
blocks and context managers (temporary folders, child processes) run on them too.
"""

from __future__ import annotations

import ctypes
import os
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

PR_SET_PDEATHSIG = 1


def _libc() -> Any:
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:  # pragma: no cover - not Linux
        return None


LIBC = _libc()  # this process's C library (ctypes), None where there is none


def die_with_parent(sig: int = signal.SIGKILL) -> Callable[[], None]:
    """A preexec_fn for subprocess.Popen: the child gets `sig` when this process dies."""
    parent = os.getpid()

    def preexec() -> None:
        if LIBC is not None:
            LIBC.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
        if os.getppid() != parent:  # the parent died before prctl: nothing would signal
            os._exit(1)

    return preexec


class Stopped(BaseException):
    """SIGTERM or SIGHUP received: unwinds like KeyboardInterrupt (not an Exception, so
    no `except Exception` swallows it)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _raise_stopped(signum: int, frame: Any) -> None:
    raise Stopped(signum)


@contextmanager
def signals_unwind() -> Iterator[None]:
    """SIGTERM/SIGHUP raise Stopped inside the block (SIGINT raises KeyboardInterrupt)."""
    sigs = (signal.SIGTERM, signal.SIGHUP)
    old = {s: signal.signal(s, _raise_stopped) for s in sigs}
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)
