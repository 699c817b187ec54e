# SPDX-License-Identifier: GPL-2.0-only
"""A study's relative topology path is found from any working directory (Snakemake -d)."""

from __future__ import annotations

from pathlib import Path

from lanloss import options, paths

CAMPUS = "config/topologies/campus.yaml"


def test_a_shipped_file_is_found_from_another_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert Path(paths.data_file(CAMPUS)) == paths.REPO / CAMPUS
    params = options.resolve({"topology": CAMPUS, "cast": "multicast"}, "sim")
    assert params["topology"] == CAMPUS  # the short path stays in the point's parameters


def test_the_working_directory_wins_and_a_missing_file_stays_missing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    mine = tmp_path / CAMPUS
    mine.parent.mkdir(parents=True)
    mine.write_text("switches: [sw1]\n")
    assert paths.data_file(CAMPUS) == CAMPUS
    assert paths.data_file("config/topologies/nowhere.yaml") == "config/topologies/nowhere.yaml"
