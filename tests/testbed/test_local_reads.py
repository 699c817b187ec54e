# SPDX-License-Identifier: GPL-2.0-only
"""A local host's `cat FILE` is read by the harness itself (lanloss.testbed.transport.Local):
in a namespace by a thread that joins it, so /proc/net and /proc/sys/net are the
namespace's, exactly as `nsenter --net ... cat FILE` prints them, errors included."""

from __future__ import annotations

import os
import subprocess
import threading

import pytest

from lanloss.testbed import transport
from lanloss.testbed.errors import HostUnreachable
from lanloss.testbed.transport import Local

NS_PREFIX = "lltb-"  # the testbed tests' namespace prefix (conftest.NS_PREFIX)
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (network namespaces)")
pytestmark = needs_root


@pytest.fixture
def netns():
    """A namespace with a veth pair of its own (llrd0, llrd1); removed after."""
    ns = f"{NS_PREFIX}rd-{os.getpid()}"
    subprocess.run(["ip", "netns", "add", ns], check=True, capture_output=True)
    try:
        subprocess.run(
            ["ip", "-n", ns, "link", "add", "llrd0", "type", "veth", "peer", "name", "llrd1"],
            check=True,
            capture_output=True,
        )
        yield ns
    finally:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def _through_commands(host: Local, argvs: list[list[str]]) -> list[transport.Result]:
    """The Transport's own run_many: one shell in the namespace running each command."""
    return transport.Transport.run_many(host, argvs)


def test_a_namespace_file_read_here_is_what_cat_prints_there(netns, monkeypatch):
    host = Local("r1", netns)
    spawned = []
    real_exec = transport.Transport._exec

    def counting_exec(self, full, *args, **kw):
        spawned.append(full)
        return real_exec(self, full, *args, **kw)

    monkeypatch.setattr(transport.Transport, "_exec", counting_exec)
    argvs = [
        ["cat", "/proc/net/dev"],
        ["ip", "-o", "link", "show", "llrd0"],  # a command between reads keeps its place
        ["cat", "--", "/proc/sys/net/ipv4/udp_rmem_min"],
        ["cat", "/proc/net/no-such-file"],
    ]
    here = host.run_many(argvs)
    assert len(spawned) == 1 and "cat" not in spawned[0][-1]  # one shell, for `ip` alone
    there = _through_commands(host, argvs)
    assert [r.rc for r in here] == [r.rc for r in there] == [0, 0, 0, 1]
    assert "llrd0" in here[0].out and "llrd0" in here[1].out  # the namespace's devices
    with open("/proc/net/dev", encoding="ascii") as fh:
        assert "llrd0" not in fh.read()  # and not this machine's
    assert here[0].out.splitlines()[:2] == there[0].out.splitlines()[:2]
    assert sorted(ln.split(":")[0].strip() for ln in here[0].out.splitlines()[2:]) == sorted(
        ln.split(":")[0].strip() for ln in there[0].out.splitlines()[2:]
    )
    assert here[2].out == there[2].out
    assert here[3].out == there[3].out == "cat: /proc/net/no-such-file: No such file or directory\n"
    assert host.run(["cat", "/proc/net/dev"]).out.count("llrd0") == 1
    assert threading.active_count() == 1  # the thread that joined the namespace has ended


def test_a_missing_namespace_is_unreachable_for_reads_as_for_commands():
    host = Local("r1", f"{NS_PREFIX}rd-absent-{os.getpid()}")
    with pytest.raises(HostUnreachable, match="network namespace .* is missing"):
        host.run_many([["cat", "/proc/net/dev"]])
