# SPDX-License-Identifier: GPL-2.0-only
"""lanloss.inputs: every way a user's file can be unreadable is one InputError line, and
YAML/JSON are read within limits, without duplicate keys, with keys as written."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import textwrap

import pytest

from lanloss import inputs, topology
from lanloss.inputs import MAX_BYTES, MAX_DEPTH, MAX_NODES, InputError
from lanloss.options import OptionError


def _write(tmp_path, name: str, data: str | bytes):
    path = tmp_path / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return str(path)


def _refused(fn, path: str, what: str = "thing") -> str:
    with pytest.raises(InputError) as info:
        fn(path, what)
    msg = str(info.value)
    assert "\n" not in msg and msg.startswith(f"{what} "), msg
    return msg


# -- the file ---------------------------------------------------------------------------------


def test_an_input_error_is_an_option_error_the_cli_turns_into_exit_2(tmp_path, capsys):
    from lanloss.cli import main

    assert issubclass(InputError, OptionError)
    code = main(["sim", "run", "--host", "modern", "--host-file", str(tmp_path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert err[0] == f"lanloss: error: host file {tmp_path}: is a folder, not a file"


def test_missing_folder_fifo_and_a_file_in_the_path(tmp_path):
    assert _refused(inputs.read_text, str(tmp_path / "no.yaml")).endswith(": does not exist")
    assert _refused(inputs.read_text, str(tmp_path)).endswith(": is a folder, not a file")
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)  # opening it would wait for a writer: refused without opening
    assert "is not a regular file" in _refused(inputs.read_text, str(fifo))
    plain = _write(tmp_path, "plain", "x")
    assert "a part of its path is a file" in _refused(inputs.read_text, plain + "/x.yaml")
    assert "is not a regular file" in _refused(inputs.load_yaml, "/dev/zero")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file of mode 000")
def test_an_unreadable_file(tmp_path):
    path = _write(tmp_path, "secret.yaml", "a: 1\n")
    os.chmod(path, 0)
    assert "cannot read (Permission denied)" in _refused(inputs.read_text, path)


def test_a_file_over_the_limit_is_refused_unread(tmp_path):
    path = tmp_path / "big.yaml"
    with open(path, "wb") as fh:
        fh.truncate(MAX_BYTES + 1)  # sparse: nothing of it is read
    assert _refused(inputs.load_yaml, str(path)).endswith(
        "is 16,777,217 bytes, more than the 16 MiB allowed"
    )
    small = _write(tmp_path, "small.json", "[1, 2, 3]")
    with pytest.raises(InputError, match="9 bytes, more than the 8 bytes allowed"):
        inputs.read_text(small, "thing", limit=8)
    assert inputs.read_text(small, "thing", limit=9) == "[1, 2, 3]"


def test_bytes_that_are_not_utf8_are_named_with_their_offset(tmp_path):
    path = _write(tmp_path, "latin1.yaml", b"name: caf\xe9\n")
    assert _refused(inputs.load_yaml, path).endswith("is not UTF-8 text (byte 0xe9 at offset 9)")
    bom = _write(tmp_path, "bom.json", b'\xef\xbb\xbf{"a": 1}')
    assert inputs.load_json(bom, "thing") == {"a": 1}


def test_a_path_that_is_not_one_printable_line_is_shown_escaped(tmp_path):
    msg = _refused(inputs.read_text, str(tmp_path / "a\nb.yaml"))
    assert "'" + str(tmp_path / "a\\nb.yaml") + "'" in msg


# -- YAML ---------------------------------------------------------------------------------------


def test_duplicate_keys_are_refused_with_the_key_and_line(tmp_path):
    path = _write(tmp_path, "dup.yaml", "hosts:\n  s1: sender\n  r1: receiver\n  s1: host\n")
    assert _refused(inputs.load_yaml, path).endswith(
        "duplicate key 's1' at line 4 (first at line 2)"
    )
    quoted = _write(tmp_path, "dup2.yaml", "on: 1\n'on': 2\n")
    assert "duplicate key 'on' at line 2" in _refused(inputs.load_yaml, quoted)
    merged = _write(tmp_path, "merge.yaml", "base: &b {x: 1, y: 2}\nm: {<<: *b, x: 3}\n")
    assert inputs.load_yaml(merged, "thing")["m"] == {"x": 3, "y": 2}  # a merge may override


def test_plain_keys_stay_the_text_written_and_values_keep_their_types(tmp_path):
    path = _write(
        tmp_path, "keys.yaml", "0x1A: 0x1A\n010: 010\non: on\nyes: 1.5e+3\n~: null\n2024-01-01: x\n"
    )
    assert inputs.load_yaml(path, "thing") == {
        "0x1A": 26,
        "010": 8,
        "on": True,
        "yes": 1500.0,
        "~": None,
        "2024-01-01": "x",
    }
    dated = _write(tmp_path, "date.yaml", "when: 2024-01-01\n")
    assert inputs.load_yaml(dated, "thing") == {"when": "2024-01-01"}  # no date objects


def test_a_topology_keeps_host_names_as_written_and_refuses_numbers_as_names(tmp_path):
    good = _write(
        tmp_path,
        "hex.yaml",
        "switches: [sw1]\nhosts: {0x1A: sender, 010: receiver}\n"
        "links:\n  - ['0x1A', sw1, 1Gbps]\n  - ['010', sw1, 1Gbps]\n",
    )
    assert topology.load(good)["hosts"] == {"0x1A": "sender", "010": "receiver"}
    bare = _write(
        tmp_path,
        "bare.yaml",
        "switches: [sw1]\nhosts: {0x1A: sender, r1: receiver}\n"
        "links:\n  - [0x1A, sw1, 1Gbps]\n  - [r1, sw1, 1Gbps]\n",
    )
    with pytest.raises(OptionError, match="link 1 end name 26 is not text: write it in quotes"):
        topology.load(bare)


def test_depth_is_limited_in_flow_and_block_style(tmp_path):
    ok = _write(tmp_path, "ok.yaml", "[" * MAX_DEPTH + "]" * MAX_DEPTH)
    assert inputs.load_yaml(ok, "thing") is not None
    for name, text in (
        ("flow.yaml", "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)),
        ("block.yaml", "".join("  " * i + "-\n" for i in range(MAX_DEPTH + 1))),
        ("deep.yaml", "[" * 20000),
    ):
        msg = _refused(inputs.load_yaml, _write(tmp_path, name, text))
        assert "nested deeper than 64 levels" in msg or "maximum nesting depth" in msg, msg


def test_aliases_count_as_every_value_they_repeat(tmp_path):
    # a top-level list (1) holding a list of 4 zeros (5), then k aliases of it (5 each)
    k = (MAX_NODES - 6) // 5
    head = "- &x [0, 0, 0, 0]\n"
    exact = head + "- *x\n" * k + "- 0\n" * (MAX_NODES - 6 - 5 * k)
    assert len(inputs.load_yaml(_write(tmp_path, "exact.yaml", exact), "thing")) == 1 + k + (
        MAX_NODES - 6 - 5 * k
    )
    over = _write(tmp_path, "over.yaml", exact + "- 0\n")
    assert f"more than {MAX_NODES:,} values" in _refused(inputs.load_yaml, over)
    loop = _write(tmp_path, "loop.yaml", "a: &x [1, *x]\n")
    assert "alias *x at line 1 is inside the node it names" in _refused(inputs.load_yaml, loop)


BOMB = "".join(
    f"{c}: &{c} [{','.join([f'*{p}'] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi", strict=True)
)
BOMB = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + BOMB


def test_an_alias_bomb_is_refused_under_a_memory_limit(tmp_path):
    """The 361-byte bomb (9**9 values when expanded), through the loader and through the
    files that held one (topology, study): one line each, in a child with 1 GiB of
    address space and 20 s of CPU, where expanding it or printing it would fail."""
    assert len(BOMB) < 400
    path = _write(tmp_path, "bomb.yaml", BOMB)
    topo = _write(tmp_path, "topo.yaml", BOMB.replace("\ni:", "\nswitches:"))
    study = _write(
        tmp_path, "study.yaml", "name: x\n" + BOMB.replace("\ni: ", "\ngrid: {rate: ") + "}"
    )
    code = textwrap.dedent(
        f"""
        from lanloss import inputs, study, topology
        from lanloss.options import OptionError
        for fn, path in ((lambda p: inputs.load_yaml(p, "thing"), {path!r}),
                         (topology.load, {topo!r}), (study.load, {study!r})):
            try:
                fn(path)
            except OptionError as exc:
                print(exc)
        """
    )

    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        resource.setrlimit(resource.RLIMIT_CPU, (20, 20))

    res = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, preexec_fn=limits
    )
    assert res.returncode == 0 and res.stderr == "", res.stderr[-2000:]
    lines = res.stdout.strip().splitlines()
    assert len(lines) == 3, lines
    for line in lines:
        assert f"more than {MAX_NODES:,} values" in line and len(line) < 300, line


def test_tags_outside_json_types_are_refused(tmp_path):
    for text in ("a: !!binary aGVsbG8=\n", "a: !!set {x, y}\n", "a: !!omap [{x: 1}]\n"):
        msg = _refused(inputs.load_yaml, _write(tmp_path, "t.yaml", text))
        assert "is not read" in msg, msg
    evil = _write(tmp_path, "evil.yaml", "a: !!python/object/apply:os.system [true]\n")
    assert "could not determine a constructor" in _refused(inputs.load_yaml, evil)


def test_syntax_errors_and_odd_documents_are_one_line(tmp_path):
    for text, why in (
        (": : :\n", "not valid YAML at line 1"),
        ("a: 1\n---\nb: 2\n", "not valid YAML at line 2"),
        ("a: *nowhere\n", "found undefined alias"),
        ("a: \x00\n", "not valid YAML"),
        ("? [a, b]\n: 1\n", "a key that is a list or mapping at line 1"),
        ("a: " + "9" * 5000 + "\n", "not valid YAML"),
    ):
        assert why in _refused(inputs.load_yaml, _write(tmp_path, "x.yaml", text)), text
    assert inputs.load_yaml(_write(tmp_path, "empty.yaml", ""), "thing") is None


# -- JSON ---------------------------------------------------------------------------------------


def test_json_duplicates_depth_and_syntax(tmp_path):
    dup = _write(tmp_path, "dup.json", '{"sent": 1, "sent": 2}')
    assert _refused(inputs.load_json, dup).endswith("duplicate key 'sent' in one object")
    for text in ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "[" * 20000 + "]" * 20000):
        msg = _refused(inputs.load_json, _write(tmp_path, "deep.json", text))
        assert msg.endswith("nested deeper than 64 levels"), msg
    ok = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert inputs.load_json(_write(tmp_path, "ok.json", ok), "thing") is not None
    bad = _write(tmp_path, "bad.json", '{"a": 1,\n "b": }')
    assert "not valid JSON at line 2: Expecting value" in _refused(inputs.load_json, bad)
    long = _write(tmp_path, "long.json", "9" * 5000)
    assert "not valid JSON" in _refused(inputs.load_json, long)


# -- showing values -------------------------------------------------------------------------


def test_shown_values_are_short_and_built_without_the_whole_repr():
    assert inputs.shown("sw1") == "'sw1'"
    assert len(inputs.shown("x" * 10**6)) <= inputs.SHOWN_CHARS
    row = [0] * 1000
    huge = [row] * 1000  # a repr of millions of characters
    text = inputs.shown(huge)
    assert len(text) <= inputs.SHOWN_CHARS and text.startswith("[[0, 0")
    assert "\n" not in inputs.shown("a\nb")


# -- Parquet ------------------------------------------------------------------------------------


def test_parquet_that_is_not_parquet_or_is_damaged(tmp_path):
    import pandas as pd

    not_pq = _write(tmp_path, "t.parquet", "not parquet\n")
    assert "is not a readable Parquet table" in _refused(inputs.read_parquet, not_pq)
    assert _refused(inputs.read_parquet, str(tmp_path)).endswith("is a folder, not a file")
    good = tmp_path / "good.parquet"
    pd.DataFrame({"a": list(range(100)), "b": ["x"] * 100}).to_parquet(good)
    assert len(inputs.read_parquet(str(good), "table")) == 100
    data = bytearray(good.read_bytes())
    data[-72:-8] = b"\xff" * 64  # a damaged footer (the file's metadata), magic kept
    broken = _write(tmp_path, "broken.parquet", bytes(data))
    assert "is not a readable Parquet table" in _refused(inputs.read_parquet, broken)


# -- the workflow ---------------------------------------------------------------------------------


def _snakemake(tmp_path, *args: str) -> subprocess.CompletedProcess:
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    cmd = [sys.executable, "-m", "snakemake", "-s", f"{repo}/Snakefile", "-d", str(tmp_path)]
    return subprocess.run(
        [*cmd, "-n", "--cores", "1", *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )


def test_the_workflow_reads_its_config_and_study_files_by_the_same_rules(tmp_path):
    (tmp_path / "bomb.yaml").write_text("name: bomb\n" + BOMB)
    proc = _snakemake(tmp_path, "--config", "studies=[bomb.yaml]")
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert f"study bomb.yaml: more than {MAX_NODES:,} values at line 7" in out, out[-3000:]
    (tmp_path / "extra.yaml").write_text("bed: off\nresults: results\nbed: on\n")
    proc = _snakemake(tmp_path, "--configfile", "extra.yaml")
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    why = "extra.yaml: duplicate key 'bed' at line 3 (first at line 1)"
    assert f"config file {tmp_path}/{why}" in out, out[-3000:]
    assert not (tmp_path / "results").exists()
