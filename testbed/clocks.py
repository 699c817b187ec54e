# SPDX-License-Identifier: GPL-2.0-only
"""Clocks of a run's hosts: which clock the tools stamp with, each receiver's measured offset
to its senders, and whether a flow's one-way latency can be reported.

* Hosts in one kernel (the netns backend) read one CLOCK_MONOTONIC: the tools stamp with it
  and latency is exact up to the stamps' placement.
* Hosts in different kernels (ssh hosts, vm guests) stamp with CLOCK_REALTIME, the clock
  NTP/PTP synchronize. Before traffic the harness measures each receiver's offset to each
  of its senders with a ping-pong over the data network (clock_probe.py) and reads
  chrony's and ptp4l's own status where they run (read-only; null where absent).
* A flow's one-way latency is reported, corrected by the measured offset, only where the
  clocks are shared, or the offset's uncertainty times LATENCY_FACTOR is at most the flow's
  median delay and no datagram arrived before its send stamp. Otherwise the latency
  fields are null and the record's ``clocks.latency_null_reason`` says why, per flow.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lanloss.testbed.errors import BedError
from lanloss.testbed.transport import Transport

LATENCY_FACTOR = 10  # the offset's uncertainty must be 10x below the median delay
PROBE_PORT = 5299  # UDP port the ping-pong peer listens on
# the round with the smallest round trip sets the bound: more rounds, a tighter bound when
# the machine is busy
PROBE_ROUNDS = 200
STAMP_SHARED = "monotonic"  # the tools' --stamp-clock within one kernel
STAMP_ACROSS = "realtime"  # and across kernels
LATENCY_KEYS = ("p50", "p99", "max")


def probe_source() -> str:
    """clock_probe.py's text, to run with ``python3 -c`` on a host."""
    return Path(__file__).with_name("clock_probe.py").read_text(encoding="utf-8")


@dataclass(frozen=True)
class Offset:
    """A receiver's clock minus a sender's, from the ping-pong: uncertainty is a bound."""

    offset_ns: int
    uncertainty_ns: int
    rtt_min_ns: int
    answered: int
    rounds: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "offset_ns": self.offset_ns,
            "uncertainty_ns": self.uncertainty_ns,
            "rtt_min_ns": self.rtt_min_ns,
            "answered": self.answered,
            "rounds": self.rounds,
        }


def parse_probe(text: str) -> Offset | None:
    """The measure step's JSON line as an offset of the *peer* to the measuring host; None
    when no request was answered."""
    d = json.loads(text.strip().splitlines()[-1])
    if d.get("offset_ns") is None:
        return None
    return Offset(
        int(d["offset_ns"]),
        int(d["uncertainty_ns"]),
        int(d["rtt_min_ns"]),
        int(d["answered"]),
        int(d["rounds"]),
    )


def measure_pair(receiver: Any, sender: Any, port: int = PROBE_PORT) -> Offset | None:
    """Receiver's clock minus sender's: the peer serves on the receiver's data address, the
    sender measures (so the probe crosses the network the flow crosses), and the peer's
    offset to the sender is the receiver's. None when a host lacks python3 or nothing
    answered."""
    src = probe_source()
    addr = receiver.spec.data_address
    log = Path(receiver.local_dir) / f"clock-probe-{receiver.name}.log"
    argv = ["python3", "-c", src, "serve", addr, str(port)]
    peer = receiver.transport.spawn(argv, str(log), workdir=receiver.workdir)
    try:
        if not _wait_ready(peer, log):
            return None
        argv = ["python3", "-c", src, "measure", addr, str(port), str(PROBE_ROUNDS)]
        res = sender.transport.run(argv)
        return parse_probe(res.out) if res.ok else None
    finally:
        peer.stop(grace=1.0)


def offsets(pairs: list[tuple[Any, Any]]) -> dict[str, dict[str, Any]]:
    """receiver -> sender -> {"probe": the ping-pong's Offset (None: not measured),
    "receiver_sync"/"sender_sync": chrony's and ptp4l's status}, for each (sender, receiver)
    host pair in different kernels; measured before the traffic and its counters."""
    out: dict[str, dict[str, Any]] = {}
    for sender, receiver in pairs:
        boot = sender.facts.get("boot_id")
        if boot is not None and boot == receiver.facts.get("boot_id"):
            continue
        if sender.name in out.get(receiver.name, {}):
            continue
        try:
            probe = measure_pair(receiver, sender)
            sync = {
                "receiver_sync": sync_status(receiver.transport),
                "sender_sync": sync_status(sender.transport),
            }
        except BedError as exc:  # a host that cannot run the probe: not measured
            probe, sync = None, {"error": str(exc)}
        out.setdefault(receiver.name, {})[sender.name] = {
            "probe": probe.to_dict() if probe else None,
            **sync,
        }
    return out


# How long the receiver's peer may take to start: python3 in a QEMU guest under TCG, its
# /usr over 9p, with a CPU quota of the point's (--recv-cpu 25 stops it 75 ms in every 100)
# takes several seconds; a peer that exits ends the wait at once.
PEER_READY_S = 30.0


def _wait_ready(proc: Any, log: Path, timeout: float = PEER_READY_S) -> bool:
    """The peer printed "ready" (it is bound) before it exited or the timeout."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if log.exists() and "ready" in log.read_text(encoding="utf-8", errors="replace"):
            return True
        if proc.poll() is not None:
            return False
        time.sleep(0.05)
    return False


# --- synchronization services' own view (read-only) ---

_CHRONY_SYSTEM = re.compile(r"^System time\s*:\s*([0-9.eE+-]+) seconds (fast|slow)", re.M)
_CHRONY_FIELD = re.compile(r"^(Reference ID|Stratum|Root dispersion|Leap status)\s*:\s*(.*)$", re.M)


def parse_chronyc_tracking(text: str) -> dict[str, Any] | None:
    """``chronyc tracking``: the local clock minus NTP time (fast = ahead) in ns, the root
    dispersion in ns, stratum, reference and leap status. None when the text has no
    "System time" line."""
    m = _CHRONY_SYSTEM.search(text)
    if not m:
        return None
    fields = dict(_CHRONY_FIELD.findall(text))
    sign = 1 if m.group(2) == "fast" else -1
    disp = re.match(r"([0-9.eE+-]+)", fields.get("Root dispersion", ""))
    stratum = fields.get("Stratum", "").strip()
    return {
        "service": "chrony",
        "offset_ns": round(sign * float(m.group(1)) * 1e9),
        "root_dispersion_ns": round(float(disp.group(1)) * 1e9) if disp else None,
        "stratum": int(stratum) if stratum.isdigit() else None,
        "reference": fields.get("Reference ID", "").strip() or None,
        "leap": fields.get("Leap status", "").strip() or None,
    }


def parse_pmc_time_status(text: str) -> dict[str, Any] | None:
    """``pmc 'GET TIME_STATUS_NP'`` (linuxptp): master_offset in ns and whether a
    grandmaster is present. None without a master_offset line."""
    m = re.search(r"^\s*master_offset\s+(-?\d+)", text, re.M)
    if not m:
        return None
    gm = re.search(r"^\s*gmPresent\s+(\w+)", text, re.M)
    ident = re.search(r"^\s*gmIdentity\s+(\S+)", text, re.M)
    return {
        "service": "ptp4l",
        "offset_ns": int(m.group(1)),
        "gm_present": gm.group(1) == "true" if gm else None,
        "gm_identity": ident.group(1) if ident else None,
    }


def sync_status(transport: Transport) -> dict[str, Any]:
    """What chrony and ptp4l say on a host (read-only queries); null for a service that does
    not answer."""
    chrony, ptp = transport.run_many(
        [["chronyc", "-n", "tracking"], ["pmc", "-u", "-b", "0", "GET TIME_STATUS_NP"]]
    )
    return {
        "chrony": parse_chronyc_tracking(chrony.out) if chrony.ok else None,
        "ptp4l": parse_pmc_time_status(ptp.out) if ptp.ok else None,
    }


# --- the reporting rule ---


def one_way_latency(
    latency_us: dict[str, float | None],
    negative: int,
    shared: bool,
    offset: Offset | None,
) -> tuple[dict[str, float | None], str | None]:
    """A flow's latency as the record reports it, and why it is null (None when reported).

    latency_us: the raw receive-minus-send quantiles on the stamp clock; negative: datagrams
    received before their send stamp; offset: the receiver's clock minus the sender's."""
    nulls = {k: None for k in LATENCY_KEYS}
    if all(latency_us.get(k) is None for k in LATENCY_KEYS):
        return nulls, None  # nothing stamped: nothing to explain
    if shared:
        if negative:
            return nulls, f"{negative} datagrams arrived before their send stamp on one clock"
        return {k: latency_us.get(k) for k in LATENCY_KEYS}, None
    if offset is None:
        return nulls, "sender and receiver clocks differ and their offset was not measured"
    if negative:
        return nulls, (
            f"{negative} datagrams arrived before their send stamp: the clocks disagree by "
            f"more than the delay (measured offset {offset.offset_ns} ns "
            f"± {offset.uncertainty_ns} ns)"
        )
    shifted = {
        k: None if v is None else v - offset.offset_ns / 1e3
        for k, v in ((k, latency_us.get(k)) for k in LATENCY_KEYS)
    }
    median = (
        shifted["p50"]
        if shifted["p50"] is not None
        else min(v for v in shifted.values() if v is not None)
    )
    if LATENCY_FACTOR * offset.uncertainty_ns / 1e3 > median:
        return nulls, (
            f"clock offset uncertainty {offset.uncertainty_ns} ns is not {LATENCY_FACTOR}x "
            f"below the median one-way delay ({median:.3f} us)"
        )
    return shifted, None


# --- bed check: is each receiver's clock close enough to its senders'? ---

# The bars `bed check` holds a pair of clocks to (choices, stated here, not measurements):
# an offset beyond 1 ms means no working NTP/PTP between two hosts on one LAN, and an
# uncertainty beyond 10 us keeps one-way delays under 100 us (LATENCY_FACTOR x 10 us) from
# being reported at all.
CHECK_MAX_OFFSET_NS = 1_000_000
CHECK_MAX_UNCERTAINTY_NS = 10_000
SYNC_REMEDY = "run chrony or ptp4l on both hosts, or one-way latency will be null"


def check_line(receiver: str, sender: str, measured: dict[str, Any]) -> tuple[bool, str]:
    """One line of `bed check` for a receiver's clock against a sender's (offsets()'s
    entry) -> (synchronized, the line; with the remedy when not)."""
    ok, said, remedy = check(measured)
    line = f"clock {receiver} - {sender}: {said}"
    if remedy is None:
        return ok, line
    return ok, f"{line}{'; ' if measured.get('probe') is None else ': '}{remedy}"


def check(measured: dict[str, Any]) -> tuple[bool, str, str | None]:
    """A receiver's clock against a sender's (offsets()'s entry) -> (synchronized, what was
    measured, the remedy when not synchronized)."""
    probe = measured.get("probe")
    if probe is None:
        why = measured.get("error") or "no answer (python3 missing, or UDP blocked)"
        return (
            False,
            f"not measured: {why}",
            (
                f"install python3 on both hosts and let UDP {PROBE_PORT} through, or one-way "
                "latency will be null"
            ),
        )
    off, unc = probe["offset_ns"], probe["uncertainty_ns"]
    said = f"offset {off / 1e3:+.1f} us ± {unc / 1e3:.1f} us (ping-pong){_services(measured)}"
    if abs(off) > CHECK_MAX_OFFSET_NS or unc > CHECK_MAX_UNCERTAINTY_NS:
        want = f"|offset| <= {CHECK_MAX_OFFSET_NS / 1e3:g} us"
        want += f", ± <= {CHECK_MAX_UNCERTAINTY_NS / 1e3:g} us"
        return False, f"unsynchronized, {said} (want {want})", SYNC_REMEDY
    return True, said, None


def _services(measured: dict[str, Any]) -> str:
    """'; chrony r: ... ' for what the synchronization services said, or ''."""
    parts = []
    for side in ("receiver_sync", "sender_sync"):
        for svc in (measured.get(side) or {}).values():
            if svc:
                parts.append(f"{side.split('_')[0]} {svc['service']} {svc['offset_ns']} ns")
    return "; " + ", ".join(parts) if parts else ""
