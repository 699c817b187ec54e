# SPDX-License-Identifier: GPL-2.0-only
"""What an icount guest's emulator spent over a window of the traffic, from outside and
inside at once.

Inside, lanloss-recv --cpu-window reads the guest's own /proc/stat (its idle time, exact
under NOHZ: busy is the window less it) and its NIC's interrupts at the window's two ends, by its
CLOCK_MONOTONIC, the window starting at its first receive call with datagrams. Outside, a
thread of the harness samples the CPU time of QEMU's vCPU thread every SAMPLE_S during the
traffic. The guest's first receive call comes right after the sender's first datagram (the
wire takes microseconds; under -icount align the guest's clock leads real time by at most
3 ms), and the guest's clock keeps real time's pace over a point (the pace check), so the
window's ends on this machine's clock are the sender's start plus the guest's offsets from
its first receive call. The vCPU thread's CPU time there, interpolated between samples,
is what the emulator spent on that window: the guest's busy time at the emulator's speed,
plus the real time the guest's clock stood still while QEMU emulated its devices
(lanloss/host_presets.py: QEMU_BUSY_SPEEDUP, QEMU_INTERRUPT_STALL_S). `lanloss calibrate
--table` solves a study's windows for those two.
"""

from __future__ import annotations

import threading
import time
from bisect import bisect_left
from collections.abc import Callable
from typing import Any

SAMPLE_S = 0.01  # the vCPU thread's CPU time is counted in ticks of 10 ms anyway

Sample = tuple[float, float]  # (this machine's CLOCK_MONOTONIC s, CPU s)


class VcpuSampler:
    """A thread that reads each guest's vCPU CPU time every SAMPLE_S until stopped."""

    def __init__(self, readers: dict[str, Callable[[], float | None]]) -> None:
        self.readers = readers
        self.samples: dict[str, list[Sample]] = {name: [] for name in readers}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="vcpu-sampler", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> dict[str, list[Sample]]:
        self._stop.set()
        self._thread.join()
        return self.samples

    def _run(self) -> None:
        while True:
            for name, read in self.readers.items():
                cpu = read()
                if cpu is not None:
                    self.samples[name].append((time.monotonic(), cpu))
            if self._stop.wait(SAMPLE_S):
                return


def cpu_at(samples: list[Sample], t: float) -> float | None:
    """The CPU time at `t`, linear between the samples around it; None outside them."""
    times = [s[0] for s in samples]
    i = bisect_left(times, t)
    if i == len(samples) or (i == 0 and times[0] != t):
        return None
    if times[i] == t:
        return samples[i][1]
    (t0, c0), (t1, c1) = samples[i - 1], samples[i]
    return c0 + (c1 - c0) * (t - t0) / (t1 - t0)


def window(
    samples: list[Sample], sender_start_s: float | None, recv_window: dict[str, Any] | None
) -> dict[str, Any]:
    """The emulator's window record: the guest's own busy and idle seconds and interrupts
    (from lanloss-recv's cpu_window), the real seconds between its ends and the vCPU
    thread's CPU seconds over them; or {"complete": False, "why": ...}."""
    sampled = {"vcpu_samples": len(samples)}
    if not recv_window or not recv_window.get("first_return_ns"):
        return {"complete": False, "why": "the receiver read no datagram", **sampled}
    if not recv_window.get("complete"):
        why = "the guest's clock did not reach the window's end before the receiver stopped"
        return {"complete": False, "why": why + " (a guest slower than real time)", **sampled}
    if sender_start_s is None:
        return {"complete": False, "why": "the sender's start is unknown", **sampled}
    first = recv_window["first_return_ns"]
    a = sender_start_s + (recv_window["start_ns"] - first) / 1e9
    b = sender_start_s + (recv_window["end_ns"] - first) / 1e9
    cpu_a, cpu_b = cpu_at(samples, a), cpu_at(samples, b)
    if cpu_a is None or cpu_b is None:
        why = "the vCPU thread was not sampled over the window"
        return {"complete": False, "why": why, **sampled}
    hz = float(recv_window["user_hz"])
    # busy = the window's CPU time less the idle time the guest measured (its busy ticks
    # miss most of the busy time of a CPU that idles between frames: cpu_window.c)
    guest_s = (recv_window["end_ns"] - recv_window["start_ns"]) / 1e9
    idle = recv_window["idle_ticks"] / hz
    return {
        "complete": True,
        **sampled,
        "real_s": round(b - a, 4),
        "vcpu_s": round(cpu_b - cpu_a, 4),
        "guest_s": round(guest_s, 4),
        "guest_busy_s": round(max(0.0, guest_s * int(recv_window["cpus"]) - idle), 4),
        "guest_idle_s": idle,
        "guest_irqs": recv_window.get("irqs"),
        "irq_name": recv_window.get("irq_name"),
    }
