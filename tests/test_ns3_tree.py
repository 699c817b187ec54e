# SPDX-License-Identifier: GPL-2.0-only
"""The module inside an ns-3 source tree: Debian's ns-3 3.37 (`make ns3-tree-test`).

The target fetches the pinned source tarball (cached under build/ns3-tree), links models/ as
contrib/lanloss and ns3-scratch/ as scratch/lanloss-sim, builds them with ns-3's own CMake,
runs every lanloss suite under ns-3's test.py and the scenario program once. Here: every
suite the test sources declare passes there, and that scenario's record equals, packet for
packet, the one the wheel build (ns-3 3.44) writes for the same flags. Only a failed download
skips (with the URL); a tarball with another checksum fails."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path

import pytest
from test_ns3_suites import declared_suites

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parent.parent
# under the lock `make test` holds while it builds the tree in the background (Makefile)
MAKE = [
    "flock",
    str(REPO / "build" / "ns3-tree.lock"),
    "make",
    "--no-print-directory",
    "-C",
    str(REPO),
]
TREE_CACHE = REPO / "build" / "ns3-tree"
RECORD = TREE_CACHE / "lanloss-sim.json"
DOWNLOAD_FAILED = "ns3-tree: download failed"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def make_variable(name: str) -> str:
    """A `NAME := value` line of the Makefile (a single line)."""
    found = re.search(rf"^{name}\s*:=\s*(.*)$", (REPO / "Makefile").read_text(), re.M)
    assert found, f"Makefile has no {name}"
    return found.group(1).strip()


def profile_suffix(config: str) -> str:
    """What ns-3 appends to its library names for the build profile of `./ns3 configure
    CONFIG`: nothing for release, "-debug" for debug, and so on."""
    words = config.split()  # the first line of a continued Makefile variable: plain words
    profile = words[words.index("-d") + 1]
    return "" if profile == "release" else f"-{profile}"


@pytest.fixture(scope="module")
def tree_run() -> str:
    """The output of `make ns3-tree-test` (fetch, build, suites, scenario); fails on error."""
    fetch = subprocess.run([*MAKE, "ns3-tree-fetch"], capture_output=True, text=True)
    if fetch.returncode != 0:
        output = (fetch.stdout + fetch.stderr).strip()
        failed = [line for line in output.splitlines() if DOWNLOAD_FAILED in line]
        if failed:
            pytest.skip(f"ns-3 source not reachable: {failed[0]}")
        pytest.fail(output)
    RECORD.unlink(missing_ok=True)
    proc = subprocess.run([*MAKE, "ns3-tree-test"], capture_output=True, text=True, timeout=3600)
    output = ANSI.sub("", proc.stdout + proc.stderr)
    assert proc.returncode == 0, output[-6000:]
    return output


def test_every_suite_passes_under_ns3_test_py(tree_run):
    suites = declared_suites()
    assert len(suites) >= 9, suites
    for suite in suites:
        assert f"PASS: TestSuite {suite}\n" in tree_run, f"{suite} did not pass:\n{tree_run}"
    assert "FAIL" not in tree_run and "CRASH" not in tree_run, tree_run
    version = make_variable("NS3_TREE_VERSION")
    library = f"libns{version}-lanloss{profile_suffix(make_variable('NS3_TREE_CONFIG'))}.so"
    built = TREE_CACHE / f"ns-{version}" / "build" / "lib" / library
    assert built.is_file(), built


def test_the_scenario_counts_match_the_wheel_build(tree_run, built, tmp_path):
    """Same flags, same packets: every count, drop point and time stamp of the record is the
    same in ns-3 3.37 and 3.44. Only `timing` may differ (wall clock; and the event count,
    which includes ns-3's own internal events)."""
    args = shlex.split(make_variable("NS3_TREE_SIM_ARGS"))
    wheel_record = tmp_path / "wheel.json"
    subprocess.run(
        [str(built / "bin" / "lanloss-sim"), *args, f"--out={wheel_record}"],
        check=True,
        timeout=600,
    )
    tree = json.loads(RECORD.read_text())
    wheel = json.loads(wheel_record.read_text())
    for record in (tree, wheel):
        record.pop("timing")
    assert tree == wheel
    lost = [flow["lost"] for flow in tree["flows"]]
    assert sum(lost) > 0, "the scenario must lose packets, or it tests no drop path"
    for flow in tree["flows"]:
        assert flow["sent"] == flow["received"] + flow["lost"], flow
        assert flow["lost"] == sum(flow["drops"].values()) and flow["drops"]["unexplained"] == 0
