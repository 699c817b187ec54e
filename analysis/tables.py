# SPDX-License-Identifier: GPL-2.0-only
"""Run records -> one table (Parquet): one row per run and flow (receiver).

``lanloss table --study NAME --out results/tables/NAME.parquet RUN.json|DIR ...``; a folder
stands for every ``*.json`` under it (recursively). Records are read with the project's
record reader, so unknown schemas are refused; the table is written atomically.

Columns (``lanloss table --columns`` prints this list):

identity
    ``study``, ``source`` (sim | bed), ``backend`` (a testbed run's backend: netns, ssh or
    vm; empty for the simulator), ``point`` (the record's file stem), ``run_file``, ``flow``
    (index of the flow in the record), ``n_flows`` (flows in the record).
options
    every vocabulary option (``lanloss.options.OPTIONS``) under its own name, canonical
    units: rates, sizes, times, counts and probabilities as float (bit/s, bytes, seconds;
    NaN when unset); choices (host, cast, pause, ...), pattern and topology as strings.
    ``rate`` is NaN when it was ``max``, and ``rate_max`` says so. Options a record has
    that this lanloss does not know are flattened too (numbers as float, else string).
flow
    ``sender``, ``receiver``, ``sent``, ``received``, ``lost``, ``loss`` (= lost/sent, NaN
    when nothing was sent), ``duplicated``, ``reordered``, ``goodput_bps``,
    ``latency_p50_us``, ``latency_p99_us``, ``latency_max_us``, ``loss_runs_count``,
    ``loss_runs_mean``, ``loss_runs_max``, and ``drop_<point>`` for every drop point of
    ``lanloss.record.DROP_POINTS`` (this flow's drops).
run
    ``offered_bps``, ``offered_pps``, ``achieved_send_bps`` (NaN unless the record has it),
    ``offered_met`` (1 when every sender sent what was offered, 0 when one did not, NaN for
    ``rate: max`` or records without it; lanloss.totals), ``max_late_s`` and
    ``max_burst_datagrams`` (the senders' worst lateness and the catch-up burst it made;
    NaN for records without them), ``recv_stalled`` (1 when a receiver was kept off the CPU
    for longer than its socket buffer lasts, 0 when not, NaN where nothing measured it:
    lanloss.totals), ``max_recv_stall_s`` and ``recv_buffer_s`` (that stall and buffer
    time), ``send_time_us`` (the senders' mean time per send()
    call, CPU and blocked time together, as an application times it: simulator records),
    ``echo_rtt_us`` (with option echo: the mean round trip from a message's send stamp to
    its echo's return at the sender, seed 003's "send time"; NaN without it),
    ``pause_frames_sent``, ``pause_frames_received`` (NaN when the record has no count),
    ``wall_s``, ``steal_share`` (the hypervisor's share of the CPUs during the traffic of a
    LAN emulated on the harness's machine; NaN elsewhere), ``disturbed_attempts`` (how
    many earlier attempts at this run the machine disturbed and ``lanloss bed run
    --retry-disturbed`` measured again: 0 for the rest).
receiving host
    ``cpu_irq``, ``cpu_softirq``, ``cpu_app``, ``cpu_idle``: shares of the flow's receiving
    host from the record's ``cpu`` section (``cpu[host] = {irq, softirq, app, idle}``), NaN
    when absent; ``recv_cpu_enforced``: whether a testbed ``recv_cpu`` quota was a real
    quota (cgroup) rather than SCHED_IDLE (NaN when not given); ``rx_interrupts_per_frame``:
    the receiving host's NIC interrupts over the frames its NIC received (testbed:
    /proc/interrupts and ethtool's rx_packets of the data NIC, over the whole run; simulator:
    its host model's counts; NaN when absent); ``rx_time_squeeze``: the receiving host's
    net_rx_action runs that ended with receive work left over (the third column of
    /proc/net/softnet_stat, summed over its CPUs, over the whole run; simulator: its host
    model's count), the sign that the kernel's receive work went to ksoftirqd (NaN for a
    namespace receiver, whose counters are the harness machine's, and when absent);
    ``rx_reader_wakeups``: how often the receiving application slept in recvmsg, per
    datagram it read (testbed: lanloss-recv's voluntary context switches over the run, so
    its 10 ms stop check adds up to 100 a second; simulator: its readers' wake-ups; NaN when
    absent); ``rx_reader_calls``: the application's receive calls that returned datagrams,
    per datagram it read (1 when it read them one by one, less when a recvmmsg found
    several waiting; testbed: lanloss-recv's ``calls``; simulator: its readers' calls; NaN
    when absent).
vm guest
    ``vm_icount_shift`` (the guests' -icount shift, NaN without), ``guest_pace`` (the
    guest clock's seconds per real second during the traffic, of the guest farthest from 1)
    and ``guest_kept_pace`` (1 when every guest kept its nominal pace, 0 when one did not:
    testbed/vm.py, PACE_TOLERANCE; NaN for runs without icount guests);
    ``vm_window_real_s``, ``vm_window_vcpu_s``, ``vm_window_guest_busy_s``,
    ``vm_window_guest_irqs``: over most of the traffic, its real seconds, the CPU seconds
    of the receiving guest's QEMU vCPU thread over them, and the guest's own busy seconds
    and NIC interrupts (testbed/vcpu_window.py; NaN without).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from lanloss import options as vocab
from lanloss.record import DROP_POINTS, RecordError, RunRecord, atomic_file, load

STRING_KINDS = ("choice", "pattern", "topology", "host")  # every other kind is a number

IDENTITY = ("study", "source", "backend", "point", "run_file", "flow", "n_flows")
FLOW = (
    "sender",
    "receiver",
    "sent",
    "received",
    "lost",
    "loss",
    "duplicated",
    "reordered",
    "goodput_bps",
    "latency_p50_us",
    "latency_p99_us",
    "latency_max_us",
    "loss_runs_count",
    "loss_runs_mean",
    "loss_runs_max",
) + tuple(f"drop_{p}" for p in DROP_POINTS)
RUN = (
    "offered_bps",
    "offered_pps",
    "achieved_send_bps",
    "offered_met",
    "max_late_s",
    "max_burst_datagrams",
    "recv_stalled",
    "max_recv_stall_s",
    "recv_buffer_s",
    "send_time_us",
    "echo_rtt_us",
    "pause_frames_sent",
    "pause_frames_received",
    "wall_s",
    "steal_share",
    "disturbed_attempts",
)
HOST = ("cpu_irq", "cpu_softirq", "cpu_app", "cpu_idle", "recv_cpu_enforced")
RX = ("rx_interrupts_per_frame", "rx_time_squeeze", "rx_reader_wakeups", "rx_reader_calls")
VM = (
    "vm_icount_shift",
    "guest_pace",
    "guest_kept_pace",
    *(f"vm_window_{k}" for k in ("real_s", "vcpu_s", "guest_busy_s", "guest_irqs")),
)


def columns() -> list[str]:
    """The documented columns, in table order (unknown future options come after them)."""
    opts = [o.name for o in vocab.OPTIONS]
    i = opts.index("rate") + 1
    return [*IDENTITY, *opts[:i], "rate_max", *opts[i:], *FLOW, *RUN, *HOST, *RX, *VM]


def record_files(inputs: Iterable[str]) -> list[str]:
    """Files and folders -> the record files (folders: every *.json below, sorted)."""
    files: list[str] = []
    for item in inputs:
        if os.path.isdir(item):
            files += sorted(str(p) for p in Path(item).rglob("*.json") if p.is_file())
        elif os.path.isfile(item):
            files.append(item)
        else:
            raise vocab.OptionError(f"run record {item!r} does not exist")
    if not files:
        raise vocab.OptionError("no run records given (files or folders of *.json)")
    return files


def _lateness(record: Any) -> dict[str, float]:
    """The senders' worst lateness and its catch-up burst (lanloss.totals); for testbed
    records written before totals had them, from the sender tools' own pacing reports."""
    t = record.totals
    if "max_late_s" in t:
        return {
            "max_late_s": _num(t.get("max_late_s")),
            "max_burst_datagrams": _num(t.get("max_burst_datagrams")),
        }
    senders = ((record.extra or {}).get("tool_reports") or {}).get("senders") or {}
    reports = senders.values() if isinstance(senders, dict) else senders
    late = [
        float((r.get("pacing") or {}).get("max_late_us") or 0.0) / 1e6
        for r in reports
        if isinstance(r, dict) and (r.get("pacing") or {}).get("max_late_us") is not None
    ]
    rate = record.params.get("rate")
    payload = float(record.params.get("payload") or 0)
    if not late or rate in (None, "max") or not payload:
        return {"max_late_s": math.nan, "max_burst_datagrams": math.nan}
    return {
        "max_late_s": max(late),
        "max_burst_datagrams": max(late) * float(rate) / (8.0 * payload),
    }


def _send_time_us(record: Any) -> float:
    """The senders' mean time per send() call, as an application times it at its own clock
    (seed 003's "send time per packet"): the calls' CPU plus the time they were blocked,
    over the calls. Simulator records only (NaN otherwise)."""
    senders = (record.extra or {}).get("senders")
    if record.source != "sim" or not isinstance(senders, dict):
        return math.nan
    spent, calls = 0.0, 0.0
    for s in senders.values():
        if not isinstance(s, dict) or s.get("send_cpu_s") is None:
            return math.nan
        spent += float(s["send_cpu_s"]) + float(s.get("blocked_s") or 0.0)
        calls += float(s.get("sent_ok", s.get("messages")) or 0.0)
    return spent / calls * 1e6 if calls else math.nan


def _echo_rtt_us(record: Any) -> float:
    """The senders' mean echo round trip (option echo: seed 003's send time, a message's
    stamp to its echo's return at the sender), over every message timed; NaN without it."""
    senders = (record.extra or {}).get("senders")
    if not isinstance(senders, dict):
        return math.nan
    total, timed = 0.0, 0
    for s in senders.values():
        if isinstance(s, dict) and s.get("echo_timed"):
            total += float(s["echo_rtt_mean_s"]) * int(s["echo_timed"])
            timed += int(s["echo_timed"])
    return total / timed * 1e6 if timed else math.nan


def _num(value: Any) -> float:
    if value is None or isinstance(value, bool):
        return math.nan if value is None else float(value)
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def _option_value(name: str, value: Any) -> Any:
    opt = vocab.BY_NAME.get(name)
    if opt is None:  # a newer lanloss's option: keep it, typed by its value
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        return None if value is None else str(value)
    if opt.kind not in STRING_KINDS:
        return math.nan if value == "max" else _num(value)
    return None if value is None else str(value)


def _cpu_section(record: RunRecord) -> dict[str, Any]:
    cpu = getattr(record, "cpu", None) or record.extra.get("cpu") or {}
    return cpu if isinstance(cpu, dict) else {}


def _guest_pace(record: RunRecord) -> dict[str, float]:
    """The icount guests' shift and pace (testbed/vm.py's env.vm.icount), NaN without."""
    vm = record.env.get("vm") if isinstance(record.env.get("vm"), dict) else {}
    ic = vm.get("icount") if isinstance(vm.get("icount"), dict) else {}
    paces = [_num(v.get("pace")) for v in (ic.get("pace") or {}).values() if isinstance(v, dict)]
    kept = ic.get("kept_pace")
    return {
        "vm_icount_shift": _num(ic.get("shift")),
        # the guest whose clock went farthest from real time
        "guest_pace": max(paces, key=lambda p: abs(p - 1), default=math.nan),
        "guest_kept_pace": math.nan if kept is None else float(bool(kept)),
    }


def _emulator_window(record: RunRecord, receiver: str) -> dict[str, float]:
    """The receiver's emulator window (testbed/vcpu_window.py: env.vm.icount.window), NaN
    without a complete one."""
    vm = record.env.get("vm") if isinstance(record.env.get("vm"), dict) else {}
    ic = vm.get("icount") if isinstance(vm.get("icount"), dict) else {}
    w = (ic.get("window") or {}).get(receiver) if isinstance(ic.get("window"), dict) else None
    ok = isinstance(w, dict) and w.get("complete")
    return {
        f"vm_window_{k}": _num(w.get(k)) if ok else math.nan
        for k in ("real_s", "vcpu_s", "guest_busy_s", "guest_irqs")
    }


def _rx_interrupts_per_frame(record: RunRecord, receiver: str) -> float:
    """The receiving host's NIC interrupts per frame its NIC received."""
    if record.source == "sim":
        host = (record.extra.get("hosts") or {}).get(receiver) or {}
        irq, frames = host.get("interrupts"), host.get("frames_received")
    else:
        c = ((record.extra.get("counters") or {}).get(receiver)) or {}
        ifaces = c.get("interrupts") if isinstance(c.get("interrupts"), dict) else {}
        irq = sum(float(v) for v in ifaces.values()) if ifaces else None
        eth = c.get("ethtool") if isinstance(c.get("ethtool"), dict) else {}
        frames = sum(float((eth.get(i) or {}).get("rx_packets") or 0) for i in ifaces)
    if irq is None or not frames:
        return math.nan
    return float(irq) / float(frames)


def _rx_time_squeeze(record: RunRecord, receiver: str) -> float:
    """The receiving host's softnet time_squeeze count over the run (NaN where the record
    has none of its own: a namespace receiver's softnet_stat is the harness machine's)."""
    if record.source == "sim":
        host = (record.extra.get("hosts") or {}).get(receiver) or {}
        return _num(host.get("time_squeeze"))
    topo = ((record.env.get("topology") or {}).get("hosts") or {}).get(receiver) or {}
    c = ((record.extra.get("counters") or {}).get(receiver)) or {}
    in_namespace = record.env.get("backend") == "netns" or "netns" in topo
    if in_namespace or not isinstance(c.get("softnet"), dict):
        return math.nan
    return float(c["softnet"].get("time_squeeze") or 0)  # the record leaves zero counters out


def _rx_reader_per_read(record: RunRecord, receiver: str, sim_key: str, bed_key: str) -> float:
    """A count of the receiving application's (the simulator's readers' `sim_key`, the
    testbed's lanloss-recv `scheduling` `bed_key`) per datagram it read."""
    if record.source == "sim":
        host = (record.extra.get("hosts") or {}).get(receiver) or {}
        readers = [r for r in host.get("readers") or [] if isinstance(r, dict)]
        count = sum(_num(r.get(sim_key)) for r in readers) if readers else math.nan
        read = sum(_num(r.get("reads")) for r in readers)
    else:
        reports = (record.extra.get("tool_reports") or {}).get("receivers") or {}
        recv = reports.get(receiver) if isinstance(reports.get(receiver), dict) else {}
        sched = recv.get("scheduling") if isinstance(recv.get("scheduling"), dict) else {}
        count, read = _num(sched.get(bed_key)), _num(recv.get("received"))
    return count / read if read and read == read else math.nan


def _rx_reader_wakeups(record: RunRecord, receiver: str) -> float:
    """The receiving application's sleeps in recvmsg per datagram it read."""
    return _rx_reader_per_read(record, receiver, "wakeups", "nvcsw")


def _rx_reader_calls(record: RunRecord, receiver: str) -> float:
    """The receiving application's receive calls per datagram it read."""
    return _rx_reader_per_read(record, receiver, "calls", "calls")


def _numbers(section: dict[str, Any], keys: Iterable[str], column: str = "{}") -> dict[str, float]:
    """`keys` of a record section as numbers (NaN where missing), each in the column
    `column` names."""
    return {column.format(k): _num(section.get(k)) for k in keys}


def _pause_count(pause: dict[str, Any], key: str) -> float:
    if key in pause:
        return _num(pause[key])
    return math.nan


def rows_of(record: RunRecord | dict[str, Any], path: str, study: str) -> list[dict[str, Any]]:
    """One record (or its JSON) -> its rows; RecordError if it is not a lanloss.run/1 record."""
    if not isinstance(record, RunRecord):
        record = RunRecord.from_dict(record)
    params = record.params
    base: dict[str, Any] = {
        "study": study,
        "source": record.source,
        "backend": record.env.get("backend") if record.source == "bed" else None,
        "point": Path(path).stem,
        "run_file": str(path),
        "n_flows": len(record.flows),
    }
    for opt in vocab.OPTIONS:
        base[opt.name] = _option_value(opt.name, params.get(opt.name, opt.default))
    base["rate_max"] = params.get("rate", vocab.BY_NAME["rate"].default) == "max"
    for name, value in params.items():
        if name not in vocab.BY_NAME:
            base[name] = _option_value(name, value)
    totals = record.totals
    base.update(
        **_numbers(totals, ("offered_bps", "offered_pps", "achieved_send_bps", "offered_met")),
        **_lateness(record),
        **_numbers(totals, ("recv_stalled", "max_recv_stall_s", "recv_buffer_s")),
        send_time_us=_send_time_us(record),
        echo_rtt_us=_echo_rtt_us(record),
        pause_frames_sent=_pause_count(record.pause, "frames_sent"),
        pause_frames_received=_pause_count(record.pause, "frames_received"),
        wall_s=_num(record.timing.get("wall_s")),
        steal_share=_num(totals.get("steal_share")),
        disturbed_attempts=len(record.extra.get("disturbed_attempts") or []),
        **_guest_pace(record),
    )
    cpu = _cpu_section(record)
    hosts_env = record.env.get("hosts") if isinstance(record.env.get("hosts"), dict) else {}
    sim_hosts = record.extra.get("hosts") if isinstance(record.extra.get("hosts"), dict) else {}
    rows = []
    for i, f in enumerate(record.flows):
        row = dict(base)
        lat = f.latency_us or {}
        runs = f.loss_runs or {}
        row.update(
            flow=i,
            sender=f.sender,
            receiver=f.receiver,
            sent=int(f.sent),
            received=int(f.received),
            lost=int(f.lost),
            loss=(f.lost / f.sent) if f.sent else math.nan,
            duplicated=int(f.duplicated),
            reordered=int(f.reordered),
            goodput_bps=_num(f.goodput_bps),
            **_numbers(lat, ("p50", "p99", "max"), "latency_{}_us"),
            **_numbers(runs, ("count", "mean", "max"), "loss_runs_{}"),
        )
        for p in DROP_POINTS:
            row[f"drop_{p}"] = int(f.drops.get(p, 0))
        shares = cpu.get(f.receiver) if isinstance(cpu.get(f.receiver), dict) else {}
        for k in ("irq", "softirq", "app", "idle"):
            row[f"cpu_{k}"] = _num(shares.get(k))
        # The testbed's cgroup is in env.hosts, the simulator's bandwidth group in extra.hosts.
        limit = (
            (hosts_env.get(f.receiver) or {}).get("cpu_limit")
            or (sim_hosts.get(f.receiver) or {}).get("cpu_limit")
            or {}
        )
        enforced = limit.get("quota_enforced")
        row["recv_cpu_enforced"] = math.nan if enforced is None else float(bool(enforced))
        row["rx_interrupts_per_frame"] = _rx_interrupts_per_frame(record, f.receiver)
        row["rx_time_squeeze"] = _rx_time_squeeze(record, f.receiver)
        row["rx_reader_wakeups"] = _rx_reader_wakeups(record, f.receiver)
        row["rx_reader_calls"] = _rx_reader_calls(record, f.receiver)
        row.update(_emulator_window(record, f.receiver))
        rows.append(row)
    return rows


class _SeenRecords:
    """A run counted once: the same file named twice (a file and its folder) or two files
    holding the same record (a copy) would weigh that run double in every fit."""

    def __init__(self) -> None:
        self._files: dict[str, str] = {}
        self._contents: dict[str, str] = {}

    def add(self, path: str, record: RunRecord) -> None:
        real = os.path.realpath(path)
        if real in self._files:
            raise vocab.OptionError(
                f"run record {path}: given twice (also as {self._files[real]}); give it once"
            )
        self._files[real] = path
        key = json.dumps(record.to_dict(), sort_keys=True, default=str)
        if key in self._contents:
            raise vocab.OptionError(
                f"run record {path}: the same record as {self._contents[key]} (a copy?); "
                "give one of them"
            )
        self._contents[key] = path


def build(files: Iterable[str], study: str) -> pd.DataFrame:
    """Read every record (refusing unknown schemas, naming the file) -> the table."""
    rows: list[dict[str, Any]] = []
    seen = _SeenRecords()
    for path in files:
        try:
            record = load(path)
            if not record.flows:  # it would add no row: a run the table silently lost
                raise RecordError(f"{path}: flows: none (a run has at least one flow)")
            seen.add(path, record)
            rows += rows_of(record, path, study)
        except RecordError as exc:  # names the file and the field already
            raise vocab.OptionError(f"run record {exc}") from None
        except (OSError, json.JSONDecodeError, TypeError, KeyError) as exc:
            raise vocab.OptionError(f"run record {path}: {exc}") from None
    cols = columns()
    df = pd.DataFrame(rows)
    extra = sorted(c for c in df.columns if c not in cols)
    df = df.reindex(columns=cols + extra)
    return _typed(df)


def _typed(df: pd.DataFrame) -> pd.DataFrame:
    """Stable dtypes, so tables of different studies concatenate and Parquet round-trips."""
    strings = {o.name for o in vocab.OPTIONS if o.kind in STRING_KINDS}
    strings |= {"study", "source", "backend", "point", "run_file", "sender", "receiver"}
    ints = {"flow", "n_flows", "sent", "received", "lost", "duplicated", "reordered"}
    ints |= {f"drop_{p}" for p in DROP_POINTS}
    for c in df.columns:
        if c in strings:
            df[c] = df[c].astype("string")
        elif c in ints:
            df[c] = df[c].astype("int64")
        elif c == "rate_max":
            df[c] = df[c].astype(bool)
        elif c in vocab.BY_NAME or c in FLOW or c in RUN or c in HOST:
            df[c] = df[c].astype("float64")
        elif df[c].map(lambda v: isinstance(v, str)).any():
            df[c] = df[c].astype("string")
        else:
            df[c] = pd.to_numeric(df[c], errors="coerce").astype("float64")
    return df


# -- a table read back (fit, validate): the columns and types `build` writes ------------

COUNTS = ("sent", "received", "lost")
_TEXT = ("source", "run_file", "sender", "receiver")


def check_table(df: pd.DataFrame, path: str) -> None:
    """A table as `lanloss table` writes it, or OptionError naming the column and the first
    bad row: every option column, the flow's identity and counts, each of its type.
    Options may be unset (NaN / missing); counts, payload and a rate not "max" may not."""

    def bad(column: str, row: Any, value: Any, what: str) -> vocab.OptionError:
        value = value.item() if hasattr(value, "item") else value  # numpy -> Python, to show
        return vocab.OptionError(
            f"table {path!r}: column {column!r}, row {row}: {value!r} is not {what}"
        )

    needed = [*_TEXT, *COUNTS, "rate_max", *(o.name for o in vocab.OPTIONS)]
    missing = [c for c in needed if c not in df.columns]
    if missing:
        more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        shown = ", ".join(missing[:5]) + more
        raise vocab.OptionError(
            f"table {path!r} lacks columns {shown} (a table as `lanloss table` writes it)"
        )
    for c in _TEXT:
        ok = df[c].map(lambda v: isinstance(v, str) and v != "")
        if not ok.all():
            i = ok.idxmin()
            raise bad(c, i, df[c][i], "a name")
    ok = df["source"].isin(["sim", "bed"])
    if not ok.all():
        i = ok.idxmin()
        raise bad("source", i, df["source"][i], "sim or bed")
    for c in [*COUNTS, *(c for c in df.columns if c.startswith("drop_"))]:
        _check_column(df, c, bad, count=True)
    for c in ("received", "lost"):
        over = df[c] > df["sent"]
        if over.any():
            i = over.idxmax()
            raise bad(c, i, df[c][i], f"at most the row's sent ({df['sent'][i]!r})")
    for o in vocab.OPTIONS:
        if o.kind in STRING_KINDS:
            ok = df[o.name].map(lambda v: isinstance(v, str) or _unset(v))
            if not ok.all():
                i = ok.idxmin()
                raise bad(o.name, i, df[o.name][i], "text")
        else:
            _check_column(df, o.name, bad, count=False)
    if df["payload"].isna().any():
        i = df["payload"].isna().idxmax()
        raise bad("payload", i, df["payload"][i], "a payload size (it is the fit's axis)")
    no_rate = df["rate"].isna() & ~df["rate_max"].astype(bool)
    if no_rate.any():
        i = no_rate.idxmax()
        raise bad("rate", i, df["rate"][i], "a rate (and rate_max is false)")


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _unset(v: Any) -> bool:
    """An option without a value: None, pandas' NA, or a NaN (how a table says unset)."""
    return v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v))


def _check_column(df: pd.DataFrame, c: str, bad: Any, count: bool) -> None:
    """A numeric column: finite numbers (counts: whole, >= 0, none missing; options: NaN =
    unset)."""
    col = df[c]
    if pd.api.types.is_bool_dtype(col) or not pd.api.types.is_numeric_dtype(col):
        ok = col.map(lambda v: _is_number(v) or (not count and _unset(v)))
        if not ok.all():
            i = ok.idxmin()
            raise bad(c, i, col[i], "a whole number" if count else "a number")
    values = pd.to_numeric(col.map(lambda v: None if _unset(v) else v)).astype("float64")
    if count:
        wrong = values.isna() | (values < 0) | (values != values.round())
        what = "a whole number of datagrams (0 or more)"
    else:
        wrong = values.abs() == float("inf")
        what = "a finite number"
    if wrong.any():
        i = wrong.idxmax()
        raise bad(c, i, col[i], what)


def write_parquet_atomic(df: pd.DataFrame, out: str) -> None:
    """Whole or not at all (lanloss.record.atomic_file)."""
    with atomic_file(out, suffix=".parquet") as tmp:
        df.to_parquet(tmp, index=False)
