# SPDX-License-Identifier: GPL-2.0-only
"""The host, multicast and TCP options from the command line: bad values named, host files."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from cli_checks import assert_sim_run_refused

from lanloss.record import load

HOST = ["--host", "e1000-2008"]
# every host value, as `lanloss sim run` passes them to the program
PROGRAM_HOST = [
    "--host=e1000-2008",
    "--cores=1",
    "--irq_cost=8e-06s",
    "--packet_cost=4e-06s",
    "--read_cost=5e-06s",
    "--read_byte_cost=0.0s",
    "--read_call_cost=0.0s",
    "--wakeup_cost=5e-06s",
    "--reader_cores=others",
    "--truesize=0",
    "--rx_fifo=49152",
    "--itr=0",
    "--backlog=1000",
    "--rcvbuf=54784",
    "--stall_period=0.0s",
    "--stall_length=0.0s",
    "--rps=off",
]


@pytest.mark.parametrize(
    "args,named",
    [
        (["--host", "pentium4"], "pentium4"),
        (["--itr", "2500"], "itr"),  # the ideal host has no interrupts to moderate
        (["--readers", "2"], "readers"),
        (["--rcvbuf", "1MiB"], "rcvbuf"),
        ([*HOST, "--itr", "-1"], "-1"),
        ([*HOST, "--itr", "often"], "often"),
        ([*HOST, "--rx-ring", "16"], "rx_ring"),
        ([*HOST, "--rx-ring", "8192"], "rx_ring"),
        ([*HOST, "--rx-fifo", "1KiB"], "rx_fifo"),
        ([*HOST, "--mtu", "9000", "--rx-fifo", "8KiB"], "rx_fifo"),
        ([*HOST, "--rcvbuf", "4GiB"], "rcvbuf"),
        ([*HOST, "--cores", "0"], "cores"),
        ([*HOST, "--irq-cost", "-1us"], "-1us"),
        ([*HOST, "--packet-cost", "cheap"], "cheap"),
        ([*HOST, "--read-cost", "1s"], "read_cost"),
        ([*HOST, "--read-call-cost", "1s"], "read_call_cost"),
        ([*HOST, "--read-call-cost", "-1us"], "-1us"),
        ([*HOST, "--truesize", "big"], "big"),
        ([*HOST, "--backlog", "0"], "backlog"),
        ([*HOST, "--readers", "0"], "readers"),
        ([*HOST, "--rps", "maybe"], "maybe"),
        ([*HOST, "--stall-period", "50ms"], "stall_length"),
        ([*HOST, "--stall-period", "5ms", "--stall-length", "5ms"], "stall_length"),
        (["--frame-loss", "1.5"], "1.5"),
        (["--frame-loss", "-0.1"], "-0.1"),
        (["--cast", "broadcast"], "broadcast"),
        (["--protocol", "sctp"], "sctp"),
        (["--tcp-window", "64KiB"], "tcp_window"),  # a UDP run has no window
        (["--protocol", "tcp", "--tcp-window", "1KiB"], "tcp_window"),
        (["--protocol", "tcp", "--cast", "multicast"], "cast"),
        (["--host-file", "missing.yaml"], "missing.yaml"),
    ],
)
def test_bad_host_and_traffic_options_are_named(cli, tmp_path, args, named):
    assert_sim_run_refused(cli, tmp_path, args, named)


@pytest.mark.parametrize(
    "flags,named",
    [
        (["--host=modern"], "cores"),  # the program takes every host value, or none
        (["--itr=0"], "itr"),
        ([*PROGRAM_HOST, "--rx_ring=abc"], "rx_ring"),
        ([*PROGRAM_HOST, "--rx_ring=256", "--stall_period=1s"], "stall_length"),
        (["--frame_loss=2"], "frame_loss"),
        (["--cast=multicast", "--protocol=tcp"], "cast"),
    ],
)
def test_scenario_program_rejects_bad_host_values(built, flags, named):
    proc = subprocess.run(
        [str(built / "bin" / "lanloss-sim"), *flags], capture_output=True, text=True
    )
    assert proc.returncode == 2
    assert named in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_host_file_run_records_its_values(cli, tmp_path: Path, built):
    host = tmp_path / "calibrated.yaml"
    host.write_text("name: lab-pc\nbase: e1000-2008\nread_cost: 7us\nitr: 2500\n")
    out = tmp_path / "run.json"
    proc = cli("sim", "run", "--host-file", str(host), "--itr", "0", "--payload", "64",
               "--rate", "10Mbps", "--duration", "0.05s", "--warmup", "0.01s",
               "--out", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rec = load(str(out))
    assert rec.params["host"] == "e1000-2008"
    assert rec.params["read_cost"] == 7e-6  # from the file
    assert rec.params["itr"] == 0  # the command line beats the file
    assert rec.params["irq_cost"] == 8e-6  # the preset fills the rest
    assert rec.env["host"]["name"] == "lab-pc"
    assert rec.env["host"]["file"] == str(host)
    # the application's reads cost what the file says: 7 us per datagram read
    reads = rec.extra["hosts"]["r1"]["readers"][0]
    assert reads["cpu_s"] == pytest.approx(reads["reads"] * 7e-6)
    assert rec.totals["sent"] == rec.totals["received"] > 0


def test_unknown_host_file_key_is_named(cli, tmp_path: Path):
    host = tmp_path / "h.yaml"
    host.write_text("base: modern\nirq_csot: 1us\n")
    proc = cli("sim", "run", "--host-file", str(host), "--out", str(tmp_path / "r.json"))
    assert proc.returncode == 2
    assert "irq_csot" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
