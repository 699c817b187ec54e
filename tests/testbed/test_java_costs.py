# SPDX-License-Identifier: GPL-2.0-only
"""testbed/java_costs: the thesis' threads in Java and in C count every message (each one
received, queued and echoed), a Java receiver allocating 64 KiB per message is collected
as often as its young generation forces, measure.py's medians and ratios are the runs'
own, the java-2015 preset's read cost and collector are the committed measurements',
gc_pauses.py reads collections from a JVM's log, gc_loss.py's stream counts what it
received and its rule's arithmetic holds, and bad input is refused in one line before
anything is built or run."""

from __future__ import annotations

import importlib.util
import json
import shutil
import socket
import statistics
import subprocess
import sys

import pytest

from lanloss import host_presets, paths

HERE = paths.REPO / "testbed" / "java_costs"
HAVE_JAVA = all(shutil.which(t) for t in ("javac", "java"))
needs_java = pytest.mark.skipif(not HAVE_JAVA, reason="no JDK (javac, java) on PATH")


def _script(name: str):
    """testbed/java_costs/NAME.py as a module."""
    spec = importlib.util.spec_from_file_location(f"java_costs_{name}", HERE / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def _measure():
    return _script("measure")


def _gc_pauses():
    return _script("gc_pauses")


def _gc_loss():
    return _script("gc_loss")


@pytest.fixture(scope="module")
def c_bin(tmp_path_factory):
    out = tmp_path_factory.mktemp("thesis_c") / "thesis_path"
    src = HERE / "thesis_path.c"
    subprocess.run(["cc", "-O2", "-Wall", "-Werror", "-pthread", "-o", out, src], check=True)
    return out


@pytest.fixture(scope="module")
def java_classes(tmp_path_factory):
    if not HAVE_JAVA:
        pytest.skip("no JDK (javac, java) on PATH")
    out = tmp_path_factory.mktemp("thesis_java")
    sources = [HERE / "ThesisPath.java", HERE / "ThesisStream.java"]
    subprocess.run(["javac", "-Werror", "-d", out, *sources], check=True)
    return out


@pytest.fixture
def port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _beside_blaster(c_bin, cmd, mode, port, size, count):
    """One receiving run beside a blaster of its own (killed by its PID); its JSON."""
    blaster = subprocess.Popen([c_bin, "blast", str(port), str(size)])
    try:
        cp = subprocess.run(
            [*map(str, cmd), mode, str(port), str(size), str(count)],
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        blaster.kill()
        blaster.wait()
    assert cp.returncode == 0, cp.stderr
    return json.loads(cp.stdout)


@pytest.mark.parametrize("size", [8, 1400, 65000])
def test_c_threads_count_every_message(c_bin, port, size):
    copy = _beside_blaster(c_bin, [c_bin], "copy", port, size, 3000)
    # every message read, the warm-up's too, queued and echoed by the DataHandler
    assert copy["messages"] == 3000 and copy["echoes"] == copy["warmup"] + 3000
    assert 0 < copy["timed"] <= copy["echoes"]  # echoes lost on loopback are not timed
    assert copy["recv_cpu_ns"] > 0
    plain = _beside_blaster(c_bin, [c_bin], "plain", port, size, 3000)
    assert (plain["messages"], plain["echoes"], plain["timed"]) == (3000, 0, 0)


@needs_java
@pytest.mark.parametrize("mode", ["copy", "fresh"])
def test_java_threads_count_every_message(c_bin, java_classes, port, mode):
    java = ["java", "-XX:+UseParallelGC", "-cp", java_classes, "ThesisPath"]
    r = _beside_blaster(c_bin, java, mode, port, 1400, 3000)
    assert (r["lang"], r["mode"], r["size"]) == ("java", mode, 1400)
    assert r["messages"] == 3000 and r["echoes"] == r["warmup"] + 3000
    assert 0 < r["timed"] <= r["echoes"]
    assert r["recv_cpu_ns"] > 0


@needs_java
def test_fresh_packets_are_collected_as_the_young_generation_forces(c_bin, java_classes, port):
    # 64 KiB allocated per message: between two collections at most the young generation's
    # 16 MiB of new arrays can have been allocated (over the windows: 9,000 messages)
    n, young = 9000, 16 << 20
    java = ["java", "-XX:+UseParallelGC", f"-Xmn{young}", "-cp", java_classes, "ThesisPath"]
    r = _beside_blaster(c_bin, java, "fresh", port, 64, n)
    assert r["gc_collections"] >= n * 65507 // young


def test_medians_and_ratios_are_the_runs_own():
    m = _measure()

    def run(recv_us, sleeps=0, gc=(0, 0)):
        n = 1000
        return {"messages": n, "recv_cpu_ns": recv_us * n * 1e3, "recv_sleeps": sleeps,
                "gc_collections": gc[0], "gc_ms": gc[1]}  # fmt: skip

    runs = {
        "c plain": [run(1.0), run(2.0), run(1.5)],
        "java copy": [run(3.0, 10), run(4.5, 0, (2, 6)), run(3.75, 2, (4, 4))],
    }
    s = m.summarise({100: runs})[100]
    assert s["c plain"]["recv_us"] == 1.5 and s["c plain"]["gc_ms_per_collection"] is None
    assert s["java copy"]["recv_us"] == 3.75
    assert s["java copy"]["recv_ratio_to_c_plain"] == 2.5
    assert s["java copy"]["recv_sleeps_per_message"] == 0.002
    assert s["java copy"]["gc_collections"] == 2
    assert s["java copy"]["gc_ms_per_collection"] == 2.0  # median of 3 and 1
    assert "2.50" in m.render({100: s})


def test_collections_are_read_from_the_jvms_own_log():
    m = _gc_pauses()
    log = (
        "[0.004s][info][gc] Using Parallel\n"
        "[0.202s][info][gc] GC(0) Pause Young (Allocation Failure) 32M->0M(123M) 3.299ms\n"
        "[0.301s][info][gc] GC(1) Pause Full (Ergonomics) 40M->9M(123M) 12.000ms\n"
        "[0.331s][info][gc] GC(2) Pause Young (Allocation Failure) 66M->11M(220M) 0.887ms\n"
    )
    young = m.young_collections(log)  # the full collection is not a young one
    assert young == [
        {"before_mib": 32, "after_mib": 0, "pause_ms": 3.299},
        {"before_mib": 66, "after_mib": 11, "pause_ms": 0.887},
    ]
    s = m.summarise({40000: [young, young[:1]]})[40000]
    assert s == {"collections_per_run": 1.5, "first_before_mib": 32,
                 "median_pause_ms": 3.299, "pauses": 3}  # fmt: skip
    assert m.summarise({64: [[]]})[64] == {"collections_per_run": 0, "first_before_mib": None,
                                           "median_pause_ms": None, "pauses": 0}  # fmt: skip
    assert m.ERA_HEAP == ["-Xms128m", "-Xmx2048m"]  # 1/64 and 1/4 of 8 GiB


def test_java_2015_collector_is_the_committed_gc_pauses():
    # every: the young generation's use at each run's first collection (the era heap's
    # initial eden); pause: the median over every young collection of the committed runs
    files = sorted((HERE / "runs").glob("gc-pauses-*.json"))
    assert len(files) >= 2  # two runs: not one run's
    firsts, pauses = [], []
    for f in files:
        data = json.loads(f.read_text())
        assert data["heap"] == _gc_pauses().ERA_HEAP
        for reps in data["runs"].values():
            firsts += [rep[0]["before_mib"] for rep in reps]
            pauses += [c["pause_ms"] for rep in reps for c in rep]
    collector = host_presets.JAVA_COLLECTOR
    assert collector.every == statistics.median(firsts) * 2**20
    assert collector.pause == pytest.approx(statistics.median(pauses) * 1e-3, abs=0.05e-3)
    assert host_presets.TABLE["java-2015"].collector == collector
    assert all(p.collector.every == 0 for n, p in host_presets.TABLE.items() if n != "java-2015")


@needs_java
def test_collections_runs_the_thesis_threads_with_the_era_heap(tmp_path):
    out = tmp_path / "c.json"
    cp = subprocess.run(
        [sys.executable, HERE / "gc_pauses.py", "--sizes", "65000", "--count", "3000",
         "--reps", "1", "--out", out],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert cp.returncode == 0, cp.stderr
    data = json.loads(out.read_text())
    (run,) = data["runs"]["65000"]
    # 33,000 messages of 65,000 bytes copied (2 GiB): the 32 MiB young generation fills
    assert len(run) >= 2 and run[0]["before_mib"] <= 33
    assert all(c["pause_ms"] > 0 for c in run)


def test_the_rule_loses_what_a_pause_brings_beyond_the_socket():
    m = _gc_loss()
    # 14,000/s: a 1.8 ms pause brings 25.2, a 0.5 ms one 7; a socket of 7 keeps 7 of each
    assert m.rule_loss(14_000, [1.8e-3, 0.5e-3, 3e-3], 7) == pytest.approx(18.2 + 0 + 35)
    # the preset's: 2,048 datagrams of 32,768 bytes read are 2 collections of 32 MiB
    assert m.preset_loss(14_000, 32_768, 2_048, 7, 32 << 20, 1.8e-3) == pytest.approx(36.4)
    assert m.preset_loss(14_000, 32_768, 1_023, 7, 32 << 20, 1.8e-3) == 0  # none yet


@pytest.mark.parametrize("size, rcvbuf", [(1400, 16_384), (8000, 65_536)])
def test_a_loopback_socket_holds_what_its_buffer_admits(size, rcvbuf):
    """socket_capacity counts what a socket nobody reads kept: at least one datagram, at
    most what sk_rcvbuf (SO_RCVBUF doubled) would hold of bare payloads, plus the one the
    kernel admits below it; twice the same."""
    m = _gc_loss()
    held = m.socket_capacity(size, rcvbuf)
    assert 1 <= held <= 2 * rcvbuf // size + 1
    assert m.socket_capacity(size, rcvbuf) == held


@needs_java
def test_a_java_stream_counts_what_it_received(tmp_path):
    """Two runs and their controls, 2,000 counted datagrams at 4,000/s after 1,000 of
    warm-up, into a socket of 256 KiB: every counted datagram is received or lost, the
    highest number is below what was sent, the collections during the counted traffic are
    the JVM log's, the control's heap holds the run without one, and the DataHandler echoed
    every datagram the receiving thread took (the warm-up's too)."""
    out = tmp_path / "g.json"
    cp = subprocess.run(
        [sys.executable, HERE / "gc_loss.py", "--size", "8000", "--rate", "4000",
         "--warm", "0.25", "--seconds", "0.5", "--rcvbuf", "262144", "--reps", "2",
         "--out", out],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert cp.returncode == 0, cp.stderr
    data = json.loads(out.read_text())
    for r in data["runs"] + data["controls"]:
        assert r["received"] + r["lost"] == 2000 and r["received"] > 0
        assert r["highest"] < 3000
        assert len(r["pauses_ms"]) == r["gc_last"] - r["gc_first"]
        assert r["echoes"] >= r["received"]
    assert all(not c["pauses_ms"] for c in data["controls"])


def test_java_2015_read_cost_is_the_committed_measurements_ratio():
    # the preset's ratio is the committed runs' own, pooled: the median of every repetition
    # of the Java thread over the median of every repetition of the C reader, at 1400 bytes
    files = sorted((HERE / "runs").glob("measure-*.json"))
    assert len(files) >= 2  # two runs: the ratio is not one run's
    per_message = {"java copy": [], "c plain": []}
    for f in files:
        for key, runs in json.loads(f.read_text())["runs"]["1400"].items():
            if key in per_message:
                assert all(r["recv_sleeps"] <= r["messages"] // 1000 for r in runs)  # busy
                per_message[key] += [r["recv_cpu_ns"] / r["messages"] for r in runs]
    pooled = statistics.median(per_message["java copy"]) / statistics.median(per_message["c plain"])
    assert round(pooled, 2) == host_presets.JAVA_THESIS_READ_RATIO
    java, modern = host_presets.TABLE["java-2015"].values, host_presets.TABLE["modern"].values
    assert java["read_cost"] == modern["read_cost"] * host_presets.JAVA_THESIS_READ_RATIO


MEASURING = ("measure.py", "gc_pauses.py")  # run_args's options


@pytest.mark.parametrize(
    "script, args, says",
    [
        *(
            (script, args, says)
            for script in MEASURING
            for args, says in [
                (["--sizes", "4"], "--sizes '4': each size 8 to 65507 bytes (got 4)"),
                (["--sizes", "64,x"], "--sizes '64,x': comma-separated whole numbers of bytes"),
                (["--count", "10"], "--count 10: at least 1000 messages per run"),
                (["--reps", "0"], "--reps 0: at least 1"),
            ]
        ),
        ("gc_loss.py", ["--size", "4"], "--size 4: 8 to 65507 bytes"),
        ("gc_loss.py", ["--rate", "0"], "--rate 0: above 0 datagrams a second"),
        ("gc_loss.py", ["--seconds", "-2"], "--seconds -2: above 0"),
        ("gc_loss.py", ["--warm", "-1"], "--warm -1: 0 or more seconds"),
        ("gc_loss.py", ["--rcvbuf", "0"], "--rcvbuf 0: at least 1 byte"),
        ("gc_loss.py", ["--reps", "0"], "--reps 0: at least 1"),
        ("gc_loss.py", ["--jvm-cpus", "1;rm"], "--jvm-cpus '1;rm': a CPU list such as 1 or 0,1"),
    ],
)
def test_measure_refuses_bad_input_before_building(script, args, says):
    cp = subprocess.run([sys.executable, HERE / script, *args], capture_output=True, text=True)
    assert cp.returncode == 2
    assert cp.stderr == f"{script}: {says}\n"


def test_measure_never_overwrites_its_output(tmp_path):
    out = tmp_path / "m.json"
    out.write_text("kept")
    cp = subprocess.run(
        [sys.executable, HERE / "measure.py", "--out", out], capture_output=True, text=True
    )
    assert (cp.returncode, cp.stderr) == (2, f"measure.py: --out {out}: exists (not overwritten)\n")
    assert out.read_text() == "kept"


@pytest.mark.parametrize(
    "args",
    [
        ["plain", "5000", "4", "10"],
        ["copy", "5000", "64", "0"],
        ["copy", "5000", "64x", "10"],
        ["copy", "80", "64", "10"],
        ["both", "5000", "64", "10"],
        ["blast", "5000", "64", "10"],
        ["blast", "5000", "70000"],
        ["copy", "5000", "64"],
    ],
)
def test_c_program_refuses_bad_input(c_bin, args):
    cp = subprocess.run([c_bin, *args], capture_output=True, text=True)
    assert cp.returncode == 2 and cp.stdout == "" and len(cp.stderr.splitlines()) == 1


@needs_java
@pytest.mark.parametrize(
    "program, args",
    [
        ("ThesisPath", ["copy", "5000", "64"]),
        ("ThesisPath", ["reuse", "5000", "64", "10"]),
        ("ThesisPath", ["copy", "5000", "64x", "10"]),
        ("ThesisPath", ["copy", "5000", "4", "10"]),
        ("ThesisPath", ["fresh", "80", "64", "10"]),
        ("ThesisStream", ["5000", "8000", "0", "10"]),
        ("ThesisStream", ["5000", "8000", "-1", "10", "65536"]),
        ("ThesisStream", ["5000", "8000", "0", "10", "0"]),
        ("ThesisStream", ["80", "8000", "0", "10", "65536"]),
    ],
)
def test_java_program_refuses_bad_input(java_classes, program, args):
    cp = subprocess.run(
        ["java", "-cp", java_classes, program, *args], capture_output=True, text=True
    )
    assert cp.returncode == 2 and cp.stdout == "" and len(cp.stderr.splitlines()) == 1
