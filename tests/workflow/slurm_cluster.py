# SPDX-License-Identifier: GPL-2.0-only
"""A one-node Slurm cluster on this machine, for the workflow's Slurm test.

What docs/slurm.md found, made repeatable: Debian's slurm-wlm and munge
(installed by workflow/install-slurm.sh if missing), a private munged (own key, own
socket), a slurm.conf for this host in a temporary folder, slurmctld and slurmd in the
foreground. The Snakemake Slurm executor's job step strips SLURM_CONF from srun's
environment, so the config must also be visible at the compiled-in path
/etc/slurm/slurm.conf: whatever is there is moved aside and put back afterwards. Every
daemon started here is stopped by its PID, whatever happens.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ETC_CONF = Path("/etc/slurm/slurm.conf")
LOCK = Path("/run/lock/lanloss-slurm-test.lock")
DAEMONS = ("slurmctld", "slurmd")


class SlurmSkip(Exception):
    """The cluster cannot be started here for a reason that is not a bug (skip)."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _running(names: tuple[str, ...]) -> list[str]:
    """Processes of this machine whose command name is one of names."""
    found = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                comm = (d / "comm").read_text().strip()
            except OSError:
                continue
            if comm in names:
                found.append(f"{comm} (pid {d.name})")
    return found


def _wait(what: str, check, timeout: float, proc: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited ({proc.returncode}): {log.read_text()[-2000:]}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} not ready after {timeout:.0f} s: {log.read_text()[-2000:]}")
        time.sleep(0.2)


def _ok(cmd: list[str], env: dict[str, str], expect: str = "") -> bool:
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=20)
    return p.returncode == 0 and expect in p.stdout


def _stop(proc: subprocess.Popen, grace: float = 15) -> None:
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def slurm_conf(root: Path, sock: Path, host: str, node_line: str, ports: tuple[int, int]) -> str:
    node = node_line.split()  # slurmd -C: NodeName=... CPUs=... RealMemory=...
    node = [
        f"RealMemory={int(int(w.split('=')[1]) * 0.9)}" if w.startswith("RealMemory=") else w
        for w in node
    ]
    return "\n".join(
        [
            "ClusterName=lanlosstest",
            f"SlurmctldHost={host}(127.0.0.1)",
            "SlurmUser=root",
            "SlurmdUser=root",
            f"AuthInfo=socket={sock}",  # our munged, not the system's
            f"SlurmctldPort={ports[0]}",
            f"SlurmdPort={ports[1]}",
            f"StateSaveLocation={root}/state",
            f"SlurmdSpoolDir={root}/spool",
            f"SlurmctldPidFile={root}/slurmctld.pid",
            f"SlurmdPidFile={root}/slurmd.pid",
            f"SlurmctldLogFile={root}/log/slurmctld.log",
            f"SlurmdLogFile={root}/log/slurmd.log",
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "MpiDefault=none",
            "ReturnToService=2",
            "SchedulerType=sched/backfill",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core_Memory",
            "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none",  # no slurmdbd: sacct cannot work
            "JobCompType=jobcomp/none",
            "MailProg=/bin/true",
            " ".join([*node, "NodeAddr=127.0.0.1", "State=UNKNOWN"]),
            "PartitionName=lanloss Nodes=ALL Default=YES MaxTime=INFINITE State=UP",
            "",
        ]
    )


@contextlib.contextmanager
def _etc_conf(conf: Path) -> Iterator[None]:
    """Make conf visible at /etc/slurm/slurm.conf; put back what was there."""
    made_dir = not ETC_CONF.parent.exists()
    backup = ETC_CONF.with_name(f"slurm.conf.lanloss-test-{os.getpid()}")
    ETC_CONF.parent.mkdir(parents=True, exist_ok=True)
    had = ETC_CONF.is_symlink() or ETC_CONF.exists()
    if had:
        os.rename(ETC_CONF, backup)
    try:
        os.symlink(conf, ETC_CONF)
        yield
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(ETC_CONF)
        if had:
            os.rename(backup, ETC_CONF)
        elif made_dir:
            with contextlib.suppress(OSError):
                ETC_CONF.parent.rmdir()


def _configure(root: Path, sock: Path) -> Path:
    """Folders, a munge key and slurm.conf for this host under root."""
    for sub in ("state", "spool", "log", "munge"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    key = root / "munge" / "munge.key"
    key.write_bytes(os.urandom(1024))
    os.chmod(key, 0o600)
    host = socket.gethostname().split(".")[0]
    node = subprocess.run(["slurmd", "-C"], capture_output=True, text=True, check=True)
    conf = root / "slurm.conf"
    ports = (_free_port(), _free_port())
    conf.write_text(slurm_conf(root, sock, host, node.stdout.splitlines()[0], ports))
    return conf


def _start(name: str, cmd: list[str], root: Path, env: dict, procs: list) -> subprocess.Popen:
    with open(root / "log" / f"{name}.out", "w") as out:
        p = subprocess.Popen(
            cmd, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )
    procs.append(p)
    return p


def _start_daemons(root: Path, conf: Path, sock: Path, env: dict, procs: list) -> None:
    """munged, then slurmctld, then slurmd, each waited for until it answers."""
    key, logs = root / "munge" / "munge.key", root / "log"
    munged = _start(
        "munged",
        [
            "munged",
            "--foreground",
            f"--socket={sock}",
            f"--key-file={key}",
            f"--pid-file={root}/munge/munged.pid",
            f"--seed-file={root}/munge/munged.seed",
            f"--log-file={logs}/munged.log",
        ],
        root,
        env,
        procs,
    )
    ok = lambda: _ok(["munge", f"--socket={sock}", "-n"], env)  # noqa: E731
    _wait("munged", ok, 30, munged, logs / "munged.out")
    ctld = _start("slurmctld", ["slurmctld", "-D", "-f", str(conf)], root, env, procs)
    _wait(
        "slurmctld", lambda: _ok(["scontrol", "ping"], env, "UP"), 60, ctld, logs / "slurmctld.out"
    )
    slurmd = _start("slurmd", ["slurmd", "-D", "-f", str(conf)], root, env, procs)
    ok = lambda: _ok(["sinfo", "-h", "-o", "%T"], env, "idle")  # noqa: E731
    _wait("slurmd", ok, 60, slurmd, logs / "slurmd.out")


@contextlib.contextmanager
def one_node_slurm(root: Path) -> Iterator[dict[str, str]]:
    """Start munged, slurmctld and slurmd for this host; yield the environment to use."""
    install = subprocess.run(
        ["bash", str(REPO / "workflow" / "install-slurm.sh")], capture_output=True, text=True
    )
    if install.returncode != 0:
        raise RuntimeError(f"installing slurm-wlm munge failed: {install.stderr[-2000:]}")
    LOCK.parent.mkdir(parents=True, exist_ok=True)
    with open(LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one such cluster at a time on this machine
        others = _running(DAEMONS)
        if others:
            raise SlurmSkip(f"Slurm already runs here ({', '.join(others)}); not touching it")
        procs: list[subprocess.Popen] = []
        # munged wants every folder above its socket world-searchable (pytest's are not)
        sockdir = Path(tempfile.mkdtemp(prefix="lanloss-munge-", dir="/tmp"))
        try:
            os.chmod(sockdir, 0o755)
            sock = sockdir / "munge.sock"
            conf = _configure(root, sock)
            env = {**os.environ, "SLURM_CONF": str(conf)}
            with _etc_conf(conf):
                _start_daemons(root, conf, sock, env, procs)
                try:
                    yield env
                finally:  # jobs a failed or timed-out run left behind
                    subprocess.run(["scancel", "--user=root"], env=env, capture_output=True)
        finally:
            for p in reversed(procs):  # slurmd, slurmctld, munged: by PID
                _stop(p)
            shutil.rmtree(sockdir, ignore_errors=True)
