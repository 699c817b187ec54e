# SPDX-License-Identifier: GPL-2.0-only
"""What a guest's interrupts and NAPI polls were, from its own ftrace (napi_trace.sh).

    python testbed/vm_costs/napi_trace.py TRACE [--chain-us 20]

Each interrupt of the data NIC (irq_handler_entry) schedules a NAPI poll; the poll's end is
napi_poll, with the frames it took (work) and after e1000_clean has unmasked the interrupt.
An interrupt whose cause outlived its frames (ICR set by a frame that reached the ring after
the handler's ICR read and was taken by the poll that followed) is raised as soon as the
poll unmasks it, and its poll finds the ring empty, or holds only the frames that reached
it meanwhile. Prints, over the trace: the interrupts, the polls and the frames they took;
the polls that took nothing; the interrupts that came within --chain-us of the guest's
clock after a poll's end (raised at the unmasking: the chain) and those that came before the
poll of the previous one had ended; and the frames per poll.
"""

from __future__ import annotations

import argparse
import collections
import re
import sys
from pathlib import Path

# "<task>-<pid> [cpu] flags  seconds: event: fields"
LINE = re.compile(r"\s(\d+\.\d+):\s+(irq_handler_entry|napi_poll):\s(.*)$")
WORK = re.compile(r"\bfor device (\S+) work (\d+) budget (\d+)")
DEVICE = "eth0"  # the guest's data NIC (napi_trace.sh traces only its interrupts)
BURST = 9  # a poll of this many frames or more took a burst (the model's BURST_POLL_FRAMES)


def events(text: str) -> list[tuple[float, str, int]]:
    """(guest seconds, "irq" or "poll", frames taken: 0 for an interrupt), in order; the
    polls of other devices (the guest's control NIC) left out."""
    out = []
    for line in text.splitlines():
        m = LINE.search(line)
        if not m:
            continue
        t, kind, rest = float(m.group(1)), m.group(2), m.group(3)
        if kind == "irq_handler_entry":
            out.append((t, "irq", 0))
        else:
            w = WORK.search(rest)
            if w is None:
                raise ValueError(f"a napi_poll line without its device and work: {line.strip()}")
            if w.group(1) == DEVICE:
                out.append((t, "poll", int(w.group(2))))
    return out


def summary(evs: list[tuple[float, str, int]], chain_s: float) -> dict[str, float]:
    """The counts napi_trace.py prints."""
    irqs = [t for t, k, _ in evs if k == "irq"]
    polls = [(t, w) for t, k, w in evs if k == "poll"]
    frames = sum(w for _, w in polls)
    after_poll = nested = 0
    last_poll = None
    pending_poll = False  # an interrupt whose poll has not ended yet
    for t, kind, _ in evs:
        if kind == "irq":
            if pending_poll:
                nested += 1
            elif last_poll is not None and t - last_poll <= chain_s:
                after_poll += 1
            pending_poll = True
        else:
            pending_poll = False
            last_poll = t
    per_poll = collections.Counter(min(w, BURST) for _, w in polls)
    return {
        "interrupts": len(irqs),
        "polls": len(polls),
        "frames": frames,
        "empty_polls": per_poll.get(0, 0),
        "interrupts_per_frame": len(irqs) / frames if frames else float("nan"),
        "at_unmask": after_poll,
        "before_poll_end": nested,
        "frames_per_poll": dict(sorted(per_poll.items())),
        "burst_frames": sum(w for _, w in polls if w >= BURST),
        "seconds": (evs[-1][0] - evs[0][0]) if evs else 0.0,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trace", type=Path)
    ap.add_argument("--chain-us", type=float, default=20.0)
    a = ap.parse_args(argv)
    if not a.chain_us > 0:
        print(f"napi_trace.py: --chain-us {a.chain_us} is not above 0", file=sys.stderr)
        return 2
    try:
        evs = events(a.trace.read_text())
    except (OSError, ValueError) as e:
        print(f"napi_trace.py: {a.trace}: {e}", file=sys.stderr)
        return 2
    s = summary(evs, a.chain_us * 1e-6)
    f = s["frames_per_poll"]
    print(
        f"{s['seconds']:.2f} s of the guest's clock: {s['interrupts']} interrupts, "
        f"{s['polls']} polls, {s['frames']} frames ({s['interrupts_per_frame']:.3f} "
        f"interrupts per frame); polls that took nothing {s['empty_polls']}; interrupts "
        f"within {a.chain_us:g} us after a poll's end {s['at_unmask']}, before the previous "
        f"one's poll ended {s['before_poll_end']}; polls by the frames they took ({BURST}: "
        f"{BURST} or more) "
        + ", ".join(f"{k}: {v}" for k, v in f.items())
        + f"; frames in polls of {BURST} or more {s['burst_frames']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
