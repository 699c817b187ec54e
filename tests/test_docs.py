# SPDX-License-Identifier: GPL-2.0-only
"""The README shows the vocabulary as the code defines it, and the two set-up commands first."""

from pathlib import Path

from lanloss import options

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()


def test_readme_vocabulary_table_is_current():
    assert options.markdown_table() in README, "regenerate with `lanloss options`"


def test_readme_starts_with_the_two_commands():
    setup = README.index("## Set-up")
    assert (
        README.index("make run", setup)
        < README.index("make test", setup)
        < README.index("## A five")
    )


REPO = Path(__file__).resolve().parent.parent
# The project's research notes that were never part of the repository: what the code needs
# of them is in docs/, and no file may point at them.
OUTSIDE = ("design.md", "science.md", "feasibility.md", "ns3-wheel.md", "anchors_ns3.md",
           "anchors_workflow.md", "shared/research", "mdk.md ")  # fmt: skip
SOURCES = ("*.py", "*.cc", "*.h", "*.c", "*.smk", "*.md", "*.rst", "*.yaml", "*.toml", "*.sh",
           "CMakeLists.txt", "*.cmake", "*.csv")  # fmt: skip


def _tracked_sources():
    skip = {".venv", "build", "results", ".git", ".snakemake"}
    for pattern in SOURCES:
        for path in REPO.rglob(pattern):
            if not skip & set(path.relative_to(REPO).parts):
                yield path
    yield REPO / "Makefile"
    yield REPO / "Snakefile"


def test_no_file_cites_a_document_outside_the_repository():
    hits = []
    for path in _tracked_sources():
        if path.name == "test_docs.py":
            continue
        text = path.read_text(errors="replace")
        hits += [f"{path.relative_to(REPO)}: {name}" for name in OUTSIDE if name in text]
    assert hits == []


def test_every_docs_section_a_file_cites_exists():
    import re

    cited = set()
    for path in _tracked_sources():
        for doc, sec in re.findall(r"docs/(\w+)\.md §(\d+)", path.read_text(errors="replace")):
            cited.add((doc, sec))
    assert cited, "nothing cites docs/"
    for doc, sec in sorted(cited):
        text = (REPO / "docs" / f"{doc}.md").read_text()
        assert f"## §{sec} " in text, f"docs/{doc}.md has no section §{sec}"


def test_every_source_file_carries_the_licence_and_the_licence_file_matches():
    import subprocess
    import tomllib

    tracked = subprocess.run(
        ["git", "ls-files", "*.py", "*.cc", "*.h", "*.c", "*.smk", "*.sh", "Makefile", "Snakefile"],
        capture_output=True, text=True, cwd=REPO, check=True,
    ).stdout.split()  # fmt: skip
    assert tracked
    missing = [f for f in tracked if "SPDX-License-Identifier: GPL-2.0-only" not in
               (REPO / f).read_text()[:400]]  # fmt: skip
    assert missing == []
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["license"] == {"text": "GPL-2.0-only"}
    assert "GNU GENERAL PUBLIC LICENSE" in (REPO / "LICENSE").read_text()
    assert "Version 2, June 1991" in (REPO / "LICENSE").read_text()


def test_every_docs_file_a_file_cites_exists():
    import re

    missing = set()
    for path in _tracked_sources():
        text = path.read_text(errors="replace")
        for name in re.findall(r"\bdocs/([\w./-]+\.(?:md|rst|png))", text):
            if not (REPO / "docs" / name).exists():
                missing.add(f"{path.relative_to(REPO)}: docs/{name}")
    assert sorted(missing) == []
