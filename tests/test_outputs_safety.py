# SPDX-License-Identifier: GPL-2.0-only
"""Output paths cannot clobber the system (lanloss.outputs' rule, used by every writer).

A regular file or a new path is replaced atomically; `-` is stdout; a character device or
a FIFO is written through and stays what it is; a symlink is followed and stays a link;
folders, block devices and sockets are refused, as are paths in the kernel's
pseudo-filesystems (/proc, /sys) and folders where no file can be made: one line, exit 2,
before any work.

Every device, link, FIFO and socket here is made by the test in its own folder: the
machine's /dev/null is only looked at, never written (a character device node with
/dev/null's numbers stands in for it).
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pandas as pd
import pytest

from lanloss import outputs
from lanloss.options import OptionError

REPO = Path(__file__).resolve().parent.parent
ROOT = os.geteuid() == 0
needs_root = pytest.mark.skipif(not ROOT, reason="making device nodes needs root")
SIM = ["sim", "run", "--duration", "0.1s", "--warmup", "0.01s", "--rate", "10Mbps"]


def lanloss(*args: str, cwd: Path, env: dict[str, str] | None = None, text: bool = True):
    return subprocess.run(
        [sys.executable, "-m", "lanloss.cli", *args],
        capture_output=True,
        text=text,
        timeout=300,
        cwd=cwd,
        env={**os.environ, **(env or {})},
    )


def one_line_exit_2(proc, *named: str) -> None:
    err = proc.stderr if isinstance(proc.stderr, str) else proc.stderr.decode()
    assert proc.returncode == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    for text in named:
        assert text in err, err


def null_device(path: Path) -> Path:
    """A character device node with /dev/null's numbers (1, 3), made by the test."""
    os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    return path


def unix_socket(path: Path) -> Path:
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(path))
    s.close()
    return path


class FifoReader:
    """Reads a FIFO to its end in a thread (a writer's open blocks until a reader is there)."""

    def __init__(self, path: Path):
        self.data = b""
        self.thread = threading.Thread(target=self._read, args=(path,), daemon=True)
        self.thread.start()

    def _read(self, path: Path) -> None:
        with open(path, "rb") as fh:
            self.data = fh.read()

    def result(self) -> bytes:
        self.thread.join(timeout=300)
        return self.data


@pytest.fixture(scope="module")
def record(tmp_path_factory, built) -> Path:
    """One real simulator run record (for the table writer)."""
    folder = tmp_path_factory.mktemp("rec")
    proc = lanloss(*SIM, "--out", "run.json", cwd=folder)
    assert proc.returncode == 0, proc.stderr
    return folder / "run.json"


# -- the rule, on objects the test makes -------------------------------------------------------


def test_kinds_of_targets(tmp_path):
    (tmp_path / "file").write_text("x")
    os.symlink("file", tmp_path / "link")
    os.symlink("/dev/null", tmp_path / "to-null")
    os.mkfifo(tmp_path / "fifo")
    unix_socket(tmp_path / "sock")
    (tmp_path / "dir").mkdir()
    assert outputs.target("-").kind == "stdout"
    assert outputs.target(str(tmp_path / "new" / "x.json")).kind == "replace"
    t = outputs.target(str(tmp_path / "link"))
    assert (t.kind, t.real) == ("replace", str(tmp_path / "file"))
    assert outputs.target(str(tmp_path / "to-null")).kind == "stream"
    assert outputs.target("/dev/null").kind == "stream"
    assert outputs.target(str(tmp_path / "fifo")).kind == "stream"
    os.symlink("/proc/self/fd/1", tmp_path / "stdout")
    assert (outputs.target(str(tmp_path / "stdout")).kind, outputs.target("/dev/stdout").fd) == (
        "fd",
        1,
    )
    for name, why in (("sock", "is a socket"), ("dir", "is a folder")):
        with pytest.raises(OptionError, match=why):
            outputs.target(str(tmp_path / name))


@pytest.mark.parametrize(
    "path,why",
    [
        ("/proc/lltest-x.json", "proc"),
        ("/proc/sys/net/core/rmem_max", "proc"),
        ("/sys/lltest-x.json", "sysfs"),
        ("/sys/fs/cgroup/lltest-x.json", "sysfs"),
    ],
)
def test_pseudo_filesystems_are_refused(path, why):
    before = Path(path).read_text() if os.path.exists(path) else None  # a sysctl: unchanged
    with pytest.raises(OptionError, match=f"kernel's {why} filesystem"):
        outputs.check_file(path)
    with pytest.raises(OptionError, match=why):
        outputs.check_dir(path + ".d", "--pcap")
    assert (Path(path).read_text() if os.path.exists(path) else None) == before
    assert not os.path.exists(path + ".d")


@needs_root
def test_write_through_leaves_devices_and_links_as_they_are(tmp_path):
    null = null_device(tmp_path / "null")
    os.symlink(null, tmp_path / "to-null")
    (tmp_path / "file").write_text("old")
    os.chmod(tmp_path / "file", 0o640)
    os.symlink("file", tmp_path / "link")
    for name in ("null", "to-null", "link"):
        outputs.write_text(str(tmp_path / name), "new\n")
    assert stat.S_ISCHR(os.stat(null).st_mode)
    assert os.readlink(tmp_path / "to-null") == str(null)
    assert os.readlink(tmp_path / "link") == "file"
    assert (tmp_path / "file").read_text() == "new\n"
    assert stat.S_IMODE(os.stat(tmp_path / "file").st_mode) == 0o640  # mode kept
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "link", "null", "to-null"]


def test_a_failed_write_leaves_the_old_file(tmp_path):
    (tmp_path / "file").write_text("old")
    with pytest.raises(RuntimeError), outputs.atomic_file(str(tmp_path / "file")) as tmp:
        Path(tmp).write_text("half")
        raise RuntimeError("the writer failed")
    assert (tmp_path / "file").read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["file"]


# -- every writer command ----------------------------------------------------------------------


@needs_root
def test_sim_run_out_device_link_and_fifo(tmp_path, built):
    null = null_device(tmp_path / "null")
    os.symlink(null, tmp_path / "to-null")
    (tmp_path / "old.json").write_text("{}")
    os.symlink("old.json", tmp_path / "link.json")
    os.mkfifo(tmp_path / "fifo")
    for name in ("null", "to-null", "link.json"):
        proc = lanloss(*SIM, "--out", name, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
    assert stat.S_ISCHR(os.lstat(null).st_mode)
    assert os.path.islink(tmp_path / "to-null") and os.path.islink(tmp_path / "link.json")
    assert json.loads((tmp_path / "old.json").read_text())["schema"] == "lanloss.run/1"
    reader = FifoReader(tmp_path / "fifo")
    proc = lanloss(*SIM, "--out", "fifo", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(reader.result())["source"] == "sim"
    assert stat.S_ISFIFO(os.lstat(tmp_path / "fifo").st_mode)


def test_sim_run_out_stdout(tmp_path, built):
    os.symlink("/proc/self/fd/1", tmp_path / "stdout")  # what /dev/stdout is
    for out in ("-", "stdout"):
        proc = lanloss(*SIM, "--out", out, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout)["schema"] == "lanloss.run/1"
    assert os.readlink(tmp_path / "stdout") == "/proc/self/fd/1"


@pytest.mark.parametrize(
    "flag,value,named",
    [
        ("--out", "/proc/lltest-x.json", "proc filesystem"),
        ("--out", "/sys/fs/cgroup/lltest-x.json", "sysfs filesystem"),
        ("--out", "sock", "is a socket"),
        ("--out", "adir", "is a folder"),
        ("--pcap", "/proc/lltest-pcap", "proc filesystem"),
    ],
)
def test_sim_run_refuses_before_simulating(tmp_path, built, flag, value, named):
    unix_socket(tmp_path / "sock")
    (tmp_path / "adir").mkdir()
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    before = sorted(p.name for p in tmp_path.iterdir())
    proc = lanloss(*SIM, flag, value, cwd=tmp_path, env={"TMPDIR": str(tmp)})
    one_line_exit_2(proc, flag, value, named)
    assert list(tmp.iterdir()) == []  # no simulation: its temp folder was never made
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert not value.startswith("/") or not os.path.exists(value)


@needs_root
def test_block_device_is_refused_and_stays(tmp_path, built):
    blk = tmp_path / "blk"
    os.mknod(blk, stat.S_IFBLK | 0o600, os.makedev(7, 250))  # never opened
    proc = lanloss(*SIM, "--out", "blk", cwd=tmp_path)
    one_line_exit_2(proc, "'blk' is a block device")
    assert stat.S_ISBLK(os.lstat(blk).st_mode)


def test_table_out_link_stdout_and_refusals(tmp_path, record):
    (tmp_path / "t.parquet").write_bytes(b"old")
    os.symlink("t.parquet", tmp_path / "link.parquet")
    proc = lanloss("table", "--study", "s", "--out", "link.parquet", str(record), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert os.path.islink(tmp_path / "link.parquet")
    assert len(pd.read_parquet(tmp_path / "t.parquet")) >= 1
    proc = lanloss("table", "--study", "s", "--out", "-", str(record), cwd=tmp_path, text=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout[:4] == b"PAR1" and proc.stdout[-4:] == b"PAR1"
    unix_socket(tmp_path / "sock")
    for out, named in (("/proc/lltest.parquet", "proc"), ("sock", "socket")):
        proc = lanloss("table", "--study", "s", "--out", out, str(record), cwd=tmp_path)
        one_line_exit_2(proc, "--out", named)


@needs_root
def test_table_out_null_device(tmp_path, record):
    null = null_device(tmp_path / "null")
    proc = lanloss("table", "--study", "s", "--out", "null", str(record), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISCHR(os.lstat(null).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null"]


@pytest.mark.parametrize(
    "args,named",
    [
        (["fit", "no.parquet", "--out", "/proc/lltest.json"], "--out: '/proc/lltest.json'"),
        (["fit", "no.parquet", "--out", "f.json", "--host-out", "sock"], "--host-out: 'sock'"),
        (["validate", "no.parquet", "--out", "adir"], "--out: 'adir' is a folder"),
        (["validate", "no.parquet", "--json-out", "/sys/lltest.json"], "--json-out"),
        (["figures", "simbed", "--table", "no.parquet", "--out", "/proc/lltest"], "proc"),
        (["figures", "simbed", "--table", "no.parquet", "--out", "-"], "not a folder"),
        (["figures", "simbed", "--table", "no.parquet", "--out", "figs"], "simbed.png"),
        (["sweep", "--set", "rate=10Mbps", "--out", "/proc/lltest"], "proc"),
        (["sweep", "--set", "rate=10Mbps", "--out", "sock"], "not a folder"),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else None,
)
def test_writers_check_outputs_before_reading_inputs(tmp_path, args, named):
    """The missing table would be the error if the output were checked after it."""
    unix_socket(tmp_path / "sock")
    (tmp_path / "adir").mkdir()
    (tmp_path / "figs").mkdir()
    unix_socket(tmp_path / "figs" / "simbed.png")
    proc = lanloss(*args, cwd=tmp_path)
    one_line_exit_2(proc, named)
    assert "no.parquet" not in proc.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["bed", "run", "--out", "/proc/lltest.json"],
        ["bed", "run", "--state-dir", "/proc/lltest-state"],
        ["bed", "check", "--state-dir", "/sys/lltest-state"],
        ["bed", "restore", "--state-dir", "/proc/lltest-state"],
        ["bed", "cleanup", "--state-dir", "/proc/lltest-state"],
    ],
    ids=" ".join,
)
def test_bed_commands_refuse_pseudo_filesystem_paths(tmp_path, args):
    state = tmp_path / "state"
    extra = ["--prefix", "lltest-out"]
    if "--state-dir" not in args:
        extra += ["--state-dir", str(state)]
    proc = lanloss(*args, *extra, cwd=tmp_path)
    one_line_exit_2(proc, "filesystem")
    assert not state.exists()
    assert not any(os.path.exists(a) for a in args if a.startswith("/"))


@needs_root
def test_figure_files_follow_the_rule(tmp_path):
    """A figure's four files each by the rule: a device stays one, a link stays a link."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lanloss.analysis.figures import common

    null = null_device(tmp_path / "x.png")
    (tmp_path / "elsewhere.md").write_text("old")
    os.symlink("elsewhere.md", tmp_path / "x-caption.md")
    common.save(plt.figure(), common.error_table("x", []), str(tmp_path), "x")
    assert stat.S_ISCHR(os.lstat(null).st_mode)
    assert os.readlink(tmp_path / "x-caption.md") == "elsewhere.md"
    assert (tmp_path / "elsewhere.md").read_text().startswith("x: ")
    assert (tmp_path / "x.pdf").read_bytes()[:4] == b"%PDF"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "elsewhere.md",
        "x-caption.md",
        "x-errors.csv",
        "x.pdf",
        "x.png",
    ]
