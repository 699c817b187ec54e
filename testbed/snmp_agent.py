# SPDX-License-Identifier: GPL-2.0-only
"""net-snmp's ``snmpd`` serving an emulated switch (a network namespace of the netns
backend), so the harness reads that switch over SNMP as it reads a lab's managed switch.

The agent listens inside the namespace only (its loopback, 127.0.0.1, unless told an
address of the namespace), reads only its own config file (``-C -c``, in the run's
folder) and logs to a file (``-Lf``). Its IF-MIB is Linux's (/proc/net/dev), except
ifOutDiscards, which lanloss/testbed/snmp_qdisc_pass.py serves as each port's root-qdisc
drops (the shapers' egress drops, which /proc/net/dev leaves out). It is started and
stopped by exact PID (journalled by the netns backend, so a crashed run's recovery stops
it too).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lanloss.testbed.errors import BedError
from lanloss.testbed.snmp import IF_COUNTERS, Agent
from lanloss.testbed.transport import Transport, kill_if_same, proc_start_time

SNMPD = "/usr/sbin/snmpd"
PORT = 1161  # not the well-known 161: nothing in the namespace competes, and no privilege
COMMUNITY = "lanloss"
PASS_SCRIPT = Path(__file__).with_name("snmp_qdisc_pass.py")
SYS_UPTIME = ".1.3.6.1.2.1.1.3.0"
# net-snmp serves Linux's interface counters from a cache it reloads when older than 3 s
# (measured here: a counter read at t=0 stays unchanged until t=2.3..2.9 s); 3.5 s covers it
REFRESH_S = 3.5
START_S = 10.0  # an agent that does not answer within this is a failed start


@dataclass
class Served:
    """A running agent: its process and how to reach it from inside its namespace."""

    proc: subprocess.Popen[bytes]
    start_time: int | None
    agent: Agent

    def journal_entry(self) -> dict[str, object]:
        return {"kind": "local", "pid": self.proc.pid, "start_time": self.start_time}

    def stop(self) -> None:
        """SIGTERM (snmpd then closes its pass_persist script's stdin), SIGKILL after 5 s."""
        if kill_if_same(self.proc.pid, self.start_time, signal.SIGTERM):
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                kill_if_same(self.proc.pid, self.start_time, signal.SIGKILL)
        self.proc.wait(5)


def config(port: int, community: str, address: str, clients: str) -> str:
    out_discards = IF_COUNTERS["ifOutDiscards"][0]
    return (
        f"agentAddress udp:{address}:{port}\n"
        f"rocommunity {community} {clients}\n"
        f"pass_persist {out_discards} {sys.executable} {PASS_SCRIPT}\n"
    )


def available() -> str | None:
    """Why an agent cannot be served here (None: it can)."""
    if not os.access(SNMPD, os.X_OK):
        return f"{SNMPD} is missing (Debian package snmpd)"
    if shutil.which("snmpget") is None:
        return "snmpget is missing (Debian package snmp)"
    return None


def argv(
    ns: str, folder: str, port: int = PORT, address: str = "127.0.0.1", clients: str = "127.0.0.1"
) -> list[str]:
    """The command that runs snmpd in the foreground inside namespace `ns`, listening on
    `address`:`port` there and answering `clients` (an address or prefix); its config
    (written here), log, PID file and persistent state (engine boots, ...) in `folder`.
    The environment it needs is set by the command itself (``env``), so whoever starts it
    (this process, or a standing LAN's keeper) starts the same agent."""
    why = available()
    if why:
        raise BedError(f"snmp agent: {why}")
    os.makedirs(folder, exist_ok=True)
    conf = os.path.join(folder, "snmpd.conf")
    with open(conf, "w", encoding="ascii") as fh:
        fh.write(config(port, COMMUNITY, address, clients))
    env = ["env", "MIBS=", f"SNMP_PERSISTENT_DIR={os.path.join(folder, 'state')}"]
    out = [*env, "ip", "netns", "exec", ns, SNMPD, "-f", "-C", "-c", conf]
    return out + ["-Lf", os.path.join(folder, "snmpd.log"), "-p", os.path.join(folder, "snmpd.pid")]


def agent(address: str = "127.0.0.1", port: int = PORT) -> Agent:
    """How the harness reads an agent started by `argv`."""
    return Agent(address, port, "2c", COMMUNITY, refresh_s=REFRESH_S)


def wait_answering(
    alive: Callable[[], bool],
    ns: str,
    folder: str,
    transport: Transport,
    address: str = "127.0.0.1",
    port: int = PORT,
) -> None:
    """Wait until the agent answers through `transport` (BedError when its process ends,
    `alive` false, or it does not answer within START_S)."""
    quick = Agent(address, port, "2c", COMMUNITY, timeout_s=0.2, retries=0)
    probe = ["snmpget", *quick.client_args(), SYS_UPTIME]
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline:
        if not alive():
            log = os.path.join(folder, "snmpd.log")
            raise BedError(f"snmp agent in {ns} exited; see {log}")
        if transport.run(probe, timeout=10).ok:
            return
        time.sleep(0.1)
    raise BedError(f"snmp agent in {ns} did not answer on {address}:{port}")


def serve(
    ns: str,
    folder: str,
    transport: Transport,
    port: int = PORT,
    address: str = "127.0.0.1",
    clients: str = "127.0.0.1",
) -> Served:
    """Start snmpd inside namespace `ns` (config and log in `folder`), listening on
    `address` of that namespace and answering `clients` (an address or prefix), and wait
    until it answers through `transport` (which runs commands where the agent is reached
    from)."""
    command = argv(ns, folder, port, address, clients)
    proc = subprocess.Popen(  # noqa: S603 - fixed argv
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    served = Served(proc, proc_start_time(proc.pid), agent(address, port))
    try:
        wait_answering(lambda: proc.poll() is None, ns, folder, transport, address, port)
    except BedError:
        served.stop()
        raise
    return served
