# SPDX-License-Identifier: GPL-2.0-only
"""Progress (rich) where a person waits: on a terminal, and only there."""

from __future__ import annotations

import os
import select
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SIM = ["sim", "run", "--rate", "10Mbps", "--duration", "0.2s", "--warmup", "0.01s"]


def _with_terminal(args: list[str], cwd: Path) -> tuple[int, str]:
    """Run `lanloss ARGS` with stderr on a pseudo-terminal; (exit code, what it showed)."""
    master, slave = os.openpty()
    env = {**os.environ, "TERM": "xterm", "COLUMNS": "100"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "lanloss.cli", *args],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=slave,
        env=env,
    )
    os.close(slave)
    shown = b""
    while True:
        ready, _, _ = select.select([master], [], [], 1.0)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the terminal closed: the process is gone
                break
            if not chunk:
                break
            shown += chunk
        elif proc.poll() is not None:
            break
    os.close(master)
    return proc.wait(), shown.decode(errors="replace")


def test_sim_run_shows_progress_on_a_terminal(tmp_path, built):
    code, shown = _with_terminal([*SIM, "--out", str(tmp_path / "r.json")], tmp_path)
    assert code == 0, shown
    assert "lanloss" in shown and "sim: 0.2s of traffic" in shown


def test_sim_run_is_quiet_when_stderr_is_not_a_terminal(tmp_path, built):
    res = subprocess.run(
        [sys.executable, "-m", "lanloss.cli", *SIM, "--out", str(tmp_path / "r.json")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert res.returncode == 0, res.stderr
    assert res.stderr == ""


def test_fit_and_figures_show_progress_on_a_terminal(tmp_path, built):
    rec = tmp_path / "r.json"
    assert (
        subprocess.run(
            [sys.executable, "-m", "lanloss.cli", *SIM[:2], "--rate", "120Mbps", *SIM[4:]]
            + ["--out", str(rec)],
            cwd=tmp_path,
        ).returncode
        == 0
    )
    table = tmp_path / "t.parquet"
    assert (
        subprocess.run(
            [sys.executable, "-m", "lanloss.cli", "table", "--study", "p", "--out", str(table)]
            + [str(rec)],
            cwd=tmp_path,
            capture_output=True,
        ).returncode
        == 0
    )
    code, shown = _with_terminal(
        ["fit", str(table), "--out", str(tmp_path / "f.json"), "--bootstrap", "20"], tmp_path
    )
    assert code == 0, shown
    assert "fit:" in shown
    code, shown = _with_terminal(
        ["figures", "simbed", "--table", str(table), "--out", str(tmp_path / "fig")], tmp_path
    )
    assert code == 0, shown
    assert "simbed: drawing" in shown or "simbed: saving" in shown  # not the notes
