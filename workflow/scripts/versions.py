# SPDX-License-Identifier: GPL-2.0-only
"""The workflow's versions.txt: the text of rule versions' param, written whole (lanloss
record.write_atomic); the job's log gets what goes wrong.

Run by the workflow (rule versions) only; `python -c "from lanloss import provenance;
print(provenance.versions_text(provenance.versions()), end='')"` prints the same by hand.
"""

# No `from __future__` import: Snakemake's `script:` puts its preamble above this file.
import sys

from lanloss.record import write_atomic

sm = globals()["snakemake"]
sys.stderr = open(sm.log[0], "w")  # noqa: SIM115 - the job's log
write_atomic(sm.output[0], sm.params.text)
