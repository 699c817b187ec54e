# SPDX-License-Identifier: GPL-2.0-only
"""Two network namespaces joined by one veth pair, for running the C tools against each
other (tests/testbed/test_ctools.py, bench/bed_tools.py): A (A_ADDR) and B (B_ADDR) on
one /24. Needs root. ``down`` ends the processes it was given and deletes only the
namespaces ``up`` made (by their names, which carry this process's id)."""

from __future__ import annotations

import os
import subprocess

from lanloss.testbed.netns import add_veth

A_ADDR, B_ADDR = "10.201.0.1", "10.201.0.2"


def ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True, timeout=10)


class NamespacePair:
    """Namespaces <prefix>-<pid>-a and -b, their veth ends <tag><pid>a and <tag><pid>b."""

    def __init__(self, prefix: str, tag: str) -> None:
        pid = os.getpid()
        self.a, self.b = f"{prefix}-{pid}-a", f"{prefix}-{pid}-b"
        self.va, self.vb = f"{tag}{pid}a", f"{tag}{pid}b"
        self.procs: list[subprocess.Popen] = []
        self._made: list[str] = []

    def up(self) -> None:
        for ns in (self.a, self.b):
            ip("netns", "add", ns)
            self._made.append(ns)
        add_veth(self.va, self.a, self.vb, self.b)
        for ns, dev, addr in ((self.a, self.va, A_ADDR), (self.b, self.vb, B_ADDR)):
            ip("-n", ns, "addr", "add", f"{addr}/24", "dev", dev)
            ip("-n", ns, "link", "set", dev, "up")
            ip("-n", ns, "link", "set", "lo", "up")

    def started(self, proc: subprocess.Popen) -> subprocess.Popen:
        """A process running in one of the namespaces: `down` ends it."""
        self.procs.append(proc)
        return proc

    def down(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait(timeout=5)
        for ns in self._made:  # deleting a namespace deletes its veth end, and so the pair
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=10)
        self._made.clear()
