# SPDX-License-Identifier: GPL-2.0-only
"""What-if options of `lanloss plan`: the shared vocabulary plus host values it lacks.

Kept apart from the planner so that building the `lanloss` parser imports nothing heavy.
"""

from __future__ import annotations

from typing import Any

from lanloss import options as vocab
from lanloss import units

# Host values the what-if may set that are not (yet) vocabulary options: kind, help
EXTRA_HOST = {
    "cores": ("int", "CPU cores of the receiving host"),
    "irq_cost": ("time", "CPU per interrupt"),
    "packet_cost": ("time", "kernel CPU per frame"),
    "read_cost": ("time", "CPU per datagram read"),
    "truesize": ("size", "skb truesize per frame (0 = driver rule)"),
    "stall_period": ("time", "reader stalls: period"),
    "stall_length": ("time", "reader stalls: length"),
    "frame_loss": ("float", "probability the receiving NIC loses a frame"),
}


def extra_options() -> dict[str, tuple[str, str]]:
    """Host what-ifs the vocabulary lacks (once lanloss/hosts.py lands, most are options)."""
    return {k: v for k, v in EXTRA_HOST.items() if k not in vocab.BY_NAME}


def parse_what_if(given: dict[str, Any]) -> dict[str, Any]:
    """Option text -> canonical values; OptionError naming any bad name or value."""
    out: dict[str, Any] = {}
    extra = extra_options()
    for name, text in given.items():
        if text is None:
            continue
        key = name.replace("-", "_")
        if key in vocab.BY_NAME:
            out[key] = vocab.parse_value(vocab.BY_NAME[key], text)
        elif key in extra:
            kind = extra[key][0]
            try:
                if kind == "time":
                    out[key] = units.parse_time(text)
                elif kind == "size":
                    out[key] = units.parse_size(text)
                elif kind == "int":
                    v = int(str(text))
                    if v < 1:
                        raise ValueError(f"{text!r} must be at least 1")
                    out[key] = v
                else:
                    v = float(text)
                    if not 0 <= v < 1:
                        raise ValueError(f"{text!r} is not a probability in [0, 1)")
                    out[key] = v
            except ValueError as exc:
                raise vocab.OptionError(f"{key}: {exc}") from None
        else:
            raise vocab.OptionError(f"unknown what-if option {name!r}")
    if out.get("protocol") == "tcp":
        raise vocab.OptionError("protocol: 'tcp' is not planned (the loss model is for UDP)")
    if out.get("payload", 0) > vocab.UDP_MAX_PAYLOAD:
        raise vocab.OptionError(
            f"payload: {out['payload']} exceeds the UDP maximum {vocab.UDP_MAX_PAYLOAD}"
        )
    return out
