# SPDX-License-Identifier: GPL-2.0-only
"""Settings come back byte-identical: after a run, a failed run, SIGINT, SIGTERM, and after
kill -9 followed by the next call. The run raises kernel-wide sysctls above their current
values (rmem_max, wmem_max, netdev_max_backlog), so there is something to restore."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest
from bed_process import raising_args, read_settings, start, wait_for_traffic

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (network namespaces, sysctls)"),
    pytest.mark.netns,
    pytest.mark.slow,
]
REPO = Path(__file__).resolve().parents[2]


def leftovers(ns_prefix: str) -> list[str]:
    names = os.listdir("/run/netns") if os.path.isdir("/run/netns") else []
    cg = os.listdir("/sys/fs/cgroup/cpu") if os.path.isdir("/sys/fs/cgroup/cpu") else []
    return [n for n in names + cg if n.startswith(ns_prefix)]


def test_settings_restored_after_a_successful_run(bed, tmp_path, ns_prefix):
    before = read_settings()
    out = tmp_path / "r.json"
    res = bed("run", *raising_args(), "--duration", "0.5s", "--out", str(out))
    assert res.returncode == 0, res.stderr
    assert read_settings() == before
    rec = json.loads(out.read_text())
    changed = {c["target"] for c in rec["env"]["changes"]}
    assert {"net.core.rmem_max", "net.core.wmem_max", "net.core.netdev_max_backlog"} <= changed
    for host in rec["env"]["hosts"].values():
        if "settings_before" in host:
            assert host["settings_before"] == host["settings_after"]
    assert not leftovers(ns_prefix)


def test_settings_restored_after_a_failed_run(bed, bed_state, ns_prefix):
    before = read_settings()
    res = bed("run", *raising_args(), "--duration", "0.5s", env={"LANLOSS_BED_FAULT": "traffic"})
    assert res.returncode == 1 and "injected fault" in res.stderr
    assert read_settings() == before
    assert not leftovers(ns_prefix)
    assert not list(bed_state.glob("journal*"))


@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_settings_restored_after_a_signal(sig, code, bed_state, ns_prefix):
    before = read_settings()
    proc = start(bed_state, ns_prefix, *raising_args(), "--duration", "4s")
    wait_for_traffic(bed_state, proc, ns_prefix)
    assert read_settings() != before  # the run did change them
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == code, err
    assert "restored" in err
    assert read_settings() == before
    assert not leftovers(ns_prefix)
    assert not (bed_state / "never.json").exists()
    assert not list(bed_state.glob("journal*"))


def test_kill_9_is_undone_by_the_next_call(bed, bed_state, ns_prefix, tmp_path):
    before = read_settings()
    proc = start(
        bed_state, ns_prefix, *raising_args(), "--slow-receiver", "50%", "--duration", "4s"
    )
    wait_for_traffic(bed_state, proc, ns_prefix)
    proc.kill()
    proc.communicate()
    assert read_settings() != before
    assert leftovers(ns_prefix)  # namespaces and the receiver's cgroup survive a kill -9
    assert list(bed_state.glob("journal*"))

    out = tmp_path / "next.json"
    res = bed("run", "--rate", "10Mbps", "--duration", "0.5s", "--out", str(out))
    assert res.returncode == 0, res.stderr
    assert "restoring first" in res.stderr
    assert read_settings() == before
    assert not leftovers(ns_prefix)
    assert json.loads(out.read_text())["totals"]["loss"] == 0
    # nothing of the killed run is still running
    ps = subprocess.run(["pgrep", "-f", f"{ns_prefix}run-"], capture_output=True, text=True)
    assert ps.stdout.strip() == ""


def test_restore_command_replays_the_journal(bed, bed_state, ns_prefix):
    before = read_settings()
    proc = start(bed_state, ns_prefix, *raising_args(), "--duration", "4s")
    wait_for_traffic(bed_state, proc, ns_prefix)
    proc.kill()
    proc.communicate()
    res = bed("restore")
    assert res.returncode == 0, res.stderr
    assert read_settings() == before
    assert not leftovers(ns_prefix)
    assert bed("restore").stderr.strip().endswith("nothing to restore")


def test_leftovers_of_a_discarded_journal_are_removed_by_their_markers(
    bed, bed_state, ns_prefix, tmp_path
):
    """A killed run whose journal was discarded (`restore --discard`) leaves namespaces and
    a cgroup that lanloss marked as its own: `bed cleanup` removes them (their run is
    gone), and says so."""
    htb = Path("/sys/module/sch_htb/parameters/htb_hysteresis")
    htb_before = htb.read_text()
    proc = start(
        bed_state, ns_prefix, "--rate", "10Mbps", "--slow-receiver", "50%", "--duration", "4s"
    )
    run_dirs: list[str] = []
    try:
        wait_for_traffic(bed_state, proc, ns_prefix)
        proc.kill()
        proc.communicate()
        assert leftovers(ns_prefix)
        journal = json.loads(next(bed_state.glob("journal*")).read_text())
        run_dirs = journal["local_dirs"]
        res = bed("restore", "--discard")
        assert res.returncode == 0, res.stderr
        assert not list(bed_state.glob("journal*"))
        assert leftovers(ns_prefix)  # nothing undone: the journal was dropped

        res = bed("cleanup")
        assert res.returncode == 0, res.stderr
        assert "removed namespace(s)" in res.stderr and f"{ns_prefix}r1" in res.stderr
        assert not leftovers(ns_prefix)
        ps = subprocess.run(["pgrep", "-f", f"{ns_prefix}run-"], capture_output=True, text=True)
        assert ps.stdout.strip() == ""
    finally:
        proc.kill()
        for folder in run_dirs:  # the discarded journal held their removal too
            shutil.rmtree(folder, ignore_errors=True)
        from lanloss.testbed import journal as jr

        held = jr.lock_machine(lambda s: None)  # no run is measuring meanwhile
        try:
            htb.write_text(htb_before)  # the discarded journal held its restore
        finally:
            held.release()
