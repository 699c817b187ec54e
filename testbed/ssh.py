# SPDX-License-Identifier: GPL-2.0-only
"""The ssh backend's transport: real hosts reached with key authentication.

Every call is ``ssh [options] HOST -- <one argument>``, the argument being a
command line built with ``shlex.join`` from an argv list, so inventory values
are never interpreted by a shell. BatchMode (no password prompt), a connect
timeout, keep-alives and a timeout around every call make an unreachable host
a clear one-line error rather than a hang. One master connection per host
(ControlMaster) keeps the many small calls (settings, counters) fast.
"""

from __future__ import annotations

import hashlib
import io
import os
import platform
import shlex
import signal
import subprocess
import tarfile
import tempfile
from dataclasses import asdict, dataclass, field, fields
from typing import TYPE_CHECKING, Any, Self

from lanloss import paths
from lanloss.child import die_with_parent
from lanloss.testbed import runfolder, snmp
from lanloss.testbed.backend import Backend, refuse_guest_options
from lanloss.testbed.errors import BedError, HostUnreachable
from lanloss.testbed.inventory import SshSpec
from lanloss.testbed.snmp import SwitchReader
from lanloss.testbed.transport import JOIN_CGROUP, Local, Proc, Transport

if TYPE_CHECKING:
    from lanloss.testbed.hosts import Host
    from lanloss.testbed.inventory import HostSpec, Inventory

CONTROL_DIR_PREFIX = "lanloss-ssh-"  # <temp folder>/lanloss-ssh-XXXXXXXX: one transport's master

SSH = "ssh"
# A remote tool: its PID goes to the file "$0" (removed when the tool ends) so that a later
# call can stop it, and it gets SIGTERM when the ssh channel's stdin ends, i.e. when the
# local ssh client (which dies with lanloss: PR_SET_PDEATHSIG) is gone. The watcher reads a
# copy of stdin (fd 3): a background job's own stdin is /dev/null.
_SPAWN = (
    'exec 3<&0; "$@" </dev/null & p=$!; echo $p > "$0"; '
    "(cat >/dev/null 2>&1; kill -TERM $p 2>/dev/null) <&3 >/dev/null 2>&1 & w=$!; "
    'exec 3<&-; wait $p; rc=$?; kill $w 2>/dev/null; rm -f "$0"; exit $rc'
)


@dataclass
class SshTransport(Transport):
    name: str
    address: str
    ssh: SshSpec  # user, key, port and the other ssh settings (the inventory's)
    _control_dir: str | None = field(default=None, repr=False)

    def describe(self) -> dict[str, Any]:
        """The journal's entry: kind, name, address, then the ssh settings by name."""
        return {"kind": "ssh", "name": self.name, "address": self.address, **asdict(self.ssh)}

    @classmethod
    def from_description(cls, desc: dict[str, Any]) -> Self:
        """The transport a journal entry (describe()'s output) names again."""
        rest = {k: v for k, v in desc.items() if k != "kind"}
        ssh = SshSpec(**{f.name: rest.pop(f.name) for f in fields(SshSpec) if f.name in rest})
        return cls(ssh=ssh, **rest)

    @property
    def target(self) -> str:
        return f"{self.ssh.user}@{self.address}:{self.ssh.port}"

    def control_dir(self) -> str:
        """The folder of this transport's ControlMaster socket, made on first use. The
        journal names it (record_host), so a kill -9 leaves no master that recovery cannot
        stop."""
        if self._control_dir is None:
            self._control_dir = tempfile.mkdtemp(prefix=CONTROL_DIR_PREFIX)
        return self._control_dir

    def _control_path(self) -> str:
        tag = hashlib.sha1(self.target.encode()).hexdigest()[:12]
        return os.path.join(self.control_dir(), tag)  # short: unix socket paths max 107 bytes

    def ssh_options(self) -> list[str]:
        opts = [
            "-o",
            "BatchMode=yes",
            "-o",
            f"ConnectTimeout={max(1, int(round(self.ssh.connect_timeout)))}",
            "-o",
            "ServerAliveInterval=5",
            "-o",
            "ServerAliveCountMax=3",
            "-o",
            f"StrictHostKeyChecking={self.ssh.strict_host_key_checking}",
            "-o",
            "IdentitiesOnly=yes",
            "-o",
            "LogLevel=ERROR",
            "-o",
            "ControlMaster=auto",
            "-o",
            f"ControlPath={self._control_path()}",
            "-o",
            "ControlPersist=120",
            "-i",
            self.ssh.key,
            "-p",
            str(self.ssh.port),
            "-l",
            self.ssh.user,
        ]
        if self.ssh.known_hosts:
            opts += ["-o", f"UserKnownHostsFile={self.ssh.known_hosts}"]
        return opts

    def base_argv(self) -> list[str]:
        raise NotImplementedError("ssh commands are built by wrap()")

    def wrap(self, argv: list[str]) -> list[str]:
        # The remote sshd hands this one string to the user's login shell.
        return [SSH, *self.ssh_options(), self.address, "--", shlex.join(argv)]

    def check_reachable(self, cp: subprocess.CompletedProcess[bytes]) -> None:
        if cp.returncode == 255:
            err = cp.stderr.decode("utf-8", errors="replace").strip().splitlines()
            why = err[-1] if err else "ssh failed (exit 255)"
            raise HostUnreachable(f"host {self.name} ({self.target}) unreachable: {why}")

    def start(self, command: list[str], log: str, cgroup_procs: str | None, workdir: str) -> Proc:
        pidfile = f"{workdir}/{os.path.basename(log)}.pid"
        inner = command
        if cgroup_procs:
            inner = ["sh", "-c", JOIN_CGROUP, cgroup_procs, *inner]
        remote = ["sh", "-c", _SPAWN, pidfile, *inner]
        with open(log, "wb") as fh:
            popen = subprocess.Popen(
                self.wrap(remote),
                stdin=subprocess.PIPE,  # held open while we live: its end stops the tool
                stdout=fh,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=die_with_parent(),  # a kill -9 of lanloss takes it along
            )
        return SshProc(self, popen, pidfile)

    def close(self) -> None:
        if self._control_dir is None:
            return
        end_masters(self._control_dir, self.address)
        self._control_dir = None


def end_masters(folder: str, address: str) -> None:
    """Stop the ssh master behind each socket in a ControlMaster folder of ours ("-O exit")
    and remove the folder. A folder that is gone, or not ours (<temp folder>/lanloss-ssh-...,
    a real folder owned by this user), is left."""
    if not runfolder.own_temp_folder(folder, CONTROL_DIR_PREFIX):
        return
    for name in os.listdir(folder):
        path = os.path.join(folder, name)
        subprocess.run(
            [SSH, "-o", f"ControlPath={path}", "-O", "exit", address],
            capture_output=True,
            timeout=10,
        )
        # The master unlinks its socket as it exits, which may be after "-O exit" returns.
        try:
            os.unlink(path)
        except OSError:
            pass
    try:
        os.rmdir(folder)
    except OSError:
        pass


def transport_for(spec: HostSpec) -> SshTransport:
    """How to reach an inventory host: its ssh settings."""
    assert spec.ssh is not None
    return SshTransport(spec.name, spec.address, spec.ssh)


def kill_remote(transport: SshTransport, pidfile: str, sig: int) -> None:
    """Signal the process whose PID a spawn wrote to pidfile (if it still runs)."""
    script = 'p=$(cat "$0" 2>/dev/null) && kill -s "$1" "$p" 2>/dev/null; exit 0'
    transport.run(["sh", "-c", script, pidfile, signal.Signals(sig).name[3:]], timeout=15)


class SshProc(Proc):
    def __init__(self, transport: SshTransport, popen: subprocess.Popen[bytes], pidfile: str):
        self.transport = transport
        self.popen = popen
        self.pidfile = pidfile

    def send_signal(self, sig: int) -> None:
        if self.popen.poll() is not None:
            return
        try:
            kill_remote(self.transport, self.pidfile, sig)
        except BedError:
            pass
        if sig == signal.SIGKILL:
            self.popen.kill()

    def journal_entry(self) -> dict[str, Any]:
        return {"kind": "ssh", "host": self.transport.name, "pidfile": self.pidfile}


# -- the C tools on a remote host -------------------------------------------------------------

TOOLS = ("lanloss-send", "lanloss-recv")


def _tools_digest() -> str:
    h = hashlib.sha256()
    for name in TOOLS:
        h.update(paths.ctool(name).read_bytes())
    return h.hexdigest()[:16]


TOOLS_SRC = "testbed/tools"  # in the repository, and in the source tar a host builds from


def _source_tar() -> bytes:
    """The C tools' sources with the model headers they include (../../models/model/*.h),
    laid out as in the repository."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for folder, keep in ((TOOLS_SRC, (".c", ".h")), ("models/model", (".h",))):
            for f in sorted((paths.REPO / folder).iterdir()):
                if f.suffix in keep or f.name == "Makefile" and folder == TOOLS_SRC:
                    tar.add(f, arcname=f"{folder}/{f.name}")
    return buf.getvalue()


def install_tools(host: Host, tools_dir: str) -> str:
    """Put lanloss-send/-recv on the host: copied if they run there, else built there.

    The folder is named after the binaries' hash, so a host keeps one copy per
    version and a second run copies nothing.
    """
    folder = f"{tools_dir}/{_tools_digest()}"
    t = host.transport
    check = 'test -x "$0/lanloss-send" && test -x "$0/lanloss-recv" && "$0/lanloss-recv" --help'
    if t.run(["sh", "-c", check, folder]).ok:
        return folder
    t.run_ok(["mkdir", "-p", folder])
    arch = t.run(["uname", "-m"]).out.strip()
    if arch == platform.machine():
        for name in TOOLS:
            t.write_file(f"{folder}/{name}", paths.ctool(name).read_bytes(), mode="755")
        if t.run(["sh", "-c", check, folder]).ok:
            return folder
    # Different architecture or C library: build from the sources (needs cc and make).
    build = f"{folder}/src"
    t.run_ok(["mkdir", "-p", build])
    t.run_ok(["tar", "-xzf", "-", "-C", build], input=_source_tar())
    r = t.run(["make", "-C", f"{build}/{TOOLS_SRC}"], timeout=300)
    if not r.ok:
        raise BedError(f"{host.name}: building the C tools failed: {r.first_error_line()}")
    for name in TOOLS:
        t.run_ok(["cp", f"{build}/{TOOLS_SRC}/{name}", f"{folder}/{name}"])
    if not t.run(["sh", "-c", check, folder]).ok:
        raise BedError(f"{host.name}: the C tools built in {folder} do not run")
    return folder


# -- the backend ------------------------------------------------------------------------------


class SshBackend(Backend):
    """Real hosts from an inventory; the switch is not ours to see or set."""

    name = "ssh"

    @classmethod
    def check_params(cls, p: dict[str, Any], given: set[str]) -> None:
        from lanloss.options import OptionError

        for opt in ("switch_buffer", "tx_queue", "edge_switches"):
            if opt in given:
                raise OptionError(
                    f"{opt}: describes the netns emulation; real hosts and "
                    "switches are not set by the ssh backend"
                )
        if p["topology"] not in ("star", "two-tier"):
            raise OptionError(
                f"topology: {p['topology']!r}: the ssh backend records star or "
                "two-tier (the real network's shape), not a file"
            )

    @classmethod
    def check_request(cls, req: Any) -> None:
        from lanloss.options import OptionError
        from lanloss.testbed import inventory as inv_mod

        if not req.inventory:
            raise OptionError("--inventory: the ssh backend needs an inventory file")
        refuse_guest_options(req, "ssh")
        p = req.params
        req.inv = inv_mod.load(req.inventory)
        req.picked = inv_mod.select(
            req.inv, int(p["senders"]), int(p["receivers"]), req.senders, req.receivers
        )

    @classmethod
    def create(cls, req: Any, run_id: str, run_dir: str) -> SshBackend:
        assert req.inv is not None and req.picked is not None, "check_request first"
        return cls(req.inv, req.picked[0], req.picked[1], run_id, run_dir, req.tool)

    def __init__(
        self,
        inv: Inventory,
        senders: list[HostSpec],
        receivers: list[HostSpec],
        run_id: str,
        run_dir: str,
        tool: str,
    ) -> None:
        self.inv = inv
        self.senders = senders
        self.receivers = receivers
        self.specs = [*senders, *receivers]
        self.run_id = run_id
        self.run_dir = run_dir
        self.tool = tool
        self.hosts: dict[str, Host] = {}
        self.switches: list[Host] = []
        self.machine = None
        self.tool_dirs: dict[str, str] = {}
        self.readers: list[SwitchReader] = []  # the inventory's switches on the flows' paths

    def flows(self) -> list[tuple[str, str, int | None]]:
        """Sender i to receiver i, the shorter list repeated."""
        k = max(len(self.senders), len(self.receivers))
        return [
            (
                self.senders[i % len(self.senders)].name,
                self.receivers[i % len(self.receivers)].name,
                None,
            )
            for i in range(k)
        ]

    def setup(self, journal: Any) -> None:
        from lanloss.testbed.hosts import Host, gather_facts

        self.readers = self.reach_switches()  # every switch answers before a host is touched
        pending = []
        for spec in self.specs:
            t = transport_for(spec)
            local = os.path.join(self.run_dir, spec.name)
            os.makedirs(local, exist_ok=True)
            # one folder per host: hosts may share the workdir's file system (NFS homes)
            workdir = f"{self.inv.workdir}/lanloss-run-{self.run_id}-{spec.name}"
            pending.append(Host(spec, t, workdir, local))
        # Every host must answer before any is changed.
        for host in pending:
            try:
                host.transport.run(["true"], timeout=host.spec.ssh.connect_timeout + 15)  # type: ignore[union-attr]
            except HostUnreachable:
                for h in pending:
                    h.transport.close()
                raise
        for host in pending:
            t = host.transport
            self.hosts[host.name] = host
            gather_facts(host)
            journal.record_host(host)
            journal.record("dirs", {"host": host.name, "path": host.workdir})
            t.run_ok(["sh", "-c", 'umask 077 && mkdir -p "$0"', host.workdir])
            if self.tool == "lanloss":
                self.tool_dirs[host.name] = install_tools(host, self.inv.tools_dir)
            elif not t.run(["sh", "-c", "command -v iperf3"]).ok:
                raise BedError(f"{host.name}: iperf3 is not installed")

    def flow_ports(self, src: str, dst: str) -> tuple[list[Any], list[Any]]:
        return self.inv.flow_ports(src, dst)

    def reach_switches(self) -> list[SwitchReader]:
        """A reader for each inventory switch on a flow's path, its ports found by ifName
        or ifIndex; BedError naming the switch when its agent does not answer."""
        ports: dict[str, list[str | int]] = {}
        for src, dst, _ in self.flows():
            ingress, egress = self.flow_ports(src, dst)
            for sw, label in [*ingress, *egress]:
                port = self.inv.switch_port(sw, label)
                if port not in ports.setdefault(sw, []):
                    ports[sw].append(port)
        readers = []
        for sw, wanted in sorted(ports.items()):
            reader = SwitchReader(sw, self.inv.switches[sw].agent, wanted, Local(sw))
            try:
                reader.indexes = snmp.resolve(reader.transport, reader.agent, wanted)
            except snmp.SnmpError as exc:
                raise BedError(
                    f"switch {sw}: {exc} (check its address, SNMP credentials and that this "
                    "machine may query it; or remove its switch/switch_port from the hosts)"
                ) from None
            readers.append(reader)
        return readers

    def snmp_readers(self) -> list[SwitchReader]:
        return self.readers

    def describe(self) -> dict[str, Any]:
        return {
            "inventory": self.inv.path,
            "tools_dir": self.inv.tools_dir,
            "hosts": {
                s.name: {
                    "address": s.address,
                    "data_address": s.data_address,
                    "interface": s.interface,
                    "user": s.ssh.user if s.ssh else None,
                    "port": s.ssh.port if s.ssh else None,
                    "switch_port": [s.switch, s.switch_port] if s.switch else None,
                }
                for s in self.specs
            },
            "switches": {  # read over SNMP (credentials left out)
                r.name: {
                    "agent": f"{r.agent.address}:{r.agent.port}",
                    "snmp": f"v{r.agent.version}",
                    "ports": r.indexes,
                }
                for r in self.readers
            },
        }

    def teardown(self) -> list[str]:
        failures = []
        for host in self.hosts.values():
            try:
                host.transport.run(["rm", "-rf", "--", host.workdir], timeout=30)
            except BedError as exc:
                failures.append(str(exc))
        return failures
