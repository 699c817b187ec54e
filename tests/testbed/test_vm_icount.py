# SPDX-License-Identifier: GPL-2.0-only
"""The vm backend's slow PC that never stops (`--vm-icount SHIFT`): QEMU's arguments, the
boot timeout that scales with the instruction rate, QEMU's lateness warnings read from
its output, and the options only guests have refused for other backends."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from lanloss.testbed import vm

REPO = Path(__file__).resolve().parents[2]


def test_the_boot_timeout_follows_the_instruction_rate():
    assert vm.boot_timeout(None) == vm.BOOT_TIMEOUT
    assert vm.boot_timeout(3) == vm.BOOT_TIMEOUT  # 3 x 60 s: a boot measured at 59 s
    assert vm.boot_timeout(4) == 3 * vm.ICOUNT_BOOT_S * 16  # 360 s for a 117 s boot
    assert vm.boot_timeout(5) == 2 * vm.boot_timeout(4)


def test_lateness_warnings_are_read_as_qemu_prints_them():
    text = (
        "qemu-system-x86_64: warning: ...\n"
        "Warning: The guest is now late by 0.0 to 1.0 seconds\n"
        "Warning: The guest is now late by 7.0 to 8.0 seconds\n"
    )
    found = [m.groups() for m in vm.LATE.finditer(text)]
    assert found == [("0.0", "1.0"), ("7.0", "8.0")]


def test_a_guest_runs_at_the_shift_asked_for():
    b = vm.VmBackend({**_params()}, "lltb-ic-", "/tmp/x")
    b.image = {"kernel": "k", "initrd": "i", "mgmt_mac": "52:54:00:00:00:01"}
    node = b.plan.nodes["r1"]
    assert "-icount" not in b._qemu_argv(node, 2, "p2", 2202)
    b.icount = 4
    argv = b._qemu_argv(node, 2, "p2", 2202)
    assert argv[argv.index("-icount") + 1] == "shift=4,align=on,sleep=on"
    assert b.lan_key() != vm.VmBackend({**_params()}, "lltb-ic-", "/tmp/x").lan_key()


def _params():
    from lanloss import options

    return options.resolve({}, "bed")


@pytest.mark.parametrize(
    ("args", "word"),
    [
        (["--backend", "vm", "--vm-icount", "11"], "--vm-icount"),
        (["--backend", "vm", "--vm-icount", "-1"], "--vm-icount"),
        (["--vm-icount", "3"], "--vm-icount"),  # netns: veths have no instruction rate
        (["--driver-param", "InterruptThrottleRate=0"], "--driver-param"),
    ],
)
def test_guest_options_are_refused_where_there_is_no_guest(args, word, tmp_path):
    cmd = [sys.executable, "-m", "lanloss.cli", "bed", "check", "--prefix", "lltb-ic-", *args]
    env = {**os.environ, "LANLOSS_STATE_DIR": str(tmp_path)}
    cp = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, env=env, timeout=60)
    assert cp.returncode == 2, cp.stderr
    assert word in cp.stderr and len(cp.stderr.strip().splitlines()) == 1
