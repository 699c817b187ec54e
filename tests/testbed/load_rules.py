# SPDX-License-Identifier: GPL-2.0-only
"""How a test of real-time measurements tells the code from the machine's load.

A run is judged only when the machine let it be the run its options describe, by the rules
the fit and the validation use to leave runs out (lanloss.analysis.fit.disturbed): the
sender reached its rate (``offered_met``) and kept its pattern (no catch-up burst larger
than a switch port holds), and no receiver was kept off the CPU for longer than its socket
buffer lasts (``recv_stalled``); and the hypervisor left the CPUs alone (steal, which no
record can see). A test runs up to ``ATTEMPTS`` times: the first undisturbed run that
passes its check passes; if none passed, the last undisturbed failure is raised (a run the
machine left alone that is off is the code's); only when every run was disturbed is the
test skipped, saying what disturbed each. The checks judge at the rate the run achieved
(its record or report), never at a wall-clock time.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import pandas as pd
import pytest

from lanloss.analysis import fit, tables
from lanloss.record import RunRecord
from lanloss.testbed import clocks, steal
from lanloss.testbed.run_record import buffer_lasts_s
from lanloss.totals import Receiver, Stream

ATTEMPTS = 3
STEAL_MAX = 0.01  # of the CPUs' time the hypervisor may take during a timing-bound run

T = TypeVar("T")


def cpu_jiffies() -> tuple[int, int]:
    """(steal, total) jiffies of all CPUs so far (lanloss.testbed.steal)."""
    j = steal.read()
    return j.steal, j.total


def record_disturbance(rec: RunRecord) -> list[str]:
    """Why the fit and the validation would leave this run out as disturbed (their own
    rule, on the record's table rows); empty when the machine let it be."""
    df = pd.DataFrame(tables.rows_of(rec, "run.json", "test"))
    return [reason for reason, bad in fit.disturbed(df).items() if bad.any()]


def tools_disturbance(
    send: dict[str, Any], recv: dict[str, Any], duration: float, mtu: int = 1500
) -> list[str]:
    """The same rules on the C tools' own reports (no record, no switch): the sender's
    schedule kept (lanloss.totals.Stream.met) and the receiver not stalled longer than
    its socket buffer lasts (lanloss.totals.Receiver.stalled)."""
    payload, rate = int(send["payload"]), float(send["rate_bps"])
    span = max(0, int(send["end_ns"]) - int(send["start_ns"])) / 1e9
    late = float((send.get("pacing") or {}).get("max_late_us") or 0.0) / 1e6
    attempted = int(send["sent"]) + sum(int(v) for v in (send.get("send_errors") or {}).values())
    out = []
    if Stream(rate, attempted, span, send["pattern"], late).met(payload, duration) is False:
        out.append(fit.UNMET)
    stall = (recv.get("scheduling") or {}).get("max_stall_us")
    if stall is not None:
        buffer_s = buffer_lasts_s(float(recv["rcvbuf_actual"]), payload, mtu, rate / (8 * payload))
        if Receiver(float(stall) / 1e6, buffer_s).stalled:
            out.append(fit.STALLED)
    return out


def judged(
    run: Callable[[int], T],
    disturbance: Callable[[T], Iterable[str]],
    check: Callable[[T], None],
    attempts: int = ATTEMPTS,
    steal_max: float = STEAL_MAX,
    decided_by_check: Iterable[str] = (),
) -> T:
    """Up to ``attempts`` runs (``run(i)``), judged by ``check`` unless disturbed (see the
    module docstring). Reasons in ``decided_by_check`` do not count as disturbance: the
    check itself judges them (a test of whether a switch pushes back on its sender must
    see a sender that fell short)."""
    failure: AssertionError | None = None
    why: list[str] = []
    ignore = set(decided_by_check)
    for i in range(attempts):
        steal0, total0 = cpu_jiffies()
        outcome = run(i)
        steal1, total1 = cpu_jiffies()
        stolen = (steal1 - steal0) / max(total1 - total0, 1)
        reasons = [r for r in disturbance(outcome) if r not in ignore]
        if stolen > steal_max:
            reasons.append(f"the hypervisor took {stolen:.1%} of the CPUs (steal)")
        if reasons:
            why.append("; ".join(reasons))
            continue
        try:
            check(outcome)
            return outcome
        except AssertionError as exc:
            failure = exc
    if failure is not None:
        raise failure  # a run the machine left alone, and it was off: that is the code
    pytest.skip(f"the machine disturbed all {attempts} runs: " + " | ".join(why))


# `bed check`'s verdict on a pair of clocks, as it reads when the two share one clock
# (namespaces of one kernel) but the ping-pong's smallest round trip was long (a busy
# machine, steal): the offset is within its bound, and only the bound is above the bar.
_WIDE_BOUND = re.compile(
    r"unsynchronized, (offset ([-+][\d.]+) us ± ([\d.]+) us \(ping-pong\)) \(want [^)]*\)"
)


def _wide_bound_only(m: re.Match[str]) -> bool:
    """An offset within its bound (one clock) and within the offset's bar: the bound alone
    failed its bar (it prints rounded to 0.1 us, so it may read 10.0)."""
    offset_us, bound_us = float(m[2]), float(m[3])
    return abs(offset_us) <= bound_us + 0.1 and abs(offset_us) * 1e3 <= clocks.CHECK_MAX_OFFSET_NS


def shared_clock_as_on_idle(text: str) -> str:
    """@text with each clock verdict that only a wide bound made "unsynchronized" read as on
    an idle machine (the offset and its bound, nothing else); any other verdict unchanged."""
    return _WIDE_BOUND.sub(lambda m: m[1] if _wide_bound_only(m) else m[0], text)


def without_wide_bound_warnings(lines: Iterable[str]) -> list[str]:
    """`bed check`'s findings without the clock warnings only a wide bound caused."""
    return [x for x in lines if not ((m := _WIDE_BOUND.search(x)) and _wide_bound_only(m))]
