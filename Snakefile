# SPDX-License-Identifier: GPL-2.0-only
# lanloss workflow: the data flow, top to bottom.
#
#   study (config/) --> points --> sim: `lanloss sim run`  --> results/runs/<study>/sim/<point>.json
#                             \--> bed: `lanloss bed run`  --> results/runs/<study>/bed/<point>.json
#        adaptive repetitions (bed): rounds --> results/repetitions/<study>/round-<k>.json
#   run records --> `lanloss table`   --> results/tables/<study>.parquet (+ -summary.csv)
#               --> `lanloss fit`     --> results/fits/<study>.json, <study>-host.yaml
#               --> `lanloss figures` --> results/figures/<study>/<figure>.{png,pdf}, -errors.csv, -caption.md
#   the environment    --> results/versions.txt (Python packages, kernel, C++ compiler)
#   snakemake --report results/report.zip     (figures, tables, fit, versions; captions in
#                                              workflow/report/)
#
# Run:     .venv/bin/snakemake --profile profiles/local           (make run: the default study)
# Others:  .venv/bin/snakemake --profile profiles/local --config studies=[tiny]
# Slurm:   .venv/bin/snakemake --profile profiles/slurm
# Rules are thin: each calls the lanloss CLI; config/README.md explains every key.

import os

# This checkout (the folder of this Snakefile): its config/, studies and report texts are
# found from here, also when another workflow uses this one as a module:
#   module lanloss:
#       snakefile: "<checkout>/Snakefile"
#       config: {"studies": [...], "results": "...", "bed": "off"}   # the workflow's keys
#   use rule * from lanloss as lanloss_*
# A module given a config skips the configfile below, so config.yaml's default study is
# not one of its studies.
LANLOSS_DIR = str(workflow.current_basedir)


configfile: os.path.join(LANLOSS_DIR, "config", "config.yaml")


include: "workflow/rules/common.smk"  # studies: schema, points, paths, the testbed switch
include: "workflow/rules/runs.smk"  # one job per point and source -> run record
include: "workflow/rules/table.smk"  # run records -> one table per study
include: "workflow/rules/fit.smk"  # table -> fitted loss model, calibrated host preset
include: "workflow/rules/figures.smk"  # table (+ fit) -> figures with error tables
include: "workflow/rules/versions.smk"  # the software the workflow ran with


report: "workflow/report/workflow.rst"


onsuccess:
    take_down_standing_lan()


onerror:
    take_down_standing_lan()


rule all:
    default_target: True
    input:
        all_targets(),


# Partial targets: `snakemake runs` (run records only, adaptive repetitions included),
# `snakemake tables`.
rule runs:
    input:
        lambda w: [f for s in STUDIES for f in run_files(s.name)],


rule tables:
    input:
        [table_path(s.name) for s in STUDIES],
