# SPDX-License-Identifier: GPL-2.0-only
"""testbed/quota_periods.py: the slow receiver's intake per CPU-quota period, from the
receiver's own per-datagram log (kept from the harness), on the netns testbed."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
TOOL = REPO / "testbed" / "quota_periods.py"
sys.path.insert(0, str(TOOL.parent))
import quota_periods  # noqa: E402 (testbed/, a script's folder)

PREFIX = "lanloss-qptest-"


def _tool(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(TOOL), *args], capture_output=True, text=True, timeout=120, cwd=REPO
    )


def test_the_intake_is_counted_between_throttles_without_the_cut_ends():
    ms = 1_000_000
    # 3 datagrams, a 20 ms throttle, 4, another, 5, another, 2: the first and last runs
    # are cut by the traffic's start and end
    times, t = [], 0
    for n in (3, 4, 5, 2):
        for _ in range(n):
            times.append(t)
            t += ms // 2  # 0.5 ms apart: no throttle
        t += 20 * ms
    counts = quota_periods.intake_per_period(np.array(times))
    assert counts.tolist() == [4, 5]
    # a gap just under GAP_S is no throttle; at it, one
    gap = int(quota_periods.GAP_S * 1e9)
    assert quota_periods.intake_per_period(np.array([0, gap - 1, 2 * gap])).tolist() == []
    assert quota_periods.intake_per_period(np.array([0, gap, 2 * gap, 3 * gap])).tolist() == [1, 1]
    assert quota_periods.intake_per_period(np.array([5])).tolist() == []


def test_the_costs_are_solved_from_periods_that_each_used_the_quota():
    """Periods made with a known cost per datagram and per call give them back; a call is
    the datagrams that share a stamp, and a period spanning two quotas is left out."""
    per_datagram, per_call = 51e-6, 10e-6
    rows = []
    for calls_per_datagram in (0.6, 0.7, 0.8):
        n = quota_periods.QUOTA_S / (per_datagram + calls_per_datagram * per_call)
        rows.append([n, calls_per_datagram * n])
    got = quota_periods.costs(np.array(rows))
    assert got == pytest.approx((per_datagram, per_call), rel=1e-9)
    ms = 1_000_000
    stamps = [0, 0, 1, 20 * ms, 20 * ms, 20 * ms + 1, 40 * ms, 40 * ms, 41 * ms]  # 3, 2 calls
    stamps += [60 * ms + i for i in range(9)] + [90 * ms]  # 9 datagrams: twice the median
    rows = quota_periods.datagrams_and_calls(np.array(stamps))
    assert rows.tolist() == [[3, 2], [3, 2]]


def _noisy_periods(calls_per_datagram, rng, per_datagram=51e-6, per_call=10e-6):
    """A period per calls-per-datagram value, its intake off the exact one by 1 % sd."""
    rows = []
    for c in calls_per_datagram:
        n = quota_periods.QUOTA_S / (per_datagram + c * per_call) * rng.normal(1.0, 0.01)
        rows.append([n, c * n])
    return np.array(rows)


def test_the_costs_are_given_with_errors_only_where_the_periods_separate_them():
    """Calls per datagram spread over 0.5-0.9 separate a call's cost from a datagram's: both
    are given with standard errors that hold the truth. Spread over 0.60-0.62 they do not:
    the line says so and gives a datagram's cost with its calls' share, which stays
    measured (quota over the mean intake)."""
    rng = np.random.default_rng(7)
    wide = _noisy_periods(np.linspace(0.5, 0.9, 60), rng)
    (a, b), (se_a, se_b) = quota_periods.costs(wide), quota_periods.standard_errors(wide)
    assert abs(a - 51e-6) < 3 * se_a and abs(b - 10e-6) < 3 * se_b
    line = quota_periods.cost_line(wide)
    assert line.startswith("over 60 periods of 20 ms of CPU: ") and line.endswith(" us per call")
    assert "+-" in line and "not separated" not in line
    narrow = _noisy_periods(np.linspace(0.60, 0.62, 60), rng)
    line = quota_periods.cost_line(narrow)
    assert "not separated (calls per datagram 0.60-0.62" in line
    share = float(line.rsplit("calls' share ", 1)[1].split()[0])
    assert share == pytest.approx(51 + 0.61 * 10, rel=0.01)
    assert quota_periods.standard_errors(wide[:2]) == (math.inf, math.inf)


def test_without_a_cgroup_quota_it_says_so_and_counts_no_periods():
    """SCHED_IDLE (no cpu controller) slows the reader only when something else runs: the
    record has no cpu.stat, so there are no quota periods to count."""
    reader = {"readers": [{"received": 5}], "scheduling": {"calls": 5}}
    record = {
        "params": {"rate": 40e6},
        "env": {"hosts": {"r1": {"cpu_limit": {"method": "sched-idle"}}}},
        "extra": {"tool_reports": {"receivers": {"r1": reader}}, "cpu_stat": {"r1": {}}},
    }
    text = quota_periods.describe(record, np.arange(5))
    assert (
        text == "40 Mbit/s: no CPU quota was enforced here (method sched-idle): no periods to count"
    )


@pytest.mark.parametrize(
    "args, word",
    [
        (["0Mbps"], "'0Mbps'"),
        (["fast"], "'fast'"),
        (["40Mbps", "--duration", "0s"], "'0s'"),
        (["40Mbps", "--prefix", "a b"], "'a b'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2_before_any_host(args, word, tmp_path):
    out = tmp_path / "out"
    cp = _tool(str(out), *args, *([] if "--prefix" in args else ["--prefix", PREFIX]))
    assert cp.returncode == 2 and cp.stdout == ""
    lines = cp.stderr.strip().splitlines()
    assert len(lines) == 1 and word in lines[0], cp.stderr
    assert not out.exists()
    ns = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert PREFIX not in ns


@pytest.mark.netns
@pytest.mark.skipif(os.geteuid() != 0, reason="needs root (network namespaces)")
def test_past_the_knee_every_datagram_read_is_in_the_log_and_the_periods(tmp_path):
    """80 Mbit/s into a reader held to 20 % of a CPU with 50 us of work per datagram: it
    cannot keep up, so its cgroup is throttled and it reads in bursts, one per period."""
    cp = _tool(str(tmp_path), "80Mbps", "40Mbps", "--duration", "1s", "--prefix", PREFIX)
    assert cp.returncode == 0, cp.stderr
    record = json.loads((tmp_path / "rate80000000.json").read_text())
    limit = record["env"]["hosts"]["r1"]["cpu_limit"]
    if not limit.get("quota_enforced"):
        assert "no CPU quota was enforced" in cp.stdout
        pytest.skip(f"no cgroup CPU quota on this machine ({limit.get('method')})")
    reader = record["extra"]["tool_reports"]["receivers"]["r1"]
    received = reader["readers"][0]["received"]
    lines = cp.stdout.splitlines()
    assert lines[0].startswith("80 Mbit/s: loss ") and "periods" in lines[0]
    # the log kept from the harness holds every datagram the reader read
    assert lines[0].endswith(f"; {received} datagrams in the log") and received > 0
    cpu = record["extra"]["cpu_stat"]["r1"]
    assert cpu["nr_throttled"] >= 5  # a 1 s run has ~10 periods, past the knee most throttle
    assert "intake per period" in lines[1]
    n = int(lines[1].split("(")[1].split()[0])
    assert 3 <= n <= cpu["nr_periods"]
    # both rates' periods pooled: the cost per datagram and per call, or, where the
    # periods do not separate them, a datagram's with its calls' share
    assert lines[-1].startswith("over ")
    assert lines[-1].endswith(" us per call") or "not separated" in lines[-1]
    ns = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert PREFIX not in ns
