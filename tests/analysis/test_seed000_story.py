# SPDX-License-Identifier: GPL-2.0-only
"""`python -m lanloss.analysis.seed000_story`: seed 000's three claims judged on a study's
guest runs and on the model alike, a pair counted only where the runs separate."""

from __future__ import annotations

import pandas as pd

from lanloss import host_presets
from lanloss.analysis import seed000_story as story


def _row(source, run, itr, rcvbuf, rate, sent, lost, irq, ring=0, socket=None):
    """A table row (the columns the story reads) of one run at one point."""
    return {
        "source": source,
        "run_file": run,
        "itr": itr,
        "rcvbuf": rcvbuf,
        "rate": rate,
        "offered_pps": rate / (8 * 64),
        "sent": sent,
        "lost": lost,
        "rx_interrupts_per_frame": irq,
        "drop_rx_fifo": ring,
        "drop_rx_ring": 0,
        "drop_socket_rcvbuf": lost - ring if socket is None else socket,
        "rx_reader_wakeups": 0.5 * irq,
    }


def _study() -> pd.DataFrame:
    """Two guest runs and one model run at each of: itr 0 and 2500 x 4 KiB and 256 KiB at
    one rate below capacity (the small buffer loses) and one above (both lose)."""
    rows = []
    for source, runs, fast in (("bed", ("b1", "b2"), 0), ("sim", ("s1",), 7812)):
        for k, run in enumerate(runs):
            wobble = 0.01 * k  # the second guest run a little apart
            # below capacity: 4 KiB loses, 256 KiB does not; interrupts clearly apart
            rows.append(_row(source, f"{run}a", fast, 4096, 1e6, 1000, 100, 0.70 + wobble))
            rows.append(_row(source, f"{run}b", 2500, 4096, 1e6, 1000, 90, 0.40 + wobble))
            rows.append(_row(source, f"{run}c", fast, 262144, 1e6, 1000, 0, 0.70 + wobble))
            rows.append(_row(source, f"{run}d", 2500, 262144, 1e6, 1000, 0, 0.40 + wobble))
            # above capacity: the guest's two ITRs overlap, the model's ITR loses more
            lost_fast, lost_seed = (300 + 100 * k, 350 - 100 * k) if source == "bed" else (300, 400)
            rows.append(_row(source, f"{run}e", fast, 262144, 3e6, 1000, lost_fast, 0.30, ring=50))
            rows.append(_row(source, f"{run}f", 2500, 262144, 3e6, 1000, lost_seed, 0.31, ring=50))
            rows.append(_row(source, f"{run}g", fast, 4096, 3e6, 1000, 500, 0.30))
            rows.append(_row(source, f"{run}h", 2500, 4096, 3e6, 1000, 500, 0.30))
    return pd.DataFrame(rows)


def test_compare_counts_only_runs_that_separate_by_the_effect():
    assert story.compare([0.1, 0.2], [0.3, 0.4]) == "holds"
    assert story.compare([0.3, 0.4], [0.1, 0.2]) == "reversed"
    assert story.compare([0.1, 0.3], [0.2, 0.4]) == "no effect"  # the runs overlap
    assert story.compare([0.97], [1.0]) == "no effect"  # apart, but by less than EFFECT
    assert story.compare([0.94], [1.0]) == "holds"
    assert story.compare([], [0.2]) == "-"


def test_the_models_floor_is_the_seeds_fastest_interrupts():
    floor = host_presets.QEMU_E1000_MAX_ITR
    assert story.itr_key("sim", floor) == story.FASTEST_ITR
    assert story.itr_key("bed", 0) == story.FASTEST_ITR
    assert story.itr_key("sim", 2500) == story.itr_key("bed", 2500) == 2500


def test_each_claim_is_judged_per_pair_on_guest_and_model():
    points = story.point_rows(_study())
    assert len(points) == 16  # 2 sources x 2 itr x 2 buffers x 2 rates
    guest = story.claims(points, "bed")
    model = story.claims(points, "sim")
    # interrupts: itr 2500 well below itr 0 below capacity, no effect above it (equal, or
    # 0.31 against 0.30: apart, but by less than EFFECT)
    assert [v for _, v in guest["irq"]] == ["holds", "no effect", "holds", "no effect"]
    # loss, only where a side loses: 4 KiB at both rates (100 against 90 lost: 0.90x),
    # 256 KiB above capacity (the guest's runs overlap; the model's ITR loses a third more)
    assert [v for _, v in guest["loss"]] == ["holds", "no effect", "no effect"]
    assert [v for _, v in model["loss"]] == ["holds", "no effect", "reversed"]
    assert guest["loss"][0][0] == "4 KiB, 1,953/s (0.90x)"
    # the bigger buffer: below capacity it removes the loss, above it does not
    assert [v for _, v in guest["buffer"]] == ["holds", "still loses", "holds", "still loses"]


def test_render_puts_guest_and_model_side_by_side_with_the_loss_split():
    lines = story.render(story.point_rows(_study()), {"guest behind its pace": 2})
    above = next(x for x in lines if x.startswith("| 0 | 256 KiB | 5,859 "))
    cells = [c.strip() for c in above.strip("|").split("|")]
    assert cells[3] == "35.00; 30.00-40.00"  # the guest's two runs
    assert cells[4] == "30.00"  # the model's one
    assert cells[7] == "14 % / 86 %"  # 100 of 700 lost at the ring
    assert cells[9] == "yes, yes"  # 30 % against 35 %; 0.30 interrupts against 0.30
    assert cells[10] == "0.150; 0.150"  # the reader's sleeps per read, guest; model
    assert any(x.startswith("  guest: holds at 2 of 4 (") for x in lines)
    # every point within the bar but itr 2500 at 256 KiB above capacity: 40 % against 30 %
    assert any("loss at 7 of 8 points" in x for x in lines)
    assert lines[-1] == "left out: guest behind its pace 2 rows"


def test_a_file_that_is_no_table_is_one_line_and_exit_2(tmp_path, capsys):
    bad = tmp_path / "not.parquet"
    bad.write_text("not parquet\n")
    assert story.main([str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(bad) in err[0]
    assert story.main([]) == 2  # no table named: the usage line


def _simulated_study(tmp_path) -> pd.DataFrame:
    """A study table of the simulator's qemu-e1000 guest at 4.5k/s into a 4 KiB socket,
    itr 0 and 2500, with each run tabled twice: as the model and as if a guest had run it."""
    import json

    from lanloss import options, sim
    from lanloss.analysis import tables

    files = []
    for itr in ("0", "2500"):
        given = {"host": "qemu-e1000", "payload": "64", "rate": "2.3Mbps", "itr": itr,
                 "rcvbuf": "4KiB", "duration": "0.5s", "warmup": "0.1s",
                 "edge_rate": "1Gbps"}  # fmt: skip
        rec = sim.run_point(options.resolve(given, "sim"))
        files.append(tmp_path / f"itr{itr}.json")
        files[-1].write_text(json.dumps(rec.to_dict()))
    model = tables.build([str(f) for f in files], "vm-seed000")
    guest = model.assign(
        source="bed",
        run_file=model["run_file"].astype(str) + ".guest",
        # a guest records the itr it was given; the model records QEMU's floor for 0
        itr=model["itr"].where(model["itr"] != host_presets.QEMU_E1000_MAX_ITR, 0),
        vm_icount_shift=5.0,
        guest_kept_pace=1.0,
    )
    return pd.concat([model, guest], ignore_index=True)


def test_runs_of_the_study_in_two_tables_pool(tmp_path, capsys):
    """Two tables of the study: each guest point has the runs of both; a model that is the
    guest is within the bar everywhere; tables of two studies are refused in one line."""
    first = _simulated_study(tmp_path)
    assert (first["loss"] > 0.1).all()  # 4 KiB at 4.5k/s: the socket loses
    second = first.assign(run_file=first["run_file"].astype(str) + ".again")
    a, b, c = (str(tmp_path / f"{n}.parquet") for n in "abc")
    first.to_parquet(a)
    second.to_parquet(b)
    second.assign(study="other").to_parquet(c)
    assert story.main([a, b]) == 0
    out = capsys.readouterr().out.splitlines()
    rows = [r.split(" | ") for r in out if r.startswith("| ") and "KiB" in r]
    assert [r[0] for r in rows] == ["| 0", "| 2500"]
    loss = first.loc[(first["source"] == "bed") & (first["itr"] == 0), "loss"].iloc[0]
    assert rows[0][3] == f"{100 * loss:.2f}; {100 * loss:.2f}-{100 * loss:.2f}"  # two runs
    assert rows[0][7] == "0 % / 100 %"  # lost at the socket
    assert any("loss at 2 of 2 points, interrupts per datagram at 2 of 2" in x for x in out)
    assert story.main([a, c]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "different studies" in err[0]
