# SPDX-License-Identifier: GPL-2.0-only
"""The run record: one JSON per run, the same for the simulator and the testbed.

Schema ``lanloss.run/1`` (docs/architecture.md, *The run record*): params, env, flows (one per
sender->receiver flow), totals, drops (by drop point), pause (per port),
timing. Readers reject records whose schema they do not know.

Conservation: ``sent == received + sum(drops)``, with ``drops.unexplained``
holding what no traced drop point (sim) or kernel counter (bed) explains.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import Any

from lanloss import inputs, outputs

SCHEMA = "lanloss.run/1"

# The drop points, in path order. Each maps to a Linux counter (docs/architecture.md).
DROP_POINTS: tuple[str, ...] = (
    "sender_socket",  # SndbufErrors / ENOBUFS
    "sender_queue",  # qdisc drops (sim: the sending NIC's transmit queue)
    "switch_ingress",  # switch ingress admission (headroom exhausted)
    "switch_egress",  # switch egress port buffer / shared pool full
    "rx_error",  # frame discarded by the receiving NIC as corrupt: rx_crc_errors
    "rx_fifo",  # NIC FIFO overflow: rx_missed_errors / rx_fifo_errors
    "rx_ring",  # no RX descriptor or buffer free (testbed/nic_counters.py per driver)
    "backlog",  # softnet_stat column 2
    "reassembly",  # Ip ReasmFails
    "socket_rcvbuf",  # Udp RcvbufErrors, SO_RXQ_OVFL
    "unexplained",  # what nothing above accounts for
)


class RecordError(ValueError):
    """A record that is not a lanloss.run/1 record, or is inconsistent."""


def empty_drops() -> dict[str, int]:
    return {name: 0 for name in DROP_POINTS}


# -- the schema, checked when a record is read (a bad field is named, not a traceback) ---


# Counts are JSON integers from 0 to the largest int64 (a table's column type): a float
# ("sent": 1e20) or a negative count is a damaged record, not a run.
MAX_COUNT = 2**63 - 1
_COUNT_TEXT = f"a whole number from 0 to {MAX_COUNT} (2**63-1)"


def _is_count(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_COUNT


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _need(ok: bool, field_: str, value: Any, what: str) -> None:
    if not ok:
        raise RecordError(f"{field_}: {value!r} is not {what}")


def _check_counts(where: str, d: dict[str, Any], keys: tuple[str, ...]) -> None:
    for k in keys:
        if k in d:
            _need(_is_count(d[k]), f"{where}.{k}", d[k], _COUNT_TEXT)


def _check_numbers(where: str, d: dict[str, Any], keys: tuple[str, ...]) -> None:
    for k in keys:
        if d.get(k) is not None:
            _need(_is_number(d[k]), f"{where}.{k}", d[k], "a number")


def _check_not_above_sent(where: str, d: dict[str, Any], keys: tuple[str, ...]) -> None:
    """received and lost count datagrams that were sent: neither exceeds sent."""
    for k in keys:
        if k in d and d[k] > d["sent"]:
            raise RecordError(f"{where}.{k}: {d[k]!r} is more than {where}.sent {d['sent']!r}")


def _check_drops(where: str, drops: Any) -> None:
    _need(isinstance(drops, dict), where, drops, "a mapping of drop points")
    unknown = set(drops) - set(DROP_POINTS)
    if unknown:
        raise RecordError(f"{where}: unknown drop points {sorted(unknown)}")
    _check_counts(where, drops, tuple(drops))


_FLOW_FIELDS = (
    "sender",
    "receiver",
    "sent",
    "received",
    "lost",
    "duplicated",
    "reordered",
    "goodput_bps",
    "latency_us",
    "loss_runs",
    "drops",
)


def _check_params(params: dict[str, Any]) -> None:
    """Every vocabulary option's value must be one the vocabulary accepts (a topology
    file's name is not checked: the record may come from another machine)."""
    from lanloss import options

    for name, value in params.items():
        opt = options.BY_NAME.get(name)
        if opt is None or value is None or opt.kind == "topology":
            continue
        try:
            options.parse_value(opt, value)
        except options.OptionError as exc:
            raise RecordError(f"params.{exc}") from None


def check_schema(data: dict[str, Any]) -> None:
    """Types of the fields lanloss reads (lanloss.run/1); RecordError naming the field."""
    for key in ("params", "totals"):
        if key not in data:
            raise RecordError(f"{key}: missing")
    for key in ("params", "env", "totals", "pause", "timing", "extra", "cpu"):
        if key in data:
            _need(isinstance(data[key], dict), key, data[key], "a mapping")
    if not data["params"]:
        raise RecordError("params: empty (a record names the options of its run)")
    _check_params(data["params"])
    totals = data["totals"]
    for k in ("sent", "received"):
        if k not in totals:
            raise RecordError(f"totals.{k}: missing")
    _check_counts("totals", totals, ("sent", "received"))
    _check_not_above_sent("totals", totals, ("received",))
    _check_numbers("totals", totals, ("loss", "offered_bps", "offered_pps", "goodput_bps"))
    _check_drops("drops", data.get("drops", {}))
    flows = data.get("flows", [])
    _need(isinstance(flows, list), "flows", flows, "a list")
    for i, f in enumerate(flows):
        where = f"flows[{i}]"
        _need(isinstance(f, dict), where, f, "a mapping")
        unknown = sorted(set(f) - set(_FLOW_FIELDS))
        if unknown:
            raise RecordError(f"{where}: unknown field {unknown[0]!r}")
        for k in ("sender", "receiver", "sent", "received", "lost"):
            if k not in f:
                raise RecordError(f"{where}.{k}: missing")
        for k in ("sender", "receiver"):
            _need(isinstance(f[k], str), f"{where}.{k}", f[k], "a host name")
        _check_counts(where, f, ("sent", "received", "lost", "duplicated", "reordered"))
        _check_not_above_sent(where, f, ("received", "lost"))
        _check_numbers(where, f, ("goodput_bps",))
        for k in ("latency_us", "loss_runs"):
            if k in f:
                _need(isinstance(f[k], dict), f"{where}.{k}", f[k], "a mapping")
                _check_numbers(f"{where}.{k}", f[k], tuple(f[k]))
        if "drops" in f:
            _check_drops(f"{where}.drops", f["drops"])


@dataclass
class Flow:
    sender: str
    receiver: str
    sent: int
    received: int
    lost: int
    duplicated: int = 0
    reordered: int = 0
    goodput_bps: float = 0.0
    latency_us: dict[str, float | None] = field(
        default_factory=lambda: {"p50": None, "p99": None, "max": None}
    )
    loss_runs: dict[str, float] = field(default_factory=lambda: {"count": 0, "mean": 0.0, "max": 0})
    drops: dict[str, int] = field(default_factory=empty_drops)


@dataclass
class RunRecord:
    source: str  # "sim" | "bed"
    params: dict[str, Any]
    env: dict[str, Any]
    flows: list[Flow]
    totals: dict[str, Any]
    drops: dict[str, int]
    pause: dict[str, Any]
    timing: dict[str, Any]
    extra: dict[str, Any] = field(default_factory=dict)  # tool output, host counters, ...
    # per receiving host with a CPU model: {host: {irq, softirq, app, idle}} shares of its
    # CPU (all cores) over the goodput window; empty for ideal hosts and testbed records
    cpu: dict[str, dict[str, float]] = field(default_factory=dict)
    schema: str = SCHEMA

    # -- construction -------------------------------------------------------
    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunRecord:
        if not isinstance(data, dict):
            raise RecordError("a run record must be a JSON object")
        schema = data.get("schema")
        if schema != SCHEMA:
            raise RecordError(f"unknown record schema {schema!r} (this lanloss reads {SCHEMA})")
        if data.get("source") not in ("sim", "bed"):
            raise RecordError(f"unknown record source {data.get('source')!r}")
        check_schema(data)
        flows = [Flow(**f) for f in data.get("flows", [])]
        return cls(
            source=data["source"],
            params=data["params"],
            env=data.get("env", {}),
            flows=flows,
            totals=data["totals"],
            drops={**empty_drops(), **data.get("drops", {})},
            pause=data.get("pause", {}),
            timing=data.get("timing", {}),
            extra=data.get("extra", {}),
            cpu=data.get("cpu", {}),
        )

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        # schema first and cpu next to pause, for humans reading the file
        order = ("schema", "source", "params", "env", "flows", "totals", "drops", "pause", "cpu")
        return {**{k: d.pop(k) for k in order}, **d}

    # -- checks -------------------------------------------------------------
    def conservation_error(self) -> int:
        """sent - received - sum(drops); 0 when every datagram is accounted for."""
        t = self.totals
        return int(t["sent"]) - int(t["received"]) - sum(int(v) for v in self.drops.values())


def load(path: str) -> RunRecord:
    """A record file, checked against the schema; RecordError names the file and field."""
    try:
        data = inputs.load_json(path, "run record")
    except inputs.InputError as exc:
        raise RecordError(f"{inputs.shown_path(path)}: {exc.why}") from None
    try:
        return RunRecord.from_dict(data)
    except RecordError as exc:
        raise RecordError(f"{path}: {exc}") from None


def dump_json(data: Any) -> str:
    return json.dumps(data, indent=2, sort_keys=False) + "\n"


def emit(record: RunRecord, out: str | None) -> None:
    """A run's record to `out` (lanloss.outputs' rule: whole or not at all for a file), or
    to stdout without one."""
    write_atomic(out or "-", dump_json(record.to_dict()))


@contextmanager
def atomic_file(path: str, suffix: str = "", flag: str = "--out") -> Iterator[str]:
    """A temp path to write `path`'s content to; when the block ends the content goes to
    `path` by lanloss.outputs' rule (a file: fsynced and renamed, whole; a device or FIFO:
    written through), or nowhere if the block failed."""
    with outputs.atomic_file(path, suffix, flag) as tmp:
        yield tmp


def write_atomic(path: str, text: str, flag: str = "--out") -> None:
    """`text` to `path` by lanloss.outputs' rule: a file whole or not at all (temp file in
    the target's folder, fsync, rename); a device, FIFO or `-` written through."""
    outputs.write_text(path, text, flag)
