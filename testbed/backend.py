# SPDX-License-Identifier: GPL-2.0-only
"""The testbed Backend: what the runner asks of any set of hosts, and the backends there are.

A backend turns a validated request into hosts the runner can measure: it checks what it
cannot do (before any host is touched), builds or reaches the hosts (``setup``, journalled),
names the flows, says which kernel-wide settings and counters it adds, and tears down what
it built. The runner (lanloss.testbed.runner) calls only these methods and never tests a
backend's name; ``BACKENDS`` maps the ``--backend`` names to their classes, so a new
backend (containers, a lab with a managed switch) is one new module and one line here.

Life of a backend in a run::

    cls = backend_class(req.backend)
    cls.check_params(params, given)      # OptionError: what it cannot set (study check too)
    cls.check_request(req)               # OptionError/BedError: machine, inventory; no host
    b = cls.create(req, run_id, run_dir)
    b.adopt(lan) if b.can_adopt(lan)     # a LAN an earlier run of the prefix left standing
    b.setup(journal)                     # hosts up, every object journalled before it exists
    ... settings, counters, traffic (b.flows(), b.machine_changes(), b.slow_receiver(), ...)
    b.teardown(); b.close()              # always, from the runner's finally; or, with
                                         # --keep-lan, journal.stand(b.lan()) and
                                         # close(lan_stays=True)
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, ClassVar

from lanloss.options import OptionError

if TYPE_CHECKING:  # pragma: no cover - typing only
    from lanloss.testbed.cpulimit import CpuLimit
    from lanloss.testbed.hosts import Host
    from lanloss.testbed.journal import Journal
    from lanloss.testbed.keeper import Keeper
    from lanloss.testbed.runner import Request
    from lanloss.testbed.settings import Change
    from lanloss.testbed.snmp import SwitchReader

# name -> (module, class): imported when asked for, so `lanloss bed check` of a netns point
# does not import QEMU's backend.
BACKENDS: dict[str, tuple[str, str]] = {
    "netns": ("lanloss.testbed.netns", "NetnsBackend"),
    "ssh": ("lanloss.testbed.ssh", "SshBackend"),
    "vm": ("lanloss.testbed.vm", "VmBackend"),
}


def backend_class(name: str) -> type[Backend]:
    """The class of the backend called `name` (OptionError naming the known ones)."""
    try:
        module, cls = BACKENDS[name]
    except (KeyError, TypeError):
        raise OptionError(f"--backend: {name!r} is not one of {', '.join(BACKENDS)}") from None
    return getattr(importlib.import_module(module), cls)


def refuse_guest_options(req: Request, backend: str) -> None:
    """What only guests have (a NIC driver to reload, an instruction rate), asked of a
    backend whose hosts are not guests: OptionError."""
    if req.driver_params:
        raise OptionError(
            f"--driver-param: only the vm backend reloads a NIC driver, not {backend}"
        )
    if req.vm_icount is not None:
        raise OptionError("--vm-icount: only the vm backend's guests have an instruction rate")
    if req.vm_vcpus != 1:
        raise OptionError(f"--vm-vcpus: {req.vm_vcpus}: only the vm backend's guests have vCPUs")
    if req.lab_inventory:
        raise OptionError("--lab-inventory: only the vm backend's guests stand as a lab")


# A flow as a backend names it: (sender host, receiver host, its own rate or None = `rate`).
Flow = tuple[str, str, "int | None"]


class Backend(ABC):
    """One kind of testbed. Attributes filled by ``setup``: ``machine`` (this machine as a
    host, where kernel-wide settings of emulated hosts live; None for real hosts),
    ``hosts`` (name -> Host), ``switches`` (hosts whose ports are counted), ``tool_dirs``
    (host name -> folder holding lanloss-send/-recv there)."""

    name: ClassVar[str]
    # Whether a run changes this machine (namespaces, cgroups, kernel-wide sysctls): then
    # it holds the machine lock and its journal joins the machine-wide registry.
    changes_this_machine: ClassVar[bool] = False
    # Options this backend cannot set, with why (refused when given explicitly).
    cannot: ClassVar[dict[str, str]] = {}
    # Whether it can leave its LAN standing between runs (lan, can_adopt, adopt); a run
    # with --keep-lan then gives it a keeper (lanloss.testbed.keeper) before setup.
    keeps_lan: ClassVar[bool] = False
    # Whether its LAN (switches, shapers, guests, senders) runs on this machine's CPUs, so
    # that the hypervisor's steal here disturbs its runs (lanloss.testbed.steal).
    emulates_here: ClassVar[bool] = False
    # Whether it can serve its emulated switches over SNMP (--switch-snmp: snmp_agent).
    serves_snmp: ClassVar[bool] = False
    keeper: Keeper | None = None

    machine: Host | None
    hosts: dict[str, Host]
    switches: list[Host]
    tool_dirs: dict[str, str]

    # -- before any host is touched ----------------------------------------------------------

    @classmethod
    def check_params(cls, p: dict[str, Any], given: set[str]) -> None:
        """A point's options against what this backend can set (also `lanloss study check`).
        The default refuses the options in ``cannot`` when given."""
        for opt, why in cls.cannot.items():
            if opt in given:
                raise OptionError(
                    f"{opt}: {p.get(opt)!r}: {why}, so the {cls.name} backend cannot set it"
                )

    @classmethod
    @abstractmethod
    def check_request(cls, req: Request) -> None:
        """The rest of the request (machine, inventory, host names), without touching a
        host; may fill what create needs into `req` (the ssh backend's inventory)."""

    @classmethod
    @abstractmethod
    def create(cls, req: Request, run_id: str, run_dir: str) -> Backend:
        """A backend for this run (nothing built yet)."""

    # -- the run -----------------------------------------------------------------------------

    @abstractmethod
    def setup(self, journal: Journal) -> None:
        """Build or reach the hosts; journal every object before it is made and every host
        (facts gathered) once it answers."""

    @abstractmethod
    def flows(self) -> list[Flow]:
        """The run's flows, after setup."""

    def machine_hosts(self) -> list[Host]:
        """Hosts whose kernel-wide settings and counters belong to the run besides the
        senders and receivers (this machine, for emulated hosts)."""
        return [self.machine] if self.machine is not None else []

    def machine_changes(self, captured: dict[str, Any]) -> list[Change]:
        """Settings the emulation itself needs on top of the point's (journalled like them)."""
        return []

    def driver_changes(self, explicit: dict[str, int]) -> list[Change]:
        """NIC driver load-time parameters (--driver-param); only a backend that can reload
        its hosts' driver accepts them (check_request refuses them otherwise)."""
        return []

    def slow_receiver(
        self, host: Host, percent: int, prefix: str, journal: Journal
    ) -> tuple[Host, CpuLimit, bool]:
        """recv_cpu: a CPU quota for `host`'s receiving processes -> (the host the quota
        lives on, the quota, whether the receiving tool joins it itself). By default a
        cgroup (or SCHED_IDLE) on the machine that runs the tool, which the tool joins."""
        from lanloss.testbed import cpulimit

        where = host.sysctl_host
        return where, cpulimit.create(where, f"{prefix}{host.name}", percent, journal), True

    def end_slow_receiver(self, name: str, where: Host, limit: CpuLimit) -> None:
        """The point's traffic is over: what slow_receiver put under the quota of host
        `name` leaves it. Nothing by default: the receiving tool joined it and has exited."""
        return None

    def pinning(self, senders: list[Host], receivers: list[Host]) -> dict[str, list[str]]:
        """Host name -> a command prefix that pins its tools to CPUs (none by default: real
        hosts schedule their own)."""
        return {}

    def switch_ports(self, name: str) -> list[str]:
        """The counted ports of switch host `name`."""
        return []

    def flow_ports(self, src: str, dst: str) -> tuple[list[Any], list[Any]]:
        """(ingress, egress) switch ports of the path src -> dst, as (switch, port)."""
        return [], []

    def snmp_readers(self) -> list[SwitchReader]:
        """The switches whose ports are read over SNMP (lanloss.testbed.snmp), after setup;
        their deltas join the switch's name in the run's counters."""
        return []

    def nic_port(self, host: str) -> tuple[str, str] | None:
        """The switch port whose transmit drops are `host`'s NIC overflow (an emulated NIC
        fed by a tap), or None."""
        return None

    def network_idle(self) -> bool:
        """Nothing queued in the network the backend can see (polled after the traffic)."""
        return True

    def traffic_starts(self) -> None:
        """Called just before the point's traffic (a backend may read its hosts' clocks)."""
        return None

    def traffic_ended(self, outcome: Any = None) -> None:
        """Called just after the point's traffic, with what it measured (traffic.Outcome)."""
        return None

    def cpu_window_hosts(self, receivers: list[Host]) -> dict[str, str]:
        """Receivers that report their own CPU time over the traffic (lanloss-recv
        --cpu-window) -> the device name of their data NIC's interrupts; none by default."""
        return {}

    @abstractmethod
    def describe(self) -> dict[str, Any]:
        """The record's env.topology: what was built or used."""

    def env(self) -> dict[str, Any] | None:
        """Facts of the backend itself for the record (e.g. the emulator), or None."""
        return None

    # -- a LAN that stands between the runs of one prefix (--keep-lan) -------------------------

    def lan(self) -> dict[str, Any] | None:
        """What this run built, for the journal of a standing LAN: {"backend", "key", ...}
        (None: nothing of its own to keep, e.g. real hosts)."""
        return None

    def can_adopt(self, lan: dict[str, Any]) -> bool:
        """Whether the standing LAN `lan` (Backend.lan() of an earlier run of this prefix)
        is this run's LAN, still intact: then setup reuses it, changing only what differs."""
        return False

    def adopt(self, lan: dict[str, Any]) -> None:
        """Make setup reuse the standing LAN `lan` (can_adopt was true) instead of building."""
        raise NotImplementedError(f"the {self.name} backend keeps no LAN standing")

    @abstractmethod
    def teardown(self) -> list[str]:
        """Remove what setup built (by exact name); the failures, never raises for them."""

    def close(self, lan_stays: bool = False) -> None:
        """Close connections to the hosts. `lan_stays`: the LAN stands for the prefix's next
        run, and a backend may leave up the connections that serve it (a guest's ssh
        master; its journal entry ends it when the LAN goes)."""
        for host in self.hosts.values():
            host.transport.close()
