# SPDX-License-Identifier: GPL-2.0-only
"""Closed-form Ethernet wire accounting for UDP over IPv4 (docs/physics.md §1).

Per frame on the wire: preamble+SFD 8, MAC header 14, FCS 4, inter-frame gap 12
(38 bytes), and the MAC payload padded to 46 bytes. A datagram larger than the
MTU is cut by IPv4 into fragments whose data (all but the last) is a multiple
of 8 bytes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from lanloss.options import UDP_MAX_PAYLOAD

PREAMBLE_SFD = 8
MAC_HEADER = 14
FCS = 4
IFG = 12
MIN_MAC_PAYLOAD = 46  # 64-byte minimum frame minus header and FCS
PER_FRAME_OVERHEAD = PREAMBLE_SFD + MAC_HEADER + FCS + IFG  # 38
IP_HEADER = 20
UDP_HEADER = 8
MAX_UDP_PAYLOAD = UDP_MAX_PAYLOAD  # lanloss.options: its one definition


@dataclass(frozen=True)
class Wire:
    payload: int  # UDP payload bytes
    fragments: int  # IPv4 fragments per datagram
    wire_bytes: int  # bytes on the wire per datagram, IFG included

    @property
    def efficiency(self) -> float:
        return self.payload / self.wire_bytes

    def datagrams_per_s(self, rate_bps: float) -> float:
        return rate_bps / (8 * self.wire_bytes)

    def goodput_bps(self, rate_bps: float) -> float:
        """Saturation goodput (UDP payload bit/s) on a link of rate_bps."""
        return self.efficiency * rate_bps


def frame_wire_bytes(ip_bytes: int) -> int:
    """Wire bytes of one frame carrying an IP packet of ip_bytes (IFG included)."""
    return max(MIN_MAC_PAYLOAD, ip_bytes) + PER_FRAME_OVERHEAD


def fragment_sizes(payload: int, mtu: int = 1500) -> list[int]:
    """IP packet sizes (header included) of a UDP datagram of `payload` bytes."""
    if not 0 <= payload <= MAX_UDP_PAYLOAD:
        raise ValueError(f"payload {payload} outside 0..{MAX_UDP_PAYLOAD}")
    udp = payload + UDP_HEADER
    if udp + IP_HEADER <= mtu:
        return [udp + IP_HEADER]
    per_fragment = 8 * ((mtu - IP_HEADER) // 8)  # fragment data is a multiple of 8
    n = math.ceil(udp / per_fragment)
    last = udp - (n - 1) * per_fragment
    return [per_fragment + IP_HEADER] * (n - 1) + [last + IP_HEADER]


def wire(payload: int, mtu: int = 1500) -> Wire:
    frags = fragment_sizes(payload, mtu)
    return Wire(payload, len(frags), sum(frame_wire_bytes(ip) for ip in frags))


def saturation_goodput_bps(payload: int, rate_bps: float, mtu: int = 1500) -> float:
    return wire(payload, mtu).goodput_bps(rate_bps)


def tcp_goodput_bps(rate_bps: float, mtu: int = 1500, tcp_options: int = 12) -> float:
    """Saturation TCP payload rate with full-size segments (timestamps: 12 option bytes).

    ACKs travel the other direction of the full-duplex link and cost nothing here.
    """
    mss = mtu - IP_HEADER - 20 - tcp_options
    return rate_bps * mss / frame_wire_bytes(mtu)
