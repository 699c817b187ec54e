# SPDX-License-Identifier: GPL-2.0-only
"""What a receiving kernel took in at once, and which of those takes lost datagrams.

    python testbed/vm_costs/takes.py LOG [--gap-us 40]

LOG is lanloss-recv's per-packet log (--log) of one flow, written with --rx-time kernel:
each datagram's rx_ns is the kernel's SO_TIMESTAMPNS stamp, set when its stack received
the frame. Datagrams in sequence order whose stamps lie within --gap-us of the one before
were taken in together by one pass of the stack; such a run is a *take*. A gap in
the sequence numbers is a loss, counted at the take of the datagram before the gap (the
datagrams lost came in that pass, after it filled the socket, or in passes after it that
kept nothing: the log cannot tell).

Prints how many takes of each size there were, then one line per loss: the datagrams
lost, what their take received, over how much of the sender's clock those were sent (their
tx_ns: near 0 for a catch-up burst of the sender, (k - 1) x its interval on schedule), and
the receiver's clock from the take before to that take. Datagrams sent on schedule over
milliseconds but taken in together were gathered after the sender (in a QEMU guest, by
its clock's align sleeps: docs/testbed-vm.md §18).
"""

from __future__ import annotations

import argparse
import collections
import itertools
import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Loss:
    """Datagrams lost after one take (dropped in its pass or a later one)."""

    lost: int  # sequence numbers missing after the take's last datagram received
    after_seq: int  # that datagram's sequence number
    take: int  # datagrams received in the take
    sent_ms: float  # the sender's clock from the first to the last of them (their tx_ns)
    since_ms: float  # the receiver's clock from the take before to this one


def records(data: bytes) -> list[tuple[int, int, int]]:
    """The log's (seq, rx_ns, tx_ns) of its one flow, in sequence order."""
    from lanloss.testbed.traffic import parse_log

    flows = parse_log(data)
    if len(flows) != 1:
        raise ValueError(f"the log holds {len(flows)} flows; takes reads one")
    (arrivals,) = flows.values()
    return sorted((a.seq, a.rx_ns, a.tx_ns) for a in arrivals)


def takes(recs: list[tuple[int, int, int]], gap_ns: int) -> list[list[tuple[int, int, int]]]:
    """Runs of datagrams stamped within gap_ns of the one before (each a take)."""
    out: list[list[tuple[int, int, int]]] = []
    for rec in recs:
        if out and 0 <= rec[1] - out[-1][-1][1] <= gap_ns:
            out[-1].append(rec)
        else:
            out.append([rec])
    return out


def losses(groups: list[list[tuple[int, int, int]]]) -> list[Loss]:
    """Each gap in the sequence numbers, with the take of the datagram before it (the
    datagrams lost have no stamps: that pass or a later one dropped them)."""
    out = []
    flat = [(rec[0], k) for k, take in enumerate(groups) for rec in take]
    for (before, k), (seq, _) in itertools.pairwise(flat):
        if seq - before > 1:
            take = groups[k]
            since = (take[0][1] - groups[k - 1][-1][1]) / 1e6 if k else float("nan")
            sent = (max(r[2] for r in take) - min(r[2] for r in take)) / 1e6
            out.append(Loss(seq - before - 1, before, len(take), sent, since))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("log", help="lanloss-recv --log FILE, written with --rx-time kernel")
    ap.add_argument("--gap-us", type=float, default=40.0, help="stamps this close: one take")
    args = ap.parse_args(argv)
    if not args.gap_us > 0:
        print(f"takes.py: --gap-us {args.gap_us}: must be above 0", file=sys.stderr)
        return 2
    try:
        recs = records(Path(args.log).read_bytes())
    except (OSError, ValueError) as e:
        print(f"takes.py: {args.log}: {e}", file=sys.stderr)
        return 2
    groups = takes(recs, int(args.gap_us * 1000))
    sizes = collections.Counter(len(g) for g in groups)
    print(f"datagrams {len(recs)} takes {len(groups)} sizes", dict(sorted(sizes.items())))
    found = losses(groups)
    for loss in found:
        print(
            f"lost {loss.lost} after seq {loss.after_seq}: its take received {loss.take}, "
            f"sent over {loss.sent_ms:.2f} ms, {loss.since_ms:.2f} ms after the take before"
        )
    print(f"lost {sum(loss.lost for loss in found)} in {len(found)} gaps")
    return 0


if __name__ == "__main__":
    sys.exit(main())
