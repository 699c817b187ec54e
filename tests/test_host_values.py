# SPDX-License-Identifier: GPL-2.0-only
"""Host values (lanloss.host_values): presets, host files, precedence, validation, the API the
fit uses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lanloss import host_values, options
from lanloss.options import OptionError


def test_presets_set_every_host_value_canonically():
    for name, preset in host_values.PRESETS.items():
        assert set(preset) == set(host_values.HOST_OPTIONS), name
        for key, value in preset.items():
            assert options.parse_value(options.BY_NAME[key], value) == value, (name, key)
    assert host_values.PRESETS["e1000-2008"]["rx_ring"] == 256
    assert host_values.PRESETS["modern"]["rx_ring"] == 4096
    # a preset's rcvbuf is rmem_default / 2: sk_rcvbuf = rmem_default, as without setsockopt
    assert 2 * host_values.PRESETS["modern"]["rcvbuf"] == 212992
    assert 2 * host_values.PRESETS["e1000-2008"]["rcvbuf"] == 109568


def test_preset_fills_and_options_override():
    p = options.resolve({"host": "e1000-2008", "itr": "2500", "rcvbuf": "1MiB"}, "sim")
    assert p["itr"] == 2500 and p["rcvbuf"] == 1 << 20
    assert p["irq_cost"] == 8e-6 and p["rx_ring"] == 256 and p["cores"] == 1
    ideal = options.resolve({}, "sim")
    assert all(ideal[k] is None for k in host_values.HOST_OPTIONS)


def write(path: Path, data: dict) -> str:
    if path.suffix == ".json":
        path.write_text(json.dumps(data))
    else:
        import yaml

        path.write_text(yaml.safe_dump(data))
    return str(path)


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_host_file_over_its_base(tmp_path: Path, suffix: str):
    f = write(
        tmp_path / f"lab{suffix}",
        {"name": "lab-pc", "base": "modern", "irq_cost": "2us", "packet_cost": 8e-7, "cores": 2},
    )
    loaded = host_values.load_host_file(f)
    assert loaded["name"] == "lab-pc" and loaded["base"] == "modern"
    assert loaded["irq_cost"] == 2e-6 and loaded["packet_cost"] == 8e-7 and loaded["cores"] == 2
    assert loaded["rx_ring"] == 4096  # from the base
    assert set(loaded) == {"name", "base", *host_values.HOST_OPTIONS}


def test_explicit_option_over_host_file(tmp_path: Path):
    f = write(tmp_path / "h.yaml", {"base": "e1000-2008", "itr": 8000, "read_cost": "7us"})
    p = options.resolve({"itr": "100"}, "sim", host_file=f)
    assert p["host"] == "e1000-2008"
    assert p["itr"] == 100  # the command line wins
    assert p["read_cost"] == 7e-6  # the file beats the preset
    assert p["irq_cost"] == 8e-6  # the preset fills the rest


def test_host_file_base_from_host_option(tmp_path: Path):
    f = write(tmp_path / "h.yaml", {"cores": 8})
    p = options.resolve({"host": "modern"}, "sim", host_file=f)
    assert p["host"] == "modern" and p["cores"] == 8


@pytest.mark.parametrize(
    "data,named",
    [
        ({"base": "modern", "irq_costs": "1us"}, "irq_costs"),
        ({"base": "modern", "irq_cost": "fast"}, "fast"),
        ({"base": "modern", "rx_ring": 10}, "rx_ring"),
        ({"base": "modern", "cores": 0}, "cores"),
        ({"base": "pentium4"}, "pentium4"),
        ({"irq_cost": "1us"}, "base"),
    ],
)
def test_bad_host_file_is_named(tmp_path: Path, data: dict, named: str):
    f = write(tmp_path / "bad.yaml", data)
    with pytest.raises(OptionError, match=named):
        host_values.load_host_file(f)


def test_host_file_base_must_agree_with_host(tmp_path: Path):
    f = write(tmp_path / "h.yaml", {"base": "modern"})
    with pytest.raises(OptionError, match="disagrees"):
        options.resolve({"host": "e1000-2008"}, "sim", host_file=f)


def test_host_file_with_ideal_host(tmp_path: Path):
    f = write(tmp_path / "h.yaml", {"base": "modern"})
    with pytest.raises(OptionError, match="ideal"):
        options.resolve({"host": "ideal"}, "sim", host_file=f)


def test_host_file_not_yaml(tmp_path: Path):
    f = tmp_path / "h.yaml"
    f.write_text("base: [modern\n")
    with pytest.raises(OptionError, match="h.yaml"):
        host_values.load_host_file(str(f))


def test_host_file_as_a_fit_writes_it(tmp_path: Path):
    """Numbers in canonical units, counts as floats, null for a value the fit left alone."""
    f = write(
        tmp_path / "fit-host.json",
        {
            "name": "fit",
            "base": "e1000-2008",
            "irq_cost": 6.5e-06,
            "read_cost": "5e-06s",
            "cores": 2.0,
            "truesize": None,
            "rcvbuf": 212992.0,
        },
    )
    loaded = host_values.load_host_file(f)
    assert loaded["irq_cost"] == 6.5e-6 and loaded["read_cost"] == 5e-6
    assert loaded["cores"] == 2 and isinstance(loaded["cores"], int)
    assert loaded["truesize"] == 0  # the base's
    assert loaded["rcvbuf"] == 212992
