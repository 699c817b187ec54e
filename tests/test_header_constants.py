# SPDX-License-Identifier: GPL-2.0-only
"""The wire constants have one definition (models/model/lanloss-wire-format.h): Python reads
it, the C tools and the ns-3 module include it, and no other file spells the values."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from lanloss import header_constants

REPO = Path(__file__).resolve().parent.parent
SPELLED = ("5001", "239.77.0.1", "0x4C4C5353", "0x4c4c5353")


def test_python_reads_the_header():
    assert header_constants.PORT == 5001 and header_constants.GROUP == "239.77.0.1"
    assert header_constants.MAGIC == int.from_bytes(b"LLSS", "big")
    assert (header_constants.HDR_SEQ, header_constants.HDR_FULL) == (8, 24)


def test_no_other_source_spells_a_shared_value():
    tracked = subprocess.run(
        ["git", "ls-files", "*.py", "*.c", "*.h", "*.cc"], capture_output=True, text=True,
        cwd=REPO, check=True,
    ).stdout.split()  # fmt: skip
    allowed = {"models/model/lanloss-wire-format.h", "tests/test_header_constants.py"}
    # examples and tests may use the port as a literal, as ns-3's own examples do
    hits = [
        f"{f}: {v}"
        for f in tracked
        if f not in allowed and not f.startswith(("tests/", "models/examples/"))
        for v in SPELLED
        if v in (REPO / f).read_text()
    ]
    assert hits == []


def test_the_tools_default_to_the_shared_port(built):
    out = subprocess.run(
        [str(REPO / "testbed/tools/lanloss-send"), "--help"], capture_output=True, text=True
    )
    assert f"destination port ({header_constants.PORT})" in out.stdout + out.stderr


# -- Linux's receive side: models/model/lanloss-linux-rx.h ------------------------------------

RX_SPELLED = ("65507", "212992", "4608", "2304")


def test_python_reads_the_linux_rx_header():
    hc = header_constants
    assert hc.UDP_MAX_PAYLOAD == 65535 - 20 - 8
    assert hc.SKB_OVERHEAD == 256 + 320
    assert hc.RX_BUFFER_TRUESIZE == 2048 + 256  # SKB_TRUESIZE(2048 - 320)
    assert hc.SOCK_MIN_RCVBUF == 2 * (2048 + 256)
    assert hc.RMEM_DEFAULT == 256 * (256 + hc.SKB_OVERHEAD) == 212992
    # the copybreak rule: align64(len + 64) + 576; 768 for a 106-byte frame
    sizes = (60, 64, 65, 106, 128, 256)
    assert [hc.copybreak_truesize(n) for n in sizes] == [704, 704, 768, 768, 768, 896]


def test_the_python_side_uses_the_headers_values():
    from lanloss import options
    from lanloss.analysis import loss_model, wire

    assert options.UDP_MAX_PAYLOAD == wire.MAX_UDP_PAYLOAD == header_constants.UDP_MAX_PAYLOAD
    assert loss_model.RMEM_DEFAULT == header_constants.RMEM_DEFAULT
    assert loss_model.SOCK_MIN_RCVBUF == header_constants.SOCK_MIN_RCVBUF
    assert loss_model.COPYBREAK == header_constants.COPYBREAK
    assert loss_model.frame_truesize(106) == 768
    assert loss_model.frame_truesize(257 + 14) == header_constants.RX_BUFFER_TRUESIZE


def test_a_header_value_is_only_arithmetic_on_earlier_names(tmp_path):
    header = tmp_path / "h.h"
    header.write_text("#define LANLOSS_A 3u\n#define LANLOSS_B (LANLOSS_A * 2u + 1)\n")
    assert header_constants.read_header(header) == {"A": 3, "B": 7}
    for bad in ("(LANLOSS_C + 1)", "__import__('os')", "(1 / 2)"):
        header.write_text(f"#define LANLOSS_A {bad}\n")
        with pytest.raises(ValueError, match="LANLOSS_A"):
            header_constants.read_header(header)


def test_no_model_or_scenario_source_spells_a_linux_rx_value():
    """The module, the scenario program and the Python that models the receive side take
    these from lanloss-linux-rx.h (its tests may state the expected numbers)."""
    tracked = subprocess.run(
        ["git", "ls-files", "models/model", "models/helper/*.cc", "ns3-scratch",
         "analysis/loss_model.py", "analysis/wire.py", "lanloss/header_constants.py"],
        capture_output=True, text=True, cwd=REPO, check=True,
    ).stdout.split()  # fmt: skip
    tracked.append("models/model/lanloss-linux-rx.h")  # new files too
    hits = [
        f"{f}: {v}"
        for f in set(tracked)
        if f != "models/model/lanloss-linux-rx.h"
        for v in RX_SPELLED
        if v in (REPO / f).read_text()
    ]
    assert hits == []
