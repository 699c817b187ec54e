# SPDX-License-Identifier: GPL-2.0-only
"""Receiving-host presets for the simulator, and host files (a calibrated preset).

``--host`` names a preset; every value of it can be overridden by the option of the
same name, or by a host file (``lanloss sim run --host-file FILE``), which is what
``lanloss fit`` writes as its calibrated host. Precedence: explicit option > host
file > the file's base preset. ``lanloss.options.resolve`` applies this, so a run's
``params`` hold every resolved host value and the run can be repeated from them.

Host file (YAML or JSON)::

    name: lab-pc-2024          # a label, recorded in the run's env
    base: e1000-2008           # the preset the file starts from (default: --host)
    irq_cost: 6.5us            # any key of HOST_OPTIONS; text with units as on the
    packet_cost: 3.8e-06       # command line, or numbers in canonical units
    rcvbuf: 212992             # (seconds, bytes); null = the base preset's value

The presets and the sources of their values: lanloss/host_presets.py (and
models/doc/host-model.rst, "Presets").

``rcvbuf`` is what the application passes to setsockopt; the kernel doubles it. A
preset holds rmem_default / 2, so its socket has sk_rcvbuf = rmem_default, exactly as
an application that never calls setsockopt, and the capacity rule is the same
everywhere: floor(2 * rcvbuf / truesize) + 1 datagrams.

``packet_cost`` is the kernel's CPU time per frame, driver poll plus IP and UDP
(c_d of docs/physics.md §2). The model charges the two parts at different places (the
driver part in the NAPI poll, the stack part where IP runs, which with ``rps on`` is
another core); an override keeps the preset's ratio (its NIC family's driver share).
"""

from __future__ import annotations

import os
import sys
from typing import Any

from lanloss import host_presets, inputs
from lanloss.host_presets import HOST_OPTIONS, TABLE, Nic, Preset  # noqa: F401 (re-exported)
from lanloss.options import BY_NAME, OptionError, parse_value

# Views of the table: the host values of each preset, and how packet_cost is split.
PRESETS: dict[str, dict[str, Any]] = {name: p.values for name, p in TABLE.items()}
DRIVER_SHARE: dict[str, float] = {name: p.nic.driver_share for name, p in TABLE.items()}

IDEAL = "ideal"


def _read_mapping(path: str) -> dict[str, Any]:
    """A host file's mapping: JSON when its name ends in .json, YAML otherwise (the limits
    and rules of lanloss.inputs)."""
    load = inputs.load_json if path.endswith(".json") else inputs.load_yaml
    data = load(path, "host file")
    if not isinstance(data, dict):
        raise OptionError(f"host file {inputs.shown_path(path)} must be a mapping of host options")
    return data


def _check_base(base: Any, where: str) -> str:
    if not isinstance(base, str) or base not in PRESETS:
        raise OptionError(
            f"{where}: base {inputs.shown(base)} is not a host preset (known: {', '.join(PRESETS)})"
        )
    return str(base)


def load_host_file(path: str, base: str | None = None) -> dict[str, Any]:
    """Read and validate a host file -> {name, base, every HOST_OPTIONS value} (canonical).

    ``base`` is used when the file names none (``--host``); a file's own base must
    agree with it when both are given. Raises OptionError naming a bad key or value.
    """
    data = _read_mapping(path)
    unknown = sorted(str(k) for k in data if k not in HOST_OPTIONS and k not in ("name", "base"))
    if unknown:
        raise OptionError(
            f"host file {path!r}: unknown key(s) {inputs.shown(', '.join(unknown))[1:-1]} "
            f"(known: name, base, {', '.join(HOST_OPTIONS)})"
        )
    file_base = data.get("base")
    if file_base is not None:
        file_base = _check_base(file_base, f"host file {path!r}")
        if base not in (None, IDEAL) and base != file_base:
            raise OptionError(
                f"host: {base!r} disagrees with base {file_base!r} of host file {path!r}"
            )
    elif base in (None, IDEAL):
        raise OptionError(
            f"host file {path!r}: no base preset (add base: one of {', '.join(PRESETS)})"
        )
    chosen = file_base or _check_base(base, "host")
    values = dict(PRESETS[chosen])
    for key in HOST_OPTIONS:
        text = data.get(key)
        if text is None:
            continue  # absent or null: the base preset's value
        if BY_NAME[key].kind == "int" and isinstance(text, float) and text.is_integer():
            text = int(text)  # a fit may write counts as floats (4.0)
        _check_scalar(path, key, text)
        try:
            values[key] = parse_value(BY_NAME[key], text)
        except OptionError as exc:
            raise OptionError(f"host file {path!r}: {exc}") from None
    name = data.get("name", os.path.splitext(os.path.basename(path))[0])
    _check_scalar(path, "name", name)
    return {"name": str(name), "base": chosen, **values}


# A value is one short scalar: no option's value is longer, and an error line shows it whole.
_MAX_VALUE_CHARS = 64


def _check_scalar(path: str, key: str, value: Any) -> None:
    if isinstance(value, (list, dict)) or (
        isinstance(value, str) and len(value) > _MAX_VALUE_CHARS
    ):
        raise OptionError(
            f"host file {path!r}: {key}: {inputs.shown(value)} is not a value "
            f"(text of at most {_MAX_VALUE_CHARS} characters or a number)"
        )


def apply(params: dict[str, Any], explicit: set[str], host_file: str | None = None) -> None:
    """Fill params' host values (sim): preset < host file < explicit options.

    With the ideal host, host values are refused by name: there is nothing they set.
    """
    host = params.get("host") or IDEAL
    if host_file is not None:
        if "host" in explicit and host == IDEAL:
            raise OptionError(f"host: ideal has no values to take from host file {host_file!r}")
        loaded = load_host_file(host_file, host if "host" in explicit else None)
        params["host"] = loaded["base"]
        for key in HOST_OPTIONS:
            if key not in explicit:
                params[key] = loaded[key]
        emulation_rules(params, explicit)
        return
    if host == IDEAL:
        for key in (*HOST_OPTIONS, "readers", "recv_cpu", "recv_work"):
            value = params.get(key)
            if key in explicit and value is not None and not (key == "readers" and value == 1):
                raise OptionError(
                    f"{key}: {value!r} needs a host model (--host {' or '.join(PRESETS)})"
                )
        return
    if host not in PRESETS:
        raise OptionError(f"host: unknown preset {host!r} (known: {IDEAL}, {', '.join(PRESETS)})")
    for key in HOST_OPTIONS:
        if key not in explicit or params.get(key) is None:
            params[key] = PRESETS[host][key]
    emulation_rules(params, explicit)


def emulation_rules(params: dict[str, Any], explicit: set[str]) -> None:
    """An emulated NIC's own rules on top of its preset's values (qemu-e1000: its interrupt
    floor and its tap-queue FIFO, lanloss/host_presets.py)."""
    if params.get("host") == "qemu-e1000":
        host_presets.qemu_e1000_rules(params, explicit)


def _cxx_bool(value: bool) -> str:
    return "true" if value else "false"


def cxx_header() -> str:
    """The scenario program's preset table (ns3-scratch/scenario-hosts.cc) and host value
    flags (scenario-options.cc), as C++."""
    rows = []
    for name, p in TABLE.items():
        n = p.nic
        lk = p.lock
        rows.append(
            f'    {{"{name}", {n.dma_bps}ULL, {n.driver_share!r}, 0x{n.pause_time:04X}, '
            f"0x{n.pause_refresh:04X}, {_cxx_bool(n.drop_when_no_ring)}, "
            f"{_cxx_bool(n.cause_latch)}, "
            f"{_cxx_bool(lk.spinlock)}, {lk.line_transfer!r}, {lk.hold!r}, "
            f"{_cxx_bool(lk.wake_all)}, {lk.owner!r}, {p.smt.threads}, {p.smt.share!r}, "
            f"{p.clock.advance!r}, {p.clock.speedup!r}, {p.clock.interrupt_stall!r}, "
            f"{_cxx_bool(p.tcp_prequeue)}, {_cxx_bool(p.skb == '6.1')}, "
            f"{_cxx_bool(p.wake_from_sleep)}, {p.collector.every}ULL, "
            f"{p.collector.pause!r}}},"
        )
    return "\n".join(
        [
            "// SPDX-License-Identifier: GPL-2.0-only",
            "// Generated from lanloss/host_presets.py (TABLE) by `python -m "
            "lanloss.host_values --cxx-header`; do not edit.",
            "#ifndef LANLOSS_SCENARIO_PRESETS_H",
            "#define LANLOSS_SCENARIO_PRESETS_H",
            "",
            "#include <cstdint>",
            "",
            "namespace lanloss",
            "{",
            "",
            "/** What a host preset's NIC and driver family fix (lanloss/host_presets.py, Nic). */",
            "struct NicFamily",
            "{",
            "    const char* preset;",
            "    uint64_t dmaBps;      //!< host bus: the DMA rate from FIFO to memory",
            "    double driverShare;   //!< DriverCost / (DriverCost + StackCost) of packet_cost",
            "    uint16_t pauseTime;   //!< quanta of a host XOFF",
            "    uint16_t refresh;     //!< XOFF refresh while the FIFO stays high",
            "    bool dropWhenNoRing;  //!< SRRCTL.DROP_EN when receive flow control is off",
            "    bool causeLatch;      //!< ICR keeps causes while masked (Nic.cause_latch)",
            "    bool queueSpinlock;   //!< readers take Linux's queue spinlock (SocketLock)",
            "    double lineTransferS; //!< its cache line's move between cores, seconds",
            "    double lockHoldS;     //!< its hold, seconds",
            "    bool wakeAll;         //!< a datagram wakes every sleeping reader",
            "    double ownerS;        //!< read time under lock_sock after the copy, s",
            "    uint32_t smtThreads;  //!< logical CPUs per core (Smt)",
            "    double smtShare;      //!< a sibling's speed while the other is busy",
            "    double clockAdvanceS; //!< a QEMU guest's clock: its align lead, s (GuestClock)",
            "    double clockSpeedup;  //!< and its busy speed over its clock's rate",
            "    double clockInterruptStallS; //!< and the emulator's real time per interrupt",
            "    bool tcpPrequeue;     //!< TCP's prequeue: recv() copies arriving segments",
            "    bool skb61;           //!< Linux 6.1's skb truesizes (Preset.skb), else 2.6's",
            "    bool wakeFromSleep;   //!< a reader woken from sleep pays wakeup_cost",
            "    uint64_t collectEveryBytes; //!< a collected reader: bytes between collections",
            "    double collectPauseS; //!< and each collection's pause, s (Collector)",
            "};",
            "",
            "inline constexpr NicFamily FAMILIES[] = {",
            *rows,
            "};",
            "",
            "/** The host values (HOST_OPTIONS): flags only a host model takes. */",
            "inline constexpr const char* HOST_VALUE_FLAGS[] = {",
            *(f'    "{name}",' for name in HOST_OPTIONS),
            "};",
            "",
            "} // namespace lanloss",
            "",
            "#endif",
            "",
        ]
    )


def main(argv: list[str]) -> int:
    """``python -m lanloss.host_values --cxx-header PATH``: write the header (the build runs it)."""
    from lanloss.generated import header_main

    return header_main(argv, "--cxx-header", "lanloss.host_values", cxx_header)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
