# SPDX-License-Identifier: GPL-2.0-only
"""What-if options of `lanloss plan`: the shared vocabulary (lanloss.options), parsed.

Kept apart from the planner so that building the `lanloss` parser imports nothing heavy.
"""

from __future__ import annotations

from typing import Any

from lanloss import options as vocab


def parse_what_if(given: dict[str, Any]) -> dict[str, Any]:
    """Option text -> canonical values; OptionError naming any bad name or value."""
    out: dict[str, Any] = {}
    for name, text in given.items():
        if text is None:
            continue
        key = name.replace("-", "_")
        if key not in vocab.BY_NAME:
            raise vocab.OptionError(f"unknown what-if option {name!r}")
        out[key] = vocab.parse_value(vocab.BY_NAME[key], text)
    if out.get("protocol") == "tcp":
        raise vocab.OptionError("protocol: 'tcp' is not planned (the loss model is for UDP)")
    if out.get("payload", 0) > vocab.UDP_MAX_PAYLOAD:
        raise vocab.OptionError(
            f"payload: {out['payload']} exceeds the UDP maximum {vocab.UDP_MAX_PAYLOAD}"
        )
    return out
