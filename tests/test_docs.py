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
