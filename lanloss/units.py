# SPDX-License-Identifier: GPL-2.0-only
"""Parsing of the unit-bearing values of the shared vocabulary.

Every parser takes the text a user typed and returns a canonical number:
bit rates in bit/s (int), sizes in bytes (int), times in seconds (float).
Errors are ``ValueError`` whose message names the offending text, so the CLI
can print it as a one-line error.
"""

from __future__ import annotations

import math
import re

# iperf3 and ns-3 both use decimal prefixes for rates (1 Mbit/s = 10^6 bit/s).
_RATE_PREFIX = {"": 1, "k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
_RATE_RE = re.compile(
    r"^\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([kmgtKMGT]?)\s*"
    r"(bps|bit/s|b/s|bit|b)?\s*$"
)

# Sizes: decimal (kB, MB) and binary (KiB, MiB) prefixes; bare numbers are bytes.
_SIZE_PREFIX = {
    "": 1,
    "b": 1,
    "k": 1000,
    "kb": 1000,
    "mb": 1000**2,
    "gb": 1000**3,
    "ki": 1024,
    "kib": 1024,
    "mi": 1024**2,
    "mib": 1024**2,
    "gi": 1024**3,
    "gib": 1024**3,
}
_SIZE_RE = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*([a-zA-Z]*)\s*$")

_TIME_UNIT = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9, "min": 60.0}
# Upper bounds: ns-3 keeps rates in a uint64 of bit/s and times in an int64 of
# nanoseconds (about 292 years), and products of the two must not overflow; nothing
# lanloss studies comes near either.
MAX_RATE = 10**13  # 10 Tbit/s
MAX_TIME = 86400.0  # one day

_TIME_RE = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*(s|ms|us|µs|ns|min)?\s*$")


def _finite(what: str, text: object, value: float) -> None:
    """Infinite and NaN values are named as such (not as "negative" or "unparsable")."""
    if math.isnan(value):
        raise ValueError(f"{what} {text!r} is not a number (NaN)")
    if math.isinf(value):
        raise ValueError(f"{what} {text!r} is infinite; give a finite value")


def _finite_text(what: str, text: object) -> None:
    """Text spelling infinity or NaN ("inf", "-Infinity", "nan", "nans") named as such."""
    s = str(text).strip().lstrip("+-").lower()
    if s.startswith(("inf", "nan")):
        _finite(what, text, float(s[:3]))


def parse_rate(text: str | int | float) -> int:
    """'100Mbps', '1Gbit/s', '20M', '5e6' -> bit/s. Rejects zero and negatives."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        value = float(text)
    else:
        _finite_text("rate", text)
        m = _RATE_RE.fullmatch(str(text))
        if not m:
            raise ValueError(f"cannot parse rate {text!r} (expected e.g. 100Mbps, 1Gbps, 20M)")
        value = float(m.group(1)) * _RATE_PREFIX[m.group(2).lower()]
    _finite("rate", text, value)
    if value <= 0:
        raise ValueError(f"rate {text!r} must be a positive bit rate")
    if round(value) < 1:
        raise ValueError(f"rate {text!r} is below 1 bit/s")
    if value > MAX_RATE:
        raise ValueError(f"rate {text!r} is above the largest rate lanloss models, 10Tbps")
    return int(round(value))


def parse_size(text: str | int) -> int:
    """'128KiB', '48KiB', '212992', '1.5MB' -> bytes (int, >= 0)."""
    if isinstance(text, int) and not isinstance(text, bool):
        if text < 0:
            raise ValueError(f"size {text!r} must not be negative")
        return text
    if isinstance(text, float):
        _finite("size", text, text)
        if text < 0:
            raise ValueError(f"size {text!r} must not be negative")
    m = _SIZE_RE.fullmatch(str(text))
    if not m or m.group(2).lower() not in _SIZE_PREFIX:
        if str(text).strip().startswith("-"):
            raise ValueError(f"size {text!r} must not be negative")
        raise ValueError(f"cannot parse size {text!r} (expected e.g. 1472, 128KiB, 2MB)")
    number, scale = m.group(1), _SIZE_PREFIX[m.group(2).lower()]
    if "." not in number:  # whole numbers exactly (a float would round 2**64 + 1)
        return int(number) * scale
    value = float(number) * scale
    _finite("size", text, value)
    if value != int(value):
        raise ValueError(f"size {text!r} is not a whole number of bytes")
    return int(value)


def parse_time(text: str | int | float) -> float:
    """'2s', '200ms', '1us', '0.5' -> seconds (float, >= 0)."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        value = float(text)
    else:
        s = str(text).strip()
        _finite_text("duration", text)
        if s.startswith("-"):
            raise ValueError(f"duration {text!r} must not be negative")
        m = _TIME_RE.fullmatch(s)
        if not m:
            raise ValueError(f"cannot parse duration {text!r} (expected e.g. 2s, 200ms, 1us)")
        value = float(m.group(1)) * _TIME_UNIT[m.group(2) or "s"]
    _finite("duration", text, value)
    if value < 0:
        raise ValueError(f"duration {text!r} must not be negative")
    if value > MAX_TIME:
        raise ValueError(f"duration {text!r} is above the longest lanloss runs, 1 day (86400s)")
    return value


def format_rate(bps: float) -> str:
    """Short human form: 95.71Mbps."""
    for unit, div in (("Gbps", 1e9), ("Mbps", 1e6), ("kbps", 1e3)):
        if bps >= div:
            return f"{bps / div:.6g}{unit}"
    return f"{bps:.6g}bps"
