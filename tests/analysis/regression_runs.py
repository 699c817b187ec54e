# SPDX-License-Identifier: GPL-2.0-only
"""The simulator side of shipped studies, made without Snakemake's per-job processes: the
points the workflow would run (lanloss.study, bed off), each by lanloss.sim.run_point (what
`lanloss sim run` calls), on as many threads as cores, then the workflow's own commands for
the table, the figures (`lanloss table`, `lanloss figures`) and the summary
(workflow/scripts/summary.py), in this process. Same points, seeds and commands: the same
files as `snakemake --config bed=off` writes, so they compare with the references the
workflow made. A study with a fit (the default study) gets its table and summary only: its
figures draw the fit, which takes minutes and is not the simulator's side.

    python tests/analysis/regression_runs.py RESULTS STUDY...   (e.g. seed004; `default` is
                                                                 config/config.yaml's study)
prints the error tables and summaries it wrote, one path a line. Run with another copy of
lanloss first on PYTHONPATH, it regenerates with that copy's presets (the mutation test).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEFAULT = "default"  # the study in config/config.yaml


def study_file(name: str) -> Path:
    if name == DEFAULT:
        return REPO / "config" / "config.yaml"
    return REPO / "config" / "studies" / f"{name}.yaml"


def _summary_script():
    """workflow/scripts/summary.py, the workflow's rule summary, as a module."""
    spec = importlib.util.spec_from_file_location(
        "lanloss_workflow_summary", REPO / "workflow" / "scripts" / "summary.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run_one(point, path: Path) -> None:
    from lanloss import sim
    from lanloss.record import dump_json, write_atomic

    write_atomic(str(path), dump_json(sim.run_point(point.params).to_dict()))


def regenerate(results: Path, names: list[str], jobs: int | None = None) -> dict[str, list[Path]]:
    """Every study's simulator runs, table, figures and summary under RESULTS (the
    workflow's layout); {study: [its error tables and its summary]}."""
    from lanloss import study as lstudy
    from lanloss.cli import main

    summary = _summary_script()
    studies = [lstudy.load(study_file(n)) for n in names]
    runs = {}
    for s in studies:
        folder = results / "runs" / s.name / "sim"
        folder.mkdir(parents=True, exist_ok=True)
        runs[s.name] = [(p, folder / f"{p.id}.json") for p in s.points_for("sim")]
    todo = [pp for s in studies for pp in runs[s.name]]
    todo.sort(key=lambda pp: -float(pp[0].params["duration"]))  # the long runs first
    with ThreadPoolExecutor(jobs or os.cpu_count() or 1) as pool:
        for future in [pool.submit(_run_one, p, path) for p, path in todo]:
            future.result()
    out = {}
    for s in studies:
        table = results / "tables" / f"{s.name}.parquet"
        table.parent.mkdir(parents=True, exist_ok=True)
        files = [str(path) for _, path in runs[s.name]]
        if main(["table", "--study", s.name, "--out", str(table), *files]) != 0:
            raise RuntimeError(f"lanloss table failed for {s.name}")
        made = []
        for fig in [] if s.fit else s.figures:
            folder = results / "figures" / s.name
            if main(["figures", fig, "--table", str(table), "--out", f"{folder}/"]) != 0:
                raise RuntimeError(f"lanloss figures {fig} failed for {s.name}")
            made.append(folder / f"{fig}-errors.csv")
        summary_csv = results / "tables" / f"{s.name}-summary.csv"
        summary.main(str(table), str(summary_csv), s.varied_options())
        out[s.name] = [*made, summary_csv]
    return out


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    for paths in regenerate(Path(sys.argv[1]), sys.argv[2:]).values():
        for path in paths:
            print(path)
