# SPDX-License-Identifier: GPL-2.0-only
"""`lanloss table`: run records -> Parquet, one row per run and flow."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pandas as pd
import pytest

from lanloss import options, sim
from lanloss.analysis import tables
from lanloss.record import DROP_POINTS, RunRecord, dump_json, empty_drops


@pytest.fixture(scope="module")
def sim_runs(tmp_path_factory, built):
    """Two real simulator records: one loses at the switch, one (rate max) does not pace."""

    def run_cli(*args, check):
        subprocess.run([sys.executable, "-m", "lanloss.cli", *args], check=check,
                       capture_output=True)  # fmt: skip

    d = tmp_path_factory.mktemp("runs")
    (d / "sub").mkdir()
    a, b = d / "a.json", d / "sub" / "b.json"
    run_cli("sim", "run", "--sender-rate", "1Gbps", "--rate", "150Mbps", "--duration", "0.1s",
            "--warmup", "0.01s", "--out", str(a), check=True)  # fmt: skip
    run_cli("sim", "run", "--rate", "max", "--payload", "576", "--duration", "0.05s",
            "--warmup", "0.01s", "--out", str(b), check=True)  # fmt: skip
    return d, a, b


def multicast_record(n: int) -> RunRecord:
    """A testbed-shaped multicast record built in code: one sender, n receivers."""
    flows = []
    for j in range(n):
        drops = empty_drops()
        drops["socket_rcvbuf"] = j
        flows.append(
            dict(sender="s1", receiver=f"r{j + 1}", sent=1000, received=1000 - j, lost=j,
                 goodput_bps=1e6, latency_us={"p50": 10.0, "p99": 20.0, "max": 30.0},
                 loss_runs={"count": 1 if j else 0, "mean": float(j), "max": j}, drops=drops)
        )  # fmt: skip
    params = options.resolve({"receivers": str(n), "payload": "64", "rate": "20Mbps"}, "bed")
    params["cast"] = "multicast"
    params["future_option"] = 7  # a newer lanloss's option: flattened as it is
    data = {
        "schema": "lanloss.run/1",
        "source": "bed",
        "params": params,
        "env": {"hosts": {"r2": {"cpu_limit": {"quota_enforced": False}}}},
        "flows": flows,
        "totals": {"offered_bps": 20e6, "offered_pps": 39062.5, "sent": 1000 * n,
                   "received": 1000 * n - sum(range(n)), "loss": 0.0, "goodput_bps": n * 1e6,
                   "achieved_send_bps": 19.9e6},
        "drops": {**empty_drops(), "socket_rcvbuf": sum(range(n))},
        "pause": {},
        "timing": {"wall_s": 1.5},
        "cpu": {"r1": {"irq": 0.1, "softirq": 0.2, "app": 0.3, "idle": 0.4}},
    }  # fmt: skip
    return data


def test_columns_documented_and_complete():
    cols = tables.columns()
    for name in ("study", "source", "backend", "point", "run_file", "rate_max", "sender",
                 "receiver", "loss", "latency_p99_us", "loss_runs_mean", "offered_pps",
                 "achieved_send_bps", "pause_frames_sent", "wall_s", "cpu_softirq"):  # fmt: skip
        assert name in cols and name in tables.__doc__
    assert all(o.name in cols for o in options.OPTIONS)
    assert all(f"drop_{p}" in cols for p in DROP_POINTS)
    assert len(cols) == len(set(cols))


def test_sim_records_to_parquet(sim_runs, cli, tmp_path):
    d, a, b = sim_runs
    out = tmp_path / "t.parquet"
    r = cli("table", "--study", "demo", "--out", str(out), str(d))  # a folder, recursively
    assert r.returncode == 0, r.stderr
    df = pd.read_parquet(out)
    assert len(df) == 2 and list(df.columns[: len(tables.columns())]) == tables.columns()
    ra = df[df["point"] == "a"].iloc[0]
    rec = json.loads(a.read_text())
    f = rec["flows"][0]
    assert ra["study"] == "demo" and ra["source"] == "sim" and ra["run_file"] == str(a)
    assert pd.isna(ra["backend"])  # a testbed's only
    assert ra["rate"] == 150e6 and not ra["rate_max"] and ra["sender_rate"] == 1e9
    assert (ra["sent"], ra["received"], ra["lost"]) == (f["sent"], f["received"], f["lost"])
    assert ra["loss"] == pytest.approx(f["lost"] / f["sent"]) and ra["loss"] > 0.25
    assert ra["drop_switch_egress"] == f["drops"]["switch_egress"] == ra["lost"]
    assert ra["sent"] == ra["received"] + sum(ra[f"drop_{p}"] for p in DROP_POINTS)
    assert ra["latency_p99_us"] == f["latency_us"]["p99"]
    assert ra["offered_pps"] == rec["totals"]["offered_pps"] and math.isnan(ra["cpu_irq"])
    assert ra["achieved_send_bps"] == pytest.approx(150e6, rel=1e-6)  # a paced source on time
    assert ra["offered_met"] == 1.0
    rb = df[df["point"] == "b"].iloc[0]
    assert rb["rate_max"] and math.isnan(rb["rate"]) and rb["payload"] == 576
    assert df["pause"].dtype == "string" and df["rcvbuf"].dtype == "float64"


def test_multicast_record_gives_a_row_per_receiver(tmp_path):
    path = tmp_path / "mc.json"
    path.write_text(dump_json(multicast_record(5)))
    df = tables.build([str(path)], "mc")
    assert len(df) == 5 and list(df["receiver"]) == [f"r{j}" for j in range(1, 6)]
    assert list(df["lost"]) == [0, 1, 2, 3, 4] and list(df["drop_socket_rcvbuf"]) == [0, 1, 2, 3, 4]
    assert (df["cast"] == "multicast").all() and (df["n_flows"] == 5).all()
    assert df.loc[0, "cpu_softirq"] == 0.2 and math.isnan(df.loc[1, "cpu_softirq"])
    assert df.loc[1, "recv_cpu_enforced"] == 0.0 and math.isnan(df.loc[0, "recv_cpu_enforced"])
    assert (df["achieved_send_bps"] == 19.9e6).all()
    assert math.isnan(df.loc[0, "pause_frames_sent"])  # the record has no count
    assert (df["future_option"] == 7.0).all()


def test_time_squeeze_comes_from_a_receiver_with_a_kernel_of_its_own(tmp_path):
    """softnet_stat is per kernel: a guest's or a lab host's own count (zero when the record
    left it out), NaN for a namespace receiver, whose count is the harness machine's."""
    data = multicast_record(3)
    data["env"]["backend"] = "vm"
    data["env"]["topology"] = {"hosts": {"r1": {"guest": "e1000"}, "r3": {"netns": "x-r3"}}}
    squeezed = {"softnet": {"processed": 9, "time_squeeze": 4}}
    unsqueezed = {"softnet": {"processed": 9}}
    data["extra"] = {"counters": {"r1": squeezed, "r2": unsqueezed, "r3": squeezed}}
    path = tmp_path / "vm.json"
    path.write_text(dump_json(data))
    df = tables.build([str(path)], "vm")
    assert list(df["rx_time_squeeze"][:2]) == [4.0, 0.0] and math.isnan(df["rx_time_squeeze"][2])
    assert (df["backend"] == "vm").all()
    data["env"]["backend"] = "netns"
    path.write_text(dump_json(data))
    assert tables.build([str(path)], "netns")["rx_time_squeeze"].isna().all()


def test_reader_wakeups_are_the_receivers_sleeps_per_datagram_read(tmp_path, built):
    """Testbed: lanloss-recv's voluntary context switches over the datagrams it received (a
    receiver without a report: NaN). Simulator: its readers' wake-ups over their reads."""
    data = multicast_record(2)
    data["extra"] = {
        "tool_reports": {"receivers": {"r1": {"received": 400, "scheduling": {"nvcsw": 100}}}}
    }
    path = tmp_path / "bed.json"
    path.write_text(dump_json(data))
    df = tables.build([str(path)], "bed")
    assert df["rx_reader_wakeups"][0] == 0.25 and math.isnan(df["rx_reader_wakeups"][1])
    given = {"host": "e1000-2008", "payload": "64", "rate": "51200bps", "duration": "0.2s"}
    rec = sim.run_point(options.resolve(given, "sim"), None)
    path = tmp_path / "sim.json"
    path.write_text(dump_json(rec.to_dict()))
    reader = rec.extra["hosts"]["r1"]["readers"][0]
    assert reader["wakeups"] == reader["reads"] > 0  # 100 datagrams a second: each wakes it
    assert tables.build([str(path)], "sim")["rx_reader_wakeups"][0] == 1.0


def test_bad_records_are_refused_naming_them(run, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"schema": "lanloss.run/9", "source": "sim"}))
    out = tmp_path / "t.parquet"
    code, _, err = run("table", "--study", "x", "--out", out, bad)
    assert code == 2 and "bad.json" in err and "lanloss.run/9" in err
    assert len(err.strip().splitlines()) == 1 and not out.exists()
    code, _, err = run("table", "--study", "x", "--out", out, tmp_path / "missing.json")
    assert code == 2 and "missing.json" in err and not out.exists()


def test_columns_flag(run):
    code, out, _ = run("table", "--columns")
    assert code == 0 and out.split() == tables.columns()
