# SPDX-License-Identifier: GPL-2.0-only
# Table (+ fit) -> one figure of a study (`lanloss figures FIGURE`): PNG and PDF, and the
# error table against the seed's reference values. A figure's caption in the report is
# workflow/report/fig-<figure>.rst when it exists, else a generic one.

localrules:
    figure,


def _figure_caption(wildcards):
    """The figure's fixed description, then (once drawn: the report is made after the run)
    the caption `lanloss figures` generated from the figure's own error table."""
    path = os.path.join(workflow.basedir, "workflow", "report", f"fig-{wildcards.figure}.rst")
    text = f"Figure ``{wildcards.figure}`` (``lanloss figures {wildcards.figure}``)."
    if os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    drawn = f"{RESULTS}/figures/{wildcards.study}/{wildcards.figure}-caption.md"
    if os.path.exists(drawn):
        with open(drawn, encoding="utf-8") as fh:
            text += "\n\n::\n\n" + "".join(f"    {line}" for line in fh)
    return text


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
        caption=_figure_caption,
    log:
        f"{RESULTS}/logs/{{study}}/figure-{{figure}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/{{study}}/figure-{{figure}}.tsv"
    shell:
        "{LANLOSS} figures {wildcards.figure:q} --table {input.table:q} {params.fit:q}"
        " {params.validation:q} --out {params.outdir:q}/ 2> {log:q}"
