# SPDX-License-Identifier: GPL-2.0-only
"""A receiver kept off the CPU is seen by its own tool and flagged in the record.

lanloss-recv times how long it was not running while datagrams waited (rx_sched.c); the
harness compares that with how long the socket buffer lasts at the offered rate
(lanloss.testbed.run_record.buffer_lasts_s) and says ``recv_stalled``. Here the receiver
is held off the CPU with SIGSTOP for longer than its buffer lasts, in namespaces these
tests create; a receiver left alone with a buffer that lasts seconds is not flagged."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from load_rules import tools_disturbance

from lanloss import header_constants
from lanloss.analysis import fit, tables
from lanloss.record import load
from lanloss.testbed.nspair import B_ADDR, NamespacePair
from lanloss.testbed.run_record import buffer_lasts_s

REPO = Path(__file__).resolve().parents[2]
TOOLS = REPO / "testbed" / "tools"
RATE, PAYLOAD = 20_000_000, 1472
PPS = RATE / (8 * PAYLOAD)  # 1698.4 datagrams/s
STOP_S = 0.6


def test_the_buffer_lasts_its_capacity_over_the_arrival_rate():
    # a 1514-byte frame is past the copybreak: a 2 KiB receive buffer's skb
    ts = header_constants.RX_BUFFER_TRUESIZE
    k = 131072 // ts + 1  # floor(sk_rcvbuf / truesize) + 1 datagrams
    assert buffer_lasts_s(131072, PAYLOAD, 1500, PPS) == pytest.approx(k / PPS, rel=1e-12)
    # 64-byte datagrams (a 106-byte frame) are copied into a fitting skb
    small = header_constants.copybreak_truesize(64 + 8 + 20 + 14)
    assert small < ts
    k = 212992 // small + 1
    assert buffer_lasts_s(212992, 64, 1500, 39062.5) == pytest.approx(k / 39062.5, rel=1e-12)
    # a fragmented datagram is charged every fragment: two frames of 2 KiB buffers
    assert buffer_lasts_s(131072, 2000, 1500, 100.0) == pytest.approx(
        (131072 // (2 * ts) + 1) / 100.0
    )
    assert buffer_lasts_s(131072, PAYLOAD, 1500, 0.0) == float("inf")


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    if os.geteuid() != 0:
        pytest.skip("needs root to create network namespaces")
    if shutil.which("ip") is None:
        pytest.skip("needs iproute2 (ip)")
    r = subprocess.run(["make", "-C", str(TOOLS)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    p = NamespacePair("llstall", "lx")
    p.tmp = tmp_path_factory.mktemp("stall")
    try:
        p.up()
        yield p
    finally:
        p.down()


def _hold_off_cpu(pid: int, seconds: float) -> None:
    """Half a second into the traffic, stop the process for @seconds (SIGSTOP, SIGCONT)."""
    time.sleep(0.5)
    os.kill(pid, signal.SIGSTOP)
    try:
        time.sleep(seconds)
    finally:
        os.kill(pid, signal.SIGCONT)


def _one_run(pair, name: str, rcvbuf: int, stop_s: float) -> tuple[dict, dict]:
    """20 Mbit/s of 1472-byte datagrams for 2 s from A to a lanloss-recv in B, which is
    stopped for stop_s from 0.5 s into the traffic (0: left alone); its idle timeout (2 s)
    outlasts the stop, so that it does not end for lack of datagrams while stopped."""
    ready, out = pair.tmp / f"{name}.ready", pair.tmp / f"{name}.json"
    recv = [TOOLS / "lanloss-recv", "--port", "6200", "--rcvbuf", rcvbuf, "--rcvbuf-force"]
    recv += ["--idle-timeout", "2", "--duration", "30", "--ready-file", ready, "--json", out]
    rx = pair.started(subprocess.Popen(["ip", "netns", "exec", pair.b, *map(str, recv)]))
    deadline = time.monotonic() + 10
    while not ready.exists():
        assert rx.poll() is None and time.monotonic() < deadline, "lanloss-recv never got ready"
        time.sleep(0.01)
    pid = int(ready.read_text())
    send = [TOOLS / "lanloss-send", "--dst", B_ADDR, "--port", "6200", "--rate", RATE]
    send += ["--payload", PAYLOAD, "--duration", "2"]
    tx = pair.started(
        subprocess.Popen(["ip", "netns", "exec", pair.a, *map(str, send)], stdout=subprocess.PIPE)
    )
    if stop_s:
        _hold_off_cpu(pid, stop_s)
    s = json.loads(tx.communicate(timeout=60)[0])
    assert tx.returncode == 0 and rx.wait(timeout=60) == 0
    return s, json.loads(out.read_text())


def test_a_receiver_held_off_the_cpu_past_its_buffer_is_flagged(pair):
    s, r = _one_run(pair, "stopped", 65536, STOP_S)
    stall = r["scheduling"]["max_stall_us"] / 1e6
    buffer_s = buffer_lasts_s(r["rcvbuf_actual"], PAYLOAD, 1500, PPS)
    assert r["rcvbuf_actual"] == 131072 and buffer_s < 0.04  # 57 datagrams: 33.6 ms
    # stopped from the first datagram it did not take (at most one arrival gap after the
    # stop) to its return after SIGCONT: at least the stop, less that gap and less the time
    # the reader waited for a CPU (a SIGSTOP takes effect when the reader next runs, so on
    # a loaded machine it may take a few datagrams after the signal was sent)
    run_delay = r["scheduling"]["run_delay_us"] / 1e6
    assert stall >= STOP_S - 1 / PPS - run_delay
    # the socket held its capacity and dropped the rest of what came in meanwhile: at least
    # that, and no more than what came in while the reader was off the CPU at all (the
    # stop, the first gap, and its run-queue waits, another job's CPU on a loaded machine)
    capacity = buffer_s * PPS
    off_cpu = stall + 1 / PPS + run_delay
    assert stall * PPS - capacity - 5 <= r["socket_drops"] <= off_cpu * PPS - capacity + 5
    # (a loaded machine may also drop a few in the sender's softirq backlog, not at the socket)
    assert r["received"] + r["socket_drops"] <= s["sent"]
    assert fit.STALLED in tools_disturbance(s, r, 2.0)


def test_a_receiver_left_alone_is_not_flagged(pair):
    # a 16 MiB buffer lasts 8.6 s at this rate: no load on this machine stops a reader so long
    s, r = _one_run(pair, "alone", 16 << 20, 0.0)
    stall = r["scheduling"]["max_stall_us"] / 1e6
    assert stall < buffer_lasts_s(r["rcvbuf_actual"], PAYLOAD, 1500, PPS)
    assert fit.STALLED not in tools_disturbance(s, r, 2.0)
    assert r["socket_drops"] == 0 and r["received"] > 0
    assert r["scheduling"]["nvcsw"] > 0  # it blocked for datagrams: voluntary switches


def _find_receiver(prefix: str, proc: subprocess.Popen, deadline: float) -> int:
    """The pid of the lanloss-recv a `lanloss bed run --prefix PREFIX` started (its run
    folder, /tmp/PREFIXrun-*, is on its command line), once it is ready. The run may first
    wait for the machine lock while other runs use the testbed: a generous deadline."""
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            text = b" ".join(cmd).decode(errors="replace")
            if cmd[0].endswith(b"lanloss-recv") and f"/{prefix}run-" in text:
                ready = text.split("--ready-file ")[1].split(" ")[0]
                if os.path.exists(ready):
                    return int(pid)
        time.sleep(0.05)
    raise AssertionError("the run's lanloss-recv never appeared")


def _senders_running(prefix: str) -> bool:
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if cmd.split(b"\0")[0].endswith(b"lanloss-send") and f"/{prefix}run-".encode() in cmd:
            return True
    return False


@pytest.mark.slow
@pytest.mark.netns
def test_the_record_and_table_carry_the_flag(bed_state, ns_prefix, tmp_path):
    """`lanloss bed run` with its receiver stopped for 0.6 s: the record says recv_stalled,
    the table carries it, and the fit's rule leaves the run out."""
    if os.geteuid() != 0:
        pytest.skip("needs root (network namespaces)")
    out = tmp_path / "run.json"
    args = ["--rate", "20Mbps", "--payload", "1472", "--rcvbuf", "64KiB", "--duration", "3s"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "lanloss.cli", "bed", "run", "--prefix", ns_prefix]
        + ["--out", str(out), *args],
        cwd=REPO,
        env={**os.environ, "LANLOSS_STATE_DIR": str(bed_state)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        pid = _find_receiver(ns_prefix, proc, time.monotonic() + 900)
        deadline = time.monotonic() + 60
        while not _senders_running(ns_prefix):
            assert time.monotonic() < deadline, "the run's sender never started"
            time.sleep(0.02)
        _hold_off_cpu(pid, STOP_S)
        _, err = proc.communicate(timeout=180)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert "a receiver was kept off the CPU" in err
    rec = load(str(out))
    t = rec.totals
    assert t["recv_stalled"] is True and t["max_recv_stall_s"] >= STOP_S - 1 / PPS
    assert t["recv_buffer_s"] == pytest.approx(buffer_lasts_s(131072, PAYLOAD, 1500, PPS))
    assert rec.drops["socket_rcvbuf"] > 0
    (row,) = tables.rows_of(rec, str(out), "stall")
    assert row["recv_stalled"] == 1.0 and row["max_recv_stall_s"] == t["max_recv_stall_s"]
    _, excluded, notes = fit.usable(pd.DataFrame([row]))
    assert excluded == {fit.STALLED: 1} and notes == [f"receiver not running: {out}"]
