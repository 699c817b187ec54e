# SPDX-License-Identifier: GPL-2.0-only
"""Ping-pong estimate of one host's CLOCK_REALTIME against another's, standard library only:
the harness runs this file's text with ``python3 -c`` on hosts that do not have lanloss.

  serve ADDR PORT [ADD_NS]   answer each request with this host's CLOCK_REALTIME (+ ADD_NS,
                             a known offset for tests); print "ready"; exit after IDLE_S
                             without a request or on a "bye"
  measure ADDR PORT ROUNDS   ask ADDR:PORT ROUNDS times and print one JSON line

The rule (NTP's on-wire exchange, RFC 5905 section 8): a request leaves at t0 (this host's
clock, just before the send call); the peer's kernel stamps its arrival at s1 and the peer
answers at s2 (the peer's clock); this host's kernel stamps the answer's arrival at t1. The
peer's clock minus this host's is ((s1 - t0) + (s2 - t1)) / 2, and whatever the split of the
round trip d = (t1 - t0) - (s2 - s1) between the two directions, it is off by at most d / 2.
The round with the smallest d gives the estimate, and d / 2 is its uncertainty (a bound, not
a standard deviation). Receive times are the kernel's (SO_TIMESTAMPNS), so neither host's
wake-up after a datagram arrives counts in d.
"""

import json
import socket
import struct
import sys
import time

IDLE_S = 10.0
REPLY_WAIT_S = 0.5
REQ = struct.Struct("<Q")  # request number
REPLY = struct.Struct("<Qqq")  # request number, the peer's s1 and s2 (ns)
BYE = b"bye"
SO_TIMESTAMPNS = 35  # asm-generic/socket.h (x86, arm, riscv); the cmsg type is the same
TIMESPEC = struct.Struct("@qq")


def _now() -> int:
    return time.clock_gettime_ns(time.CLOCK_REALTIME)


def _stamped_socket() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    return sock


def _recv(sock: socket.socket) -> tuple[bytes, int, object]:
    """(data, the kernel's receive stamp or, without one, now, sender address)."""
    data, anc, _flags, peer = sock.recvmsg(64, socket.CMSG_SPACE(TIMESPEC.size))
    for level, kind, raw in anc:
        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(raw) >= TIMESPEC.size:
            sec, nsec = TIMESPEC.unpack(raw[: TIMESPEC.size])
            return data, sec * 1_000_000_000 + nsec, peer
    return data, _now(), peer


def serve(addr: str, port: int, add_ns: int) -> None:
    sock = _stamped_socket()
    sock.bind((addr, port))
    sock.settimeout(IDLE_S)
    print("ready", flush=True)
    while True:
        try:
            data, s1, peer = _recv(sock)
        except TimeoutError:
            return
        if data == BYE:
            return
        if len(data) == REQ.size:
            n = REQ.unpack(data)[0]
            sock.sendto(REPLY.pack(n, s1 + add_ns, _now() + add_ns), peer)


def measure(addr: str, port: int, rounds: int) -> dict:
    sock = _stamped_socket()
    sock.connect((addr, port))
    sock.settimeout(REPLY_WAIT_S)
    best = None  # (round trip d, offset)
    answered = 0
    for n in range(rounds):
        request = REQ.pack(n)  # packed before t0: only the send counts in d
        t0 = _now()
        try:
            sock.send(request)
            while True:  # skip late answers to earlier requests
                data, t1, _ = _recv(sock)
                got, s1, s2 = REPLY.unpack(data[: REPLY.size])
                if got == n:
                    break
        except (OSError, struct.error):  # no answer in time, or the port refused
            continue
        answered += 1
        d = (t1 - t0) - (s2 - s1)
        if best is None or d < best[0]:
            best = (d, ((s1 - t0) + (s2 - t1)) // 2)
    try:
        sock.send(BYE)
    except OSError:
        pass
    if best is None:
        return {
            "offset_ns": None,
            "uncertainty_ns": None,
            "rtt_min_ns": None,
            "rounds": rounds,
            "answered": 0,
        }
    return {
        "offset_ns": best[1],
        "uncertainty_ns": (max(best[0], 0) + 1) // 2,
        "rtt_min_ns": best[0],
        "rounds": rounds,
        "answered": answered,
    }


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]) if len(sys.argv) > 4 else 0)
    else:
        print(json.dumps(measure(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))))
