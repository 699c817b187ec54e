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


def _read(guest: float, before: float, after: float) -> vm.ClockRead:
    return vm.ClockRead(guest, before, after)


def test_a_guest_that_kept_real_time_keeps_its_pace_whatever_the_ssh_delay():
    # the guest read 100.00 s and 106.00 s at host 10.0-10.4 and 16.0-16.4: its clock went
    # 6.00 s in 5.6-6.4 s of real time
    got = vm.pace(_read(100.0, 10.0, 10.4), _read(106.0, 16.0, 16.4))
    assert got["kept"] and got["pace"] == 1.0
    assert got["guest_s"] == 6.0 and got["real_s"] == 6.0 and got["read_s"] == 0.4
    assert got["pace_high"] == round(6.01 / 5.6, 4)
    assert got["pace_low"] == round(5.99 / 6.4, 4)


def test_a_guest_behind_real_time_beyond_the_tolerance_is_not_kept():
    # 4.95 s of guest clock in at least 5.75 s of real time: 14 % behind
    got = vm.pace(_read(50.0, 0.0, 0.15), _read(54.95, 5.9, 6.05))
    assert not got["kept"]
    assert got["pace_high"] == round(4.96 / 5.75, 4)


def test_a_late_guest_catching_up_is_not_kept_either():
    # align lets a guest late since its boot run faster than real time: 6.67 s of its
    # clock in at most 4.83 s (measured 2026-11-25 on this machine under load)
    got = vm.pace(_read(20.0, 0.0, 0.06), _read(26.67, 4.77, 4.83))
    assert not got["kept"]
    assert got["pace_low"] == round(6.66 / 4.83, 4)


@pytest.mark.parametrize(
    ("pace_of_guest", "kept"),
    [(0.98, True), (0.97, False), (1.02, True), (1.03, False)],
)
def test_the_pace_rule_sits_at_the_tolerance(pace_of_guest, kept):
    # exact reads (no ssh delay): only the 10 ms step of /proc/uptime widens the interval
    real = 10.0
    step = -vm.UPTIME_STEP_S if pace_of_guest < 1 else vm.UPTIME_STEP_S
    got = vm.pace(_read(0.0, 0.0, 0.0), _read(real * pace_of_guest + step, real, real))
    assert got["kept"] is kept


# a process shaped like QEMU under -name ...,debug-threads=on: a main thread, a thread
# named as its vCPU thread, and a worker; it prints ready and waits for stdin to close
THREADED = """
import sys, threading
def named(name, ready):
    with open(f"/proc/self/task/{threading.get_native_id()}/comm", "w") as fh:
        fh.write(name)
    ready.set()
    sys.stdin.read()
for name in ("ALL CPUs/TCG", "worker"):
    ready = threading.Event()
    threading.Thread(target=named, args=(name, ready), daemon=True).start()
    ready.wait()
print("ready", flush=True)
sys.stdin.read()
"""


def test_qemus_vcpu_threads_and_its_other_threads_go_to_their_own_cpus():
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one CPU: nothing to place threads apart on")
    one, other = sorted(os.sched_getaffinity(0))[:2]
    proc = subprocess.Popen(
        [sys.executable, "-c", THREADED], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout.readline().strip() == "ready"
        names = vm.qemu_threads(proc.pid)
        assert len(names) == 3 and {"ALL CPUs/TCG", "worker"} < set(names.values())
        placed = vm.place_qemu_threads(proc.pid, {one}, {other})
        for tid, comm in names.items():
            want = {one} if comm == "ALL CPUs/TCG" else {other}
            assert os.sched_getaffinity(tid) == want, comm
        assert placed["ALL CPUs/TCG"] == str(one) and placed["worker"] == str(other)
        assert placed[names[proc.pid]] == str(other)  # the main loop, with the workers
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)
    assert vm.qemu_threads(proc.pid) == {}  # gone: nothing to place
    assert vm.place_qemu_threads(proc.pid, {one}, {other}) == {}
