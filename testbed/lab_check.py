# SPDX-License-Identifier: GPL-2.0-only
"""`lanloss bed check --backend ssh --inventory FILE`: read-only probes of a lab's hosts and
switches, one table, one line per finding.

Each host gets one ssh call: a batch of commands that only read (transport.run_many):
``id -u`` and the shell's CapEff, ``uname -r``/``-m``, the interface's ``ethtool -i/-a/-c/-g``
(the read forms of -A/-C/-G) with the rest of what a run captures (settings.capture_argvs),
the driver's InterruptThrottleRate module parameter, and whether lanloss-send/-recv are
installed (or can be copied or built) and iperf3 is there. The settings a run would
change are then planned from that capture exactly as a run plans them (settings.plan_changes).
Each receiver's clock is measured against each of its senders (clocks.offsets: the ping-pong
peer is the only thing started on a host), and each switch's SNMP agent is asked for its
ports (snmp.resolve).

A finding is a *problem* when it would make `bed run` fail or leave its drop attribution
incomplete (`bed check` exits 1), else a *warning* (the run goes on and records it):

- ssh: a host of this run that does not answer is a problem (one not in this run: a
  warning).
- privileges: a login without CAP_NET_ADMIN (the net sysctls, MTU and ethtool -A/-C/-G need
  it; root has it, but not in a container that drops it) is a problem where the run changes
  a setting, else a warning.
- driver map: a receiver whose driver has no counter map (nic_counters.mapped) is a
  problem: its NIC drops would be left unexplained. A sender's NIC counters are not read.
- ethtool -A/-C/-G: a setting the command line asks for (--pause, --itr, --rx-ring) that the
  NIC cannot take is a problem, as in a run; a default it cannot take is a warning (the run
  records it as unsupported).
- tools: lanloss-send/-recv neither installed, nor copyable (same architecture), nor
  buildable (cc and make), or iperf3 missing with --tool iperf3: a problem.
- clock: a pair not synchronized or not measured is a warning (its latency will be null).
- switch: an agent that does not answer or lacks a port a host is plugged into: a problem.

Nothing on a host is changed: the only files written are the clock probe's PID file under
/tmp (as every clock probe of a run writes one).
"""

from __future__ import annotations

import platform
import tempfile
from dataclasses import asdict, dataclass, field
from typing import Any

from lanloss.testbed import clocks, nic_counters, settings, snmp
from lanloss.testbed.errors import HostUnreachable
from lanloss.testbed.hosts import Host, _colon_pairs
from lanloss.testbed.inventory import Inventory
from lanloss.testbed.transport import Local, Result

CAP_NET_ADMIN = 12  # linux/capability.h: the capability net sysctls and ethtool -A/-C/-G need
# ethtool's set flag, its read form, and whether what the read form printed has what a run
# sets with it (settings.plan_changes' rule: PAUSE fields, rx-usecs, the RX ring size)
CAPABILITIES = (
    ("-A", "-a", lambda text: bool(settings.parse_pause(text))),
    ("-C", "-c", lambda text: settings.parse_coalesce(text)["rx-usecs"] is not None),
    ("-G", "-g", lambda text: settings.parse_ring(text)["current"] is not None),
)
ITR_PARAM = "InterruptThrottleRate"  # e1000/e1000e: the load-time interrupt throttle
_ITR_READ = (
    'd=$(ethtool -i "$0" 2>/dev/null | sed -n "s/^driver: //p"); '
    'f="/sys/module/$d/parameters/$1"; [ -n "$d" ] && [ -r "$f" ] && cat "$f"'
)
_TOOLS_RUN = 'test -x "$0/lanloss-send" && test -x "$0/lanloss-recv" && "$0/lanloss-recv" --help'
_BUILD = "command -v cc && command -v make"
HERE = "this machine"
ROOT_REMEDY = "log in as root (ssh: user: root) where root has CAP_NET_ADMIN"


@dataclass
class Finding:
    """One line of `bed check`: on which host or switch, what, and what to do."""

    where: str
    what: str
    remedy: str
    problem: bool  # True: a run would fail or its attribution be incomplete

    def line(self) -> str:
        kind = "" if self.problem else "warning: "
        return f"lanloss bed check: {self.where}: {kind}{self.what} — {self.remedy}"


@dataclass
class HostCheck:
    """What the probe of one inventory host found (None: not known, e.g. unreachable)."""

    name: str
    role: str  # in this run: sender | receiver | unused
    interface: str
    receives: bool = True  # its inventory role lets it receive (receiver or both)
    reachable: bool = False
    error: str | None = None  # why it did not answer
    privilege: str | None = None  # root | CAP_NET_ADMIN | none
    uid: str | None = None
    kernel: str | None = None
    arch: str | None = None
    driver: str | None = None
    driver_map: str | None = None  # nic_counters.mapped
    ethtool: dict[str, bool] = field(default_factory=dict)  # -A/-C/-G: the read form answers
    itr_param: str | None = None  # the driver's InterruptThrottleRate, where it has one
    tools: str | None = None  # installed | copy | build | iperf3 | missing
    clock: dict[str, str] = field(default_factory=dict)  # sender -> what was measured
    captured: settings.Captured | None = field(default=None, repr=False)


@dataclass
class SwitchCheck:
    name: str
    agent: str  # address:port
    snmp: str  # v2c | v3
    reachable: bool = False
    ports: dict[str, int] = field(default_factory=dict)


@dataclass
class LabCheck:
    hosts: list[HostCheck]
    switches: list[SwitchCheck]
    findings: list[Finding]

    @property
    def ok(self) -> bool:
        return not any(f.problem for f in self.findings)

    def to_dict(self) -> dict[str, Any]:
        hosts = [{k: v for k, v in asdict(h).items() if k != "captured"} for h in self.hosts]
        return {
            "ok": self.ok,
            "hosts": hosts,
            "switches": [asdict(s) for s in self.switches],
            "problems": [f.line() for f in self.findings if f.problem],
            "warnings": [f.line() for f in self.findings if not f.problem],
        }


# -- one host -------------------------------------------------------------------------------


def _tools_folder(inv: Inventory) -> str | None:
    """Where install_tools keeps this version of the tools on a host; None when they are
    not built here (a run would fail before any host)."""
    from lanloss.testbed.ssh import _tools_digest

    try:
        return f"{inv.tools_dir}/{_tools_digest()}"
    except FileNotFoundError:
        return None


def probe_argvs(host: Host, tools_folder: str | None) -> list[tuple[str, list[str]]]:
    """(name, argv) of the read-only batch run on a host: the run's capture and the rest."""
    items = [
        ("uid", ["id", "-u"]),
        ("capeff", ["sed", "-n", "s/^CapEff:[[:space:]]*//p", "/proc/self/status"]),
        ("kernel", ["uname", "-r"]),
        ("arch", ["uname", "-m"]),
        ("itr", ["sh", "-c", _ITR_READ, host.iface, ITR_PARAM]),
        ("build", ["sh", "-c", _BUILD]),
        ("iperf3", ["sh", "-c", "command -v iperf3"]),
    ]
    if tools_folder is not None:
        items.append(("tools", ["sh", "-c", _TOOLS_RUN, tools_folder]))
    return items + settings.capture_argvs(host)


def privilege(uid: Result, capeff: Result) -> str:
    """root or CAP_NET_ADMIN: the login has CAP_NET_ADMIN (the net sysctls, MTU and ethtool
    -A/-C/-G need it), as uid 0 or not; none: it lacks it (a user, or a root whose bounding
    set drops it, as in a container)."""
    try:
        caps = int(capeff.out.strip(), 16) if capeff.ok else 0
    except ValueError:
        caps = 0
    if not caps >> CAP_NET_ADMIN & 1:
        return "none"
    return "root" if uid.ok and uid.out.strip() == "0" else "CAP_NET_ADMIN"


def _tools(got: dict[str, Result], arch: str | None, tool: str) -> str:
    if tool == "iperf3":
        return "iperf3" if got["iperf3"].ok else "missing"
    if "tools" in got and got["tools"].ok:
        return "installed"
    if arch == platform.machine():
        return "copy"  # copied at the run; built there if the copy does not run
    return "build" if got["build"].ok else "missing"


def probe_host(host: Host, role: str, tools_folder: str | None, tool: str) -> HostCheck:
    """One ssh call to the host; HostCheck.reachable False when it does not answer."""
    check = HostCheck(host.name, role, host.iface, host.spec.receives)
    items = probe_argvs(host, tools_folder)
    try:
        results = host.transport.run_many([argv for _, argv in items], timeout=60)
    except HostUnreachable as exc:
        check.error = str(exc)
        return check
    got = dict(zip([name for name, _ in items], results, strict=True))
    capture_items = settings.capture_argvs(host)
    check.captured = settings.collect(capture_items, results[len(items) - len(capture_items) :])
    check.reachable = True
    check.privilege = privilege(got["uid"], got["capeff"])
    check.uid = got["uid"].out.strip() if got["uid"].ok else None
    check.kernel = got["kernel"].out.strip() if got["kernel"].ok else None
    check.arch = got["arch"].out.strip() if got["arch"].ok else None
    info = check.captured.values.get(f"ethtool -i {host.iface}")
    check.driver = dict(_colon_pairs(info)).get("driver") if info else None
    check.driver_map = nic_counters.mapped(check.driver)
    for flag, query, takes in CAPABILITIES:
        text = check.captured.values.get(f"ethtool {query} {host.iface}")
        check.ethtool[flag] = text is not None and takes(text)
    check.itr_param = got["itr"].out.strip() if got["itr"].ok else None
    check.tools = _tools(got, check.arch, tool)
    return check


# -- the findings of one host ---------------------------------------------------------------


def _unreachable(c: HostCheck, in_run: bool) -> Finding:
    return Finding(
        c.name,
        f"unreachable over ssh: {c.error}",
        "check its address, the ssh key and user in the inventory, and that sshd runs",
        in_run,
    )


def _driver(c: HostCheck, in_run: bool) -> list[Finding]:
    if c.driver_map is not None or c.role == "sender" or not c.receives:
        return []  # attribution reads the NIC counters of receivers only
    if c.driver is None:
        why = (c.captured.unreadable if c.captured else {}).get(f"ethtool -i {c.interface}", "")
        return [
            Finding(
                c.name,
                f"no driver for {c.interface} (ethtool -i: {why or 'no answer'})",
                "install ethtool there and check the host's `interface` in the inventory",
                in_run,
            )
        ]
    known = ", ".join(sorted(nic_counters.DRIVERS))
    return [
        Finding(
            c.name,
            f"driver {c.driver} of {c.interface} is not in the NIC counter map",
            f"its NIC drops would be left unexplained: use a NIC whose driver is mapped "
            f"({known}), or add a map for {c.driver} to testbed/nic_counters.py",
            in_run,
        )
    ]


# Socket buffer limits a run forces past when it cannot raise them (runner._force_buffer)
FORCED = {"rcvbuf": "SO_RCVBUFFORCE", "sndbuf": "SO_SNDBUFFORCE"}


def _unsupported(c: HostCheck, u: settings.Unsupported) -> Finding:
    """A setting the run plans that the host cannot take: a problem when the command line
    asked for it (the run refuses to start), as a run decides."""
    option = u.option or u.setting.split()[0]
    flag = {"pause": "-A", "itr": "-C", "rx_ring": "-G"}.get(option, "")
    what = f"cannot set {option} on {c.interface if flag else c.name}: {u.reason}"
    given = f"--{option.replace('_', '-')}"
    if option in FORCED and u.setting.startswith("sysctl"):
        return Finding(c.name, what, f"the run forces the buffer instead ({FORCED[option]})", False)
    if not u.explicit:
        remedy = "the run records it as unsupported and goes on"
        return Finding(c.name, what, remedy + (f"; {given} needs ethtool {flag}" if flag else ""),
                       False)  # fmt: skip
    if not flag:
        return Finding(c.name, what, f"leave {given} out, or make {u.setting} settable there", True)
    remedy = f"leave {given} out, or use a NIC whose driver supports ethtool {flag}"
    if option == "itr" and c.itr_param is not None:
        remedy += f" (or load {c.driver} with {ITR_PARAM}=N: now {c.itr_param})"
    return Finding(c.name, what, remedy, True)


def _tool_finding(c: HostCheck, tool: str, in_run: bool) -> list[Finding]:
    if c.tools != "missing":
        return []
    if tool == "iperf3":
        return [Finding(c.name, "iperf3 is not installed", "install iperf3 there", in_run)]
    return [
        Finding(
            c.name,
            f"lanloss-send/-recv are not installed, this machine's build does not run on "
            f"{c.arch} and there is no cc and make to build them",
            "install a C compiler (gcc) and make there",
            in_run,
        )
    ]


def _privilege(c: HostCheck, changes: list[settings.Change], in_run: bool) -> list[Finding]:
    if c.privilege != "none":
        return []
    mine = [ch for ch in changes if ch.host == c.name]
    what = f"logged in as uid {c.uid} without CAP_NET_ADMIN"
    if mine:
        shown = ", ".join(f"{ch.kind} {ch.target}" for ch in mine)
        return [
            Finding(c.name, f"{what}: the run changes {shown}", ROOT_REMEDY, in_run)
        ]  # fmt: skip
    remedy = f"a run that changes a setting there will fail; {ROOT_REMEDY}"
    return [Finding(c.name, what, remedy, False)]


def host_findings(
    checks: list[HostCheck],
    hosts: dict[str, Host],
    params: dict[str, Any],
    given: set[str],
    tool: str,
) -> list[Finding]:
    """Every finding of the hosts, the run's settings planned as a run plans them."""
    out: list[Finding] = []
    up = [c for c in checks if c.reachable]
    senders = [hosts[c.name] for c in up if c.role == "sender"]
    receivers = [hosts[c.name] for c in up if c.role == "receiver"]
    captured = {c.name: c.captured for c in up if c.captured is not None}
    changes, unsupported = settings.plan_changes(params, given, senders, receivers, captured)
    for c in checks:
        in_run = c.role != "unused"
        if not c.reachable:
            out.append(_unreachable(c, in_run))
            continue
        out += _privilege(c, changes, in_run)
        out += _driver(c, in_run)
        out += [_unsupported(c, u) for u in unsupported if u.host == c.name]
        out += _tool_finding(c, tool, in_run)
    return out


# -- clocks and switches --------------------------------------------------------------------


def check_clocks(checks: list[HostCheck], hosts: dict[str, Host]) -> list[Finding]:
    """Each reachable receiver's clock measured against each reachable sender's."""
    up = {c.name: c for c in checks if c.reachable}
    pairs = [
        (hosts[s], hosts[r])
        for r in up
        if up[r].role == "receiver"
        for s in up
        if up[s].role == "sender"
    ]
    return clock_findings(checks, clocks.offsets(pairs))


def clock_findings(checks: list[HostCheck], measured: dict[str, dict[str, Any]]) -> list[Finding]:
    """clocks.offsets' answer: what was measured into each receiver's HostCheck.clock, and a
    warning for each pair not synchronized or not measured."""
    by_name = {c.name: c for c in checks}
    out = []
    for receiver, by_sender in measured.items():
        for sender, entry in by_sender.items():
            ok, said, remedy = clocks.check(entry)
            by_name[receiver].clock[sender] = said
            if not ok:
                out.append(Finding(receiver, f"clock against {sender}: {said}", str(remedy), False))
    return out


def check_switches(inv: Inventory) -> tuple[list[SwitchCheck], list[Finding]]:
    """Each inventory switch's agent, asked for the ports hosts and links are plugged into."""
    checks, out = [], []
    for name, spec in inv.switches.items():
        a = spec.agent
        c = SwitchCheck(name, f"{a.address}:{a.port}", f"v{a.version}")
        try:
            c.ports = snmp.resolve(Local(name), a, inv.ports_on(name))
            c.reachable = True
        except snmp.SnmpError as exc:
            out.append(
                Finding(
                    f"switch {name}",
                    str(exc),
                    "check its address and SNMP credentials, that this machine may query "
                    "the agent (its access list), and the hosts' switch_port names",
                    True,
                )
            )
        checks.append(c)
    return checks, out


# -- the whole lab --------------------------------------------------------------------------


def run(req: Any) -> LabCheck:
    """Probe every inventory host and switch for the run `req` would be (runner.prepare'd)."""
    from lanloss.testbed.ssh import transport_for

    inv: Inventory = req.inv
    snd, rcv = req.picked
    roles = {**{h.name: "sender" for h in snd}, **{h.name: "receiver" for h in rcv}}
    folder = _tools_folder(inv) if req.tool == "lanloss" else None
    findings: list[Finding] = []
    if req.tool == "lanloss" and folder is None:
        findings.append(
            Finding(HERE, "lanloss-send/-recv are not built", "run `make build` here", True)
        )
    switches, switch_findings = check_switches(inv)
    with tempfile.TemporaryDirectory(prefix="lanloss-check-") as here:
        hosts = {s.name: Host(s, transport_for(s), local_dir=here) for s in inv.hosts.values()}
        try:
            checks = [
                probe_host(hosts[n], roles.get(n, "unused"), folder, req.tool) for n in inv.hosts
            ]
            findings += host_findings(checks, hosts, req.params, req.given, req.tool)
            findings += check_clocks(checks, hosts)
        finally:
            for h in hosts.values():
                h.transport.close()
    return LabCheck(checks, switches, findings + switch_findings)


# -- the table ------------------------------------------------------------------------------

COLUMNS = ("name", "role", "reach", "priv", "kernel", "iface", "driver", "map",
           "-A", "-C", "-G", "ITR", "tools", "clock / ports")  # fmt: skip


def _yes(v: bool | None) -> str:
    return "?" if v is None else "yes" if v else "no"


def _host_row(c: HostCheck) -> list[str]:
    if not c.reachable:
        return [c.name, c.role, "no", *["?"] * (len(COLUMNS) - 4), "-"]
    clock = "; ".join(f"{s}: {said}" for s, said in c.clock.items()) or "-"
    return [
        c.name, c.role, "ssh", c.privilege or "?", c.kernel or "?", c.interface,
        c.driver or "?", c.driver_map or "none",
        *[_yes(c.ethtool.get(flag)) for flag, _, _ in CAPABILITIES],
        c.itr_param or "-", c.tools or "?", clock,
    ]  # fmt: skip


def _switch_row(c: SwitchCheck) -> list[str]:
    ports = ", ".join(f"{label}=ifIndex {i}" for label, i in c.ports.items())
    reach = "snmp" if c.reachable else "no"
    rest = ["-"] * (len(COLUMNS) - 5)
    return [c.name, "switch", reach, c.snmp, *rest, f"{c.agent}: {ports or '?'}"]


def table(check: LabCheck) -> str:
    """The hosts and switches as a plain text table, columns aligned (the last left free)."""
    rows = [list(COLUMNS)] + [_host_row(c) for c in check.hosts]
    rows += [_switch_row(s) for s in check.switches]
    widths = [max(len(r[i]) for r in rows) for i in range(len(COLUMNS) - 1)]
    lines = []
    for r in rows:
        cells = [cell.ljust(w) for cell, w in zip(r, widths, strict=False)] + [r[-1]]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines) + "\n"
