# SPDX-License-Identifier: GPL-2.0-only
"""Run a command on a host: this machine (optionally inside a network namespace) or ssh.

Commands are always argument lists. Nothing from a config file is ever pasted
into a shell string: where a shell is needed (several commands in one round
trip, the remote side of ssh) every argv is quoted with ``shlex.join``. Every
call has a timeout; a host that does not answer is a ``HostUnreachable``.

Processes are started in their own session, so a Ctrl-C typed at the terminal
reaches the harness only, and the harness stops its tools in order (receivers
last, so they can print their reports).
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import shlex
import signal
import stat
import subprocess
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from lanloss.child import LIBC, die_with_parent
from lanloss.testbed.errors import BedError, HostUnreachable

DEFAULT_TIMEOUT = 20.0
NETNS_DIR = "/run/netns"
_R = TypeVar("_R")


@dataclass
class Result:
    """One finished command: exit status and text output."""

    argv: list[str]
    rc: int
    out: str
    err: str = ""

    @property
    def ok(self) -> bool:
        return self.rc == 0

    def first_error_line(self) -> str:
        text = (self.err or self.out).strip()
        return text.splitlines()[0] if text else f"exit status {self.rc}"


def _decode(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", errors="replace")


def batch_script(argvs: list[list[str]], nonce: str) -> str:
    """A POSIX sh script running each argv in turn, framing output and exit status.

    stderr is merged into stdout per command; the frame lines carry a random
    nonce so no command output can fake them.
    """
    lines = []
    for i, argv in enumerate(argvs):
        lines.append(f"printf '%s\\n' '@@LL:{nonce}:B:{i}'")
        lines.append(f"{shlex.join(argv)} </dev/null 2>&1")
        lines.append(f"printf '\\n@@LL:{nonce}:E:{i}:%d\\n' \"$?\"")
    return "\n".join(lines) + "\n"


def parse_batch(argvs: list[list[str]], nonce: str, text: str) -> list[Result]:
    """Split the framed output of ``batch_script`` back into one Result per argv: a frame
    is command i's begin line, its output, and its end line with the same i. One pattern
    per batch (compiling one per command cost a testbed run 0.07 s)."""
    tag = re.escape(f"@@LL:{nonce}:")
    frame = re.compile(rf"{tag}B:(\d+)\n(.*?)\n{tag}E:\1:(\d+)\n", flags=re.DOTALL)
    framed = {int(m.group(1)): (int(m.group(3)), m.group(2)) for m in frame.finditer(text)}
    results = []
    for i, argv in enumerate(argvs):
        if i in framed:
            rc, out = framed[i]
            results.append(Result(argv, rc, out))
        else:
            results.append(Result(argv, 255, "", "no output (the batch was cut short)"))
    return results


class Proc(ABC):
    """A long-running process started on a host (a traffic tool), seen through the local
    Popen that runs it (the tool itself, or the ssh client that runs it remotely)."""

    popen: subprocess.Popen[bytes]

    def poll(self) -> int | None:
        return self.popen.poll()

    def wait(self, timeout: float) -> int | None:
        """Exit status, or None if still running after timeout seconds."""
        try:
            return self.popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    @abstractmethod
    def send_signal(self, sig: int) -> None: ...

    @abstractmethod
    def journal_entry(self) -> dict[str, Any]:
        """How a later call finds and stops this process after a crash."""

    def stop(self, grace: float = 5.0) -> int | None:
        """SIGINT (tools print their report), then SIGKILL after grace seconds."""
        if self.poll() is not None:
            return self.poll()
        self.send_signal(signal.SIGINT)
        rc = self.wait(grace)
        if rc is None:
            self.send_signal(signal.SIGKILL)
            rc = self.wait(5.0)
        return rc


def proc_start_time(pid: int) -> int | None:
    """Field 22 of /proc/PID/stat: tells a live process from a reused PID."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            stat = fh.read()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[19])


def kill_if_same(pid: int, start_time: int | None, sig: int = signal.SIGKILL) -> bool:
    """Signal a journalled local process only if its PID was not reused since."""
    if start_time is None or proc_start_time(pid) != start_time:
        return False
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        return False
    return True


class LocalProc(Proc):
    def __init__(self, popen: subprocess.Popen[bytes], label: str) -> None:
        self.popen = popen
        self.label = label
        self.start_time = proc_start_time(popen.pid)

    def send_signal(self, sig: int) -> None:
        if self.popen.poll() is None:
            try:
                self.popen.send_signal(sig)
            except ProcessLookupError:
                pass

    @property
    def pid(self) -> int:
        return self.popen.pid

    def journal_entry(self) -> dict[str, Any]:
        return {"kind": "local", "pid": self.popen.pid, "start_time": self.start_time}


class Transport(ABC):
    """How to reach one host."""

    name: str

    @abstractmethod
    def base_argv(self) -> list[str]:
        """Prefix that makes a local argv run on the host."""

    @abstractmethod
    def describe(self) -> dict[str, Any]:
        """JSON-able description, enough to reconnect from a journal."""

    def wrap(self, argv: list[str]) -> list[str]:
        return [*self.base_argv(), *argv]

    def _exec(
        self, full: list[str], timeout: float, what: str, input: bytes | None = None
    ) -> subprocess.CompletedProcess[bytes]:
        try:
            proc = subprocess.Popen(
                full,
                stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                preexec_fn=die_with_parent(),  # a kill -9 of lanloss takes it along
            )
        except FileNotFoundError as exc:
            raise BedError(f"{self.name}: cannot run {full[0]!r}: {exc.strerror}") from None
        try:
            out, err = proc.communicate(input=input, timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            raise HostUnreachable(f"{self.name}: {what} timed out after {timeout:g}s") from None
        except BaseException:
            _kill_group(proc)
            raise
        return subprocess.CompletedProcess(full, proc.returncode, out, err)

    def check_reachable(self, cp: subprocess.CompletedProcess[bytes]) -> None:  # noqa: B027
        """Raise HostUnreachable when the transport itself failed (not the command)."""

    def run(
        self, argv: list[str], timeout: float = DEFAULT_TIMEOUT, input: bytes | None = None
    ) -> Result:
        cp = self._exec(self.wrap(argv), timeout, shlex.join(argv), input)
        self.check_reachable(cp)
        return Result(argv, cp.returncode, _decode(cp.stdout), _decode(cp.stderr))

    def run_ok(self, argv: list[str], timeout: float = DEFAULT_TIMEOUT, **kw: Any) -> Result:
        """run(), and a BedError naming host, command and message when it fails."""
        r = self.run(argv, timeout, **kw)
        if not r.ok:
            raise BedError(f"{self.name}: `{shlex.join(argv)}` failed: {r.first_error_line()}")
        return r

    def run_many(self, argvs: list[list[str]], timeout: float = DEFAULT_TIMEOUT) -> list[Result]:
        """Several commands in one round trip (one process on this machine, one ssh call)."""
        if not argvs:
            return []
        nonce = secrets.token_hex(6)
        script = batch_script(argvs, nonce)
        cp = self._exec(self.wrap(["sh", "-c", script]), timeout, f"{len(argvs)} commands")
        self.check_reachable(cp)
        return parse_batch(argvs, nonce, _decode(cp.stdout))

    def read_file(self, path: str, timeout: float = DEFAULT_TIMEOUT) -> bytes:
        cp = self._exec(self.wrap(["cat", "--", path]), timeout, f"cat {path}")
        self.check_reachable(cp)
        if cp.returncode != 0:
            raise BedError(f"{self.name}: cannot read {path}: {_decode(cp.stderr).strip()}")
        return cp.stdout

    def file_size(self, path: str) -> int | None:
        """The size of the file at `path` in bytes; None when it cannot be read."""
        r = self.run(["stat", "-c", "%s", "--", path])
        size = r.out.strip()
        return int(size) if r.ok and size.isdigit() else None

    def remove_files(self, paths: list[str]) -> None:
        """Remove these files, by exact name (`rm -f`: one that is not there is no error)."""
        r = self.run(["rm", "-f", "--", *paths], timeout=30)
        if not r.ok:
            raise BedError(
                f"{self.name}: cannot remove {shlex.join(paths)}: {r.first_error_line()}"
            )

    def write_file(self, path: str, data: bytes, mode: str = "644") -> None:
        script = 'umask 077; cat > "$0.tmp" && chmod "$1" "$0.tmp" && mv -f "$0.tmp" "$0"'
        self.run_ok(["sh", "-c", script, path, mode], input=data)

    def spawn(
        self,
        argv: list[str],
        log: str,
        cgroup_procs: str | None = None,
        pre: list[str] | None = None,
        workdir: str = "/tmp",
    ) -> Proc:
        """Start a long-running process, `pre` then `argv`, that joins the cgroup whose
        cgroup.procs is `cgroup_procs` (if given); its stdout+stderr go to the local file
        `log`."""
        return self.start([*(pre or []), *argv], log, cgroup_procs, workdir)

    @abstractmethod
    def start(self, command: list[str], log: str, cgroup_procs: str | None, workdir: str) -> Proc:
        """spawn's work on this transport: `command` run in `workdir`, in the cgroup."""

    def close(self) -> None:  # noqa: B027 - most transports hold nothing
        """Release connections (ssh master)."""


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


JOIN_CGROUP = 'echo $$ > "$0" && exec "$@"'


@dataclass
class Local(Transport):
    """This machine: the initial network namespace, or a named one under /run/netns."""

    name: str
    netns: str | None = None
    _checked: bool = field(default=False, repr=False)

    def base_argv(self) -> list[str]:
        if self.netns is None:
            return []
        if not self._checked:
            if not os.path.exists(os.path.join(NETNS_DIR, self.netns)):
                raise HostUnreachable(f"{self.name}: network namespace {self.netns!r} is missing")
            self._checked = True
        # nsenter --net changes only the network namespace: unlike `ip netns exec` it
        # keeps /sys, so /sys/fs/cgroup stays usable (docs/testbed.md §3).
        return ["nsenter", f"--net={NETNS_DIR}/{self.netns}", "--"]

    def describe(self) -> dict[str, Any]:
        return {"kind": "local", "name": self.name, "netns": self.netns}

    # `cat FILE` on a local host is read here, not run: a process per file costs about
    # 2 ms (a counters snapshot reads five). In a namespace the file is read by a thread
    # that joins it (_in_netns): /proc/net and /proc/sys/net show the reader's namespace.
    def run(
        self, argv: list[str], timeout: float = DEFAULT_TIMEOUT, input: bytes | None = None
    ) -> Result:
        if input is None and _cat_path(argv) is not None:
            return self._cat_here([argv])[0]
        return super().run(argv, timeout, input)

    def run_many(self, argvs: list[list[str]], timeout: float = DEFAULT_TIMEOUT) -> list[Result]:
        cats = [a for a in argvs if _cat_path(a) is not None]
        if not cats:
            return super().run_many(argvs, timeout)
        read = iter(self._cat_here(cats))
        rest = iter(super().run_many([a for a in argvs if _cat_path(a) is None], timeout))
        return [next(read) if _cat_path(a) is not None else next(rest) for a in argvs]

    def _cat_here(self, argvs: list[list[str]]) -> list[Result]:
        """`cat FILE` for each argv, as this host sees the files."""
        paths = [_cat_path(a) or "" for a in argvs]
        if self.netns is None:
            return [_read_as_cat(a, p) for a, p in zip(argvs, paths, strict=True)]
        self.base_argv()  # a missing namespace: HostUnreachable, as for a command
        views = [_thread_view(p) for p in paths]
        results = _in_netns(
            os.path.join(NETNS_DIR, self.netns),
            lambda: [_read_as_cat(a, v) for a, v in zip(argvs, views, strict=True)],
        )
        if results is None:  # the namespace could not be joined: run cat there
            return super().run_many(argvs)
        return results

    # A local host's files are this process's files: nsenter --net leaves the mount
    # namespace as it is. Reading and removing them here spares a process per call
    # (about 5 ms each; a testbed point makes six of these calls).
    def read_file(self, path: str, timeout: float = DEFAULT_TIMEOUT) -> bytes:
        try:
            return _read_regular(path)
        except OSError as exc:
            raise BedError(f"{self.name}: cannot read {path}: {exc.strerror}") from None

    def file_size(self, path: str) -> int | None:
        try:
            return os.stat(path).st_size
        except OSError:
            return None

    def remove_files(self, paths: list[str]) -> None:
        for path in paths:
            try:
                os.remove(path)
            except FileNotFoundError:
                pass
            except OSError as exc:
                raise BedError(f"{self.name}: cannot remove {path}: {exc.strerror}") from None

    def start(self, command: list[str], log: str, cgroup_procs: str | None, workdir: str) -> Proc:
        full = self.wrap(command)
        if cgroup_procs:
            # Join the cgroup before entering the namespace; every step execs, so the
            # PID we hold is the tool's.
            full = ["sh", "-c", JOIN_CGROUP, cgroup_procs, *full]
        with open(log, "wb") as fh:
            popen = subprocess.Popen(
                full,
                stdin=subprocess.DEVNULL,
                stdout=fh,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=die_with_parent(),  # a kill -9 of lanloss takes it along
                cwd=workdir,
            )
        return LocalProc(popen, shlex.join(command))


CLONE_NEWNET = 0x40000000  # <sched.h>


def _cat_path(argv: list[str]) -> str | None:
    """FILE of `cat FILE` or `cat -- FILE` (an absolute path), else None."""
    if len(argv) == 2 and argv[0] == "cat" and argv[1].startswith("/"):
        return argv[1]
    if len(argv) == 3 and argv[:2] == ["cat", "--"] and argv[2].startswith("/"):
        return argv[2]
    return None


def _thread_view(path: str) -> str:
    """/proc/net/X as the reading thread sees it (/proc/net is its process's namespace)."""
    if path == "/proc/net" or path.startswith("/proc/net/"):
        return "/proc/thread-self" + path[len("/proc") :]
    return path


def _read_regular(path: str) -> bytes:
    """A regular file's bytes (/proc and /sys files are regular). Anything else is an
    OSError, not read: a FIFO would block a read that has no timeout."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _read_as_cat(argv: list[str], path: str) -> Result:
    """What `cat path` prints, in a batch (stderr merged into its output) or alone."""
    try:
        return Result(argv, 0, _decode(_read_regular(path)))
    except OSError as exc:
        return Result(argv, 1, f"cat: {argv[-1]}: {exc.strerror}\n")


def _in_netns(ns_file: str, work: Callable[[], _R]) -> _R | None:
    """work() in a thread that joins the network namespace `ns_file` (setns: only that
    thread moves, and it ends with work) -> its result; None when it could not join."""
    result: list[_R] = []
    failed: list[BaseException] = []

    def body() -> None:
        if LIBC is None:
            return
        try:
            fd = os.open(ns_file, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return
        try:
            if LIBC.setns(fd, CLONE_NEWNET) != 0:
                return
        finally:
            os.close(fd)
        try:
            result.append(work())
        except BaseException as exc:  # noqa: BLE001 - raised in the caller's thread
            failed.append(exc)

    thread = threading.Thread(target=body, name="netns-read")
    thread.start()
    thread.join()
    if failed:
        raise failed[0]
    return result[0] if result else None


def wait_until(predicate: Any, timeout: float, interval: float = 0.02) -> bool:
    """Poll predicate() until it is true or timeout seconds have passed."""
    deadline = time.monotonic() + timeout
    while True:
        if predicate():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval)
