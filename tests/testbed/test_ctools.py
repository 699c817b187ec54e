# SPDX-License-Identifier: GPL-2.0-only
"""The C traffic tools (testbed/tools), run for real between two network namespaces.

Each test starts lanloss-recv in namespace B, waits for its --ready-file, runs
lanloss-send in namespace A over a veth pair (10.201.0.1 -> 10.201.0.2) and
checks the two JSON reports against each other. Nothing is ever sent outside
the namespaces created here (or to loopback). Behaviour is asserted, not speed:
rates are low enough for a loaded 2-CPU machine, and receive buffers large.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from load_rules import judged, tools_disturbance

from lanloss import header_constants
from lanloss.testbed.nspair import A_ADDR, B_ADDR, NamespacePair
from lanloss.testbed.traffic import LOG_RECORD

REPO = Path(__file__).resolve().parents[2]
TOOLS = REPO / "testbed" / "tools"
SEND = TOOLS / "lanloss-send"
RECV = TOOLS / "lanloss-recv"
BIG = {"rcvbuf": 16 << 20, "rcvbuf_force": True}
MAGIC = header_constants.MAGIC

SEND_KEYS = set(
    "tool version proto dst port payload rate_bps pattern start_burst flow header_bytes sent "
    "bytes send_errors elapsed_s achieved_bps achieved_pps pacing gso batch sndbuf_actual "
    "start_ns end_ns sched sched_note stamp_clock".split()
)
RECV_KEYS = set(
    "tool version proto port group received bytes flows rxq_ovfl socket_drops "
    "rcvbuf_actual readers elapsed_s goodput_bps stop_reason scheduling stamp_clock "
    "cpu_window".split()
)
SCHED_KEYS = set("max_stall_us max_stall_at_ns run_delay_us nivcsw nvcsw calls".split())
FLOW_KEYS = set(
    "flow received bytes lost duplicated reordered max_seq loss_runs latency_us "
    "latency_negative first_rx_ns last_rx_ns".split()
)

pytestmark = pytest.mark.netns


def opts(**kw) -> list[str]:
    """port=6001, rcvbuf_force=True -> ["--port", "6001", "--rcvbuf-force"]."""
    out: list[str] = []
    for k, v in kw.items():
        flag = "--" + k.replace("_", "-")
        out += [flag] if v is True else [flag, str(v)]
    return out


class Receiver:
    def __init__(self, proc: subprocess.Popen, out: Path) -> None:
        self.proc, self.out = proc, out

    def result(self, timeout: float = 15) -> dict:
        _, err = self.proc.communicate(timeout=timeout)
        assert self.proc.returncode == 0, err
        return json.loads(self.out.read_text())


class Pair(NamespacePair):
    """Namespaces A and B joined by a veth pair; runs the tools inside them."""

    def __init__(self, tmp: Path) -> None:
        super().__init__("lltools", "lt")
        self.tmp = tmp

    def spawn(self, ns: str, argv: list, **kw) -> subprocess.Popen:
        return self.started(
            subprocess.Popen(["ip", "netns", "exec", ns, *map(str, argv)], text=True, **kw)
        )

    def start_recv(self, name: str = "recv", **kw) -> Receiver:
        """lanloss-recv in B, returned once its ready file exists."""
        ready, out = self.tmp / f"{name}.ready", self.tmp / f"{name}.json"
        kw = {"idle_timeout": 0.5, "duration": 20, **kw, "ready_file": ready, "json": out}
        p = self.spawn(self.b, [RECV, *opts(**kw)], stderr=subprocess.PIPE)
        deadline = time.monotonic() + 5
        while not ready.exists():
            if p.poll() is not None:
                pytest.fail(f"lanloss-recv exited early: {p.stderr.read()}")
            if time.monotonic() > deadline:
                pytest.fail("lanloss-recv did not create its ready file")
            time.sleep(0.01)
        return Receiver(p, out)

    def send_proc(self, **kw) -> subprocess.Popen:
        kw = {"dst": B_ADDR, **kw}
        return self.spawn(self.a, [SEND, *opts(**kw)], stdout=subprocess.PIPE)

    def send(self, **kw) -> dict:
        """Run lanloss-send in A to completion; its report."""
        p = self.send_proc(**kw)
        out, _ = p.communicate(timeout=30)
        assert p.returncode == 0
        return json.loads(out)


@pytest.fixture(scope="session")
def tools() -> Path:
    """Build the tools (make is incremental, so a stale binary is rebuilt too)."""
    r = subprocess.run(["make", "-C", str(TOOLS)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    return TOOLS


@pytest.fixture(scope="module")
def pair(tools, tmp_path_factory):
    if os.geteuid() != 0:
        pytest.skip("needs root to create network namespaces")
    if shutil.which("ip") is None:
        pytest.skip("needs iproute2 (ip)")
    p = Pair(tmp_path_factory.mktemp("ctools"))
    try:
        p.up()
        yield p
    finally:
        p.down()


def only_flow(r: dict) -> dict:
    assert len(r["flows"]) == 1, r["flows"]
    return r["flows"][0]


PACED_RATE, PACED_PAYLOAD, PACED_S = 50_000_000, 1472, 1.0


def test_paced_udp_rate_and_accounting(pair):
    """Judged only where the machine let the tools keep their schedule (load_rules): a
    sender that fell behind or a receiver kept off the CPU past its buffer is run again."""

    def attempt(i: int) -> tuple[dict, dict]:
        rx = pair.start_recv(f"paced{i}", port=6001, **BIG)
        s = pair.send(port=6001, rate=PACED_RATE, payload=PACED_PAYLOAD, duration=PACED_S, flow=9)
        return s, rx.result()

    judged(attempt, lambda sr: tools_disturbance(*sr, PACED_S), _paced_ok)


def _paced_ok(sr: tuple[dict, dict]) -> None:
    s, r = sr
    rate, payload, duration = PACED_RATE, PACED_PAYLOAD, PACED_S
    assert set(s) == SEND_KEYS and set(r) == RECV_KEYS
    assert set(s["pacing"]) == {"mean_late_us", "p99_late_us", "max_late_us"}
    assert set(r["scheduling"]) == SCHED_KEYS and r["scheduling"]["max_stall_us"] >= 0
    expected = rate * duration / (payload * 8)
    assert abs(s["sent"] - expected) <= 0.01 * expected
    assert s["bytes"] == s["sent"] * payload and s["send_errors"] == {}
    assert s["header_bytes"] == 24 and s["rate_bps"] == rate and s["gso"] is False
    assert s["achieved_bps"] == pytest.approx(rate, rel=0.01)  # the schedule was kept
    assert r["received"] == s["sent"] and r["bytes"] == s["bytes"]
    f = only_flow(r)
    assert set(f) == FLOW_KEYS and f["flow"] == 9
    assert (f["lost"], f["duplicated"], f["reordered"]) == (0, 0, 0)
    assert f["max_seq"] == s["sent"] - 1 and f["loss_runs"]["count"] == 0
    lat = f["latency_us"]
    assert 0 <= lat["min"] <= lat["p50"] <= lat["p99"] <= lat["max"]
    assert r["stop_reason"] == "idle" and r["socket_drops"] == 0
    assert r["rxq_ovfl"] is None  # asked for with --rxq-ovfl only
    assert r["rcvbuf_actual"] >= 16 << 20


def test_realtime_pacing_only_where_a_fifo_sender_sleeps(pair):
    """--realtime: SCHED_FIFO for a paced UDP sender at most 25,000 datagrams/s (it sleeps
    between sends); faster, its pacing loop would spin into the kernel's RT throttling, so
    it stays under CFS and says why. Either way the schedule and the count are the same."""
    rx = pair.start_recv(port=6011, **BIG)
    slow = pair.send(port=6011, rate=10_000_000, payload=1000, count=500, realtime=10)
    fast = pair.send(port=6011, rate=40_000_000, payload=100, count=2000, realtime=10)
    plain = pair.send(port=6011, rate=10_000_000, payload=1000, count=10)
    rx.result()
    assert (slow["sched"], slow["sched_note"]) == ("fifo", None)  # 1,250/s; we are root
    assert fast["sched"] == "other" and "RT throttling" in fast["sched_note"]  # 50,000/s
    assert (plain["sched"], plain["sched_note"]) == ("other", None)  # not asked for
    assert [x["sent"] for x in (slow, fast, plain)] == [500, 2000, 10]


# A plain Python socket in B decodes the sender's header itself.
DECODE = """
import socket, struct, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 6002))
open(sys.argv[1], "w").close()
for _ in range(3):
    d = s.recv(2048)
    print(len(d), *struct.unpack_from("<QQII", d))
"""


def test_count_is_exact_and_header_round_trips(pair):
    ready = pair.tmp / "py.ready"
    py = pair.spawn(pair.b, ["python3", "-c", DECODE, ready], stdout=subprocess.PIPE)
    while not ready.exists() and py.poll() is None:
        time.sleep(0.01)
    before = time.monotonic_ns()
    s = pair.send(port=6002, count=3, rate=1_000_000, payload=100, flow=4242)
    out, _ = py.communicate(timeout=10)
    rows = [tuple(map(int, line.split())) for line in out.splitlines()]
    assert s["sent"] == 3 and [row[1] for row in rows] == [0, 1, 2]
    for length, _seq, tx_ns, flow, magic in rows:
        assert (length, flow, magic) == (100, 4242, MAGIC)
        assert before < tx_ns < time.monotonic_ns()  # CLOCK_MONOTONIC, shared across netns

    log = pair.tmp / "count.log"
    rx = pair.start_recv("count", port=6003, log=log)
    s = pair.send(port=6003, count=1000, rate=8_000_000, payload=100, flow=77)
    r = rx.result()
    assert s["sent"] == r["received"] == 1000
    f = only_flow(r)
    assert (f["flow"], f["max_seq"], f["lost"]) == (77, 999, 0)
    recs = list(LOG_RECORD.iter_unpack(log.read_bytes()))
    assert sorted(rec[0] for rec in recs) == list(range(1000))
    assert all(rec[3] == 77 and rec[4] == 100 and 0 < rec[1] <= rec[2] for rec in recs)


# Hand-made datagrams from A: flow 42 with a known pattern, then one foreign datagram.
CRAFT = """
import socket, struct, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for q in map(int, sys.argv[2:]):
    hdr = struct.pack("<QQII", q, time.monotonic_ns(), 42, MAGIC)
    s.sendto(hdr + bytes(40), (sys.argv[1], 6004))
s.sendto(b"not a lanloss datagram, just bytes", (sys.argv[1], 6004))
""".replace("MAGIC", str(MAGIC))


def test_receiver_accounting_of_crafted_sequences(pair):
    rx = pair.start_recv("crafted", port=6004)
    seqs = [0, 1, 2, 5, 3, 3, 9]
    pair.spawn(pair.a, ["python3", "-c", CRAFT, B_ADDR, *seqs]).wait(timeout=10)
    r = rx.result()
    assert r["received"] == len(seqs) + 1
    ours, foreign = r["flows"]
    assert (ours["flow"], ours["received"], ours["max_seq"]) == (42, 7, 9)
    assert (ours["lost"], ours["duplicated"], ours["reordered"]) == (4, 1, 1)  # 4, 6, 7, 8
    assert ours["loss_runs"] == {"count": 2, "mean": 2, "max": 3}
    assert foreign["flow"] is None and foreign["received"] == 1 and foreign["lost"] is None


def test_short_payloads_carry_truncated_headers(pair):
    for payload, header in ((16, 8), (4, 0)):
        rx = pair.start_recv(f"short{payload}", port=6005)
        s = pair.send(port=6005, count=200, rate=1_000_000, payload=payload)
        r = rx.result()
        f = only_flow(r)
        assert s["header_bytes"] == header and r["received"] == 200
        assert f["latency_us"] is None
        if header:
            assert (f["flow"], f["max_seq"], f["lost"]) == (0, 199, 0)
        else:
            assert f["flow"] is None and f["max_seq"] is None


def test_multicast_join_delivers_to_member(pair):
    group = "239.201.0.2"
    rx = pair.start_recv("mc", port=6007, group=group, iface_addr=B_ADDR)
    s = pair.send(
        dst=group, port=6007, count=500, rate=4_000_000, payload=200, flow=3,
        mcast_if=A_ADDR, ttl=1,
    )  # fmt: skip
    r = rx.result()
    assert s["dst"] == group and s["sent"] == 500
    assert r["group"] == group and r["received"] == 500
    f = only_flow(r)
    assert (f["flow"], f["lost"], f["duplicated"]) == (3, 0, 0)


def test_reuseport_readers_take_one_flow_in_turn(pair):
    """--sockets reuseport: the BPF program deals one sender's datagrams out by IP ID, one
    each, as the simulator's HostRxPath does (the kernel's own hash would give one flow to
    one socket)."""
    rx = pair.start_recv("rr", port=6012, readers=3, **BIG)
    s = pair.send(port=6012, count=3000, rate=8_000_000, payload=200)
    r = rx.result()
    assert s["sent"] == r["received"] == 3000
    # in turn: 1000 each, but for the 16-bit ID's wrap (65535 and 0 both go to socket 0)
    assert all(abs(x["received"] - 1000) <= 1 for x in r["readers"]), r["readers"]


def test_shared_socket_readers(pair):
    """--sockets shared: the readers are threads on one socket; its drops count once.
    Each reader spins 200 us a datagram, so the two take at most 10k/s of the 50k/s sent
    into a buffer of two datagrams: drops are certain, however idle the machine."""
    rx = pair.start_recv(
        "shared",
        port=6013,
        readers=2,
        sockets="shared",
        rcvbuf=4096,
        work_ns=200_000,
        rxq_ovfl=True,
    )
    s = pair.send(port=6013, count=3000, rate=400_000_000, payload=1000)
    r = rx.result()
    assert len(r["readers"]) == 2 and s["sent"] == 3000
    assert r["received"] == sum(x["received"] for x in r["readers"])
    # one socket: what it dropped, counted once, and what it delivered make the whole
    assert r["received"] + r["socket_drops"] == 3000 and r["socket_drops"] > 0
    assert r["rxq_ovfl"] <= r["socket_drops"]


def test_reuseport_readers_sum_to_total(pair):
    rx = pair.start_recv("readers", port=6008, readers=2, **BIG)
    senders = [
        pair.send_proc(port=6008, count=1000, rate=8_000_000, payload=500, flow=flow)
        for flow in range(1, 7)
    ]
    sent = [json.loads(p.communicate(timeout=30)[0])["sent"] for p in senders]
    r = rx.result()
    assert sent == [1000] * 6
    assert len(r["readers"]) == 2
    assert r["received"] == sum(x["received"] for x in r["readers"]) == 6000
    assert sorted(f["flow"] for f in r["flows"]) == list(range(1, 7))
    assert all((f["received"], f["lost"], f["duplicated"]) == (1000, 0, 0) for f in r["flows"])


def test_slow_receiver_drops_match_counters(pair):
    """--work-ns and a small buffer: drops at the socket, seen by every counter."""
    log = pair.tmp / "slow.log"
    rx = pair.start_recv("slow", port=6009, rcvbuf=20000, work_ns=50000, log=log, rxq_ovfl=True)
    s = pair.send(port=6009, count=20000, rate=100_000_000, payload=200)
    r = rx.result()
    f = only_flow(r)
    lost = s["sent"] - r["received"]
    assert s["sent"] == 20000 and lost > 1000
    assert r["socket_drops"] == lost  # exact: the /proc/net/udp drops column
    # SO_RXQ_OVFL and seq gaps both stop at the last datagram read: equal, tail missed.
    assert 0 < r["rxq_ovfl"] == f["lost"] <= lost
    assert f["loss_runs"]["count"] >= 1 and f["loss_runs"]["max"] >= 1
    assert log.stat().st_size == 32 * r["received"]


def test_calls_count_the_receive_calls_that_returned_datagrams(pair):
    """scheduling.calls: one per datagram with --batch 1; a reader slower than its
    datagrams (--work-ns 20 us for one every 16 us) finds several waiting and takes them
    in fewer calls, at most --batch each."""
    one = pair.start_recv("calls1", port=6020, batch=1, **BIG)
    s1 = pair.send(port=6020, count=2000, rate=100_000_000, payload=200)
    r1 = one.result()
    many = pair.start_recv("calls64", port=6021, batch=64, work_ns=20000, **BIG)
    s64 = pair.send(port=6021, count=2000, rate=100_000_000, payload=200)
    r64 = many.result()
    assert s1["sent"] == r1["received"] == r1["scheduling"]["calls"] == 2000
    assert s64["sent"] == r64["received"] == 2000
    assert 2000 / 64 <= r64["scheduling"]["calls"] < 2000


def _interrupt_lines() -> dict[str, int]:
    """/proc/interrupts: each line's last word (a device name) -> the sum of its counts."""
    out: dict[str, int] = {}
    for line in Path("/proc/interrupts").read_text().splitlines()[1:]:
        head, _, rest = line.partition(":")
        words = rest.split()
        counts = [int(w) for w in words if w.isdigit()]
        if head.strip().isdigit() and words and not words[-1].isdigit():
            out[words[-1]] = out.get(words[-1], 0) + sum(counts)
    return out


def test_cpu_window_reads_this_hosts_cpu_and_a_devices_interrupts(pair):
    """--cpu-window 0.5: from the first receive call with datagrams, 0.5 s (to the next
    20 ms poll) of this host's /proc/stat; its idle ticks are at most the CPUs' time over
    it (busy ticks miss what a CPU that idles often does between ticks: not checked); the
    interrupts of a device /proc/interrupts names are at most what the device took over
    the whole run. A window longer than the traffic is incomplete."""
    lines = _interrupt_lines()
    device = max(lines, key=lines.get)
    before = lines[device]
    rx = pair.start_recv("window", port=6022, cpu_window=0.5, cpu_window_irq=device)
    s = pair.send(port=6022, rate=10_000_000, payload=200, duration=1.0)
    r = rx.result()
    after = _interrupt_lines()[device]
    w = r["cpu_window"]
    assert r["received"] == s["sent"] and w["complete"] is True
    assert w["first_return_ns"] <= w["start_ns"] < w["first_return_ns"] + 60_000_000
    assert 0.5e9 <= w["end_ns"] - w["start_ns"] < 0.56e9
    ticks = (w["end_ns"] - w["start_ns"]) / 1e9 * w["user_hz"] * os.cpu_count()
    assert w["cpus"] == os.cpu_count() and 0 <= w["idle_ticks"] <= ticks + 2
    assert w["irq_name"] == device and 0 <= w["irqs"] <= after - before

    long = pair.start_recv("window-long", port=6023, cpu_window=5, cpu_window_irq="no-such")
    pair.send(port=6023, rate=10_000_000, payload=200, duration=0.3)
    w = long.result()["cpu_window"]
    assert w["complete"] is False and w["irqs"] is None and "busy_ticks" not in w
    plain = pair.start_recv("window-none", port=6024)
    pair.send(port=6024, count=10, rate=1_000_000, payload=100)
    assert plain.result()["cpu_window"] is None


def test_sender_counts_failed_sends_separately(pair):
    """No receiver: ICMP port unreachable returns as ECONNREFUSED on later sends."""
    s = pair.send(port=6010, count=2000, rate=16_000_000, payload=100)
    assert s["sent"] == 2000 and s["bytes"] == 200_000
    assert s["send_errors"].get("ECONNREFUSED", 0) > 0


def test_gso_max_rate_conserves_datagrams(pair):
    rx = pair.start_recv("gso", port=6011, **BIG)
    s = pair.send(port=6011, rate="max", gso=True, count=50_000, payload=1000)
    r = rx.result()
    f = only_flow(r)
    assert s["sent"] == 50_000 and s["rate_bps"] == "max" and isinstance(s["gso"], bool)
    assert s["pacing"]["mean_late_us"] is None
    assert r["received"] + r["socket_drops"] == s["sent"]
    assert f["duplicated"] == 0 and f["max_seq"] <= s["sent"] - 1


def test_patterns_keep_the_mean_rate(pair):
    payload, rate, duration = 500, 20_000_000, 0.5
    n = rate * duration / (payload * 8)
    common = {"rate": rate, "payload": payload, "duration": duration}

    rx = pair.start_recv("burst", port=6012, **BIG)
    s = pair.send(port=6012, pattern="burst:10", **common)
    r = rx.result()
    assert s["pattern"] == "burst:10" and s["sent"] % 10 == 0
    assert abs(s["sent"] - n) <= 10 and r["received"] == s["sent"]

    rx = pair.start_recv("poisson", port=6013, **BIG)
    s = pair.send(port=6013, pattern="poisson", seed=7, **common)
    r = rx.result()
    assert abs(s["sent"] - n) <= 5 * n**0.5 and r["received"] == s["sent"]


def test_a_start_burst_goes_back_to_back_before_the_pattern(pair):
    """300 datagrams at the start, then the schedule from the same start: at 1.25
    datagrams/s the 301st is due at once and the 302nd 0.8 s later."""
    rx = pair.start_recv("startburst", port=6015, **BIG)
    s = pair.send(port=6015, count=301, rate=1000, payload=100, start_burst=300)
    r = rx.result()
    assert s["start_burst"] == 300 and s["sent"] == r["received"] == 301
    assert s["elapsed_s"] < 0.5  # back to back, where the pattern alone takes 240 s
    rx = pair.start_recv("startburst2", port=6016, idle_timeout=2, **BIG)
    s = pair.send(port=6016, count=302, rate=1000, payload=100, start_burst=300)
    assert rx.result()["received"] == 302
    assert 0.8 <= s["elapsed_s"] < 1.3  # then the pattern's second datagram, one gap later


def test_start_at_is_a_barrier(pair):
    start_at = time.monotonic_ns() + 300_000_000
    s = pair.send(port=6014, count=10, rate=1_000_000, payload=100, start_at=start_at)
    assert start_at <= s["start_ns"] < start_at + 50_000_000  # 50 ms: a busy CPU may stall us


@pytest.mark.parametrize(
    "tool, args, named",
    [
        (SEND, ["--dst", "127.0.0.1", "--payload", "70000"], "70000"),
        (SEND, ["--dst", "127.0.0.1", "--rate", "fast"], "fast"),
        (SEND, ["--rate", "1000"], "--dst"),
        (SEND, ["--dst", "127.0.0.1", "--pattern", "burst:0"], "burst:0"),
        (SEND, ["--dst", "127.0.0.1", "--proto", "tcp", "--start-burst", "5"], "--start-burst"),
        (SEND, ["--dst", "127.0.0.1", "--start-burst", "2000000"], "2000000"),
        (RECV, ["--readers", "0"], "0"),
        (RECV, ["--rx-time", "later"], "later"),
        (RECV, ["--proto", "tcp", "--rxq-ovfl"], "--rxq-ovfl"),
        (RECV, ["--cpu-window", "0"], "0"),
        (RECV, ["--cpu-window-irq", "eth0"], "--cpu-window"),
        (RECV, ["--cpu-window", "1", "--cpu-window-irq", "eth 0"], "eth 0"),
    ],
)
def test_bad_flags_exit_2_naming_the_value(tools, tool, args, named):
    r = subprocess.run([str(tool), *args], capture_output=True, text=True, timeout=10)
    assert r.returncode == 2 and r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and named in lines[0]


def test_the_senders_help_states_the_payload_limits_it_enforces(tools):
    r = subprocess.run([str(SEND), "--help"], capture_output=True, text=True, timeout=10)
    assert r.returncode == 0
    limit = header_constants.UDP_MAX_PAYLOAD
    assert f"UDP payload 1..{limit}, TCP message 1..1048576" in r.stdout
    over = [str(SEND), "--dst", "127.0.0.1", "--payload", str(limit + 1)]
    r = subprocess.run(over, capture_output=True, text=True, timeout=10)
    assert r.returncode == 2 and f"'{limit + 1}' (expected an integer 1..{limit})" in r.stderr


def test_sigterm_and_sigint_still_report(pair):
    rx = pair.start_recv("term", port=6015, idle_timeout=0)
    s = pair.send(port=6015, count=100, rate=1_000_000, payload=100)
    rx.proc.send_signal(signal.SIGTERM)
    r = rx.result()
    assert r["stop_reason"] == "signal" and r["received"] == s["sent"] == 100

    # The sender too: SIGINT in the middle of an endless run, then its report.
    p = pair.send_proc(port=6015, rate=1_000_000, payload=100)
    time.sleep(0.3)
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=10)
    assert p.returncode == 0 and json.loads(out)["sent"] > 0


def test_tcp_messages_arrive_whole(pair):
    payload = 5000
    rx = pair.start_recv("tcp", proto="tcp", port=6016, payload=payload)
    s = pair.send(proto="tcp", port=6016, payload=payload, count=2000, rate=200_000_000, flow=5)
    r = rx.result()
    assert s["sent"] == 2000 and s["bytes"] == 2000 * payload
    assert r["received"] == 2000 and r["bytes"] == payload * r["received"]
    f = only_flow(r)
    assert (f["flow"], f["lost"], f["duplicated"], f["max_seq"]) == (5, 0, 0, 1999)
    assert r["stop_reason"] == "eof" and r["rxq_ovfl"] is None
    assert r["scheduling"]["calls"] is None  # a count of datagram calls: UDP only
