# SPDX-License-Identifier: GPL-2.0-only
"""Guests with several vCPUs (`--vm-vcpus N`) and several readers on them: QEMU's
arguments, the standing LAN's key, the option refused where it has no meaning, and one
point of config/studies/vm-readers.yaml (two threads on one socket in a two-vCPU guest)
run as the workflow runs it: the guest has two CPUs, each reader read, and every datagram
is delivered or attributed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from vm_guest_image import GUEST_TEST_MARKS, build_or_fail

from lanloss import options, study
from lanloss.testbed import vm

REPO = Path(__file__).resolve().parents[2]
STUDY = REPO / "config" / "studies" / "vm-readers.yaml"
PREFIX = "lltb-vr-"


def _backend() -> vm.VmBackend:
    b = vm.VmBackend(options.resolve({}, "bed"), PREFIX, "/tmp/x")
    b.image = {"kernel": "k", "initrd": "i", "mgmt_mac": "52:54:00:00:00:01"}
    return b


def test_a_guest_gets_the_vcpus_asked_for_and_a_lan_of_its_own():
    one, two = _backend(), _backend()
    two.vcpus = 2
    node = one.plan.nodes["r1"]
    for b, n in ((one, "1"), (two, "2")):
        argv = b._qemu_argv(node, 2, "p2", 2202)
        assert argv[argv.index("-smp") + 1] == n
    # a standing LAN of one-vCPU guests is not adopted for two, nor the other way round
    assert one.lan_key() != two.lan_key()


@pytest.mark.parametrize(
    ("args", "word"),
    [
        (["--backend", "vm", "--vm-vcpus", "0"], "--vm-vcpus: 0"),
        (["--backend", "vm", "--vm-vcpus", "9"], "--vm-vcpus: 9"),
        (["--vm-vcpus", "2"], "--vm-vcpus: 2"),  # netns: a namespace has no vCPUs
    ],
)
def test_vcpus_are_refused_out_of_range_and_where_there_is_no_guest(args, word, tmp_path):
    cmd = [sys.executable, "-m", "lanloss.cli", "bed", "check", "--prefix", PREFIX, *args]
    env = {**os.environ, "LANLOSS_STATE_DIR": str(tmp_path)}
    cp = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, env=env, timeout=60)
    assert cp.returncode == 2, cp.stderr
    assert word in cp.stderr and len(cp.stderr.strip().splitlines()) == 1


def _shared_point() -> study.Point:
    """The study's two threads on one socket at its lowest rate, first repetition."""
    pts = [
        p
        for p in study.load(STUDY).points_for("bed")
        if p.params["readers"] == 2 and p.params["reuseport"] == "off" and p.params["seed"] == 1
    ]
    return min(pts, key=lambda p: float(p.params["rate"]))


def _guest_test(fn):
    """The guest tests' marks (root, netns, slow, untimed) and QEMU, on one test."""
    for mark in [
        *GUEST_TEST_MARKS,
        pytest.mark.skipif(shutil.which(vm.QEMU) is None, reason=f"needs {vm.QEMU}"),
    ]:
        fn = mark(fn)
    return fn


@pytest.fixture(scope="module")
def record(tmp_path_factory):
    build_or_fail()
    state = tmp_path_factory.mktemp("vmreaders")
    env = {**os.environ, "LANLOSS_STATE_DIR": str(state)}
    bed_args = study.bed_args_tokens(yaml.safe_load(STUDY.read_text())["bed_args"])
    path = state / "run.json"
    cmd = [sys.executable, "-m", "lanloss.cli", "bed", "run", *_shared_point().cli_args()]
    cmd += [*bed_args, "--prefix", PREFIX, "--no-progress", "--out", str(path)]
    cp = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True)
    assert cp.returncode == 0, cp.stderr[-2000:]
    return json.loads(path.read_text())


@_guest_test
def test_two_threads_on_one_socket_in_a_two_vcpu_guest(record):
    assert record["env"]["vm"]["vcpus"] == 2
    assert record["env"]["hosts"]["r1"]["nproc"] == 2  # the guest's own count
    assert record["env"]["vm"]["icount"] is None  # no -icount: a thread per vCPU
    t, d = record["totals"], record["drops"]
    assert d["unexplained"] == 0
    assert t["sent"] == t["received"] + sum(v for k, v in d.items() if k != "unexplained")
    report = record["extra"]["tool_reports"]["receivers"]["r1"]
    readers = [r["received"] for r in report["readers"]]
    assert len(readers) == 2 and all(n > 0 for n in readers)
    assert sum(readers) == t["received"]
