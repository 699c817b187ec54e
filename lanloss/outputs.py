# SPDX-License-Identifier: GPL-2.0-only
"""Output paths: what a writer may do to the object at a path, decided before any work.

The rule, the same for every file a command writes (--out, --host-out, --json-out,
figures, sweep records, the restore journal):

- ``-``: standard output.
- a new path, or an existing regular file: written whole or not at all (a temporary
  file in the same folder, fsync, rename over it); an existing file keeps its mode.
- a character device or a FIFO (``/dev/null``, a named pipe, a terminal): written
  through, as a shell's ``>`` would; the device stays a device.
- ``/dev/stdout``, ``/dev/stderr``, ``/dev/fd/N``: this process's open descriptor N,
  written like ``-``.
- a symlink: its target, by the same rules; a regular target is replaced in its own
  folder and the link stays a link.
- refused, with one line naming the path (exit 2, before any work): folders, block
  devices, sockets, memory devices (/dev/mem, /dev/kmem, /dev/port), paths in the tree of a
  kernel pseudo-filesystem (proc, sysfs, cgroup, ...) and folders where no file can be created
  (probed: a temporary file is created and removed in the nearest existing folder).

Folders to write into (--pcap, sweep --out, figures --out, --state-dir) must be folders,
or creatable ones, by the same probe.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from lanloss.options import OptionError

STDOUT = "-"

# Kernel pseudo-filesystems: their "files" are kernel settings and objects (a file made in
# efivarfs is an EFI variable, in mqueue a message queue), never a place for results.
PSEUDO_FILESYSTEMS = frozenset(
    {
        "autofs",
        "binfmt_misc",
        "bpf",
        "cgroup",
        "cgroup2",
        "configfs",
        "debugfs",
        "devpts",
        "efivarfs",
        "fusectl",
        "hugetlbfs",
        "mqueue",
        "nsfs",
        "proc",
        "pstore",
        "rpc_pipefs",
        "securityfs",
        "selinuxfs",
        "sysfs",
        "tracefs",
    }
)

# Character devices whose writes reach memory or I/O ports (major 1: mem 1, kmem 2, port 4).
MEMORY_DEVICES = frozenset({(1, 1), (1, 2), (1, 4)})

# This process's own descriptors, as /dev/stdout and /dev/fd/N name them.
_OWN_FD = r"/(?:proc/(?:self|{pid})/fd|dev/fd)/([0-9]+)"


@dataclass(frozen=True)
class Target:
    """Where a writer's bytes go. kind: "stdout" (-), "fd" (an own descriptor), "stream"
    (a character device or FIFO at `real`), "replace" (a regular file or a new path at
    `real`, replaced atomically)."""

    given: str
    kind: str
    real: str
    fd: int | None = None


# -- classification --------------------------------------------------------------------------


def _own_descriptor(path: str) -> int | None:
    """N when `path` names this process's descriptor N (/dev/stdout, /dev/fd/N, a symlink to
    one), else None. Followed link by link: /proc's fd links are not paths to resolve."""
    own = re.compile(_OWN_FD.format(pid=os.getpid()))
    p = os.path.abspath(path)
    for _ in range(40):  # the kernel's own limit on links in one lookup
        m = own.fullmatch(p)
        if m:
            return int(m.group(1))
        if not os.path.islink(p):
            return None
        p = os.path.normpath(os.path.join(os.path.dirname(p), os.readlink(p)))
    return None


def _unescape(field: str) -> str:
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def filesystem_types(path: str) -> list[str]:
    """The types of every mount whose tree holds the existing path `path`, outermost first
    (from /proc/self/mountinfo; empty when it cannot be read)."""
    real = os.path.realpath(path)
    found = []
    try:
        with open("/proc/self/mountinfo", encoding="utf-8") as fh:
            for line in fh:
                left, _, right = line.partition(" - ")
                point = _unescape(left.split()[4])
                if real == point or real.startswith(point.rstrip("/") + "/"):
                    found.append((len(point), right.split()[0]))
    except OSError:  # no /proc: nothing known, the probe alone decides
        return []
    return [fstype for _, fstype in sorted(found)]


def _nearest_existing(path: str) -> str:
    """The deepest ancestor of `path` that exists (the folder that will be written to)."""
    cur = os.path.dirname(os.path.abspath(path))
    while not os.path.lexists(cur):
        parent = os.path.dirname(cur)
        if parent == cur:
            break
        cur = parent
    return cur


def _check_folder(folder: str, path: str, flag: str) -> None:
    """Files can be created in the existing folder `folder`: not a pseudo-filesystem, and a
    temporary file made there really is made (and removed at once)."""
    if not os.path.isdir(folder):
        raise OptionError(f"{flag}: {path!r}: {folder!r} is not a folder")
    # Inside a pseudo-filesystem's tree even a tmpfs mounted there (/sys/fs/cgroup) is the
    # kernel's, not a place for results.
    pseudo = [t for t in filesystem_types(folder) if t in PSEUDO_FILESYSTEMS]
    if pseudo:
        raise OptionError(f"{flag}: {path!r} is in the kernel's {pseudo[0]} filesystem")
    try:
        fd, probe = tempfile.mkstemp(prefix=".lanloss-probe-", dir=folder)
    except OSError as exc:
        raise OptionError(
            f"{flag}: {path!r}: cannot create files in {folder!r} ({exc.strerror})"
        ) from None
    os.close(fd)
    os.unlink(probe)


def _refusal(mode: int, st_rdev: int) -> str | None:
    """Why an existing object of this type is not an output file, or None if it is one."""
    if stat.S_ISDIR(mode):
        return "is a folder, not a file"
    if stat.S_ISBLK(mode):
        return "is a block device"
    if stat.S_ISSOCK(mode):
        return "is a socket"
    if stat.S_ISCHR(mode) and (os.major(st_rdev), os.minor(st_rdev)) in MEMORY_DEVICES:
        return "is a memory device"
    if not (stat.S_ISREG(mode) or stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)):
        return "is not a file"
    return None


def target(path: str, flag: str = "--out") -> Target:
    """Where writing `path` goes by the module's rule, or an OptionError naming it."""
    if path == STDOUT:
        return Target(path, "stdout", path)
    fd = _own_descriptor(path)
    if fd is not None:
        try:
            st = os.fstat(fd)
        except OSError:
            raise OptionError(f"{flag}: {path!r}: descriptor {fd} is not open") from None
        why = _refusal(st.st_mode, st.st_rdev)
        if why:
            raise OptionError(f"{flag}: {path!r} {why}")
        return Target(path, "fd", path, fd)
    real = os.path.realpath(path)  # a symlink's target (a dangling one: the path it names)
    try:
        st = os.stat(real)
    except FileNotFoundError:
        _check_folder(_nearest_existing(real), path, flag)
        return Target(path, "replace", real)
    except OSError as exc:
        raise OptionError(f"{flag}: {path!r}: {exc.strerror}") from None
    why = _refusal(st.st_mode, st.st_rdev)
    if why:
        raise OptionError(f"{flag}: {path!r} {why}")
    if stat.S_ISREG(st.st_mode):
        _check_folder(os.path.dirname(real), path, flag)
        return Target(path, "replace", real)
    return Target(path, "stream", real)


def check_file(path: str | None, flag: str = "--out") -> None:
    """A file to (over)write by the module's rule; OptionError (one line) if it cannot be."""
    if path:
        target(path, flag)


def check_dir(path: str | None, flag: str = "--out") -> None:
    """A folder to write into: an existing folder or a creatable one, where files can be made."""
    if not path:
        return
    if path == STDOUT:
        raise OptionError(f"{flag}: '-' (standard output) is not a folder")
    if os.path.isdir(path):
        _check_folder(path, path, flag)
        return
    if os.path.lexists(path):
        raise OptionError(f"{flag}: {path!r} exists and is not a folder")
    _check_folder(_nearest_existing(os.path.join(path, "x")), path, flag)


# -- writing ---------------------------------------------------------------------------------


def temp_for(t: Target, suffix: str = "") -> str:
    """A new empty temporary file to write `t`'s content to: in the target's own folder when
    it will be renamed there, else in the temporary folder."""
    if t.kind == "replace":
        folder = os.path.dirname(t.real)
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=suffix, dir=folder)
    else:
        fd, tmp = tempfile.mkstemp(prefix="lanloss-out-", suffix=suffix)
    os.close(fd)
    return tmp


def _copy(tmp: str, fd: int) -> None:
    with open(tmp, "rb") as src:
        while chunk := src.read(1 << 20):
            view = memoryview(chunk)
            while view:
                view = view[os.write(fd, view) :]


def _to_stdout(tmp: str) -> None:
    """Through sys.stdout (its binary buffer), so whoever replaced sys.stdout gets it."""
    buffer = getattr(sys.stdout, "buffer", None)
    with open(tmp, "rb") as src:
        if buffer is not None:
            shutil.copyfileobj(src, buffer)
            buffer.flush()
        else:
            sys.stdout.write(src.read().decode("utf-8"))
            sys.stdout.flush()


def commit(tmp: str, t: Target) -> None:
    """The finished temporary file `tmp` becomes `t`'s content; `tmp` is gone afterwards."""
    try:
        if t.kind == "replace":
            with open(tmp, "rb") as fh:
                os.fsync(fh.fileno())
            try:
                mode = stat.S_IMODE(os.stat(t.real).st_mode)  # a replaced file keeps its mode
            except FileNotFoundError:
                umask = os.umask(0)
                os.umask(umask)
                mode = 0o666 & ~umask  # mkstemp makes 0600; a result is for everyone
            os.chmod(tmp, mode)
            os.replace(tmp, t.real)
            return
        sys.stdout.flush()  # what was printed before comes first on a shared descriptor
        sys.stderr.flush()
        if t.kind == "stdout":
            _to_stdout(tmp)
        elif t.kind == "fd":
            _copy(tmp, t.fd)
        else:  # a device or FIFO: opened as it is, never created or replaced
            fd = os.open(t.real, os.O_WRONLY | os.O_NOCTTY)
            try:
                _copy(tmp, fd)
            finally:
                os.close(fd)
    finally:
        discard(tmp)


def discard(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except FileNotFoundError:
        pass


@contextmanager
def atomic_file(path: str, suffix: str = "", flag: str = "--out") -> Iterator[str]:
    """A temporary path to write `path`'s content to; when the block ends the content goes
    to `path` by the module's rule, or nowhere if the block failed."""
    t = target(path, flag)
    tmp = temp_for(t, suffix)
    try:
        yield tmp
    except BaseException:
        discard(tmp)
        raise
    commit(tmp, t)


def write_text(path: str, text: str, flag: str = "--out") -> None:
    """`text` to `path` by the module's rule (whole or not at all for files)."""
    with atomic_file(path, flag=flag) as tmp, open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
