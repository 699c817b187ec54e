# SPDX-License-Identifier: GPL-2.0-only
"""The vm backend: one QEMU guest per host, its emulated Intel NIC on the emulated switch.

The switches are the netns backend's (a namespace ``<prefix><switch>`` with a bridge,
br_netfilter, HTB shapers with the wire-exact size table on every port, static
forwarding): the same shaping and the same switch counters. A host is a guest instead of
a namespace: QEMU runs inside its switch's namespace, and the guest's data NIC
(``-device e1000-82545em``, driven by the guest kernel's real e1000 driver) is a tap
that *is* the switch port (named p1, p2, ... as in the netns backend), so the switch
port's shaper and counters are the tap's. A full RX ring makes QEMU stop reading the
tap; the tap then drops (its ``tx_dropped``): that is the NIC's overflow (``rx_fifo``).

The harness reaches a guest with the ssh backend's transport (real ssh, to the guest's
sshd) over a second, management NIC (virtio-net, QEMU user networking restricted to the
host: ``hostfwd`` on the switch namespace's loopback), so management traffic never
touches the NIC under test or the switch. The guest image: vmimage.py. With
--lab-inventory the standing guests are a lab for the ssh backend (vm_lab.py).

With --vm-icount the guests run at a fixed instruction rate, and each point checks that
they kept it: their clocks are read just before and after the traffic (``pace``); a
guest whose clock did not keep real time marks the point invalid (``kept_pace`` in
env.vm.icount).

Guests die with the harness (QEMU gets PR_SET_PDEATHSIG), and with them every tool and
every setting in them; what stays after a ``kill -9`` (namespaces, the receiver's
cgroup, the machine's htb_hysteresis) is in the journal, which is listed in the machine
registry like a netns run's and replayed by the next netns or vm run of any prefix; a
reaper process removes the journal's namespaces at once (``reaper``). Namespaces are made
and removed as in the netns backend: marked first, by exact name (netns.create_namespace).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Any

from lanloss.options import OptionError
from lanloss.testbed import netns, snmp_agent, vcpu_window, vm_lab
from lanloss.testbed.backend import Backend
from lanloss.testbed.errors import BedError, HostUnreachable
from lanloss.testbed.ssh import SshTransport, install_tools
from lanloss.testbed.transport import NETNS_DIR, Local, wait_until

QEMU = "qemu-system-x86_64"
NIC_MODELS = {"e1000-82545em": "e1000", "e1000e": "e1000e"}
DEFAULT_NIC = "e1000-82545em"
MEMORY_MB = 256
TB_SIZE_MB = 128  # TCG's translation cache grows without a cap (270 -> 620 MB in 20 min)
SSH_PORT0 = 2200  # hostfwd ports, on the switch namespace's own loopback
BOOT_TIMEOUT = 180.0
ICOUNT_SHIFTS = range(0, 11)  # -icount shift: the guest runs 10^9 / 2^shift instructions/s
# A guest's virtual CPUs (-smp). Without -icount TCG runs each on a thread of its own, so
# readers on different vCPUs contend for a socket as on cores; under -icount one thread
# runs them in turn.
VCPUS = range(1, 9)
ICOUNT_BOOT_S = 7.5  # a guest's boot at shift 0 in seconds of its clock (59 s at shift 3)
# QEMU's -icount align warning when this machine cannot keep the guest's pace
LATE = re.compile(r"guest is now late by (-?[0-9.]+)(?: to (-?[0-9.]+))? seconds")


# The pace check of an icount guest: its clock (CLOCK_BOOTTIME, /proc/uptime, 10 ms steps)
# read over ssh just before and just after the traffic, against this machine's
# CLOCK_MONOTONIC around each read. With align=on,sleep=on the guest's clock is its
# instruction count over the nominal rate while it runs: a guest this machine cannot
# emulate fast enough falls behind real time, and QEMU's align lets a late guest run
# faster than real time later to catch up (a guest that fell behind during its boot may
# then run ahead during the traffic). Either way it was not the PC its shift says. Rule:
# the point is invalid unless the guest's pace over the traffic (its clock's seconds per
# real second) can be within PACE_TOLERANCE of 1 given the reads' uncertainty (each
# read somewhere between its before and after, plus one 10 ms step): a guest 2 % off is
# 2 % off its nominal capacity, inside the 5 % a knee is judged by.
PACE_TOLERANCE = 0.02
UPTIME_STEP_S = 0.01


@dataclass(frozen=True)
class ClockRead:
    """One read of a guest's clock: its value, and this machine's clock before and after."""

    guest_s: float
    host_before: float
    host_after: float


def pace(start: ClockRead, end: ClockRead) -> dict[str, Any]:
    """How fast the guest's clock went against real time between two reads: ``pace`` (the
    central estimate), the interval the reads allow (``pace_low``, ``pace_high``), and
    ``kept``: the interval meets [1 - PACE_TOLERANCE, 1 + PACE_TOLERANCE]."""
    guest = end.guest_s - start.guest_s
    central = (end.host_before + end.host_after - start.host_before - start.host_after) / 2
    shortest = max(end.host_before - start.host_after, 1e-9)
    longest = end.host_after - start.host_before
    high = (guest + UPTIME_STEP_S) / shortest
    low = max(guest - UPTIME_STEP_S, 0.0) / max(longest, 1e-9)
    return {
        "guest_s": round(guest, 3),
        "real_s": round(central, 3),
        "read_s": round(
            max(start.host_after - start.host_before, end.host_after - end.host_before), 3
        ),
        "pace": round(guest / central, 4) if central > 0 else None,
        "pace_low": round(low, 4),
        "pace_high": round(high, 4),
        "kept": high >= 1 - PACE_TOLERANCE and low <= 1 + PACE_TOLERANCE,
    }


def is_vcpu_thread(comm: str) -> bool:
    """QEMU's TCG vCPU threads under -name ...,debug-threads=on: "CPU n/TCG", or "ALL
    CPUs/TCG" for the one thread that runs every vCPU in turn (as under -icount)."""
    return comm.endswith("/TCG")


def qemu_threads(pid: int) -> dict[int, str]:
    """The threads of process `pid` -> their names (comm); empty if it is gone."""
    threads = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return {}
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as fh:
                threads[int(tid)] = fh.read().strip()
        except OSError:
            continue  # ended since the listing
    return threads


def vcpu_cpu_s(pid: int) -> float | None:
    """CPU seconds (user + system) of a QEMU's TCG vCPU threads (is_vcpu_thread), or None
    if it has none to read (gone, or KVM)."""
    tick = os.sysconf("SC_CLK_TCK")
    total, found = 0.0, False
    for tid, comm in qemu_threads(pid).items():
        if not is_vcpu_thread(comm):
            continue
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()  # from field 3, state
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime (fields 14, 15)
        found = True
    return total if found else None


def _vcpu_reader(pid: int) -> Any:
    return lambda: vcpu_cpu_s(pid)


def _senders_start_s(senders: dict[int, dict[str, Any]]) -> float | None:
    """The first sender's first datagram on this machine's CLOCK_MONOTONIC (s), from the
    senders' reports (lanloss-send's start_ns is its kernel's CLOCK_MONOTONIC: this
    machine's for a sender in a namespace); None if none says."""
    starts = [rep["start_ns"] / 1e9 for rep in senders.values() if rep.get("start_ns")]
    return min(starts) if starts else None


def read_clock(transport: Any) -> ClockRead | None:
    """The guest's CLOCK_BOOTTIME in seconds (its /proc/uptime), or None if unreadable."""
    before = time.monotonic()
    try:
        r = transport.run(["cat", "/proc/uptime"], timeout=30)
    except HostUnreachable:
        return None
    after = time.monotonic()
    word = r.out.split()[0] if r.ok and r.out.split() else ""
    try:
        return ClockRead(float(word), before, after)
    except ValueError:
        return None


def place_qemu_threads(pid: int, vcpu_cpus: set[int], other_cpus: set[int]) -> dict[str, str]:
    """The vCPU threads of QEMU `pid` on `vcpu_cpus`, all its other threads (the main loop,
    which moves frames between the tap and the emulated NIC and raises its interrupts; the
    I/O workers) on `other_cpus`, so the emulated NIC never takes the emulated CPU's core
    -> thread name: the CPUs it may run on, as read back ("1", "0"; names that repeat, like
    QEMU's workers, joined when they differ). Threads QEMU's main loop starts later inherit
    its CPUs."""
    placed: dict[str, set[str]] = {}
    for tid, comm in qemu_threads(pid).items():
        try:
            os.sched_setaffinity(tid, vcpu_cpus if is_vcpu_thread(comm) else other_cpus)
            now = os.sched_getaffinity(tid)
        except OSError:
            continue  # a worker that ended since the listing
        placed.setdefault(comm, set()).add(",".join(str(c) for c in sorted(now)))
    return {comm: " ".join(sorted(cpus)) for comm, cpus in sorted(placed.items())}


def boot_timeout(icount: int | None) -> float:
    """How long a guest may take to answer ssh: three times its expected boot at its
    instruction rate, never less than BOOT_TIMEOUT."""
    if icount is None:
        return BOOT_TIMEOUT
    return max(BOOT_TIMEOUT, 3 * ICOUNT_BOOT_S * 2**icount)


TOOLS_DIR = "/tmp/lanloss-tools"
# What a guest cannot emulate, refused when asked for explicitly.
VM_CANNOT = {
    "tx_queue": "a guest's own port is its emulated NIC and its qdisc, not a shaper",
}


@dataclass
class VmTransport(SshTransport):
    """ssh to a guest's sshd through the hostfwd port in the switch namespace."""

    netns: str = ""
    ephemeral: bool = True  # its settings die with the guest (journal.recover skips it)

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "kind": "vm", "netns": self.netns}

    def wrap(self, argv: list[str]) -> list[str]:
        return ["nsenter", f"--net={NETNS_DIR}/{self.netns}", "--", *super().wrap(argv)]

    def check_reachable(self, cp: subprocess.CompletedProcess[bytes]) -> None:
        if cp.returncode == 1 and b"nsenter" in cp.stderr[:200]:
            raise HostUnreachable(f"guest {self.name}: namespace {self.netns} is gone")
        super().check_reachable(cp)


def transport_from(desc: dict[str, Any]) -> VmTransport:
    return VmTransport.from_description(desc)


def check_lab(req: Any) -> None:
    """--lab-inventory: a LAN that stands, every host a guest, a file that can be
    written (OptionError)."""
    from lanloss import outputs

    if not req.keep_lan:
        raise OptionError("--lab-inventory: the lab is the LAN left standing; add --keep-lan")
    if req.vm_guests != "all":
        raise OptionError(
            f"--lab-inventory: --vm-guests {req.vm_guests}: a lab's hosts are all guests "
            "(a namespace sender has no sshd); use --vm-guests all"
        )
    outputs.check_file(req.lab_inventory, "--lab-inventory")


def validate_machine(nic: str) -> None:
    if nic not in NIC_MODELS:
        raise OptionError(f"--vm-nic: {nic!r} is not one of {sorted(NIC_MODELS)}")
    netns.NetnsBackend.validate_machine()
    if shutil.which(QEMU) is None:
        raise BedError(f"the vm backend needs {QEMU} (apt-get install qemu-system-x86)")
    if not os.path.exists("/dev/net/tun"):
        raise BedError("the vm backend needs /dev/net/tun (taps)")


def accelerator() -> tuple[str, str]:
    """KVM only where it can boot an unmodified guest (hardware virtualisation: vmx/svm in
    the CPU flags and /dev/kvm usable); TCG otherwise. ($LANLOSS_VM_ACCEL forces one.)"""
    forced = os.environ.get("LANLOSS_VM_ACCEL")
    if forced in ("tcg", "kvm"):
        return forced, "LANLOSS_VM_ACCEL"
    try:
        flags = open("/proc/cpuinfo", encoding="ascii", errors="replace").read()
    except OSError:
        flags = ""
    hw = re.search(r"^flags\s*:.*\b(vmx|svm)\b", flags, flags=re.MULTILINE) is not None
    if hw and os.access("/dev/kvm", os.R_OK | os.W_OK):
        return "kvm", "vmx/svm in the CPU flags and /dev/kvm usable"
    if os.path.exists("/dev/kvm"):
        return "tcg", "/dev/kvm exists but the CPUs show no vmx/svm: it cannot boot a guest"
    return "tcg", "no /dev/kvm"


def qemu_version() -> str:
    try:
        out = subprocess.run([QEMU, "--version"], capture_output=True, text=True, timeout=10)
        return out.stdout.splitlines()[0].strip()
    except (OSError, subprocess.TimeoutExpired, IndexError):
        return "unknown"


def _ok(argv: list[str]) -> bool:
    return subprocess.run(argv, capture_output=True).returncode == 0


def guest_mac(k: int) -> str:
    return f"52:54:00:4c:{k // 256:02x}:{k % 256:02x}"


class VmBackend(Backend):
    """Guests for hosts, namespaces for switches; kernel-wide settings live in each guest."""

    name = "vm"
    keeps_lan = True
    changes_this_machine = True  # the switches' namespaces, htb_hysteresis, recv_cpu's cgroup
    emulates_here = True  # the guests, the switches and the namespace senders
    cannot = VM_CANNOT

    @classmethod
    def check_params(cls, p: dict[str, Any], given: set[str]) -> None:
        for opt, why in cls.cannot.items():
            if opt in given and p.get(opt):
                raise OptionError(f"{opt}: {p[opt]!r}: {why}, so the vm backend cannot set it")
        if p["cast"] == "multicast":
            raise OptionError("cast: multicast is not wired up on the vm backend; use unicast")
        netns.plan(p, "lanloss-")

    @classmethod
    def check_request(cls, req: Any) -> None:
        if req.inventory or req.senders or req.receivers:
            raise OptionError("--inventory/--sender/--receiver: the vm backend boots its hosts")
        if req.vm_icount is not None and req.vm_icount not in ICOUNT_SHIFTS:
            raise OptionError(f"--vm-icount: {req.vm_icount} is not a shift from 0 to 10")
        if req.vm_vcpus not in VCPUS:
            raise OptionError(f"--vm-vcpus: {req.vm_vcpus} is not a number of vCPUs from 1 to 8")
        netns.plan(req.params, req.prefix)
        if req.lab_inventory:
            check_lab(req)
        validate_machine(req.vm_nic)

    @classmethod
    def create(cls, req: Any, run_id: str, run_dir: str) -> VmBackend:
        backend = cls(
            req.params, req.prefix, run_dir, req.vm_nic, req.pin, req.state_dir, req.vm_guests
        )
        backend.icount = req.vm_icount
        backend.vcpus = req.vm_vcpus
        backend.lab = req.lab_inventory
        return backend

    def __init__(
        self,
        params: dict[str, Any],
        prefix: str,
        run_dir: str,
        nic: str = DEFAULT_NIC,
        pin: bool = True,
        state_dir: str = "",
        guests: str = "all",
    ) -> None:
        self.state_dir = state_dir
        self.guests = guests  # all: every host a guest; receivers: senders are namespaces
        self.params = params
        self.prefix = prefix
        self.run_dir = run_dir
        self.nic = nic
        self.driver = NIC_MODELS[nic]
        self.pin = pin
        self.plan = netns.plan(params, prefix)
        self.machine: Any = None
        self.hosts: dict[str, Any] = {}
        self.switches: list[Any] = []
        self.tool_dirs: dict[str, str] = {}
        self.qemu: dict[str, Any] = {}  # LocalProc, or KeptProc of a standing LAN
        self.qemu_argv: dict[str, list[str]] = {}
        self.accel, self.accel_why = accelerator()
        self.image: dict[str, Any] = {}
        self.boot_s: dict[str, float] = {}
        self.reaper: subprocess.Popen[bytes] | None = None
        self.journal: Any = None  # its "netns" lists the namespaces this run made
        self.standing: dict[str, Any] | None = None  # a LAN an earlier run left (adopt)
        self.lan_dir: str | None = None  # consoles and QEMU logs of guests that stand
        # each standing guest's ssh master (its ControlMaster folder), left up between the
        # points: a new master is a key exchange in the guest, ~7 s at -icount shift 5
        self.standing_masters: dict[str, str] = {}
        self.icount: int | None = None  # -icount shift of the guests (None: as fast as TCG)
        self.vcpus = 1  # each guest's virtual CPUs (-smp)
        self.log_marks: dict[str, int] = {}  # QEMU's output before the point, per guest
        self.clock_reads: dict[str, list[ClockRead | None]] = {}  # around the traffic
        # (monotonic s, CPU s of QEMU's vCPU thread or None) around the traffic, per guest
        self.vcpu_reads: dict[str, list[tuple[float, float | None]]] = {}
        # the emulator over most of the traffic, per guest (vcpu_window; icount only)
        self.vcpu_sampler: vcpu_window.VcpuSampler | None = None
        self.emulator_windows: dict[str, dict[str, Any]] = {}
        self.thread_cpus: dict[str, dict[str, str]] = {}  # _place_threads
        self.load_avg: dict[str, list[float]] = {}  # this machine's, around the traffic
        self.lab: str | None = None  # --lab-inventory: where the lab's inventory goes
        self.lab_links: dict[str, dict[str, str]] = {}  # switch -> its management link
        self.lab_written = False  # this run wrote the lab's inventory

    # -- building --------------------------------------------------------------------------

    def _switches(self, journal: Any) -> None:
        """The netns backend's switches: namespaces, bridges, switch-to-switch veths."""
        mtu = int(self.params["mtu"])
        subnets = vm_lab.free_subnets(len(self.plan.switches)) if self.lab else []
        for i, sw in enumerate(self.plan.switches):
            netns.create_namespace(sw.ns, journal)
            netns.make_switch(sw.ns)
            if self.lab:  # before the guests: their sshd is forwarded on its address
                self.lab_links[sw.name] = vm_lab.add_link(sw.ns, subnets[i])
        limit = int(self.params["switch_buffer"])
        for a, b, rate, _ in self.plan.links:
            na, nb = self.plan.nodes[a], self.plan.nodes[b]
            if na.kind != "switch" or nb.kind != "switch":
                continue  # a host's link is its guest's tap (_port)
            ia = self.plan.port_towards(a, b).name
            ib = self.plan.port_towards(b, a).name
            netns.add_veth(ia, na.ns, ib, nb.ns)
            for n, ifname in ((na, ia), (nb, ib)):
                self._port(n.ns, ifname, int(rate), limit, mtu)

    def _port(self, ns: str, ifname: str, rate: int, limit: int, mtu: int) -> None:
        netns._batch(
            "ip",
            ns,
            [
                f"link set dev {ifname} mtu {mtu}",
                f"link set dev {ifname} master {netns.BRIDGE}",
                f"link set dev {ifname} up",
            ],
        )
        netns.shape_port(ns, ifname, rate, limit, mtu)

    def _cmdline(self, node: Any, k: int) -> str:
        words = [
            "console=ttyS0",
            "quiet",
            "panic=-1",
            "tsc=reliable",
            f"ll.name={node.name}",
            f"ll.mac={guest_mac(k)}",
            f"ll.addr={node.address}/{netns.SUBNET.prefixlen}",
            f"ll.mgmt_mac={self.image['mgmt_mac']}",
            f"ll.driver={self.driver}",
        ]
        if self.lab:
            words.append(f"ll.mgmt_route={vm_lab.MGMT_NET}")
        return " ".join(words)

    def _icount_argv(self) -> list[str]:
        """A slow PC that does not stop: a fixed instruction rate, the guest's clock kept
        aligned with real time by sleeping (never run ahead); QEMU warns when it falls
        behind (LATE)."""
        if self.icount is None:
            return []
        return ["-icount", f"shift={self.icount},align=on,sleep=on"]

    def _hostfwd(self, node: Any, ssh_port: int) -> str:
        """The guest's sshd on its switch namespace's loopback (the harness's), and with
        --lab-inventory on the switch's management link too (a lab's ssh backend's)."""
        rules = [f"hostfwd=tcp:127.0.0.1:{ssh_port}-:22"]
        if self.lab:
            rules.append(f"hostfwd=tcp:{self.lab_links[node.switch]['there']}:{ssh_port}-:22")
        return ",".join(rules)

    def _qemu_argv(self, node: Any, k: int, port: str, ssh_port: int) -> list[str]:
        accel = f"tcg,tb-size={TB_SIZE_MB}" if self.accel == "tcg" else "kvm"
        argv = [
            QEMU,
            "-machine",
            "pc",
            "-accel",
            accel,
            "-m",
            str(MEMORY_MB),
            "-smp",
            str(self.vcpus),
            "-nodefaults",
            "-no-user-config",
            "-name",  # its vCPU thread is then named ".../TCG" (vcpu_cpu_s)
            f"{node.name},debug-threads=on",
            "-display",
            "none",
            "-no-reboot",
            "-serial",
            f"file:{self._log_path(node, '.console')}",
            "-kernel",
            self.image["kernel"],
            "-initrd",
            self.image["initrd"],
            "-append",
            self._cmdline(node, k),
            # vnet_hdr off: frames stay wire-sized (no GSO super-frames through the switch)
            "-netdev",
            f"tap,id=data,ifname={port},script=no,downscript=no,vnet_hdr=off",
            "-device",
            f"{self.nic},netdev=data,mac={guest_mac(k)}",
            "-netdev",
            f"user,id=mgmt,restrict=on,{self._hostfwd(node, ssh_port)}",
            "-device",
            f"virtio-net-pci,netdev=mgmt,mac={self.image['mgmt_mac']}",
            "-fsdev",
            "local,id=usr,path=/usr,security_model=none,readonly=on",
            "-device",
            "virtio-9p-pci,fsdev=usr,mount_tag=usr",
            *self._icount_argv(),
        ]
        return argv

    def _cpu_sets(self, node: Any) -> tuple[set[int], set[int]] | None:
        """Where a guest's QEMU runs as (its vCPU threads' CPUs, its other threads' CPUs),
        or None unpinned: a sender's whole QEMU on CPU 0 (as the netns backend's senders);
        a receiver's vCPU on CPUs 1.. and its other threads, the emulated NIC's side, on
        CPU 0 with the senders: the receiving guest's CPU is then a core of its own, as a
        real NIC's DMA takes no core of its host."""
        n = os.cpu_count() or 1
        if not self.pin or n < 2:
            return None
        if node.kind == "sender":
            return {0}, {0}
        return set(range(1, n)), {0}

    def _cpu_of(self, node: Any) -> list[str]:
        """QEMU starts on its vCPU's CPUs; _place_threads moves its other threads."""
        cpus = self._cpu_sets(node)
        if cpus is None:
            return []
        return ["taskset", "-c", ",".join(str(c) for c in sorted(cpus[0]))]

    def _place_threads(self) -> None:
        """Each guest's QEMU threads on their CPUs (_cpu_sets), at every point: a standing
        guest's workers come and go. Only a QEMU that is still the one started (poll: its
        pid and start time), never a process that took its pid."""
        for name, proc in self.qemu.items():
            cpus = self._cpu_sets(self.plan.nodes[name])
            if cpus is not None and proc.poll() is None:
                self.thread_cpus[name] = place_qemu_threads(proc.pid, *cpus)

    def setup(self, journal: Any) -> None:
        from lanloss.testbed import vmimage
        from lanloss.testbed.hosts import Host, gather_facts
        from lanloss.testbed.inventory import HostSpec

        self.journal = journal
        try:
            self.image = vmimage.build()
        except RuntimeError as exc:
            raise BedError(f"vm image: {exc}") from None
        self.machine = Host(
            HostSpec(netns.MACHINE, "machine", "", "", ""),
            netns.machine_transport(),
            self.run_dir,
            self.run_dir,
        )
        gather_facts(self.machine)
        journal.record_host(self.machine)
        if self.standing is None:
            booting = self._build(journal)
        else:
            booting = self._reuse(self.standing, journal)
        for sw in self.plan.switches:
            spec = HostSpec(sw.name, "switch", "", "", "", netns=sw.ns)
            self.switches.append(Host(spec, Local(sw.name, sw.ns), self.run_dir, self.run_dir))
        for node, sw, ssh_port, t0 in booting:
            self._reach_guest(node, sw, ssh_port, t0, journal)
        if self.standing is None:
            self._static_arp()
            if self.lab:
                self._serve_lab_snmp(journal)
        if self.lab:  # the lab as it stands once the run leaves it (teardown removes it)
            text = vm_lab.inventory(self.plan, self.lab_links, self.ssh_ports(), self.image)
            vm_lab.write(self.lab, text)
            self.lab_written = True
        self.log_marks = {n: self._log_size(n) for n in self.qemu}  # the point starts here

    def _serve_lab_snmp(self, journal: Any) -> None:
        """snmpd in each switch namespace on its management link, started by the LAN's
        keeper (it stands with the guests), answering on this machine's end."""
        assert self.keeper is not None and self.lan_dir is not None, "--lab-inventory: keep-lan"
        here = Local(netns.MACHINE)
        for sw in self.plan.switches:
            link = self.lab_links[sw.name]
            folder = os.path.join(self.lan_dir, f"snmpd-{sw.name}")
            argv = vm_lab.snmpd_argv(sw.ns, folder, link)
            kept = self.keeper.spawn(argv, os.path.join(folder, "snmpd.out"))
            journal.record("lan_procs", kept.journal_entry())
            snmp_agent.wait_answering(
                lambda k=kept: k.poll() is None, sw.ns, folder, here, link["there"]
            )

    def ssh_ports(self) -> dict[str, int]:
        """Each guest's hostfwd port (in its switch namespace)."""
        return {
            node.name: SSH_PORT0 + k + 1
            for k, node in enumerate(self.plan.hosts)
            if self.is_guest(node)
        }

    def _log_size(self, name: str) -> int:
        try:
            return os.path.getsize(self._log_path(self.plan.nodes[name], ".qemu"))
        except OSError:
            return 0

    def _build(self, journal: Any) -> list[tuple[Any, Any, int, float]]:
        """Switches, namespace hosts and booting guests, each journalled before it exists
        -> the guests being booted (node, switch, ssh port, start)."""
        netns.clear_stale([n.ns for n in self.plan.nodes.values() if not self.is_guest(n)])
        if self.keeper is not None:  # the guests' consoles outlive this run's folder
            self.lan_dir = tempfile.mkdtemp(prefix=f"{self.prefix}run-lan-")
            journal.record("lan_dirs", self.lan_dir)
        self._switches(journal)
        self.reaper = start_reaper(self.prefix, self.state_dir)
        mtu, limit = int(self.params["mtu"]), int(self.params["switch_buffer"])
        booting = []
        for k, node in enumerate(self.plan.hosts):
            sw = self.plan.nodes[node.switch]
            port = self.plan.port_towards(sw.name, node.name).name
            if not self.is_guest(node):
                self._namespace_host(node, k + 1, sw, port, journal)
                continue
            ssh_port = SSH_PORT0 + k + 1
            self._boot(node, k + 1, sw, port, ssh_port, journal)
            booting.append((node, sw, ssh_port, time.monotonic()))
        for node, sw, _, _ in booting:
            port = self.plan.port_towards(sw.name, node.name).name
            tap = ["ip", "-n", sw.ns, "link", "show", "dev", port]
            if not wait_until(lambda a=tap: _ok(a), 30, 0.1):
                raise BedError(
                    f"vm: QEMU of {node.name} made no tap {port}: {self._qemu_log(node)}"
                )
            self._port(sw.ns, port, node.rate, limit, mtu)
        # static forwarding, as in the netns backend: receivers never transmit
        for sw in self.plan.switches:
            ports = [self.plan.port_towards(sw.name, h.name).name for h in self.plan.hosts]
            lines = [
                f"fdb replace {guest_mac(k + 1)} dev {port} master static"
                for k, port in enumerate(ports)
            ]
            netns._batch("bridge", sw.ns, lines)
        netns.wait_link_up(self.plan)
        return booting

    def _boot(self, node: Any, k: int, sw: Any, port: str, ssh_port: int, journal: Any) -> None:
        """Start the guest of `node` (in the keeper, when the LAN is to stand)."""
        argv = [*self._cpu_of(node), *self._qemu_argv(node, k, port, ssh_port)]
        where = Local(sw.name, sw.ns)  # QEMU runs in its switch's namespace: the tap is a port
        self.qemu_argv[node.name] = where.wrap(argv)
        log = self._log_path(node, ".qemu")
        if self.keeper is not None:
            kept = self.keeper.spawn(where.wrap(argv), log)
            self.qemu[node.name] = kept
            journal.record("lan_procs", kept.journal_entry())
            return
        proc = where.spawn(argv, log)  # a kill -9 of lanloss takes the guest along
        self.qemu[node.name] = proc
        journal.record("procs", proc.journal_entry())

    def _reuse(self, lan: dict[str, Any], journal: Any) -> list[tuple[Any, Any, int, float]]:
        """A standing LAN: its shapers set anew where they differ, its guests and namespace
        hosts taken as they are -> the guests (node, switch, ssh port, now)."""
        from lanloss.testbed.keeper import KeptProc

        netns.reshape(lan.get("shapers", {}), self.shapers())
        self.reaper = start_reaper(self.prefix, self.state_dir)
        self.lan_dir = lan.get("folder")
        self.lab_links = dict((lan.get("lab") or {}).get("links", {}))
        self.standing_masters = dict(lan.get("ssh_masters", {}))
        booting = []
        for k, node in enumerate(self.plan.hosts):
            sw = self.plan.nodes[node.switch]
            if not self.is_guest(node):
                self._namespace_host_handle(node, journal)
                continue
            g = lan["guests"][node.name]
            self.qemu[node.name] = KeptProc(int(g["pid"]), g.get("start_time"), QEMU)
            self.qemu_argv[node.name] = list(g.get("argv", []))
            booting.append((node, sw, SSH_PORT0 + k + 1, time.monotonic()))
        return booting

    def _reach_guest(self, node: Any, sw: Any, ssh_port: int, t0: float, journal: Any) -> None:
        """ssh to the guest (waiting for its boot), its facts, its run folder and tools."""
        from lanloss.testbed.hosts import Host, gather_facts
        from lanloss.testbed.inventory import HostSpec, SshSpec

        key = self.image["key"]
        role = {"sender": "sender", "receiver": "receiver"}.get(node.kind, "both")
        ssh = SshSpec("root", key, ssh_port, 5.0, self.image["known_hosts"], "yes")
        spec = HostSpec(node.name, role, "127.0.0.1", node.address, netns.IFACE, ssh=ssh)
        t = VmTransport(node.name, "127.0.0.1", ssh, netns=sw.ns)
        t._control_dir = self._standing_master(node.name)
        folder = os.path.join(self.run_dir, node.name)
        os.makedirs(folder, exist_ok=True)
        host = Host(spec, t, f"/tmp/lanloss-run-{os.getpid()}", folder)
        self._wait_boot(host, node, t0)
        self.hosts[node.name] = host
        gather_facts(host)
        journal.record_host(host)
        t.run_ok(["mkdir", "-p", host.workdir])
        self.tool_dirs[node.name] = install_tools(host, TOOLS_DIR)

    def _standing_master(self, name: str) -> str | None:
        """The ControlMaster folder the standing guest `name`'s ssh master listens in, if
        the LAN left one and it is ours (<temp folder>/lanloss-ssh-..., this user's); None:
        the transport makes its own. A master that has ended (ControlPersist's idle time)
        is started again by the first call, in the same folder."""
        from lanloss.testbed import runfolder
        from lanloss.testbed.ssh import CONTROL_DIR_PREFIX

        folder = self.standing_masters.get(name)
        if folder and runfolder.own_temp_folder(folder, CONTROL_DIR_PREFIX):
            return folder
        return None

    def _static_arp(self) -> None:
        """Static ARP everywhere (in a guest kept in /run/lanloss/neigh: a driver reload
        re-adds it)."""
        for node in self.plan.hosts:
            lines = "".join(
                f"neigh replace {o.address} lladdr {guest_mac(j + 1)} dev {netns.IFACE} "
                "nud permanent\n"
                for j, o in enumerate(self.plan.hosts)
                if o is not node
            )
            h = self.hosts[node.name]
            if self.is_guest(node):
                h.transport.write_file("/run/lanloss/neigh", lines.encode())
                h.transport.run_ok(["ip", "-batch", "/run/lanloss/neigh"])
            else:
                netns._batch("ip", node.ns, lines.splitlines())

    def is_guest(self, node: Any) -> bool:
        return node.kind != "switch" and (self.guests == "all" or node.kind != "sender")

    def _namespace_host(self, node: Any, k: int, sw: Any, port: str, journal: Any) -> None:
        """--vm-guests receivers: a sender as in the netns backend (a namespace, veth, its
        own port's shaper), at the host's full speed: the seed's fast sender."""

        mtu, limit = int(self.params["mtu"]), int(self.params["tx_queue"])
        netns.create_namespace(node.ns, journal)
        netns.run_in(node.ns, "sysctl", "-q", "-w", *netns.NO_IPV6)
        netns._run(
            [
                "ip",
                "link",
                "add",
                netns.IFACE,
                "netns",
                node.ns,
                "address",
                guest_mac(k),
                "type",
                "veth",
                "peer",
                "name",
                port,
                "netns",
                sw.ns,
            ]
        )
        netns._batch(
            "ip",
            node.ns,
            [
                "link set lo up",
                f"link set dev {netns.IFACE} mtu {mtu}",
                f"addr add {node.address}/{netns.SUBNET.prefixlen} dev {netns.IFACE}",
                f"link set dev {netns.IFACE} up",
            ],
        )
        netns.shape_port(node.ns, netns.IFACE, node.rate, limit, mtu)
        self._port(sw.ns, port, node.rate, int(self.params["switch_buffer"]), mtu)
        self._namespace_host_handle(node, journal)

    def _namespace_host_handle(self, node: Any, journal: Any) -> None:
        """The Host of a namespace sender (built, or standing), journalled."""
        from lanloss import paths
        from lanloss.testbed.hosts import Host, gather_facts
        from lanloss.testbed.inventory import HostSpec

        role = {"sender": "sender", "receiver": "receiver"}.get(node.kind, "both")
        spec = HostSpec(node.name, role, "", node.address, netns.IFACE, netns=node.ns)
        folder = os.path.join(self.run_dir, node.name)
        os.makedirs(folder, exist_ok=True)
        host = Host(spec, Local(node.name, node.ns), folder, folder, machine=self.machine)
        self.hosts[node.name] = host
        gather_facts(host)
        journal.record_host(host)
        self.tool_dirs[node.name] = str(paths.ctool("lanloss-send").parent)

    def _qemu_log(self, node: Any) -> str:
        try:
            with open(self._log_path(node, ".qemu"), encoding="utf-8") as fh:
                lines = fh.read().strip().splitlines()
        except OSError:
            return "no output"
        return lines[-1] if lines else "no output"

    def _wait_boot(self, host: Any, node: Any, t0: float) -> None:
        proc = self.qemu[node.name]
        deadline = t0 + boot_timeout(self.icount)
        while True:
            if proc.poll() is not None:
                raise BedError(f"vm: the guest {node.name} exited: {self._qemu_log(node)}")
            try:
                if host.transport.run(["true"], timeout=20).ok:
                    break
            except HostUnreachable:
                pass
            if time.monotonic() > deadline:
                raise BedError(
                    f"vm: guest {node.name} did not answer on ssh within "
                    f"{boot_timeout(self.icount):g}s "
                    f"(console: {self._log_path(node, '.console')})"
                )
            time.sleep(0.5)
        self.boot_s[node.name] = round(time.monotonic() - t0, 2)

    # -- settings the backend adds ---------------------------------------------------------

    def machine_changes(self, captured: dict[str, Any]) -> list[Any]:
        from lanloss.testbed.settings import param_change

        change = param_change(
            self.machine,
            captured[netns.MACHINE],
            "sch_htb.htb_hysteresis",
            1,
            "switch shaper rounds",
        )
        return [change] if change.before != change.want else []

    def driver_changes(self, explicit: dict[str, int]) -> list[Any]:
        """Module parameters of the NIC driver (--driver-param), set in every guest by
        reloading the driver: made first, so the ring and coalescing settings made after
        it are not reset by the reload (and are restored after it is undone)."""
        from lanloss.testbed.settings import Change

        out = []
        guests = [h for h in self.hosts.values() if self.is_guest(self.plan.nodes[h.name])]
        for host in guests:
            for name, value in explicit.items():
                r = host.transport.run(["cat", f"/run/lanloss/mp.{name}"])
                before = int(r.out.strip()) if r.ok and r.out.strip().isdigit() else None
                if before is None:
                    raise BedError(f"{host.name}: cannot read the driver parameter {name}")
                if before != value:
                    out.append(
                        Change(host.name, "driver_param", name, before, value, "driver_param", True)
                    )
        return out

    def slow_receiver(
        self, host: Any, percent: int, prefix: str, journal: Any
    ) -> tuple[Any, Any, bool]:
        """recv_cpu: the receiver's whole guest (its QEMU: vCPU and I/O threads) joins the
        CPU quota on this machine, which makes a slower PC of it: NIC, kernel and
        application all slow down together, as on the seed's old receiver."""
        from lanloss.testbed import cpulimit

        if not self.is_guest(self.plan.nodes[host.name]):
            return super().slow_receiver(host, percent, prefix, journal)
        limit = cpulimit.create(self.machine, f"{prefix}{host.name}", percent, journal)
        pid = str(self.qemu[host.name].pid)
        if limit.procs_file:
            self.machine.transport.run_ok(
                ["sh", "-c", 'printf "%s\\n" "$1" > "$0"', limit.procs_file, pid]
            )
        else:  # no cpu controller: SCHED_IDLE for every thread (recorded: not a quota)
            self.machine.transport.run_ok(["chrt", "--all-tasks", "--idle", "-p", "0", pid])
        return self.machine, limit, False

    def end_slow_receiver(self, name: str, where: Any, limit: Any) -> None:
        """The guest leaves its quota before the restore (which then runs at full speed)
        and before the cgroup is removed (which kills what is still in it): a guest that
        stands for the next point keeps running."""
        from lanloss.testbed import cpulimit

        if not self.is_guest(self.plan.nodes[name]):
            return super().end_slow_receiver(name, where, limit)
        cpulimit.leave(where, limit, self.qemu[name].pid)

    def flows(self) -> list[tuple[str, str, int | None]]:
        return self.plan.flows

    def traffic_starts(self) -> None:
        self._place_threads()
        self._read_clocks("start")
        if self.vcpu_sampler is not None:  # an attempt whose traffic failed left it
            self.vcpu_sampler.stop()
            self.vcpu_sampler = None
        if self.icount is not None:
            self.vcpu_sampler = vcpu_window.VcpuSampler(
                {name: _vcpu_reader(q.pid) for name, q in self.qemu.items()}
            )
            self.vcpu_sampler.start()

    def traffic_ended(self, outcome: Any = None) -> None:
        if self.vcpu_sampler is not None:
            samples = self.vcpu_sampler.stop()
            self.vcpu_sampler = None
            # a guest sender's start is on its own clock, not this machine's
            if outcome is not None and self.guests == "receivers":
                start = _senders_start_s(outcome.senders)
                self.emulator_windows = {
                    name: vcpu_window.window(
                        samples[name], start, outcome.receivers.get(name, {}).get("cpu_window")
                    )
                    for name in samples
                }
        self._read_clocks("end")

    def cpu_window_hosts(self, receivers: list[Any]) -> dict[str, str]:
        """icount guests report their own CPU time and NIC interrupts over the traffic."""
        if self.icount is None:
            return {}
        return {h.name: h.iface for h in receivers if h.name in self.qemu}

    def _read_clocks(self, when: str) -> None:
        """The guests' clocks (icount guests only: a TCG guest without it keeps real time)
        and this machine's load average."""
        self.load_avg[when] = [round(x, 2) for x in os.getloadavg()]
        if self.icount is None:
            return
        for name in self.qemu:
            # the vCPU thread's time brackets traffic.run, not the clock's probe: read
            # after it at the start and before it at the end (the probe starts python3
            # in the guest, code new to QEMU's translator, far slower to emulate)
            if when == "end":
                self._read_vcpu(name)
            self.clock_reads.setdefault(name, []).append(read_clock(self.hosts[name].transport))
            if when == "start":
                self._read_vcpu(name)

    def _read_vcpu(self, name: str) -> None:
        cpu = vcpu_cpu_s(self.qemu[name].pid)
        self.vcpu_reads.setdefault(name, []).append((time.monotonic(), cpu))

    def pinning(self, senders: list[Any], receivers: list[Any]) -> dict[str, list[str]]:
        """Guests are pinned by their QEMU (_cpu_of); namespace senders on CPU 0."""
        return {h.name: ["taskset", "-c", "0"] for h in senders if h.spec.netns}

    # -- what the runner asks --------------------------------------------------------------

    def switch_ports(self, name: str) -> list[str]:
        return [p.name for p in self.plan.nodes[name].ports]

    def nic_port(self, host: str) -> tuple[str, str]:
        """The switch port that is this guest's tap: its tx drops are the NIC's overflow."""
        node = self.plan.nodes[host]
        return node.switch, self.plan.port_towards(node.switch, host).name

    def network_idle(self) -> bool:
        return netns.shapers_idle(sw.ns for sw in self.plan.switches)

    def flow_ports(self, src: str, dst: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
        return netns.flow_ports(self.plan, src, dst)

    def env(self) -> dict[str, Any]:
        return {
            "accelerator": self.accel,
            "accelerator_why": self.accel_why,
            "qemu": qemu_version(),
            "nic": self.nic,
            "driver": self.driver,
            "driver_params_at_boot": "the driver's defaults (--driver-param reloads it)",
            "memory_mb": MEMORY_MB,
            "vcpus": self.vcpus,
            "tb_size_mb": TB_SIZE_MB if self.accel == "tcg" else None,
            "kernel": self.image.get("kernel_version"),
            "image_debs": self.image.get("debs"),
            "boot_s": self.boot_s,
            "icount": self._icount_env(),
            # per guest, its QEMU's threads by name -> the CPUs each may run on, as read
            # back when the traffic started (_cpu_sets); empty unpinned
            "qemu_threads": self.thread_cpus,
            "load_avg": self.load_avg,
            "qemu_argv": self.qemu_argv,
            "channel": "ssh to the guest's sshd over a virtio-net management NIC "
            "(QEMU user networking, hostfwd on the switch namespace's loopback)",
            "lab": self._lab_env(),
        }

    def _lab_env(self) -> dict[str, Any] | None:
        """--lab-inventory: where the lab's guests and agents are reached (vm_lab)."""
        if not self.lab:
            return None
        return {"inventory": os.path.abspath(self.lab), "links": self.lab_links,
                "ssh_ports": self.ssh_ports()}  # fmt: skip

    def _icount_env(self) -> dict[str, Any] | None:
        """The guests' instruction rate, and QEMU's align warnings during the point (since
        the guests were up for it: a boot, slower than real time under load, does not
        count)."""
        if self.icount is None:
            return None
        late: dict[str, Any] = {}
        for name in self.qemu:
            try:
                with open(self._log_path(self.plan.nodes[name], ".qemu"), "rb") as fh:
                    fh.seek(self.log_marks.get(name, 0))
                    text = fh.read().decode(errors="replace")
            except OSError:
                text = ""
            found = [m.groups() for m in LATE.finditer(text)]
            worst = max((float(b or a) for a, b in found), default=0.0)
            late[name] = {"warnings": len(found), "max_late_s": worst}
        paces = {
            name: pace(reads[0], reads[1])
            for name, reads in self.clock_reads.items()
            if len(reads) == 2 and reads[0] is not None and reads[1] is not None
        }
        unread = sorted(set(self.qemu) - set(paces))
        return {
            "shift": self.icount,
            "instructions_per_s": 1e9 / 2**self.icount,
            "align": True,
            # QEMU prints how late the guest is when that crosses a whole second (up or
            # down): any warning during the point means its pace was not the nominal one
            "late_during_point": late,
            "pace": paces,
            "pace_rule": f"kept when the guest's clock went within {PACE_TOLERANCE:.0%} of "
            "real time over the traffic, given the reads' uncertainty",
            "pace_unread": unread,
            # the share of a host core QEMU's vCPU thread used while the traffic ran (the
            # tools' start in the guest, the traffic, its drain): the guest's code, its
            # device accesses, its waking from idle; no measure of QEMU's speed alone
            # (lanloss/host_presets.py, QEMU_BUSY_SPEEDUP)
            "vcpu_share": self._vcpu_shares(),
            # over most of the traffic alone: the guest's busy and idle time and its NIC's
            # interrupts by its own count, and the CPU time of QEMU's vCPU thread over the
            # same real seconds (testbed/vcpu_window.py)
            "window": self.emulator_windows,
            # the point's verdict: every guest kept its pace (an unread clock is not kept)
            "kept_pace": not unread and all(v["kept"] for v in paces.values()),
        }

    def _vcpu_shares(self) -> dict[str, float]:
        """Per guest read at both ends of the traffic: its vCPU thread's CPU seconds over
        the wall seconds between the reads."""
        shares = {}
        for name, reads in self.vcpu_reads.items():
            if len(reads) == 2 and reads[0][1] is not None and reads[1][1] is not None:
                wall = reads[1][0] - reads[0][0]
                if wall > 0:
                    shares[name] = round((reads[1][1] - reads[0][1]) / wall, 4)
        return shares

    def describe(self) -> dict[str, Any]:
        mtu = int(self.params["mtu"])
        sw_limit = int(self.params["switch_buffer"])
        return {
            "prefix": self.prefix,
            "namespaces": [n.ns for n in self.plan.nodes.values() if not self.is_guest(n)],
            "switches": {
                sw.name: {
                    p.name: {
                        **netns.port_description(p),
                        "tap": self.plan.nodes[p.peer].kind != "switch",
                        "tc": "; ".join(netns.shaper(p.rate, sw_limit, mtu)),
                    }
                    for p in sw.ports
                }
                for sw in self.plan.switches
            },
            "hosts": {
                h.name: {
                    **netns.host_description(h),
                    **(
                        {
                            "guest": f"{self.nic} ({self.driver}), {MEMORY_MB} MB, 1 vCPU, "
                            f"{self.accel}",
                            "tc": "none: the guest's NIC sends as fast as the guest can",
                        }
                        if self.is_guest(h)
                        else {
                            "netns": h.ns,
                            "tc": "; ".join(
                                netns.shaper(h.rate, int(self.params["tx_queue"]), mtu)
                            ),
                        }
                    ),
                }
                for h in self.plan.hosts
            },
            "bridge": {"bridge-nf-call-iptables": 1, "mcast_snooping": 0, "fdb": "static"},
            "not_emulated": self.plan.unsupported,
        }

    def teardown(self) -> list[str]:
        for host in self.hosts.values():
            host.transport.close()
        for proc in self.qemu.values():
            proc.send_signal(signal.SIGTERM)
        for proc in self.qemu.values():
            if proc.wait(5.0) is None:
                proc.send_signal(signal.SIGKILL)
                proc.wait(5.0)
        failures = netns.teardown(list(self.journal.data["netns"])) if self.journal else []
        self._stop_reaper()
        if self.lan_dir:
            shutil.rmtree(self.lan_dir, ignore_errors=True)
        if self.lab_written and os.path.exists(self.lab or ""):
            os.unlink(self.lab or "")  # it names a lab that is gone
        return failures

    def close(self, lan_stays: bool = False) -> None:
        """The run is over (its LAN torn down, or standing for the next run): the hosts'
        connections close but for the ssh masters of guests that stand (the journal's host
        entries name their folders: the LAN's teardown or recovery ends them), and the
        reaper, which takes the namespaces down only if this process dies, is told so."""
        for name, host in self.hosts.items():
            if not (lan_stays and self.is_guest(self.plan.nodes[name])):
                host.transport.close()
        self._stop_reaper()

    def _stop_reaper(self) -> None:
        stop_reaper(self.reaper)
        self.reaper = None

    # -- a LAN that stands between runs: switches, namespace hosts and the guests (held by
    # the keeper) are kept; the switch ports' shapers are set anew where they differ.

    def lan(self) -> dict[str, Any]:
        return {
            "backend": self.name,
            "key": self.lan_key(),
            "shapers": self.shapers(),
            "folder": self.lan_dir,
            "ssh_masters": {
                name: host.transport.control_dir()
                for name, host in self.hosts.items()
                if self.is_guest(self.plan.nodes[name])
            },
            "guests": {
                name: {**proc.journal_entry(), "argv": self.qemu_argv.get(name, [])}
                for name, proc in self.qemu.items()
            },
            "lab": self._lab_env(),
        }

    def lan_key(self) -> str:
        """The netns backend's shape, and what the guests are: NIC, instruction rate,
        which hosts are guests, their vCPUs, their CPUs (pinning) and the accelerator."""
        shape = netns.lan_shape(self.plan)
        guests = {"nic": self.nic, "icount": self.icount, "guests": self.guests}
        if self.vcpus != 1:  # a one-vCPU LAN keeps the key it had before vCPUs were an option
            guests["vcpus"] = self.vcpus
        if self.lab:  # a lab's guests listen on its management links too
            guests["lab"] = True
        return netns.digest({**shape, **guests, "pin": self.pin, "accel": self.accel})

    def shapers(self) -> dict[str, list[str]]:
        """Every switch port's shaper, and namespace hosts' own (a guest's port is its NIC)."""
        return netns.plan_shapers(self.plan, lambda host: not self.is_guest(host))

    def can_adopt(self, lan: dict[str, Any]) -> bool:
        from lanloss.testbed.transport import proc_start_time

        if lan.get("backend") != self.name or lan.get("key") != self.lan_key():
            return False
        names = [n.ns for n in self.plan.nodes.values() if not self.is_guest(n)]
        if not netns.all_ours(names):
            return False
        guests = lan.get("guests", {})
        for node in self.plan.hosts:
            if not self.is_guest(node):
                continue
            g = guests.get(node.name)
            if not g or g.get("start_time") is None:
                return False
            if proc_start_time(int(g["pid"])) != g["start_time"]:
                return False  # the guest is gone (crashed, or its keeper stopped)
        return True

    def adopt(self, lan: dict[str, Any]) -> None:
        self.standing = lan

    def _log_path(self, node: Any, suffix: str) -> str:
        """Where a guest's console (.console) and QEMU's output (.qemu) go: the LAN's own
        folder when the guests are to stand, else this run's."""
        return os.path.join(self.lan_dir or self.run_dir, node.name + suffix)


# -- the reaper: namespaces gone at once after a kill -9 ------------------------------------


def start_reaper(prefix: str, state_dir: str) -> subprocess.Popen[bytes]:
    """A process that outlives a kill -9 of the harness (own session, no parent-death
    signal) and, when the pipe from the harness ends without the word 'done', removes
    the namespaces the run's journal lists (and so the taps and the guests' QEMU in
    them)."""
    return subprocess.Popen(
        [sys.executable, "-m", "lanloss.testbed.vm", "--reap", prefix, state_dir],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
    )


def stop_reaper(reaper: subprocess.Popen[bytes] | None) -> None:
    if reaper is None or reaper.stdin is None:
        return
    try:
        reaper.stdin.write(b"done\n")
        reaper.stdin.close()
    except (BrokenPipeError, OSError):
        pass
    try:
        reaper.wait(10)
    except subprocess.TimeoutExpired:
        reaper.kill()


def _reap(prefix: str, state_dir: str) -> int:
    from lanloss.testbed import journal as jr

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C at the terminal is the harness's
    data = sys.stdin.buffer.read()
    if data.strip() == b"done":
        return 0
    # Under the prefix's lock: a next run that got it first has replayed the journal
    # already (it is gone, or is that run's own if it was killed too).
    lock = jr.lock(state_dir, prefix, timeout=3600.0)
    try:
        journal = jr.Journal.find(state_dir, prefix)
        if journal is not None:
            netns.teardown(list(journal.data["netns"]))
    except BedError:
        return 1  # an untrusted or unreadable journal: the next run names it
    finally:
        lock.release()
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--reap":
        raise SystemExit(_reap(sys.argv[2], sys.argv[3]))
    raise SystemExit(2)
