# SPDX-License-Identifier: GPL-2.0-only
"""Sphinx configuration of the lanloss module manual (index.rst: lanloss.rst, host-model.rst).

Build: sphinx-build -W --keep-going -b html models/doc OUT (tests/test_manual.py does).
Inside an ns-3 tree the module's .rst files go into ns-3's models manual, which has its own
configuration; this file serves the stand-alone build only. Nothing here needs the network:
no extensions, a builtin theme.
"""

project = "lanloss"
root_doc = "index"
language = "en"
extensions = []
exclude_patterns = ["_build"]
# The code blocks are C++ unless a file or a block says otherwise (ns-3's module manuals).
highlight_language = "cpp"
html_theme = "alabaster"
