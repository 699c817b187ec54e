# SPDX-License-Identifier: GPL-2.0-only
"""Bad inventories and options are rejected with one line naming the value, exit 2, before
any host is touched: no journal, no namespace, no ssh connection attempt."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lanloss.options import OptionError
from lanloss.testbed import inventory

GOOD_HOSTS = """
hosts:
  a: {address: 127.0.0.1, data_address: 10.250.0.1, interface: eth0, role: sender}
  b: {address: 127.0.0.1, data_address: 10.250.0.2, interface: eth0, role: receiver}
"""


@pytest.fixture
def key(tmp_path: Path) -> Path:
    k = tmp_path / "id"
    k.write_text("not really a key, never used: nothing is contacted\n")
    k.chmod(0o600)
    return k


def write_inv(tmp_path: Path, key: Path, hosts: str = GOOD_HOSTS, ssh: str = "") -> Path:
    p = tmp_path / "inv.yaml"
    p.write_text(f"ssh:\n  user: root\n  key: {key}\n  port: 1\n{ssh}{hosts}")
    return p


def assert_untouched(res, bed_state: Path, ns_prefix: str, *words: str) -> None:
    assert res.returncode == 2, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lanloss: error:"), res.stderr
    for w in words:
        assert w in lines[0], lines[0]
    assert not [f for f in os.listdir(bed_state) if f.startswith("journal")]
    if os.path.isdir("/run/netns"):
        assert not [n for n in os.listdir("/run/netns") if n.startswith(ns_prefix)]


FIRST = "address: 127.0.0.1, data"
BAD_INVENTORIES = {
    "unknown host": (
        GOOD_HOSTS.replace(FIRST, "address: no-such-host.invalid, data", 1),
        "no-such-host.invalid",
    ),
    "bad address": (GOOD_HOSTS.replace("10.250.0.2", "10.250.0.300"), "10.250.0.300"),
    "bad ssh address": (GOOD_HOSTS.replace(FIRST, "address: 300.1.1.1, data", 1), "300.1.1.1"),
    "bad role": (GOOD_HOSTS.replace("role: receiver", "role: listener"), "listener"),
    "unknown key": (GOOD_HOSTS.replace("role: receiver", "role: receiver, speed: 1G"), "speed"),
    "bad interface": (
        GOOD_HOSTS.replace("interface: eth0, role: r", "interface: 'eth0;rm -rf /', role: r"),
        "interface",
    ),
    "no hosts": ("hosts: {}\n", "no hosts"),
}


@pytest.mark.parametrize("case", sorted(BAD_INVENTORIES))
def test_bad_inventory_is_rejected_before_any_host(case, tmp_path, key, bed, bed_state, ns_prefix):
    hosts, word = BAD_INVENTORIES[case]
    inv = write_inv(tmp_path, key, hosts)
    res = bed("run", "--backend", "ssh", "--inventory", str(inv), "--rate", "10Mbps")
    assert_untouched(res, bed_state, ns_prefix, word)


def test_missing_key_is_named(tmp_path, bed, bed_state, ns_prefix):
    inv = write_inv(tmp_path, tmp_path / "nope" / "id_ed25519")
    res = bed("run", "--backend", "ssh", "--inventory", str(inv))
    assert_untouched(res, bed_state, ns_prefix, "id_ed25519", "does not exist")


def test_world_readable_key_is_refused_like_ssh_would(tmp_path, key, bed, bed_state, ns_prefix):
    key.chmod(0o644)
    res = bed("run", "--backend", "ssh", "--inventory", str(write_inv(tmp_path, key)))
    assert_untouched(res, bed_state, ns_prefix, "readable by others")


def test_a_host_not_in_the_inventory_is_named(tmp_path, key, bed, bed_state, ns_prefix):
    inv = write_inv(tmp_path, key)
    res = bed("run", "--backend", "ssh", "--inventory", str(inv), "--sender", "ghost")
    assert_untouched(res, bed_state, ns_prefix, "ghost", "not in the inventory")


def test_more_receivers_than_the_inventory_has(tmp_path, key, bed, bed_state, ns_prefix):
    inv = write_inv(tmp_path, key)
    res = bed("run", "--backend", "ssh", "--inventory", str(inv), "--receivers", "3")
    assert_untouched(res, bed_state, ns_prefix, "receivers", "3")


@pytest.mark.parametrize("backend", ["netns", "ssh"])
@pytest.mark.parametrize(
    "flag,value,word",
    [
        ("--rate", "fast", "fast"),
        ("--payload", "65508", "65508"),
        ("--edge-rate", "-5M", "-5M"),
        ("--recv-cpu", "0", "recv_cpu"),
        ("--topology", "two-site", "two-site"),
    ],
)
def test_bad_options_are_rejected_before_any_host(
    backend, flag, value, word, tmp_path, key, bed, bed_state, ns_prefix
):
    extra = (
        ["--backend", "ssh", "--inventory", str(write_inv(tmp_path, key))]
        if backend == "ssh"
        else []
    )
    res = bed("run", *extra, flag, value)
    assert_untouched(res, bed_state, ns_prefix, word)


def test_netns_only_options_are_refused_for_real_hosts(tmp_path, key, bed, bed_state, ns_prefix):
    inv = write_inv(tmp_path, key)
    res = bed("run", "--backend", "ssh", "--inventory", str(inv), "--switch-buffer", "64KiB")
    assert_untouched(res, bed_state, ns_prefix, "switch_buffer")


def test_iperf3_cannot_do_what_it_lacks(bed, bed_state, ns_prefix):
    res = bed("run", "--tool", "iperf3", "--cast", "multicast")
    assert_untouched(res, bed_state, ns_prefix, "multicast")
    res = bed("run", "--tool", "iperf3", "--start-burst", "200")
    assert_untouched(res, bed_state, ns_prefix, "start_burst", "200")
    res = bed("run", "--protocol", "tcp", "--start-burst", "200")
    assert_untouched(res, bed_state, ns_prefix, "start_burst", "udp only")


def test_switch_buffer_below_one_frame(bed, bed_state, ns_prefix):
    res = bed("run", "--switch-buffer", "1000")
    assert_untouched(res, bed_state, ns_prefix, "switch_buffer", "1538")


def test_example_inventory_is_valid_yaml_with_the_documented_keys():
    path = Path(__file__).resolve().parents[2] / "config" / "hosts" / "example.yaml"
    with pytest.raises(OptionError, match="ssh key .* does not exist|does not resolve"):
        inventory.load(str(path))  # its key and addresses are placeholders


def test_select_by_role_never_uses_one_host_twice(tmp_path, key):
    inv = inventory.load(str(write_inv(tmp_path, key, GOOD_HOSTS.replace("sender", "both"))))
    snd, rcv = inventory.select(inv, 1, 1)
    assert [h.name for h in snd] == ["a"] and [h.name for h in rcv] == ["b"]
