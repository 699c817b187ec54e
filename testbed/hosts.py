# SPDX-License-Identifier: GPL-2.0-only
"""Testbed hosts: a machine as the harness uses it: what it is (spec), how to reach it
(transport), and where its kernel-wide settings live (``machine``). (The simulator's
receiving-host presets are another thing: lanloss/host_presets.py.)

In the netns backend the emulated hosts share one kernel: net.core.rmem_max,
netdev_max_backlog and udp_mem exist only in the initial namespace (read-only
mirrors or absent in the others, docs/testbed.md §4), so those settings are
applied on the ``machine`` host, this machine's initial namespace.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from lanloss.testbed.inventory import HostSpec
from lanloss.testbed.transport import Transport


@dataclass(eq=False)
class Host:
    spec: HostSpec
    transport: Transport
    workdir: str = "/tmp"  # this run's folder on the host
    local_dir: str = "/tmp"  # this run's folder here (tool stdout, ssh logs)
    machine: Host | None = None  # where global sysctls live; None: on this host itself
    facts: dict[str, Any] = field(default_factory=dict)  # kernel, driver, boot_id, ...

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def iface(self) -> str:
        return self.spec.interface

    @property
    def sysctl_host(self) -> Host:
        return self.machine if self.machine is not None else self

    def __repr__(self) -> str:
        return f"Host({self.name})"


_T = TypeVar("_T")
PER_HOST_THREADS = 8  # at most ssh's default MaxSessions on one machine


def per_host(hosts: list[Host], read: Callable[[Host], _T]) -> dict[str, _T]:
    """read(host) for every host at once, by name in the hosts' order: a read waits for
    its host (a namespace, a guest, a machine) to run its commands, and one after another
    they cost a run 0.3 s. The first error is raised once all are done."""
    if len(hosts) <= 1:
        return {h.name: read(h) for h in hosts}
    results: dict[int, _T] = {}
    errors: dict[int, BaseException] = {}
    batches = [list(range(i, len(hosts), PER_HOST_THREADS)) for i in range(PER_HOST_THREADS)]

    def work(indices: list[int]) -> None:
        for i in indices:
            try:
                results[i] = read(hosts[i])
            except BaseException as exc:  # noqa: BLE001 - raised in the caller's thread
                errors[i] = exc

    # plain threads: concurrent.futures would import logging, 9 ms of every point's start
    threads = [threading.Thread(target=work, args=(b,)) for b in batches if b]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[min(errors)]
    return {h.name: results[i] for i, h in enumerate(hosts)}


BOOT_ID = "/proc/sys/kernel/random/boot_id"


def local_boot_id() -> str | None:
    """This machine's kernel's boot id (a host with the same one runs in this kernel)."""
    try:
        with open(BOOT_ID, encoding="ascii") as fh:
            return fh.read().strip()
    except OSError:
        return None


def gather_facts(host: Host) -> dict[str, Any]:
    """Kernel, driver and boot id: for the record, and to tell a reboot from a crash."""
    argvs = [["uname", "-srm"], ["cat", BOOT_ID], ["nproc"]]
    if host.iface:
        argvs += [["ethtool", "-i", host.iface], ["ethtool", host.iface]]
    res = host.transport.run_many(argvs)
    facts: dict[str, Any] = {
        "kernel": res[0].out.strip() if res[0].ok else None,
        "boot_id": res[1].out.strip() if res[1].ok else None,
        "nproc": int(res[2].out.strip()) if res[2].ok and res[2].out.strip().isdigit() else None,
    }
    if host.iface:
        info = dict(_colon_pairs(res[3].out)) if res[3].ok else {}
        facts["driver"] = info.get("driver")
        facts["driver_version"] = info.get("version")
        facts["firmware"] = info.get("firmware-version") or None
        link = dict(_colon_pairs(res[4].out)) if res[4].ok else {}
        facts["link_speed"] = link.get("Speed")
        facts["duplex"] = link.get("Duplex")
    host.facts.update(facts)
    return facts


def _colon_pairs(text: str) -> list[tuple[str, str]]:
    pairs = []
    for line in text.splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            pairs.append((k.strip(), v.strip()))
    return pairs
