# SPDX-License-Identifier: GPL-2.0-only
"""Linux's UDP receive-buffer accounting, the rule the analysis and the testbed share: the
skb truesize a received frame and a reassembled datagram are charged, the sk_rcvbuf a
SO_RCVBUF gives, and how many datagrams a socket then queues. The constants are the host
model's (models/model/lanloss-linux-rx.h, through lanloss.header_constants).

Light on purpose (no pandas or SciPy; numpy only for arrays, imported when one is given):
every testbed run's record uses it to judge its receivers' stalls (lanloss.testbed.
run_record.buffer_lasts_s), and importing numpy would cost each run's process 0.1 s;
lanloss.analysis.loss_model uses it under the same names, with arrays.
"""

from __future__ import annotations

import math
from typing import Any

from lanloss import header_constants
from lanloss.analysis.wire import fragment_sizes

RMEM_DEFAULT = header_constants.RMEM_DEFAULT  # sk_rcvbuf without setsockopt
SOCK_MIN_RCVBUF = header_constants.SOCK_MIN_RCVBUF
COPYBREAK = header_constants.COPYBREAK  # e1000: frames up to this many bytes (no FCS) are copied
RX_BUFFER_TRUESIZE = header_constants.RX_BUFFER_TRUESIZE  # a 2 KiB receive buffer's skb


def frame_truesize(frame_len: int, skb: str = "2.6", mtu: int = 1500) -> int:
    """skb truesize of one received frame by the e1000 copybreak rule of the kernel ``skb``
    (Preset.skb; host-model.rst): on 2.6 a copy into an skb that fits the frame, else a 2 KiB
    receive buffer's; on 6.1 a copy from a 1 KiB allocation whatever its length, else at MTU
    1500 e1000's 1600-byte fragment (as the simulator charges them: scenario-hosts.cc). Larger
    MTUs are charged the 2 KiB buffer's on both, an approximation of the analysis only."""
    if skb == "6.1":
        if frame_len <= COPYBREAK:
            return header_constants.COPIED_TRUESIZE_6_1
        return header_constants.KEPT_TRUESIZE_6_1 if mtu <= 1500 else RX_BUFFER_TRUESIZE
    if frame_len <= COPYBREAK:
        return header_constants.copybreak_truesize(frame_len)
    return RX_BUFFER_TRUESIZE


def datagram_truesize(payload: int, mtu: int, per_frame: float = 0, skb: str = "2.6") -> float:
    """A reassembled datagram is charged the sum of its fragments' truesizes (ip_frag_reasm)."""
    frames = [ip + 14 for ip in fragment_sizes(payload, mtu)]  # MAC header, no FCS
    if per_frame and per_frame > 0:
        return per_frame * len(frames)
    return float(sum(frame_truesize(max(60, f), skb, mtu) for f in frames))


def socket_capacity(sk_rcvbuf: Any, truesize: Any) -> Any:
    """Datagrams a UDP socket queues: floor(sk_rcvbuf / truesize) + 1, element-wise for
    arrays."""
    if isinstance(sk_rcvbuf, (int, float)) and isinstance(truesize, (int, float)):
        return float(math.floor(sk_rcvbuf / truesize) + 1)
    import numpy as np

    return np.floor(np.asarray(sk_rcvbuf) / np.asarray(truesize)) + 1


def sk_rcvbuf(rcvbuf: float | None) -> float:
    """setsockopt(SO_RCVBUF, v) -> sk_rcvbuf = max(2 v, SOCK_MIN_RCVBUF); unset: rmem_default.

    No rmem_max clamp: the testbed raises rmem_max (or uses SO_RCVBUFFORCE), and the
    simulator's presets follow the same rule (lanloss/host_presets.py).
    """
    if rcvbuf is None or (isinstance(rcvbuf, float) and math.isnan(rcvbuf)):
        return float(RMEM_DEFAULT)
    return max(2.0 * float(rcvbuf), float(SOCK_MIN_RCVBUF))
