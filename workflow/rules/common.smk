# SPDX-License-Identifier: GPL-2.0-only
# Studies -> points and paths. Everything is validated here, at parse time, so a bad
# study stops the workflow before any job runs: the workflow keys against
# config.schema.yaml, each study against study.schema.yaml (Snakemake's validate, with
# defaults filled), then every point of every source against the option vocabulary
# (lanloss.study.from_mapping -> lanloss.options.resolve).

import os
import shlex
import sys

from snakemake.exceptions import WorkflowError
from snakemake.logging import logger
from snakemake.utils import min_version, validate

from lanloss import inputs as linputs
from lanloss import paths as lpaths
from lanloss import provenance
from lanloss import repetitions as lrep
from lanloss import sim as lsim
from lanloss import study as lstudy

min_version("9.0")


# The config files Snakemake has read are held to the rules of every user file lanloss
# reads (lanloss.inputs: size, depth, aliases, duplicate keys), as one line, before the
# schema walks them. Used as a module, this workflow's config is the `config:` the outer
# workflow gives it, and the config files read are the outer workflow's own.
if workflow.modifier.is_main_snakefile():
    for _configfile in workflow.configfiles:
        try:
            linputs.load_yaml(str(_configfile), "config file")
        except linputs.InputError as exc:
            raise WorkflowError(str(exc)) from None

validate(config, "../schemas/config.schema.yaml")
try:  # what the schema cannot judge: a results path the rules carry, bed_args' options
    lstudy.check_workflow_keys(config)
except lstudy.StudyError as exc:
    raise WorkflowError(str(exc)) from None

# Paths are quoted in every rule's shell command ({output:q}, {input:q}, {log:q}).
RESULTS = config["results"].rstrip(os.sep) or "."
# Every rule calls the lanloss CLI with the interpreter running Snakemake (the .venv),
# also inside Slurm jobs, which re-run Snakemake with the same interpreter.
LANLOSS = f"{shlex.quote(sys.executable)} -m lanloss.cli"
BED_ARGS = config["bed_args"]
# First line of every run's log: where it ran (the Slurm job id, when under Slurm).
JOB_STAMP = 'echo "host=$(hostname) slurm_job_id=${SLURM_JOB_ID:-none} start=$(date -Is)"'


def how_to_run(value):
    """A rule's param that says how its job runs, not what it makes (the interpreter, the
    log's first line, bed_args): a function of the output, which Snakemake's params rerun
    trigger leaves out, so changing it does not invalidate the outputs made so far."""
    return lambda wildcards, output: value


def _say(text):
    if workflow.is_main_process:  # not again in every Slurm job's own Snakemake
        logger.warning(f"lanloss: {text}")


def _load_studies():
    global BED_ARGS
    try:
        mappings = lstudy.study_mappings(config, LANLOSS_DIR)
        # A study file may say which testbed its points need (`bed_args: --backend vm`):
        # used when the workflow's own bed_args are empty, if every study agrees.
        own = {}
        for i, (where, data) in enumerate(mappings):
            if isinstance(data, dict) and "bed_args" in data:
                data = dict(data)
                own[where] = str(data.pop("bed_args") or "")
                mappings[i] = (where, data)
        if own and not BED_ARGS:
            if len(set(own.values())) > 1 or len(own) < len(mappings):
                raise lstudy.StudyError(
                    f"studies: {sorted(own)} need their own bed_args ({sorted(set(own.values()))})"
                    "; run them on their own, or give bed_args"
                )
            BED_ARGS = next(iter(own.values()))
        studies = []
        for where, data in mappings:
            lstudy.validate(dict(data) if isinstance(data, dict) else data, where)  # one line
            validate(data, "../schemas/study.schema.yaml")  # the same schema; fills defaults
            studies.append(lstudy.from_mapping(data, where, BED_ARGS))
        lstudy.check_unique(studies)
    except lstudy.StudyError as exc:
        raise WorkflowError(str(exc)) from None
    return studies


STUDIES = _load_studies()
STUDY = {s.name: s for s in STUDIES}
# bed_args as checked whole tokens (lanloss.study.bed_args_tokens: testbed options only),
# quoted: the bed_point rule's shell sees each as one word, never as syntax.
try:
    BED_ARGS_QUOTED = shlex.join(lstudy.bed_args_tokens(BED_ARGS))
    BED_RESTORE_QUOTED = shlex.join(lstudy.bed_restore_tokens(BED_ARGS))
except lstudy.StudyError as exc:
    raise WorkflowError(str(exc)) from None


# -- the testbed switch ----------------------------------------------------------------------
# Without root the netns testbed cannot run: its runs are left out, said once, and each
# study's table, fit and figures are made from its simulator runs alone.
try:
    RUN_BED, _why_not = lstudy.bed_decision(config["bed"], config["bed_args"], os.geteuid())
except lstudy.StudyError as exc:
    raise WorkflowError(str(exc)) from None
if not RUN_BED:
    for _s in STUDIES:
        _n = len(_s.points_for("bed"))
        if _n:
            _say(
                f"skipping the {_n} testbed runs of study {_s.name}: {_why_not}; its "
                "table, fit and figures use the simulator's runs only"
            )

# One testbed run at a time, even when neither a profile nor --resources says so.
if "testbed" not in workflow.global_resources:
    workflow.register_resource("testbed", 1)


def take_down_standing_lan():
    """`lanloss bed restore` with bed_args' prefix and state folder: the LAN the testbed
    points left standing goes, and the machine's settings with it (a no-op when none)."""
    if RUN_BED:
        shell(f"{LANLOSS} bed restore {BED_RESTORE_QUOTED} >/dev/null 2>&1 || true")


def sources(study):
    return [src for src in STUDY[study].sources if src != "bed" or RUN_BED]


def points(study, source):
    return STUDY[study].points_for(source) if source in sources(study) else []


# -- paths -----------------------------------------------------------------------------------
def run_file(study, source, pid):
    return f"{RESULTS}/runs/{study}/{source}/{pid}.json"


def planned_run_files(study):
    """The runs known before any has run: every source's seeds 1..N (adaptive: 1..min)."""
    return [run_file(study, src, p.id) for src in sources(study) for p in points(study, src)]


def run_files(study):
    """Every run of the study: the planned ones, then the testbed repetitions its rounds
    asked for. Calls checkpoints: for input functions only."""
    return planned_run_files(study) + [
        run_file(study, "bed", p.id) for p in adaptive_repetitions(study)
    ]


# -- adaptive repetitions (lanloss.repetitions) ---------------------------------------------
# Round k (checkpoint `repetitions`, k = min..max) reads seeds 1..k of every testbed point
# still running and writes which of them run seed k + 1; the next round waits for those.
# A round's file is whole or absent, so an interrupted workflow resumes with the runs and
# rounds that have none: finished repetitions are never redone.
def adaptive(study):
    return STUDY[study].repetitions.adaptive and bool(points(study, "bed"))


def round_path(study, k):
    return f"{RESULTS}/repetitions/{study}/round-{k}.json"


def _round_file(study, k):
    return checkpoints.repetitions.get(study=study, k=str(k)).output[0]


def running_at(study, k):
    """The testbed points (groups) that round k decides on: all at round min, else those
    round k - 1 said run again."""
    if k == STUDY[study].repetitions.min:
        return list(STUDY[study].repetitions_of("bed"))
    return lrep.repeating(_round_file(study, k - 1))


def round_inputs(study, k):
    """Round k's input: seeds 1..k of every point it decides on."""
    runs = STUDY[study].repetitions_of("bed")
    return [run_file(study, "bed", p.id) for g in running_at(study, k) for p in runs[g][:k]]


def adaptive_repetitions(study):
    """The testbed runs the rounds asked for beyond min (every round is made, up to max, so
    each point's last round says why it stopped)."""
    if not adaptive(study):
        return []
    reps, runs, out = STUDY[study].repetitions, STUDY[study].repetitions_of("bed"), []
    for k in range(reps.min, reps.max + 1):
        again = lrep.repeating(_round_file(study, k))
        if not again:
            break
        out += [runs[g][k] for g in again]  # seed k + 1 (round max repeats none)
    return out


def decide_round(study, k, files, out, log):
    """Round k's decisions from its input records, by point (lanloss.repetitions); the log
    says how many points run again."""
    by_group = {}
    for f in files:
        point = STUDY[study].point("bed", os.path.basename(f).removesuffix(".json"))
        by_group.setdefault(point.group, []).append(f)
    again = lrep.write_round(out, k, STUDY[study].repetitions, by_group)
    with open(log, "w", encoding="utf-8") as fh:
        fh.write(f"round {k}: {len(again)} of {len(by_group)} testbed points run seed {k + 1}\n")


def table_path(study):
    return f"{RESULTS}/tables/{study}.parquet"


def summary_path(study):
    return f"{RESULTS}/tables/{study}-summary.csv"


def fit_path(study):
    return f"{RESULTS}/fits/{study}.json"


def host_path(study):
    return f"{RESULTS}/fits/{study}-host.yaml"


def validated(study):
    """A fitted study with testbed points gets `lanloss validate` (and --holdout)."""
    return STUDY[study].fit and "bed" in sources(study) and bool(points(study, "bed"))


def validation_files(study, kind):
    """`lanloss validate` of a fitted study with testbed runs: kind validation or holdout."""
    return [f"{RESULTS}/fits/{study}-{kind}.{ext}" for ext in ("csv", "json", "txt")]


def figure_files(study, figure):
    base = f"{RESULTS}/figures/{study}/{figure}"
    return [f"{base}.png", f"{base}.pdf", f"{base}-errors.csv", f"{base}-caption.md"]


def figure_caption(wildcards):
    """The figure's fixed description (workflow/report/fig-<figure>.rst, else a generic
    one), then (once drawn: the report is made after the run) the caption `lanloss
    figures` generated from the figure's own error table."""
    path = os.path.join(LANLOSS_DIR, "workflow", "report", f"fig-{wildcards.figure}.rst")
    text = f"Figure ``{wildcards.figure}`` (``lanloss figures {wildcards.figure}``)."
    if os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    drawn = f"{RESULTS}/figures/{wildcards.study}/{wildcards.figure}-caption.md"
    if os.path.exists(drawn):
        with open(drawn, encoding="utf-8") as fh:
            text += "\n\n::\n\n" + "".join(f"    {line}" for line in fh)
    return text


def versions_path():
    return f"{RESULTS}/versions.txt"


# The software this workflow runs with (lanloss.provenance.versions: Python packages,
# kernel, the compiler of the scenario program), read when the workflow is parsed.
VERSIONS = provenance.versions(lpaths.BUILD / "bin" / lsim.SCENARIO)


def point_flags(wildcards, source):
    """The run flags of one point, quoted for the shell."""
    try:
        point = STUDY[wildcards.study].point(source, wildcards.point)
    except KeyError as exc:
        raise WorkflowError(f"{exc.args[0]} (not a point of the study's grid)") from None
    return shlex.join(point.cli_args())


def all_targets():
    """Every study's runs, table and summary; its fit and figures when it asks for them;
    the versions the workflow ran with."""
    out = []
    for s in STUDIES:
        files = planned_run_files(s.name)  # the rest come through the table's input
        if not files:
            _say(f"study {s.name} has no runs to make (its sources: {list(s.sources)})")
            continue
        out += files + [table_path(s.name), summary_path(s.name)]
        if s.fit:
            out += [fit_path(s.name), host_path(s.name)]
            if validated(s.name):
                out += validation_files(s.name, "validation") + validation_files(s.name, "holdout")
        for fig in s.figures:
            out += figure_files(s.name, fig)
    return out + [versions_path()] if out else out


wildcard_constraints:
    study=r"[a-z0-9_-]+",
    point=r"[^/]+",
    figure=r"[a-z0-9_-]+",
    k=r"[0-9]+",
