# SPDX-License-Identifier: GPL-2.0-only
"""The vocabulary is defined once: units parse exactly, and the scenario's flags match it."""

from __future__ import annotations

import pytest

from lanloss import options, units
from lanloss.options import OptionError


@pytest.mark.parametrize(
    "text,bps",
    [
        ("100Mbps", 100_000_000),
        ("1Gbps", 10**9),
        ("20M", 20_000_000),
        ("1.5Gbit/s", 1_500_000_000),
        ("64kbps", 64_000),
        ("5e6", 5_000_000),
    ],
)
def test_parse_rate(text, bps):
    assert units.parse_rate(text) == bps


@pytest.mark.parametrize(
    "text,n", [("128KiB", 131072), ("212992", 212992), ("1MB", 10**6), ("48KiB", 49152)]
)
def test_parse_size(text, n):
    assert units.parse_size(text) == n


@pytest.mark.parametrize("text,s", [("2s", 2.0), ("200ms", 0.2), ("1us", 1e-6), ("1.6ms", 0.0016)])
def test_parse_time(text, s):
    assert units.parse_time(text) == pytest.approx(s)


def test_resolve_fills_every_option_and_derives_sender_rate():
    p = options.resolve({"edge_rate": "1Gbps"}, "sim")
    assert set(p) == {o.name for o in options.OPTIONS}
    assert p["sender_rate"] == 10**9


def test_unsupported_option_for_source_is_named():
    with pytest.raises(OptionError, match="recv_cpu"):
        options.resolve({"recv_cpu": "20"}, "sim")


def test_every_one_source_option_says_why_and_no_shared_one_does():
    from lanloss import options as vocab

    for o in vocab.OPTIONS:
        one_source = not (o.sim and o.bed)
        assert bool(o.one_source_because) == one_source, o.name
    assert set(vocab.ONE_SOURCE_BECAUSE) <= set(vocab.BY_NAME)
