# SPDX-License-Identifier: GPL-2.0-only
"""bench/scale.py --misses: what makes time per datagram grow with the hosts, counted by
callgrind's cache simulation. The annotation's parser on both of callgrind_annotate's
layouts, and, where valgrind is installed, a small star counted for real: the misses of
the functions add up to the program's total, and a last level too small for the LAN's
hot state misses more per datagram than one that holds it."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "scale.py"
LANLOSS_SIM = BENCH.parents[1] / "build" / "bin" / "lanloss-sim"


def _bench():
    spec = importlib.util.spec_from_file_location("scale_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# valgrind 3.19's layout (no percentages, "." for zero) and 3.21's (percentages)
ANNOTATE_319 = """\
--------------------------------------------------------------------------------
DLmr   DLmw ILmr  file:function
--------------------------------------------------------------------------------
12,000  3,000  500  PROGRAM TOTALS

--------------------------------------------------------------------------------
DLmr   DLmw ILmr  file:function
--------------------------------------------------------------------------------
9,000  1,000    .  ???:ns3::Buffer::Allocate(unsigned int) [/x/lib/libns3.44-network.so]
3,000  2,000  500  /build/glibc/malloc/malloc.c:_int_malloc [/usr/lib/libc.so.6]
"""
ANNOTATE_321 = """\
DLmr            DLmw           ILmr          file:function
12,000 (100.0%) 3,000 (100.0%) 500 (100.0%)  PROGRAM TOTALS
9,000 (75.0%)   1,000 (33.3%)  0              ???:ns3::Buffer::Allocate(unsigned int) [/x/l.so]
3,000 (25.0%)   2,000 (66.7%)  500 (100.0%)  malloc.c:_int_malloc [/usr/lib/libc.so.6]
"""


@pytest.mark.parametrize("text", [ANNOTATE_319, ANNOTATE_321], ids=["3.19", "3.21"])
def test_the_annotation_is_read_in_either_layout(text):
    total, functions = _bench().parse_annotate(text)
    assert total == 15_500
    assert functions == {
        "ns3::Buffer::Allocate(unsigned int) ["
        + ("libns3.44-network.so" if "network" in text else "l.so")
        + "]": 10_000,
        "_int_malloc [libc.so.6]": 5_500,
    }


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
@pytest.mark.skipif(not LANLOSS_SIM.exists(), reason="build/bin/lanloss-sim missing")
def test_a_small_star_counted_under_callgrind(tmp_path):
    bench = _bench()
    held = bench.count_misses(8, 0.01, tmp_path, (1024 * 1024, 8))
    squeezed = bench.count_misses(8, 0.01, tmp_path, (16 * 1024, 2))
    for r in (held, squeezed):
        # 8 flows of 1,700 datagrams/s for 0.01 s, after the 1 ms warm-up: counted, no loss
        assert r["hosts"] == 16 and r["received"] > 100
        # every function is listed (threshold 100 %): their misses are the total
        assert sum(r["functions"].values()) == pytest.approx(r["misses_per_datagram"])
    assert squeezed["received"] == held["received"]
    assert squeezed["misses_per_datagram"] > 2 * held["misses_per_datagram"] > 0
