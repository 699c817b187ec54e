# SPDX-License-Identifier: GPL-2.0-only
"""The seed papers' figures, each with the seed's reference values and an error table.

"Seed" is a paper this project started from (seed 000 to 004); the ``seed`` option, the
random generator's run number, is another thing. One module per figure (``seed001``,
``seed000``, ``seed003``, ``seed002``, ``seed004``, ``simbed``, ``campus``), each with
``STUDY`` (the study in config/studies/ that feeds it), ``SHOWS`` (one line), ``REQUIRED``
(the table columns it reads) and ``draw(table, fit=None) -> (Figure, errors DataFrame)``; a
paper's figure also has ``CITATION`` (authors, title, venue and year, as far as they are
known: the caption's first line) and ``CITATION_SHORT`` (the title's second line).
``common`` holds the look, the reference CSVs, the error table and saving; ``evidence`` the
caption. ``lanloss figures`` is the command.
"""

from __future__ import annotations

import importlib
from types import ModuleType

FIGURES = ("seed001", "seed000", "seed003", "seed002", "seed004", "simbed", "campus")


def module(name: str) -> ModuleType:
    if name not in FIGURES:
        raise KeyError(name)
    return importlib.import_module(f"lanloss.analysis.figures.{name}")
