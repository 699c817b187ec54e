# SPDX-License-Identifier: GPL-2.0-only
"""The constants shared with the simulator and the C tools, read from their one definition
in the ns-3 module's plain-C headers:

- models/model/lanloss-wire-format.h: the wire (port, multicast group, payload header);
- models/model/lanloss-linux-rx.h: Linux's receive side (the largest UDP payload, skb
  truesize, socket buffer limits) as the host model charges it.

A value is a number, a string or arithmetic (+, -, *, parentheses) on names defined above
it in the same header."""

from __future__ import annotations

import ast
import re
from pathlib import Path

MODEL_DIR = Path(__file__).resolve().parent.parent / "models" / "model"
HEADER = MODEL_DIR / "lanloss-wire-format.h"
LINUX_RX_HEADER = MODEL_DIR / "lanloss-linux-rx.h"

_ARITHMETIC = (
    ast.Expression,
    ast.BinOp,
    ast.Add,
    ast.Sub,
    ast.Mult,
    ast.Constant,
    ast.Name,
    ast.Load,
)


def _evaluate(name: str, text: str, known: dict[str, int | str]) -> int:
    """An integer #define's value: C suffixes dropped, earlier names substituted."""
    expr = re.sub(r"\b(0[xX][0-9a-fA-F]+|[0-9]+)[uUlL]*\b", r"\1", text)
    expr = re.sub(r"\bLANLOSS_(\w+)\b", r"\1", expr)
    tree = ast.parse(expr, mode="eval")
    for node in ast.walk(tree):
        if not isinstance(node, _ARITHMETIC) or (
            isinstance(node, ast.Name) and not isinstance(known.get(node.id), int)
        ):
            raise ValueError(f"LANLOSS_{name}: {text!r} is not arithmetic on earlier integers")
    return int(eval(compile(tree, name, "eval"), {"__builtins__": {}}, dict(known)))


def read_header(path: Path) -> dict[str, int | str]:
    """The header's ``#define LANLOSS_NAME VALUE`` lines -> {NAME: value} (its guard left out)."""
    values: dict[str, int | str] = {}
    for name, value in re.findall(r"^#define LANLOSS_(\w+) (.+)$", path.read_text(), re.M):
        value = value.strip()
        if value.startswith('"'):
            values[name] = value.strip('"')
        else:
            values[name] = _evaluate(name, value, values)
    return values


_V = read_header(HEADER)
PORT: int = int(_V["PORT"])
GROUP: str = str(_V["GROUP"])
MAGIC: int = int(_V["MAGIC"])
HDR_SEQ: int = int(_V["HDR_SEQ"])
HDR_FULL: int = int(_V["HDR_FULL"])

_RX = read_header(LINUX_RX_HEADER)
UDP_MAX_PAYLOAD: int = int(_RX["UDP_MAX_PAYLOAD"])
SKB_OVERHEAD: int = int(_RX["SKB_OVERHEAD"])  # SKB_TRUESIZE(x) = x + SKB_OVERHEAD
NET_SKB_PAD: int = int(_RX["NET_SKB_PAD"])
COPYBREAK: int = int(_RX["COPYBREAK"])
RX_BUFFER_TRUESIZE: int = int(_RX["RX_BUFFER_TRUESIZE"])
# Linux 6.1 (Preset.skb "6.1"): any copy at copybreak, and e1000's fragment at MTU 1500
COPIED_TRUESIZE_6_1: int = int(_RX["COPIED_TRUESIZE_6_1"])
KEPT_TRUESIZE_6_1: int = int(_RX["KEPT_TRUESIZE_6_1"])
SKB_HEAD: int = int(_RX["SKB_HEAD"])  # sizeof(struct sk_buff), aligned
SOCK_MIN_RCVBUF: int = int(_RX["SOCK_MIN_RCVBUF"])
RMEM_DEFAULT: int = int(_RX["RMEM_DEFAULT"])


def copybreak_truesize(frame_len: int) -> int:
    """skb truesize of a frame copied at copybreak: SKB_TRUESIZE(SKB_DATA_ALIGN(len +
    NET_SKB_PAD)), the rule lanloss-linux-rx.h states and the host model charges."""
    return 64 * -(-(frame_len + NET_SKB_PAD) // 64) + SKB_OVERHEAD
