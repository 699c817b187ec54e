# SPDX-License-Identifier: GPL-2.0-only
"""The wire constants shared with the simulator and the C tools, read from their one
definition, models/model/lanloss-wire-format.h (port, multicast group, payload header)."""

from __future__ import annotations

import re
from pathlib import Path

HEADER = Path(__file__).resolve().parent.parent / "models" / "model" / "lanloss-wire-format.h"


def _read(path: Path) -> dict[str, int | str]:
    values: dict[str, int | str] = {}
    for name, value in re.findall(r"^#define LANLOSS_(\w+) (.+)$", path.read_text(), re.M):
        value = value.strip()
        if value.startswith('"'):
            values[name] = value.strip('"')
        elif name != "WIRE_FORMAT_H":
            values[name] = int(value.rstrip("u"), 0)
    return values


_V = _read(HEADER)
PORT: int = int(_V["PORT"])
GROUP: str = str(_V["GROUP"])
MAGIC: int = int(_V["MAGIC"])
HDR_SEQ: int = int(_V["HDR_SEQ"])
HDR_FULL: int = int(_V["HDR_FULL"])
