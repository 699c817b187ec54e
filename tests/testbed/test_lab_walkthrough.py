# SPDX-License-Identifier: GPL-2.0-only
"""The lab walkthrough of testbed/README.md ("A lab walkthrough: from an inventory to a
study") runs as written: its inventory and study files, and every command of its ``sh``
blocks, against the namespace lab of test_bed_ssh.py with a third sshd host and snmpd as
the switch's agent (test_snmp_ssh.py). The outputs it shows are compared with what the
commands print, the walkthrough's addresses, key and SNMP port standing for the lab's."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from load_rules import shared_clock_as_on_idle, without_wide_bound_warnings
from test_bed_ssh import NET, SSH_NS, lab, sh, start_sshd  # noqa: F401 - lab: a fixture
from test_snmp_ssh import AGENT, SSH_SNMP_LAB, switch_agent  # noqa: F401 - a fixture

from lanloss.record import load
from lanloss.testbed import snmp_agent

pytestmark = SSH_SNMP_LAB

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "testbed" / "README.md"
H3 = f"{SSH_NS}h3"


def walkthrough() -> str:
    text = DOC.read_text()
    start = text.index("## A lab walkthrough: from an inventory to a study")
    return text[start : text.index("\n## ", start + 1)]


def blocks(text: str) -> list[tuple[str, str]]:
    """The fenced blocks, (language, body), in order."""
    return re.findall(r"```(\w+)\n(.*?)```", text, re.S)


def commands(body: str) -> list[str]:
    return [" ".join(line.split()) for line in body.splitlines() if line.strip()]


def steps() -> list[tuple[str, str | None]]:
    """Each command of the sh blocks, with the text block right after it (its output)."""
    found = blocks(walkthrough())
    out = []
    for i, (lang, body) in enumerate(found):
        if lang == "sh":
            (command,) = commands(body)
            shown = found[i + 1][1] if i + 1 < len(found) and found[i + 1][0] == "text" else None
            out.append((command, shown))
    return out


def doc_file(first_line: str) -> str:
    """The yaml block of the walkthrough that opens with `first_line`."""
    (body,) = [b for lang, b in blocks(walkthrough()) if b.startswith(first_line)]
    return body


@pytest.fixture
def lab3(lab):  # noqa: F811
    """The lab with a third sshd host, h3 at NET.4, plugged into the bridge's port p4 (before
    the switch agent's address is on the bridge: a new port may change the bridge's MAC)."""
    d = lab["dir"]
    sh("ip", "netns", "add", H3)
    server = None
    try:
        sh("ip", "link", "add", "eth0", "netns", H3, "type", "veth",
           "peer", "name", "p4", "netns", f"{SSH_NS}sw")  # fmt: skip
        sh("ip", "-n", H3, "addr", "add", f"{NET}.4/24", "dev", "eth0")
        for dev_ns, dev in ((H3, "eth0"), (H3, "lo"), (f"{SSH_NS}sw", "p4")):
            sh("ip", "-n", dev_ns, "link", "set", dev, "up")
        sh("ip", "-n", f"{SSH_NS}sw", "link", "set", "p4", "master", "br0")
        server = start_sshd(H3, d, "h3", f"{NET}.4")
        yield lab
    finally:
        if server is not None:
            server.terminate()
            server.wait(10)
        subprocess.run(["ip", "netns", "del", H3], capture_output=True)


def substitutions(d: Path) -> list[tuple[str, str]]:
    """(the walkthrough's text, the lab's), in the order applied to the inventory."""
    return [
        ("key: lab_key", f"key: {d}/id"),
        ("known_hosts: lab_known_hosts", f"known_hosts: {d}/known_hosts"),
        ("/tmp/lanloss-tools", f"{d}/walk-tools"),
        ("workdir: /tmp\n", f"workdir: {d}/work\n"),
        ("address: 192.0.2.2\n", f"address: {AGENT}\n"),
        ("192.0.2.10", f"{NET}.2"),
        ("192.0.2.11", f"{NET}.3"),
        ("192.0.2.12", f"{NET}.4"),
        ("community: lanloss-ro", f"community: {snmp_agent.COMMUNITY}"),
        ("port: 161}", f"port: {snmp_agent.PORT}, counter_refresh: {snmp_agent.REFRESH_S}}}"),
        ("Gi1/0/1", "p2"),
        ("Gi1/0/2", "p3"),
        ("Gi1/0/3", "p4"),
    ]


def as_shown(text: str) -> str:
    """What a command printed on the lab, in the walkthrough's names."""
    back = [
        (f"{AGENT}:{snmp_agent.PORT}", "192.0.2.2:161"),
        (f"{NET}.2", "192.0.2.10"),
        (f"{NET}.3", "192.0.2.11"),
        (f"{NET}.4", "192.0.2.12"),
        ("p2=", "Gi1/0/1="),
        ("p3=", "Gi1/0/2="),
        ("p4=", "Gi1/0/3="),
    ]
    for lab_text, doc_text in back:
        text = text.replace(lab_text, doc_text)
    return text


def rows(table: str) -> list[list[str]]:
    return [line.split(maxsplit=13) for line in table.splitlines()]


# what varies from run to run (and machine to machine): the kernel, whether the tools were
# installed by an earlier run, the measured clock offset, the switch's ifIndex numbers
_VARIES = {4, 12}


def _same_table(printed: str, shown: str) -> None:
    got, want = rows(printed), rows(shown)
    assert [r[0] for r in got] == [r[0] for r in want]
    for g, w in zip(got, want, strict=True):
        assert [c for i, c in enumerate(g[:13]) if i not in _VARIES] == [
            c for i, c in enumerate(w[:13]) if i not in _VARIES
        ], (g, w)
        last = r"offset [-+][\d.]+ us ± [\d.]+ us|ifIndex \d+"
        printed_last = shared_clock_as_on_idle(g[-1])
        assert re.sub(last, "#", printed_last) == re.sub(last, "#", w[-1]), (g, w)


def _findings(stderr: str) -> list[str]:
    """bed check's findings, without a clock verdict of two namespaces of one kernel that
    only a busy machine's wide bound made "unsynchronized" (load_rules)."""
    return without_wide_bound_warnings(
        x for x in stderr.splitlines() if x.startswith("lanloss bed check: ")
    )


def _run(command: str, here: Path, lab, env: dict[str, str]) -> subprocess.CompletedProcess:  # noqa: F811
    """A walkthrough command as a user would type it in `here`, from the harness's
    namespace: .venv/bin/lanloss and .venv/bin/snakemake are this test session's."""
    argv = shlex.split(command)
    if argv[0] == ".venv/bin/lanloss":
        argv = [sys.executable, "-m", "lanloss.cli", *argv[1:]]
    else:
        assert argv[0] == ".venv/bin/snakemake", command
        i = argv.index("--profile")
        argv[i + 1] = str(REPO / argv[i + 1])
        argv = [sys.executable, "-m", "snakemake", "-s", str(REPO / "Snakefile"), "-d",
                str(here), *argv[1:]]  # fmt: skip
    argv = ["nsenter", f"--net=/run/netns/{lab['ctl']}", "--", *argv]
    return subprocess.run(argv, capture_output=True, text=True, timeout=600, cwd=here,
                          env={**os.environ, **env})  # fmt: skip


def test_the_walkthrough_runs_as_written(lab3, switch_agent, tmp_path, bed_state, ns_prefix):  # noqa: F811
    here = tmp_path / "lab"
    here.mkdir()
    inv = doc_file("# lab.yaml")
    for doc_text, lab_text in substitutions(lab3["dir"]):
        assert doc_text in inv, doc_text
        inv = inv.replace(doc_text, lab_text)
    (here / "lab.yaml").write_text(inv)
    (here / "lab-study.yaml").write_text(doc_file("# lab-study.yaml"))
    env = {"LANLOSS_STATE_DIR": str(bed_state), "LANLOSS_NS_PREFIX": ns_prefix}

    (check, check_shown), (pause, pause_shown), (run, _), (study, summary) = steps()
    assert check_shown is not None and pause_shown is not None and summary is not None

    res = _run(check, here, lab3, env)
    assert res.returncode == 0, res.stderr
    shown_lines = check_shown.splitlines()
    table_end = next(i for i, x in enumerate(shown_lines) if x.startswith("lanloss bed check:"))
    _same_table(as_shown(res.stdout), "\n".join(shown_lines[:table_end]))
    assert as_shown("\n".join(_findings(res.stderr))) == "\n".join(shown_lines[table_end:])

    res = _run(pause, here, lab3, env)
    assert res.returncode == 1, res.stderr
    assert as_shown("\n".join(_findings(res.stderr))) == pause_shown.strip()

    res = _run(run, here, lab3, env)
    assert res.returncode == 0, res.stderr
    rec = load(str(here / "first-run.json"))
    assert [(f.sender, f.receiver) for f in rec.flows] == [
        ("server", "client1"),
        ("server", "client2"),
    ]
    assert rec.conservation_error() == 0 and rec.totals["sent"] > 0
    assert rec.totals["offered_bps"] == 80e6  # "offered 80 Mbit/s in all"
    assert set(rec.extra["counters"]["lab-sw"]["ifmib"]) == {"p2", "p3", "p4"}

    res = _run(study, here, lab3, env)
    assert res.returncode == 0, res.stderr[-3000:]
    runs = sorted((here / "results" / "runs" / "lab" / "bed").glob("*.json"))
    assert len(runs) == 2
    for path in runs:
        rec = load(str(path))
        assert rec.env["backend"] == "ssh" and rec.params["receivers"] == 2
        assert rec.conservation_error() == 0
    assert (here / "results" / "tables" / "lab.parquet").is_file()
    # the summary shown: the same rows and columns; source, rate, runs and offered load the
    # same (what was received and lost is the run's)
    got = (here / "results" / "tables" / "lab-summary.csv").read_text().splitlines()
    shown = summary.strip().splitlines()
    assert got[0] == shown[0] and len(got) == len(shown)
    for g, w in zip(got[1:], shown[1:], strict=True):
        assert g.split(",")[:4] == w.split(",")[:4]
