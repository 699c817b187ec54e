# SPDX-License-Identifier: GPL-2.0-only
"""The simulator never aborts, never calls queued packets lost, and cleans up after itself.

- Flags the model cannot run (a switch buffer below the PAUSE headroom, a burst beyond
  the sources' range, numbers beyond their type) are refused up front: exit 2 and one line,
  from `lanloss sim run`, at a sweep's or study's validation, and from the program itself.
- A run lasts until the LAN is empty, however slow or long its links: what is queued when
  the sources stop is delivered, never counted as lost.
- A run killed with kill -9 leaves its temporary folder; the next run removes it, and
  nothing else. Ctrl-C stops a run even when it was started in the background.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lanloss import options, paths, sim
from lanloss.options import OptionError

REPO = Path(__file__).resolve().parents[2]
LANLOSS = [sys.executable, "-m", "lanloss.cli"]


def lanloss(*args: str, tmpdir: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*LANLOSS, *args],
        cwd=REPO,
        env={**os.environ, "TMPDIR": str(tmpdir)},
        capture_output=True,
        text=True,
        timeout=600,
    )


def program(*flags: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(paths.program(sim.SCENARIO)), *flags], capture_output=True, text=True, timeout=60
    )


def one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


def refused_run(tmp_path: Path, *flags: str) -> tuple[int, str]:
    """`lanloss sim run FLAGS --out FILE`, which must fail without writing FILE: its exit
    status and its one line of error."""
    out = tmp_path / "refused.json"
    done = lanloss("sim", "run", *flags, "--out", str(out), tmpdir=tmp_path)
    assert not out.exists(), done.stderr
    return done.returncode, one_line(done.stderr)


# -- refused up front -----------------------------------------------------------------------


def pause_headroom(tmp_path: Path) -> int:
    """The largest PAUSE headroom of the switch's ports, as the run record reports it."""
    out = tmp_path / "headroom.json"
    done = lanloss(
        "sim", "run", "--pause", "on", "--sender-rate", "1Gbps", "--duration", "0.05s",
        "--warmup", "0.01s", "--out", str(out), tmpdir=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    ports = json.loads(out.read_text())["extra"]["switch_ports"]
    return max(p["headroom_bytes"] for p in ports.values())


def test_a_switch_buffer_at_the_pause_headroom_is_refused_above_it_runs(tmp_path, built):
    headroom = pause_headroom(tmp_path)  # the 1 Gbit/s sender's port: 3x1538 + 84 + 2x125
    assert headroom == 4948
    flags = ["--pause", "on", "--sender-rate", "1Gbps", "--duration", "0.05s"]
    flags += ["--warmup", "0.01s"]
    status, line = refused_run(tmp_path, *flags, "--switch-buffer", str(headroom))
    assert status == 2
    assert line.startswith(f"lanloss: error: switch_buffer: '{headroom}' is not above")
    assert f"PAUSE headroom of link s1-sw1 ({headroom} B" in line
    assert list(tmp_path.glob("lanloss-sim-*")) == []
    out = tmp_path / "ok.json"
    ok = lanloss(
        "sim", "run", *flags, "--switch-buffer", str(headroom + 1), "--out", str(out),
        tmpdir=tmp_path,
    )  # fmt: skip
    assert ok.returncode == 0, ok.stderr
    record = json.loads(out.read_text())
    assert record["drops"]["unexplained"] == 0
    assert record["totals"]["sent"] == record["totals"]["received"] + sum(record["drops"].values())


def test_the_audit_case_pause_with_4kib_is_one_line_exit_2(tmp_path, built):
    status, line = refused_run(
        tmp_path, "--pause", "on", "--switch-buffer", "4KiB", "--duration", "0.2s"
    )
    assert status == 2
    assert line.startswith("lanloss: error: switch_buffer: '4096' is not above")


def test_a_sweep_refuses_a_point_below_the_headroom_before_running_any(tmp_path, built):
    out = tmp_path / "runs"
    done = lanloss(
        "sweep", "--set", "switch_buffer=128KiB,4KiB", "--fixed", "pause=on",
        "--fixed", "duration=0.05s", "--fixed", "warmup=0.01s", "--out", str(out),
        tmpdir=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "switch_buffer: '4096' is not above the PAUSE headroom" in one_line(done.stderr)
    assert not out.exists()


def test_study_check_refuses_a_point_below_the_headroom(tmp_path, built):
    study = tmp_path / "pause.yaml"
    study.write_text(
        "name: pause\ndescription: PAUSE with a small buffer\nsource: [sim]\n"
        "repetitions: 1\nfixed:\n  duration: 50ms\n  warmup: 5ms\n  pause: on\n"
        "grid:\n  switch_buffer: [128KiB, 4KiB]\n"
    )
    done = lanloss("study", "check", str(study), tmpdir=tmp_path)
    assert done.returncode == 2, done.stderr
    line = one_line(done.stderr)
    assert "switch_buffer=4KiB" in line
    assert "switch_buffer: '4096' is not above the PAUSE headroom" in line


def test_check_point_passes_a_buffer_above_the_headroom(built):
    params = options.resolve({"pause": "on", "switch_buffer": "8KiB"}, "sim")
    sim.check_point(params)  # no OptionError
    with pytest.raises(OptionError, match=r"^switch_buffer: '4096' is not above"):
        sim.check_point({**params, "switch_buffer": 4096})


def test_a_burst_beyond_the_senders_range_is_refused(tmp_path, built):
    assert options.parse_value(options.BY_NAME["pattern"], "burst:1000000") == "burst:1000000"
    for bad in ("burst:1000001", "burst:4294967296"):
        done = lanloss("sim", "run", "--pattern", bad, "--duration", "0.2s", tmpdir=tmp_path)
        assert done.returncode == 2
        assert one_line(done.stderr) == (
            f"lanloss: error: pattern: '{bad}' has a burst size above 1000000"
        )


@pytest.mark.parametrize(
    "flag, value, says",
    [
        ("pattern", "burst:4294967296", "has a burst size above 4294967295"),
        ("pattern", "burst:99999999999999999999999", "has a burst size above 4294967295"),
        ("seed", "99999999999999999999999", "is too large"),
        ("tx_queue", "99999999999999999GiB", "is too large"),
        ("switch_buffer", "99999999999999999999999KiB", "is too large"),
        ("frame_loss", "1e999", "is out of range"),
        ("send_byte_cost", "1e999s", "is out of range"),
        ("link_delay", "1e30s", "is beyond the simulator's time range (1e9 s)"),
        ("warmup", "1e20s", "is beyond the simulator's time range (1e9 s)"),
    ],
)
def test_the_program_refuses_a_flag_in_one_line_never_aborts(flag, value, says, built):
    done = program(f"--{flag}={value}", "--duration=0.2s")
    assert done.returncode == 2, done.stderr
    assert one_line(done.stderr) == f"lanloss-sim: error: {flag}: '{value}' {says}"


def test_the_program_refuses_pause_below_the_headroom_before_building(built):
    done = program("--pause=on", "--switch_buffer=4096", "--duration=0.2s")
    assert done.returncode == 2
    assert one_line(done.stderr).startswith("lanloss-sim: error: switch_buffer: '4096'")


# -- drained, not lost ----------------------------------------------------------------------


def test_a_100kbps_lan_drains_its_queues_instead_of_losing_them(simulate):
    # the 1 MiB transmit queue takes 84 s at 100 kbit/s: longer than any fixed guard
    record = simulate(edge_rate="100kbps", duration="0.2s", warmup="0.05s")
    assert record.totals["sent"] > 600
    assert record.totals["received"] == record.totals["sent"]
    assert sum(record.drops.values()) == 0
    assert record.timing["simulated_s"] > 80


def test_a_60s_link_delay_delivers_everything_sent(simulate):
    record = simulate(link_delay="60s", duration="0.2s", warmup="0.05s")
    assert record.totals["sent"] > 2000
    assert record.totals["received"] == record.totals["sent"]
    assert sum(record.drops.values()) == 0


def test_timed_pause_at_100kbps_drains_through_every_pause_it_sits_out(simulate):
    # no XON: each XOFF idles a sender for a whole 335 s pause time, again and again
    record = simulate(
        pause="on", pause_style="timed", edge_rate="100kbps", switch_buffer="64KiB",
        senders=2, duration="0.2s", warmup="0.05s",
    )  # fmt: skip
    assert record.totals["received"] > 1000
    assert record.timing["simulated_s"] > 1000


def test_a_tcp_connection_given_up_is_an_error_not_a_record(tmp_path, built):
    status, line = refused_run(
        tmp_path, "--protocol", "tcp", "--frame-loss", "0.5", "--duration", "0.2s"
    )
    assert status == 1
    assert line == (
        "lanloss: error: lanloss-sim failed (exit 1): lanloss-sim: error: TCP gave up the "
        "connection s1 -> r1 with data undelivered (ns-3's retransmissions, DataRetries, ran "
        "out); no record written"
    )


def test_a_tcp_connection_that_cannot_open_is_an_error_not_an_abort(tmp_path, built):
    # a 240 s round trip: longer than all of ns-3's SYN retries together
    status, line = refused_run(
        tmp_path, "--protocol", "tcp", "--link-delay", "60s", "--duration", "0.1s",
        "--warmup", "0.02s",
    )  # fmt: skip
    assert status == 1
    assert line.endswith(
        "TCP gave up the connection s1 -> r1 while opening it (ns-3's SYN retries, ConnCount, "
        "ran out); no record written"
    )


# -- temporary folders and signals ----------------------------------------------------------


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(c) for c in text.split()]


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _wait_for_program(pid: int) -> int:
    """The lanloss-sim child of lanloss process ``pid``, once it runs."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for child in _children(pid):
            try:
                comm = Path(f"/proc/{child}/comm").read_text().strip()
            except OSError:
                continue
            if comm == sim.SCENARIO:
                return child
        assert _alive(pid), "lanloss ended before its program started"
        time.sleep(0.05)
    raise AssertionError("lanloss-sim never started")


LONG_RUN = ["sim", "run", "--rate", "90Mbps", "--duration", "600s"]


def test_the_next_run_removes_the_folder_of_a_killed_run_and_nothing_else(tmp_path, built):
    killed = subprocess.Popen(
        [*LANLOSS, *LONG_RUN, "--out", str(tmp_path / "never.json")],
        cwd=REPO,
        env={**os.environ, "TMPDIR": str(tmp_path)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    child = _wait_for_program(killed.pid)
    left = list(tmp_path.glob("lanloss-sim-*"))
    assert [p.name.split("-")[2] for p in left] == [str(killed.pid)]
    killed.kill()
    killed.wait()
    deadline = time.monotonic() + 10
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert left[0].is_dir()  # kill -9 runs no cleanup

    me = os.getpid()
    live = tmp_path / f"lanloss-sim-{me}-{sim.process_start(me)}-live"  # owner alive
    prefix_only = tmp_path / "lanloss-sim-keepme"  # not a run folder's name
    locked = tmp_path / "lanloss-sim-999999999-1-locked"  # owner gone, lock held
    not_a_folder = tmp_path / "lanloss-sim-999999999-1-file"
    for d in (live, prefix_only, locked):
        d.mkdir()
        (d / "inside").write_text("keep")
    not_a_folder.write_text("keep")
    lock = os.open(locked, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = lanloss(
            "sim", "run", "--duration", "0.05s", "--warmup", "0.01s",
            "--out", str(tmp_path / "next.json"), tmpdir=tmp_path,
        )  # fmt: skip
    finally:
        os.close(lock)
    assert done.returncode == 0, done.stderr
    assert not left[0].exists()
    assert sorted(p.name for p in tmp_path.glob("lanloss-sim-*")) == sorted(
        p.name for p in (live, prefix_only, locked, not_a_folder)
    )
    assert (live / "inside").read_text() == "keep"


def test_kill_int_stops_a_run_started_in_the_background(tmp_path, built):
    # bash starts a background job with SIGINT ignored; lanloss must still stop on it
    out = tmp_path / "never.json"
    cmd = " ".join([*LANLOSS, *LONG_RUN, "--out", str(out)])
    shell = subprocess.Popen(
        ["bash", "-c", f"{cmd} & echo $!; wait $!; echo rc=$?"],
        cwd=REPO,
        env={**os.environ, "TMPDIR": str(tmp_path)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert shell.stdout is not None
    pid = int(shell.stdout.readline())
    child = _wait_for_program(pid)
    assert list(tmp_path.glob("lanloss-sim-*"))
    os.kill(pid, signal.SIGINT)
    rest, err = shell.communicate(timeout=60)
    assert rest.strip() == "rc=130", err
    assert err.strip().splitlines() == ["lanloss: interrupted"]
    assert not _alive(child)
    assert list(tmp_path.iterdir()) == []  # no folder, no record
