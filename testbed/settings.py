# SPDX-License-Identifier: GPL-2.0-only
"""Host settings: capture (verbatim text), plan and apply the run's changes, restore.

Captured on every host before and after a run, verbatim, so that "restored"
means byte-identical: sysctls ``net.core.rmem_*``, ``wmem_*``,
``netdev_max_backlog`` and ``net.ipv4.udp_mem``; ``ethtool -a/-c/-g/-k/-i`` of
the interface under test; its MTU and qdisc.

A change is journalled (``journal.Journal.record_change``, fsynced) before it
is made, and verified by reading the value back afterwards: in a non-initial
network namespace ``sysctl -w net.core.rmem_max=...`` prints an error but
exits 0 (docs/testbed.md §4), so an exit status alone proves nothing. What a
host cannot do (ethtool -A/-C/-G on veth) is recorded as unsupported; it is
fatal only when the run asked for that setting explicitly.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import asdict, dataclass
from typing import Any

from lanloss.testbed.errors import BedError
from lanloss.testbed.hosts import Host

SYSCTLS = (
    "net.core.rmem_default",
    "net.core.rmem_max",
    "net.core.wmem_default",
    "net.core.wmem_max",
    "net.core.netdev_max_backlog",
    "net.ipv4.udp_mem",
)
ETHTOOL_QUERIES = ("-a", "-c", "-g", "-k", "-i")
# Kernel module parameters a backend may change, by name: machine-wide, captured on the
# host that holds the machine's settings (netns: htb_hysteresis of its shapers).
MODULE_PARAMS = {"sch_htb.htb_hysteresis": "/sys/module/sch_htb/parameters/htb_hysteresis"}
# The NIC driver's load-time parameters in a vm guest (testbed/vm-image): set by reloading
# the driver, the value in effect kept in DRIVER_PARAM_DIR/mp.NAME.
DRIVER_PARAM_SET = "/bb/lanloss-modparam"
DRIVER_PARAM_DIR = "/run/lanloss"


def sysctl_path(key: str) -> str:
    return "/proc/sys/" + key.replace(".", "/")


def capture_argvs(host: Host) -> list[tuple[str, list[str]]]:
    """(setting name, argv) pairs read on one host."""
    items = [(f"sysctl {k}", ["cat", sysctl_path(k)]) for k in SYSCTLS]
    if host.spec.role == "machine":
        items += [(f"param {k}", ["cat", path]) for k, path in MODULE_PARAMS.items()]
    if host.iface:
        i = host.iface
        items += [(f"ethtool {q} {i}", ["ethtool", q, i]) for q in ETHTOOL_QUERIES]
        items += [(f"link {i}", ["ip", "-o", "link", "show", "dev", i])]
        items += [(f"qdisc {i}", ["tc", "qdisc", "show", "dev", i])]
    return items


@dataclass
class Captured:
    """Settings text by name, and what could not be read (name -> reason)."""

    values: dict[str, str]
    unreadable: dict[str, str]

    def as_env(self) -> dict[str, Any]:
        return {**self.values, **{k: None for k in self.unreadable}}


def capture(host: Host) -> Captured:
    items = capture_argvs(host)
    return collect(items, host.transport.run_many([argv for _, argv in items]))


def collect(items: list[tuple[str, list[str]]], results: list[Any]) -> Captured:
    """capture_argvs' items and their results (run_many) as a Captured."""
    values: dict[str, str] = {}
    unreadable: dict[str, str] = {}
    for (name, _), res in zip(items, results, strict=True):
        if res.ok:
            text = res.out
            if name.startswith("link "):
                # counters-free: the flags, mtu, qdisc, state and link-layer address; not
                # the ifindex, which a driver reload (vm: --driver-param) renumbers
                text = re.sub(r"^\d+:\s*", "", re.sub(r"\\\s+", " ", text))
            values[name] = text.rstrip("\n")
        else:
            unreadable[name] = res.first_error_line()
    return Captured(values, unreadable)


# -- parsing of the captured text ---------------------------------------------------------


def parse_pause(text: str) -> dict[str, str]:
    """`ethtool -a`: {'autoneg': 'on', 'rx': 'off', 'tx': 'off'}."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"^\s*(Autonegotiate|RX|TX):\s*(\S+)", line)
        if m:
            out[{"Autonegotiate": "autoneg", "RX": "rx", "TX": "tx"}[m.group(1)]] = m.group(2)
    return out


def parse_coalesce(text: str) -> dict[str, Any]:
    """`ethtool -c`: adaptive-rx ('on'/'off'/None if n/a) and rx-usecs (int or None)."""
    out: dict[str, Any] = {"adaptive-rx": None, "rx-usecs": None}
    m = re.search(r"Adaptive RX:\s*(on|off)", text)
    if m:
        out["adaptive-rx"] = m.group(1)
    m = re.search(r"^rx-usecs:\s*(\d+)", text, flags=re.MULTILINE)
    if m:
        out["rx-usecs"] = int(m.group(1))
    return out


def parse_ring(text: str) -> dict[str, int | None]:
    """`ethtool -g`: the RX ring's maximum and current size."""
    out: dict[str, int | None] = {"max": None, "current": None}
    section = None
    for line in text.splitlines():
        if line.startswith("Pre-set maximums"):
            section = "max"
        elif line.startswith("Current hardware settings"):
            section = "current"
        else:
            m = re.match(r"^RX:\s*(\d+)", line)
            if m and section:
                out[section] = int(m.group(1))
    return out


def parse_mtu(text: str) -> int | None:
    m = re.search(r"\bmtu (\d+)", text)
    return int(m.group(1)) if m else None


# -- planning -------------------------------------------------------------------------------


@dataclass
class Change:
    """One setting the run changes on one host; ``before`` is what restore writes back."""

    host: str
    kind: str  # sysctl | param | pause | coalesce | ring | mtu | driver_param
    target: str  # sysctl key or interface
    before: Any
    want: Any
    option: str  # the vocabulary option that asked for it
    explicit: bool  # given by the user (fatal if impossible) or a default
    # point: the run's own, restored when the run ends; lan: one the LAN itself needs (a
    # backend's machine_changes), kept while a LAN stands between runs (--keep-lan)
    scope: str = "point"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Change:
        return cls(**d)

    def describe(self) -> str:
        return f"{self.kind} {self.target} on {self.host}: {self.before} -> {self.want}"


@dataclass
class Unsupported:
    host: str
    setting: str
    reason: str
    option: str | None = None
    explicit: bool = False


def itr_to_usecs(itr: int) -> int:
    """itr (max interrupts/s, 0 = one per packet) as ethtool rx-usecs."""
    return 0 if itr == 0 else max(1, round(1e6 / itr))


def param_change(machine: Host, captured: Captured, name: str, want: int, why: str) -> Change:
    """A backend's own change of a module parameter on `machine` (BedError if unreadable)."""
    text = captured.values.get(f"param {name}")
    if text is None:
        reason = captured.unreadable.get(f"param {name}", "not captured")
        raise BedError(f"{machine.name}: cannot read {MODULE_PARAMS[name]} ({why}): {reason}")
    return Change(machine.name, "param", name, int(text.split()[0]), want, why, True, "lan")


def captured_name(change: Change) -> str | None:
    """The name under which `capture` reads what `change` sets (sysctls and module
    parameters), or None."""
    return f"{change.kind} {change.target}" if change.kind in ("sysctl", "param") else None


class _Plan:
    """The changes and unsupported settings of a run, collected host by host from the
    captured 'before' state: a setting is changed only where it differs, and planned once."""

    def __init__(self, params: dict[str, Any], given: set[str], captured: dict[str, Captured]):
        self.params, self.given, self.captured = params, given, captured
        self.changes: list[Change] = []
        self.unsupported: list[Unsupported] = []
        self._seen: set[tuple[str, str, str]] = set()

    def add(self, host: Host, kind: str, target: str, before: Any, want: Any, option: str):
        key = (host.name, kind, target)
        if key in self._seen:
            return
        self._seen.add(key)
        if before != want:
            self.changes.append(
                Change(host.name, kind, target, before, want, option, option in self.given)
            )

    def cannot(self, host: Host, setting: str, reason: str, option: str) -> None:
        if (host.name, setting) not in {(u.host, u.setting) for u in self.unsupported}:
            self.unsupported.append(
                Unsupported(host.name, setting, reason, option, option in self.given)
            )

    def _sysctl_now(self, target: Host, key: str, option: str) -> int | None:
        """The captured value of a kernel-wide sysctl, or None (recorded as unsupported)."""
        text = self.captured[target.name].values.get(f"sysctl {key}")
        if text is None:
            reason = self.captured[target.name].unreadable.get(f"sysctl {key}", "not readable")
            self.cannot(target, f"sysctl {key}", reason, option)
            return None
        return int(text.split()[0])

    def sysctl_floor(self, host: Host, key: str, need: int, option: str) -> None:
        target = host.sysctl_host
        current = self._sysctl_now(target, key, option)
        if current is not None:
            self.add(target, "sysctl", key, current, max(current, need), option)

    def sysctl_set(self, host: Host, key: str, value: int, option: str) -> None:
        target = host.sysctl_host
        current = self._sysctl_now(target, key, option)
        if current is not None:
            self.add(target, "sysctl", key, current, value, option)

    def socket_limits(self, senders: list[Host], receivers: list[Host]) -> None:
        """rmem_max, wmem_max and the backlog: room for the buffers the options ask for."""
        p = self.params
        for h in receivers:
            if p.get("rcvbuf") is not None:
                self.sysctl_floor(h, "net.core.rmem_max", int(p["rcvbuf"]), "rcvbuf")
            if p.get("backlog") is not None:
                self.sysctl_set(h, "net.core.netdev_max_backlog", int(p["backlog"]), "backlog")
        for h in senders:
            if p.get("sndbuf") is not None:
                self.sysctl_floor(h, "net.core.wmem_max", int(p["sndbuf"]), "sndbuf")

    def link(self, h: Host) -> None:
        """The interface's MTU and PAUSE (sender or receiver)."""
        cap, i = self.captured[h.name], h.iface
        mtu = parse_mtu(cap.values.get(f"link {i}", ""))
        if mtu is None:
            self.cannot(h, f"mtu {i}", cap.unreadable.get(f"link {i}", "unreadable"), "mtu")
        else:
            self.add(h, "mtu", i, mtu, int(self.params["mtu"]), "mtu")
        want_pause = self.params.get("pause")
        if want_pause is None:
            return
        state = self.ethtool_state(h, "-a", parse_pause, None, "no pause parameters", "pause")
        if state is None:
            return
        want = {"autoneg": "off", "rx": want_pause, "tx": want_pause}
        if state.get("rx") == want_pause and state.get("tx") == want_pause:
            want = state
        self.add(h, "pause", i, state, want, "pause")

    def ethtool_state(
        self, h: Host, flag: str, parse: Any, key: str | None, missing: str, param: str
    ) -> dict[str, Any] | None:
        """What `parse` reads from the captured `ethtool FLAG IFACE` of @h; None, after saying
        that @param cannot be set, when that is unreadable, empty or without @key."""
        cap, i = self.captured[h.name], h.iface
        command = f"ethtool {flag} {i}"
        text = cap.values.get(command)
        state = parse(text) if text is not None else {}
        if not state or (key is not None and state.get(key) is None):
            why = cap.unreadable.get(command, missing)
            self.cannot(h, f"{param} {i}", f"ethtool {flag}: {why}", param)
            return None
        return state

    def interrupts(self, h: Host) -> None:
        """A receiver's interrupt throttle (itr as ethtool -C rx-usecs)."""
        if self.params.get("itr") is None:
            return
        i = h.iface
        state = self.ethtool_state(
            h, "-c", parse_coalesce, "rx-usecs", "no rx-usecs parameter", "itr"
        )
        if state is None:
            return
        want = {
            "adaptive-rx": "off" if state["adaptive-rx"] else None,
            "rx-usecs": itr_to_usecs(int(self.params["itr"])),
        }
        self.add(h, "coalesce", i, state, want, "itr")

    def ring(self, h: Host) -> None:
        """A receiver's RX ring size (ethtool -G rx), within the NIC's maximum."""
        want = self.params.get("rx_ring")
        if want is None:
            return
        i = h.iface
        ring = self.ethtool_state(h, "-g", parse_ring, "current", "no RX ring parameter", "rx_ring")
        if ring is None:
            return
        if ring["max"] is not None and int(want) > ring["max"]:
            why = f"{want} is above the NIC maximum {ring['max']}"
            self.cannot(h, f"rx_ring {i}", why, "rx_ring")
        else:
            self.add(h, "ring", i, ring["current"], int(want), "rx_ring")


def plan_changes(
    params: dict[str, Any],
    given: set[str],
    senders: list[Host],
    receivers: list[Host],
    captured: dict[str, Captured],
) -> tuple[list[Change], list[Unsupported]]:
    """The changes a run needs on each host, from the captured 'before' state."""
    plan = _Plan(params, given, captured)
    plan.socket_limits(senders, receivers)
    for h in [*senders, *receivers]:
        plan.link(h)
    for h in receivers:
        plan.interrupts(h)
        plan.ring(h)
    return plan.changes, plan.unsupported


# -- applying -------------------------------------------------------------------------------


def _file_write(path: str, value: Any) -> list[str]:
    # printf to the file: unlike `sysctl -w`, a refused write fails the command.
    return ["sh", "-c", 'printf "%s\\n" "$1" > "$0"', path, str(value)]


def _sysctl_write(key: str, value: Any) -> list[str]:
    return _file_write(sysctl_path(key), value)


WAIT_CARRIER = (
    'i=0; until [ "$(cat "$0" 2>/dev/null)" = 1 ] || [ $i -ge 100 ]; do sleep 0.1; i=$((i+1)); done'
)


def _argvs_for(change: Change, value: Any) -> list[list[str]]:
    k, t = change.kind, change.target
    if k == "sysctl":
        return [_sysctl_write(t, value)]
    if k == "param":
        return [_file_write(MODULE_PARAMS[t], value)]
    if k == "mtu":
        return [["ip", "link", "set", "dev", t, "mtu", str(value)]]
    if k == "pause":
        # A real NIC renegotiates its link after -A (e1000 resets): wait for the carrier,
        # or the next command (or the capture after restore) sees the link down.
        return [
            ["ethtool", "-A", t, "autoneg", value["autoneg"], "rx", value["rx"], "tx", value["tx"]],
            ["sh", "-c", WAIT_CARRIER, f"/sys/class/net/{t}/carrier"],
        ]
    if k == "coalesce":
        argv = ["ethtool", "-C", t]
        if value.get("adaptive-rx"):
            argv += ["adaptive-rx", value["adaptive-rx"]]
        return [argv + ["rx-usecs", str(value["rx-usecs"])]]
    if k == "ring":
        return [["ethtool", "-G", t, "rx", str(value)]]
    if k == "driver_param":  # a load-time parameter: the vm guest reloads its NIC driver
        return [[DRIVER_PARAM_SET, t, str(value)]]
    raise AssertionError(f"unknown change kind {k}")


def _read_back(host: Host, change: Change) -> Any:
    k, t = change.kind, change.target
    if k in ("sysctl", "param"):
        path = sysctl_path(t) if k == "sysctl" else MODULE_PARAMS[t]
        r = host.transport.run(["cat", path])
        return int(r.out.split()[0]) if r.ok and r.out.split() else None
    if k == "mtu":
        return parse_mtu(host.transport.run(["ip", "-o", "link", "show", "dev", t]).out)
    if k == "pause":
        return parse_pause(host.transport.run(["ethtool", "-a", t]).out)
    if k == "coalesce":
        return parse_coalesce(host.transport.run(["ethtool", "-c", t]).out)
    if k == "ring":
        return parse_ring(host.transport.run(["ethtool", "-g", t]).out)["current"]
    if k == "driver_param":
        r = host.transport.run(["cat", f"{DRIVER_PARAM_DIR}/mp.{t}"])
        return int(r.out.strip()) if r.ok and r.out.strip().isdigit() else None
    raise AssertionError(k)


def _matches(change: Change, value: Any, got: Any) -> bool:
    if change.kind == "pause":
        return got.get("rx") == value["rx"] and got.get("tx") == value["tx"]
    if change.kind == "coalesce":
        return got.get("rx-usecs") == value["rx-usecs"]
    return got == value


def set_value(host: Host, change: Change, value: Any) -> str | None:
    """Make one setting `value` and check it took; None, or why it did not.

    A setting that already has the value is not written (restoring a change a
    host refused must not fail the same way again).
    """
    if _matches(change, value, _read_back(host, change)):
        return None
    for argv in _argvs_for(change, value):
        r = host.transport.run(argv)
        if not r.ok:
            return f"`{shlex.join(argv)}`: {r.first_error_line()}"
    got = _read_back(host, change)
    if not _matches(change, value, got):
        return f"read back {got!r} after setting {value!r}"
    return None


def apply(
    hosts: dict[str, Host], changes: list[Change], journal: Any, soft: frozenset[str] = frozenset()
) -> list[Unsupported]:
    """Make the changes in order, each journalled first; returns the ones a host refused.

    A refused explicit change raises BedError (after journalling; the caller's
    restore puts back what did change), unless its option is in `soft`: the
    caller has another way (SO_RCVBUFFORCE when rmem_max cannot be raised).
    """
    refused: list[Unsupported] = []
    for change in changes:
        journal.record_change(change)
        why = set_value(hosts[change.host], change, change.want)
        if why is not None:
            setting = f"{change.option} ({change.kind} {change.target})"
            refused.append(Unsupported(change.host, setting, why, change.option, change.explicit))
            # put back anything a half-applied command changed
            set_value(hosts[change.host], change, change.before)
            if change.explicit and change.option not in soft:
                raise BedError(f"{change.host}: cannot set {change.option}: {why}")
    return refused


def restore(hosts: dict[str, Host], changes: list[Change]) -> list[str]:
    """Write back every 'before' value, last change first; returns the failures."""
    failures = []
    for change in reversed(changes):
        host = hosts.get(change.host)
        if host is None:
            failures.append(f"{change.describe()}: host unknown")
            continue
        try:
            why = set_value(host, change, change.before)
        except BedError as exc:
            why = str(exc)
        if why is not None:
            failures.append(f"{change.describe()}: {why}")
    return failures


def compare(before: Captured, after: Captured) -> list[str]:
    """Names of settings whose text differs between two captures."""
    names = sorted(set(before.values) | set(after.values))
    return [n for n in names if before.values.get(n) != after.values.get(n)]
