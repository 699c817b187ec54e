# SPDX-License-Identifier: GPL-2.0-only
"""Workflow speed: the default study's wall time by stage, and Snakemake's overhead per job.

1. Overhead per job, measured side by side in one run (interleaved, median of --reps):
   the same N simulation points (`lanloss sim run`, 50 ms simulated each) run
   (a) directly, one after the other, by this script, and (b) by the workflow with
   `--cores 1`, in a fresh working directory. Overhead per job =
   (workflow wall - workflow start-up - direct wall) / N, where start-up is the wall time
   of the same workflow invocation once everything is done ("Nothing to be done": parse,
   validation, DAG). The same with N trivial jobs (`true`) shows Snakemake alone.
2. The default study (config/config.yaml, or --study NAME) from scratch in a temporary
   working directory (never the repository's results/), one stage after the other with
   `--until`, each timed: sim points, bed points (root: the first round's seeds), the
   repetitions' rounds with their further testbed runs and the table + summary, fit,
   figures, the rest of the default target (validate, holdout, versions), report. Per
   stage: jobs, wall seconds (minus the start-up), the sum of the jobs' own seconds from
   their `benchmark:` files, and the overhead per job: (stage wall x lanes - job seconds)
   / jobs, lanes being how many of the stage's jobs can run at once (--cores for sim points
   and figures, 1 for the serialised testbed, the table and the fit); on a study of a few
   jobs the start-up's own spread swamps it. A stage that fails says why.

    .venv/bin/python bench/workflow_speed.py                # ~6 min: part 1 + the default study
    .venv/bin/python bench/workflow_speed.py --skip-study   # part 1 only (~1 min)
    .venv/bin/python bench/workflow_speed.py --study tiny

Prints a table per part and, last, one JSON line with every number.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SNAKEMAKE = [sys.executable, "-m", "snakemake", "-s", str(ROOT / "Snakefile")]
LANLOSS = [sys.executable, "-m", "lanloss.cli"]

# Stages of the workflow, in data-flow order: (name, --until rules; none: the default
# target). `--until` cannot stop between a checkpoint's rounds, nor take the rounds' or the
# validations' rules with others (Snakemake #823), so the repetitions' further testbed runs
# fall in the table's stage, and what the default target still lacks after the figures
# (validate, holdout, versions) is one stage.
STAGES = [
    ("sim", ["sim_point"]),
    ("bed", ["bed_point"]),
    ("rounds+table", ["summary"]),  # `--until table summary` trips #823
    ("fit", ["fit"]),
    ("figures", ["figure"]),
    ("rest", []),
]


def timed(
    cmd: list[str], cwd: Path, check: bool = True
) -> tuple[float, subprocess.CompletedProcess]:
    t0 = time.monotonic()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if check and proc.returncode != 0:
        sys.exit(f"workflow_speed: {shlex.join(cmd[:6])}... failed:\n{proc.stderr[-3000:]}")
    return wall, proc


def study_yaml(n: int) -> str:
    rates = ", ".join(f"{40 + 10 * i}Mbps" for i in range(n))
    return (
        "name: bench\nsource: [sim]\n"
        "fixed: {sender_rate: 1Gbps, duration: 50ms, warmup: 5ms}\n"
        f"grid:\n  rate: [{rates}]\n"
    )


TRIVIAL = """
rule all:
    input: expand("out/{{i}}.txt", i=range({n}))

rule one:
    output: "out/{{i}}.txt"
    shell: "true > {{output}}"
"""


def overhead(reps: int, n: int) -> dict:
    """Part 1: per-job overhead against running the same commands directly."""
    from lanloss import study as lstudy

    rows: dict[str, list[float]] = {k: [] for k in ("direct", "wf", "startup", "triv", "tstart")}
    for _ in range(reps):
        with tempfile.TemporaryDirectory(prefix="lanloss-bench-wf-") as tmp:
            wd = Path(tmp)
            (wd / "bench.yaml").write_text(study_yaml(n))
            st = lstudy.load(wd / "bench.yaml")
            t0 = time.monotonic()
            for p in st.points:  # (a) direct, the same commands the rule runs
                out = wd / "direct" / f"{p.id}.json"
                subprocess.run(
                    [*LANLOSS, "sim", "run", *p.cli_args(), "--out", str(out)], check=True
                )
            rows["direct"].append(time.monotonic() - t0)
            cmd = [*SNAKEMAKE, "-d", str(wd), "runs", "--cores", "1"]
            cmd += ["--config", "studies=[bench.yaml]"]
            rows["wf"].append(timed(cmd, wd)[0])  # (b) the workflow
            rows["startup"].append(timed(cmd, wd)[0])  # nothing to do: parse + DAG

            (wd / "triv").mkdir()
            (wd / "triv" / "Snakefile").write_text(TRIVIAL.format(n=n))
            tcmd = [sys.executable, "-m", "snakemake", "-d", str(wd / "triv"), "--cores", "1"]
            tcmd += ["-s", str(wd / "triv" / "Snakefile")]
            rows["triv"].append(timed(tcmd, wd)[0])
            rows["tstart"].append(timed(tcmd, wd)[0])
    med = {k: statistics.median(v) for k, v in rows.items()}
    return {
        "jobs": n,
        "reps": reps,
        "direct_s": round(med["direct"], 3),
        "workflow_s": round(med["wf"], 3),
        "startup_s": round(med["startup"], 3),
        "overhead_per_job_s": round((med["wf"] - med["startup"] - med["direct"]) / n, 4),
        "direct_per_job_s": round(med["direct"] / n, 4),
        "trivial_s": round(med["triv"], 3),
        "trivial_startup_s": round(med["tstart"], 3),
        "trivial_per_job_s": round((med["triv"] - med["tstart"]) / n, 4),
    }


def first_error(wd: Path, output: str) -> str:
    """Why a stage failed: the last line of the first failed job's log, else Snakemake's."""
    for log in sorted((wd / "results" / "logs").rglob("*.log"), key=lambda p: p.stat().st_mtime):
        lines = log.read_text(errors="replace").strip().splitlines()
        if lines and ("error" in lines[-1].lower() or "Traceback" in "".join(lines)):
            return f"{log.relative_to(wd)}: {lines[-1][:160]}"
    said = [ln for ln in output.splitlines() if "rror" in ln or ln.startswith("BUG")]
    return (said or ["failed"])[0][:200]


def stages(study: str, cores: int) -> dict:
    """Part 2: one study from scratch, stage by stage."""
    result: dict = {"study": study, "cores": cores, "stages": {}}
    with tempfile.TemporaryDirectory(prefix="lanloss-bench-study-") as tmp:
        wd = Path(tmp)
        base = [*SNAKEMAKE, "-d", str(wd), "--cores", str(cores), "--resources", "testbed=1"]
        # its own namespace prefix: a concurrent `lanloss bed run` elsewhere holds "lanloss-"
        cfg = ["--config", f"studies=[{study}]", "bed_args=--prefix llbench-"]
        bench = wd / "results" / "benchmarks" / study
        t_all = time.monotonic()
        startup, _ = timed([*base, "-n", *cfg], wd)  # parse, validation, DAG of the whole study
        for name, rules in STAGES:
            before = set(bench.rglob("*.tsv")) if bench.exists() else set()
            until = ["--until", *rules] if rules else []
            wall, proc = timed([*base, *until, *cfg], wd, check=False)
            new = (set(bench.rglob("*.tsv")) if bench.exists() else set()) - before
            job_s = []
            for f in new:
                with open(f) as fh:
                    job_s += [float(r["s"]) for r in csv.DictReader(fh, delimiter="\t")]
            # sim points and figures run `cores` at a time; the testbed one at a time
            # (resource testbed=1), the summary after its table, one fit per study;
            # what the jobs' own seconds do not fill is the workflow's cost per job
            lanes = max(1, min(cores, len(new))) if name in ("sim", "figures", "rest") else 1
            spare = (wall - startup) * lanes - sum(job_s)
            entry = {
                "jobs": len(new),
                "wall_s": round(wall - startup, 2),
                "job_s": round(sum(job_s), 2),
                "overhead_per_job_s": round(spare / len(new), 3) if new else None,
            }
            if proc.returncode != 0:
                entry["error"] = first_error(wd, proc.stdout + proc.stderr)
            result["stages"][name] = entry
        wall, proc = timed([*base, "--report", "results/report.zip", *cfg], wd, check=False)
        result["stages"]["report"] = {"jobs": 0, "wall_s": round(wall - startup, 2), "job_s": 0.0}
        if proc.returncode != 0:
            result["stages"]["report"]["error"] = proc.stderr.strip().splitlines()[-1][:200]
        result["total_wall_s"] = round(time.monotonic() - t_all, 1)
        result["startup_s"] = round(startup, 2)
    return result


def overhead_report(reps: int, jobs: int) -> dict:
    o = overhead(reps, jobs)
    print(f"Part 1: Snakemake overhead per job ({o['jobs']} jobs, --cores 1, median of {reps})")
    direct, per = o["direct_s"], o["direct_per_job_s"]
    print(f"  {o['jobs']} x `lanloss sim run` directly : {direct:7.2f} s ({per:.3f} s/job)")
    wf, start = o["workflow_s"], o["startup_s"]
    print(f"  the same points by the workflow : {wf:7.2f} s, of which start-up {start:.2f} s")
    print(f"  overhead per job                : {o['overhead_per_job_s']:7.3f} s")
    print(
        f"  {o['jobs']} trivial jobs (`true`)         : {o['trivial_s']:7.2f} s, start-up "
        f"{o['trivial_startup_s']:.2f} s -> {o['trivial_per_job_s']:.3f} s/job"
    )
    return o


def study_report(study: str, cores: int) -> dict:
    s = stages(study, cores)
    print(f"\nPart 2: study {s['study']} from scratch, --cores {s['cores']}, stage by stage")
    print(f"  start-up (parse, validate, DAG): {s['startup_s']:.2f} s per invocation")
    print("  stage           jobs   wall s   sum of job s   overhead/job s")
    for name, e in s["stages"].items():
        note = f"   ({e['error']})" if "error" in e else ""
        per = "" if e.get("overhead_per_job_s") is None else f"{e['overhead_per_job_s']:.3f}"
        print(f"  {name:14s} {e['jobs']:5d} {e['wall_s']:8.1f} {e['job_s']:12.1f} {per:>16s}{note}")
    print(f"  total wall {s['total_wall_s']:.1f} s (each stage's wall is without the start-up)")
    return s


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--reps", type=int, default=3, help="repetitions of part 1 (median)")
    p.add_argument("--jobs", type=int, default=12, help="jobs in part 1")
    p.add_argument("--study", default="default", help="study of part 2 (a name in config/)")
    p.add_argument("--cores", type=int, default=os.cpu_count() or 1)
    p.add_argument("--skip-study", action="store_true", help="part 1 only")
    p.add_argument("--skip-overhead", action="store_true", help="part 2 only")
    a = p.parse_args()
    summary: dict = {}
    if not a.skip_overhead:
        summary["overhead"] = overhead_report(a.reps, a.jobs)
    if not a.skip_study:
        summary["study"] = study_report(a.study, a.cores)
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
