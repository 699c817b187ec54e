# SPDX-License-Identifier: GPL-2.0-only
"""One testbed run, end to end: validate, recover, set up, capture, apply, count, run
traffic, count, restore, tear down -> a RunRecord with source "bed" (built from what the
run set up and measured by lanloss.testbed.run_record).

Restore always happens: the work is wrapped in try/finally, SIGTERM and SIGHUP
are turned into an exception like Ctrl-C, and while restoring further signals
are held until the restore is complete. What a ``kill -9`` leaves behind is in
the journal, and the next call replays it first (journal.recover).

Everything that can be checked without touching a host (options, inventory,
topology, tools) is checked in ``prepare``; ``execute`` then touches hosts.
"""

from __future__ import annotations

import os
import signal
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from lanloss import header_constants, paths, provenance
from lanloss.options import OptionError
from lanloss.record import RunRecord
from lanloss.testbed import (
    clocks,
    counters,
    cpulimit,
    keeper,
    netns,
    run_record,
    runfolder,
    settings,
    snmp,
    steal,
    traffic,
)
from lanloss.testbed import inventory as inv_mod
from lanloss.testbed import journal as jr
from lanloss.testbed.backend import Backend, backend_class
from lanloss.testbed.errors import BedError, Cancelled
from lanloss.testbed.hosts import Host, local_boot_id, per_host
from lanloss.testbed.run_record import FlowPlan, Outcome, RestoreReport, RunState
from lanloss.testbed.transport import kill_if_same

DEFAULT_PREFIX = "lanloss-"
FAULT_ENV = "LANLOSS_BED_FAULT"  # test hook: fail on purpose at a phase (see README)


@dataclass
class Request:
    """A validated run: everything `lanloss bed run` was told, nothing touched yet."""

    params: dict[str, Any]
    given: set[str]
    backend: str = "netns"
    tool: str = "lanloss"
    inventory: str | None = None
    prefix: str = DEFAULT_PREFIX
    state_dir: str = field(default_factory=jr.default_state_dir)
    pin: bool = True
    keep_log: bool = True
    senders: list[str] | None = None
    receivers: list[str] | None = None
    progress: bool = False
    vm_nic: str = "e1000-82545em"  # --backend vm: the emulated NIC (testbed/vm.py)
    vm_icount: int | None = None  # --backend vm: guests at 10^9/2^shift instructions/s
    vm_guests: str = "all"  # --backend vm: which hosts are guests (all | receivers)
    vm_vcpus: int = 1  # --backend vm: each guest's virtual CPUs
    driver_params: dict[str, int] = field(default_factory=dict)  # vm: NIC driver parameters
    keep_lan: bool = False  # leave the LAN standing for the prefix's next run (Backend.lan)
    switch_snmp: bool = False  # netns: serve the switches with snmpd, read them over SNMP
    lab_inventory: str | None = None  # vm: the standing guests as a lab, its inventory here
    lan_idle_s: float = keeper.IDLE_S  # ... for this long without a run
    # filled by prepare()
    inv: inv_mod.Inventory | None = None
    picked: tuple[list[Any], list[Any]] | None = None


def check_prefix(prefix: str) -> None:
    """A prefix is a name (runfolder.prefix_problem): never a path, never one letter."""
    why = runfolder.prefix_problem(prefix)
    if why:
        raise OptionError(f"--prefix: {prefix!r} {why}")


TOOLS = ("lanloss", "iperf3")


def check_params(p: dict[str, Any], given: set[str], backend: str, tool: str) -> None:
    """The checks of a point that need no file and no host: options against the backend
    and tool that will run them (also `lanloss study check`). OptionError."""
    cls = backend_class(backend)
    if tool not in TOOLS:
        raise OptionError(f"--tool: {tool!r} is not lanloss or iperf3")
    if tool == "iperf3":
        if p["cast"] == "multicast":
            raise OptionError("cast: iperf3 has no multicast; use --tool lanloss")
        if int(p["readers"]) > 1:
            raise OptionError(f"readers: {p['readers']}: iperf3 has one reader; use --tool lanloss")
        if p["pattern"] != "cbr":
            raise OptionError(f"pattern: {p['pattern']!r}: iperf3 paces cbr only")
        if p.get("start_burst"):
            raise OptionError(f"start_burst: {p['start_burst']}: iperf3 has no start burst")
        if p.get("recv_work"):
            raise OptionError("recv_work: iperf3 has no per-packet work; use --tool lanloss")
        if p.get("rcvbuf") and p.get("sndbuf") and p["rcvbuf"] != p["sndbuf"]:
            raise OptionError("rcvbuf/sndbuf: iperf3 sets both from one -w; give one value")
    cls.check_params(p, given)


def prepare(req: Request) -> Request:
    """Validate the whole request without touching any host (OptionError / BedError)."""
    check_prefix(req.prefix)
    p, given = req.params, req.given
    check_params(p, given, req.backend, req.tool)  # (params come from options.resolve)
    if req.tool == "lanloss":
        for name in ("lanloss-send", "lanloss-recv"):
            try:
                paths.ctool(name)
            except FileNotFoundError:
                raise BedError(f"{name} is not built; run `make -C testbed/tools`") from None
    cls = backend_class(req.backend)
    if req.switch_snmp and not cls.serves_snmp:
        raise OptionError(
            f"--switch-snmp: the {req.backend} backend has no emulated switch to serve over "
            "SNMP (a lab's switches are read from the inventory's `switches:`)"
        )
    cls.check_request(req)
    return req


# -- signals ----------------------------------------------------------------------------------


def _raise_cancelled(signum: int, frame: Any) -> None:
    raise Cancelled(signal.Signals(signum).name)


@contextmanager
def signals_raise() -> Iterator[None]:
    """SIGTERM/SIGHUP unwind like Ctrl-C, so finally blocks (restore) run."""
    old = {s: signal.signal(s, _raise_cancelled) for s in (signal.SIGTERM, signal.SIGHUP)}
    # Ctrl-C must cancel even when started from a shell that ignores SIGINT (cmd &).
    old[signal.SIGINT] = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)


@contextmanager
def signals_held() -> Iterator[list[int]]:
    """While restoring, note signals instead of acting on them; re-raise afterwards."""
    got: list[int] = []
    sigs = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    old = {s: signal.signal(s, lambda n, f: got.append(n)) for s in sigs}
    try:
        yield got
    finally:
        for s, h in old.items():
            signal.signal(s, h)


def _fault(phase: str) -> None:
    if os.environ.get(FAULT_ENV) == phase:
        raise BedError(f"injected fault at {phase} ({FAULT_ENV})")


# -- progress ---------------------------------------------------------------------------------


class Reporter:
    """Phase and traffic progress on stderr with rich (only on a terminal, or when asked)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.progress: Any = None
        self.task: Any = None
        self.phase = ""

    def __enter__(self) -> Reporter:
        if self.enabled:
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

            self.progress = Progress(
                TextColumn("[bold]lanloss bed[/] {task.description}"),
                BarColumn(),
                TextColumn("{task.percentage:>3.0f}%"),
                TimeElapsedColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self.progress.start()
            self.task = self.progress.add_task("starting", total=1.0)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.progress is not None:
            self.progress.stop()

    def tick(self, phase: str, fraction: float = 0.0) -> None:
        self.phase = phase
        if self.progress is not None:
            self.progress.update(self.task, description=phase, completed=fraction)

    def say(self, text: str) -> None:
        if self.progress is not None:
            self.progress.console.print(f"lanloss bed: {text}")
        else:
            print(f"lanloss bed: {text}", file=sys.stderr)


# -- recovery ---------------------------------------------------------------------------------


def recover_pending(state_dir: str, prefix: str, say: Any) -> bool:
    """Replay a journal left by a crashed run (lock must be held). True if there was one."""
    pending = jr.Journal.find(state_dir, prefix)
    if pending is None:
        return False
    _replay(pending, f"of pid {pending.data.get('pid')} (phase {pending.data.get('phase')})", say)
    return True


def _replay(journal: jr.Journal, which: str, say: Any) -> None:
    """Replay @journal, said as "found restore journal WHICH; restoring first"; BedError
    naming it when anything could not be restored (the journal is then kept)."""
    say(f"found restore journal {which}; restoring first")
    failures = jr.recover(journal, netns.teardown, say)
    if failures:
        raise BedError(f"restore from {journal.path} incomplete (journal kept): {failures[0]}")


def machine_journals(state_dir: str, prefix: str) -> list[jr.Journal]:
    """Every journal of a run that changed this machine (netns, vm), whatever its prefix
    or state folder, but this run's own: the registry's and those in `state_dir`. All are
    read (and checked: ours to trust) before any is replayed."""
    own = os.path.abspath(jr.journal_path(state_dir, prefix))
    paths_ = {os.path.abspath(p) for p in jr.registered()}
    folder = os.path.abspath(state_dir)
    if os.path.isdir(folder):
        paths_ |= {
            os.path.join(folder, f)
            for f in os.listdir(folder)
            if f.startswith("journal-") and f.endswith(".json")
        }
    found = [jr.Journal.read(path) for path in sorted(paths_ - {own})]
    return [j for j in found if j is not None and j.changes_this_machine]


def recover_machine(state_dir: str, prefix: str, say: Any) -> int:
    """Replay every journal a killed netns or vm run left on this machine, whatever its
    prefix or state folder (the machine lock must be held): the sysctls are the
    machine's, so this run's settings_before must not be another run's leftovers. A
    journal whose run still holds its lock is refused, named; so is one that is not ours
    to trust (then none is replayed). Returns how many were replayed."""
    done = 0
    for found in machine_journals(state_dir, prefix):
        path, other = found.path, str(found.data["prefix"])
        lock = jr.try_lock(os.path.dirname(path), other)
        if lock is None:
            raise BedError(
                f"restore journal {path} (prefix {other!r}) belongs to a run that is still "
                f"running or restoring; wait for it, or `lanloss bed restore --prefix {other}`"
            )
        try:
            j = jr.Journal.read(path)  # again, under its lock
            if j is None:
                continue
            which = (
                f"{path} of pid {j.data.get('pid')} (prefix {other!r}, "
                f"backend {j.data.get('backend')})"
            )
            _replay(j, which, say)
            done += 1
        finally:
            lock.release()
    return done


def machine_lock_now(say: Any) -> jr.Lock | None:
    """For restore and cleanup: the machine lock at once, or BedError naming the pid of
    the run that holds it. None when not root (such a user's runs change no machine)."""
    if os.geteuid() != 0:
        return None
    return jr.lock_machine(say, timeout=0)


def cleanup(prefix: str, state_dir: str, say: Any) -> list[str]:
    """`lanloss bed cleanup`: replay the prefix's journal, then remove what the harness
    marked as made under this prefix by runs that are gone (their lock is free). Never
    lists /run/netns or /sys/fs/cgroup by prefix."""
    check_prefix(prefix)
    lock = jr.lock(state_dir, prefix, say, timeout=0)
    try:
        machine_lock = machine_lock_now(say)
        try:
            recover_pending(state_dir, prefix, say)
            if machine_lock is None:
                return []
            return _remove_marked(prefix, say)
        finally:
            if machine_lock is not None:
                machine_lock.release()
    finally:
        lock.release()


def _remove_marked(prefix: str, say: Any) -> list[str]:
    """Marked namespaces and cgroups named <prefix>... of dead runs; says what went."""
    names = netns.stale(prefix)
    failures = netns.teardown(names, say)
    groups = cpulimit.stale_here(prefix)
    machine = Host(
        inv_mod.HostSpec(netns.MACHINE, "machine", "", "", ""), netns.machine_transport()
    )
    for path in groups:
        why = cpulimit.remove_cgroup(machine, path, prefix, say)
        if why:
            failures.append(why)
    gone_ns = [n for n in names if not os.path.lexists(os.path.join(netns.NETNS_DIR, n))]
    gone_cg = [g for g in groups if not os.path.lexists(g)]
    if gone_ns or gone_cg:
        say(f"removed namespace(s) {gone_ns} and cgroup(s) {gone_cg} that lanloss made")
    else:
        say(f"nothing made by lanloss with prefix {prefix!r} is left")
    return failures


# -- the run ----------------------------------------------------------------------------------


def _streams(
    req: Request,
    senders: list[Host],
    receivers: list[Host],
    pairs: list[tuple[str, str, int | None]],
) -> tuple[list[traffic.Stream], list[FlowPlan]]:
    p = req.params
    hosts = {h.name: h for h in [*senders, *receivers]}
    rate = p["rate"]
    streams: list[traffic.Stream] = []
    flows: list[FlowPlan] = []
    if p["cast"] == "multicast":
        for k, s in enumerate(senders):
            st = traffic.Stream(k, s, header_constants.GROUP, traffic.PORT, rate, list(receivers))
            streams.append(st)
            flows += [FlowPlan(s, r, st) for r in receivers]
        return streams, flows
    for k, (src, dst, frate) in enumerate(pairs):
        port = traffic.PORT if req.tool == "lanloss" else traffic.IPERF_PORT + k
        st = traffic.Stream(
            k, hosts[src], hosts[dst].spec.data_address, port, frate or rate, [hosts[dst]]
        )
        streams.append(st)
        flows.append(FlowPlan(hosts[src], hosts[dst], st))
    return streams, flows


def execute(req: Request, reporter: Reporter) -> RunRecord:
    """Touch the hosts: the run proper. Restores and tears down whatever happens."""
    t_wall = time.monotonic()
    timing: dict[str, float] = {}
    lock = jr.lock(req.state_dir, req.prefix, reporter.say)
    changes_machine = backend_class(req.backend).changes_this_machine
    try:
        machine_lock = jr.lock_machine(reporter.say) if changes_machine else None
    except BaseException:
        lock.release()
        raise
    run_id = uuid.uuid4().hex[:10]
    run_dir = tempfile.mkdtemp(prefix=f"{req.prefix}run-")
    os.chmod(run_dir, 0o755)
    try:
        backend = backend_class(req.backend).create(req, run_id, run_dir)
        state = RunState(started_utc=provenance.utc_now(), backend=backend)
        journal = _standing_lan(req, backend, state, reporter.say)
        if journal is None:
            recover_pending(req.state_dir, req.prefix, reporter.say)
        if changes_machine:
            recover_machine(req.state_dir, req.prefix, reporter.say)
        if journal is None:
            journal = jr.Journal.create(req.state_dir, req.prefix, req.backend, changes_machine)
        journal.record("local_dirs", run_dir)
        if req.keep_lan and backend.keeps_lan and not journal.data.get("lan_procs"):
            backend.keeper = keeper.start(journal.path, req.state_dir, req.prefix, req.lan_idle_s)
            journal.record("lan_procs", backend.keeper.journal_entry())
        outcome: Outcome | None = None
        error: BaseException | None = None
        with signals_raise():
            try:
                outcome = _work(req, reporter, journal, backend, state, timing)
            except BaseException as exc:  # noqa: BLE001 - restore first, re-raise below
                error = exc
            finally:
                with signals_held() as held:
                    reporter.tick("restoring")
                    t0 = time.monotonic()
                    keep = req.keep_lan and error is None and not held
                    restore_report = _undo(state, journal, reporter, keep)
                    timing["restore_s"] = round(time.monotonic() - t0, 3)
                if held and error is None:
                    error = (
                        KeyboardInterrupt()
                        if held[0] == signal.SIGINT
                        else Cancelled(signal.Signals(held[0]).name)
                    )
        if error is not None:
            if restore_report.failures:
                reporter.say("restore incomplete: " + "; ".join(restore_report.failures))
            raise error
        if restore_report.failures:
            raise BedError(
                f"restore incomplete (journal kept at {journal.path}): {restore_report.failures[0]}"
            )
        assert outcome is not None
        timing["wall_s"] = round(time.monotonic() - t_wall, 3)
        return run_record.build(req, state, outcome, restore_report, timing)
    finally:
        if machine_lock is not None:
            machine_lock.release()
        lock.release()
        _rmtree(run_dir)


def _rmtree(path: str) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)


def _standing_lan(req: Request, backend: Backend, state: RunState, say: Any) -> jr.Journal | None:
    """The journal of the LAN the prefix's last run left standing, taken over, if this run
    can reuse that LAN (same backend and shape, still intact): its setup then changes only
    what differs. None otherwise (a standing LAN this run cannot use is replayed, i.e.
    torn down, by recover_pending like any journal)."""
    pending = jr.Journal.find(req.state_dir, req.prefix)
    lan = pending.standing_lan if pending is not None else None
    if pending is None or lan is None or not backend.can_adopt(lan):
        return None
    say(f"reusing the LAN its last run left standing ({lan.get('points')} point(s) so far)")
    pending.take_over()
    backend.adopt(lan)
    state.lan = {
        "reused": True,
        "points": int(lan.get("points", 0)),
        "since_utc": provenance.utc_from(lan.get("since", 0)),
        "carried": [c.describe() for c in pending.lan_changes()],
    }
    return pending


def _work(
    req: Request,
    reporter: Reporter,
    journal: jr.Journal,
    backend: Backend,
    state: RunState,
    timing: dict[str, float],
) -> Outcome:
    """Set up (or reuse) the LAN, apply the point's settings, count, run the traffic,
    count again. What it sets up is in `state` for _undo, whatever happens."""
    t0 = time.monotonic()
    reporter.tick("reusing the standing LAN" if state.lan["reused"] else "setting up hosts")
    senders, receivers, pairs = _hosts(backend, journal, state)
    timing["setup_s"] = round(time.monotonic() - t0, 3)
    t0 = time.monotonic()
    force = _apply_settings(req, reporter, journal, backend, state, senders, receivers)
    timing["apply_s"] = round(time.monotonic() - t0, 3)
    _fault("after-apply")
    streams, state.flows = _streams(req, senders, receivers, pairs)
    offsets = {}
    if req.tool == "lanloss" and not _shared_clock(req, state.run_hosts):
        # before _traffic puts a slow receiver under its CPU quota (a vm guest's whole
        # QEMU): exchanges with an unthrottled host are quicker and their delays steadier
        reporter.tick("measuring clock offsets")
        offsets = clocks.offsets([(fp.sender, fp.receiver) for fp in state.flows])
    state.traffic = _traffic(req, journal, backend, state, senders, receivers, force)
    state.traffic.streams, state.traffic.clock_offsets = streams, offsets
    outcome = _measure(reporter, journal, backend, state)
    timing.update({k: round(v, 3) for k, v in outcome.traffic.timing.items()})
    return outcome


def _hosts(
    backend: Backend, journal: jr.Journal, state: RunState
) -> tuple[list[Host], list[Host], list[Any]]:
    """The backend's hosts, set up -> (senders, receivers, flows); the hosts settings touch
    go into `state`."""
    backend.setup(journal)
    pairs = backend.flows()
    # the hosts the flows use (a topology file's flows may start at a 'host' node)
    senders = [backend.hosts[n] for n in dict.fromkeys(f[0] for f in pairs)]
    receivers = [backend.hosts[n] for n in dict.fromkeys(f[1] for f in pairs)]
    state.run_hosts = [*senders, *receivers]
    every = [*backend.machine_hosts(), *state.run_hosts, *backend.switches]
    state.hosts = {h.name: h for h in every}
    return senders, receivers, pairs


def _apply_settings(
    req: Request,
    reporter: Reporter,
    journal: jr.Journal,
    backend: Backend,
    state: RunState,
    senders: list[Host],
    receivers: list[Host],
) -> dict[str, bool]:
    """Capture, plan, check explicit requests, apply (journalled) -> which socket buffers
    the tools must force (SO_RCVBUFFORCE/SO_SNDBUFFORCE: rmem_max/wmem_max not raisable)."""
    reporter.tick("capturing settings")
    settable = [*backend.machine_hosts(), *state.run_hosts]
    captured = per_host(settable, settings.capture)
    state.captured = captured
    changes, unsupported = settings.plan_changes(
        req.params, req.given, senders, receivers, captured
    )
    changes += backend.machine_changes(captured)
    if req.driver_params:
        changes = backend.driver_changes(req.driver_params) + changes  # a reload resets the NIC
    force = {"rcvbuf": False, "sndbuf": False}
    for u in unsupported:
        if u.option in force and u.setting.startswith("sysctl"):
            _force_buffer(u, force)  # rmem_max cannot be raised: SO_RCVBUFFORCE (root)
    fatal = [u for u in unsupported if u.explicit]
    state.unsupported = unsupported
    if fatal:
        u = fatal[0]
        raise BedError(f"{u.host}: cannot set {u.option} ({u.setting}): {u.reason}")
    reporter.tick("applying settings")
    state.changes = changes  # restore covers every planned change, applied or not
    refused = settings.apply(state.hosts, changes, journal, soft=frozenset(force))
    for u in refused:
        if u.option in force:
            _force_buffer(u, force)
    unsupported += refused
    return force


def _force_buffer(u: settings.Unsupported, force: dict[str, bool]) -> None:
    """A socket buffer limit the host refused: the tool forces its buffer instead (root)."""
    force[u.option] = True
    who = "receiver" if u.option == "rcvbuf" else "sender"
    u.reason += f"; the {who} uses SO_{u.option[:3].upper()}BUFFORCE"
    u.explicit = False


def _traffic(
    req: Request,
    journal: jr.Journal,
    backend: Backend,
    state: RunState,
    senders: list[Host],
    receivers: list[Host],
    force: dict[str, bool],
) -> traffic.Traffic:
    """The traffic of the point (streams filled by the caller): tools, pinning, the slow
    receiver's CPU quota."""
    p = req.params
    cgroups, pre = {}, {}
    if p.get("recv_cpu"):
        for h in receivers:
            where, limit, joins = backend.slow_receiver(h, int(p["recv_cpu"]), req.prefix, journal)
            state.cpu[h.name] = (where, limit)
            if joins:
                if limit.procs_file:
                    cgroups[h.name] = limit.procs_file
                pre[h.name] = limit.pre
    return traffic.Traffic(
        streams=[],
        receivers=receivers,
        params=p,
        tool=req.tool,
        tool_paths=backend.tool_dirs,
        group=header_constants.GROUP if p["cast"] == "multicast" else None,
        rcvbuf_force=force["rcvbuf"],
        sndbuf_force=force["sndbuf"],
        shared_clock=_shared_clock(req, state.run_hosts),
        pin=backend.pinning(senders, receivers) if req.pin else {},
        cgroups=cgroups,
        pre=pre,
        keep_log=req.keep_log and req.tool == "lanloss",
        cpu_window=backend.cpu_window_hosts(receivers) if req.tool == "lanloss" else {},
    )


def _measure(reporter: Reporter, journal: jr.Journal, backend: Backend, state: RunState) -> Outcome:
    """Counters before, the traffic, counters after -> what the run measured."""
    assert state.traffic is not None
    count_hosts = [*backend.machine_hosts(), *state.run_hosts, *backend.switches]

    def snap_all() -> dict[str, counters.Snapshot]:
        return per_host(
            count_hosts,
            lambda h: counters.snapshot(
                h, backend.switch_ports(h.name) if h in backend.switches else None
            ),
        )

    readers = backend.snmp_readers()  # switches read over SNMP
    journal.set_phase("traffic")
    reporter.tick("counters before")
    before, snmp_before = snap_all(), snmp.snapshots(readers)
    _fault("traffic")
    backend.traffic_starts()
    jiffies = steal.read() if backend.emulates_here else None
    out = traffic.run(state.traffic, journal, backend.network_idle, reporter.tick)
    steal_share = steal.share(jiffies, steal.read()) if jiffies else None
    backend.traffic_ended(out)
    reporter.tick("counters after")
    after, snmp_after = snap_all(), snmp.snapshots(readers, settle=True)
    deltas = {n: counters.delta(before[n], after[n]) for n in before}
    snmp.add_deltas(deltas, snmp_before, snmp_after)
    errors = {n: s.errors for n, s in after.items() if s.errors}
    for n, s in [*snmp_before.items(), *snmp_after.items()]:
        if s.errors:
            errors.setdefault(n, {}).update(s.errors)
    return Outcome(
        traffic=out,
        deltas=deltas,
        counter_errors=errors,
        cpu_stat={n: cpulimit.stat(w, lim) for n, (w, lim) in state.cpu.items()},
        facts={h.name: dict(h.facts) for h in state.hosts.values()},
        steal_share=steal_share,
    )


def _shared_clock(req: Request, hosts: list[Host]) -> bool:
    """One kernel (same boot id as here) = one CLOCK_MONOTONIC: start-at and latency work."""
    here = local_boot_id()
    return here is not None and all(h.facts.get("boot_id") == here for h in hosts)


def _stop_lan_procs(journal: jr.Journal) -> None:
    """The processes a LAN kept standing no longer (its keeper; guests die with it)."""
    for entry in journal.data.get("lan_procs", []):
        kill_if_same(entry["pid"], entry.get("start_time"), signal.SIGKILL)
    journal.data["lan_procs"] = []


def _end_slow_receivers(state: RunState) -> list[str]:
    """Take every slowed receiver out of its CPU quota (a guest outlives its point); the
    failures, one line each. Never raises."""
    if state.backend is None:
        return []
    failures = []
    for name, (where, limit) in state.cpu.items():
        try:
            state.backend.end_slow_receiver(name, where, limit)
        except BaseException as exc:  # noqa: BLE001 - keep undoing
            failures.append(f"{name}: leaving the CPU quota: {exc}")
    return failures


def _undo(
    state: RunState, journal: jr.Journal, reporter: Reporter, keep: bool = False
) -> RestoreReport:
    """End the CPU quotas, restore settings, capture them again, remove cgroups, tear
    down (or, with `keep`, leave the LAN standing: the changes it needs stay, journalled).
    Never raises."""
    failures: list[str] = []
    hosts = state.hosts
    backend = state.backend
    lan = backend.lan() if keep and backend is not None else None
    kept = lan is not None
    # a LAN's own changes (scope lan) stay while it stands and go with it, with those an
    # earlier run of the standing LAN made (carried in the journal)
    restoring = [c for c in state.changes if not kept or c.scope != "lan"]
    if not kept:
        made = {(c.host, c.kind, c.target) for c in restoring}
        restoring = [
            *[c for c in journal.lan_changes() if (c.host, c.kind, c.target) not in made],
            *restoring,
        ]
    failures += _end_slow_receivers(state)
    try:
        failures += settings.restore(hosts, restoring)
    except BaseException as exc:  # noqa: BLE001 - keep undoing
        failures.append(f"restore: {exc}")
    lan_settings = {
        n
        for c in [*state.changes, *journal.lan_changes()]
        if c.scope == "lan" and (n := settings.captured_name(c)) is not None
    }
    after: dict[str, settings.Captured] = {}
    mismatches: dict[str, list[str]] = {}
    for name, cap in state.captured.items():
        try:
            after[name] = settings.capture(hosts[name])
            # a LAN's own settings differ from the capture before when the run built the
            # LAN and keeps it, or tears down one it found standing: restore checked them
            diff = [d for d in settings.compare(cap, after[name]) if d not in lan_settings]
            if diff:
                mismatches[name] = diff
        except BaseException as exc:  # noqa: BLE001
            failures.append(f"capture after on {name}: {exc}")
    for where, limit in state.cpu.values():
        if limit.path:
            why = cpulimit.remove_cgroup(where, limit.path, journal.data["prefix"])
            if why:
                failures.append(why)
    if backend is not None:
        if not kept:
            try:
                failures += backend.teardown()
            except BaseException as exc:  # noqa: BLE001
                failures.append(f"teardown: {exc}")
            _stop_lan_procs(journal)
        if backend.keeper is not None:
            backend.keeper.release()
        backend.close(lan_stays=kept)
    if mismatches:
        failures.append(f"settings differ after restore: {mismatches}")
    state.lan["kept"] = kept and not failures
    if not failures:
        if kept:
            assert lan is not None
            journal.stand(lan)
            state.lan["points_served"] = int(journal.data["lan"]["points"])
        else:
            journal.finish()
    return RestoreReport(failures, after, mismatches)
