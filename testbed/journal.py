# SPDX-License-Identifier: GPL-2.0-only
"""The restore journal: everything a run changes or starts, written before it happens.

One JSON file per harness prefix (``<state dir>/journal-<prefix>.json``),
replaced atomically and fsynced (file and folder) at every step, so that after
a ``kill -9`` or a power cut of the controlling machine it says exactly what
to undo:

- ``changes``: settings with their value before the run (settings.Change);
- ``hosts``: how to reach each host again, and its boot id (a host that has
  rebooted since has lost the change anyway and is skipped);
- ``netns``, ``cgroups``, ``procs``, ``dirs``: namespaces, cgroups, processes
  and remote folders the run created.

The next ``lanloss bed ...`` call (or ``lanloss bed restore``) takes the lock,
finds the journal and replays it (``recover``) before doing anything else. A
lock file (flock, released by the kernel when its holder dies) keeps two
harness runs with the same prefix apart.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lanloss.record import write_atomic
from lanloss.testbed.errors import BedError, HostUnreachable
from lanloss.testbed.inventory import HostSpec
from lanloss.testbed.machines import BOOT_ID, Host
from lanloss.testbed.settings import Change, restore
from lanloss.testbed.ssh import SshTransport, kill_remote
from lanloss.testbed.transport import Local, Transport, kill_if_same

VERSION = 1


def default_state_dir() -> str:
    """$LANLOSS_STATE_DIR, else $XDG_STATE_HOME/lanloss, else ~/.local/state/lanloss.

    Persistent on purpose: settings of real hosts outlive a reboot of the
    controlling machine, so their journal must too.
    """
    if os.environ.get("LANLOSS_STATE_DIR"):
        return os.environ["LANLOSS_STATE_DIR"]
    base = os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state")
    return os.path.join(base, "lanloss")


@dataclass
class Lock:
    path: str
    fd: int

    def release(self) -> None:
        try:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
        finally:
            os.close(self.fd)


def _acquire(path: str, what: str, say: Callable[[str], None], timeout: float) -> Lock:
    """flock `path`, waiting up to `timeout` s for the run that holds it (saying so once);
    the kernel drops a lock whose holder dies, so a crashed run never blocks the next."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    deadline = time.monotonic() + timeout
    told = False
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "?"
            if time.monotonic() > deadline:
                os.close(fd)
                raise BedError(f"another lanloss bed run (pid {holder}) holds {path}") from None
            if not told:
                say(f"waiting for another lanloss bed run {what} (pid {holder})")
                told = True
            time.sleep(0.2)
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    return Lock(path, fd)


def _quiet(text: str) -> None:
    pass


def lock(
    state_dir: str, prefix: str, say: Callable[[str], None] = _quiet, timeout: float = 900.0
) -> Lock:
    """One harness per prefix at a time (its journal and namespaces are by prefix)."""
    os.makedirs(state_dir, exist_ok=True)
    path = os.path.join(state_dir, f"{prefix}lock")
    return _acquire(path, f"with prefix {prefix!r}", say, timeout)


MACHINE_LOCK = "/run/lock/lanloss-bed-machine.lock"


def lock_machine(say: Callable[[str], None], timeout: float = 900.0) -> Lock:
    """One netns run per machine, whatever its prefix: kernel-wide sysctls (rmem_max,
    netdev_max_backlog) are shared, and a second run would journal the first one's
    values as its 'before'. Waits for a running one (it is measuring: sharing the CPUs
    would spoil both)."""
    os.makedirs(os.path.dirname(MACHINE_LOCK), exist_ok=True)
    return _acquire(MACHINE_LOCK, "on this machine", say, timeout)


# Every netns journal is also listed here, whatever its prefix and state folder: the
# machine's sysctls are one, so a run must see (and undo) any journal a killed run left
# on this machine before it records its own settings_before. /run is cleared at boot,
# as are the settings a netns run changes.
REGISTRY = "/run/lock/lanloss-bed-journals"


def _registry_entry(path: str) -> str:
    import hashlib

    digest = hashlib.sha256(os.path.abspath(path).encode()).hexdigest()[:20]
    return os.path.join(REGISTRY, digest)


def register(path: str) -> None:
    os.makedirs(REGISTRY, exist_ok=True)
    write_atomic(_registry_entry(path), os.path.abspath(path) + "\n")


def unregister(path: str) -> None:
    try:
        os.unlink(_registry_entry(path))
    except FileNotFoundError:
        pass


def registered() -> list[str]:
    """Journal paths listed in the machine registry (entries whose journal is gone are
    dropped)."""
    out = []
    try:
        names = sorted(os.listdir(REGISTRY))
    except FileNotFoundError:
        return out
    for name in names:
        entry = os.path.join(REGISTRY, name)
        try:
            with open(entry, encoding="utf-8") as fh:
                path = fh.read().strip()
        except OSError:
            continue
        if path and os.path.exists(path):
            out.append(path)
        else:
            try:
                os.unlink(entry)
            except FileNotFoundError:
                pass
    return out


def try_lock(state_dir: str, prefix: str) -> Lock | None:
    """The prefix lock if free now (its run is gone), else None (its run is alive)."""
    path = os.path.join(state_dir, f"{prefix}lock")
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return Lock(path, fd)


def journal_path(state_dir: str, prefix: str) -> str:
    return os.path.join(state_dir, f"journal-{prefix.rstrip('-') or 'default'}.json")


def _fsync_dir(folder: str) -> None:
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Journal:
    def __init__(self, path: str, data: dict[str, Any]) -> None:
        self.path = path
        self.data = data

    @classmethod
    def create(cls, state_dir: str, prefix: str, backend: str) -> Journal:
        data = {
            "version": VERSION,
            "pid": os.getpid(),
            "started": time.time(),
            "prefix": prefix,
            "backend": backend,
            "phase": "start",
            "hosts": {},
            "changes": [],
            "netns": [],
            "cgroups": [],
            "procs": [],
            "dirs": [],
            "local_dirs": [],
        }
        j = cls(journal_path(state_dir, prefix), data)
        j.save()
        if backend == "netns":
            register(j.path)
        return j

    @classmethod
    def read(cls, path: str) -> Journal | None:
        """The journal at `path` (None if gone); BedError if unreadable."""
        try:
            with open(path, encoding="utf-8") as fh:
                data = json.load(fh)
        except FileNotFoundError:
            return None
        except (OSError, json.JSONDecodeError) as exc:
            raise BedError(
                f"restore journal {path} is unreadable ({exc}); restore by hand, then delete it"
            ) from None
        if data.get("version") != VERSION:
            raise BedError(f"restore journal {path} has unknown version {data.get('version')!r}")
        return cls(path, data)

    @classmethod
    def find(cls, state_dir: str, prefix: str) -> Journal | None:
        return cls.read(journal_path(state_dir, prefix))

    def save(self) -> None:
        write_atomic(self.path, json.dumps(self.data, indent=1) + "\n")
        _fsync_dir(os.path.dirname(os.path.abspath(self.path)))

    # -- recording (each call is durable when it returns) ------------------------------------
    def set_phase(self, phase: str) -> None:
        self.data["phase"] = phase
        self.save()

    def record_host(self, host: Host) -> None:
        self.data["hosts"][host.name] = {
            "transport": host.transport.describe(),
            "boot_id": host.facts.get("boot_id"),
        }
        self.save()

    def record_change(self, change: Change) -> None:
        self.data["changes"].append(change.to_dict())
        self.save()

    def record(self, kind: str, entry: Any) -> None:
        """kind: netns | cgroups | procs | dirs (on hosts) | local_dirs (here)."""
        if entry not in self.data[kind]:
            self.data[kind].append(entry)
            self.save()

    def forget(self, kind: str, entry: Any) -> None:
        if entry in self.data[kind]:
            self.data[kind].remove(entry)
            self.save()

    def finish(self) -> None:
        """Everything is undone: the journal goes."""
        try:
            os.unlink(self.path)
            _fsync_dir(os.path.dirname(os.path.abspath(self.path)))
        except FileNotFoundError:
            pass
        unregister(self.path)


def transport_from(desc: dict[str, Any]) -> Transport:
    if desc["kind"] == "local":
        return Local(desc["name"], desc.get("netns"))
    if desc["kind"] == "ssh":
        fields = {k: v for k, v in desc.items() if k != "kind"}
        return SshTransport(**fields)
    if desc["kind"] == "vm":
        from lanloss.testbed import vm

        return vm.transport_from(desc)
    raise BedError(f"journal: unknown transport {desc['kind']!r}")


def _host_from(name: str, entry: dict[str, Any]) -> Host:
    spec = HostSpec(name, "both", entry["transport"].get("address", ""), "", "")
    return Host(spec, transport_from(entry["transport"]))


def recover(
    journal: Journal,
    cleanup_netns: Callable[[list[str]], list[str]] | None = None,
    say: Callable[[str], None] = lambda s: None,
) -> list[str]:
    """Undo what a journal lists; returns what could not be undone (journal kept then)."""
    data = journal.data
    hosts = {name: _host_from(name, entry) for name, entry in data["hosts"].items()}
    failures: list[str] = []
    gone: set[str] = set()

    for name, host in hosts.items():
        want = data["hosts"][name].get("boot_id")
        if getattr(host.transport, "ephemeral", False):
            gone.add(name)  # a vm guest: it died with its QEMU, its settings with it
            continue
        try:
            r = host.transport.run(["cat", BOOT_ID], timeout=15)
        except HostUnreachable as exc:
            if isinstance(host.transport, Local) and host.transport.netns:
                gone.add(name)  # the namespace and its settings are gone already
            else:
                failures.append(str(exc))
                gone.add(name)
            continue
        if want and r.ok and r.out.strip() != want:
            say(f"{name} rebooted since the run: its settings were reset by the reboot")
            gone.add(name)

    for entry in data["procs"]:
        try:
            if entry["kind"] == "local":
                kill_if_same(entry["pid"], entry.get("start_time"), signal.SIGKILL)
            elif entry["kind"] == "ssh" and entry["host"] not in gone:
                host = hosts[entry["host"]]
                kill_remote(host.transport, entry["pidfile"], signal.SIGKILL)  # type: ignore[arg-type]
        except BedError as exc:
            failures.append(str(exc))

    changes = [Change.from_dict(c) for c in data["changes"] if c["host"] not in gone]
    if changes:
        say(f"restoring {len(changes)} setting(s) from {journal.path}")
    failures += restore(hosts, changes)

    for entry in data["cgroups"]:
        host = hosts.get(entry["host"])
        if host is None or entry["host"] in gone:
            continue
        from lanloss.testbed.cpulimit import remove_cgroup

        why = remove_cgroup(host, entry["path"])
        if why:
            failures.append(why)

    if data["netns"] and cleanup_netns is not None:
        failures += cleanup_netns(data["netns"])

    for entry in data["dirs"]:
        host = hosts.get(entry["host"])
        if host is None or entry["host"] in gone:
            continue
        try:
            host.transport.run(["rm", "-rf", "--", entry["path"]], timeout=30)
        except BedError as exc:
            failures.append(str(exc))

    for path in data.get("local_dirs", []):
        if os.path.basename(path).startswith(data["prefix"]):  # only our own run folders
            shutil.rmtree(path, ignore_errors=True)

    for host in hosts.values():
        host.transport.close()
    if not failures:
        journal.finish()
    return failures
