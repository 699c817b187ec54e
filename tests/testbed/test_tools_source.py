# SPDX-License-Identifier: GPL-2.0-only
"""The C tools' source tar, which the ssh backend builds on a host whose architecture or C
library differs from this machine's: it holds what the sources include (the model's
headers, laid out as in the repository) and builds tools that run."""

from __future__ import annotations

import io
import shutil
import subprocess
import tarfile

import pytest

from lanloss.testbed import ssh


@pytest.mark.skipif(shutil.which("make") is None or shutil.which("cc") is None, reason="no cc")
def test_the_source_tar_builds_tools_that_run(tmp_path):
    with tarfile.open(fileobj=io.BytesIO(ssh._source_tar()), mode="r:gz") as tar:
        tar.extractall(tmp_path, filter="data")
    tools = tmp_path / ssh.TOOLS_SRC
    build = subprocess.run(["make", "-s", "-C", str(tools)], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    for name in ssh.TOOLS:
        run = subprocess.run([str(tools / name), "--help"], capture_output=True, text=True)
        assert run.returncode == 0 and "usage" in run.stdout + run.stderr
