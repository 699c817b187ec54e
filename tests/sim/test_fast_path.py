# SPDX-License-Identifier: GPL-2.0-only
"""The UDP fast path (models/model/udp-fast-path.h) gives the record the ns-3 stack gives.

Every simulator point of every shipped study (the default study in config/config.yaml and
config/studies/*.yaml) runs twice, with lanloss-sim's --udp_fast_path on and off, and the
two records must be equal in every field but the wall-clock timings: every count, drop
point, latency percentile, PAUSE figure, CPU share and the event count. The fast path
changes no simulated time, so the identity holds datagram by datagram; each point runs
over a short window (at most 10 ms of traffic) to keep the ~1,000 runs cheap.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml

from lanloss import paths, sim, study

ROOT = Path(__file__).resolve().parents[2]
SHORT_S = 0.01
WALL_CLOCK = ("sim_wall_s", "setup_wall_s")


def shipped_sim_points() -> list[tuple[str, dict]]:
    """(study:point id, resolved params) of every simulator point of every shipped study."""
    config = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    _, default = study.split_config(config)
    studies = [study.from_mapping(default, "config/config.yaml")]
    studies += [study.load(p) for p in sorted((ROOT / "config" / "studies").glob("*.yaml"))]
    return [(f"{s.name}:{p.id}", p.params) for s in studies for p in s.points_for("sim")]


def shortened(params: dict) -> dict:
    """The point over at most SHORT_S of traffic, its warmup inside it."""
    duration = min(float(params["duration"]), SHORT_S)
    return {**params, "duration": duration, "warmup": min(float(params["warmup"]), duration / 4)}


def raw_record(params: dict, fast_path: bool) -> dict:
    """lanloss-sim's own record of the point, without its wall-clock timings."""
    program = paths.program(sim.SCENARIO)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "result.json")
        spec = sim.write_spec(params, os.path.join(tmp, "topology.spec"))
        cmd = [str(program), *sim.scenario_flags(params, spec), f"--out={out}"]
        cmd.append(f"--udp_fast_path={'true' if fast_path else 'false'}")
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        assert proc.returncode == 0, (cmd, proc.stderr[-2000:])
        record = json.loads(Path(out).read_text())
    for key in WALL_CLOCK:
        record["timing"].pop(key, None)
    return record


def differences(a, b, where: str = "") -> list[str]:
    """Paths at which two JSON values differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in sorted(set(a) | set(b)):
            out += differences(a.get(key), b.get(key), f"{where}.{key}")
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        pairs = enumerate(zip(a, b, strict=True))
        return [d for k, (x, y) in pairs for d in differences(x, y, f"{where}[{k}]")]
    return [] if a == b else [f"{where}: {a!r} != {b!r}"]


def test_every_shipped_simulator_point_has_the_same_record_with_the_fast_path(built):
    points = shipped_sim_points()
    assert len(points) > 400, "the shipped studies' simulator grids"

    def compare(item: tuple[str, dict]) -> list[str]:
        name, params = item
        short = shortened(params)
        diff = differences(raw_record(short, True), raw_record(short, False))
        return [f"{name} {d}" for d in diff[:5]]

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        found = [d for diffs in pool.map(compare, points) for d in diffs]
    assert not found, "\n".join(found[:40])


@pytest.mark.parametrize(
    "given",
    [
        {"payload": "64", "senders": "3", "switch_buffer": "16KiB"},
        {"cast": "multicast", "receivers": "3", "rate": "50Mbps"},
        {"host": "e1000-2008", "edge_rate": "1Gbps", "rate": "max", "readers": "2"},
    ],
    ids=["unicast-switch-loss", "multicast", "host-model-readers"],
)
def test_the_fast_path_carries_the_datagrams_at_full_length(built, given):
    """Not a vacuous identity: with the fast path on, the run still receives datagrams,
    and a run at full length (not shortened) matches too."""
    from lanloss import options

    params = options.resolve({**given, "duration": "0.1s", "warmup": "0.01s"}, "sim")
    fast, stack = raw_record(params, True), raw_record(params, False)
    assert sum(f["received"] for f in fast["flows"]) > 100
    assert differences(fast, stack) == []
