# SPDX-License-Identifier: GPL-2.0-only
# One job per point and source: `lanloss sim run` / `lanloss bed run` with the point's
# flags writes its run record atomically, so a record is whole or absent and an
# interrupted workflow resumes with the points that have none. The log's first line
# says where the job ran (host, Slurm job id); the benchmark file holds its wall time
# and memory (bench/workflow_speed.py sums them by stage).


rule sim_point:
    output:
        run_file("{study}", "sim", "{point}"),
    log:
        f"{RESULTS}/logs/{{study}}/sim/{{point}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/{{study}}/sim/{{point}}.tsv"
    params:
        flags=lambda w: point_flags(w, "sim"),
        stamp=how_to_run(JOB_STAMP),
        lanloss=how_to_run(LANLOSS),
    # On a cluster `--group-components sim=N` runs N points per cluster job (profiles/slurm
    # explains): each job starts Snakemake anew (seconds), a point takes a fraction of one.
    group:
        "sim"
    shell:
        "{params.stamp} > {log:q}; {params.lanloss} sim run {params.flags} --out {output:q}"
        " 2>> {log:q}"


# The testbed runs on this machine (netns) or from it (ssh), never inside a cluster job:
# a local rule, one at a time (resource `testbed`), and with every local core, so no
# simulation competes for the CPUs while the testbed measures CPU-bound receivers.
localrules:
    bed_point,


rule bed_point:
    output:
        run_file("{study}", "bed", "{point}"),
    log:
        f"{RESULTS}/logs/{{study}}/bed/{{point}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/{{study}}/bed/{{point}}.tsv"
    params:
        flags=lambda w: point_flags(w, "bed"),
        stamp=how_to_run(JOB_STAMP),
        lanloss=how_to_run(LANLOSS),
        bed_args=how_to_run(BED_ARGS_QUOTED),
        retries=how_to_run(config["bed_retries"]),
    threads: os.cpu_count() or 1
    resources:
        testbed=1,
    # bed_args (backend, inventory, namespace prefix) say where and how to measure, not
    # what: how_to_run, so changing them does not invalidate the records made so far.
    # params.flags and params.bed_args are quoted already (shlex.join). --keep-lan: the
    # points share one standing LAN (a point of another shape rebuilds it); the workflow
    # takes it down when it ends (onsuccess/onerror in the Snakefile). --retry-disturbed:
    # config bed_retries (bed_args, after it, may say otherwise).
    shell:
        "{params.stamp} > {log:q}; {params.lanloss} bed run {params.flags}"
        " --retry-disturbed {params.retries} {params.bed_args}"
        " --no-progress --keep-lan --out {output:q} 2>> {log:q}"


# Adaptive repetitions (a study's `repetitions: {min, max, until}`): round k decides, from
# seeds 1..k of the testbed points still running, which run seed k + 1 (lanloss.repetitions:
# the Student-t 95 % interval of the runs' losses, half-width below `until`, or max runs).
# A checkpoint: the table's input (common.smk, run_files) is known once the rounds are made.
# The rule is a params, so changing it decides again (the runs made so far are kept).
checkpoint repetitions:
    input:
        lambda w: round_inputs(w.study, int(w.k)),
    output:
        round_path("{study}", "{k}"),
    log:
        f"{RESULTS}/logs/{{study}}/repetitions-{{k}}.log",
    params:
        decision_rule=lambda w: STUDY[w.study].repetitions.text(),
    localrule: True
    run:
        decide_round(wildcards.study, int(wildcards.k), input, output[0], log[0])
