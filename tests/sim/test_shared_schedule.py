# SPDX-License-Identifier: GPL-2.0-only
"""One Poisson schedule for both sources (models/model/lanloss-schedule.h): the simulator's
UdpFlowSource and the testbed's lanloss-send draw a flow's gaps from the same stream of
(run seed, flow id), so a point's runs in the two are offered the same departures. Near a
knee the loss follows the realised arrivals (the queue's random walk over a run of ~10^4
datagrams moves it by more than the 15 % validation bar), so this is what lets
`lanloss validate` compare Poisson points at all.

The departures are counted: a paced sender sends every deadline before the end of its
duration, late or not, so the count over a run is the schedule's. lanloss-send runs on
loopback into a socket that reads nothing (sending is all that is counted)."""

from __future__ import annotations

import json
import socket
import subprocess

import pytest

from lanloss import paths

DURATION = 0.5
PAYLOAD, RATE = 1000, 8_000_000  # 1,000 datagrams/s on average


def tool_sent(seed: int, flow: int, port: int) -> int:
    out = subprocess.run(
        [str(paths.ctool("lanloss-send")), "--dst", "127.0.0.1", "--port", str(port),
         "--payload", str(PAYLOAD), "--rate", str(RATE), "--pattern", "poisson",
         "--seed", str(seed), "--flow", str(flow), "--duration", repr(DURATION)],
        capture_output=True, text=True, timeout=30, check=True,
    )  # fmt: skip
    report = json.loads(out.stdout)
    assert report["send_errors"] == {}
    return report["sent"]


@pytest.fixture(scope="module")
def sink():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        yield s.getsockname()[1]


@pytest.mark.parametrize("seed", [1, 2, 7])
def test_simulator_and_testbed_tool_offer_the_same_poisson_departures(simulate, sink, seed):
    rec = simulate(
        senders=3, receivers=3, edge_rate="1Gbps", payload=PAYLOAD, rate=RATE,
        pattern="poisson", seed=seed, duration=f"{DURATION}s", warmup="0.05s",
    )  # fmt: skip
    sim_sent = [f.sent for f in sorted(rec.flows, key=lambda f: f.sender)]
    assert sim_sent == [tool_sent(seed, k, sink) for k in range(3)]
    # and they are Poisson counts: different per flow and seed, about the mean
    assert len(set(sim_sent)) > 1
    assert all(abs(n - RATE * DURATION / (8 * PAYLOAD)) < 5 * 500**0.5 for n in sim_sent)
