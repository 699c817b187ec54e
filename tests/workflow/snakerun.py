# SPDX-License-Identifier: GPL-2.0-only
"""Helpers: running the real Snakemake workflow in a private working directory.

Every test runs `python -m snakemake -s <repo>/Snakefile -d <tmp>` with the interpreter of
the test session (the .venv), so results, logs and Snakemake's own metadata land in the
test's temporary folder and never in the repository's results/.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SNAKEFILE = REPO / "Snakefile"
STUDIES = REPO / "config" / "studies"


def config_args(config: dict[str, object]) -> list[str]:
    """{'studies': ['tiny'], 'bed': 'off'} -> ['--config', 'studies=[tiny]', 'bed=off']."""
    if not config:
        return []
    items = []
    for key, value in config.items():
        if isinstance(value, list | tuple):
            value = "[" + ",".join(str(v) for v in value) + "]"
        items.append(f"{key}={value}")
    return ["--config", *items]


def snakemake(
    workdir: Path,
    *args: str,
    config: dict[str, object] | None = None,
    timeout: float = 300,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess:
    """Run the workflow as a user would (targets and flags in args)."""
    cmd = [sys.executable, "-m", "snakemake", "-s", str(SNAKEFILE), "-d", str(workdir)]
    cmd += [*args, *config_args(config or {})]
    return subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=workdir,
        env={**os.environ, **(env or {})},
    )


def job_counts(output: str) -> dict[str, int]:
    """The 'Job stats' table Snakemake prints -> {rule: count} (empty: nothing to do)."""
    m = re.search(r"Job stats:\n(.*?)\n\s*\n", output + "\n\n", re.S)
    if not m:
        return {}
    counts = {}
    for line in m.group(1).splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            counts[parts[0]] = int(parts[1])
    return counts


def records(folder: Path) -> dict[str, dict]:
    """Every run record under folder, by file stem."""
    return {p.stem: json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))}


def mtimes(folder: Path) -> dict[str, int]:
    return {p.name: p.stat().st_mtime_ns for p in folder.glob("*.json")}


def is_root() -> bool:
    return os.geteuid() == 0


def finished_outputs(output: str) -> set[str]:
    """Outputs of the jobs Snakemake reported finished ('Finished jobid: N') in a log."""
    outputs = {}
    for m in re.finditer(
        r"^(?:local)?rule \w+:\n\s+output: (.+)\n(?:\s+\w+: .*\n)*?\s+jobid: (\d+)", output, re.M
    ):
        outputs[m.group(2)] = m.group(1)
    done = re.findall(r"^Finished jobid: (\d+)", output, re.M)
    return {outputs[j] for j in done if j in outputs}


def interrupted(cmd: list[str], cwd: Path, stop_after: Callable[[str], bool]) -> tuple[int, str]:
    """Run @cmd (a Snakemake command line) and press Ctrl-C once a line of its output makes
    @stop_after true; (its exit code, its whole output). It may end before that. Snakemake
    gets SIGINT's default disposition: a suite started in the background by a shell without
    job control (`nohup make test &`) has SIGINT ignored, Python keeps an ignored SIGINT
    ignored, and the Ctrl-C would do nothing. A Snakemake that has not said it is
    terminating a second after a Ctrl-C gets another, as a user would press it again (on a
    fast host one Ctrl-C between two short jobs was seen to go unanswered)."""
    proc = subprocess.Popen(
        cmd,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    log: list[str] = []
    stop = threading.Event()

    def read() -> None:
        for line in proc.stdout:
            log.append(line)
            if stop_after(line):
                stop.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        while not stop.is_set() and proc.poll() is None:
            stop.wait(0.05)
        for _ in range(5):
            if proc.poll() is not None or any("Terminating processes" in line for line in log):
                break
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                pass
        proc.wait(timeout=120)
        reader.join(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, "".join(log)
