# SPDX-License-Identifier: GPL-2.0-only
"""Studies: the schema is derived from the vocabulary, grids expand to exactly the points
they name, every point is resolved for its source, and bad studies are named in one line."""

from __future__ import annotations

import subprocess
import sys

import pytest
import yaml
from snakerun import REPO, STUDIES

from lanloss import options, study
from lanloss.sweep import point_id

SCHEMA_FILE = REPO / "workflow" / "schemas" / "study.schema.yaml"


def test_schema_file_is_generated_from_the_vocabulary():
    assert SCHEMA_FILE.read_text() == study.schema_yaml(), (
        "regenerate: .venv/bin/lanloss study schema > workflow/schemas/study.schema.yaml"
    )


def test_schema_knows_every_option_and_only_those():
    s = study.schema()
    names = {o.name for o in options.OPTIONS}
    assert set(s["$defs"]["option"]) == names
    assert set(s["$defs"]["fixed"]["properties"]) == names
    assert set(s["$defs"]["grid"]["properties"]) == names | {"source", "sim", "bed"}


def test_choices_in_the_schema_are_the_vocabulary_choices():
    s = study.schema()["$defs"]["option"]
    for o in options.OPTIONS:
        if o.kind == "choice":
            assert set(o.choices) <= set(s[o.name]["enum"])


def test_defaults_are_filled():
    st = study.from_mapping({"name": "d", "grid": {"rate": ["20Mbps"]}})
    assert (st.description, st.sources) == ("", ("sim",))
    assert st.repetitions == study.Repetitions.fixed(1) and st.later == []
    assert (st.fixed, st.figures, st.fit) == ({}, [], False)
    assert len(st.points) == 1 and st.points[0].given == {"rate": "20Mbps", "seed": "1"}


def test_grid_is_the_cross_product_times_repetitions_per_source():
    st = study.from_mapping(
        {
            "name": "x",
            "source": ["sim", "bed"],
            "repetitions": 3,
            "fixed": {"duration": "0.2s"},
            "grid": {"rate": ["20Mbps", "90Mbps"], "payload": [64, 1472]},
        }
    )
    for src in ("sim", "bed"):
        pts = st.points_for(src)
        assert len(pts) == 2 * 2 * 3
        assert len({p.id for p in pts}) == 12
        combos = {(p.given["rate"], p.given["payload"], p.given["seed"]) for p in pts}
        assert combos == {
            (r, p, s) for r in ("20Mbps", "90Mbps") for p in ("64", "1472") for s in "123"
        }
        for p in pts:
            assert p.given["duration"] == "0.2s"
            assert p.params == options.resolve(p.given, src)
            assert p.id == point_id(p.params)
    # the same point has the same id in the simulator and on the testbed
    assert {p.id for p in st.points_for("sim")} == {p.id for p in st.points_for("bed")}


def test_grids_are_unioned_and_an_entry_may_restrict_its_sources():
    st = study.from_mapping(
        {
            "name": "u",
            "source": ["sim", "bed"],
            "grids": [
                {"rate": ["20Mbps", "40Mbps"]},
                {"source": ["bed"], "rate": ["40Mbps"], "recv_cpu": [20, 50]},
            ],
        }
    )
    assert len(st.points_for("sim")) == 2
    assert len(st.points_for("bed")) == 4
    assert sorted(p.given.get("recv_cpu", "-") for p in st.points_for("bed")) == [
        "-",
        "-",
        "20",
        "50",
    ]


def test_varied_options_are_those_that_tell_points_apart():
    st = study.from_mapping(
        {
            "name": "v",
            "source": ["sim", "bed"],
            "repetitions": 2,
            "fixed": {"payload": 1472},
            "grids": [
                {"rate": ["20Mbps", "40Mbps"], "pattern": ["cbr"]},
                {"source": ["bed"], "rate": ["40Mbps"], "recv_cpu": [20]},
            ],
        }
    )
    assert st.varied_options() == ["rate", "recv_cpu"]  # not payload, pattern, seed


def test_duplicate_points_run_once():
    st = study.from_mapping(
        {"name": "dup", "grids": [{"rate": ["20Mbps"]}, {"rate": ["20000000", "20Mbps"]}]}
    )
    assert len(st.points) == 1


def test_seed_in_the_grid_replaces_repetitions():
    st = study.from_mapping({"name": "s", "grid": {"seed": [3, 4]}})
    assert sorted(p.params["seed"] for p in st.points) == [3, 4]


def test_yaml_bare_off_on_are_pause_values():
    data = yaml.safe_load("name: p\ngrid:\n  pause: [off, on]\n")
    assert data["grid"]["pause"] == [False, True]  # YAML 1.1
    st = study.from_mapping(data)
    assert sorted(p.params["pause"] for p in st.points) == ["off", "on"]
    assert all(p.cli_args()[p.cli_args().index("--pause") + 1] in ("off", "on") for p in st.points)


def test_cli_args_are_the_points_flags():
    st = study.from_mapping(
        {"name": "f", "fixed": {"sender_rate": "1Gbps"}, "grid": {"rate": ["150Mbps"]}}
    )
    assert st.points[0].cli_args() == ["--sender-rate", "1Gbps", "--rate", "150Mbps", "--seed", "1"]


@pytest.mark.parametrize(
    "path", [REPO / "config" / "config.yaml", *sorted(STUDIES.glob("*.yaml"))], ids=lambda p: p.name
)
def test_shipped_studies_are_valid(path):
    st = study.load(path)
    assert st.points and st.name == (path.stem if path.parent == STUDIES else "default")


BAD = [
    ("name: b\ngrid: {rate: [20Mbps], colour: [red]}\n", "unknown option 'colour'"),
    ("name: b\nfixed: {colour: red}\n", "unknown option 'colour'"),
    ("name: b\nrepetitons: 2\n", "unknown key 'repetitons'"),
    ("name: b\nsource: [sim, cloud]\n", "'cloud'"),
    ("name: b\ngrid: {pause: [maybe]}\n", "'maybe'"),
    ("name: b\ngrid: {payload: [70000]}\n", "70000"),
    ("name: b\ngrid: {rate: [fastMbps]}\n", "fastMbps"),
    ("name: b\ngrid: {rate: 20Mbps}\n", "'20Mbps' is not of type 'array'"),
    ("name: b\ngrid: {recv_cpu: [20]}\n", "recv_cpu: 20 needs a host model"),
    ("name: b\ngrid: {rate: [1M], sim: {sndbuf: 1000}}\n", "sndbuf: not supported by source 'sim'"),
    ("name: b\nfixed: {duration: 1s, warmup: 2s}\n", "warmup"),
    ("name: B!\n", "'B!'"),
    ("name: b\ngrid: {rate: [1M]}\ngrids: [{rate: [2M]}]\n", "either grid or grids"),
    ("name: b\nsource: [sim]\ngrids: [{source: [bed], rate: [1M]}]\n", "'bed' is not among"),
    ("name: b\nrepetitions: 2\ngrid: {seed: [1, 2]}\n", "repetitions 2"),
    ("name: b\ngrid: {rate: [1M\n", "not valid YAML"),
]


@pytest.mark.parametrize("text,named", BAD, ids=[b[1][:30] for b in BAD])
def test_bad_study_is_one_line_naming_it_exit_2(tmp_path, text, named):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    proc = subprocess.run(
        [sys.executable, "-m", "lanloss.cli", "study", "check", str(path)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert named in lines[0] and "bad.yaml" in lines[0]


def test_points_command_lists_every_run(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "lanloss.cli", "study", "points", str(STUDIES / "smoke.yaml")],
        capture_output=True,
        text=True,
        check=True,
    )
    rows = [line.split("\t") for line in proc.stdout.splitlines()]
    st = study.load(STUDIES / "smoke.yaml")
    assert [(r[0], r[1]) for r in rows] == [(p.source, p.id) for p in st.points]


@pytest.mark.parametrize(
    "mode,args,euid,runs",
    [
        ("auto", "", 0, True),
        ("auto", "", 1000, False),
        ("auto", "--backend ssh --inventory h.yaml", 1000, True),
        ("auto", "--backend=ssh", 1000, True),
        (False, "", 0, False),  # bare YAML off
        ("off", "", 0, False),
        ("on", "", 0, True),
    ],
)
def test_bed_decision(mode, args, euid, runs):
    run, why = study.bed_decision(mode, args, euid)
    assert run is runs
    assert (why == "") is runs
    if euid and not runs:
        assert "root" in why


def test_bed_on_without_root_is_an_error():
    with pytest.raises(study.StudyError, match="needs root"):
        study.bed_decision("on", "", 1000)


CONFIG_README = (REPO / "config" / "README.md").read_text()


def test_config_readme_explains_every_key():
    wf_schema = yaml.safe_load((REPO / "workflow" / "schemas" / "config.schema.yaml").read_text())
    keys = [*study.schema()["properties"], *wf_schema["properties"]]
    assert set(wf_schema["properties"]) == set(study.WORKFLOW_KEYS)
    missing = [k for k in keys if f"| `{k}` |" not in CONFIG_README]
    assert not missing, f"config/README.md does not explain {missing}"


def test_config_readme_example_is_a_valid_study():
    example = CONFIG_README.split("## Example", 1)[1].split("```yaml\n", 1)[1].split("```")[0]
    st = study.from_mapping(yaml.safe_load(example), "config/README.md example")
    assert len(st.points_for("sim")) == len(st.points_for("bed")) == 4 * 2 * 3


def test_an_entry_may_give_options_to_one_source_only():
    st = study.from_mapping(
        {
            "name": "u",
            "source": ["sim", "bed"],
            "grid": {"rate": ["40Mbps"], "recv_cpu": [20], "sim": {"host": "netns"}},
        }
    )
    (s,) = st.points_for("sim")
    (b,) = st.points_for("bed")
    assert s.params["host"] == "netns" and s.params["recv_cpu"] == 20
    assert "host" not in b.given and b.params["recv_cpu"] == 20


def test_an_option_the_other_source_lacks_is_still_refused_where_it_runs():
    with pytest.raises(study.StudyError, match="pause"):
        study.from_mapping(
            {"name": "u", "source": ["sim", "bed"],
             "grid": {"rate": ["40Mbps"], "bed": {"pause": "on", "host": "netns"}}}
        )  # fmt: skip
