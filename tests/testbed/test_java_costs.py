# SPDX-License-Identifier: GPL-2.0-only
"""testbed/java_costs: the thesis' threads in Java and in C count every message (each one
received, queued and echoed), a Java receiver allocating 64 KiB per message is collected
as often as its young generation forces, measure.py's medians and ratios are the runs'
own, the java-2015 preset's read cost is the committed measurements' ratio, and bad input
is refused in one line before anything is built or run."""

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


def _collections():
    return _script("collections")


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
    subprocess.run(["javac", "-Werror", "-d", out, HERE / "ThesisPath.java"], check=True)
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
    m = _collections()
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


def test_java_2015_collector_is_the_committed_collections():
    # every: the young generation's use at each run's first collection (the era heap's
    # initial eden); pause: the median over every young collection of the committed runs
    files = sorted((HERE / "runs").glob("collections-*.json"))
    assert len(files) >= 2  # two runs: not one run's
    firsts, pauses = [], []
    for f in files:
        data = json.loads(f.read_text())
        assert data["heap"] == _collections().ERA_HEAP
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
        [sys.executable, HERE / "collections.py", "--sizes", "65000", "--count", "3000",
         "--reps", "1", "--out", out],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert cp.returncode == 0, cp.stderr
    data = json.loads(out.read_text())
    (run,) = data["runs"]["65000"]
    # 33,000 messages of 65,000 bytes copied (2 GiB): the 32 MiB young generation fills
    assert len(run) >= 2 and run[0]["before_mib"] <= 33
    assert all(c["pause_ms"] > 0 for c in run)


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


@pytest.mark.parametrize(
    "args, says",
    [
        (["--sizes", "4"], "--sizes '4': each size 8 to 65507 bytes (got 4)"),
        (["--sizes", "64,x"], "--sizes '64,x': comma-separated whole numbers of bytes"),
        (["--count", "10"], "--count 10: at least 1000 messages per run"),
        (["--reps", "0"], "--reps 0: at least 1"),
    ],
)
@pytest.mark.parametrize("script", ["measure.py", "collections.py"])
def test_measure_refuses_bad_input_before_building(tmp_path, args, says, script):
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
    "args",
    [
        ["copy", "5000", "64"],
        ["reuse", "5000", "64", "10"],
        ["copy", "5000", "64x", "10"],
        ["copy", "5000", "4", "10"],
        ["fresh", "80", "64", "10"],
    ],
)
def test_java_program_refuses_bad_input(java_classes, args):
    cp = subprocess.run(
        ["java", "-cp", java_classes, "ThesisPath", *args], capture_output=True, text=True
    )
    assert cp.returncode == 2 and cp.stdout == "" and len(cp.stderr.splitlines()) == 1
