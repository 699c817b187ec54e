# SPDX-License-Identifier: GPL-2.0-only
"""`lanloss sim run`: one simulation point through the ns-3 scenario program.

The vocabulary options are validated here (before anything runs), passed to
build/bin/lanloss-sim as ns-3 CommandLine flags with the same names and
canonical units, and the program's JSON is completed into a run record.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from lanloss import host_values, outputs, paths, progress, provenance, topology
from lanloss import options as vocab
from lanloss.child import die_with_parent
from lanloss.progress import sim_progress
from lanloss.record import RunRecord, emit
from lanloss.totals import Stream, run_totals

SCENARIO = "lanloss-sim"


def is_topology_file(value: str) -> bool:
    return str(value).endswith((".yaml", ".yml"))


def scenario_flags(params: dict[str, Any], spec_file: str | None = None) -> list[str]:
    """Canonical params -> `--name=value` flags of the scenario program.

    With ``spec_file`` (what ``run_point`` passes: the run's LAN as lanloss.topology
    generates it) the topology flag names that file; without, a named topology is
    passed by name (the program's LanSpec::Star/TwoTier/TwoSite build the same LAN).
    Options without a value (host values of the ideal host, tcp_window of a
    UDP run) are left out: the program knows them as unset.
    """
    flags = []
    for opt in vocab.for_source("sim"):
        value = params[opt.name]
        if value is None:
            continue
        if opt.name == "topology" and spec_file is not None:
            value = spec_file
        flags.append(f"--{opt.name}={vocab.flag_text(opt, value)}")
    return flags


def spec_text(params: dict[str, Any]) -> str:
    """The run's LAN (lanloss.topology, as the testbed builds it) in the program's spec format.

    Flows are written out (the defaults when the topology names none), so the program
    builds exactly the flows listed."""
    topo = topology.of_params(params)
    topo = {**topo, "flows": topo["flows"] or topology.default_flows(topo["hosts"])}
    return topology.to_spec(topo)


def write_spec(params: dict[str, Any], path: str) -> str:
    """The run's LAN (spec_text) as a spec file at ``path``."""
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(spec_text(params))
    return path


def git_describe() -> dict[str, Any]:
    """The lanloss commit the run was made with (+dirty), for reproducibility."""
    try:
        commit = subprocess.run(
            ["git", "-C", str(paths.REPO), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
        dirty = bool(
            subprocess.run(
                ["git", "-C", str(paths.REPO), "status", "--porcelain", "--untracked-files=no"],
                capture_output=True,
                text=True,
                timeout=10,
                check=True,
            ).stdout.strip()
        )
        return {"lanloss_commit": commit, "lanloss_dirty": dirty}
    except (OSError, subprocess.SubprocessError):
        return {"lanloss_commit": None, "lanloss_dirty": None}


def host_env(params: dict[str, Any], host_file: str | None = None) -> dict[str, Any]:
    """Which host model the run used: the preset, and the host file (name, path, hash)."""
    env: dict[str, Any] = {"preset": params.get("host", "ideal")}
    if host_file is not None:
        loaded = host_values.load_host_file(host_file, params.get("host"))
        with open(host_file, "rb") as fh:
            digest = hashlib.sha256(fh.read()).hexdigest()
        env.update({"file": os.path.abspath(host_file), "name": loaded["name"], "sha256": digest})
    return env


def ns3_version() -> str | None:
    """The installed ns-3 (the PyPI wheel the scenario program is built against)."""
    return provenance.package_versions(["ns3"])["ns3"]


def streams_of(raw: dict[str, Any], params: dict[str, Any]) -> dict[str, Stream]:
    """The scenario's sending applications (extra.senders) as lanloss.totals streams."""
    rates = {f"flow{f['stream']}": f["rate_bps"] for f in raw["flows"]}
    out = {}
    for key, s in raw.get("extra", {}).get("senders", {}).items():
        rate = rates.get(key, 0)
        if "messages" in s:  # TCP: whole messages accepted; bulk transfer, rate max
            attempted, span = int(s["messages"]), float(params["duration"])
        else:
            attempted = int(s["sent_ok"]) + int(s["send_failures"])
            span = max(0.0, float(s.get("last_send_s", 0)) - float(s.get("first_send_s", 0)))
        out[key] = Stream("max" if not rate else float(rate), attempted, span, params["pattern"])
    return out


def flows_and_totals(
    raw: dict[str, Any], params: dict[str, Any]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The scenario's flows (without their stream keys) and the run's totals."""
    streams = streams_of(raw, params)
    keyed = [{**f, "stream": f"flow{f['stream']}"} for f in raw["flows"]]
    totals = run_totals(keyed, streams, int(params["payload"]), float(params["duration"]))
    flows = [{k: v for k, v in f.items() if k not in ("stream", "rate_bps")} for f in raw["flows"]]
    return flows, totals


class SimFailed(RuntimeError):
    """The scenario program failed on input lanloss had accepted: one line, exit 1."""


def _refusal(returncode: int, stderr: str) -> None:
    """The program's own one-line refusal (exit 2) as bad input; anything else as one line."""
    lines = [ln.strip() for ln in stderr.strip().splitlines() if ln.strip()]
    last = lines[-1] if lines else ""
    if returncode == 2 and last:
        raise vocab.OptionError(last.removeprefix(f"{SCENARIO}: error: "))
    how = f"signal {-returncode}" if returncode < 0 else f"exit {returncode}"
    raise SimFailed(f"{SCENARIO} failed ({how}): {last or 'no message'}")


# -- the run's temporary folder ----------------------------------------------------------

# A run's folder is named after its owner: lanloss-sim-PID-START-RANDOM (START: the
# process's start time in clock ticks since boot, /proc/PID/stat field 22), and the owner
# holds an flock on it while it lives. A folder a killed run (kill -9) left is removed by
# the next run: only names of exactly that form, owned by this user, whose owner process
# is gone (no process PID started at START) and whose lock is free.
RUN_FOLDER_PREFIX = f"{SCENARIO}-"
_RUN_FOLDER = re.compile(rf"^{re.escape(RUN_FOLDER_PREFIX)}(\d+)-(\d+)-[A-Za-z0-9_]+$")


def process_start(pid: int) -> int | None:
    """When process ``pid`` started (clock ticks since boot), or None if there is none."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[19]) if len(fields) > 19 and fields[19].isdigit() else None


def _owner_alive(name: str) -> bool:
    match = _RUN_FOLDER.match(name)
    assert match is not None
    return process_start(int(match[1])) == int(match[2])


def _remove_if_unlocked(path: str) -> bool:
    """Remove the run folder ``path`` if it is a real folder of ours whose lock is free."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return False
    try:
        st = os.fstat(fd)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False  # its run still holds it
        shutil.rmtree(path, ignore_errors=True)
        return True
    finally:
        os.close(fd)


def remove_stale_run_folders(root: str | None = None) -> list[str]:
    """Remove the run folders under ``root`` (the temporary directory) whose run is gone."""
    root = root or tempfile.gettempdir()
    try:
        names = os.listdir(root)
    except OSError:
        return []
    removed = []
    for name in sorted(names):
        if not _RUN_FOLDER.match(name) or _owner_alive(name):
            continue
        path = os.path.join(root, name)
        if _remove_if_unlocked(path):
            removed.append(path)
    return removed


@contextmanager
def run_folder() -> Iterator[str]:
    """A new temporary folder for one run, named after this process and locked while it
    lives; removed at the end (stale ones of killed runs first)."""
    remove_stale_run_folders()
    pid = os.getpid()
    path = tempfile.mkdtemp(prefix=f"{RUN_FOLDER_PREFIX}{pid}-{process_start(pid)}-")
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)
        os.close(fd)


@contextmanager
def interruptible() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt inside the block, even when the shell that started
    us ignores it (a background job, `lanloss sim run ... &`), so Ctrl-C and kill -INT
    stop the program and remove the run folder; the handler before is restored after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def _run_scenario(cmd: list[str], params: dict[str, Any], progress: bool) -> tuple[int, str]:
    """Run the program (it dies with us; stopped if we are), with a spinner on a terminal."""
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            preexec_fn=die_with_parent(),
        )
        try:
            with sim_progress(progress, params):
                proc.wait()
        finally:
            if proc.poll() is None:  # interrupted: the program goes with us
                proc.kill()
                proc.wait()
        err.seek(0)
        return proc.returncode, err.read().decode(errors="replace")


def run_point(
    params: dict[str, Any],
    pcap_dir: str | None = None,
    host_file: str | None = None,
    progress: bool = False,
) -> RunRecord:
    """Run one resolved parameter set; returns the run record.

    ``host_file``: the host file ``params`` were resolved with (options.resolve),
    recorded in ``env.host``; the values themselves are in ``params``.
    """
    program = paths.program(SCENARIO)
    started = provenance.utc_now()
    with interruptible(), run_folder() as tmp:
        out = os.path.join(tmp, "result.json")
        spec_file = write_spec(params, os.path.join(tmp, "topology.spec"))
        cmd = [str(program), *scenario_flags(params, spec_file), f"--out={out}"]
        made_pcap = False
        if pcap_dir:
            made_pcap = not os.path.isdir(pcap_dir)
            os.makedirs(pcap_dir, exist_ok=True)
            cmd.append(f"--pcap={os.path.join(os.path.abspath(pcap_dir), 'lanloss')}")
        t0 = time.monotonic()
        try:
            returncode, stderr = _run_scenario(cmd, params, progress)
        except BaseException:
            if made_pcap:
                shutil.rmtree(pcap_dir, ignore_errors=True)
            raise
        wall = time.monotonic() - t0
        if returncode != 0:
            if made_pcap:
                shutil.rmtree(pcap_dir, ignore_errors=True)
            _refusal(returncode, stderr)
        with open(out, encoding="utf-8") as fh:
            raw = json.load(fh)
    env = {
        "simulator": "ns-3",
        "ns3_version": ns3_version(),
        **git_describe(),
        "host": host_env(params, host_file),
        "started_utc": started,
        "hostname": provenance.hostname(),
        "program_sha256": provenance.files_sha256([program]),
        "versions": provenance.versions(program),
    }
    timing = {"wall_s": round(wall, 3), **raw.get("timing", {})}
    flows, totals = flows_and_totals(raw, params)
    return RunRecord.from_dict(
        {
            "schema": "lanloss.run/1",
            "source": "sim",
            "params": params,
            "env": env,
            "flows": flows,
            "totals": totals,
            "drops": raw["drops"],
            "pause": raw.get("pause", {}),
            "cpu": raw.get("cpu", {}),
            "timing": timing,
            "extra": raw.get("extra", {}),
        }
    )


def _cmd_run(args: argparse.Namespace) -> int:
    from lanloss.cli import given_options

    params = vocab.resolve(given_options(args, "sim"), "sim", host_file=args.host_file)
    check_point(params)
    outputs.check_file(args.out, "--out")
    outputs.check_dir(args.pcap, "--pcap")
    progress = args.progress if args.progress is not None else sys.stderr.isatty()
    record = run_point(params, pcap_dir=args.pcap, host_file=args.host_file, progress=progress)
    emit(record, args.out)
    return 0


def check_point(params: dict[str, Any]) -> None:
    """What only the scenario program would find, found first (OptionError)."""
    if is_topology_file(params["topology"]):
        topology.load(params["topology"], params["link_delay"])  # reject a bad file first
    if params["pause"] == "on":
        check_against_lan(params)


def check_against_lan(params: dict[str, Any]) -> None:
    """The program's own checks of the flags against the run's LAN (CheckOptionsAgainstLan
    in ns3-scratch/scenario-options.cc: the PAUSE headroom of every switch port, which
    only PAUSE runs have), run by the program itself (--check): a refusal is OptionError."""
    try:
        program = paths.program(SCENARIO)
    except FileNotFoundError as exc:
        raise SimFailed(str(exc)) from None
    cmd = [str(program), *scenario_flags(params, "/dev/stdin"), "--check=true"]
    proc = subprocess.run(
        cmd,
        input=spec_text(params),
        capture_output=True,
        text=True,
        check=False,
        preexec_fn=die_with_parent(),
    )
    if proc.returncode != 0:
        _refusal(proc.returncode, proc.stderr)


def add_parser(sub: argparse._SubParsersAction) -> None:
    from lanloss.cli import add_vocabulary_options

    p_sim = sub.add_parser("sim", help="the ns-3 simulation")
    sim_sub = p_sim.add_subparsers(dest="sim_command", required=True, parser_class=type(p_sim))
    p = sim_sub.add_parser("run", help="run one simulation point and print its run record")
    add_vocabulary_options(p, "sim")
    p.add_argument("--out", help="write the run record to this file (atomically)")
    p.add_argument("--pcap", metavar="DIR", help="write pcap files (Ethernet link type) here")
    progress.add_args(p)
    p.add_argument(
        "--host-file",
        metavar="FILE",
        help="receiving-host values (YAML/JSON: name, base preset, host options), e.g. the "
        "calibrated host `lanloss fit` writes; explicit options override it",
    )
    p.set_defaults(func=_cmd_run)
