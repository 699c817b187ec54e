# SPDX-License-Identifier: GPL-2.0-only
"""Progress on a terminal (rich), nothing otherwise: for what makes a person wait
(`sim run`, the fit's bootstrap, `figures`). Always on stderr, so stdout stays the
result (a run record, a plan)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


def wanted(flag: bool | None) -> bool:
    """--progress/--no-progress, else: stderr is a terminal."""
    return sys.stderr.isatty() if flag is None else bool(flag)


class _Quiet:
    def advance(self, n: float = 1) -> None:
        pass

    def describe(self, text: str) -> None:
        pass


class _Bar:
    def __init__(self, progress: Any, task: Any) -> None:
        self.progress, self.task = progress, task

    def advance(self, n: float = 1) -> None:
        self.progress.update(self.task, advance=n)

    def describe(self, text: str) -> None:
        self.progress.update(self.task, description=text)


@contextmanager
def task(enabled: bool, label: str, total: float | None = None) -> Iterator[Any]:
    """A bar (total known) or a spinner with the elapsed time; `.advance()`, `.describe()`."""
    if not enabled:
        yield _Quiet()
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    columns: list[Any] = [SpinnerColumn(), TextColumn("[bold]lanloss[/] {task.description}")]
    if total is not None:
        columns += [BarColumn(), MofNCompleteColumn()]
    columns.append(TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as progress:
        yield _Bar(progress, progress.add_task(label, total=total))


@contextmanager
def sim_progress(enabled: bool, params: dict[str, Any]) -> Iterator[None]:
    """A spinner while the scenario program runs (it reports nothing until it ends)."""
    what = f"sim: {params.get('duration', 0):g}s of traffic, {params.get('topology')}"
    with task(enabled, what):
        yield


def add_args(parser: Any) -> None:
    """--progress / --no-progress on a command (default: when stderr is a terminal)."""
    parser.add_argument(
        "--progress",
        dest="progress",
        action="store_true",
        default=None,
        help="show progress [default: when stderr is a terminal]",
    )
    parser.add_argument("--no-progress", dest="progress", action="store_false")
