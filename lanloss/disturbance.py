# SPDX-License-Identifier: GPL-2.0-only
"""When the machine, not the run's options, decided a testbed run.

One rule for everyone who must tell the code from the machine's load: the harness
(``lanloss bed run --retry-disturbed N`` measures such a run again), the fit and the
validation (which leave it out: lanloss.analysis.fit.disturbed) and the tests that judge
real-time runs (tests/testbed/load_rules.py). A run is disturbed, and so is not the run
its options describe, when

- its sender did not reach its rate (``offered_met`` false: not offered the load its
  ``rate`` says);
- its sender fell behind and caught up with a burst larger than the receiver's switch
  port holds (``max_burst_datagrams`` above ``port_buffer_datagrams``: not offered its
  pattern; a burst a port absorbs changes nothing downstream of it);
- its sender caught up with a burst of more than ``FULL_PORT_SHARE`` of the run's
  datagrams at a switch port that dropped during the run (``drop_switch_egress`` > 0): that
  port's queue was full at times, and a burst that meets a full queue is lost whole, however
  small. On veth the port's shaper runs on the CPU that enqueued, the sender's, so the
  stall that delays the sender idles the link too: an overloaded port's queue is still full
  when the burst arrives (1472 B into a 16 KiB port at 97 Mbit/s: the wire's 1.21 %, or
  1.40 % and 1.52 % after bursts of 9.2 and 10.0 datagrams, fewer than its 10.8);
- a receiver was kept off the CPU for longer than its socket buffer lasts
  (``recv_stalled`` true: its socket overflowed because it was not running), unless it
  ran in an icount guest (``vm_icount_shift`` set). There a reader's stall is measured on
  the guest's clock, which stands still while this machine does not run the guest: what
  kept the reader off the CPU was the guest kernel's own receive work (the host model's
  subject, past capacity its ksoftirqd), and this machine's stops show in the pace check;
- an icount guest did not keep its instruction rate (``guest_kept_pace`` false: not the
  PC its shift says; testbed/vm.py, PACE_TOLERANCE);
- the hypervisor took more than ``STEAL_MAX`` of this machine's CPU time during the
  traffic of a LAN emulated here (``steal_share``: lanloss.testbed.steal; its shapers,
  senders and receivers all stood still meanwhile).

The fields are a table row's (lanloss.analysis.tables); ``record_fields`` reads the same
ones from a run record. A missing or NaN field was not measured and disturbs nothing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

UNMET = "offered load not met (the sender fell behind its rate)"
BURST = "offered pattern not kept (a catch-up burst larger than the switch port's buffer)"
STALLED = "receiver not running (kept off the CPU for longer than its socket buffer lasts)"
SLOW_GUEST = "guest off its instruction rate (the vm backend's pace check)"
STEAL = "CPUs taken by the hypervisor (steal over 1 % of this machine's CPU time)"
FULL_PORT = (
    "offered pattern not kept at a full port (a catch-up burst of over 0.1 % of the run's "
    "datagrams at a switch port that dropped)"
)
STEAL_MAX = 0.01  # of the CPUs' time the hypervisor may take while a LAN emulated here runs
# A burst lost whole is as much loss as the knee's threshold (validate.KNEE_LOSS) from this
# share of a run's datagrams: alone it can move a point across the knee.
FULL_PORT_SHARE = 1e-3

# The reasons in the order they are judged and reported, with their short labels.
LABELS = {
    UNMET: "offered load not met",
    BURST: "offered pattern not kept",
    FULL_PORT: "burst into a full port",
    STALLED: "receiver not running",
    SLOW_GUEST: "guest off its pace",
    STEAL: "CPUs taken by the hypervisor",
}


def port_buffer_datagrams(payload: int, mtu: int, switch_buffer: float) -> float:
    """How many of a run's datagrams a switch port holds: ``switch_buffer`` over the bytes
    a datagram charges there (its frames from MAC header to FCS, as the simulator's switch
    counts; the testbed's size table adds preamble and gap, a few per cent fewer)."""
    from lanloss.analysis.wire import wire

    w = wire(int(payload), int(mtu))
    return float(switch_buffer) / max(w.wire_bytes - 20 * w.fragments, 1)


def _flag(value: Any) -> bool | None:
    """A 0/1/true/false field as a bool; None when it was not measured."""
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    value = float(value)
    return None if math.isnan(value) else value != 0.0


def _into_full_port(burst: float, fields: Mapping[str, Any]) -> bool:
    """A burst of more than FULL_PORT_SHARE of the run's datagrams at a switch port that
    dropped (its queue was full at times); False where either count was not measured."""
    dropped, sent = fields.get("drop_switch_egress"), fields.get("sent")
    if dropped is None or sent is None or math.isnan(float(dropped)) or math.isnan(float(sent)):
        return False
    return float(dropped) > 0 and burst > FULL_PORT_SHARE * float(sent)


def on_guest_clock(fields: Mapping[str, Any]) -> bool:
    """Whether the run's hosts were icount guests, whose clocks count their own
    instructions (a shift recorded; NaN or None: not a guest, or one on real time)."""
    shift = fields.get("vm_icount_shift")
    return shift is not None and not math.isnan(float(shift))


def reasons(fields: Mapping[str, Any]) -> list[str]:
    """Why a run is disturbed, in ``LABELS`` order; empty when the machine let it be."""
    out = []
    if _flag(fields.get("offered_met")) is False:
        out.append(UNMET)
    burst = fields.get("max_burst_datagrams")
    if burst is not None and float(burst) > 0:  # NaN: not measured
        held = port_buffer_datagrams(fields["payload"], fields["mtu"], fields["switch_buffer"])
        if float(burst) > held:
            out.append(BURST)
        elif _into_full_port(float(burst), fields):
            out.append(FULL_PORT)
    if _flag(fields.get("recv_stalled")) is True and not on_guest_clock(fields):
        out.append(STALLED)
    if _flag(fields.get("guest_kept_pace")) is False:
        out.append(SLOW_GUEST)
    stolen = fields.get("steal_share")
    if stolen is not None and float(stolen) > STEAL_MAX:  # NaN: not measured
        out.append(STEAL)
    return out


def record_fields(
    params: Mapping[str, Any],
    totals: Mapping[str, Any],
    env: Mapping[str, Any],
    drops: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The fields ``reasons`` reads, from a run record's params, totals, env and drops."""
    vm = env.get("vm") if isinstance(env.get("vm"), Mapping) else {}
    icount = vm.get("icount") if isinstance(vm.get("icount"), Mapping) else {}
    return {
        "payload": params["payload"],
        "mtu": params["mtu"],
        "switch_buffer": params["switch_buffer"],
        "offered_met": totals.get("offered_met"),
        "max_burst_datagrams": totals.get("max_burst_datagrams"),
        "recv_stalled": totals.get("recv_stalled"),
        "guest_kept_pace": icount.get("kept_pace"),
        "vm_icount_shift": icount.get("shift"),
        "steal_share": totals.get("steal_share"),
        "sent": totals.get("sent"),
        "drop_switch_egress": (drops or {}).get("switch_egress"),
    }


def attempt_summary(totals: Mapping[str, Any], started_utc: str, why: list[str]) -> dict:
    """What a run record keeps of a disturbed attempt the harness measured again
    (``extra.disturbed_attempts``): when, why, and the numbers that said so."""
    keys = ("sent", "received", "loss", "offered_met", "max_late_s", "max_burst_datagrams")
    keys += ("max_recv_stall_s", "recv_buffer_s", "recv_stalled", "steal_share")
    return {"started_utc": started_utc, "reasons": why, **{k: totals.get(k) for k in keys}}
