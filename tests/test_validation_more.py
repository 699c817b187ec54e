# SPDX-License-Identifier: GPL-2.0-only
"""More of the bad-input table (tests/test_bad_inputs.py's rules): wrong answers, silent
accepts and misleading messages. Every case runs the real `lanloss` command in a folder
holding the files it names and must end with exit 2, one line on stderr naming the value,
no traceback, nothing on stdout and nothing written.

After the table: a fit that describes nothing (fit exits 1, plan refuses it) and two sweeps
into one folder (the second waits, then computes nothing twice).
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_checks import assert_refused, broken_copies, case_ids, lanloss

PREFIX = "lltv-more-"  # testbed cases: no namespace of this prefix may appear

TOPO_OK = "switches: [sw1]\nhosts: {s1: sender, r1: receiver}\n"
LINKS_OK = "links:\n  - [s1, sw1, 100Mbps]\n  - [r1, sw1, 100Mbps]\n"
INV_HOST = "    address: 10.0.0.{n}\n    interface: eth0\n    role: {role}\n"


def _big_topology(receivers: int) -> str:
    hosts = "".join(f"  r{i}: receiver\n" for i in range(receivers))
    links = "".join(f"  - [r{i}, sw1, 100Mbps]\n" for i in range(receivers))
    return f"switches: [sw1]\nhosts:\n  s1: sender\n{hosts}links:\n  - [s1, sw1, 100Mbps]\n{links}"


def _inventory(name: str, user: str = "root", iface: str = "eth0") -> str:
    return (
        f"ssh: {{user: {json.dumps(user)}, key: afile}}\nhosts:\n"
        f"  {json.dumps(name)}:\n    address: 10.0.0.1\n    interface: {json.dumps(iface)}\n"
        "    role: sender\n  b:\n    address: 10.0.0.2\n    interface: eth0\n"
        "    role: receiver\n"
    )


FILES: dict[str, str] = {
    "afile": "a plain file\n",
    "topo-newline.yaml": 'switches: ["sw1\\n"]\nhosts: {s1: sender, r1: receiver}\n'
    'links:\n  - [s1, "sw1\\n", 100Mbps]\n  - [r1, "sw1\\n", 100Mbps]\n',
    "topo-1025.yaml": _big_topology(1025),
    "inv-name.yaml": _inventory("a\n"),
    "inv-user.yaml": _inventory("a", user="root\n"),
    "inv-iface.yaml": _inventory("a", iface="eth0\n"),
    "study-fixed-grid.yaml": "name: x\nfixed: {payload: 64}\ngrid: {payload: [64, 128]}\n",
    "study-source-grid.yaml": "name: x\ngrid: {payload: [64], sim: {payload: 128}}\n",
    "study-reps.yaml": "name: x\nrepetitions: 300000000\n",
    "study-name.yaml": 'name: "x\\n"\n',
    "study-inf.yaml": "name: x\nfixed: {host: modern, irq_cost: .inf}\n",
}


def _record_files(good: dict) -> dict[str, str]:
    """Records broken one way each (from a real record)."""
    out = broken_copies(
        good,
        {
            "rec-neg-lost.json": lambda d: d["flows"][0].__setitem__("lost", -12),
            "rec-neg-sent.json": lambda d: d["totals"].__setitem__("sent", -1),
            "rec-more-received.json": lambda d: d["flows"][0].__setitem__(
                "received", d["flows"][0]["sent"] + 1
            ),
            "rec-no-params.json": lambda d: d.__setitem__("params", {}),
            "rec-no-flows.json": lambda d: d.__setitem__("flows", []),
            "rec-huge.json": lambda d: d["totals"].__setitem__("sent", 1e20),
            "rec-big-int.json": lambda d: d["flows"][0].__setitem__("sent", 2**64),
            "rec-float.json": lambda d: d["flows"][0].__setitem__("sent", 43.0),
        },
    )
    out["good-copy.json"] = json.dumps(good)
    return out


def _table_files(d: Path) -> None:
    """Tables broken one column at a time (from a real table)."""
    import numpy as np
    import pandas as pd

    df = pd.read_parquet(d / "good.parquet")
    df[["source", "sent", "lost", "payload", "rate", "run_file"]].to_parquet(d / "t-cols.parquet")
    for name, change in (
        ("t-str.parquet", lambda x: x.__setitem__("sent", x["sent"].astype(str))),
        ("t-payload.parquet", lambda x: x.__setitem__("payload", np.nan)),
        ("t-rate.parquet", lambda x: x.__setitem__("rate", np.nan)),
        ("t-lost.parquet", lambda x: x.__setitem__("lost", x["sent"] + 5)),
    ):
        broken = df.copy()
        change(broken)
        broken.to_parquet(d / name)


def _fit_files(d: Path) -> None:
    fit = json.loads((d / "good-fit.json").read_text())
    runs_x = json.loads(json.dumps(fit))
    runs_x["data"]["runs"] = {"sim": "x", "bed": 0}
    (d / "fit-runs.json").write_text(json.dumps(runs_x))
    bad = json.loads(json.dumps(fit))  # a fit written without describes_data: its quality
    bad.pop("describes_data", None)
    bad["fit_quality"]["sim"]["loss_rms_error"] = 0.99999
    (d / "fit-quality.json").write_text(json.dumps(bad))


TABLE = ["table", "--study", "x", "--out", "t.parquet"]
SIM = ["sim", "run", "--out", "run.json"]
HOST = [*SIM, "--host", "modern"]
BED = ["bed", "check", "--prefix", PREFIX]

# (args, words the one line must contain)
CASES: list[tuple[list[str], tuple[str, ...]]] = [
    (["sim", "run", "--topology", "folder.yaml"], ("folder.yaml", "is a folder, not a file")),
    # flags: never abbreviated, a single-valued one given once
    ([*SIM, "--dur", "1s"], ("--dur",)),
    ([*SIM, "--duration", "1s", "--duration", "2s"], ("--duration", "'2s'")),
    (["sweep", "--set", "payload=64", "--out", "o", "--out", "p"], ("--out",)),
    ([*BED, "--prefix", "lltv-other-"], ("--prefix",)),
    ([*TABLE, "--study", "y", "good.json"], ("--study",)),
    (["plan", "--fit", "good-fit.json", "--json", "--json"], ("--json",)),
    (["fit", "good.parquet", "--out", "f.json", "--boot", "0"], ("--boot",)),
    # studies
    (["study", "check", "study-fixed-grid.yaml"], ("payload", "fixed")),
    (["study", "check", "study-source-grid.yaml"], ("payload", "grid.sim")),
    (["study", "check", "study-reps.yaml"], ("300000000",)),
    (["study", "check", "study-name.yaml"], ("'x\\n'",)),
    (["study", "check", "study-inf.yaml"], ("irq_cost", "infinite")),
    # names with a trailing newline; topology caps
    ([*SIM, "--topology", "topo-newline.yaml"], ("topo-newline.yaml", "'sw1\\n'")),
    ([*BED, "--topology", "topo-newline.yaml"], ("topo-newline.yaml", "'sw1\\n'")),
    ([*SIM, "--topology", "topo-1025.yaml"], ("topo-1025.yaml", "1025 receivers")),
    ([*BED, "--topology", "topo-1025.yaml"], ("topo-1025.yaml", "1025 receivers")),
    ([*BED, "--backend", "ssh", "--inventory", "inv-name.yaml"], ("'a\\n'",)),
    ([*BED, "--backend", "ssh", "--inventory", "inv-user.yaml"], ("'root\\n'",)),
    ([*BED, "--backend", "ssh", "--inventory", "inv-iface.yaml"], ("'eth0\\n'",)),
    # records
    ([*TABLE, "rec-neg-lost.json"], ("flows[0].lost", "-12")),
    ([*TABLE, "rec-neg-sent.json"], ("totals.sent", "-1")),
    ([*TABLE, "rec-more-received.json"], ("flows[0].received",)),
    ([*TABLE, "rec-no-params.json"], ("params",)),
    ([*TABLE, "rec-no-flows.json"], ("flows",)),
    ([*TABLE, "rec-huge.json"], ("totals.sent", "1e+20")),
    ([*TABLE, "rec-big-int.json"], ("flows[0].sent", str(2**64))),
    ([*TABLE, "rec-float.json"], ("flows[0].sent", "43.0")),
    ([*TABLE, "good.json", "good-copy.json"], ("good.json", "good-copy.json")),
    ([*TABLE, "good.json", "./good.json"], ("good.json", "./good.json")),
    # tables the fit reads
    (["fit", "t-cols.parquet", "--out", "f.json"], ("t-cols.parquet", "sender")),
    (["fit", "t-str.parquet", "--out", "f.json"], ("'sent'", "row 0")),
    (["fit", "t-payload.parquet", "--out", "f.json"], ("'payload'", "row 0")),
    (["fit", "t-rate.parquet", "--out", "f.json"], ("'rate'", "row 0")),
    (["fit", "t-lost.parquet", "--out", "f.json"], ("'lost'", "row 0")),
    # fits plan reads
    (["plan", "--fit", "fit-runs.json"], ("data.runs.sim", "'x'")),
    (["plan", "--fit", "fit-quality.json"], ("fit-quality.json", "describes nothing")),
    (["plan", "--fit", "good-fit.json", "--verify-duration", "nan"], ("'nan'",)),
    # counts of jobs, cores, receivers' work
    (["calibrate", "athlon-2003", "--jobs", "0"], ("--jobs", "0")),
    (["calibrate", "athlon-2003", "--jobs", "-1"], ("--jobs", "-1")),
    ([*HOST, "--reader-cores", "others", "--cores", "1"], ("reader_cores", "cores")),
    ([*BED, "--slow-receiver", "20%", "--recv-cpu", "50"], ("--slow-receiver", "'50'")),
    ([*BED, "--slow-receiver", "20%,5us", "--recv-work", "1us"], ("--slow-receiver", "'1us'")),
    ([*BED, "--recv-work", "1s", "--recv-cpu", "1"], ("recv_work", "1s", "recv_cpu 1%")),
    (["bed", "run", "--prefix", PREFIX, "--recv-work", "200ms"], ("recv_work", "0.2s")),
    # messages that say what is wrong
    ([*SIM, "--duration", "1e309s"], ("'1e309s'", "infinite")),
    ([*SIM, "--rate", "nan"], ("'nan'", "NaN")),
    ([*SIM, "--warmup", "-inf"], ("'-inf'", "infinite")),
    ([*SIM, "--rate", "1e400bps"], ("'1e400bps'", "infinite")),
    ([*SIM, "--switch-buffer", "9" * 400], ("switch_buffer", "maximum")),
    ([*HOST, "--stall-length", "0.5ns", "--stall-period", "1ns"], ("stall_length", "1 ns")),
    ([*HOST, "--stall-length", "0.4ns", "--stall-period", "1ns"], ("4e-10s", "0 ns")),
]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory, built) -> Path:
    """A folder with every file the cases name: a real record, table and fit, and each of
    them broken."""
    d = tmp_path_factory.mktemp("more-bad-inputs")
    for name, text in FILES.items():
        (d / name).write_text(text)
    res = lanloss(["sim", "run", "--rate", "10Mbps", "--duration", "0.05s", "--warmup", "0.01s"], d)
    assert res.returncode == 0, res.stderr
    (d / "good.json").write_text(res.stdout)
    for name, text in _record_files(json.loads(res.stdout)).items():
        (d / name).write_text(text)
    for args in (
        ["table", "--study", "g", "--out", "good.parquet", "good.json"],
        ["fit", "good.parquet", "--out", "good-fit.json", "--bootstrap", "0"],
    ):
        res = lanloss(args, d)
        assert res.returncode == 0, res.stderr
    _table_files(d)
    _fit_files(d)
    (d / "folder.yaml").mkdir()  # a folder where a topology file is named
    return d


def test_the_table_is_big_enough():
    assert len(CASES) >= 40


@pytest.mark.parametrize("args,words", CASES, ids=case_ids(CASES))
def test_bad_input(args, words, workdir, tmp_path):
    assert_refused(args, words, workdir, tmp_path, PREFIX)


def _all_lost_table(d: Path) -> Path:
    """A real table whose every run lost (nearly) everything: corrupt frames at 0.9999."""
    for rate in ("10Mbps", "20Mbps"):
        res = lanloss(
            ["sim", "run", "--rate", rate, "--duration", "0.05s", "--warmup", "0.01s"]
            + ["--frame-loss", "0.9999", "--out", f"lost-{rate}.json"],
            d,
        )
        assert res.returncode == 0, res.stderr
    res = lanloss(
        [
            "table",
            "--study",
            "lost",
            "--out",
            "lost.parquet",
            "lost-10Mbps.json",
            "lost-20Mbps.json",
        ],
        d,
    )
    assert res.returncode == 0, res.stderr
    return d / "lost.parquet"


def test_a_fit_that_describes_nothing_fails_and_plan_refuses_it(tmp_path, built):
    _all_lost_table(tmp_path)
    res = lanloss(["fit", "lost.parquet", "--out", "lost-fit.json", "--bootstrap", "0"], tmp_path)
    assert res.returncode == 1, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "describes nothing" in lines[0] and "lost-fit.json" in lines[0]
    doc = json.loads((tmp_path / "lost-fit.json").read_text())  # written, to be looked at
    assert doc["describes_data"]["ok"] is False
    assert "every run lost" in doc["describes_data"]["reason"]

    res = lanloss(["plan", "--fit", "lost-fit.json", "--rate", "20Mbps"], tmp_path)
    assert res.returncode == 2, res.stderr
    assert res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "describes nothing" in lines[0], res.stderr


def test_a_good_fit_says_it_describes_its_data(workdir):
    doc = json.loads((workdir / "good-fit.json").read_text())
    assert doc["describes_data"] == {"ok": True, "reason": ""}


SWEEP = [
    "sweep",
    "--set",
    "payload=64,128,256",
    "--fixed",
    "rate=10Mbps",
    "--fixed",
    "duration=0.05s",
    "--fixed",
    "warmup=0.01s",
    "--out",
    "runs",
]


def _wait_for(path: Path, text: str) -> None:
    """Until a sweep's stderr says it waits (a sweep blocked on the lock says so once)."""
    for _ in range(6000):
        if text in path.read_text():
            return
        time.sleep(0.01)
    raise AssertionError(f"{path}: never said {text!r}: {path.read_text()!r}")


def test_two_sweeps_into_one_folder_compute_each_point_once(tmp_path, built):
    runs = tmp_path / "runs"
    runs.mkdir()
    lock = os.open(runs / ".lanloss-sweep.lock", os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(lock, fcntl.LOCK_EX)  # the folder is busy: both sweeps must wait for it
    procs, errs = [], []
    try:
        for i in range(2):
            err = tmp_path / f"sweep{i}.err"
            with open(tmp_path / f"sweep{i}.out", "w") as out, open(err, "w") as fh:
                procs.append(
                    subprocess.Popen(
                        [sys.executable, "-m", "lanloss.cli", *SWEEP],
                        cwd=tmp_path,
                        stdout=out,
                        stderr=fh,
                    )
                )
            errs.append(err)
        for err in errs:
            _wait_for(err, "is in use by another sweep; waiting")
    finally:
        os.close(lock)  # let them go: one runs the points, the other finds them done
    for p in procs:
        assert p.wait(timeout=300) == 0
    outs = [(tmp_path / f"sweep{i}.out").read_text() for i in range(2)]
    assert sum(o.count(" running ") for o in outs) == 3, outs  # each point computed once
    assert sum(o.count(" done already: ") for o in outs) == 3, outs
    for err in errs:
        assert err.read_text().count("waiting") == 1  # said once
    records = sorted(p.name for p in runs.glob("*.json"))
    assert len(records) == 3
