# SPDX-License-Identifier: GPL-2.0-only
"""Bad input: a one-line error naming the value, exit code 2, no output file."""

from __future__ import annotations

import pytest
from cli_checks import assert_sim_run_refused

DANGLING = """
switches: [sw1]
hosts: {s1: sender, r1: receiver}
links:
  - [s1, sw1, 100Mbps]
  - [r1, sw9, 100Mbps]
"""


@pytest.mark.parametrize(
    "args,named",
    [
        (["--no-such-option", "1"], "--no-such-option"),
        (["--rate", "fast"], "fast"),
        (["--edge-rate", "100Mbsp"], "100Mbsp"),
        (["--payload", "70000"], "70000"),
        (["--payload", "abc"], "abc"),
        (["--mtu", "9217"], "9217"),
        (["--mtu", "50"], "50"),
        (["--duration", "-2s"], "-2s"),
        (["--warmup", "-1ms"], "-1ms"),
        (["--switch-buffer", "12parsecs"], "12parsecs"),
        (["--pattern", "burst:0"], "burst:0"),
        (["--host", "pentium4"], "pentium4"),
        (["--duration", "1s", "--warmup", "2s"], "warmup"),
        (["--topology", "ring"], "ring"),
        (["--topology", "missing.yaml"], "missing.yaml"),
    ],
)
def test_bad_option_is_rejected(cli, tmp_path, args, named):
    assert_sim_run_refused(cli, tmp_path, args, named)
    assert list(tmp_path.iterdir()) == []


def test_dangling_link_in_topology_file(cli, tmp_path, built):
    topo = tmp_path / "bad.yaml"
    topo.write_text(DANGLING)
    out = tmp_path / "run.json"
    proc = cli("sim", "run", "--topology", str(topo), "--out", str(out))
    assert proc.returncode == 2
    assert "sw9" in proc.stderr and "dangling" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_scenario_program_rejects_bad_values_itself(built):
    """Direct users of the ns-3 program get the same one-line errors."""
    import subprocess

    proc = subprocess.run(
        [str(built / "bin" / "lanloss-sim"), "--edge_rate=fast"], capture_output=True, text=True
    )
    assert proc.returncode == 2
    assert "edge_rate" in proc.stderr and "fast" in proc.stderr


def test_good_run_writes_a_whole_record(cli, tmp_path, built):
    out = tmp_path / "run.json"
    proc = cli("sim", "run", "--rate", "10Mbps", "--duration", "0.05s", "--warmup", "0.01s",
               "--out", str(out))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    from lanloss.record import load

    rec = load(str(out))
    assert rec.source == "sim"
    assert rec.params["rate"] == 10_000_000
    assert rec.env["lanloss_commit"]
    assert rec.totals["received"] == rec.totals["sent"] > 0
