# SPDX-License-Identifier: GPL-2.0-only
# The software the workflow runs with (VERSIONS in common.smk: Python packages, kernel, the
# compiler of the scenario program) -> results/versions.txt, in the report. The text is a
# param: when a version changes, the file is made again. Each run record has its own
# (env.versions).

localrules:
    versions,


rule versions:
    output:
        report(
            versions_path(),
            caption="../report/versions.rst",
            category="environment",
            labels={"file": "versions"},
        ),
    params:
        text=provenance.versions_text(VERSIONS),
    log:
        f"{RESULTS}/logs/versions.log",
    script:
        "../scripts/versions.py"
