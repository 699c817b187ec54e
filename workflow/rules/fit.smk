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
    log:
        f"{RESULTS}/logs/{{study}}/fit.log",
    benchmark:
        f"{RESULTS}/benchmarks/{{study}}/fit.tsv"
    shell:
        "{LANLOSS} fit {input} --out {output.fit} --host-out {output.host} 2> {log}"
