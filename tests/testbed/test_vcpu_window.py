# SPDX-License-Identifier: GPL-2.0-only
"""testbed/vcpu_window.py: the emulator's window placed on this machine's clock from the
sender's start and the guest's own offsets, and the vCPU thread's CPU time there."""

import itertools

import pytest

from lanloss.testbed import vcpu_window

# A vCPU thread that ran half of real time from t = 100 s (sampled every 10 ms).
SAMPLES = [(100 + k / 100, 50.0 + 0.5 * k / 100) for k in range(0, 501)]
RECV = {
    "seconds": 3.0,
    "complete": True,
    "first_return_ns": 7_000_000_000,  # the guest's CLOCK_MONOTONIC
    "start_ns": 7_010_000_000,
    "end_ns": 10_010_000_000,
    "user_hz": 100,
    "cpus": 1,
    "busy_ticks": 30,
    "idle_ticks": 120,
    "irqs": 2500,
    "irq_name": "eth0",
}


def test_cpu_at_interpolates_between_samples_and_is_none_outside():
    assert vcpu_window.cpu_at(SAMPLES, 100.0) == 50.0
    assert vcpu_window.cpu_at(SAMPLES, 102.005) == pytest.approx(51.0025)
    assert vcpu_window.cpu_at(SAMPLES, 99.99) is None
    assert vcpu_window.cpu_at(SAMPLES, 105.01) is None


def test_the_window_is_the_senders_start_plus_the_guests_offsets():
    w = vcpu_window.window(SAMPLES, 101.0, RECV)
    # real 101.01 .. 104.01: the thread's CPU time over it is half of 3 s
    assert w["complete"] is True and w["vcpu_samples"] == len(SAMPLES)
    assert w["real_s"] == pytest.approx(3.0) and w["vcpu_s"] == pytest.approx(1.5)
    # busy: the guest's 3 s of one CPU less its 1.2 s idle (not its 0.3 s of busy ticks)
    assert w["guest_s"] == pytest.approx(3.0) and w["guest_busy_s"] == pytest.approx(1.8)
    assert w["guest_idle_s"] == pytest.approx(1.2) and w["guest_irqs"] == 2500


@pytest.mark.parametrize(
    "start, recv, why",
    [
        (101.0, {**RECV, "complete": False}, "did not reach the window's end"),
        (101.0, {**RECV, "complete": False, "first_return_ns": 0}, "read no datagram"),
        (101.0, None, "read no datagram"),
        (None, RECV, "sender's start is unknown"),
        (103.0, RECV, "not sampled over the window"),  # ends at 106.01, after the samples
    ],
)
def test_an_incomplete_window_says_why(start, recv, why):
    w = vcpu_window.window(SAMPLES, start, recv)
    assert w["complete"] is False and why in w["why"] and w["vcpu_samples"] == len(SAMPLES)


def test_the_sampler_reads_each_guest_until_stopped():
    counter = itertools.count()
    sampler = vcpu_window.VcpuSampler({"r1": lambda: float(next(counter)), "r2": lambda: None})
    sampler.start()
    while len(sampler.samples["r1"]) < 3:
        pass
    samples = sampler.stop()
    n = len(samples["r1"])
    assert [c for _, c in samples["r1"]] == [float(i) for i in range(n)]
    assert samples["r2"] == [] and not sampler._thread.is_alive()
    times = [t for t, _ in samples["r1"]]
    assert times == sorted(times)
