# SPDX-License-Identifier: GPL-2.0-only
"""What the simulator speed benchmarks (sim_speed.py, host_speed.py) share: running a
program with the CPU time it used, a lanloss-sim record's speed, the summary of
repeated runs, the ratios of two models' speeds, and the printed table. Speed is
datagrams received per wall-second of Simulator::Run() as the program measures it
itself; CPU time (start-up included) is a cross-check."""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
from collections.abc import Callable, Sequence
from typing import Any


def child_cpu_seconds() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(cmd: list[str], bench: str, wrap: list[str] | None = None) -> tuple[str, float]:
    """Run cmd (under `wrap`, e.g. valgrind); its stdout and the CPU seconds it used. A
    failure ends the benchmark `bench` with the program's stderr."""
    cpu0 = child_cpu_seconds()
    proc = subprocess.run([*(wrap or []), *cmd], check=False, capture_output=True, text=True)
    cpu = child_cpu_seconds() - cpu0
    if proc.returncode != 0:
        sys.exit(f"{bench}: {cmd[0]} failed ({proc.returncode}):\n{proc.stderr}")
    return proc.stdout, cpu


def record_speed(rec: dict[str, Any], cpu: float) -> dict[str, Any]:
    """A lanloss-sim run record's counts and speed."""
    t = rec["timing"]
    packets = sum(fl["received"] for fl in rec["flows"])
    return {
        "sent": sum(fl["sent"] for fl in rec["flows"]),
        "packets": packets,
        "events": t["events"],
        "sim_s": t["simulated_s"],
        "wall_s": t["sim_wall_s"],
        "pps_wall": packets / t["sim_wall_s"],
        "cpu_s": cpu,
        "pps_cpu": packets / cpu,
    }


def summarize(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Repeated runs of one program and case: medians, extremes, the first run's counts."""
    med = statistics.median
    return {
        "pps_wall": med(r["pps_wall"] for r in runs),
        "pps_wall_min": min(r["pps_wall"] for r in runs),
        "pps_wall_max": max(r["pps_wall"] for r in runs),
        # whole-process CPU time, start-up included: a cross-check on a busy machine
        "pps_cpu": med(r["pps_cpu"] for r in runs),
        "packets": runs[0]["packets"],
        "sent": runs[0]["sent"],
        "events": runs[0]["events"],
        "events_per_packet": runs[0]["events"] / max(runs[0]["packets"], 1),
        "wall_s": [round(r["wall_s"], 4) for r in runs],
    }


def ratios(name: str, a: dict[str, Any], b: dict[str, Any]) -> dict[str, float]:
    """a's speed over b's (two summaries): `name` of the medians, `name`_best of each one's
    fastest run (the one least slowed by other processes), `name`_cpu of process CPU time."""
    return {
        name: a["pps_wall"] / b["pps_wall"],
        f"{name}_best": a["pps_wall_max"] / b["pps_wall_max"],
        f"{name}_cpu": a["pps_cpu"] / b["pps_cpu"],
    }


# One column of a printed table: its title, its alignment and width (">10"), the precision
# of its values (".0f", or "" for text) and its value in a result.
Column = tuple[str, str, str, Callable[[dict[str, Any]], Any]]


def _number(title: str, width: int, prec: str, value: Callable[[dict[str, Any]], Any]) -> Column:
    return (title, f">{max(width, len(title))}", prec, value)


def comparison_columns(
    first: Column, name: str, a: tuple[str, str], b: tuple[str, str]
) -> list[Column]:
    """The columns of a table of two models compared: `first` (what a row is), each one's
    median pps, the ratios `name` (ratios()), each one's events per datagram. `a`, `b`: the
    model's label and the key of its summary in a result."""
    (label_a, key_a), (label_b, key_b) = a, b
    return [
        first,
        _number(f"{label_a} pps", 10, ".0f", lambda r: r[key_a]["pps_wall"]),
        _number(f"{label_b} pps", 10, ".0f", lambda r: r[key_b]["pps_wall"]),
        _number(name, 5, ".2f", lambda r: r[name]),
        _number(f"ev/pkt {label_a}", 6, ".2f", lambda r: r[key_a]["events_per_packet"]),
        _number(f"ev/pkt {label_b}", 6, ".2f", lambda r: r[key_b]["events_per_packet"]),
        _number(f"{name} best", 5, ".2f", lambda r: r[f"{name}_best"]),
        _number(f"{name} cpu", 5, ".2f", lambda r: r[f"{name}_cpu"]),
    ]


def print_table(columns: Sequence[Column], results: list[dict[str, Any]], sep: str) -> None:
    """The titles, a rule as long as they are, and a line per result; columns joined by `sep`."""
    header = sep.join(f"{title:{width}}" for title, width, _, _ in columns)
    print(header)
    print("-" * len(header))
    for r in results:
        print(sep.join(f"{value(r):{width}{prec}}" for _, width, prec, value in columns))
