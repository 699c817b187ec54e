# SPDX-License-Identifier: GPL-2.0-only
"""The keeper of a standing LAN: the process that outlives the runs between which a LAN
stands (`bed run --keep-lan`), holds what must keep running (the vm backend's QEMU
guests), and takes the LAN down when nobody uses it.

A run starts one keeper per LAN it builds with --keep-lan (``start``) and asks it to start
the LAN's long-lived processes (``Keeper.spawn``: each gets PR_SET_PDEATHSIG to the keeper,
so a dead keeper takes them along). The keeper has its own session and no parent-death
signal, so it survives the run that started it; its PID and start time are in the LAN's
journal, so replaying the journal (`bed restore`, a run that cannot reuse the LAN, a run of
another prefix) kills it, and its processes with it.

Every POLL seconds the keeper looks at the LAN's journal and, when no run holds the
prefix's lock (a run in progress is never disturbed):

- the journal is gone, or was replaced by another run's: the LAN is gone; stop;
- the journal's phase is not "standing": the run that used the LAN died (kill -9): stop,
  the journal is replayed by the next call as any crashed run's;
- the journal has stood unchanged for longer than the idle limit: take the LAN down with
  `lanloss bed restore` (which replays the journal, the machine's settings included, and
  kills this keeper last).

It also stops when every process it started has ended (a guest crashed: the LAN is no
longer whole; the next run sees that and rebuilds).
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from typing import Any

from lanloss.child import die_with_parent
from lanloss.testbed.transport import kill_if_same, proc_start_time

POLL = 2.0
IDLE_S = 900.0  # a standing LAN nobody used for 15 minutes goes
RESTORE_TRIES, RESTORE_WAIT = 20, 30.0  # while another run holds the machine lock


def start(journal_path: str, state_dir: str, prefix: str, idle_s: float = IDLE_S) -> Keeper:
    """A keeper for the LAN of `journal_path`, detached from this process."""
    popen = subprocess.Popen(
        [sys.executable, "-m", "lanloss.testbed.keeper", journal_path, state_dir, prefix]
        + [str(idle_s)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
    )
    return Keeper(popen)


class Keeper:
    """The run's handle on its keeper: start processes in it, then let go (``release``)."""

    def __init__(self, popen: subprocess.Popen[bytes]) -> None:
        self.popen = popen
        self.start_time = proc_start_time(popen.pid)

    def journal_entry(self) -> dict[str, Any]:
        return {"kind": "local", "pid": self.popen.pid, "start_time": self.start_time}

    def spawn(self, argv: list[str], log: str) -> KeptProc:
        """Start `argv` in the keeper (stdout and stderr to `log`) -> its handle."""
        assert self.popen.stdin is not None and self.popen.stdout is not None
        self.popen.stdin.write((json.dumps({"argv": argv, "log": log}) + "\n").encode())
        self.popen.stdin.flush()
        reply = json.loads(self.popen.stdout.readline() or b"{}")
        if "pid" not in reply:
            raise OSError(f"the LAN's keeper could not start {argv[0]}: {reply.get('error')}")
        return KeptProc(int(reply["pid"]), reply.get("start_time"), argv[0])

    def release(self) -> None:
        """This run is done with the keeper (it keeps running for the next run)."""
        for pipe in (self.popen.stdin, self.popen.stdout):
            if pipe is not None:
                pipe.close()


class KeptProc:
    """A process the keeper started, seen from a run by its PID and start time (a PID
    reused since is never signalled)."""

    def __init__(self, pid: int, start_time: int | None, label: str) -> None:
        self.pid = pid
        self.start_time = start_time
        self.label = label

    def poll(self) -> int | None:
        """None while it runs, else 0 (its exit status is the keeper's to see)."""
        alive = self.start_time is not None and proc_start_time(self.pid) == self.start_time
        return None if alive else 0

    def wait(self, timeout: float) -> int | None:
        deadline = time.monotonic() + timeout
        while self.poll() is None:
            if time.monotonic() > deadline:
                return None
            time.sleep(0.05)
        return 0

    def send_signal(self, sig: int) -> None:
        kill_if_same(self.pid, self.start_time, sig)

    def journal_entry(self) -> dict[str, Any]:
        return {"kind": "local", "pid": self.pid, "start_time": self.start_time}


# -- the keeper process ---------------------------------------------------------------------


def _spawn(line: bytes, children: list[subprocess.Popen[bytes]]) -> dict[str, Any]:
    """Start what one request line asks for -> the reply. Called on the keeper's main
    thread: a parent-death signal follows the thread that forked, not the process."""
    try:
        ask = json.loads(line)
        with open(ask["log"], "ab") as log:
            child = subprocess.Popen(
                ask["argv"],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=die_with_parent(),
            )
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return {"error": str(exc)}
    children.append(child)
    return {"pid": child.pid, "start_time": proc_start_time(child.pid)}


def _answer(children: list[subprocess.Popen[bytes]]) -> bool:
    """Serve the run's requests that are waiting (up to POLL seconds); False once the run
    has let go (its end of the pipe closed)."""
    ready, _, _ = select.select([sys.stdin.buffer], [], [], POLL)
    if not ready:
        return True
    line = sys.stdin.buffer.readline()
    if not line:
        return False
    try:
        sys.stdout.write(json.dumps(_spawn(line, children)) + "\n")
        sys.stdout.flush()
    except (BrokenPipeError, OSError):
        return False
    return True


def _journal(path: str) -> tuple[dict[str, Any] | None, float]:
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh), os.stat(path).st_mtime
    except (OSError, ValueError):
        return None, 0.0


def _verdict(path: str, state_dir: str, prefix: str, idle_s: float, mine: int) -> str | None:
    """'stop', 'restore' or None (keep standing), judged only while no run holds the lock."""
    from lanloss.testbed import journal as jr

    lock = jr.try_lock(state_dir, prefix)
    if lock is None:
        return None  # a run is using the LAN (or restoring it)
    try:
        data, mtime = _journal(path)
        if data is None or not any(p.get("pid") == mine for p in data.get("lan_procs", [])):
            return "stop"
        if data.get("phase") != "standing":
            return "stop"
        if time.time() - mtime > idle_s:
            return "restore"
        return None
    finally:
        lock.release()


def _restore(state_dir: str, prefix: str) -> bool:
    """`lanloss bed restore` of the prefix, in a session of its own (it replays the journal:
    the machine's settings, the namespaces, then this keeper). False if it refused (the
    machine lock is another run's)."""
    env = {**os.environ, "LANLOSS_STATE_DIR": state_dir}
    return (
        subprocess.run(
            [sys.executable, "-m", "lanloss.cli", "bed", "restore", "--prefix", prefix],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        ).returncode
        == 0
    )


def _stop(children: list[subprocess.Popen[bytes]]) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for child in children:
            if child.poll() is None:
                child.send_signal(sig)
        deadline = time.monotonic() + 5.0
        while any(c.poll() is None for c in children) and time.monotonic() < deadline:
            time.sleep(0.05)


def main(path: str, state_dir: str, prefix: str, idle_s: float) -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C at the terminal is the run's
    children: list[subprocess.Popen[bytes]] = []
    mine = os.getpid()
    serving, tries = True, 0
    while True:
        if serving:
            serving = _answer(children)
        else:
            time.sleep(POLL)
        ended = bool(children) and all(c.poll() is not None for c in children)
        verdict = "stop" if ended else _verdict(path, state_dir, prefix, idle_s, mine)
        if verdict == "restore":
            tries += 1
            if _restore(state_dir, prefix) or tries >= RESTORE_TRIES:
                verdict = "stop"  # (a restore that worked has killed this keeper already)
            else:
                time.sleep(RESTORE_WAIT)  # the machine is busy with another run
        if verdict == "stop":
            _stop(children)
            return 0


if __name__ == "__main__":
    if len(sys.argv) != 5:
        raise SystemExit(2)
    raise SystemExit(main(sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])))
