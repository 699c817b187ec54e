# SPDX-License-Identifier: GPL-2.0-only
"""A slow receiver: CPU quota for the receiving process (option recv_cpu).

Preference order, detected on the host that runs the receiver:

1. cgroup v2 ``cpu.max`` when the cpu controller is enabled for children of
   the root (``cgroup.subtree_control``); we do not enable it ourselves;
2. cgroup v1 ``cpu.cfs_quota_us`` (this machine: v2 has only hugetlb,
   docs/testbed.md §3);
3. no cpu controller: SCHED_IDLE (``chrt --idle 0``). That is a scheduling
   class, not a quota: the receiver is slowed only when something else wants
   the CPU, and the record says so.

The process joins the cgroup by writing its own PID before it enters the
network namespace (transport.JOIN_CGROUP), because ``ip netns exec`` would hide
/sys/fs/cgroup. Cgroups are named ``<prefix><host>`` so a stale one from a
crashed run is found by name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lanloss.testbed.errors import BedError
from lanloss.testbed.machines import Host

V1_ROOT = "/sys/fs/cgroup/cpu"
V2_ROOT = "/sys/fs/cgroup"
PERIOD_US = 100_000


@dataclass
class CpuLimit:
    method: str  # cgroup-v2 | cgroup-v1 | sched-idle
    percent: int
    path: str | None = None  # the cgroup folder
    procs_file: str | None = None  # a process writes its PID here to join
    pre: list[str] = field(default_factory=list)  # exec wrapper (sched-idle)

    def describe(self) -> dict[str, Any]:
        d: dict[str, Any] = {"method": self.method, "percent": self.percent, "cgroup": self.path}
        d["quota_enforced"] = self.method != "sched-idle"
        if self.method.startswith("cgroup"):
            d["period_us"] = PERIOD_US
            d["quota_us"] = self.percent * PERIOD_US // 100
        return d


def detect(host: Host) -> str:
    """Which mechanism the host offers: cgroup-v2, cgroup-v1 or sched-idle."""
    res = host.transport.run_many(
        [
            ["cat", f"{V2_ROOT}/cgroup.subtree_control"],
            ["test", "-w", f"{V1_ROOT}/cpu.cfs_quota_us"],
        ]
    )
    if res[0].ok and "cpu" in res[0].out.split():
        return "cgroup-v2"
    if res[1].ok:
        return "cgroup-v1"
    return "sched-idle"


def create(host: Host, name: str, percent: int, journal: Any) -> CpuLimit:
    """A cgroup limiting its members to `percent` of one CPU (journalled before mkdir)."""
    method = detect(host)
    if method == "sched-idle":
        return CpuLimit(method, percent, pre=["chrt", "--idle", "0"])
    quota = percent * PERIOD_US // 100
    if method == "cgroup-v2":
        path = f"{V2_ROOT}/{name}"
        writes = [("cpu.max", f"{quota} {PERIOD_US}")]
    else:
        path = f"{V1_ROOT}/{name}"
        writes = [("cpu.cfs_period_us", str(PERIOD_US)), ("cpu.cfs_quota_us", str(quota))]
    journal.record("cgroups", {"host": host.name, "path": path})
    remove_cgroup(host, path)  # a stale one of the same name
    host.transport.run_ok(["mkdir", path])
    for fname, value in writes:
        host.transport.run_ok(["sh", "-c", 'printf "%s\\n" "$1" > "$0"', f"{path}/{fname}", value])
    return CpuLimit(method, percent, path, f"{path}/cgroup.procs")


def remove_cgroup(host: Host, path: str) -> str | None:
    """Kill what is left in the cgroup and remove it; None, or why it failed."""
    script = (
        '[ -d "$0" ] || exit 0; '
        'for p in $(cat "$0/cgroup.procs" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done; '
        'i=0; while ! rmdir "$0" 2>/dev/null; do i=$((i+1)); '
        '[ $i -gt 50 ] && { echo "cannot remove cgroup $0"; exit 1; }; sleep 0.05; done'
    )
    try:
        r = host.transport.run(["sh", "-c", script, path], timeout=15)
    except BedError as exc:
        return str(exc)
    return None if r.ok else f"{host.name}: {r.first_error_line()}"


def stat(host: Host, limit: CpuLimit) -> dict[str, int]:
    """cpu.stat of the cgroup (throttled periods): evidence the quota was reached."""
    if not limit.path:
        return {}
    r = host.transport.run(["cat", f"{limit.path}/cpu.stat"])
    out = {}
    for line in r.out.splitlines() if r.ok else []:
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            out[parts[0]] = int(parts[1])
    return out
