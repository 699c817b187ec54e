# SPDX-License-Identifier: GPL-2.0-only
# Run records -> one table per study (`lanloss table`: one row per run and receiver,
# parameters flattened), and a per-point summary of it for the report.

localrules:
    table,
    summary,


rule table:
    input:
        lambda w: run_files(w.study),
    output:
        report(
            table_path("{study}"),
            caption="../report/table.rst",
            category="{study}",
            subcategory="tables",
            labels={"study": "{study}", "table": "every run and receiver (Parquet)"},
        ),
    params:
        lanloss=how_to_run(LANLOSS),
    log:
        f"{RESULTS}/logs/{{study}}/table.log",
    benchmark:
        f"{RESULTS}/benchmarks/{{study}}/table.tsv"
    shell:
        "{params.lanloss} table --study {wildcards.study:q} --out {output:q} {input:q} 2> {log:q}"


rule summary:
    input:
        table_path("{study}"),
    output:
        report(
            summary_path("{study}"),
            caption="../report/summary.rst",
            category="{study}",
            subcategory="tables",
            labels={"study": "{study}", "table": "summary by point"},
        ),
    params:
        description=lambda w: STUDY[w.study].description.strip() or "(no description)",
        options=lambda w: STUDY[w.study].varied_options(),
    log:
        f"{RESULTS}/logs/{{study}}/summary.log",
    benchmark:
        f"{RESULTS}/benchmarks/{{study}}/summary.tsv"
    script:
        "../scripts/summary.py"
