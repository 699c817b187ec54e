# SPDX-License-Identifier: GPL-2.0-only
# Table -> the combined loss-versus-rate model (`lanloss fit`): parameters with bootstrap
# CIs, fit quality per source, the sim-vs-testbed discrepancy, and the host preset
# calibrated from the testbed that `lanloss sim run --host-file` accepts.

localrules:
    fit,


rule fit:
    input:
        table_path("{study}"),
    output:
        fit=report(
            fit_path("{study}"),
            caption="../report/fit.rst",
            category="{study}",
            subcategory="fit",
            labels={"study": "{study}", "file": "fitted model"},
        ),
        host=report(
            host_path("{study}"),
            caption="../report/host.rst",
            category="{study}",
            subcategory="fit",
            labels={"study": "{study}", "file": "calibrated host preset"},
        ),
    params:
        lanloss=how_to_run(LANLOSS),
    log:
        f"{RESULTS}/logs/{{study}}/fit.log",
    benchmark:
        f"{RESULTS}/benchmarks/{{study}}/fit.tsv"
    shell:
        "{params.lanloss} fit {input:q} --out {output.fit:q} --host-out {output.host:q} 2> {log:q}"


# The calibration checked end to end (`lanloss validate`): the simulator with the calibrated
# host at every testbed point, and the fitted testbed curve, against the testbed; then the
# same on a third of the rates the fit did not see (--holdout).
rule validate:
    input:
        table=table_path("{study}"),
        fit=fit_path("{study}"),
        host=host_path("{study}"),
    output:
        csv=f"{RESULTS}/fits/{{study}}-validation.csv",
        json=f"{RESULTS}/fits/{{study}}-validation.json",
        txt=report(
            f"{RESULTS}/fits/{{study}}-validation.txt",
            caption="../report/validation.rst",
            category="{study}",
            subcategory="fit",
            labels={"study": "{study}", "file": "validation"},
        ),
    threads: 2
    params:
        lanloss=how_to_run(LANLOSS),
    log:
        f"{RESULTS}/logs/{{study}}/validate.log",
    shell:
        "{params.lanloss} validate {input.table:q} --fit {input.fit:q} --host-file {input.host:q}"
        " --jobs {threads} --out {output.csv:q} --json-out {output.json:q} > {output.txt:q}"
        " 2> {log:q}"


rule holdout:
    input:
        table=table_path("{study}"),
    output:
        csv=f"{RESULTS}/fits/{{study}}-holdout.csv",
        json=f"{RESULTS}/fits/{{study}}-holdout.json",
        txt=report(
            f"{RESULTS}/fits/{{study}}-holdout.txt",
            caption="../report/validation.rst",
            category="{study}",
            subcategory="fit",
            labels={"study": "{study}", "file": "held-out validation"},
        ),
    threads: 2
    params:
        lanloss=how_to_run(LANLOSS),
    log:
        f"{RESULTS}/logs/{{study}}/holdout.log",
    shell:
        "{params.lanloss} validate {input.table:q} --holdout"
        " --jobs {threads} --out {output.csv:q} --json-out {output.json:q} > {output.txt:q}"
        " 2> {log:q}"
