# SPDX-License-Identifier: GPL-2.0-only
"""`bed check`'s rules that need no lab (testbed/lab_check.py): a clock finding's line and
severity, what the privilege and ethtool columns read. The probes themselves run against
sshd hosts in tests/testbed/test_bed_check.py."""

from __future__ import annotations

from lanloss.testbed import clocks, lab_check
from lanloss.testbed.transport import Result


def _checks() -> list[lab_check.HostCheck]:
    return [
        lab_check.HostCheck("s1", "sender", "eth1", reachable=True),
        lab_check.HostCheck("r1", "receiver", "eth1", reachable=True),
    ]


def test_an_unsynchronized_clock_is_a_warning_naming_the_receiver_and_the_remedy():
    checks = _checks()
    probe = {"offset_ns": 5_000_000, "uncertainty_ns": 3_000, "rtt_min_ns": 6_000}
    (found,) = lab_check.clock_findings(checks, {"r1": {"s1": {"probe": probe}}})
    assert not found.problem  # its one-way latency is null; the run does not fail
    assert found.line() == (
        "lanloss bed check: r1: warning: clock against s1: unsynchronized, offset +5000.0 us "
        "± 3.0 us (ping-pong) (want |offset| <= 1000 us, ± <= 10 us) — run chrony or ptp4l on "
        "both hosts, or one-way latency will be null"
    )
    assert checks[1].clock == {"s1": "unsynchronized, offset +5000.0 us ± 3.0 us (ping-pong) "
                               "(want |offset| <= 1000 us, ± <= 10 us)"}  # fmt: skip


def test_a_synchronized_clock_is_no_finding_and_a_missing_probe_is_a_warning():
    checks = _checks()
    probe = {"offset_ns": 300, "uncertainty_ns": 3_200, "rtt_min_ns": 6_400}
    assert lab_check.clock_findings(checks, {"r1": {"s1": {"probe": probe}}}) == []
    assert checks[1].clock == {"s1": "offset +0.3 us ± 3.2 us (ping-pong)"}
    (found,) = lab_check.clock_findings(checks, {"r1": {"s1": {"probe": None}}})
    assert found.line() == (
        "lanloss bed check: r1: warning: clock against s1: not measured: no answer (python3 "
        f"missing, or UDP blocked) — install python3 on both hosts and let UDP "
        f"{clocks.PROBE_PORT} through, or one-way latency will be null"
    )


def _r(out: str, rc: int = 0) -> Result:
    return Result([], rc, out)


def test_privilege_is_whether_the_login_has_cap_net_admin():
    everything, without = "000001ffffffffff", "000001fffeffefff"  # bit 12 cleared
    assert lab_check.privilege(_r("0\n"), _r(everything + "\n")) == "root"
    assert lab_check.privilege(_r("0\n"), _r(without + "\n")) == "none"  # a capped container
    assert lab_check.privilege(_r("1000\n"), _r("0000000000001000\n")) == "CAP_NET_ADMIN"
    assert lab_check.privilege(_r("1000\n"), _r("0000000000000000\n")) == "none"
    assert lab_check.privilege(_r("", 1), _r("", 1)) == "none"


def test_an_ethtool_read_that_answers_without_the_field_is_not_the_capability():
    """tun answers `ethtool -c` with every field n/a: no rx-usecs to set."""
    takes = {flag: ok for flag, _, ok in lab_check.CAPABILITIES}
    assert not takes["-C"]("Coalesce parameters for tp0:\nAdaptive RX: n/a  TX: n/a\n"
                           "rx-usecs: n/a\nrx-frames: 0\n")  # fmt: skip
    assert takes["-C"]("Adaptive RX: off  TX: off\nrx-usecs: 3\n")
    assert takes["-A"]("Pause parameters for eth1:\nAutonegotiate:\ton\nRX:\t\ton\nTX:\t\ton\n")
    assert takes["-G"]("Pre-set maximums:\nRX:\t\t4096\nCurrent hardware settings:\nRX:\t\t256\n")
