# SPDX-License-Identifier: GPL-2.0-only
"""The host inventory (YAML) of the ssh backend: loaded and validated completely
before any host is contacted.

    ssh:                       # defaults for every host (each host may override)
      user: root
      key: ~/.ssh/id_ed25519   # private key; must exist and not be readable by others
      port: 22
      connect_timeout: 5       # seconds
      known_hosts: ~/.ssh/known_hosts        # optional
      strict_host_key_checking: accept-new   # yes | accept-new | no
    tools_dir: /tmp/lanloss-tools            # where the C tools are put on each host
    workdir: /tmp                            # run folders are made under it
    hosts:
      pc1:
        address: 192.0.2.11    # ssh address (IP or a resolvable name)
        data_address: 10.0.0.11  # optional: the traffic address on `interface`
        interface: eth1        # the NIC under test
        role: sender           # sender | receiver | both

The netns backend needs no file: its hosts come from the topology options
(``lanloss.testbed.netns.plan``).
"""

from __future__ import annotations

import ipaddress
import os
import re
import socket
import stat
from dataclasses import dataclass, field
from typing import Any

from lanloss import inputs
from lanloss.inputs import shown
from lanloss.options import OptionError
from lanloss.testbed import lab_switches

ROLES = ("sender", "receiver", "both")
# Checked with fullmatch: a bare `$` also matches before a final newline ("a\n").
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$")
_IFACE_RE = re.compile(r"^[A-Za-z0-9_.:@-]{1,15}$")
_USER_RE = re.compile(r"^[a-z_][a-z0-9_.-]{0,31}\$?$", re.IGNORECASE)
_HOSTNAME_RE = re.compile(
    r"^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    r"(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$"
)
_CHECKING = ("yes", "accept-new", "no")
_TOP_KEYS = {"ssh", "hosts", "tools_dir", "workdir", "switches", "links"}
_HOST_KEYS = {"address", "data_address", "interface", "role", "ssh", "switch", "switch_port"}
_SSH_KEYS = {"user", "key", "port", "connect_timeout", "known_hosts", "strict_host_key_checking"}

# The ssh defaults of an inventory host (lanloss.testbed.ssh.SshTransport carries its SshSpec)
SSH_USER = "root"
SSH_PORT = 22
SSH_CONNECT_TIMEOUT_S = 5.0
SSH_HOST_KEY_CHECKING = "accept-new"


@dataclass(frozen=True)
class SshSpec:
    user: str
    key: str
    port: int = SSH_PORT
    connect_timeout: float = SSH_CONNECT_TIMEOUT_S
    known_hosts: str | None = None
    strict_host_key_checking: str = SSH_HOST_KEY_CHECKING


@dataclass(frozen=True)
class HostSpec:
    name: str
    role: str
    address: str  # how to reach it (ssh), or "" for a namespace
    data_address: str  # the IPv4 address traffic is sent to / from
    interface: str  # the NIC under test
    ssh: SshSpec | None = None
    netns: str | None = None  # the netns backend's namespace
    switch: str | None = None  # the inventory switch its interface is plugged into
    switch_port: str | int | None = None  # ... and the port there (ifName or ifIndex)

    @property
    def sends(self) -> bool:
        return self.role in ("sender", "both")

    @property
    def receives(self) -> bool:
        return self.role in ("receiver", "both")


@dataclass
class Inventory:
    hosts: dict[str, HostSpec]
    path: str | None = None
    tools_dir: str = "/tmp/lanloss-tools"
    workdir: str = "/tmp"
    extra: dict[str, Any] = field(default_factory=dict)
    switches: dict[str, lab_switches.SwitchSpec] = field(default_factory=dict)
    links: list[lab_switches.Link] = field(default_factory=list)

    def switch_port(self, switch: str, label: str) -> str | int:
        """The port (ifName or ifIndex, as given) a path's port label names."""
        plugged = {h.name: (h.switch, h.switch_port) for h in self.hosts.values()}
        return lab_switches.plugs(plugged, self.links)[(switch, label)]

    def ports_on(self, switch: str) -> list[str | int]:
        """The ports of `switch` the hosts and links are plugged into, as given."""
        plugged = {h.name: (h.switch, h.switch_port) for h in self.hosts.values()}
        return [p for (sw, _), p in lab_switches.plugs(plugged, self.links).items() if sw == switch]

    def flow_ports(self, src: str, dst: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
        """(ingress, egress) switch ports from host src to host dst; none when either is
        not plugged into an inventory switch."""
        a, b = self.hosts[src], self.hosts[dst]
        if a.switch is None or b.switch is None:
            return [], []
        assert a.switch_port is not None and b.switch_port is not None
        return lab_switches.path_ports(
            self.links, (a.switch, a.switch_port), (b.switch, b.switch_port)
        )


def _fail(path: str, why: str) -> OptionError:
    return OptionError(f"inventory: {inputs.shown_path(path)}: {why}")


def check_ipv4(value: Any, what: str) -> str:
    """An IPv4 literal (the traffic tools take IPv4), or ValueError naming it."""
    try:
        addr = ipaddress.IPv4Address(str(value).strip())
    except ValueError:
        raise ValueError(f"{what} {shown(value)} is not an IPv4 address") from None
    if addr.is_unspecified or addr.is_multicast or addr == ipaddress.IPv4Address("255.255.255.255"):
        raise ValueError(f"{what} {shown(value)} is not a host address")
    return str(addr)


def _address(path: str, host: str, value: Any, kind: str = "host") -> str:
    text = str(value).strip() if value is not None else ""
    if not text:
        raise _fail(path, f"{kind} {host!r}: address is missing")
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        pass
    if re.fullmatch(r"[0-9.]+", text) or not _HOSTNAME_RE.fullmatch(text):
        raise _fail(path, f"{kind} {host!r}: bad address {shown(text)}")
    try:
        socket.getaddrinfo(text, None, proto=socket.IPPROTO_TCP)
    except (socket.gaierror, UnicodeError):
        raise _fail(path, f"{kind} {host!r}: unknown host {text!r} (does not resolve)") from None
    return text


def _ssh_spec(path: str, host: str, raw: dict[str, Any], base_dir: str) -> SshSpec:
    unknown = set(raw) - _SSH_KEYS
    if unknown:
        raise _fail(path, f"host {host!r}: unknown ssh keys {shown(sorted(unknown))}")
    user = str(raw.get("user", SSH_USER))
    if not _USER_RE.fullmatch(user):
        raise _fail(path, f"host {host!r}: bad ssh user {shown(user)}")
    key_raw = raw.get("key")
    if not key_raw:
        raise _fail(path, f"host {host!r}: ssh key is missing (ssh: key: FILE)")
    key = os.path.join(base_dir, os.path.expanduser(str(key_raw)))
    if not os.path.isfile(key):
        raise _fail(path, f"host {host!r}: ssh key {shown(key_raw)} does not exist")
    if not os.access(key, os.R_OK):
        raise _fail(path, f"host {host!r}: ssh key {shown(key_raw)} is not readable")
    if stat.S_IMODE(os.stat(key).st_mode) & 0o077:
        raise _fail(
            path,
            f"host {host!r}: ssh key {shown(key_raw)} is readable by others "
            "(ssh refuses it; chmod 600)",
        )
    port = raw.get("port", SSH_PORT)
    if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
        raise _fail(path, f"host {host!r}: bad ssh port {shown(port)}")
    timeout = raw.get("connect_timeout", SSH_CONNECT_TIMEOUT_S)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout <= 300:
        raise _fail(path, f"host {host!r}: bad connect_timeout {shown(timeout)} (seconds, 0..300)")
    known = raw.get("known_hosts")
    if known is not None:
        known = os.path.join(base_dir, os.path.expanduser(str(known)))
        if not os.path.isdir(os.path.dirname(known) or "."):
            raise _fail(path, f"host {host!r}: known_hosts folder of {shown(known)} does not exist")
    checking = str(raw.get("strict_host_key_checking", SSH_HOST_KEY_CHECKING))
    if checking not in _CHECKING:
        raise _fail(
            path,
            f"host {host!r}: strict_host_key_checking {shown(checking)} is not one of "
            f"{', '.join(_CHECKING)}",
        )
    return SshSpec(user, key, port, float(timeout), known, checking)


def load(path: str) -> Inventory:
    """Read and validate an inventory file; every problem is an OptionError naming it."""
    try:
        doc = inputs.load_yaml(path, "inventory")
    except inputs.InputError as exc:
        raise _fail(path, exc.why) from None
    if not isinstance(doc, dict):
        raise _fail(path, "expected a mapping with a 'hosts' section")
    unknown = set(doc) - _TOP_KEYS
    if unknown:
        raise _fail(path, f"unknown sections {shown(sorted(unknown))}")
    base_dir = os.path.dirname(os.path.abspath(path))
    defaults = doc.get("ssh") or {}
    if not isinstance(defaults, dict):
        raise _fail(path, "'ssh' must be a mapping")
    raw_hosts = doc.get("hosts")
    if not isinstance(raw_hosts, dict) or not raw_hosts:
        raise _fail(path, "no hosts (expected 'hosts:' with at least one host)")

    switches = _switches(path, doc.get("switches"))
    try:
        links = lab_switches.links(doc.get("links"), switches)
    except ValueError as exc:
        raise _fail(path, str(exc)) from None
    hosts: dict[str, HostSpec] = {}
    data_addrs: dict[str, str] = {}
    for name, raw in raw_hosts.items():
        name = str(name)
        if not _NAME_RE.fullmatch(name):
            raise _fail(path, f"bad host name {shown(name)}")
        if not isinstance(raw, dict):
            raise _fail(path, f"host {name!r}: expected a mapping")
        unknown = set(raw) - _HOST_KEYS
        if unknown:
            raise _fail(path, f"host {name!r}: unknown keys {shown(sorted(unknown))}")
        role = str(raw.get("role", ""))
        if role not in ROLES:
            raise _fail(
                path,
                f"host {name!r}: role {shown(raw.get('role'))} is not one of {', '.join(ROLES)}",
            )
        address = _address(path, name, raw.get("address"))
        data_raw = raw.get("data_address", address)
        try:
            data = check_ipv4(data_raw, "data_address" if "data_address" in raw else "address")
        except ValueError as exc:
            raise _fail(path, f"host {name!r}: {exc}") from None
        if data in data_addrs:
            raise _fail(path, f"host {name!r}: data address {data} is also {data_addrs[data]!r}'s")
        data_addrs[data] = name
        iface = str(raw.get("interface", ""))
        if not _IFACE_RE.fullmatch(iface):
            raise _fail(
                path, f"host {name!r}: bad or missing interface {shown(raw.get('interface'))}"
            )
        own_ssh = raw.get("ssh") or {}
        if not isinstance(own_ssh, dict):
            raise _fail(path, f"host {name!r}: 'ssh' must be a mapping")
        ssh_raw = {**defaults, **own_ssh}
        switch, port = _plug(path, name, raw, switches)
        hosts[name] = HostSpec(
            name, role, address, data, iface, _ssh_spec(path, name, ssh_raw, base_dir),
            switch=switch, switch_port=port,
        )  # fmt: skip
    try:
        plugged = {h.name: (h.switch, h.switch_port) for h in hosts.values()}
        lab_switches.plugs(plugged, links)
        lab_switches.check_connected(sorted({h.switch for h in hosts.values() if h.switch}), links)
    except ValueError as exc:
        raise _fail(path, str(exc)) from None
    tools_dir = str(doc.get("tools_dir", "/tmp/lanloss-tools"))
    workdir = str(doc.get("workdir", "/tmp"))
    for key, value in (("tools_dir", tools_dir), ("workdir", workdir)):
        if not value.startswith("/") or any(c in value for c in "\n\0"):
            raise _fail(path, f"{key} {shown(value)} must be an absolute path")
    return Inventory(
        hosts, os.path.abspath(path), tools_dir, workdir, switches=switches, links=links
    )


def _switches(path: str, raw: Any) -> dict[str, lab_switches.SwitchSpec]:
    """The inventory's `switches:` (lanloss.testbed.lab_switches), by name."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise _fail(path, "'switches' must be a mapping of switch names")
    out = {}
    for name, spec in raw.items():
        name = str(name)
        if not _NAME_RE.fullmatch(name):
            raise _fail(path, f"bad switch name {shown(name)}")
        given = spec.get("address") if isinstance(spec, dict) else None
        address = _address(path, name, given, "switch")
        try:
            out[name] = lab_switches.switch_spec(name, spec, address)
        except ValueError as exc:
            raise _fail(path, f"switch {name!r}: {exc}") from None
    return out


def _plug(
    path: str, host: str, raw: dict[str, Any], switches: dict[str, lab_switches.SwitchSpec]
) -> tuple[str | None, str | int | None]:
    """The switch and port a host's interface is plugged into (both given, or neither)."""
    if "switch" not in raw and "switch_port" not in raw:
        return None, None
    if "switch" not in raw or "switch_port" not in raw:
        raise _fail(path, f"host {host!r}: give both switch and switch_port, or neither")
    switch = str(raw["switch"])
    if switch not in switches:
        raise _fail(path, f"host {host!r}: switch {shown(raw['switch'])} is not in 'switches'")
    try:
        return switch, lab_switches.port_value(raw["switch_port"], "switch_port")
    except ValueError as exc:
        raise _fail(path, f"host {host!r}: {exc}") from None


def select(
    inv: Inventory,
    senders: int,
    receivers: int,
    want_senders: list[str] | None = None,
    want_receivers: list[str] | None = None,
) -> tuple[list[HostSpec], list[HostSpec]]:
    """The hosts of this run: named ones, else the first by role, in inventory order."""
    for name in [*(want_senders or []), *(want_receivers or [])]:
        if name not in inv.hosts:
            known = ", ".join(inv.hosts)
            raise OptionError(f"host {name!r} is not in the inventory (known: {known})")

    def pick(wanted: list[str] | None, count: int, what: str, ok: str) -> list[HostSpec]:
        if wanted:
            chosen = [inv.hosts[n] for n in wanted]
            if len(chosen) != count:
                raise OptionError(f"{what}s: {count}, but {len(chosen)} {what} hosts were named")
            return chosen
        pool = [h for h in inv.hosts.values() if h.role in (ok, "both")]
        if len(pool) < count:
            raise OptionError(f"{what}s: {count}, but the inventory has {len(pool)} {what} hosts")
        return pool[:count]

    snd = pick(want_senders, senders, "sender", "sender")
    rcv = pick(want_receivers, receivers, "receiver", "receiver")
    if want_senders is None and want_receivers is None:
        # A 'both' host picked for both roles would send to itself over loopback.
        overlap = {h.name for h in snd} & {h.name for h in rcv}
        if overlap:
            rest = [
                h for h in inv.hosts.values() if h.receives and h.name not in {s.name for s in snd}
            ]
            if len(rest) < receivers:
                raise OptionError(
                    f"receivers: {receivers}, but only {len(rest)} hosts are left "
                    "after choosing the senders"
                )
            rcv = rest[:receivers]
    overlap = {h.name for h in snd} & {h.name for h in rcv}
    if overlap:
        raise OptionError(f"host {sorted(overlap)[0]!r} cannot both send and receive in one run")
    return snd, rcv
