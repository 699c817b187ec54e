# SPDX-License-Identifier: GPL-2.0-only
"""The README's five-minute tour runs as written and its prose states what the code gives.

Every command of the tour's ``sh`` blocks (section "A five-minute tour" and its subsections)
is either run here, from a temporary folder, or skipped with the reason in SKIPPED; a command
added to the tour and named in neither fails the test. The numbers the prose states about a
command (the loss, where it is lost, what arrives) are read from the README itself and
compared with the command's record, so the prose and the code cannot drift apart unseen.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lanloss.analysis import wire

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text()
LANLOSS = [sys.executable, "-m", "lanloss.cli"]

# Commands of the tour not run on their own here, by their first words, and why.
SKIPPED = {
    "tshark": "run by test_pause_off_loses_in_the_switch_pause_on_in_the_server, after the run "
    "that writes the pcap",
    "lanloss sim run --host x3440-2010": (
        "a 1 Gbit/s run of 1-byte datagrams: over a million datagrams, about 25 s; seed 004's "
        "receive capacity on this host is checked by tests/analysis/test_figures_seeds.py "
        "(test_seed004_real_readers)"
    ),
    "lanloss table": "needs the run records of a study (results/runs/demo), made by snakemake",
    "lanloss fit": "needs a study's table, and a fit takes minutes",
    "lanloss plan": "needs a fit (results/fits/demo.json)",
    "lanloss validate": "needs `make run`'s table and fit (results/tables, results/fits)",
    ".venv/bin/snakemake": "runs a whole study through Snakemake (minutes; tests/workflow/)",
}


def _tour() -> str:
    """The text of "A five-minute tour" and its subsections (up to the next "## ")."""
    start = README.index("## A five-minute tour")
    end = README.index("\n## ", start + 1)
    return README[start:end]


def _commands(text: str) -> list[str]:
    """The commands of the ``sh`` blocks: continuation lines joined, comments removed."""
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split("#", 1)[0].strip() if "#" in line else line.strip()
            if line:
                commands.append(" ".join(line.split()))
    return commands


def _words(command: str) -> str:
    return command.replace(".venv/bin/lanloss", "lanloss", 1)


def _skip_reason(command: str) -> str | None:
    for prefix, why in SKIPPED.items():
        if _words(command).startswith(prefix):
            return why
    return None


def _stated(pattern: str) -> re.Match:
    """The README's sentence (whitespace and a sh comment's '#' may break it), parsed."""
    flexible = pattern.replace(" ", r"[\s#]+")
    m = re.search(flexible, README)
    assert m, f"the README no longer states: {pattern}"
    return m


# The tour commands run here, each found by words only it contains (without: words it lacks).
RUN = {
    "one point": (("--rate 50Mbps --duration 1s",), ()),
    "pause off": (("--pause off --out off.json",), ()),
    "pause on": (("--pause on --out on.json",), ()),
    "sweep": (("lanloss sweep",), ()),
    "itr 0, 32.8 Mbit/s": (("--itr 0", "--rate 32768000"), ()),
    "itr 0, 41 Mbit/s": (("--itr 0", "--rate 40960000"), ()),
    "itr 2500, stalls": (("--itr 2500", "--stall-length 3ms"), ("--rcvbuf",)),
    "itr 2500, stalls, big rcvbuf": (("--itr 2500", "--stall-length 3ms", "--rcvbuf 212992"), ()),
    "multicast": (("--cast multicast --receivers 40",), ()),
    "tcp two-site": (("--protocol tcp --topology two-site",), ()),
    "xeon-2002 jumbo": (("--host xeon-2002", "--mtu 9000"), ()),
}


def _matches(command: str, name: str) -> bool:
    needles, without = RUN[name]
    return all(n in command for n in needles) and not any(w in command for w in without)


def _command(name: str) -> str:
    """The one tour command RUN[name] finds."""
    found = [c for c in _commands(_tour()) if _matches(c, name)]
    assert len(found) == 1, (name, found)
    return found[0]


def _run(command: str, cwd: Path) -> subprocess.CompletedProcess:
    argv = shlex.split(command)
    assert argv[0] == ".venv/bin/lanloss", command
    out = subprocess.run(
        [*LANLOSS, *argv[1:]], capture_output=True, text=True, cwd=cwd, timeout=120
    )
    assert out.returncode == 0, (command, out.stderr)
    return out


def _record(command: str, cwd: Path) -> dict:
    """Run a `sim run` of the tour; its record (from --out, or printed) after basic checks."""
    out = _run(command, cwd)
    argv = shlex.split(command)
    if "--out" in argv:
        rec = json.loads((cwd / argv[argv.index("--out") + 1]).read_text())
    else:
        rec = json.loads(out.stdout)
    assert rec["schema"] == "lanloss.run/1"
    t = rec["totals"]
    assert rec["drops"]["unexplained"] == 0
    assert t["sent"] == t["received"] + sum(rec["drops"].values())
    return rec


def _mbps(text: str) -> float:
    return float(text) * 1e6


def _rate(command: str) -> float:
    """The --rate of a command, in bit/s (a number or NMbps)."""
    value = shlex.split(command)[shlex.split(command).index("--rate") + 1]
    return _mbps(value[:-4]) if value.endswith("Mbps") else float(value)


# -- the tour as a whole ---------------------------------------------------------------------


def test_every_tour_command_is_run_or_skipped_for_a_reason():
    commands = _commands(_tour())
    assert any(c.startswith("tshark") for c in commands)
    for c in commands:
        run_by = [name for name in RUN if _matches(c, name)]
        assert len(run_by) == 1 or (not run_by and _skip_reason(c)), (
            f"a tour command neither run by this file (RUN) nor skipped for a reason (SKIPPED): {c}"
        )
    for name in RUN:
        _command(name)  # each is in the tour, exactly once


@pytest.mark.usefixtures("built")
def test_one_point_prints_a_run_record(tmp_path):
    rec = _record(_command("one point"), tmp_path)
    assert rec["params"]["payload"] == 1472 and rec["params"]["edge_rate"] == 100e6
    assert rec["totals"]["loss"] == 0  # 50 Mbit/s fits a 100 Mbit/s link


# -- PAUSE: the 1 Gbit/s server and the 100 Mbit/s client --------------------------------------


@pytest.mark.usefixtures("built")
def test_pause_off_loses_in_the_switch_pause_on_in_the_server(tmp_path):
    off = _record(_command("pause off"), tmp_path)
    on = _record(_command("pause on"), tmp_path)
    m = _stated(r"`off\.json` shows the loss \((\d+)%\) at `drops\.(\w+)`")
    assert round(100 * off["totals"]["loss"]) == int(m[1])
    assert off["drops"][m[2]] == off["totals"]["sent"] - off["totals"]["received"]
    # on.json: "none in the switch", "dropped in the server's own transmit queue"
    assert on["drops"]["switch_egress"] == on["drops"]["switch_ingress"] == 0
    assert on["drops"]["sender_queue"] == on["totals"]["sent"] - on["totals"]["received"] > 0
    both = _stated(r"Both deliver ([\d.]+) Mbit/s, the closed-form goodput of (\d+)-byte")
    closed = wire.saturation_goodput_bps(int(both[2]), 100e6)
    assert round(closed / 1e6, 2) == float(both[1])
    for rec in (off, on):
        assert round(rec["totals"]["goodput_bps"] / 1e6, 2) == float(both[1])
    # the pcap's PAUSE frames
    pcap = tmp_path / "pcap" / "lanloss-s1-0.pcap"
    assert pcap.is_file()
    (tshark_line,) = [c for c in _commands(_tour()) if c.startswith("tshark")]
    assert "pcap/lanloss-s1-0.pcap" in tshark_line and "0x8808" in tshark_line
    if shutil.which("tshark") is None:
        pytest.skip("tshark is not installed (make's set-up installs it)")
    shown = subprocess.run(
        shlex.split(tshark_line), capture_output=True, text=True, cwd=tmp_path, timeout=60
    )
    assert shown.returncode == 0, shown.stderr
    pauses = [line for line in shown.stdout.splitlines() if "Pause" in line]
    assert pauses and all("pause_time" in line for line in pauses)
    assert any("pause_time: 65535" in line for line in pauses)  # XOFF with pause_quanta


@pytest.mark.usefixtures("built")
@pytest.mark.parametrize("how", ["--blocking on", "--rate max"])
def test_pause_on_with_a_blocking_sender_slows_it_instead(tmp_path, how):
    _stated(r"or, with `--blocking on` \(or `--rate max`\), the sender is slowed instead")
    base = _command("pause on").replace(" --pcap pcap/", "")
    if how == "--rate max":
        base = base.replace("--rate 300Mbps", how)
    else:
        base += f" {how}"
    rec = _record(base, tmp_path)
    assert rec["totals"]["sent"] == rec["totals"]["received"] > 0  # nothing dropped anywhere


@pytest.mark.usefixtures("built")
def test_the_sweep_writes_one_record_per_point_and_resumes(tmp_path):
    command = _command("sweep")
    _run(command, tmp_path)
    out = tmp_path / shlex.split(command)[-1]
    records = sorted(out.glob("*.json"))
    assert len(records) == 3 * 2  # payload x pause
    again = _run(command, tmp_path)
    said = again.stdout + again.stderr
    assert "running" not in said and said.count("done already") == 6  # nothing reruns
    assert sorted(out.glob("*.json")) == records


# -- the receiving host ----------------------------------------------------------------------


@pytest.mark.usefixtures("built")
def test_one_interrupt_per_packet_loses_and_livelocks(tmp_path):
    m = _stated(
        r"(\d+)% lost at ([\d.]+) Mbit/s of (\d+)-byte datagrams, and at "
        r"(\d+) Mbit/s only (\d+) Mbit/s arrive \(receive livelock\); see cpu\.(\w+)"
    )
    first = _command("itr 0, 32.8 Mbit/s")
    second = _command("itr 0, 41 Mbit/s")
    assert round(_rate(first) / 1e6, 1) == float(m[2])
    assert round(_rate(second) / 1e6) == int(m[4])
    a, b = _record(first, tmp_path), _record(second, tmp_path)
    assert a["params"]["payload"] == int(m[3])
    assert round(100 * a["totals"]["loss"]) == int(m[1])
    assert round(b["totals"]["goodput_bps"] / 1e6) == int(m[5])
    # livelock: more offered, less delivered, the receiver's CPU all interrupt and softirq work
    assert b["totals"]["goodput_bps"] < a["totals"]["goodput_bps"]
    cpu = b["cpu"][m[6]]
    assert cpu["idle"] == 0 and cpu["irq"] + cpu["softirq"] > 0.9


@pytest.mark.usefixtures("built")
def test_interrupt_moderation_and_a_stalling_reader(tmp_path):
    m = _stated(r"([\d.]+)% lost, in bursts at drops\.(\w+); a bigger socket buffer: nothing lost")
    stalled = _record(_command("itr 2500, stalls"), tmp_path)
    bigger = _record(_command("itr 2500, stalls, big rcvbuf"), tmp_path)
    lost = stalled["totals"]["sent"] - stalled["totals"]["received"]
    assert round(100 * stalled["totals"]["loss"], 1) == float(m[1])
    assert stalled["drops"][m[2]] == lost > 0
    assert bigger["totals"]["loss"] == 0


@pytest.mark.usefixtures("built")
def test_multicast_has_one_flow_per_member_and_tcp_runs(tmp_path):
    group = _record(_command("multicast"), tmp_path)
    assert len(group["flows"]) == 40  # "one record flow per member"
    tcp = _record(_command("tcp two-site"), tmp_path)
    assert tcp["params"]["protocol"] == "tcp" and tcp["totals"]["received"] > 0


@pytest.mark.usefixtures("built")
def test_a_2002_server_is_cpu_bound_with_standard_frames_not_with_jumbo(tmp_path):
    _stated(r"standard frames load its CPU fully, jumbo frames do not")
    jumbo_cmd = _command("xeon-2002 jumbo")
    standard_cmd = jumbo_cmd.replace(" --mtu 9000", "")
    jumbo, standard = _record(jumbo_cmd, tmp_path), _record(standard_cmd, tmp_path)
    (jumbo_cpu,) = jumbo["cpu"].values()
    (standard_cpu,) = standard["cpu"].values()
    assert standard_cpu["idle"] < 0.05 < 0.5 < jumbo_cpu["idle"]
    assert jumbo["totals"]["goodput_bps"] > standard["totals"]["goodput_bps"]
