# SPDX-License-Identifier: GPL-2.0-only
"""The restore journal: everything a run changes or starts, written before it happens.

One JSON file per harness prefix (``<state dir>/journal-<prefix>.json``),
replaced atomically and fsynced (file and folder) at every step, so that after
a ``kill -9`` or a power cut of the controlling machine it says exactly what
to undo:

- ``changes``: settings with their value before the run (settings.Change);
- ``hosts``: how to reach each host again, and its boot id (a host that has
  rebooted since has lost the change anyway and is skipped); for an ssh host, the
  folder of the run's master connection (``ssh_control``), stopped and removed;
- ``netns``, ``cgroups``, ``procs``, ``dirs``, ``local_dirs``: namespaces (exact names),
  cgroups (exact paths), processes, remote folders and local run folders the run created.

A journal is replayed only if it is a regular file owned by this user and not writable
by group or others; it undoes only what the harness made: a namespace or a cgroup of
this machine only with its marker in the run folder (runfolder), a cgroup only at
``<controller root>/<prefix>...`` (cpulimit.remove_cgroup), a local folder only
``<temp folder>/<prefix>run-...`` owned by this user, a remote folder only
``.../lanloss-run-...``.

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

from lanloss.testbed import runfolder
from lanloss.testbed.errors import BedError, HostUnreachable
from lanloss.testbed.hosts import BOOT_ID, Host
from lanloss.testbed.inventory import HostSpec
from lanloss.testbed.settings import Change, restore
from lanloss.testbed.ssh import SshTransport, end_masters, kill_remote
from lanloss.testbed.transport import Local, Transport, kill_if_same

VERSION = 2  # 2: netns lists exact namespace names (1 listed a prefix)


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
        _HELD.discard(self.path)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
        finally:
            os.close(self.fd)


_HELD: set[str] = set()  # lock files this process holds now


def _open_lock(path: str) -> int:
    """The lock file, made if missing; never through a symlink (state folders can be a
    user's)."""
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    except OSError as exc:
        raise BedError(f"lock file {path}: {exc.strerror}") from None


def _acquire(path: str, what: str, say: Callable[[str], None], timeout: float) -> Lock:
    """flock `path`, waiting up to `timeout` s for the run that holds it (saying so once);
    the kernel drops a lock whose holder dies, so a crashed run never blocks the next."""
    fd = _open_lock(path)
    deadline = time.monotonic() + timeout
    told = False
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "?"
            if time.monotonic() >= deadline:
                os.close(fd)
                raise BedError(f"another lanloss bed run (pid {holder}) holds {path}") from None
            if not told:
                say(f"waiting for another lanloss bed run {what} (pid {holder})")
                told = True
            time.sleep(0.2)
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    _HELD.add(os.path.abspath(path))
    return Lock(os.path.abspath(path), fd)


def _quiet(text: str) -> None:
    pass


def lock_path(state_dir: str, prefix: str) -> str:
    return os.path.abspath(os.path.join(state_dir, f"{prefix}lock"))


def lock(
    state_dir: str, prefix: str, say: Callable[[str], None] = _quiet, timeout: float = 900.0
) -> Lock:
    """One harness per prefix at a time (its journal is by prefix)."""
    os.makedirs(state_dir, exist_ok=True)
    return _acquire(lock_path(state_dir, prefix), f"with prefix {prefix!r}", say, timeout)


def lock_machine(say: Callable[[str], None], timeout: float = 900.0) -> Lock:
    """One netns or vm run per machine, whatever its prefix: kernel-wide sysctls
    (rmem_max, htb_hysteresis) are shared, and a second run would journal the first one's
    values as its 'before'. A run waits for a running one (it is measuring: sharing the
    CPUs would spoil both); restore and cleanup pass timeout 0 and refuse at once. The
    lock file is in the root-only run folder (runfolder)."""
    return _acquire(
        os.path.join(runfolder.folder(), "machine.lock"), "on this machine", say, timeout
    )


def lock_free(path: str) -> bool:
    """The run that took lock file `path` is gone: the file is missing, or this process
    holds it, or it can be locked now (released at once)."""
    path = os.path.abspath(path)
    if path in _HELD:
        return True
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)  # closing drops the lock
    return True


# Every journal of a run that changes this machine is listed in the run folder's
# journals/, whatever its prefix and state folder: the machine's sysctls are one, so a
# run must see (and undo) any journal a killed run left on this machine before it
# records its own settings_before. /run is cleared at boot, as are the settings, cgroups
# and namespaces such a run changes or makes.


def _registry_entry(path: str) -> str:
    import hashlib

    digest = hashlib.sha256(os.path.abspath(path).encode()).hexdigest()[:20]
    return os.path.join(runfolder.folder("journals"), digest)


def register(path: str) -> None:
    runfolder.write_file(_registry_entry(path), os.path.abspath(path) + "\n")


def unregister(path: str) -> None:
    try:
        os.unlink(_registry_entry(path))
    except FileNotFoundError:
        pass


def registered() -> list[str]:
    """Journal paths listed in the machine registry (entries whose journal is gone are
    dropped). BedError if the registry or an entry is not root's alone."""
    where = runfolder.folder("journals")
    out = []
    for name in sorted(os.listdir(where)):
        if name.startswith(".tmp-"):
            continue
        entry = os.path.join(where, name)
        text = runfolder.read_own_file(entry)
        path = (text or "").strip()
        if path and os.path.lexists(path):
            out.append(path)
        else:
            try:
                os.unlink(entry)
            except FileNotFoundError:
                pass
    return out


def try_lock(state_dir: str, prefix: str) -> Lock | None:
    """The prefix lock if free now (its run is gone), else None (its run is alive)."""
    path = lock_path(state_dir, prefix)
    if path in _HELD:
        return None
    fd = _open_lock(path)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    _HELD.add(path)
    return Lock(path, fd)


def journal_path(state_dir: str, prefix: str) -> str:
    return os.path.join(state_dir, f"journal-{prefix.rstrip('-') or 'default'}.json")


class Journal:
    def __init__(self, path: str, data: dict[str, Any]) -> None:
        self.path = path
        self.data = data

    @classmethod
    def create(
        cls, state_dir: str, prefix: str, backend: str, changes_this_machine: bool
    ) -> Journal:
        """A new journal; one of a run that changes this machine (namespaces, cgroups,
        kernel-wide sysctls: Backend.changes_this_machine) is listed in the machine registry."""
        data = {
            "version": VERSION,
            "pid": os.getpid(),
            "started": time.time(),
            "prefix": prefix,
            "backend": backend,
            "changes_this_machine": changes_this_machine,
            "phase": "start",
            "hosts": {},
            "changes": [],
            "netns": [],
            "cgroups": [],
            "procs": [],
            "lan_procs": [],  # what a standing LAN keeps running (its keeper, guests)
            "lan_dirs": [],  # and its folders here (the guests' consoles)
            "dirs": [],
            "local_dirs": [],
        }
        j = cls(journal_path(state_dir, prefix), data)
        j.save()
        if j.changes_this_machine:
            register(j.path)
        return j

    @property
    def changes_this_machine(self) -> bool:
        return bool(self.data.get("changes_this_machine"))

    @property
    def lock_path(self) -> str:
        """The lock file of the run that writes this journal."""
        return lock_path(os.path.dirname(os.path.abspath(self.path)), self.data["prefix"])

    @classmethod
    def read(cls, path: str) -> Journal | None:
        """The journal at `path` (None if gone). BedError if it is not ours to trust (a
        symlink, not a regular file, another user's, writable by group or others) or
        unreadable: it is then not replayed at all."""
        try:
            text = runfolder.read_own_file(path)
        except BedError as exc:
            raise BedError(
                f"restore journal {exc} (nothing in it was done); check it and delete it"
            ) from None
        except OSError as exc:
            raise BedError(f"restore journal {path} is unreadable ({exc.strerror})") from None
        if text is None:
            return None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise BedError(
                f"restore journal {path} is unreadable ({exc}); restore by hand, then delete it"
            ) from None
        if not isinstance(data, dict) or data.get("version") != VERSION:
            version = data.get("version") if isinstance(data, dict) else None
            raise BedError(
                f"restore journal {path} has unknown version {version!r}; restore by hand, "
                "then delete it"
            )
        why = runfolder.prefix_problem(str(data.get("prefix", "")))
        if why:
            raise BedError(f"restore journal {path}: its prefix {data.get('prefix')!r} {why}")
        return cls(path, data)

    @classmethod
    def find(cls, state_dir: str, prefix: str) -> Journal | None:
        return cls.read(journal_path(state_dir, prefix))

    def save(self) -> None:
        runfolder.write_file(os.path.abspath(self.path), json.dumps(self.data, indent=1) + "\n")

    # -- recording (each call is durable when it returns) ------------------------------------
    def set_phase(self, phase: str) -> None:
        self.data["phase"] = phase
        self.save()

    def record_host(self, host: Host) -> None:
        entry = {"transport": host.transport.describe(), "boot_id": host.facts.get("boot_id")}
        control_dir = getattr(host.transport, "control_dir", None)  # an ssh transport's
        if control_dir is not None:
            entry["ssh_control"] = control_dir()
        self.data["hosts"][host.name] = entry
        self.save()

    def record_change(self, change: Change) -> None:
        self.data["changes"].append(change.to_dict())
        self.save()

    def record(self, kind: str, entry: Any) -> None:
        """kind: netns (a name) | cgroups | procs | lan_procs (a standing LAN's: kept by
        stand) | dirs (on hosts) | local_dirs (here)."""
        entries = self.data.setdefault(kind, [])
        if entry not in entries:
            entries.append(entry)
            self.save()

    def forget(self, kind: str, entry: Any) -> None:
        if entry in self.data[kind]:
            self.data[kind].remove(entry)
            self.save()

    # -- a LAN kept standing between the runs of one prefix (--keep-lan) ----------------------
    @property
    def standing_lan(self) -> dict[str, Any] | None:
        """What a finished run left standing for the next run of its prefix (Backend.lan():
        backend, key, how it is built), or None."""
        lan = self.data.get("lan")
        return lan if self.data.get("phase") == "standing" and isinstance(lan, dict) else None

    def stand(self, lan: dict[str, Any]) -> None:
        """The run is over, its LAN stays: the journal keeps only what the LAN is (its
        namespaces, markers, hosts and the changes of scope 'lan' with their values from
        before the LAN), so replaying it still restores the machine. The run's own changes
        were restored; its processes, cgroups and folders are gone."""
        self.data["changes"] = [c for c in self.data["changes"] if c.get("scope") == "lan"]
        for kind in ("cgroups", "procs", "dirs", "local_dirs"):  # (lan_procs, lan_dirs stay)
            self.data[kind] = []
        previous = self.data.get("lan") or {}
        self.data["lan"] = {**lan, "points": int(previous.get("points", 0)) + 1,
                            "since": previous.get("since", self.data["started"])}  # fmt: skip
        self.data["phase"] = "standing"
        self.save()

    def take_over(self) -> None:
        """This run adopts the standing LAN: from here the journal is this run's."""
        self.data["pid"] = os.getpid()
        self.data["started"] = time.time()
        self.data["phase"] = "start"
        self.save()

    def lan_changes(self) -> list[Change]:
        """The changes of scope 'lan' a standing LAN carries (restored when it goes)."""
        return [Change.from_dict(c) for c in self.data["changes"] if c.get("scope") == "lan"]

    def finish(self) -> None:
        """Everything is undone: the journal goes."""
        try:
            os.unlink(self.path)
            runfolder.fsync_dir(os.path.dirname(os.path.abspath(self.path)))
        except FileNotFoundError:
            pass
        if self.changes_this_machine:
            unregister(self.path)


def transport_from(desc: dict[str, Any]) -> Transport:
    if desc["kind"] == "local":
        return Local(desc["name"], desc.get("netns"))
    if desc["kind"] == "ssh":
        return SshTransport.from_description(desc)
    if desc["kind"] == "vm":
        from lanloss.testbed import vm

        return vm.transport_from(desc)
    raise BedError(f"journal: unknown transport {desc['kind']!r}")


def _host_from(name: str, entry: dict[str, Any]) -> Host:
    spec = HostSpec(name, "both", entry["transport"].get("address", ""), "", "")
    return Host(spec, transport_from(entry["transport"]))


REMOTE_RUN_DIR = "lanloss-run-"  # a run's folder on a remote host: <workdir>/lanloss-run-<id>


def own_run_folder(path: str, prefix: str) -> bool:
    """`path` is a run folder of this harness here: <temp folder>/<prefix>run-..."""
    return runfolder.own_temp_folder(path, f"{prefix}run-")


def recover(
    journal: Journal,
    cleanup_netns: Callable[[list[str], Callable[[str], None]], list[str]] | None = None,
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

    for entry in [*data["procs"], *data.get("lan_procs", [])]:
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

        why = remove_cgroup(host, entry["path"], data["prefix"], say)
        if why:
            failures.append(why)

    if data["netns"] and cleanup_netns is not None:
        failures += cleanup_netns(data["netns"], say)

    for entry in data["dirs"]:
        host = hosts.get(entry["host"])
        if host is None or entry["host"] in gone:
            continue
        if not os.path.basename(entry["path"]).startswith(REMOTE_RUN_DIR):
            failures.append(f"{entry['host']}: {entry['path']!r} is no lanloss run folder; kept")
            continue
        try:
            host.transport.run(["rm", "-rf", "--", entry["path"]], timeout=30)
        except BedError as exc:
            failures.append(str(exc))

    for path in [*data.get("local_dirs", []), *data.get("lan_dirs", [])]:
        if own_run_folder(path, data["prefix"]):
            shutil.rmtree(path, ignore_errors=True)

    for entry in data["hosts"].values():  # the run's own ssh masters (ControlPersist)
        if entry.get("ssh_control"):
            end_masters(entry["ssh_control"], entry["transport"].get("address", ""))
    for host in hosts.values():
        host.transport.close()
    if not failures:
        journal.finish()
    return failures
