# SPDX-License-Identifier: GPL-2.0-only
"""bed_args never reach a shell as syntax, and the results path is carried whole.

bed_args (the config's, or a study's own) are split like a shell would (shlex) and checked
against `lanloss bed run`'s testbed options when the study is checked: run options, --out,
--help and anything that is not an option are refused with one line naming the token. The
workflow passes the tokens on quoted, as it quotes every path in its shell commands.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from snakerun import is_root, snakemake

from lanloss import study

INJECTION = "--help >/dev/null; touch PWNED;"
SMOKE = "name: lltest\nsource: [sim, bed]\nfixed: {duration: 0.3s, warmup: 0.05s}\n"


def study_check(path: Path, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "lanloss.cli", "study", "check", str(path)],
        capture_output=True,
        text=True,
        cwd=cwd,
    )


def yaml_str(text: str) -> str:
    """A YAML double-quoted scalar (JSON's escaping is YAML's)."""
    import json

    return json.dumps(text)


@pytest.mark.parametrize(
    "bed_args,named",
    [
        (INJECTION, "'--help' is not a testbed option"),
        ("--backend netns; touch PWNED", "'touch' is not a testbed option"),
        ("--no-pin && touch PWNED", "'&&' is not a testbed option"),
        ("--rate 10Mbps", "'--rate' is a run option"),
        ("--duration=1s", "'--duration=1s' is a run option"),
        ("--out x.json", "'--out' is not a testbed option"),
        ("-h", "'-h' is not a testbed option"),
        ("--slow-receiver 20%", "'--slow-receiver' is a run option"),
        ("--no-progress", "'--no-progress' is set by the workflow"),
        ("--backend cloud", "invalid choice: 'cloud'"),
        ("--prefix 'a;b'", "--prefix: 'a;b'"),
        ("--inventory 'unclosed", "No closing quotation"),
    ],
)
@pytest.mark.parametrize("where", ["study", "config"])
def test_study_check_refuses_bad_bed_args(tmp_path, bed_args, named, where):
    text = SMOKE + f"bed_args: {yaml_str(bed_args)}\n"
    if where == "config":
        text = "studies: [lltest]\n" + text
    path = tmp_path / "s.yaml"
    path.write_text(text)
    proc = study_check(path, tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "bed_args" in lines[0] and named in lines[0], proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.yaml"]  # no PWNED


def test_testbed_options_pass_as_whole_tokens():
    given = "--backend netns --state-dir '/tmp/st a;te' --no-pin --driver-param=A=1"
    tokens = study.bed_args_tokens(given)
    assert tokens == [
        "--backend",
        "netns",
        "--state-dir",
        "/tmp/st a;te",
        "--no-pin",
        "--driver-param=A=1",
    ]
    assert shlex.split(shlex.join(tokens)) == tokens
    assert study.bed_backend(given) == ("netns", "lanloss", None)


def _configfile(tmp_path: Path, **keys: str) -> str:
    path = tmp_path / "lltest-config.yaml"
    path.write_text("".join(f"{k}: {yaml_str(v)}\n" for k, v in keys.items()))
    return str(path)


def test_workflow_refuses_the_injection_before_any_job(tmp_path):
    cfg = _configfile(tmp_path, bed_args=INJECTION)
    proc = snakemake(
        tmp_path, "-n", "--cores", "1", "--configfile", cfg, config={"studies": ["tiny"]}
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "bed_args: '--help' is not a testbed option" in out, out[-3000:]
    assert not (tmp_path / "PWNED").exists() and not (tmp_path / "results").exists()


def test_workflow_refuses_a_studys_own_bad_bed_args_naming_it(tmp_path):
    (tmp_path / "own.yaml").write_text(SMOKE + f"bed_args: {yaml_str(INJECTION)}\n")
    proc = snakemake(tmp_path, "-n", "--cores", "1", config={"studies": ["own.yaml"]})
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "study own.yaml: bed_args: '--help'" in out, out[-3000:]
    assert not (tmp_path / "PWNED").exists() and not (tmp_path / "results").exists()


@pytest.mark.skipif(not is_root(), reason="the netns testbed's runs are planned only as root")
def test_dry_run_shows_bed_args_quoted(tmp_path):
    state = tmp_path / "st a;te"
    cfg = _configfile(
        tmp_path, bed="on", bed_args=f"--state-dir {shlex.quote(str(state))} --no-pin"
    )
    proc = snakemake(
        tmp_path, "-n", "-p", "--cores", "1", "--configfile", cfg, config={"studies": ["smoke"]}
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    bed_lines = [line for line in out.splitlines() if " bed run " in line]
    assert len(bed_lines) == 2, out[-3000:]
    for line in bed_lines:
        assert f"--state-dir {shlex.quote(str(state))} --no-pin --no-progress" in line
        words = shlex.split(line.split(";", 1)[1].split(" 2>>")[0])  # the bed run command
        assert words[words.index("--state-dir") + 1] == str(state)
    assert not state.exists()


def test_results_with_a_space_runs_whole(tmp_path):
    cfg = _configfile(tmp_path, results="r x", bed="off")
    proc = snakemake(
        tmp_path, "-p", "--cores", "2", "--configfile", cfg, config={"studies": ["tiny"]}
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    assert "--out 'r x/tables/tiny.parquet'" in out
    assert (tmp_path / "r x" / "tables" / "tiny.parquet").is_file()
    assert len(list((tmp_path / "r x" / "runs" / "tiny" / "sim").glob("*.json"))) == 4
    assert not (tmp_path / "r").exists() and not (tmp_path / "x").exists()


@pytest.mark.parametrize(
    "results,named",
    [
        ("r{x}", "results: 'r{x}'"),
        ("-r", "results: '-r' starts with '-'"),
        ("a\tb", "results: 'a\\tb'"),
    ],
)
def test_results_the_rules_cannot_carry_are_refused(tmp_path, results, named):
    cfg = _configfile(tmp_path, results=results)
    proc = snakemake(
        tmp_path, "-n", "--cores", "1", "--configfile", cfg, config={"studies": ["tiny"]}
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert named in out, out[-3000:]
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != ".snakemake") == [
        "lltest-config.yaml"
    ]
