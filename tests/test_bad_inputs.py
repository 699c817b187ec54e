# SPDX-License-Identifier: GPL-2.0-only
"""The bad-input table: every user-facing command answers a bad input with exit 2 and one
line on stderr naming the value, no traceback, nothing written and (testbed) nothing
touched: no journal, no namespace.

Each case runs the real `lanloss` command in a folder holding the files it names; the
folder's contents before and after must be the same.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cli_checks import assert_refused, broken_copies, case_ids, lanloss

PREFIX = "lltb-bad-"  # testbed cases: no namespace of this prefix may appear

TOPO_OK = "switches: [sw1]\nhosts: {s1: sender, r1: receiver}\n"
LINKS_OK = "links:\n  - [s1, sw1, 100Mbps]\n  - [r1, sw1, 100Mbps]\n"
FILES: dict[str, str] = {
    "afile": "a plain file\n",
    "topo-switches-str.yaml": "switches: sw1\nhosts: {s1: sender, r1: receiver}\n" + LINKS_OK,
    "topo-hosts-list.yaml": "switches: [sw1]\nhosts: [s1, r1]\n" + LINKS_OK,
    "topo-links-map.yaml": TOPO_OK + "links: {s1: sw1}\n",
    "topo-flows-map.yaml": TOPO_OK + LINKS_OK + "flows: {s1: r1}\n",
    "topo-disconnected.yaml": "switches: [sw1, swx]\nhosts: {s1: sender, r1: receiver}\n"
    + LINKS_OK,
    "topo-semicolon.yaml": "switches: [sw1]\nhosts: {'s1;rm': sender, r1: receiver}\n"
    "links:\n  - ['s1;rm', sw1, 100Mbps]\n  - [r1, sw1, 100Mbps]\n",
    "topo-space.yaml": "switches: ['sw 1']\nhosts: {s1: sender, r1: receiver}\n"
    "links:\n  - [s1, 'sw 1', 100Mbps]\n  - [r1, 'sw 1', 100Mbps]\n",
    "topo-rate.yaml": TOPO_OK + "links:\n  - [s1, sw1, 1e30bps]\n  - [r1, sw1, 100Mbps]\n",
    "topo-role.yaml": "switches: [sw1]\nhosts: {s1: [sender], r1: receiver}\n" + LINKS_OK,
    "topo-self.yaml": TOPO_OK + LINKS_OK + "flows: [{from: s1, to: s1}]\n",
    "topo-yaml.yaml": ": : :\n",
    "host-list.yaml": "- cores: 2\n",
    "host-key.yaml": "name: mine\nbase: modern\nspeed: 3\n",
    "inv-list.yaml": "- a\n- b\n",
    "inv-hl.yaml": "hosts: [a, b]\n",
    "study-empty.yaml": "",
    "study-list.yaml": "- name: x\n",
    "study-figure.yaml": "name: x\nfigures: [seed999]\n",
    "study-pause.yaml": "name: x\nsource: [sim, bed]\ngrid: {pause: [off, on]}\n",
    "study-option.yaml": "name: x\ngrid: {speed: [1]}\n",
    "study-rate.yaml": "name: x\ngrid: {rate: [1e30bps]}\n",
    "study-ssh.yaml": "name: x\nbed_args: --backend ssh\nsource: [bed]\n"
    "grid: {switch_buffer: [1MiB]}\n",
    "study-topology.yaml": "name: x\ngrid: {topology: [topo-disconnected.yaml]}\n",
    "not-json.json": "{ not json",
    "list.json": "[1, 2]\n",
    "not-parquet.parquet": "not a parquet file\n",
}


def _record_files(good: dict) -> dict[str, str]:
    """Run records broken one field at a time (from a real record)."""
    return broken_copies(
        good,
        {
            "rec-sent-many.json": lambda d: d["totals"].__setitem__("sent", "many"),
            "rec-flow-field.json": lambda d: d["flows"][0].__setitem__("colour", "red"),
            "rec-drops.json": lambda d: d["drops"].__setitem__("switch_egress", -0.5),
            "rec-schema.json": lambda d: d.__setitem__("schema", "lanloss.run/9"),
            "rec-no-totals.json": lambda d: d.pop("totals"),
            "rec-param.json": lambda d: d["params"].__setitem__("rate", "fast"),
        },
    )


# (args, the word the one line must contain). {PREFIX} is the testbed prefix.
CASES: list[tuple[list[str], str]] = [
    # sim run
    (["sim", "run", "--rate", "1e30bps"], "1e30bps"),
    (["sim", "run", "--duration", "1e12s"], "1e12s"),
    (["sim", "run", "--rate", "0.1bps"], "0.1bps"),
    (["sim", "run", "--switch-buffer", "5GiB"], "5GiB"),
    (["sim", "run", "--tx-queue", "10"], "10"),
    (["sim", "run", "--seed", "0"], "seed"),
    (["sim", "run", "--receivers", "5000"], "5000"),
    (["sim", "run", "--frame-loss", "1.5"], "1.5"),
    (["sim", "run", "--protocol", "tcp", "--tcp-window", "1KiB"], "1KiB"),
    (["sim", "run", "--host", "modern", "--reuseport", "maybe"], "maybe"),
    (
        [
            "sim",
            "run",
            "--host",
            "modern",
            "--readers",
            "2",
            "--reuseport",
            "on",
            "--cast",
            "multicast",
        ],
        "reuseport",
    ),  # fmt: skip
    (["sim", "run", "--host", "modern", "--reader-cores", "some"], "some"),
    (["sim", "run", "--host", "modern", "--read-byte-cost", "-1ns"], "-1ns"),
    (["sim", "run", "--send-packet-cost", "fast"], "fast"),
    (["calibrate", "modern"], "modern"),
    (["sim", "run", "--pcap", "afile"], "afile"),
    (["sim", "run", "--out", "afile/run.json"], "afile"),
    (["sim", "run", "--out", "adir"], "adir"),
    (["sim", "run", "--topology", "topo-switches-str.yaml"], "sw1"),
    (["sim", "run", "--topology", "topo-hosts-list.yaml"], "hosts"),
    (["sim", "run", "--topology", "topo-links-map.yaml"], "links"),
    (["sim", "run", "--topology", "topo-flows-map.yaml"], "flows"),
    (["sim", "run", "--topology", "topo-disconnected.yaml"], "swx"),
    (["sim", "run", "--topology", "topo-semicolon.yaml"], "s1;rm"),
    (["sim", "run", "--topology", "topo-space.yaml"], "sw 1"),
    (["sim", "run", "--topology", "topo-rate.yaml"], "1e30bps"),
    (["sim", "run", "--topology", "topo-role.yaml"], "s1"),
    (["sim", "run", "--topology", "topo-self.yaml"], "s1 -> s1"),
    (["sim", "run", "--topology", "topo-yaml.yaml"], "topo-yaml.yaml"),
    (["plan", "--fit", "good-fit.json", "--topology", "topo-self.yaml"], "s1 -> s1"),
    (["sim", "run", "--host-file", "host-list.yaml", "--host", "modern"], "host-list.yaml"),
    (["sim", "run", "--host-file", "host-key.yaml"], "speed"),
    (["sim", "run", "--host-file", "missing.yaml"], "missing.yaml"),
    # sweep
    (["sweep", "--set", "payload=64", "--set", "payload=128", "--out", "o"], "payload"),
    (["sweep", "--set", "payload=64", "--fixed", "payload=128", "--out", "o"], "payload"),
    (["sweep", "--fixed", "duration=1s,2s", "--out", "o"], "duration"),
    (["sweep", "--set", "rate=1e30bps", "--out", "o"], "1e30bps"),
    (["sweep", "--set", "speed=1", "--out", "o"], "speed"),
    (["sweep", "--set", "payload=64", "--out", "afile"], "afile"),
    (["sweep", "--set", "topology=topo-disconnected.yaml", "--out", "o"], "swx"),
    (["sweep", "--source", "bed", "--set", "pause=off,on", "--out", "o"], "pause"),
    # bed run / check (netns and ssh), inventories
    (["bed", "run", "--prefix", PREFIX, "--pause", "on"], "pause"),
    (["bed", "check", "--prefix", PREFIX, "--itr", "2500"], "itr"),
    (["bed", "run", "--prefix", PREFIX, "--rx-ring", "256"], "rx_ring"),
    (["bed", "run", "--prefix", PREFIX, "--topology", "topo-disconnected.yaml"], "swx"),
    (["bed", "run", "--prefix", PREFIX, "--topology", "topo-semicolon.yaml"], "s1;rm"),
    (["bed", "run", "--prefix", PREFIX, "--topology", "topo-switches-str.yaml"], "sw1"),
    (["bed", "run", "--prefix", PREFIX, "--rate", "1e30bps"], "1e30bps"),
    (["bed", "run", "--prefix", PREFIX, "--out", "afile/run.json"], "afile"),
    (["bed", "run", "--prefix", "a;b"], "a;b"),
    (["bed", "check", "--prefix", PREFIX, "--slow-receiver", "abc"], "abc"),
    (["bed", "check", "--prefix", PREFIX, "--backend", "ssh"], "--inventory"),
    (
        ["bed", "run", "--prefix", PREFIX, "--backend", "ssh", "--inventory", "inv-list.yaml"],
        "inv-list.yaml",
    ),
    (
        ["bed", "check", "--prefix", PREFIX, "--backend", "ssh", "--inventory", "inv-hl.yaml"],
        "inv-hl.yaml",
    ),
    (["bed", "run", "--prefix", PREFIX, "--state-dir", "afile"], "afile"),
    (["bed", "restore", "--prefix", PREFIX, "--state-dir", "afile"], "afile"),
    (["bed", "restore", "--prefix", "a/b"], "a/b"),
    (["bed", "cleanup", "--prefix", "a/b"], "a/b"),
    # table
    (["table", "--study", "x", "--out", "t.parquet", "rec-sent-many.json"], "totals.sent"),
    (["table", "--study", "x", "--out", "t.parquet", "rec-flow-field.json"], "colour"),
    (["table", "--study", "x", "--out", "t.parquet", "rec-drops.json"], "switch_egress"),
    (["table", "--study", "x", "--out", "t.parquet", "rec-schema.json"], "lanloss.run/9"),
    (["table", "--study", "x", "--out", "t.parquet", "rec-no-totals.json"], "totals"),
    (["table", "--study", "x", "--out", "t.parquet", "rec-param.json"], "params.rate"),
    (["table", "--study", "x", "--out", "t.parquet", "not-json.json"], "not-json.json"),
    (["table", "--study", "x", "--out", "t.parquet", "missing.json"], "missing.json"),
    (["table", "--study", "x", "--out", "adir", "good.json"], "adir"),
    # fit
    (["fit", "empty-runs.parquet", "--out", "f.json"], "empty-runs.parquet"),
    (["fit", "missing.parquet", "--out", "f.json"], "missing.parquet"),
    (["fit", "not-parquet.parquet", "--out", "f.json"], "not-parquet.parquet"),
    (["fit", "good.parquet", "--out", "f.json", "--bootstrap", "-1"], "-1"),
    (["fit", "good.parquet", "--out", "f.json", "--level", "2"], "2"),
    (["fit", "good.parquet", "--out", "afile/f.json"], "afile"),
    (["fit", "good.parquet", "--out", "f.json", "--seed", "-5"], "-5"),
    # plan
    (["plan", "--fit", "unfitted.json"], "unfitted.json"),
    (["plan", "--fit", "list.json"], "list.json"),
    (["plan", "--fit", "not-json.json"], "not-json.json"),
    (["plan", "--fit", "good-fit.json", "--loss-target", "2"], "2"),
    (["plan", "--fit", "good-fit.json", "--payload", "abc"], "abc"),
    (["plan", "--fit", "good-fit.json", "--topology", "topo-disconnected.yaml"], "swx"),
    # study check
    (["study", "check", "study-empty.yaml"], "study-empty.yaml"),
    (["study", "check", "study-list.yaml"], "study-list.yaml"),
    (["study", "check", "study-figure.yaml"], "seed999"),
    (["study", "check", "study-pause.yaml"], "pause"),
    (["study", "check", "study-option.yaml"], "speed"),
    (["study", "check", "study-rate.yaml"], "1e30bps"),
    (["study", "check", "study-ssh.yaml"], "switch_buffer"),
    (["study", "check", "study-topology.yaml"], "swx"),
    # figures
    (["figures", "seed999"], "seed999"),
    (["figures", "seed001", "--table", "missing.parquet", "--out", "d"], "missing.parquet"),
    (["figures", "seed001", "--table", "good.parquet", "--out", "afile"], "afile"),
    (
        ["figures", "seed001", "--table", "good.parquet", "--fit", "good.json", "--out", "d"],
        "good.json",
    ),
]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory, built) -> Path:
    """A folder with every file the cases name: broken ones, and a real record, table and
    fit to break."""
    d = tmp_path_factory.mktemp("bad-inputs")
    (d / "adir").mkdir()
    for name, text in FILES.items():
        (d / name).write_text(text)
    env = {**os.environ}
    res = lanloss(
        ["sim", "run", "--rate", "10Mbps", "--duration", "0.05s", "--warmup", "0.01s"], d, env
    )
    assert res.returncode == 0, res.stderr
    good = json.loads(res.stdout)
    (d / "good.json").write_text(res.stdout)
    for name, text in _record_files(good).items():
        (d / name).write_text(text)
    empty = json.loads(res.stdout)
    for f in empty["flows"]:
        f.update(sent=0, received=0, lost=0)
    empty["totals"].update(sent=0, received=0)
    (d / "nothing-sent.json").write_text(json.dumps(empty))
    for args in (
        ["table", "--study", "g", "--out", "good.parquet", "good.json"],
        ["table", "--study", "e", "--out", "empty-runs.parquet", "nothing-sent.json"],
        ["fit", "good.parquet", "--out", "good-fit.json", "--bootstrap", "0"],
    ):
        res = lanloss(args, d, env)
        assert res.returncode == 0, res.stderr
    fit = json.loads((d / "good-fit.json").read_text())
    fit["data"]["runs"] = {k: 0 for k in fit["data"]["runs"]}
    (d / "unfitted.json").write_text(json.dumps(fit))
    return d


def test_the_table_is_big_enough():
    assert len(CASES) >= 40


@pytest.mark.parametrize("args,word", CASES, ids=case_ids(CASES))
def test_bad_input(args, word, workdir, tmp_path):
    assert_refused(args, (word,), workdir, tmp_path, PREFIX)
