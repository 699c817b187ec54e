# SPDX-License-Identifier: GPL-2.0-only
"""`lanloss bed ...`: the testbed harness on the command line.

    lanloss bed run [options]   one point on the testbed -> run record (JSON)
    lanloss bed restore         replay a restore journal left by a crashed run
    lanloss bed cleanup         restore, then remove what lanloss made under <prefix>
    lanloss bed check           validate options; probe an inventory's hosts and switches

Exit status: 0 ok, 1 a host or the harness failed (settings restored), 2 bad
input (nothing touched), 130 Ctrl-C, 143 SIGTERM (settings restored).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import Any

from lanloss import progress
from lanloss.options import OptionError
from lanloss.record import emit
from lanloss.testbed import journal as jr
from lanloss.testbed import runner
from lanloss.testbed.backend import BACKENDS
from lanloss.testbed.errors import BedError, Cancelled

EXIT_FAILED = 1


def _state_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--prefix",
        default=os.environ.get("LANLOSS_NS_PREFIX", runner.DEFAULT_PREFIX),
        help="names of the namespaces, cgroups and journal of this harness: 3-24 ASCII "
        "letters, digits, '-', '_', '.', not starting with '.' or '-' "
        f"[default: {runner.DEFAULT_PREFIX}, or $LANLOSS_NS_PREFIX]",
    )
    p.add_argument(
        "--state-dir",
        default=None,
        help="where the restore journal lives [default: $LANLOSS_STATE_DIR or "
        "~/.local/state/lanloss]",
    )


def _say(text: str) -> None:
    print(f"lanloss bed: {text}", file=sys.stderr)


def _slow_receiver(text: str, given: dict[str, str]) -> None:
    """--slow-receiver 20%[,5us]: shorthand for --recv-cpu 20 [--recv-work 5us]; with either
    of those given too, which value holds would be a guess: an error."""
    m = re.fullmatch(r"\s*([0-9]+)\s*%?\s*(?:,\s*(\S+))?\s*", text)
    if not m:
        raise OptionError(f"--slow-receiver: {text!r} is not CPU%[,WORK] (e.g. 20%,5us)")
    sets = ("recv_cpu", "recv_work") if m.group(2) else ("recv_cpu",)
    for name in sets:
        if name in given:
            flag = "--" + name.replace("_", "-")
            raise OptionError(
                f"--slow-receiver: {text!r} and {flag} {given[name]!r} both set {name}; "
                "give one of them"
            )
    given["recv_cpu"] = m.group(1)
    if m.group(2):
        given["recv_work"] = m.group(2)


def _request(args: argparse.Namespace) -> runner.Request:
    from lanloss import options as vocab
    from lanloss.cli import given_options

    given = given_options(args, "bed")
    if args.slow_receiver:
        _slow_receiver(args.slow_receiver, given)
    params = vocab.resolve(given, "bed")
    state_dir = _state_dir(args)
    from lanloss import outputs

    outputs.check_file(getattr(args, "out", None), "--out")
    progress = args.progress if args.progress is not None else sys.stderr.isatty()
    req = runner.Request(
        params=params,
        given=set(given),
        backend=args.backend,
        tool=args.tool,
        inventory=args.inventory,
        prefix=args.prefix,
        state_dir=state_dir,
        pin=not args.no_pin,
        keep_log=not args.no_log,
        keep_lan=args.keep_lan is not None,
        switch_snmp=args.switch_snmp,
        lab_inventory=args.lab_inventory,
        lan_idle_s=_lan_idle(args.keep_lan),
        senders=args.sender,
        receivers=args.receiver,
        progress=progress,
        vm_nic=args.vm_nic,
        vm_icount=args.vm_icount,
        vm_guests=args.vm_guests,
        vm_vcpus=args.vm_vcpus,
        driver_params=_driver_params(args.driver_param),
    )
    return runner.prepare(req)


def _lan_idle(text: str | None) -> float:
    """--keep-lan IDLE: how long a standing LAN waits for the next run (a duration)."""
    from lanloss.units import parse_time

    if text is None:
        return 0.0
    idle = parse_time(text)
    if not 1.0 <= idle <= 86400.0:
        raise OptionError(f"--keep-lan: {text!r} must be from 1s to 1 day")
    return idle


def _driver_params(items: list[str] | None) -> dict[str, int]:
    """--driver-param NAME=N: a dict, or an OptionError naming the value (whether the
    backend can reload its hosts' NIC driver is the backend's check_request)."""
    out: dict[str, int] = {}
    for item in items or []:
        m = re.fullmatch(r"([A-Za-z][A-Za-z0-9_]*)=([0-9]+)", item.strip())
        if not m:
            raise OptionError(
                f"--driver-param: {item!r} is not NAME=N (e.g. InterruptThrottleRate=0)"
            )
        out[m.group(1)] = int(m.group(2))
    return out


def _guard(fn):  # type: ignore[no-untyped-def]
    """Harness failures as one line (exit 1); signals as 130/143 after the restore."""

    def wrapped(args: argparse.Namespace) -> int:
        try:
            return fn(args)
        except BedError as exc:
            print(f"lanloss: error: {exc}", file=sys.stderr)
            return EXIT_FAILED
        except KeyboardInterrupt:
            print("lanloss: interrupted; settings restored", file=sys.stderr)
            return 130
        except Cancelled as exc:
            print(f"lanloss: {exc} received; settings restored", file=sys.stderr)
            return 143

    return wrapped


def sweep_runner(params_list: list[dict], given: set[str]):  # type: ignore[no-untyped-def]
    """`lanloss sweep --source bed`: every point validated (netns backend) before the first
    runs; returns the function that runs one."""
    prefix = os.environ.get("LANLOSS_NS_PREFIX", runner.DEFAULT_PREFIX)
    reqs = {}
    for params in params_list:
        req = runner.Request(
            params=params, given=set(given), prefix=prefix, state_dir=jr.default_state_dir()
        )
        reqs[id(params)] = runner.prepare(req)

    def run(params: dict):  # type: ignore[no-untyped-def]
        with runner.Reporter(False) as rep:
            return runner.execute(reqs[id(params)], rep)

    return run


def _retries(text: str) -> int:
    """--retry-disturbed N: 0 to 10 more attempts."""
    if not re.fullmatch(r"[0-9]+", text.strip()) or int(text) > 10:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of attempts from 0 to 10")
    return int(text)


def _measure(req: runner.Request, retries: int):  # type: ignore[no-untyped-def]
    """One run of the point, measured again (the same seed: the same schedule) up to
    ``retries`` more times while lanloss.disturbance says the machine decided it; the
    record kept is the last attempt's, with the disturbed ones before it in
    ``extra.disturbed_attempts``."""
    from lanloss import disturbance

    attempts: list[dict] = []
    while True:
        with runner.Reporter(req.progress) as rep:
            record = runner.execute(req, rep)
        fields = disturbance.record_fields(record.params, record.totals, record.env, record.drops)
        why = disturbance.reasons(fields)
        if not why or len(attempts) >= retries:
            break
        attempts.append(disturbance.attempt_summary(record.totals, record.env["started_utc"], why))
        labels = ", ".join(disturbance.LABELS[r] for r in why)
        _say(
            f"the machine disturbed this run ({labels}): measuring it again "
            f"({len(attempts)} of {retries})"
        )
    if attempts:
        record.extra["disturbed_attempts"] = attempts
    return record


@_guard
def _cmd_run(args: argparse.Namespace) -> int:
    from lanloss import disturbance

    req = _request(args)  # everything validated: no host touched before this line
    record = _measure(req, args.retry_disturbed)
    why = disturbance.reasons(
        disturbance.record_fields(record.params, record.totals, record.env, record.drops)
    )
    if record.totals.get("offered_met") is False:
        _say(
            f"warning: the offered load was not met: sent {record.totals['achieved_send_bps']:.6g} "
            f"bit/s of {record.totals['offered_bps']:.6g} offered (totals.offered_met false; "
            "lanloss fit leaves such runs out)"
        )
    if disturbance.STALLED in why:
        _say(
            f"warning: a receiver was kept off the CPU for {record.totals['max_recv_stall_s']:.3g}"
            f" s, longer than its socket buffer lasts ({record.totals['recv_buffer_s']:.3g} s; "
            "totals.recv_stalled true; lanloss fit leaves such runs out)"
        )
    emit(record, args.out)
    return 0


def _state_dir(args: argparse.Namespace) -> str:
    """--prefix and --state-dir (or its default), checked (OptionError): a valid prefix,
    a folder that can be made and written."""
    from lanloss import outputs

    runner.check_prefix(args.prefix)
    state = args.state_dir or jr.default_state_dir()
    outputs.check_dir(state, "--state-dir")
    return state


@_guard
def _cmd_restore(args: argparse.Namespace) -> int:
    """Replay the prefix's journal; refused at once while a run holds the prefix's lock
    or the machine lock (naming its pid)."""
    state = _state_dir(args)
    lock = jr.lock(state, args.prefix, _say, timeout=0)
    machine_lock = None
    try:
        machine_lock = runner.machine_lock_now(_say)
        if args.discard:
            j = jr.Journal.find(state, args.prefix)
            if j is not None:
                j.finish()
                _say(f"discarded {j.path} without restoring")
            return 0
        if not runner.recover_pending(state, args.prefix, _say):
            _say("nothing to restore")
        else:
            _say("restored")
        return 0
    finally:
        if machine_lock is not None:
            machine_lock.release()
        lock.release()


@_guard
def _cmd_cleanup(args: argparse.Namespace) -> int:
    failures = runner.cleanup(args.prefix, _state_dir(args), _say)
    if failures:
        raise BedError("; ".join(failures))
    return 0


@_guard
def _cmd_check(args: argparse.Namespace) -> int:
    """An inventory: every host and switch probed read-only (testbed/lab_check.py), one
    table on stdout (or JSON), a line per finding on stderr; 1 when a run would fail or
    leave its attribution incomplete. The netns backend: its plan."""
    req = _request(args)
    if req.inv is not None and req.picked is not None:
        from lanloss.testbed import lab_check

        snd, rcv = req.picked
        _say(
            f"inventory {req.inv.path}: {len(req.inv.hosts)} host(s); senders "
            f"{[h.name for h in snd]}, receivers {[h.name for h in rcv]}"
        )
        found = lab_check.run(req)
        if args.json:
            emit_json(found.to_dict())
        else:
            sys.stdout.write(lab_check.table(found))
        for finding in found.findings:
            print(finding.line(), file=sys.stderr)
        return 0 if found.ok else EXIT_FAILED
    from lanloss.testbed import netns

    plan = netns.plan(req.params, req.prefix)
    _say(f"netns: namespaces {plan.namespaces()}, flows {[f[:2] for f in plan.flows]}")
    return 0


def emit_json(data: dict[str, Any]) -> None:
    import json

    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _vm_args(g: argparse._ArgumentGroup) -> None:
    """The testbed options of --backend vm."""
    g.add_argument(
        "--vm-nic",
        default="e1000-82545em",
        metavar="MODEL",
        help="--backend vm: the guests' NIC, e1000-82545em [default] or e1000e",
    )
    g.add_argument(
        "--vm-guests",
        choices=("all", "receivers"),
        default="all",
        help="--backend vm: every host a guest [default], or receivers only (senders are "
        "namespaces at this machine's speed, as in the netns backend)",
    )
    g.add_argument(
        "--vm-icount",
        type=int,
        default=None,
        metavar="SHIFT",
        help="--backend vm: a slow PC that never stops: the guests run 10^9/2^SHIFT "
        "instructions per second of their clock (QEMU -icount shift=SHIFT,align=on,"
        "sleep=on; 0-10); the record says whether this machine kept up",
    )
    g.add_argument(
        "--vm-vcpus",
        type=int,
        default=1,
        metavar="N",
        help="--backend vm: virtual CPUs of each guest (1-8) [default 1]; without "
        "--vm-icount each is a thread of its own (several readers contend as on cores), "
        "with it QEMU runs them in turn on one thread",
    )
    g.add_argument(
        "--driver-param",
        action="append",
        metavar="NAME=N",
        help="--backend vm: a load-time parameter of the guests' NIC driver, set by "
        "reloading it (e.g. InterruptThrottleRate=0; repeat)",
    )


def _run_args(p: argparse.ArgumentParser) -> None:
    from lanloss.cli import add_vocabulary_options

    add_vocabulary_options(p, "bed")
    g = p.add_argument_group("testbed")
    g.add_argument(
        "--backend",
        choices=tuple(BACKENDS),
        default="netns",
        help="netns: emulated hosts on this machine (root) [default]; "
        "ssh: real hosts from --inventory; vm: QEMU guests with emulated Intel NICs (root)",
    )
    _vm_args(g)
    g.add_argument("--inventory", metavar="FILE", help="hosts (YAML), for --backend ssh")
    g.add_argument(
        "--tool",
        choices=("lanloss", "iperf3"),
        default="lanloss",
        help="traffic tools: lanloss-send/-recv [default], or iperf3 (cross-check)",
    )
    g.add_argument(
        "--sender",
        action="append",
        metavar="HOST",
        help="inventory host to send from (repeat; default: by role)",
    )
    g.add_argument(
        "--receiver",
        action="append",
        metavar="HOST",
        help="inventory host to receive on (repeat; default: by role)",
    )
    g.add_argument(
        "--slow-receiver",
        metavar="CPU%[,WORK]",
        help="shorthand for --recv-cpu and --recv-work, e.g. 20%%,5us",
    )
    g.add_argument(
        "--retry-disturbed",
        type=_retries,
        default=0,
        metavar="N",
        help="measure a run again, up to N more times, while the machine disturbed it (a late "
        "sender, a receiver kept off the CPU, a guest off its pace: the rule lanloss fit and "
        "validate leave runs out by); the record keeps the disturbed attempts in "
        "extra.disturbed_attempts [default: 0]",
    )
    g.add_argument(
        "--no-pin",
        action="store_true",
        help="netns: do not pin senders to CPU 0 and receivers to the others",
    )
    g.add_argument(
        "--keep-lan",
        nargs="?",
        const="15min",
        default=None,
        metavar="IDLE",
        help="leave the LAN (namespaces, links, switches, guests) standing after the run, so "
        "the next run of this prefix with the same topology reuses it, changing only rates "
        "and buffers; it goes after IDLE without a run [default: 15min], with `lanloss bed "
        "restore`, or when a run cannot use it",
    )
    g.add_argument(
        "--lab-inventory",
        metavar="FILE",
        help="--backend vm with --keep-lan: leave the guests standing as a practice lab, "
        "their sshd and the switches' snmpd reachable from this machine, and write an "
        "inventory naming them to FILE (for --backend ssh)",
    )
    g.add_argument(
        "--switch-snmp",
        action="store_true",
        help="netns: run net-snmp's snmpd in each switch namespace and attribute the switch "
        "drops from its IF-MIB counters, as for a lab's managed switch (needs snmp, snmpd)",
    )
    g.add_argument(
        "--no-log",
        action="store_true",
        help="no per-packet receive log (goodput then includes the warm-up)",
    )
    progress.add_args(g)
    _state_args(p)


def add_parser(sub: argparse._SubParsersAction) -> None:
    p_bed = sub.add_parser("bed", help="the testbed harness (netns or ssh hosts)")
    bed = p_bed.add_subparsers(dest="bed_command", required=True, parser_class=type(p_bed))

    p = bed.add_parser("run", help="run one point on the testbed and print its run record")
    _run_args(p)
    p.add_argument("--out", help="write the run record to this file (atomically)")
    p.set_defaults(func=_cmd_run)

    p = bed.add_parser("restore", help="restore settings from a crashed run's journal")
    _state_args(p)
    p.add_argument(
        "--discard",
        action="store_true",
        help="drop the journal without restoring (hosts gone for good)",
    )
    p.set_defaults(func=_cmd_restore)

    p = bed.add_parser(
        "cleanup",
        help="restore, then remove namespaces and cgroups lanloss made under this prefix",
    )
    _state_args(p)
    p.set_defaults(func=_cmd_cleanup)

    p = bed.add_parser(
        "check",
        help="validate options and inventory, and probe each inventory host (ssh) and switch "
        "(SNMP) read-only; change nothing",
    )
    _run_args(p)
    p.add_argument("--json", action="store_true", help="print the hosts and switches found as JSON")
    p.set_defaults(func=_cmd_check)
