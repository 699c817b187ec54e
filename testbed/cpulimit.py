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
/sys/fs/cgroup. Cgroups are named ``<prefix><host>``, directly under the controller
root.

Only the harness's own cgroups are ever removed (``remove_cgroup``): a path exactly
``<controller root>/<name>`` whose name starts with the run's prefix, never a
controller root or a mount point, and on this machine only with its marker in the run
folder (runfolder). A cgroup of the same name that exists already is refused, named.
"""

from __future__ import annotations

import os
import stat as stat_
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lanloss.testbed import runfolder
from lanloss.testbed.errors import BedError
from lanloss.testbed.hosts import Host
from lanloss.testbed.transport import Local

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
    """A cgroup limiting its members to `percent` of one CPU (marked and journalled
    before mkdir; one that exists already is refused)."""
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
    why = path_problem(path, journal.data["prefix"])
    if why:
        raise BedError(f"cgroup {path}: {why}")
    if is_here(host):
        _make_here(host.name, path, journal)
    else:
        journal.record("cgroups", {"host": host.name, "path": path})
        r = host.transport.run(["sh", "-c", '[ -e "$0" ] && exit 3; mkdir "$0"', path])
        if r.rc == 3:
            raise BedError(f"{host.name}: {foreign(path)}")
        if not r.ok:
            raise BedError(f"{host.name}: mkdir {path}: {r.first_error_line()}")
    for fname, value in writes:
        host.transport.run_ok(["sh", "-c", 'printf "%s\\n" "$1" > "$0"', f"{path}/{fname}", value])
    return CpuLimit(method, percent, path, f"{path}/cgroup.procs")


def leave(host: Host, limit: CpuLimit, pid: int) -> None:
    """Process `pid` (every thread of it) leaves the quota and runs at full speed again:
    back to the controller's root cgroup, or from SCHED_IDLE back to SCHED_OTHER. For a
    process that outlives its point (a vm guest): removing the cgroup would kill it."""
    if limit.method == "sched-idle":
        host.transport.run_ok(["chrt", "--all-tasks", "--other", "-p", "0", str(pid)])
        return
    assert limit.path is not None, "a cgroup quota has a folder"
    root = os.path.join(os.path.dirname(limit.path), "cgroup.procs")
    host.transport.run_ok(["sh", "-c", 'printf "%s\\n" "$1" > "$0"', root, str(pid)])


def is_here(host: Host) -> bool:
    """The host is this machine itself (its cgroups are marked in the run folder)."""
    return isinstance(host.transport, Local) and not host.transport.netns


def foreign(path: str) -> str:
    return (
        f"cgroup {path} exists and was not made by lanloss; remove it yourself or choose "
        "another --prefix"
    )


def path_problem(path: str, prefix: str) -> str | None:
    """Why `path` is not a cgroup the harness may make or remove, or None: it must be
    exactly <controller root>/<name>, its name starting with the run's prefix."""
    root, name = os.path.split(path)
    if root not in (V1_ROOT, V2_ROOT):
        return f"is not directly under {V1_ROOT} or {V2_ROOT}"
    if runfolder.prefix_problem(prefix):
        return f"the prefix {prefix!r} is not a valid prefix"
    if not name.startswith(prefix) or name == prefix or "/" in name or name in (".", ".."):
        return f"its name does not start with the run's prefix {prefix!r}"
    return None  # a controller root or mount point is refused where it is looked at


def _make_here(host_name: str, path: str, journal: Any) -> None:
    """mkdir a cgroup of this machine, marked first; an existing one is refused."""
    if os.path.lexists(path):
        raise BedError(foreign(path))
    runfolder.mark(runfolder.CGROUP, path, journal.path, journal.lock_path)
    journal.record("cgroups", {"host": host_name, "path": path})
    try:
        os.mkdir(path)
    except FileExistsError:
        raise BedError(foreign(path)) from None
    except OSError as exc:
        raise BedError(f"mkdir {path}: {exc.strerror}") from None
    runfolder.set_inode(runfolder.CGROUP, path, os.lstat(path).st_ino)


def _quiet(text: str) -> None:
    pass


def remove_cgroup(
    host: Host, path: str, prefix: str, say: Callable[[str], None] = _quiet
) -> str | None:
    """Kill what is left in one of the harness's cgroups and remove it; None, or why it
    failed or was refused (path_problem; here also a link or a mount point). Here, a
    cgroup of that name without the harness's marker (or of another inode: ours is gone)
    is left alone, and said so."""
    why = path_problem(path, prefix)
    if why:
        return f"{host.name}: cgroup {path} {why}; not removed"
    if is_here(host):
        return _remove_here(path, say)
    script = (
        '[ -d "$0" ] || exit 0; '
        '{ [ -L "$0" ] || mountpoint -q "$0"; } && '
        '{ echo "$0 is a link or a mount point; kept"; exit 1; }; '
        'for p in $(cat "$0/cgroup.procs" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done; '
        'i=0; while ! rmdir "$0" 2>/dev/null; do i=$((i+1)); '
        '[ $i -gt 50 ] && { echo "cannot remove cgroup $0"; exit 1; }; sleep 0.05; done'
    )
    try:
        r = host.transport.run(["sh", "-c", script, path], timeout=15)
    except BedError as exc:
        return str(exc)
    return None if r.ok else f"{host.name}: {r.first_error_line()}"


def _remove_here(path: str, say: Callable[[str], None]) -> str | None:
    """A cgroup of this machine: only with its marker, the same inode, not a mount point."""
    try:
        entry = runfolder.marker(runfolder.CGROUP, path)
    except BedError as exc:
        return str(exc)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    if entry is not None and (st is None or not runfolder.same_object(entry, st.st_ino)):
        runfolder.unmark(runfolder.CGROUP, path)  # ours is gone already (or was never made)
        entry = None
    if st is None:
        return None
    if entry is None:
        say(foreign(path))
        return None
    if not stat_.S_ISDIR(st.st_mode) or os.path.ismount(path):
        return f"cgroup {path} is not a plain cgroup folder (a link or a mount point); kept"
    for _ in range(100):
        for pid in _members(path):
            try:
                os.kill(pid, 9)
            except ProcessLookupError:
                pass
        try:
            os.rmdir(path)
            break
        except FileNotFoundError:
            break
        except OSError:
            time.sleep(0.05)
    else:
        return f"cannot remove cgroup {path} (processes still in it)"
    runfolder.unmark(runfolder.CGROUP, path)
    return None


def _members(path: str) -> list[int]:
    try:
        with open(os.path.join(path, "cgroup.procs"), encoding="ascii") as fh:
            return [int(x) for x in fh.read().split() if x.isdigit()]
    except OSError:
        return []


def stale_here(prefix: str) -> list[str]:
    """Marked cgroups of this machine named <root>/<prefix>..., whose creating run is gone
    (its lock is free): what `lanloss bed cleanup` removes without a journal."""
    from lanloss.testbed.journal import lock_free

    out = []
    for entry in runfolder.markers(runfolder.CGROUP):
        path = entry["name"]
        if path_problem(path, prefix) is None and lock_free(entry.get("lock", "")):
            out.append(path)
    return out


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
