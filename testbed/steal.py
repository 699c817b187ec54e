# SPDX-License-Identifier: GPL-2.0-only
"""The hypervisor's share of this machine's CPUs over an interval: /proc/stat's steal.

A guest's vCPU that the hypervisor deschedules does not run, and everything the netns and
vm backends emulate here runs on those vCPUs: the switch's shapers (whose timers then fire
late, so a port delivers less than its line rate), the paced senders, the receivers. No
process can see that from inside; the kernel counts it as steal time. ``share`` is the
stolen part of all CPUs' time between two readings (``None`` when the kernel counted no
time between them).
"""

from __future__ import annotations

from dataclasses import dataclass

PROC_STAT = "/proc/stat"
STEAL_FIELD = 7  # user nice system idle iowait irq softirq steal (guest, guest_nice: in user)


@dataclass(frozen=True)
class Jiffies:
    """All CPUs' stolen and total time so far, in clock ticks (USER_HZ)."""

    steal: int
    total: int


def read(path: str = PROC_STAT) -> Jiffies:
    """The first line of /proc/stat (all CPUs)."""
    with open(path, encoding="ascii") as fh:
        fields = [int(x) for x in fh.readline().split()[1:]]
    return Jiffies(fields[STEAL_FIELD], sum(fields[: STEAL_FIELD + 1]))


def share(before: Jiffies, after: Jiffies) -> float | None:
    """The stolen fraction of the CPUs' time from ``before`` to ``after``."""
    total = after.total - before.total
    return (after.steal - before.steal) / total if total > 0 else None
