# SPDX-License-Identifier: GPL-2.0-only
"""The vm backend's parts that need no guest: the initramfs writer, module order, option
checks, the accelerator choice, /proc/interrupts, the tap as a drop point, the journal's
view of a guest."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lanloss import options
from lanloss.options import OptionError
from lanloss.testbed import attribution, counters, journal, vm, vmimage
from lanloss.testbed.inventory import SshSpec
from lanloss.testbed.runner import check_params

REPO = Path(__file__).resolve().parents[2]


def test_cpio_newc_lists_what_was_written(tmp_path):
    c = vmimage.Cpio()
    c.dir("etc/ssh")
    c.file("etc/ssh/key", b"secret", 0o600)
    c.symlink("bin", "usr/bin")
    data = c.finish()
    assert data.startswith(b"070701") and b"TRAILER!!!" in data
    assert len(data) % 4 == 0
    # the names, in order, as the kernel reads them: each header is 110 bytes
    names, pos = [], 0
    while True:
        head = data[pos : pos + 110]
        size, namesize = int(head[54:62], 16), int(head[94:102], 16)
        name = data[pos + 110 : pos + 110 + namesize - 1].decode()
        names.append((name, int(head[14:22], 16)))
        pos += 110 + namesize
        pos += -pos % 4
        if name == "TRAILER!!!":
            break
        body = data[pos : pos + size]
        if name == "etc/ssh/key":
            assert body == b"secret"
        pos += size + (-size % 4)
    assert [n for n, _ in names] == ["etc", "etc/ssh", "etc/ssh/key", "bin", "TRAILER!!!"]
    assert dict(names)["etc/ssh/key"] == 0o100600
    assert dict(names)["bin"] & 0o170000 == 0o120000


def test_module_dependencies_come_first(tmp_path):
    d = tmp_path / "kernel"
    (d / "net").mkdir(parents=True)
    (d / "net" / "a.ko").write_bytes(b"\x7fELF..\0license=GPL\0depends=b,c\0name=a\0")
    (d / "net" / "b.ko").write_bytes(b"\x7fELF..\0depends=c\0")
    (d / "net" / "c.ko").write_bytes(b"\x7fELF..\0depends=\0")
    old = vmimage.MODULES
    try:
        vmimage.MODULES = ("a",)
        order = [m for m, _ in vmimage._module_order(d, "test")]
    finally:
        vmimage.MODULES = old
    assert order == ["c", "b", "a"]


def test_a_missing_module_names_it(tmp_path):
    old = vmimage.MODULES
    try:
        vmimage.MODULES = ("nothere",)
        with pytest.raises(RuntimeError, match="nothere.ko not in"):
            vmimage._module_order(tmp_path, "6.1-test")
    finally:
        vmimage.MODULES = old


def test_interrupts_per_interface():
    text = (
        "           CPU0       CPU1       \n"
        "  0:         41          0   IO-APIC   2-edge      timer\n"
        " 10:       1200         34   IO-APIC  10-fasteoi   eth0\n"
        " 11:          5          0   IO-APIC  11-fasteoi   virtio0, eth1\n"
        " 25:          7          3   PCI-MSI 524288-edge      eth2-rx-0\n"
        "NMI:          0          0   Non-maskable interrupts\n"
    )
    got = counters.parse_interrupts(text, ["eth0", "eth1", "eth2", "eth9"])
    assert got == {"eth0": 1234, "eth1": 5, "eth2": 10, "eth9": 0}


def _flow(received: int, nic_port=None) -> attribution.FlowPath:
    return attribution.FlowPath(
        "s1", "eth0", "r1", "eth0", 0, "r1", 1000, received, 0, [], [("sw1", "p2")], nic_port
    )


def test_a_taps_tx_drops_are_the_guest_nics_overflow():
    deltas = {
        "sw1": {"dev": {"p2": {"tx_drop": 300}}, "qdisc": {"p2": {"drops": 100}}},
        "r1": {"snmp": {"Udp": {"RcvbufErrors": 50}}},
    }
    path = _flow(550, ("sw1", "p2"))
    res = attribution.attribute([path], attribution.sources([path], deltas, "udp"))
    assert res["totals"]["rx_fifo"] == 300
    assert res["totals"]["switch_egress"] == 100
    assert res["totals"]["socket_rcvbuf"] == 50
    assert res["totals"]["unexplained"] == 0
    # without the tap (netns, ssh) the same deltas leave the 300 unexplained
    path = _flow(550)
    res = attribution.attribute([path], attribution.sources([path], deltas, "udp"))
    assert res["totals"]["rx_fifo"] == 0 and res["totals"]["unexplained"] == 300


def _params(**given: str):
    g = {"payload": "64", "rate": "2Mbps", **given}
    return options.resolve(g, "bed"), set(g)


def test_options_the_vm_backend_cannot_emulate_are_refused_by_name():
    p, g = _params(tx_queue="20000")
    with pytest.raises(OptionError, match="tx_queue"):
        check_params(p, g, "vm", "lanloss")
    p, g = _params(cast="multicast")
    with pytest.raises(OptionError, match="multicast"):
        check_params(p, g, "vm", "lanloss")
    p, g = _params(itr="0", rx_ring="80", pause="off")
    check_params(p, g, "vm", "lanloss")  # real-NIC settings: what the backend is for


def test_accelerator_is_tcg_without_hardware_virtualisation(monkeypatch):
    monkeypatch.delenv("LANLOSS_VM_ACCEL", raising=False)
    have_hw = any(
        f in open("/proc/cpuinfo").read().split() for f in ("vmx", "svm")
    )  # this machine: none
    accel, why = vm.accelerator()
    if not have_hw:
        assert accel == "tcg" and why
    monkeypatch.setenv("LANLOSS_VM_ACCEL", "tcg")
    assert vm.accelerator() == ("tcg", "LANLOSS_VM_ACCEL")


def test_a_journalled_guest_is_ephemeral():
    ssh = SshSpec("root", "/k", 2202, 5.0, "/kh", "yes")
    t = vm.VmTransport("r1", "127.0.0.1", ssh, netns="x-sw1")
    back = journal.transport_from(t.describe())
    assert isinstance(back, vm.VmTransport) and back.netns == "x-sw1" and back.ssh.port == 2202
    assert back.ephemeral
    assert back.wrap(["true"])[:3] == ["nsenter", "--net=/run/netns/x-sw1", "--"]
    folder = back.control_dir()  # wrap() made it: close() removes it, by its exact name
    back.close()
    assert not os.path.exists(folder)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--driver-param", "InterruptThrottleRate"], "--driver-param: 'InterruptThrottleRate'"),
        (["--driver-param", "InterruptThrottleRate=0"], "only the vm backend"),
        (["--backend", "vm", "--tx-queue", "20000"], "tx_queue"),
        (["--backend", "vm", "--vm-nic", "rtl8139"], "--vm-nic: 'rtl8139'"),
    ],
)
def test_bad_vm_options_exit_2_naming_the_value(args, message, tmp_path):
    cmd = [sys.executable, "-m", "lanloss.cli", "bed", "run", "--prefix", "lltb-u-", *args]
    env = {"LANLOSS_STATE_DIR": str(tmp_path), "PATH": "/usr/bin:/bin:/usr/sbin:/sbin"}
    cp = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, env=env, timeout=60)
    assert cp.returncode == 2, cp.stderr
    assert message in cp.stderr


def test_the_initramfs_scripts_use_iproute2_by_path():
    """busybox sh prefers its own applets: a bare `ip` would be busybox's, without -batch."""
    for name in ("rc", "lanloss-nic"):
        text = (vmimage.SCRIPTS / name).read_text()
        for line in text.splitlines():
            code = line.split("#", 1)[0] if not line.lstrip().startswith("#") else ""
            assert not any(w == "ip" for w in code.replace(";", " ").split()), line


def test_a_built_image_holds_the_drivers():
    m = vmimage.load_manifest()
    if m is None:
        pytest.skip("no guest image built (make vm-image)")
    data = gzip.decompress(open(m["initrd"], "rb").read())
    for mod in (b"modules/e1000.ko", b"modules/e1000e.ko", b"modules/9p.ko", b"init"):
        assert mod + b"\0" in data


def test_a_driver_reload_is_not_a_settings_change():
    """The captured link line leaves out the ifindex, which a driver reload renumbers."""
    from lanloss.testbed import settings
    from lanloss.testbed.hosts import Host
    from lanloss.testbed.inventory import HostSpec
    from lanloss.testbed.transport import Result

    line = (
        "{}: eth0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc fq_codel state UP"
        "\\    link/ether 52:54:00:4c:00:02\n"
    )

    class Fake:
        name = "r1"

        def __init__(self, index):
            self.index = index

        def run_many(self, argvs):
            return [
                Result(a, 0, line.format(self.index) if a[:2] == ["ip", "-o"] else "x\n")
                for a in argvs
            ]

    spec = HostSpec("r1", "receiver", "127.0.0.1", "10.77.0.2", "eth0")
    before = settings.capture(Host(spec, Fake(3)))  # type: ignore[arg-type]
    after = settings.capture(Host(spec, Fake(5)))  # type: ignore[arg-type]
    assert settings.compare(before, after) == []
    assert before.values["link eth0"].startswith("eth0: <BROADCAST")
