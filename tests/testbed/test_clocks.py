# SPDX-License-Identifier: GPL-2.0-only
"""Clocks (lanloss.testbed.clocks): the ping-pong offset estimate against a real peer with a
known injected offset, chrony's and ptp4l's status texts, the tools' stamp clock and their
count of datagrams received before their send stamp, and the rule that reports one-way
latency only where the clocks allow it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lanloss import paths
from lanloss.testbed import clocks
from lanloss.testbed.hosts import Host
from lanloss.testbed.inventory import HostSpec
from lanloss.testbed.transport import Local

NS_PREFIX = "lltb-"  # the testbed tests' namespace prefix (conftest.NS_PREFIX)
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (network namespaces)")
PROBE = Path(clocks.__file__).with_name("clock_probe.py")
A_ADDR, B_ADDR = "10.77.0.1", "10.77.0.2"


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)


@pytest.fixture
def two_netns():
    """Two namespaces joined by a veth pair (A 10.77.0.1, B 10.77.0.2); removed after."""
    a, b = f"{NS_PREFIX}clk-a-{os.getpid()}", f"{NS_PREFIX}clk-b-{os.getpid()}"
    _ip("netns", "add", a)
    _ip("netns", "add", b)
    try:
        _ip("link", "add", "llclk0", "netns", a, "type", "veth", "peer", "llclk1", "netns", b)
        for ns, dev, addr in ((a, "llclk0", A_ADDR), (b, "llclk1", B_ADDR)):
            _ip("-n", ns, "addr", "add", f"{addr}/24", "dev", dev)
            _ip("-n", ns, "link", "set", dev, "up")
            _ip("-n", ns, "link", "set", "lo", "up")
        yield a, b
    finally:
        subprocess.run(["ip", "netns", "del", a], capture_output=True)
        subprocess.run(["ip", "netns", "del", b], capture_output=True)


def _in(ns: str, *argv: str) -> list[str]:
    return ["nsenter", f"--net=/run/netns/{ns}", "--", *argv]


def _serve(ns: str, add_ns: int, log: Path) -> subprocess.Popen:
    fh = log.open("wb")
    peer = subprocess.Popen(
        _in(ns, sys.executable, str(PROBE), "serve", A_ADDR, "5299", str(add_ns)), stdout=fh
    )
    deadline = time.monotonic() + 10
    while b"ready" not in log.read_bytes():
        assert peer.poll() is None and time.monotonic() < deadline, "the peer did not start"
        time.sleep(0.02)
    return peer


def _measure(ns: str, rounds: int) -> clocks.Offset | None:
    """The measure step in ns against A, run as the harness runs it on hosts (python3 -c)."""
    argv = [sys.executable, "-c", clocks.probe_source(), "measure", A_ADDR, "5299", str(rounds)]
    res = subprocess.run(_in(ns, *argv), capture_output=True, text=True, check=True, timeout=60)
    return clocks.parse_probe(res.stdout)


@needs_root
@pytest.mark.parametrize("add_ns", [1_234_567_890, -37_000, 0])
def test_the_ping_pong_recovers_an_injected_offset_within_its_bound(two_netns, tmp_path, add_ns):
    a, b = two_netns
    peer = _serve(a, add_ns, tmp_path / "peer.log")
    try:
        est = _measure(b, 40)
    finally:
        peer.wait(timeout=10)  # the measure step's "bye" ends it
    assert est is not None and est.rounds == 40 and 1 <= est.answered <= 40
    # both namespaces read one kernel's CLOCK_REALTIME: the true offset is add_ns exactly
    assert abs(est.offset_ns - add_ns) <= est.uncertainty_ns
    assert est.uncertainty_ns == (est.rtt_min_ns + 1) // 2 and est.rtt_min_ns > 0


@needs_root
def test_a_silent_peer_gives_no_estimate(two_netns):
    _, b = two_netns
    assert _measure(b, 3) is None


def _host(name: str, ns: str, addr: str, tmp_path: Path) -> Host:
    spec = HostSpec(name=name, role="both", address="", data_address=addr, interface="", netns=ns)
    return Host(spec, Local(name, ns), local_dir=str(tmp_path))


@needs_root
def test_measure_pair_runs_the_peer_on_the_receiver_and_measures_from_the_sender(
    two_netns, tmp_path
):
    a, b = two_netns
    receiver, sender = _host("r", a, A_ADDR, tmp_path), _host("s", b, B_ADDR, tmp_path)
    est = clocks.measure_pair(receiver, sender)
    assert est is not None and est.answered >= 1
    assert abs(est.offset_ns) <= est.uncertainty_ns  # one kernel: no offset
    assert "ready" in (tmp_path / "clock-probe-r.log").read_text()


@needs_root
def test_offsets_are_measured_only_between_kernels(two_netns, tmp_path):
    a, b = two_netns
    receiver, sender = _host("r", a, A_ADDR, tmp_path), _host("s", b, B_ADDR, tmp_path)
    receiver.facts["boot_id"] = sender.facts["boot_id"] = "one-kernel"
    assert clocks.offsets([(sender, receiver)]) == {}
    sender.facts["boot_id"] = "another-kernel"  # as a vm guest or a lab machine would be
    got = clocks.offsets([(sender, receiver), (sender, receiver)])
    assert list(got) == ["r"] and list(got["r"]) == ["s"]
    probe = clocks.Offset(**got["r"]["s"]["probe"])
    assert abs(probe.offset_ns) <= probe.uncertainty_ns  # truly one clock underneath
    assert set(got["r"]["s"]["receiver_sync"]) == {"chrony", "ptp4l"}


# chronyc(1)'s example of `chronyc tracking` (chrony documentation, chronyc manual page)
CHRONY_TRACKING = """\
Reference ID    : CB00710F (foo.example.net)
Stratum         : 3
Ref time (UTC)  : Fri Jan 27 09:49:17 2017
System time     : 0.000006523 seconds slow of NTP time
Last offset     : -0.000006747 seconds
RMS offset      : 0.000035822 seconds
Frequency       : 3.225 ppm slow
Residual freq   : -0.000 ppm
Skew            : 0.129 ppm
Root delay      : 0.013639022 seconds
Root dispersion : 0.001100737 seconds
Update interval : 64.2 seconds
Leap status     : Normal
"""

# linuxptp's pmc answering GET TIME_STATUS_NP (the layout of pmc's TIME_STATUS_NP printer)
PMC_TIME_STATUS = """\
sending: GET TIME_STATUS_NP
\t90e2ba.fffe.0ba0d4-0 seq 0 RESPONSE MANAGEMENT TIME_STATUS_NP
\t\tmaster_offset              -12
\t\tingress_time               1478286541390617446
\t\tcumulativeScaledRateOffset +0.000000000
\t\tscaledLastGmPhaseChange    0
\t\tgmTimeBaseIndicator        0
\t\tlastGmPhaseChange          0x0000'0000000000000000.0000
\t\tgmPresent                  true
\t\tgmIdentity                 001b21.fffe.6f7e94
"""


def test_chrony_tracking_gives_the_signed_offset_and_dispersion():
    got = clocks.parse_chronyc_tracking(CHRONY_TRACKING)
    assert got == {
        "service": "chrony",
        "offset_ns": -6523,  # slow of NTP time: behind
        "root_dispersion_ns": 1100737,
        "stratum": 3,
        "reference": "CB00710F (foo.example.net)",
        "leap": "Normal",
    }
    fast = CHRONY_TRACKING.replace("0.000006523 seconds slow", "0.25 seconds fast")
    assert clocks.parse_chronyc_tracking(fast)["offset_ns"] == 250_000_000
    assert clocks.parse_chronyc_tracking("506 Cannot talk to daemon\n") is None


def test_pmc_time_status_gives_the_master_offset():
    assert clocks.parse_pmc_time_status(PMC_TIME_STATUS) == {
        "service": "ptp4l",
        "offset_ns": -12,
        "gm_present": True,
        "gm_identity": "001b21.fffe.6f7e94",
    }
    assert clocks.parse_pmc_time_status("sending: GET TIME_STATUS_NP\n") is None


def test_sync_status_is_null_for_a_service_that_is_not_there():
    got = clocks.sync_status(Local("here"))
    if shutil.which("chronyc") is None:
        assert got["chrony"] is None
    if shutil.which("pmc") is None:
        assert got["ptp4l"] is None


# --- the tools: stamp clock and datagrams received before their stamp ---


@pytest.fixture
def lo_netns():
    ns = f"{NS_PREFIX}clk-lo-{os.getpid()}"
    _ip("netns", "add", ns)
    _ip("-n", ns, "link", "set", "lo", "up")
    yield ns
    subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def _tools_run(ns: str, tmp_path: Path, send_clock: str, recv_clock: str, n: int = 200):
    rjson, sjson = tmp_path / f"r-{send_clock}-{recv_clock}.json", tmp_path / "s.json"
    ready = tmp_path / "ready"
    ready.unlink(missing_ok=True)
    recv = subprocess.Popen(
        _in(ns, str(paths.ctool("lanloss-recv")), "--port", "5300", "--bind", "127.0.0.1",
            "--stamp-clock", recv_clock, "--idle-timeout", "1", "--duration", "30",
            "--ready-file", str(ready), "--json", str(rjson))
    )  # fmt: skip
    deadline = time.monotonic() + 10
    while not ready.exists():
        assert recv.poll() is None and time.monotonic() < deadline
        time.sleep(0.02)
    subprocess.run(
        _in(ns, str(paths.ctool("lanloss-send")), "--dst", "127.0.0.1", "--port", "5300",
            "--count", str(n), "--rate", "1000000", "--payload", "100",
            "--stamp-clock", send_clock, "--json", str(sjson))
        , check=True, timeout=30,
    )  # fmt: skip
    assert recv.wait(timeout=30) == 0
    return json.loads(sjson.read_text()), json.loads(rjson.read_text())


@needs_root
def test_tools_stamp_on_the_clock_asked_for_and_count_arrivals_before_their_stamp(
    lo_netns, tmp_path
):
    s, r = _tools_run(lo_netns, tmp_path, "realtime", "realtime")
    f = r["flows"][0]
    assert s["stamp_clock"] == r["stamp_clock"] == "realtime"
    assert f["received"] == 200 and f["latency_negative"] == 0
    assert 0 <= f["latency_us"]["min"] <= f["latency_us"]["p50"]
    # realtime stamps read on a monotonic receiver: every datagram "arrives" ~decades before
    # it was sent (realtime - monotonic > 0 here): counted, none in the histogram
    s, r = _tools_run(lo_netns, tmp_path, "realtime", "monotonic")
    f = r["flows"][0]
    assert r["stamp_clock"] == "monotonic"
    assert f["received"] == 200 and f["latency_negative"] == 200 and f["latency_us"] is None


def test_an_unknown_stamp_clock_is_refused_in_one_line():
    res = subprocess.run(
        [str(paths.ctool("lanloss-send")), "--dst", "127.0.0.1", "--stamp-clock", "tai"],
        capture_output=True,
        text=True,
    )
    assert res.returncode == 2
    assert res.stderr.strip().splitlines() == [
        "lanloss-send: --stamp-clock: invalid value 'tai' (expected monotonic or realtime)"
    ]


# --- the reporting rule ---

RAW = {"p50": 80.0, "p99": 120.0, "max": 300.0}  # receive minus send on the stamp clock, µs


def _off(offset_ns: int, uncertainty_ns: int) -> clocks.Offset:
    return clocks.Offset(offset_ns, uncertainty_ns, 2 * uncertainty_ns, 10, 10)


def test_one_kernel_reports_the_latency_as_measured():
    assert clocks.one_way_latency(RAW, 0, True, None) == (RAW, None)


def test_two_kernels_without_an_offset_report_no_latency_and_say_why():
    lat, why = clocks.one_way_latency(RAW, 0, False, None)
    assert lat == {"p50": None, "p99": None, "max": None}
    assert why == "sender and receiver clocks differ and their offset was not measured"


def test_a_well_measured_offset_is_subtracted():
    # receiver 30 µs ahead of the sender, known to 2 µs: 10 x 2 µs <= the 50 µs median
    lat, why = clocks.one_way_latency(RAW, 0, False, _off(30_000, 2_000))
    assert why is None and lat == {"p50": 50.0, "p99": 90.0, "max": 270.0}


def test_an_offset_not_ten_times_below_the_median_delay_nulls_the_latency():
    # 10 x 5.001 µs > the 50 µs median
    lat, why = clocks.one_way_latency(RAW, 0, False, _off(30_000, 5_001))
    assert lat == {"p50": None, "p99": None, "max": None}
    assert "not 10x below the median one-way delay (50.000 us)" in why
    assert clocks.one_way_latency(RAW, 0, False, _off(30_000, 5_000))[1] is None


def test_arrivals_before_their_stamp_null_the_latency_on_either_clock():
    for shared, off in ((True, None), (False, _off(0, 100))):
        lat, why = clocks.one_way_latency(RAW, 3, shared, off)
        assert lat["p50"] is None and why.startswith("3 datagrams arrived before their send")


def test_no_stamps_need_no_reason():
    none = {"p50": None, "p99": None, "max": None}
    assert clocks.one_way_latency(none, 0, False, None) == (none, None)


# --- bed check's line ---


@needs_root
def test_check_calls_a_clock_5_ms_off_unsynchronized_and_names_the_remedy(two_netns, tmp_path):
    a, b = two_netns
    peer = _serve(a, 5_000_000, tmp_path / "peer.log")  # the receiver's clock 5 ms ahead
    try:
        est = _measure(b, 20)
    finally:
        peer.wait(timeout=10)
    assert est is not None
    ok, line = clocks.check_line("r1", "s1", {"probe": est.to_dict()})
    assert not ok and line.startswith("clock r1 - s1: unsynchronized, offset +")
    assert line.endswith(": run chrony or ptp4l on both hosts, or one-way latency will be null")
    ok, line = clocks.check_line("r1", "s1", {"probe": {**est.to_dict(), "offset_ns": 0}})
    assert ok == (est.uncertainty_ns <= clocks.CHECK_MAX_UNCERTAINTY_NS)


def test_check_says_what_to_install_when_nothing_was_measured():
    ok, line = clocks.check_line("r1", "s1", {"probe": None})
    assert not ok
    assert line == (
        "clock r1 - s1: not measured: no answer (python3 missing, or UDP blocked); install "
        "python3 on both hosts and let UDP 5299 through, or one-way latency will be null"
    )


def test_check_shows_what_chrony_said():
    probe = {"offset_ns": 300, "uncertainty_ns": 3200, "rtt_min_ns": 6400}
    sync = {"chrony": clocks.parse_chronyc_tracking(CHRONY_TRACKING), "ptp4l": None}
    ok, line = clocks.check_line("r1", "s1", {"probe": probe, "receiver_sync": sync})
    assert ok and line == (
        "clock r1 - s1: offset +0.3 us ± 3.2 us (ping-pong); receiver chrony -6523 ns"
    )
