# SPDX-License-Identifier: GPL-2.0-only
"""The module's examples run: from C++, and from ns-3's Python bindings (cppyy)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lanloss.analysis import wire

REPO = Path(__file__).resolve().parent.parent
GOODPUT_100M_MBPS = wire.saturation_goodput_bps(1472, 100e6) / 1e6


def test_cpp_example(built):
    out = subprocess.run(
        [str(built / "bin" / "lanloss-star-example"), "--pause=1"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "dropped at sender_queue" in out
    assert "switch_egress" not in out


@pytest.mark.slow
@pytest.mark.parametrize("pause", [False, True])
def test_python_bindings_example(built, pause):
    """`from ns import ns` loads libns3.44-lanloss.so from the wheel's prefix (make build)."""
    args = [sys.executable, str(REPO / "models" / "examples" / "lanloss-star.py")]
    if pause:
        args.append("--pause")
    proc = subprocess.run(args, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["sent"] == result["received"] + sum(result["drops"].values())
    assert result["unexplained"] == 0
    assert result["goodput_mbps"] == pytest.approx(GOODPUT_100M_MBPS, rel=0.01)
    if pause:
        assert result["drops"]["switch_egress"] == 0 and result["drops"]["sender_queue"] > 0
        assert result["pause_frames_received_by_server"] > 0
    else:
        assert result["drops"]["switch_egress"] > 0 and result["drops"]["sender_queue"] == 0
