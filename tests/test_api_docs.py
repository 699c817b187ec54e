# SPDX-License-Identifier: GPL-2.0-only
"""The ns-3 module's API documentation: Debian's doxygen builds it from models/doc/Doxyfile
with every warning an error, so an undocumented public member, a missing @param or @return,
or a header without its @file block fails here."""

from __future__ import annotations

import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
MODELS = REPO / "models"
DOXYFILE = MODELS / "doc" / "Doxyfile"
HEADERS = sorted([*MODELS.glob("model/*.h"), *MODELS.glob("helper/*.h")])
# A few classes of each part of the module: wire, switch, host model, traffic, helpers.
KNOWN_CLASSES = {
    "ns3::EthernetNetDevice",
    "ns3::EthernetChannel",
    "ns3::EthernetSwitchNetDevice",
    "ns3::MacControlHeader",
    "ns3::HostRxPath",
    "ns3::HostCpu",
    "ns3::HostSocket",
    "ns3::UdpFlowSource",
    "ns3::UdpFlowSink",
    "ns3::LossAccountant",
    "ns3::LanBuilder",
    "ns3::LanSpec",
}

pytestmark = pytest.mark.skipif(
    shutil.which("doxygen") is None,
    reason="doxygen is not installed (make setup installs it: testbed/install-deps.sh)",
)


def run_doxygen(root: Path, out: Path) -> subprocess.CompletedProcess:
    """doxygen on root/models/doc/Doxyfile (paths in it are relative to root), writing
    into out: the Doxyfile on stdin with OUTPUT_DIRECTORY overridden after it."""
    config = (root / "models/doc/Doxyfile").read_text() + f'\nOUTPUT_DIRECTORY = "{out}"\n'
    return subprocess.run(
        ["doxygen", "-"], input=config, capture_output=True, text=True, cwd=root, timeout=300
    )


def warnings_of(run: subprocess.CompletedProcess) -> list[str]:
    return [line for line in run.stderr.splitlines() if line.strip()]


def group_page(xml_dir: Path) -> ET.Element:
    return ET.parse(xml_dir / "group__lanloss.xml").getroot().find("compounddef")


def test_module_docs_build_without_a_warning(tmp_path):
    run = run_doxygen(REPO, tmp_path)
    warnings = warnings_of(run)
    assert run.returncode == 0 and warnings == [], (
        f"doxygen exit {run.returncode}, {len(warnings)} warnings; the first 20:\n"
        + "\n".join(warnings[:20])
    )
    group = group_page(tmp_path / "xml")
    assert group.findtext("title").startswith("lanloss")
    assert "802.3x" in ET.tostring(group.find("detaileddescription"), encoding="unicode")
    listed = {e.text for e in group.findall("innerclass")}
    assert KNOWN_CLASSES <= listed
    # Every class at namespace level is in the group, and every header has its @file block
    # in it (a header without one would hide its free functions and macros from the check).
    index = ET.parse(tmp_path / "xml" / "index.xml").getroot()
    top_level = {
        c.findtext("name")
        for c in index.findall("compound")
        if c.get("kind") in ("class", "struct") and c.findtext("name").count("::") <= 1
    }
    assert top_level <= listed, f"not @ingroup lanloss: {sorted(top_level - listed)}"
    assert {e.text for e in group.findall("innerfile")} == {h.name for h in HEADERS}
    html = (tmp_path / "html" / "group__lanloss.html").read_text()
    assert all(name.removeprefix("ns3::") in html for name in KNOWN_CLASSES)


@pytest.fixture
def models_copy(tmp_path) -> Path:
    """A copy of the module's headers and Doxyfile under tmp_path/models."""
    for part in ("model", "helper", "doc"):
        shutil.copytree(MODELS / part, tmp_path / "models" / part, ignore=_not_headers(part))
    return tmp_path


def _not_headers(part: str):
    def ignore(directory: str, names: list[str]) -> list[str]:
        return [] if part == "doc" else [n for n in names if not n.endswith(".h")]

    return ignore


ANCHOR = "    uint32_t GetFramesInFlight() const;\n"


@pytest.mark.parametrize(
    "added, named",
    [
        ("    void UndocumentedProbe(uint32_t frames);\n", "UndocumentedProbe"),
        (
            "    /** Documented, but its parameter is not. */\n"
            "    void ParamlessProbe(uint32_t frames);\n",
            "ParamlessProbe",
        ),
    ],
    ids=["undocumented-member", "undocumented-param"],
)
def test_an_undocumented_public_member_fails_the_build(models_copy, added, named):
    header = models_copy / "models/model/ethernet-channel.h"
    text = header.read_text()
    assert text.count(ANCHOR) == 1
    header.write_text(text.replace(ANCHOR, ANCHOR + added))
    run = run_doxygen(models_copy, models_copy / "out")
    offending = [w for w in warnings_of(run) if named in w]
    assert run.returncode != 0
    assert offending and all("not documented" in w for w in offending), run.stderr
    assert warnings_of(run) == offending  # the unmodified rest stays clean
