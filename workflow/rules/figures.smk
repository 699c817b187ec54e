# SPDX-License-Identifier: GPL-2.0-only
# Table (+ fit) -> one figure of a study (`lanloss figures FIGURE`): PNG and PDF, and the
# error table against the seed's reference values. A figure's caption in the report is
# workflow/report/fig-<figure>.rst when it exists, else a generic one (figure_caption in
# common.smk).

localrules:
    figure,


rule figure:
    input:
        table=table_path("{study}"),
        fit=lambda w: [fit_path(w.study)] if STUDY[w.study].fit else [],
        validation=lambda w: [validation_files(w.study, "validation")[0]]
        if w.figure == "simbed" and validated(w.study)
        else [],
    output:
        png=report(
            f"{RESULTS}/figures/{{study}}/{{figure}}.png",
            caption="../report/figure.rst",
            category="{study}",
            subcategory="figures",
            labels={"study": "{study}", "figure": "{figure}"},
        ),
        pdf=f"{RESULTS}/figures/{{study}}/{{figure}}.pdf",
        caption=f"{RESULTS}/figures/{{study}}/{{figure}}-caption.md",
        errors=report(
            f"{RESULTS}/figures/{{study}}/{{figure}}-errors.csv",
            caption="../report/errors.rst",
            category="{study}",
            subcategory="figure errors",
            labels={"study": "{study}", "figure": "{figure}"},
        ),
    params:
        # argument lists, each word quoted by {params.fit:q}
        fit=lambda w, input: ["--fit", *input.fit] if input.fit else [],
        validation=lambda w, input: ["--validation", *input.validation]
        if input.validation
        else [],
        outdir=lambda w, output: os.path.dirname(output.png),
        caption=figure_caption,
        lanloss=how_to_run(LANLOSS),
    log:
        f"{RESULTS}/logs/{{study}}/figure-{{figure}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/{{study}}/figure-{{figure}}.tsv"
    shell:
        "{params.lanloss} figures {wildcards.figure:q} --table {input.table:q} {params.fit:q}"
        " {params.validation:q} --out {params.outdir:q}/ 2> {log:q}"
