# SPDX-License-Identifier: GPL-2.0-only
"""requirements.lock pins every Python package of the project and its workflow with hashes,
covers every dependency pyproject.toml names, and is what this test session runs on (make
setup installs from it), so a passing suite is a result of the locked environment."""

from __future__ import annotations

import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[1]
LOCK = REPO / "requirements.lock"
EXTRAS = ("sim", "dev", "workflow")  # what the Makefile's set-up installs

PIN = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[^\s;\\]+)")
HASH = re.compile(r"--hash=sha256:[0-9a-f]{64}")


def lock_entries() -> list[tuple[str, str]]:
    """The lock's requirements as (the requirement line, its --hash options joined)."""
    text = LOCK.read_text(encoding="utf-8")
    logical = re.sub(r"\\\n", " ", text)  # continuation lines joined
    out = []
    for line in logical.splitlines():
        line = line.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        out.append((line, " ".join(HASH.findall(line))))
    return out


def locked() -> dict[str, str]:
    """{canonical name: version} of every pinned package."""
    pins = {}
    for line, _ in lock_entries():
        m = PIN.match(line)
        assert m, f"not an exact pin: {line[:80]}"
        pins[canonicalize_name(m["name"])] = m["version"]
    return pins


def declared() -> list[Requirement]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    names = list(project["dependencies"])
    for extra in EXTRAS:
        names += project["optional-dependencies"][extra]
    return [Requirement(r) for r in names]


def test_every_requirement_is_an_exact_pin_with_hashes():
    entries = lock_entries()
    assert len(entries) > 20  # the workflow alone needs dozens
    for line, hashes in entries:
        assert PIN.match(line), f"not an exact pin: {line[:80]}"
        assert hashes, f"no sha256 hash: {line.split()[0]}"
        # every option on the line is a hash: no index URL, no editable, no extra flags
        rest = HASH.sub("", line[PIN.match(line).end() :]).strip()
        assert rest == "", f"{line.split()[0]}: unexpected {rest!r}"


def test_every_declared_dependency_is_locked_at_a_version_it_allows():
    pins = locked()
    for req in declared():
        name = canonicalize_name(req.name)
        assert name in pins, f"{req} (pyproject.toml) is not in requirements.lock"
        assert req.specifier.contains(pins[name], prereleases=True), (str(req), pins[name])
    assert "lanloss" not in pins  # installed editable on top, not from the lock


@pytest.mark.parametrize("name,version", sorted(locked().items()))
def test_installed_version_is_the_locked_one(name, version):
    """The environment running the tests holds exactly the locked versions."""
    try:
        installed = metadata.version(name)
    except metadata.PackageNotFoundError:
        pytest.fail(f"{name} {version} is locked but not installed (run make setup)")
    assert installed == version, f"{name}: installed {installed}, locked {version}"


def test_cppyy_finds_its_c_api_headers():
    """pip puts CPyCppyy's headers under include/site/pythonX.Y/<the name as the lock spells
    it>, where cppyy looks for CPyCppyy/API.h: the lock keeps the name's capitals."""
    assert re.search(r"^CPyCppyy==", LOCK.read_text(encoding="utf-8"), re.M)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    assert (Path(sys.prefix) / "include" / "site" / version / "CPyCppyy" / "API.h").is_file()
