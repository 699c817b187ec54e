# SPDX-License-Identifier: GPL-2.0-only
"""The module manual (models/doc: index.rst, lanloss.rst, host-model.rst) builds with Sphinx
with warnings as errors, its pages carry their chapters and cross-references, and a broken
reference or a malformed table fails the build with a message naming the file and line."""

from __future__ import annotations

import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MANUAL = REPO / "models" / "doc"


def sphinx_build(source: Path, out: Path) -> subprocess.CompletedProcess[str]:
    """sphinx-build -W --keep-going -b html SOURCE OUT, with the test session's Sphinx."""
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html"]
    command += ["-d", str(out / ".doctrees"), str(source), str(out)]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


class Headings(HTMLParser):
    """The text of every h1..h3 of a page, without Sphinx's permalink sign."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self._open: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag in ("h1", "h2", "h3"):
            self._open = []

    def handle_endtag(self, tag):
        if tag in ("h1", "h2", "h3") and self._open is not None:
            self.found.append("".join(self._open).replace("\N{PILCROW SIGN}", "").strip())
            self._open = None

    def handle_data(self, data):
        if self._open is not None:
            self._open.append(data)


def headings(page: Path) -> list[str]:
    parser = Headings()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser.found


def test_the_manual_builds_without_a_warning(tmp_path):
    out = tmp_path / "html"
    result = sphinx_build(MANUAL, out)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # -q: anything on stderr is a warning or an error

    lanloss = headings(out / "lanloss.html")
    assert lanloss[0] == "lanloss: switched Ethernet with exact wire timing and IEEE 802.3x PAUSE"
    for title in ("Model Description", "Design", "Cost of a run", "Traces", "Validation"):
        assert title in lanloss
    host = headings(out / "host-model.html")
    assert host[0].startswith("The receiving host: NIC FIFO, RX ring, interrupts, NAPI")
    for title in ("Defaults and their sources", "Presets (--host)", "In the scenario"):
        assert title in host
    assert "The sending host\N{RIGHT SINGLE QUOTATION MARK}s CPU" in host

    index = (out / "index.html").read_text(encoding="utf-8")
    assert 'href="lanloss.html"' in index and 'href="host-model.html"' in index
    # The cross-references resolved: the chapters link each other and their own sections.
    assert 'href="host-model.html"' in (out / "lanloss.html").read_text(encoding="utf-8")
    host_html = (out / "host-model.html").read_text(encoding="utf-8")
    assert 'href="lanloss.html#lanloss-multicast"' in host_html
    assert 'href="#in-the-scenario"' in host_html


def copy_of_the_manual(tmp_path: Path) -> Path:
    copy = tmp_path / "doc"
    shutil.copytree(MANUAL, copy, ignore=shutil.ignore_patterns("_build"))
    return copy


def test_a_reference_to_a_missing_label_fails_the_build(tmp_path):
    copy = copy_of_the_manual(tmp_path)
    page = copy / "host-model.rst"
    lines = page.read_text(encoding="utf-8").splitlines()
    lines += ["", "See :ref:`no-such-section` for more."]
    page.write_text("\n".join(lines) + "\n", encoding="utf-8")

    result = sphinx_build(copy, tmp_path / "html")
    assert result.returncode != 0
    assert f"{page}:{len(lines)}: WARNING: undefined label: 'no-such-section'" in result.stderr


def test_a_malformed_table_fails_the_build(tmp_path):
    copy = copy_of_the_manual(tmp_path)
    page = copy / "lanloss.rst"
    lines = page.read_text(encoding="utf-8").splitlines()
    rule = "=" * 38 + "  " + "=" * 42  # the columns of the events-per-datagram table
    bottom = max(i for i, line in enumerate(lines) if line == rule)
    lines[bottom] = "=" * 29 + "  " + "=" * 49  # a bottom border unlike its top
    page.write_text("\n".join(lines) + "\n", encoding="utf-8")

    result = sphinx_build(copy, tmp_path / "html")
    assert result.returncode != 0
    assert f"{page}:{bottom + 1}: ERROR: Malformed table." in result.stderr
    assert "Bottom border or header rule does not match top border." in result.stderr
