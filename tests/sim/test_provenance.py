# SPDX-License-Identifier: GPL-2.0-only
"""A simulator record says when, where and with which program it was made."""

from __future__ import annotations

import datetime as dt
import hashlib
import socket

from lanloss import paths
from lanloss.sim import SCENARIO


def test_env_has_start_time_host_and_program_hash(simulate):
    before = dt.datetime.now(dt.UTC)
    r = simulate(payload=1472, rate="10Mbps", duration="0.01s", warmup="0s")
    env = r.env
    started = dt.datetime.strptime(env["started_utc"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=dt.UTC
    )
    assert before - dt.timedelta(seconds=1) <= started <= dt.datetime.now(dt.UTC)
    assert env["hostname"] == socket.gethostname()
    program = paths.program(SCENARIO)
    assert env["program_sha256"] == hashlib.sha256(program.read_bytes()).hexdigest()
    assert env["ns3_version"]  # from the installed wheel, not a string in the code


def test_env_has_the_versions_it_ran_with(simulate):
    """env.versions: the installed packages, the kernel, and the compiler CMake recorded for
    the scenario program, which is the compiler at that path."""
    import os
    import re
    import subprocess
    from importlib import metadata

    from lanloss import provenance

    versions = simulate(payload=1472, rate="10Mbps", duration="0.01s", warmup="0s").env["versions"]
    assert versions["kernel"] == os.uname().release
    assert versions["packages"]["ns3"] == metadata.version("ns3")
    assert set(versions["packages"]) == set(provenance.PACKAGES)
    for name, version in versions["packages"].items():
        assert version == metadata.version(name), name
    compiler = versions["compiler"]
    cache = (paths.BUILD / "CMakeCache.txt").read_text()
    assert f"CMAKE_CXX_COMPILER:FILEPATH={compiler['path']}\n" in cache
    if compiler["id"] == "GNU":  # the version the compiler at that path reports
        reported = subprocess.run(
            [compiler["path"], "-dumpfullversion"], capture_output=True, text=True, check=True
        ).stdout.strip()
        assert reported == compiler["version"]
    assert re.fullmatch(r"\d+(\.\d+)+", compiler["version"])


def test_versions_text_lists_every_entry():
    from lanloss import provenance

    found = {
        "python": "3.11.7",
        "kernel": "6.1.0",
        "compiler": {"id": "GNU", "version": "12.2.0", "path": "/usr/bin/c++"},
        "packages": {"ns3": "3.44.post0", "snakemake": None},
    }
    assert provenance.versions_text(found) == (
        "python        3.11.7\n"
        "kernel        6.1.0\n"
        "c++ compiler  GNU 12.2.0 (/usr/bin/c++)\n"
        "ns3           3.44.post0\n"
        "snakemake     not installed\n"
    )


def test_package_versions_are_importlib_metadatas(tmp_path, monkeypatch):
    """Read from the .dist-info directories' names, first on sys.path first: the versions
    importlib.metadata gives, for names spelt any way (PyYAML, cppyy-cling); a name no
    directory has is asked of importlib.metadata (None when it is not installed)."""
    import sys
    from importlib import metadata

    from lanloss import provenance

    names = [*provenance.PACKAGES, "no-such-package-here"]
    expected = {n: metadata.version(n) for n in provenance.PACKAGES}
    assert provenance.package_versions(names) == {**expected, "no-such-package-here": None}
    # an entry earlier on the path shadows the installed one, as it would for an import
    shadow = tmp_path / "numpy-0.0.1.dist-info"
    shadow.mkdir()
    (shadow / "METADATA").write_text("Metadata-Version: 2.1\nName: numpy\nVersion: 0.0.1\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    assert provenance.package_versions(["numpy"]) == {"numpy": metadata.version("numpy")}
    assert metadata.version("numpy") == "0.0.1"
