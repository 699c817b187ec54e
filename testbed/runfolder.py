# SPDX-License-Identifier: GPL-2.0-only
"""What marks an object on this machine as the harness's: the root-only run folder.

``/run/lanloss`` (``$LANLOSS_RUN_DIR`` in tests only) holds

- ``machine.lock``: one netns or vm run per machine (journal.lock_machine);
- ``journals/``: one entry per restore journal of a run that changes this machine;
- ``objects/``: one marker per namespace or cgroup the harness made on this machine
  (kind, exact name, creating pid, journal, the run's lock file, the object's inode).

A marker is written (and fsynced) before its object is created and removed after the
object is deleted. The harness removes a namespace or cgroup only when it has a marker
for that exact name (and, once recorded, the same inode): a namespace or cgroup named
like ours without one is left alone, named. /run is cleared at boot, as are the
namespaces, cgroups and sysctls these files describe.

The folder and its sub-folders are used only when each is a real folder (no symlink
anywhere in its path), owned by this user (root) and without group or other permission
bits; it is made with mode 0700 if missing. Anything else is refused, named.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
from typing import Any

from lanloss.testbed.errors import BedError

RUN_DIR_ENV = "LANLOSS_RUN_DIR"  # tests only: a private run folder
DEFAULT_RUN_DIR = "/run/lanloss"
PREFIX_MIN, PREFIX_MAX = 3, 24
PREFIX_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")


def prefix_problem(prefix: str) -> str | None:
    """Why `prefix` cannot name the harness's objects, or None. A prefix is a name: ASCII
    letters, digits, '-', '_', '.', 3 to 24 characters, no '..', not starting with '.' or
    '-' (so it can never be a path, an option, or match a controller like cpu*)."""
    if not PREFIX_MIN <= len(prefix) <= PREFIX_MAX:
        return f"must be {PREFIX_MIN} to {PREFIX_MAX} characters"
    if not set(prefix) <= PREFIX_CHARS:
        return "may hold only ASCII letters, digits, '-', '_' and '.'"
    if prefix[0] in ".-":
        return "must not start with '.' or '-'"
    if ".." in prefix:
        return "must not contain '..'"
    return None


def path() -> str:
    return os.path.abspath(os.environ.get(RUN_DIR_ENV) or DEFAULT_RUN_DIR)


def _checked_dir(folder: str) -> str:
    """`folder`, made with mode 0700 if missing, then checked: ours alone (BedError if not)."""
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    except OSError as exc:
        raise BedError(f"run folder {folder}: cannot make it ({exc.strerror})") from None
    st = os.lstat(folder)
    why = None
    if stat.S_ISLNK(st.st_mode):
        why = "is a symlink"
    elif not stat.S_ISDIR(st.st_mode):
        why = "is not a folder"
    elif st.st_uid != os.geteuid():
        why = f"is owned by uid {st.st_uid}, not {os.geteuid()}"
    elif st.st_mode & 0o077:
        why = f"has mode {stat.S_IMODE(st.st_mode):o} (group/other bits set; must be 700)"
    elif os.path.realpath(folder) != folder:
        why = f"has a symlink in its path (it resolves to {os.path.realpath(folder)})"
    if why:
        raise BedError(
            f"run folder {folder} {why}; lanloss uses it only when it is root's alone: "
            "check it, remove it, and run again"
        )
    return folder


def folder(sub: str = "") -> str:
    """The checked run folder, or its checked sub-folder `sub`."""
    top = _checked_dir(path())
    return _checked_dir(os.path.join(top, sub)) if sub else top


def write_file(target: str, text: str) -> None:
    """Write whole or not at all (temp file, fsync, rename, fsync the folder); mode 0600."""
    where = os.path.dirname(target)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=where)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    fsync_dir(where)


def fsync_dir(where: str) -> None:
    fd = os.open(where, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def read_own_file(target: str) -> str | None:
    """Text of a regular file owned by this user, not writable by group or others (opened
    without following a symlink); None if missing; BedError naming why it is refused."""
    try:
        fd = os.open(target, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as exc:
        why = "is a symlink" if os.path.islink(target) else exc.strerror
        raise BedError(f"{target} {why}; refused") from None
    with os.fdopen(fd, "r", encoding="utf-8", errors="replace") as fh:
        why = untrusted(os.fstat(fh.fileno()))
        if why:
            raise BedError(f"{target} {why}; refused")
        return fh.read()


def untrusted(st: os.stat_result) -> str | None:
    """Why a file with this stat is not ours to act on, or None."""
    if not stat.S_ISREG(st.st_mode):
        return "is not a regular file"
    if st.st_uid != os.geteuid():
        return f"is owned by uid {st.st_uid}, not {os.geteuid()}"
    if st.st_mode & 0o022:
        return f"is writable by group or others (mode {stat.S_IMODE(st.st_mode):o})"
    return None


# -- markers -----------------------------------------------------------------------------------

NETNS = "netns"
CGROUP = "cgroup"


def own_temp_folder(path: str, name_prefix: str) -> bool:
    """`path` is a folder the harness made in the temp folder: directly in it, its name
    starting with `name_prefix`, a real folder (no symlink) owned by this user."""
    parent = os.path.realpath(tempfile.gettempdir())
    if os.path.realpath(os.path.dirname(os.path.abspath(path))) != parent:
        return False
    if not os.path.basename(path).startswith(name_prefix):
        return False
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid()


def _marker_file(kind: str, name: str) -> str:
    digest = hashlib.sha256(f"{kind}\0{name}".encode()).hexdigest()[:24]
    return os.path.join(folder("objects"), f"{kind}-{digest}")


def mark(kind: str, name: str, journal_path: str, lock_path: str) -> None:
    """Say (durably) that this process is about to create object `name` of `kind`."""
    entry = {
        "kind": kind,
        "name": name,
        "pid": os.getpid(),
        "journal": os.path.abspath(journal_path),
        "lock": os.path.abspath(lock_path),
        "inode": None,
    }
    write_file(_marker_file(kind, name), json.dumps(entry) + "\n")


def set_inode(kind: str, name: str, inode: int) -> None:
    """Record the created object's inode: a later object of the same name is not it."""
    entry = marker(kind, name)
    if entry is not None:
        entry["inode"] = inode
        write_file(_marker_file(kind, name), json.dumps(entry) + "\n")


def marker(kind: str, name: str) -> dict[str, Any] | None:
    """The marker of object `name`, or None (no marker: not the harness's)."""
    text = read_own_file(_marker_file(kind, name))
    if text is None:
        return None
    try:
        entry = json.loads(text)
    except json.JSONDecodeError:
        return None
    if entry.get("kind") != kind or entry.get("name") != name:
        return None
    return entry


def unmark(kind: str, name: str) -> None:
    try:
        os.unlink(_marker_file(kind, name))
    except FileNotFoundError:
        return
    fsync_dir(folder("objects"))


def markers(kind: str) -> list[dict[str, Any]]:
    """Every marker of `kind`, by name."""
    where = folder("objects")
    out = []
    for fname in sorted(os.listdir(where)):
        if not fname.startswith(f"{kind}-"):
            continue
        try:
            text = read_own_file(os.path.join(where, fname))
            entry = json.loads(text or "null")
        except (BedError, json.JSONDecodeError):
            continue
        if isinstance(entry, dict) and entry.get("kind") == kind and entry.get("name"):
            out.append(entry)
    return sorted(out, key=lambda e: e["name"])


def same_object(entry: dict[str, Any], inode: int) -> bool:
    """The object now at the marker's name is the one the harness created (or the marker
    was written just before a creation whose inode was not recorded yet)."""
    return entry.get("inode") in (None, inode)
