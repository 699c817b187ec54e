# SPDX-License-Identifier: GPL-2.0-only
"""What a refused command must look like, shared by the bad-input tests.

A bad input ends with exit 2 and one line on stderr naming the value; `assert_refused`
adds the rules of the bad-input tables (test_bad_inputs.py, test_validation_more.py):
no traceback, nothing on stdout, nothing written or removed, the testbed not started.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


def refusal_line(res: subprocess.CompletedProcess, code: int = 2) -> str:
    """The one stderr line of a command that ended with exit @code."""
    assert res.returncode == code, (res.returncode, res.stderr)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    return lines[0]


def assert_sim_run_refused(cli, out_dir: Path, args: list[str], named: str) -> None:  # type: ignore[no-untyped-def]
    """`lanloss sim run ARGS --out F` exits 2 with one line naming @named; F is not written."""
    out = out_dir / "run.json"
    proc = cli("sim", "run", *args, "--out", str(out))
    assert named in refusal_line(proc)
    assert not out.exists()


def tree(root: Path) -> dict[str, bytes]:
    """Every path below @root with its bytes (b"" for a folder)."""
    return {
        str(p.relative_to(root)): (b"" if p.is_dir() else p.read_bytes())
        for p in sorted(root.rglob("*"))
    }


def lanloss(  # type: ignore[no-untyped-def]
    args: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = 300, **kw
) -> subprocess.CompletedProcess:
    """The real `lanloss ARGS...` run in @cwd."""
    return subprocess.run(
        [sys.executable, "-m", "lanloss.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env=env or {**os.environ},
        **kw,
    )


def broken_copies(good: dict, changes: dict[str, Callable[[dict], Any]]) -> dict[str, str]:
    """For each name, the JSON text of a copy of @good that its function changed."""
    out = {}
    for name, change in changes.items():
        d = json.loads(json.dumps(good))
        change(d)
        out[name] = json.dumps(d)
    return out


def case_ids(cases: list[tuple[list[str], object]]) -> list[str]:
    """Test ids of a bad-input table: the case's number and its first two words."""
    return [f"{i:02d}-{'-'.join(a[:2])}" for i, (a, _) in enumerate(cases)]


def _namespaces() -> set[str]:
    return set(os.listdir("/run/netns")) if os.path.isdir("/run/netns") else set()


def assert_refused(
    args: list[str], words: tuple[str, ...], workdir: Path, tmp_path: Path, prefix: str
) -> None:
    """`lanloss ARGS` in @workdir is refused in one line naming every one of @words, and
    leaves no trace: @workdir unchanged, no journal or lock, no namespace named @prefix...,
    no temporary folder."""
    state = tmp_path / "state"
    state.mkdir()
    env = {**os.environ, "LANLOSS_STATE_DIR": str(state), "TMPDIR": str(tmp_path)}
    before = tree(workdir)
    ns_before = _namespaces()
    res = lanloss(args, workdir, env)
    line = refusal_line(res)
    assert line.startswith("lanloss: error:"), line
    for word in words:
        assert word in line, (word, line)
    assert "Traceback" not in res.stderr
    assert res.stdout == ""
    assert tree(workdir) == before  # nothing written, nothing removed
    assert list(state.iterdir()) == []  # no journal, no lock: the testbed was not started
    assert not [n for n in _namespaces() - ns_before if n.startswith(prefix)]
    assert [p.name for p in tmp_path.iterdir()] == ["state"]  # no temporary folder left
