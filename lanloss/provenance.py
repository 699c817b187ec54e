# SPDX-License-Identifier: GPL-2.0-only
"""Where and with what a run was made, for the record's ``env`` (as iperf3 and flent
record theirs): the UTC start, the machine's name, a hash of the programs that made
the numbers (the scenario program; the testbed's tools), and the versions of the software
around them (Python packages, kernel, the C++ compiler)."""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import platform
import re
import socket
import sys
from collections.abc import Iterable
from typing import Any


def utc_now() -> str:
    """ISO 8601, UTC, to the millisecond: 2026-11-24T17:50:00.123Z."""
    return _utc(_dt.datetime.now(_dt.UTC))


def utc_from(seconds: float) -> str:
    """A Unix time as utc_now writes it."""
    return _utc(_dt.datetime.fromtimestamp(seconds, _dt.UTC))


def _utc(when: _dt.datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"


def hostname() -> str:
    return socket.gethostname()


def files_sha256(paths: Iterable[str | os.PathLike]) -> str | None:
    """One SHA-256 over the files' contents in the order given (None if one is missing)."""
    h = hashlib.sha256()
    for path in paths:
        try:
            with open(path, "rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    h.update(block)
        except OSError:
            return None
    return h.hexdigest()


# The installed distributions whose versions can change a record's numbers or files: the
# simulator's (ns3 and the cppyy it loads through), the analysis', the workflow's.
PACKAGES = (
    "ns3",
    "cppyy",
    "cppyy-cling",
    "numpy",
    "pandas",
    "pyarrow",
    "scipy",
    "matplotlib",
    "seaborn",
    "jsonschema",
    "PyYAML",
    "snakemake",
)

# Written by CMake next to the programs it builds (CMakeLists.txt): the C++ compiler.
COMPILER_FILE = "compiler.json"


# An installed wheel's metadata directory: {name}-{version}.dist-info, its name normalized
# (runs of "-", "_", "." as one "_"), so neither part holds a "-" (the PyPA's "Recording
# installed projects").
_DIST_INFO = re.compile(r"(?P<name>[^-]+)-(?P<version>[^-]+)\.dist-info")


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def package_versions(names: Iterable[str] = PACKAGES) -> dict[str, str | None]:
    """Installed version of each distribution (None: not installed).

    Read from the .dist-info directories' names, the first on sys.path winning, as
    importlib.metadata finds them: one listing per path entry instead of its scan per
    package (0.07 s of every run's process). A name no directory gives (an egg, an
    unusual layout) is asked of importlib.metadata."""
    wanted = {_normalized(name): name for name in names}
    out: dict[str, str | None] = dict.fromkeys(wanted.values())
    found: set[str] = set()
    for entry in sys.path:
        try:
            listing = os.listdir(entry or ".")
        except OSError:
            continue
        for item in listing:
            m = _DIST_INFO.fullmatch(item)
            if not m:
                continue
            name = wanted.get(_normalized(m["name"]))
            if name is not None and name not in found:
                out[name] = m["version"]
                found.add(name)
    missing = [name for name in out if name not in found]
    if missing:
        from importlib import metadata

        for name in missing:
            try:
                out[name] = metadata.version(name)
            except metadata.PackageNotFoundError:
                out[name] = None
    return out


def compiler_of(program: str | os.PathLike) -> dict[str, str] | None:
    """The C++ compiler CMake built ``program`` with ({id, version, path, build_type}), from
    the compiler.json beside it (None when the build wrote none)."""
    path = os.path.join(os.path.dirname(os.fspath(program)), COMPILER_FILE)
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return None
    return {k: str(v) for k, v in data.items()} if isinstance(data, dict) else None


def versions(program: str | os.PathLike | None = None) -> dict[str, Any]:
    """The software a run was made with: Python, the kernel (uname -r), the packages of
    PACKAGES and, given the C++ program that made the numbers, the compiler that built it."""
    out: dict[str, Any] = {
        "python": platform.python_version(),
        "kernel": platform.release(),
        "packages": package_versions(),
    }
    if program is not None:
        out["compiler"] = compiler_of(program)
    return out


def versions_text(found: dict[str, Any]) -> str:
    """versions() as aligned `name  version` lines (the workflow report's versions.txt)."""
    rows = [("python", found["python"]), ("kernel", found["kernel"])]
    compiler = found.get("compiler")
    if "compiler" in found:
        rows.append(
            (
                "c++ compiler",
                f"{compiler['id']} {compiler['version']} ({compiler['path']})"
                if compiler
                else "unknown (no compiler.json beside the program)",
            )
        )
    rows += [(name, version or "not installed") for name, version in found["packages"].items()]
    width = max(len(name) for name, _ in rows)
    return "".join(f"{name:<{width}}  {value}\n" for name, value in rows)
