# SPDX-License-Identifier: GPL-2.0-only
"""testbed/vm_costs: fit.py's and fit_recv.py's sums recover known costs exactly (the
latter a receive call's apart from a datagram's), measure.sh's lines are read as they are
written, both measure scripts refuse bad input before touching anything, predict.py's
simulator runs keep the interrupt floor's arithmetic, and cpu_gaps sees the time its loop
was stopped."""

from __future__ import annotations

import argparse
import importlib.util
import signal
import subprocess
import sys
import time

import pytest

from lanloss import paths

HERE = paths.REPO / "testbed" / "vm_costs"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"vm_costs_{name}", HERE / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up while it loads
    spec.loader.exec_module(mod)
    return mod


def _line(size, pps, n, irqs, wakes, wall, idle, turns=0):
    """One line as measure.sh prints it (guest_recv's fields after size and pps)."""
    return (
        f"size {size} pps {pps} datagrams {n} bytes {n * size} wall {wall:.6f} proc_cpu 1.0 "
        f"irqs {irqs} nvcsw {wakes} nivcsw 0 user 1 nice 0 system 1 idle {idle} iowait 0 "
        f"irq 0 softirq 1 steal 0 turns {turns}\n"
    )


def test_fit_recovers_the_costs_of_a_guest_made_of_them(tmp_path, capsys, monkeypatch):
    fit = _load("fit")
    rate = 1e9 / 2**5  # instructions per second at shift 5
    truth = {"d": 4600.0, "i": 2700.0, "w": 4300.0, "b": 0.45, "g": 0.03}
    runs = [(64, 500, 0.99, 0.96), (1472, 500, 0.98, 0.95), (64, 1500, 0.8, 0.7),
            (1472, 1500, 0.75, 0.62), (512, 3000, 0.5, 0.4), (64, 3000, 0.55, 0.45)]  # fmt: skip
    lines = []
    for size, pps, irq, wake in runs:
        n, wall = pps * 10, 10.0
        irqs, wakes = round(n * irq), round(n * wake)
        busy = (
            n * truth["d"] + irqs * truth["i"] + wakes * truth["w"] + n * size * truth["b"]
        ) / rate
        busy += truth["g"] * wall
        idle_ticks = (wall - busy) * 100
        wall += (round(idle_ticks) - idle_ticks) / 100  # idle is whole ticks: move the wall
        lines.append(_line(size, pps, n, irqs, wakes, wall, round(idle_ticks)))
    lines.append(_line(64, 1000, 10000, 3000, 2500, 10.0, 0, turns=57000000))  # an idle-loop run
    path = tmp_path / "runs.txt"
    path.write_text("".join(lines))
    rows = fit.runs(str(path))
    assert rows.shape == (len(runs), 6)  # the idle-loop run is left out
    monkeypatch.setattr(sys, "argv", ["fit.py", str(path)])
    fit.main()
    out = capsys.readouterr().out
    got = {
        line.split()[1]: float(line.split()[2])
        for line in out.splitlines()
        if line.startswith("per ")
    }
    assert got["datagram"] == pytest.approx(truth["d"], rel=1e-6)
    assert got["interrupt"] == pytest.approx(truth["i"], rel=1e-6)
    assert got["byte"] == pytest.approx(truth["b"], rel=1e-6)


def test_predict_reads_the_guests_runs(tmp_path):
    predict = _load("predict")
    path = tmp_path / "runs.txt"
    path.write_text(
        _line(64, 1000, 10000, 8800, 8400, 10.0, 600)
        + _line(64, 1000, 9000, 7000, 6000, 10.0, 500)  # 1,000 of 10,000 lost
        + _line(64, 1000, 10000, 3000, 2500, 10.0, 0, turns=57000000)
        + "size 64 pps 1000 sent 10 failed 0\n"
    )
    got = predict.guest_runs(str(path))
    assert list(got) == [(64, 1000)]
    assert got[(64, 1000)][0] == (0.88, 0.84, 0.0)
    assert got[(64, 1000)][1] == pytest.approx((7000 / 9000, 6000 / 9000, 0.1))


def test_predict_at_a_low_rate_is_one_interrupt_and_one_wake_up_per_frame(tmp_path, built):
    """At 500/s a frame comes every 2 ms, far past the ITR's 400 us and a frame's work:
    every frame raises its own interrupt, and nearly every one finds the reader asleep (the
    guest clock's stalls bunch a few frames; the guest's own reader woke 0.95-0.96 times
    per datagram at this rate)."""
    predict = _load("predict")
    args = argparse.Namespace(itr=2500, rx_ring=256, rcvbuf="256KiB", packet_cost=2915.0,
                              read_cost=1724.0, irq_cost=2750.0, wakeup_cost=4300.0)  # fmt: skip
    irq, wake, loss = predict.simulate(64, 500, args, tmp_path)
    assert irq == 1.0
    assert 0.95 <= wake <= 1.0
    assert loss == 0.0


@pytest.mark.parametrize(
    ("script", "argv", "names"),
    [
        ("measure.sh", [], "usage"),
        ("measure.sh", ["a;b", "0"], "PREFIX 'a;b'"),
        ("measure.sh", ["pm-", "4x"], "RX_USECS '4x'"),
        ("measure.sh", ["pm-", "0", "64:0"], "run '64:0'"),
        ("measure.sh", ["pm-", "0", "64:500;reboot"], "run '64:500;reboot'"),
        ("measure.sh", ["zz-nosuch-", "0", "64:500"], "no namespace zz-nosuch-sw1"),
        ("measure_recv.sh", [], "usage"),
        ("measure_recv.sh", ["pm-"], "usage"),
        ("measure_recv.sh", ["a;b", "64:500:1:cbr"], "PREFIX 'a;b'"),
        ("measure_recv.sh", ["pm-", "64:500:1"], "run '64:500:1'"),
        ("measure_recv.sh", ["pm-", "64:500:0:cbr"], "run '64:500:0:cbr'"),
        ("measure_recv.sh", ["pm-", "64:500:1:burst:8"], "run '64:500:1:burst:8'"),
        ("measure_recv.sh", ["pm-", "64:500:stopped:cbr"], "run '64:500:stopped:cbr'"),
        ("measure_recv.sh", ["pm-", "64:500:1:cbr;reboot"], "run '64:500:1:cbr;reboot'"),
        ("measure_recv.sh", ["pm-", "2000:500:1:cbr"], "SIZE 2000"),
        ("measure_recv.sh", ["zz-nosuch-", "64:500:1:cbr"], "no namespace zz-nosuch-sw1"),
        ("napi_trace.sh", ["pm-", "5", "/tmp/x"], "usage"),
        ("napi_trace.sh", ["a;b", "5", "/tmp/x", "--", "true"], "PREFIX 'a;b'"),
        ("napi_trace.sh", ["pm-", "0", "/tmp/x", "--", "true"], "SECONDS '0'"),
        ("napi_trace.sh", ["pm-", "5s", "/tmp/x", "--", "true"], "SECONDS '5s'"),
        ("napi_trace.sh", ["pm-", "5", "/", "--", "true"], "OUT '/' exists"),
        (
            "napi_trace.sh",
            ["zz-nosuch-", "5", "/tmp/nosuch.trace", "--", "true"],
            "no namespace zz-nosuch-sw1",
        ),
        ("align_sleeps.sh", ["pm-", "/tmp/x", "true"], "usage"),
        ("align_sleeps.sh", ["pm-", "/tmp/x", "--"], "usage"),
        ("align_sleeps.sh", ["a;b", "/tmp/x", "--", "true"], "PREFIX 'a;b'"),
        ("align_sleeps.sh", ["pm-", "/", "--", "true"], "OUT '/' exists"),
        (
            "align_sleeps.sh",
            ["zz-nosuch-", "/tmp/nosuch.trace", "--", "true"],
            "no namespace zz-nosuch-sw1",
        ),
    ],
)
def test_measure_scripts_refuse_bad_input_before_touching_anything(script, argv, names):
    """One line naming the value, exit 2, before a compiler, a namespace or a guest is used."""
    proc = subprocess.run(
        ["bash", str(HERE / script), *argv], capture_output=True, text=True, timeout=30
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1 and names in proc.stderr


def test_napi_trace_never_overwrites_a_file_it_did_not_make(tmp_path):
    """The trace is written to OUT.part first and then renamed: an OUT.part already there
    is refused like OUT itself (one line, exit 2), and left as it was."""
    part = tmp_path / "t.trace.part"
    part.write_text("someone's\n")
    argv = ["zz-nosuch-", "5", str(tmp_path / "t.trace"), "--", "true"]
    proc = subprocess.run(
        ["bash", str(HERE / "napi_trace.sh"), *argv], capture_output=True, text=True, timeout=30
    )
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1
    assert "t.trace.part' exists" in proc.stderr and part.read_text() == "someone's\n"


def test_align_sleeps_never_overwrites_a_file_it_did_not_make(tmp_path):
    """Like napi_trace.sh: an OUT.part already there is refused (one line, exit 2) and left
    as it was; nothing ran (the COMMAND would have made a file)."""
    part = tmp_path / "t.trace.part"
    part.write_text("someone's\n")
    ran = tmp_path / "ran"
    argv = ["zz-nosuch-", str(tmp_path / "t.trace"), "--", "touch", str(ran)]
    proc = subprocess.run(
        ["bash", str(HERE / "align_sleeps.sh"), *argv], capture_output=True, text=True, timeout=30
    )
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1
    assert "t.trace.part' exists" in proc.stderr and part.read_text() == "someone's\n"
    assert not ran.exists()


def _perf_trace(calls: list[tuple[float, float, str]], traced: float | None) -> str:
    """perf trace's lines for (start ms, duration ms, system call), then the script's last."""
    args = {"clock_nanosleep": "rqtp: 0x7fc4a6d7b5d0, rmtp: 0x7fc4a6d7b5e0",
            "futex": "uaddr: 0x55cbf2ef1b40, op: WAIT|PRIVATE_FLAG, val: 2"}  # fmt: skip
    lines = ["         ? (         ):  ... [continued]: clock_nanosleep())           = 0"]
    lines += [f"{t:10.3f} ({d:6.3f} ms): {c}({args[c]})           = 0" for t, d, c in calls]
    if traced is not None:
        lines.append(f"# traced {traced:.3f} s")
    return "\n".join(lines) + "\n"


def test_align_sleeps_counts_the_sleeps_and_their_lengths(tmp_path, capsys):
    """Ten align sleeps of 3.0 to 3.9 ms and two futex waits in 2 s traced: 5 a second, the
    sleeps 34.5 ms of the 2,000 (1.725 %); the call perf saw continue from before the trace
    started is not counted (its length is unknown)."""
    mod = _load("align_sleeps")
    calls = [(10.0 * i, 3.0 + 0.1 * i, "clock_nanosleep") for i in range(10)]
    calls += [(5.0, 0.02, "futex"), (7.0, 0.03, "futex")]
    f = tmp_path / "t.txt"
    f.write_text(_perf_trace(calls, 2.0))
    got = mod.summary(*mod.read(f.read_text()))
    assert (got["sleeps"], got["futex_calls"], got["traced_s"]) == (10, 2, 2.0)
    assert got["sleeps_per_s"] == 5.0
    assert got["sleep_share"] == pytest.approx(34.5e-3 / 2.0)
    assert got["median_ms"] == pytest.approx(3.45) and got["p10_ms"] == pytest.approx(3.1)
    assert got["p90_ms"] == pytest.approx(3.9) and got["futex_s"] == pytest.approx(50e-6)
    assert mod.main([str(f)]) == 0
    assert "align sleeps 10 (5/s, 1.7% of the time), median 3.450 ms" in capsys.readouterr().out


@pytest.mark.parametrize("traced", [None, 0.0])
def test_align_sleeps_refuses_a_trace_without_its_length(tmp_path, capsys, traced):
    mod = _load("align_sleeps")
    f = tmp_path / "t.txt"
    f.write_text(_perf_trace([(1.0, 3.0, "clock_nanosleep")], traced))
    assert mod.main([str(f)]) == 2
    err = capsys.readouterr().err
    assert "# traced S s" in err and len(err.strip().splitlines()) == 1


def _cpu_gaps(tmp_path):
    exe = tmp_path / "cpu_gaps"
    subprocess.run(["gcc", "-O2", "-o", str(exe), str(HERE / "cpu_gaps.c")], check=True)
    return exe


def _fields(line: str) -> dict[str, float]:
    words = line.split()
    return {k: float(v) for k, v in zip(words[0::2], words[1::2], strict=True)}


def test_cpu_gaps_counts_the_time_it_was_kept_off_the_cpu(tmp_path):
    """A loop stopped for 150 ms (SIGSTOP, then SIGCONT) sees one gap of at least that,
    in the open class, within its total; the classes count every gap once."""
    exe = _cpu_gaps(tmp_path)
    p = subprocess.Popen([str(exe), "1.2"], stdout=subprocess.PIPE, text=True)
    time.sleep(0.4)
    p.send_signal(signal.SIGSTOP)
    time.sleep(0.15)
    p.send_signal(signal.SIGCONT)
    out, _ = p.communicate(timeout=30)
    f = _fields(out)
    assert p.returncode == 0 and f["min_us"] == 200 and f["turns"] > 0
    assert f["ge20000"] >= 1 and 150 <= f["longest_ms"] <= f["gap_ms"]
    assert 1.2 <= f["seconds"] < 2.0  # it stops at the first clock read past 1.2 s
    classes = [k for k in f if k.startswith(("lt", "ge"))]
    assert len(classes) == 7 and sum(f[k] for k in classes) * 0.2 <= f["gap_ms"]


@pytest.mark.parametrize("argv", [[], ["0"], ["x"], ["1", "0"], ["1", "2x"], ["1", "2", "3"]])
def test_cpu_gaps_refuses_bad_input_in_one_line(tmp_path, argv):
    exe = _cpu_gaps(tmp_path)
    r = subprocess.run([str(exe), *argv], capture_output=True, text=True, timeout=10)
    assert r.returncode == 2 and r.stdout == "" and len(r.stderr.splitlines()) == 1


def _log(rows: list[tuple[int, int, int]]) -> bytes:
    """Per-packet log bytes (wire.h's layout) of (seq, rx_ns, flow) records, each sent
    seq x 0.5 ms after the first (tx_ns: a sender on schedule)."""
    from lanloss.testbed.traffic import LOG_FIELDS, LOG_RECORD

    out = b""
    for seq, rx_ns, flow in rows:
        values = {"seq": seq, "tx_ns": seq * 500_000, "rx_ns": rx_ns, "flow": flow, "len": 64}
        out += LOG_RECORD.pack(*(values[name] for name in LOG_FIELDS))
    return out


def test_takes_groups_by_stamp_and_puts_each_loss_in_the_take_before_its_gap(tmp_path, capsys):
    """Three singles, a take of three stamped 10 us apart after which two sequence numbers
    are missing, a single, and a take of two with one missing inside it (written out of
    order: takes sorts by seq): sizes {1: 4, 2: 1, 3: 1}, each loss in the take of the
    datagram before its gap, the sender's clock over the take's datagrams (0.5 ms a
    datagram), and the receiver's clock from the take before."""
    ms, us = 1_000_000, 1_000
    rows = [(0, 0, 0), (1, 1 * ms, 0), (2, 2 * ms + 600 * us, 0)]  # singles
    rows += [(3, 3 * ms, 0), (4, 3 * ms + 10 * us, 0), (5, 3 * ms + 20 * us, 0)]  # take of 3
    rows += [(8, 5 * ms, 0)]  # 6 and 7 lost in the take before
    rows += [(9, 6 * ms, 0), (11, 6 * ms + 30 * us, 0)]  # 10 lost inside a take of 2
    log = tmp_path / "recv.log"
    log.write_bytes(_log(list(reversed(rows))))
    takes = _load("takes")
    assert takes.main([str(log)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "datagrams 9 takes 6 sizes {1: 4, 2: 1, 3: 1}"
    assert out[1] == (
        "lost 2 after seq 5: its take received 3, sent over 1.00 ms, 0.40 ms after the take before"
    )
    assert out[2] == (
        "lost 1 after seq 9: its take received 2, sent over 1.00 ms, 1.00 ms after the take before"
    )
    assert out[3] == "lost 3 in 2 gaps"
    # a gap narrower than the takes' stamps splits them into singles
    assert takes.main([str(log), "--gap-us", "5"]) == 0
    assert capsys.readouterr().out.startswith("datagrams 9 takes 9 sizes {1: 9}")


@pytest.mark.parametrize("case", ["two flows", "no file", "gap 0", "gap -1"])
def test_takes_refuses_bad_input_in_one_line(tmp_path, capsys, case):
    log = tmp_path / "recv.log"
    log.write_bytes(_log([(0, 0, 0), (0, 5, 1)] if case == "two flows" else [(0, 0, 0)]))
    argv = {
        "two flows": [str(log)],
        "no file": [str(tmp_path / "none.log")],
        "gap 0": [str(log), "--gap-us", "0"],
        "gap -1": [str(log), "--gap-us", "-1"],
    }[case]
    assert _load("takes").main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1


def _recv_line(pps, batch, pattern, n, calls, irqs, wakes, busy_s, drops=0, wall=14.4, frames=None):
    """One line as measure_recv.sh prints it; the idle ticks make busy_s of busy time (the
    wall moved so that they are whole). Without `frames`, a line from before measure_recv.sh
    counted them."""
    idle = (wall - busy_s) * 100
    wall += (round(idle) - idle) / 100
    counted = "" if frames is None else f"frames {frames} rcvbuf_errors {frames - n} "
    return (
        f"size 64 pps {pps} batch {batch} pattern {pattern} datagrams {n} bytes {64 * n} "
        f"calls {calls} nvcsw {wakes} nivcsw 0 wall {wall:.6f} irqs {irqs} {counted}"
        f"socket_drops {drops} user 1 nice 0 system 1 idle {round(idle)} iowait 0 irq 0 "
        "softirq 1 steal 0\n"
    )


def _fit_recv_output(fit, tmp_path, lines, kept, capsys) -> str:
    """fit_recv.py's report on `lines`, of which it must keep `kept` runs."""
    path = tmp_path / "runs.txt"
    path.write_text("".join(lines))
    assert len(fit.parse_runs(str(path))) == kept
    sys.argv = ["fit_recv.py", str(path)]
    fit.main()
    return capsys.readouterr().out


def test_fit_recv_recovers_the_cost_of_a_call_from_a_guest_made_of_it(tmp_path, capsys):
    """Runs built from known costs (per datagram, per call, per interrupt, per wake-up, per
    byte, per run): both fits and the pair give them back; a run that lost datagrams at its
    socket is left out."""
    fit = _load("fit_recv")
    rate = 1e9 / 2**5
    d, c, i, w, b, k = 5200.0, 1500.0, 2750.0, 4300.0, 0.46, 2.5e7
    runs = [  # pps, batch, pattern, datagrams, calls, interrupts, wake-ups
        (500, 1, "cbr", 5000, 5000, 4990, 5150),
        (500, 64, "burst8", 5000, 625, 633, 1245),
        (1500, 1, "cbr", 15000, 15000, 11400, 9900),
        (1500, 64, "cbr", 15000, 10300, 11300, 9800),
        (1500, 64, "burst8", 15000, 1875, 1880, 2120),  # the pair: only the calls differ
        (1500, 1, "burst8", 15000, 15000, 1880, 2120),
        (3000, 1, "cbr", 30000, 30000, 13500, 7970),
        (3000, 64, "burst8", 30000, 2510, 3750, 2560),
    ]  # fmt: skip
    lines = []
    for pps, batch, pattern, n, calls, irqs, wakes in runs:
        busy = n * d + calls * c + irqs * i + wakes * w + 64 * n * b + k
        lines.append(_recv_line(pps, batch, pattern, n, calls, irqs, wakes, busy / rate))
    lines.append(_recv_line(3000, 1, "cbr", 29000, 29000, 13500, 7970, 9.0, drops=1000))
    out = _fit_recv_output(fit, tmp_path, lines, len(runs), capsys)
    fits = [float(line.split()[2]) for line in out.splitlines() if line.startswith("  per call")]
    assert fits == [pytest.approx(c, rel=1e-3)] * 2  # fixed costs, and solved too
    (pair,) = (line for line in out.splitlines() if line.startswith("pair "))
    assert "runs 6 and 5 (64 B 1500/s burst8, batch 1 and 64)" in pair and float(
        pair.split()[-4]
    ) == pytest.approx(c, rel=1e-3)


def test_fit_recv_splits_a_datagram_into_frame_and_read_with_stopped_readers(tmp_path, capsys):
    """Runs whose reader was stopped (their frames dropped at a full socket, unread) beside
    runs that read every frame, built from known costs (the payload byte's copy share in the
    read, the rest in the frame): the two steps give the frame, interrupt, read, call and
    wake-up apart; a reading run that lost datagrams at its socket is still left out."""
    fit = _load("fit_recv")
    rate = 1e9 / 2**5
    f, r, c, i, w, k = 3300.0, 1800.0, 1500.0, 2000.0, 6800.0, 2.5e7
    b_frame, b_read = 0.336, 0.124
    runs = [  # pps, batch, pattern, frames, datagrams read, calls, interrupts, wake-ups
        (500, 1, "cbr", 5000, 5000, 5000, 4990, 5150),
        (500, 64, "burst8", 5000, 5000, 625, 633, 1245),
        (1500, 1, "burst8", 15000, 15000, 15000, 1880, 2120),
        (1500, 64, "burst8", 15000, 15000, 1875, 1880, 2120),
        (3000, 1, "cbr", 30000, 30000, 30000, 13500, 7970),
        (3000, 64, "burst8", 30000, 30000, 2914, 3749, 2934),
        (500, 64, "cbr", 5000, 5000, 4890, 5003, 5070),
        (1500, "stop", "cbr", 15003, 5, 1, 12100, 40),
        (3000, "stop", "cbr", 30002, 4, 1, 14900, 38),
        (4500, "stop", "cbr", 45001, 6, 2, 16800, 41),
        (1500, "stop", "burst8", 15002, 5, 1, 1890, 39),
    ]  # fmt: skip
    lines = []
    for pps, batch, pattern, nf, n, calls, irqs, wakes in runs:
        busy = nf * f + n * r + calls * c + irqs * i + wakes * w + 64 * (nf * b_frame + n * b_read)
        busy += k
        lines.append(_recv_line(pps, batch, pattern, n, calls, irqs, wakes, busy / rate, frames=nf))
    lines.append(
        _recv_line(3000, 1, "cbr", 29000, 29000, 13500, 7970, 9.0, drops=1000, frames=30000)
    )
    out = _fit_recv_output(fit, tmp_path, lines, len(runs), capsys)
    assert "7 runs that read, 4 with the reader stopped" in out
    split = out[out.index("the stopped readers' runs") :]

    def fitted(name):
        (line,) = (x for x in split.splitlines() if x.startswith(f"  {name} "))
        return float(line.split()[2])

    for name, value in (("per frame", f), ("per interrupt", i), ("per run", k)):
        assert fitted(name) == pytest.approx(value, rel=1e-3)
    for name, value in (("per read", r), ("per call", c), ("per wake-up", w)):
        assert fitted(name) == pytest.approx(value, rel=1e-3)


def test_fit_recv_refuses_runs_that_cannot_separate_calls(tmp_path, capsys):
    """Runs whose calls are their datagrams (all --batch 1) cannot tell c from d: one line,
    exit 2; so does a file that is not there."""
    fit = _load("fit_recv")
    path = tmp_path / "runs.txt"
    path.write_text(
        "".join(
            _recv_line(pps, 1, "cbr", pps * 10, pps * 10, pps * 8, pps * 7, 3.0 + pps / 1000)
            for pps in (500, 1000, 1500, 2000, 2500, 3000)
        )
    )
    for argv in ([str(path)], [str(tmp_path / "none.txt")]):
        sys.argv = ["fit_recv.py", *argv]
        with pytest.raises(SystemExit) as e:
            fit.main()
        assert e.value.code == 2
        err = capsys.readouterr().err
        assert len(err.splitlines()) == 1 and "fit_recv.py:" in err


def test_qemu_e1000s_measured_counts_are_what_the_stopped_reader_runs_give():
    """The preset's frame, interrupt and wake-up are fit_recv.py's two steps over the runs
    measured with a stopped reader (testbed/vm_costs/runs/), rounded to the instruction;
    its read, the start of calibrate --table's fit, too. A preset value changed without
    measuring fails here."""
    from lanloss import host_presets as hp

    fit = _load("fit_recv")
    runs = fit.parse_runs(str(HERE / "runs" / "stopped-2026-12-06.txt"))
    assert len(runs) == 16 and sum(d["batch"] == "stop" for d in runs) == 9
    (stopped, *_), (reading, *_) = fit.split_frame_and_read(runs, 1e9 / 2**5, 0.46, 0.124)
    counts = hp.QEMU_E1000_INSTRUCTIONS
    assert (counts["packet_cost"], counts["irq_cost"]) == tuple(round(x) for x in stopped[:2])
    assert (counts["read_cost"], counts["wakeup_cost"]) == (round(reading[0]), round(reading[2]))
    assert hp.QEMU_E1000_READ_CALL == pytest.approx(reading[1], abs=10)  # §19's, measured apart


def _trace(events: list[tuple[float, str, int]]) -> str:
    """An ftrace text as the guest writes it: irq_handler_entry and napi_poll lines."""
    lines = ["# tracer: nop", "#"]
    for t, kind, work in events:
        if kind == "irq":
            lines.append(f"          <idle>-0       [000] d.h1.  {t:.6f}: irq_handler_entry: "
                         "irq=11 name=eth0")  # fmt: skip
        else:
            lines.append(
                f"     ksoftirqd/0-12      [000] ..s1.  {t:.6f}: napi_poll: napi poll on "
                f"napi struct 00000000a1b2 for device eth0 work {work} budget 64"
            )
    return "\n".join(lines) + "\ndone\n"


def test_napi_trace_counts_polls_empty_polls_and_the_interrupts_at_the_unmasking(tmp_path, capsys):
    """Four interrupts: the first's poll takes 3 frames; the second comes 5 us after that
    poll's end (raised at the unmasking) and its poll takes nothing; the third comes 1 ms
    later, and the fourth before the third's poll has ended (counted apart: taken while a
    poll was pending), the one poll after them taking 2."""
    mod = _load("napi_trace")
    evs = [(10.000000, "irq", 0), (10.000300, "poll", 3), (10.000305, "irq", 0),
           (10.000400, "poll", 0), (10.001400, "irq", 0), (10.001450, "irq", 0),
           (10.001600, "poll", 2)]  # fmt: skip
    f = tmp_path / "t.txt"
    other = "  sshd-80 [000] ..s1.  10.001500: napi_poll: napi poll on napi struct 0 for device "
    f.write_text(_trace(evs) + other + "eth1 work 1 budget 64\n")  # the control NIC's: left out
    got = mod.summary(mod.events(f.read_text()), 20e-6)
    assert (got["interrupts"], got["polls"], got["frames"]) == (4, 3, 5)
    assert got["empty_polls"] == 1 and got["interrupts_per_frame"] == pytest.approx(4 / 5)
    assert got["at_unmask"] == 1 and got["before_poll_end"] == 1
    assert got["frames_per_poll"] == {0: 1, 2: 1, 3: 1} and got["burst_frames"] == 0
    assert mod.main([str(f)]) == 0
    out = capsys.readouterr().out
    assert "4 interrupts, 3 polls, 5 frames (0.800 interrupts per frame)" in out
    assert "polls that took nothing 1" in out
    # a wider window counts the interrupt 1 ms after a poll as raised at its unmasking too
    assert mod.summary(mod.events(f.read_text()), 2e-3)["at_unmask"] == 2


@pytest.mark.parametrize(
    ("text", "argv", "word"),
    [
        (None, [], "nosuch"),
        ("  <idle>-0 [000] ..s1.  1.000000: napi_poll: napi poll on eth0\n", [], "its device"),
        ("", ["--chain-us", "0"], "--chain-us 0"),
    ],
)
def test_napi_trace_refuses_bad_input_in_one_line(tmp_path, capsys, text, argv, word):
    mod = _load("napi_trace")
    f = tmp_path / ("nosuch" if text is None else "t.txt")
    if text is not None:
        f.write_text(text)
    assert mod.main([str(f), *argv]) == 2
    err = capsys.readouterr().err
    assert word in err and len(err.strip().splitlines()) == 1
