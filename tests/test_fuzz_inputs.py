# SPDX-License-Identifier: GPL-2.0-only
"""Fuzzing every command that reads a user's file: random bytes and random YAML/JSON
documents (seeded) must each end in exit 2 with one line on stderr, no traceback.

Each command runs in its own child process (a driver that calls lanloss.cli.main for every
input in turn, capturing the exit code and stderr of each) under resource limits: 4 GiB of
address space and 60 s of CPU, so an input that expands in memory or loops is a failure of
this test, not a hung machine.

Every generated document is invalid by construction, whatever the random parts hold: each
command's documents carry a poison that no valid file of that kind has, placed where it is
checked last (a topology's last flow from a host to itself, a host file's `rps:
not-a-value!`, an inventory's relative tools_dir, a study drawing an unknown figure, a run
record's last flow with an unknown field, a fit without parameters, a table without a
`sent` column), and random bytes always hold 0xff, which UTF-8 never has.
So every input must be refused, and exit 0 is a failure too.
"""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from lanloss.host_presets import HOST_OPTIONS

SEED = 17
STRUCTURED = 40  # random documents per command
BYTES = 6  # random byte strings per command

# -- scalars and structures ---------------------------------------------------------------


class Raw(str):
    """A scalar written plain, as typed: YAML decides what it is (0x1A, on, ~, 1_000)."""


class Tagged(str):
    """A scalar with an explicit tag (!!binary, !!python/object:..., !custom)."""

    def __new__(cls, tag: str, text: str) -> Tagged:
        obj = super().__new__(cls, text)
        obj.tag = tag
        return obj


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(
    Raw,
    lambda d, v: d.represent_scalar(d.resolve(yaml.ScalarNode, str(v), (True, False)), str(v)),
)
_Dumper.add_representer(Tagged, lambda d, v: d.represent_scalar(v.tag, str(v)))


def _json_default(value):  # Raw and Tagged are str: json writes them as text already
    raise TypeError(type(value).__name__)


ODD = [
    Raw("0x1A"),
    Raw("010"),
    Raw("0o17"),
    Raw("0b101"),
    Raw("1_000"),
    Raw("190:20:30"),
    Raw("on"),
    Raw("yes"),
    Raw("~"),
    Raw("null"),
    Raw(".inf"),
    Raw("-.nan"),
    Raw("1.0e+400"),
    Raw("2024-01-01"),
    Raw("2001-12-14t21:59:43.10-05:00"),
    "x" * 5000,
    "a\nb",
    "\x00",
    "\t",
    "é☃\U0001f600",
    "",
    " ",
    "-1",
    -1,
    0,
    26,
    10**30,
    2**63,
    1.5,
    float("nan"),
    float("inf"),
    True,
    False,
    None,
    "100Mbps",
    "1e30bps",
    "0.1s",
    "64",
    "sw1",
    "s1",
    "r1",
    "sender",
    "receiver",
    "modern",
    "../../etc/passwd",
    "/dev/zero",
    "fuzz-0.yaml",
    "a;b",
    "$(true)",
]
# Scalars that make the whole document unreadable: rare, so most documents reach the
# command's own checks.
HOSTILE = [
    Raw("<<"),
    Raw("9" * 5000),
    Tagged("tag:yaml.org,2002:binary", "aGVsbG8="),
    Tagged("tag:yaml.org,2002:set", "x"),
    Tagged("tag:yaml.org,2002:python/object/apply:os.system", "true"),
    Tagged("!custom", "x"),
    Tagged("tag:yaml.org,2002:int", "nope"),
]
ODD_KEYS = [Raw("0x1A"), Raw("010"), Raw("on"), Raw("~"), Raw("<<"), "", "a b", "x" * 300, 7]


class Gen:
    """Random values from a key pool; containers made earlier are reused now and then, so
    the YAML written has anchors and aliases (the same value twice, as JSON writes it)."""

    def __init__(self, rng: random.Random, keys: list) -> None:
        self.rng, self.keys, self.made = rng, keys, []

    def key(self):
        return self.rng.choice(self.keys + ODD_KEYS if self.rng.random() < 0.2 else self.keys)

    def value(self, depth: int = 0):
        rng = self.rng
        if self.made and rng.random() < 0.15:
            return rng.choice(self.made)
        roll = rng.random()
        if depth >= 5 or roll < 0.5:
            return rng.choice(HOSTILE if rng.random() < 0.02 else ODD)
        if roll < 0.75:
            made = [self.value(depth + 1) for _ in range(rng.randrange(5))]
        else:
            made = {self.key(): self.value(depth + 1) for _ in range(rng.randrange(5))}
        self.made.append(made)
        return made

    def mutate(self, value, depth: int = 0):
        """The value with random parts replaced, dropped or added."""
        rng = self.rng
        if depth and rng.random() < 0.15:
            return self.value(depth)
        if isinstance(value, dict):
            out = {k: self.mutate(v, depth + 1) for k, v in value.items() if rng.random() > 0.1}
            if rng.random() < 0.3:
                out[self.key()] = self.value(depth + 1)
            return out
        if isinstance(value, list):
            out = [self.mutate(v, depth + 1) for v in value if rng.random() > 0.1]
            if rng.random() < 0.3:
                out.insert(rng.randrange(len(out) + 1), self.value(depth + 1))
            return out
        return value


def yaml_text(doc, rng: random.Random) -> str:
    return yaml.dump(
        doc,
        Dumper=_Dumper,
        sort_keys=False,
        default_flow_style=rng.choice([False, True, None]),
        allow_unicode=rng.random() < 0.5,
        width=rng.choice([40, 10**6]),
    )


def json_text(doc, rng: random.Random) -> str:
    return json.dumps(doc, indent=rng.choice([None, 1]), default=_json_default)


# -- what each command reads, and its poison ----------------------------------------------------

OPTION_KEYS = ["rate", "payload", "duration", "topology", "host", "senders", "seed", "pause"]


def _topology():
    keys = ["hosts", "links", "flows", "s1", "r1", "role", "from", "to", "rate", "a", "b"]
    doc = {
        "switches": ["sw1"],
        "hosts": {"s1": "sender", "r1": "receiver"},
        "links": [["s1", "sw1", "100Mbps"], {"a": "r1", "b": "sw1", "rate": "1Gbps"}],
        "flows": [{"from": "s1", "to": "r1", "rate": "10Mbps"}],
    }

    def poison(d):  # a last flow from a host to itself, checked last
        flows = d.get("flows")
        d["flows"] = (flows if isinstance(flows, list) else []) + [{"from": "s1", "to": "s1"}]

    return keys, doc, poison


def _host_file():
    keys = ["name", "base", *HOST_OPTIONS]
    doc = {"name": "fz", "base": "modern", "cores": 2, "irq_cost": "6.5us", "rcvbuf": 212992}

    def poison(d):  # no value of a choice option
        d["rps"] = "not-a-value!"

    return keys, doc, poison


def _inventory():
    # no "address" key: a host's address is set by the poison, never one to look up (DNS)
    keys = ["ssh", "hosts", "tools_dir", "workdir", "data_address", "interface", "role"]
    keys += ["user", "key", "port", "connect_timeout", "known_hosts", "strict_host_key_checking"]
    doc = {
        "ssh": {"user": "root", "key": "id_fz", "port": 22, "connect_timeout": 5},
        "hosts": {
            "pc1": {"data_address": "10.0.0.1", "interface": "eth1", "role": "sender"},
            "pc2": {"data_address": "10.0.0.2", "interface": "eth1", "role": "receiver"},
        },
    }

    def poison(d):  # a relative tools_dir, checked last; addresses are IP literals
        for host in (d.get("hosts") or {}).values() if isinstance(d.get("hosts"), dict) else []:
            if isinstance(host, dict):
                host["address"] = "192.0.2.1"
        d["tools_dir"] = "relative/tools"

    return keys, doc, poison


def _study():
    keys = ["name", "description", "source", "repetitions", "fixed", "grid", "grids"]
    keys += ["figures", "fit", "studies", "bed_args", "sim", "bed", *OPTION_KEYS]
    doc = {
        "name": "fz",
        "source": ["sim"],
        "repetitions": 1,
        "fixed": {"duration": "1s"},
        "grid": {"rate": ["10Mbps", "20Mbps"], "payload": [64]},
    }

    def poison(d):  # an unknown figure, checked after every point
        d["figures"] = ["nosuchfigure"]

    return keys, doc, poison


def _record():
    keys = ["schema", "source", "params", "env", "flows", "drops", "pause", "timing", "cpu"]
    keys += ["sent", "received", "lost", "sender", "receiver", *OPTION_KEYS]
    doc = {
        "schema": "lanloss.run/1",
        "source": "sim",
        "params": {"rate": 10_000_000, "payload": 64},
        "totals": {"sent": 10, "received": 10},
        "flows": [{"sender": "s1", "receiver": "r1", "sent": 10, "received": 10, "lost": 0}],
        "drops": {},
        "env": {},
    }

    def poison(d):  # a last flow with a field no record has, checked last
        flows = d.get("flows")
        extra = {"sender": "s1", "receiver": "r1", "sent": 1, "received": 1, "lost": 0}
        d["flows"] = (flows if isinstance(flows, list) else []) + [{**extra, "colour": "red"}]

    return keys, doc, poison


def _fit():
    keys = ["schema", "model", "data", "fit_quality", "name", "version", "runs", "rows"]
    keys += ["excluded", "notes", "estimate", "source", "ci"]
    doc = {
        "schema": "lanloss.fit/1",
        "model": {"name": "fz", "version": 1},
        "data": {"runs": {"sim": 1}, "rows": {}, "excluded": {}, "notes": []},
        "fit_quality": {},
    }

    def poison(d):  # no parameters: every fit has them
        d.pop("parameters", None)

    return keys, doc, poison


# (name, file suffix, kind of document, argv with {f} for the file)
COMMANDS = [
    ("sim-topology", ".yaml", _topology, ["sim", "run", "--topology", "{f}"]),
    (
        "bed-topology",
        ".yaml",
        _topology,
        ["bed", "check", "--prefix", "llfz-", "--topology", "{f}"],
    ),
    ("host-file", ".yaml", _host_file, ["sim", "run", "--host", "modern", "--host-file", "{f}"]),
    ("host-json", ".json", _host_file, ["sim", "run", "--host", "modern", "--host-file", "{f}"]),
    (
        "inventory",
        ".yaml",
        _inventory,
        ["bed", "check", "--prefix", "llfz-", "--backend", "ssh", "--inventory", "{f}"],
    ),
    ("study", ".yaml", _study, ["study", "check", "{f}"]),
    ("table", ".json", _record, ["table", "--study", "fz", "--out", "out.parquet", "{f}"]),
    ("plan", ".json", _fit, ["plan", "--fit", "{f}"]),
]
PARQUET_COMMANDS = [
    ("fit", ["fit", "{f}", "--out", "fit.json", "--bootstrap", "0"]),
    ("validate", ["validate", "{f}", "--jobs", "1"]),
    ("figures", ["figures", "seed001", "--table", "{f}", "--out", "figs"]),
]


def _bomb() -> str:
    """The 9**9 alias bomb, its last level where the command reads a list or text."""
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for p, c in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{c}: &{c} [{','.join([f'*{p}'] * 9)}]")
    return "\n".join(lines) + "\n"


def _special_yaml(kind, rng: random.Random) -> list[str | bytes]:
    """Hand-made hostile YAML documents, each poisoned as the kind's documents are."""
    keys, doc, poison = kind()
    poison(doc)
    body = yaml_text(doc, rng)
    first = next(iter(doc))
    bomb = _bomb()
    return [
        "",
        "[" * 20000,
        "[" * 20000 + "]" * 20000,
        "".join("  " * i + "- x:\n" for i in range(200)),
        "{" * 100 + "}" * 100,
        bomb + body,
        bomb + body.replace(f"{first}:", f"{first}: *i\nzz_shadow:", 1),
        f"{first}: &x [1, *x]\n" + body,
        body + f"{first}: again\n",
        body + "0x1A: sender\n",
        "- " + body.replace("\n", "\n  "),
        "just text\n",
        body + "\t: tab\n",
        body + "z: !!python/object/apply:os.system ['true']\n",
        body + "z: " + "1" * 5000 + "\n",
        body + "z: *undefined\n",
        "\ufeff" + body + "---\nsecond: doc\n",
        "%YAML 1.1\n%TAG ! tag:x,2002:\n---\n" + body,
        b"\xef\xbb\xbf" + body.encode() + b"\xff",
    ]


def _special_json(kind, rng: random.Random) -> list[str | bytes]:
    keys, doc, poison = kind()
    poison(doc)
    body = json.dumps(doc)
    return [
        "",
        "[" * 20000,
        "[" * 20000 + "]" * 20000,
        '{"a":' * 100 + "1" + "}" * 100,
        body[:-1] + ', "schema": "again"}',
        body[:-1] + ', "z": ' + "1" * 5000 + "}",
        body[:-1] + ', "z": NaN, "y": -Infinity}',
        body[: len(body) // 2],
        "[" + body + "]",
        "null",
        '"text"',
        body.encode("utf-16"),
        b"\xef\xbb\xbf" + body.encode(),
    ]


def _cases(name: str, suffix: str, kind, rng: random.Random) -> list[str | bytes]:
    out: list[str | bytes] = []
    for _ in range(BYTES):
        data = bytearray(rng.randbytes(rng.randrange(1, 400)))
        data.insert(rng.randrange(len(data) + 1), 0xFF)  # never in UTF-8
        out.append(bytes(data))
    for _ in range(STRUCTURED):
        keys, doc, poison = kind()
        gen = Gen(rng, keys)
        doc = {k: gen.mutate(v, 1) for k, v in doc.items() if rng.random() > 0.1}
        if rng.random() < 0.2:
            doc[gen.key()] = gen.value(1)
        poison(doc)
        out.append(yaml_text(doc, rng) if suffix == ".yaml" else json_text(doc, rng))
    out += _special_yaml(kind, rng) if suffix == ".yaml" else _special_json(kind, rng)
    return out


def _parquet_cases(rng: random.Random, folder: Path) -> list[bytes]:
    """Random bytes, random bytes inside Parquet's magic, and real Parquet tables without a
    `sent` column (random columns), some with bytes of them overwritten."""
    import pandas as pd

    out = [bytes(rng.randbytes(rng.randrange(1, 300))) for _ in range(BYTES)]
    out += [b"PAR1" + rng.randbytes(rng.randrange(0, 200)) + b"PAR1" for _ in range(4)]
    for i in range(12):
        columns = {
            rng.choice(["source", "rate", "payload", "lost", "run_file", str(i)]): [
                rng.choice([1, 2.5, "x", None]) for _ in range(5)
            ]
            for _ in range(rng.randrange(1, 5))
        }
        path = folder / f"real-{i}.parquet"
        pd.DataFrame(
            {k: pd.Series(v, dtype=object).astype(str) for k, v in columns.items()}
        ).to_parquet(path)
        data = bytearray(path.read_bytes())
        path.unlink()
        for _ in range(rng.randrange(3) if i % 2 else 0):
            at = rng.randrange(len(data))
            data[at : at + 8] = rng.randbytes(8)
        out.append(bytes(data))
    return out


# -- the driver ---------------------------------------------------------------------------------

DRIVER = r"""
import contextlib, io, json, sys, traceback
from lanloss.cli import main
for line in open(sys.argv[1], encoding="utf-8"):
    case = json.loads(line)
    print(json.dumps({"start": case["id"]}), flush=True)
    err, out = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            code = main(case["argv"])
    except SystemExit as exc:
        code = exc.code
    except BaseException:  # what main() lets through reaches the user as a traceback
        code = "raised"
        err.write(traceback.format_exc())
    print(json.dumps({"id": case["id"], "code": code, "stderr": err.getvalue(),
                      "stdout": out.getvalue()}), flush=True)
"""


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
    resource.setrlimit(resource.RLIMIT_CPU, (60, 60))


def _drive(folder: Path, cases: list[dict]) -> list[dict]:
    """Run every case in one driver child (in `folder`) under the limits; its results."""
    manifest = folder / "cases.jsonl"
    manifest.write_text("".join(json.dumps(c) + "\n" for c in cases))
    env = {**os.environ, "LANLOSS_STATE_DIR": str(folder / "state"), "TMPDIR": str(folder)}
    res = subprocess.run(
        [sys.executable, "-c", DRIVER, str(manifest)],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        preexec_fn=_limits,
        timeout=600,  # only so a blocked read fails the test instead of hanging it
    )
    lines = [json.loads(x) for x in res.stdout.splitlines()]
    started = [x["start"] for x in lines if "start" in x]
    assert res.returncode == 0, (
        f"driver died (exit {res.returncode}) on case {started[-1] if started else None}: "
        f"{res.stderr[-3000:]}"
    )
    return [x for x in lines if "id" in x]


def _check(results: list[dict], inputs: dict[str, str | bytes]) -> None:
    bad = []
    for r in results:
        lines = r["stderr"].strip().splitlines()
        ok = (
            r["code"] == 2
            and len(lines) == 1
            and lines[0].startswith("lanloss: error:")
            and "Traceback" not in r["stderr"]
            and r["stdout"] == ""
        )
        if not ok:
            shown = inputs[r["id"]][:300]
            bad.append(
                f"{r['id']}: exit {r['code']}, stderr {r['stderr'][-1500:]!r}, input {shown!r}"
            )
    assert not bad, f"{len(bad)} inputs not refused as one line:\n" + "\n".join(bad[:10])


def _write(path: Path, data: str | bytes) -> None:
    path.write_bytes(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)


def _file_cases(folder: Path, suffix: str, argv: list[str], datas: list[str | bytes]):
    cases, inputs = [], {}
    for i, data in enumerate(datas):
        name = f"fuzz-{i}{suffix}"
        _write(folder / name, data)
        cid = f"{argv[0]}-{i}"
        cases.append({"id": cid, "argv": [a.replace("{f}", name) for a in argv]})
        inputs[cid] = data
    # files that are not files: a folder, a FIFO (open() would wait), too big, missing
    (folder / f"folder{suffix}").mkdir()
    os.mkfifo(folder / f"fifo{suffix}")
    with open(folder / f"huge{suffix}", "wb") as fh:
        fh.truncate(17 * 1024 * 1024)
    for name in (f"folder{suffix}", f"fifo{suffix}", f"huge{suffix}", f"missing{suffix}"):
        cid = f"{argv[0]}-{name}"
        cases.append({"id": cid, "argv": [a.replace("{f}", name) for a in argv]})
        inputs[cid] = name
    return cases, inputs


@pytest.mark.parametrize("name,suffix,kind,argv", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_every_random_document_is_one_line_exit_2(name, suffix, kind, argv, tmp_path):
    rng = random.Random(f"{SEED}-{name}")
    (tmp_path / "state").mkdir()
    (tmp_path / "id_fz").write_text("not a key\n")
    os.chmod(tmp_path / "id_fz", 0o600)
    cases, inputs = _file_cases(tmp_path, suffix, argv, _cases(name, suffix, kind, rng))
    results = _drive(tmp_path, cases)
    assert len(results) == len(cases)
    _check(results, inputs)
    assert not (tmp_path / "out.parquet").exists()
    assert list((tmp_path / "state").iterdir()) == []  # the testbed was not started


@pytest.mark.parametrize("name,argv", PARQUET_COMMANDS, ids=[c[0] for c in PARQUET_COMMANDS])
def test_every_random_table_is_one_line_exit_2(name, argv, tmp_path):
    rng = random.Random(f"{SEED}-{name}")
    (tmp_path / "state").mkdir()
    (tmp_path / "figs").mkdir()
    cases, inputs = _file_cases(tmp_path, ".parquet", argv, _parquet_cases(rng, tmp_path))
    results = _drive(tmp_path, cases)
    assert len(results) == len(cases)
    _check(results, inputs)
    assert list((tmp_path / "figs").iterdir()) == [] and not (tmp_path / "fit.json").exists()
