# SPDX-License-Identifier: GPL-2.0-only
"""A simulator record says when, where and with which program it was made."""

from __future__ import annotations

import datetime as dt
import hashlib
import socket

from lanloss import paths
from lanloss.sim import SCENARIO


def test_env_has_start_time_host_and_program_hash(simulate):
    before = dt.datetime.now(dt.UTC)
    r = simulate(payload=1472, rate="10Mbps", duration="0.01s", warmup="0s")
    env = r.env
    started = dt.datetime.strptime(env["started_utc"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=dt.UTC
    )
    assert before - dt.timedelta(seconds=1) <= started <= dt.datetime.now(dt.UTC)
    assert env["hostname"] == socket.gethostname()
    program = paths.program(SCENARIO)
    assert env["program_sha256"] == hashlib.sha256(program.read_bytes()).hexdigest()
    assert env["ns3_version"]  # from the installed wheel, not a string in the code
