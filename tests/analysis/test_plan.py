# SPDX-License-Identifier: GPL-2.0-only
"""`lanloss plan`: the highest rate under a loss target, its bottleneck, and --verify."""

from __future__ import annotations

import json

import numpy as np
import pytest
from synthetic_tables import bed_params, draw

from lanloss.analysis import fit
from lanloss.analysis import loss_model as lm
from lanloss.analysis.wire import wire


@pytest.fixture(scope="module")
def fit_file(tmp_path_factory):
    """A small fit (testbed runs drawn from the model) written as `lanloss fit` writes it."""
    rng = np.random.default_rng(4)
    truth = lm.default_theta()
    truth["read_cost"] = 2e-6
    configs = [
        ("bed", bed_params(payload=1472, edge_rate="1Gbps", rate=f"{r}Mbps", duration="0.2s",
                           warmup="0.02s", recv_cpu=10, recv_work="20us"))
        for r in (40, 60, 80, 100)
    ]  # fmt: skip
    doc = fit.fit_table(draw(configs, truth, rng), bootstrap_n=20, study="plan")
    path = tmp_path_factory.mktemp("plan") / "fit.json"
    path.write_text(json.dumps(doc))
    return str(path)


def plan_json(run, fit_file, *args):
    code, out, err = run("plan", "--fit", fit_file, "--json", *args)
    assert code == 0, err
    return json.loads(out)


def test_wire_bound_plan_verified_by_simulation(run, fit_file, built):
    # 1472-byte datagrams from a 1 Gbit/s server into a 100 Mbit/s client, no PAUSE
    out = plan_json(run, fit_file, "--host", "ideal", "--payload", "1472", "--sender-rate",
                    "1Gbps", "--edge-rate", "100Mbps", "--pause", "off", "--loss-target", "1e-4",
                    "--verify", "--no-changes")  # fmt: skip
    a = out["answer"]
    closed = wire(1472).goodput_bps(100e6)  # 95.71 Mbit/s
    assert a["max_rate_bps"] == pytest.approx(closed, rel=2e-4)
    assert a["bottleneck"] == "wire" and a["bottleneck_link"] == "sw1->r1"
    v = out["verify"]
    assert v["ok"]
    at, above = v["points"]
    assert at["measured_loss"] <= 1e-4 < above["measured_loss"]
    assert above["rate_bps"] == pytest.approx(1.1 * a["max_rate_bps"])
    assert above["predicted_loss"] == pytest.approx(above["measured_loss"], abs=0.01)


def test_interrupt_bound_plan_verified_by_simulation(run, fit_file, built):
    # seed 000's receiver before its fix: one interrupt per packet, knee 1/(c_i+c_d+c_a)
    out = plan_json(run, fit_file, "--host", "e1000-2008", "--itr", "0", "--payload", "64",
                    "--loss-target", "1e-4", "--verify", "--verify-duration", "0.3",
                    "--no-changes")  # fmt: skip
    a = out["answer"]
    knee = lm.knee(8e-6, 4e-6, 5e-6)  # 58.8 kpps
    assert a["max_rate_pps"] == pytest.approx(knee, rel=1e-3)
    assert a["bottleneck"] == "interrupts" and a["next_bottleneck"] == "wire"
    assert out["verify"]["ok"], out["verify"]


def test_seed_example_multicast_monitors(run, fit_file):
    """Can 40 monitor clients take 20 Mbit/s of multicast at 64-byte payloads?"""
    args = ("--receivers", "40", "--cast", "multicast", "--payload", "64", "--rate", "20Mbps",
            "--host", "e1000-2008", "--loss-target", "1e-4")  # fmt: skip
    code, text, err = run("plan", "--fit", fit_file, *args)
    assert code == 0, err
    assert "Can it take 20Mbps? yes" in text
    assert "Bottleneck: interrupts" in text  # one interrupt per packet: 30.1 Mbit/s
    assert "itr 2500" in text and "What moves it" in text
    out = plan_json(run, fit_file, *args)
    a = out["answer"]
    assert a["asked_rate_ok"] and a["asked_rate_loss"] == 0.0
    assert a["max_rate_bps"] == pytest.approx(lm.knee(8e-6, 4e-6, 5e-6) * 512, rel=1e-3)
    moves = {m["change"]: m for m in out["what_moves_it"]}
    # ITR 2500 lifts the host above the wire: the 100 Mbit/s sender link binds, 49.2 Mbit/s
    assert moves["itr 2500"]["max_rate_bps"] == pytest.approx(wire(64).goodput_bps(1e8), rel=1e-3)


def test_socket_buffer_bound_with_stalls(run, fit_file):
    out = plan_json(run, fit_file, "--host", "e1000-2008", "--itr", "2500", "--payload", "64",
                    "--stall-period", "50ms", "--stall-length", "5ms")  # fmt: skip
    assert out["answer"]["bottleneck"] == "socket_buffer"
    moves = {m["change"].split(" (")[0]: m for m in out["what_moves_it"]}
    assert moves["rcvbuf x4"]["relative"] > 0.3  # a larger buffer rides out the stalls


def test_the_fit_host_is_the_default(run, fit_file):
    out = plan_json(run, fit_file, "--payload", "1472", "--edge-rate", "1Gbps", "--no-changes")
    assert "calibrated from the testbed" in out["host"]
    # readers capped by the read cost the fit found (2 us + nothing else here): > the wire?
    assert out["answer"]["bottleneck"] in ("wire", "cpu")


@pytest.mark.parametrize(
    "args, named",
    [
        (["--payload", "70000"], "payload"),
        (["--itr", "-5"], "itr"),
        (["--host", "nosuch"], "nosuch"),
        (["--loss-target", "2"], "loss-target"),
        (["--protocol", "tcp"], "protocol"),
        (["--rcvbuf", "lots"], "rcvbuf"),
    ],
)
def test_bad_what_ifs_are_refused_naming_them(run, fit_file, args, named):
    code, out, err = run("plan", "--fit", fit_file, *args)
    assert code == 2, err
    assert named in err and len(err.strip().splitlines()) == 1 and not out


def test_bad_what_if_through_the_console_command(cli, fit_file):
    r = cli("plan", "--fit", fit_file, "--payload", "70000")
    assert r.returncode == 2 and "payload" in r.stderr and not r.stdout


def test_a_missing_or_foreign_fit_is_refused(run, tmp_path):
    code, _, err = run("plan", "--fit", tmp_path / "none.json")
    assert code == 2 and "none.json" in err
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"schema": "something/1"}))
    code, _, err = run("plan", "--fit", other)
    assert code == 2 and "other.json" in err
