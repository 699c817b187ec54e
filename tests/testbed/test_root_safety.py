# SPDX-License-Identifier: GPL-2.0-only
"""As root, the harness touches only what it made, by exact name.

- a prefix is a name (3-24 ASCII letters, digits, '-', '_', '.'): anything else is bad
  input (exit 2, one line) before anything is looked at;
- a namespace or cgroup named like ours but not marked as made by lanloss survives
  `bed cleanup` and `bed run` (which refuses, naming it), and so does the process in it;
- a journal or a registry that is not root's alone is refused, named, and nothing in it
  is done;
- cleanup and restore refuse at once while a run holds the machine lock, naming its pid;
- a vm run's journal (a cgroup, htb_hysteresis) left on this machine is replayed by a
  netns run of another prefix.

Every object a test makes is its own (``lltest-<random>``), removed by exact name.
"""

from __future__ import annotations

import json
import os
import pwd
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from lanloss.options import OptionError
from lanloss.testbed import cpulimit, netns, runfolder, runner
from lanloss.testbed import journal as jr

REPO = Path(__file__).resolve().parents[2]
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (namespaces, cgroups)")
V1_CPU = "/sys/fs/cgroup/cpu"
HTB = "/sys/module/sch_htb/parameters/htb_hysteresis"


def unique(tag: str) -> str:
    return f"lltest-{tag}-{secrets.token_hex(3)}-"


def lanloss_bed(*args: str, state: Path, run_dir: Path | None = None, timeout: float = 240):
    """`lanloss bed ARGS`; with the machine's own run folder (run_dir None), restore and
    cleanup are tried again while another run (another test) holds the machine lock."""
    env = {**os.environ, "LANLOSS_STATE_DIR": str(state)}
    env.pop(runfolder.RUN_DIR_ENV, None)
    if run_dir is not None:
        env[runfolder.RUN_DIR_ENV] = str(run_dir)
    deadline = time.monotonic() + 900
    while True:
        res = subprocess.run(
            [sys.executable, "-m", "lanloss.cli", "bed", *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=REPO,
            env=env,
        )
        busy = res.returncode == 1 and "machine.lock" in res.stderr
        if run_dir is not None or not busy or time.monotonic() > deadline:
            return res
        time.sleep(1.0)


def one_line(res: subprocess.CompletedProcess) -> str:
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    return lines[0]


def make_untrusted(path: Path, mode: int | None, elsewhere: Path) -> None:
    """Make @path one others could have written: give it @mode, or (None) move it to
    @elsewhere and leave a symlink to it in its place."""
    if mode is not None:
        path.chmod(mode)
    else:
        path.rename(elsewhere)
        path.symlink_to(elsewhere)


def assert_refused_naming(res: subprocess.CompletedProcess, path: Path, word: str) -> None:
    """Exit 1, one line naming @path and saying @word."""
    assert res.returncode == 1, res.stderr
    line = one_line(res)
    assert str(path) in line and word in line


def cgroup_cpu_root() -> str | None:
    """Where cpulimit would make a receiver's cgroup on this machine (None: no controller)."""
    if os.path.exists(f"{V1_CPU}/cpu.cfs_quota_us"):
        return V1_CPU
    try:
        if "cpu" in Path("/sys/fs/cgroup/cgroup.subtree_control").read_text().split():
            return "/sys/fs/cgroup"
    except OSError:
        pass
    return None


def names_matching(prefix: str) -> list[str]:
    """Everything a by-prefix listing of namespaces or cgroups could have matched."""
    found = []
    roots = ["/run/netns", "/sys/fs/cgroup"]
    roots += [os.path.join("/sys/fs/cgroup", d) for d in os.listdir("/sys/fs/cgroup")]
    for root in roots:
        try:
            found += [os.path.join(root, n) for n in os.listdir(root) if n.startswith(prefix)]
        except OSError:
            pass
        if os.path.lexists(os.path.join(root, prefix)):
            found.append(os.path.join(root, prefix))
    return found


# -- prefixes ---------------------------------------------------------------------------------

BAD_PREFIXES = [
    ("c", "3 to 24"),
    ("zz", "3 to 24"),
    ("", "3 to 24"),
    ("x" * 25, "3 to 24"),
    ("..x", "'.'"),
    (".abc", "'.'"),
    ("-abc", "'.' or '-'"),
    ("ab..c", "'..'"),
    ("a/b", "ASCII"),
    ("abc/", "ASCII"),
    ("ééé", "ASCII"),
    ("abc def", "ASCII"),
    ("abc\n", "ASCII"),
    ("ab*", "ASCII"),
]
GOOD_PREFIXES = ["lanloss-", "lltb-", "abc", "a.b_c-d", "x" * 24, "Z09"]


@pytest.mark.parametrize("prefix,word", BAD_PREFIXES)
def test_a_bad_prefix_is_refused_naming_it(prefix, word):
    assert word in (runfolder.prefix_problem(prefix) or "")
    with pytest.raises(OptionError) as err:
        runner.check_prefix(prefix)
    assert repr(prefix) in str(err.value)


@pytest.mark.parametrize("prefix", GOOD_PREFIXES)
def test_a_good_prefix_is_a_name(prefix):
    assert runfolder.prefix_problem(prefix) is None
    runner.check_prefix(prefix)


# On the command line, only prefixes that match nothing on this machine: should the
# validation ever regress, no by-prefix listing can reach an object (the old code killed
# every process of the machine with --prefix c).
CLI_BAD = ["zz", "q", "..x", "ééé", "a/b", "-zz"]


@pytest.mark.parametrize("command", ["cleanup", "restore", "run"])
@pytest.mark.parametrize("prefix", CLI_BAD)
def test_the_cli_refuses_a_bad_prefix_before_anything(command, prefix, tmp_path):
    assert names_matching(prefix) == [], "this machine has objects the prefix would match"
    state = tmp_path / "state"
    run_dir = tmp_path / "run"
    res = lanloss_bed(command, f"--prefix={prefix}", state=state, run_dir=run_dir)
    assert res.returncode == 2, res.stderr
    line = one_line(res)
    assert "--prefix" in line and repr(prefix) in line
    assert not state.exists() and not run_dir.exists()  # nothing written, nothing locked


# -- objects lanloss did not make ---------------------------------------------------------


@pytest.fixture
def foreign(tmp_path):
    """A namespace and a cgroup named like a run's (prefix lltest-xyz-...), each with a
    `sleep 300` in it, made by the test (not by lanloss); removed by exact name after."""
    prefix = unique("xyz")
    ns = f"{prefix}r1"
    root = cgroup_cpu_root()
    group = os.path.join(root, f"{prefix}r1") if root else None
    subprocess.run(["ip", "netns", "add", ns], check=True, capture_output=True)
    in_ns = subprocess.Popen(["ip", "netns", "exec", ns, "sleep", "300"])
    in_cg = subprocess.Popen(["sleep", "300"])
    if group:
        os.mkdir(group)
        Path(group, "cgroup.procs").write_text(f"{in_cg.pid}\n")
    try:
        yield {"prefix": prefix, "ns": ns, "group": group, "in_ns": in_ns, "in_cg": in_cg}
    finally:
        for proc in (in_ns, in_cg):
            proc.kill()
            proc.wait()
        if group and os.path.isdir(group):
            for _ in range(100):
                try:
                    os.rmdir(group)
                    break
                except OSError:
                    time.sleep(0.05)
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def ns_pids(name: str) -> list[str]:
    r = subprocess.run(["ip", "netns", "pids", name], capture_output=True, text=True)
    return r.stdout.split()


def assert_untouched(f: dict) -> None:
    assert os.path.exists(f"/run/netns/{f['ns']}")
    assert f["in_ns"].poll() is None and ns_pids(f["ns"])
    assert f["in_cg"].poll() is None
    if f["group"]:
        assert str(f["in_cg"].pid) in Path(f["group"], "cgroup.procs").read_text().split()


def marker_names(prefix: str) -> list[str]:
    return [
        e["name"]
        for kind in (runfolder.NETNS, runfolder.CGROUP)
        for e in runfolder.markers(kind)
        if os.path.basename(e["name"]).startswith(prefix)
    ]


@needs_root
@pytest.mark.netns
def test_cleanup_leaves_a_namespace_and_a_cgroup_it_did_not_make(foreign, tmp_path):
    res = lanloss_bed("cleanup", "--prefix", foreign["prefix"], state=tmp_path / "state")
    assert res.returncode == 0, res.stderr
    assert "nothing made by lanloss" in res.stderr
    assert_untouched(foreign)


@needs_root
@pytest.mark.netns
@pytest.mark.slow
def test_a_run_refuses_to_build_over_a_namespace_it_did_not_make(foreign, tmp_path):
    state = tmp_path / "state"
    args = ["--rate", "10Mbps", "--duration", "0.3s", "--warmup", "0s", "--slow-receiver", "50%"]
    res = lanloss_bed("run", "--prefix", foreign["prefix"], *args, state=state)
    assert res.returncode == 1, res.stderr
    assert (
        f"namespace {foreign['ns']} exists and was not made by lanloss; remove it yourself "
        "or choose another --prefix" in one_line(res)
    )
    assert_untouched(foreign)
    assert not list(state.glob("journal*"))  # nothing was made, nothing is left to undo
    assert marker_names(foreign["prefix"]) == []
    if not foreign["group"]:
        return
    # without the namespace in the way, the run builds its own and then meets the cgroup
    foreign["in_ns"].kill()
    foreign["in_ns"].wait(10)
    subprocess.run(["ip", "netns", "del", foreign["ns"]], check=True)
    res = lanloss_bed("run", "--prefix", foreign["prefix"], *args, state=state)
    assert res.returncode == 1, res.stderr
    assert f"cgroup {foreign['group']} exists and was not made by lanloss" in res.stderr
    assert foreign["in_cg"].poll() is None
    assert str(foreign["in_cg"].pid) in Path(foreign["group"], "cgroup.procs").read_text().split()
    # its own namespaces are gone again, and so are their markers and its journal
    assert [n for n in os.listdir("/run/netns") if n.startswith(foreign["prefix"])] == []
    assert marker_names(foreign["prefix"]) == []
    assert not list(state.glob("journal*"))


@needs_root
@pytest.mark.netns
def test_a_journal_naming_objects_lanloss_did_not_make_leaves_them(
    foreign, tmp_path, private_run_dir
):
    """A journal that lists a namespace and a cgroup by exact name, but without their
    markers: its replay names them and leaves them (and the processes in them) alone."""
    state = tmp_path / "state"
    journal = write_journal(state, foreign["prefix"], tmp_path / "no-such-folder")
    data = json.loads(journal.read_text())
    data["hosts"]["machine"] = {"transport": netns.machine_transport().describe()}
    data["netns"] = [foreign["ns"]]
    if foreign["group"]:
        data["cgroups"] = [{"host": "machine", "path": foreign["group"]}]
    journal.write_text(json.dumps(data))
    res = lanloss_bed(
        "restore", "--prefix", foreign["prefix"], state=state, run_dir=private_run_dir
    )
    assert res.returncode == 0, res.stderr
    assert f"namespace {foreign['ns']} exists and was not made by lanloss" in res.stderr
    if foreign["group"]:
        assert f"cgroup {foreign['group']} exists and was not made by lanloss" in res.stderr
    assert_untouched(foreign)
    assert not journal.exists()  # nothing of ours was left to undo


@needs_root
def test_a_marked_mount_point_is_not_removed_as_a_cgroup(tmp_path, monkeypatch):
    """Even with a marker, a mount point is never a cgroup the harness removes."""
    root = cgroup_cpu_root()
    if root is None:
        pytest.skip("no cpu cgroup controller")
    monkeypatch.setenv(runfolder.RUN_DIR_ENV, str(tmp_path / "run"))
    prefix = unique("mnt")
    path = os.path.join(root, f"{prefix}r1")
    os.mkdir(path)
    try:
        subprocess.run(["mount", "-t", "tmpfs", "lltest", path], check=True)
        runfolder.mark(runfolder.CGROUP, path, str(tmp_path / "j.json"), str(tmp_path / "l"))
        machine = runner.Host(
            runner.inv_mod.HostSpec("machine", "machine", "", "", ""), netns.machine_transport()
        )
        why = cpulimit.remove_cgroup(machine, path, prefix)
        assert why and "mount point" in why
        assert os.path.ismount(path)
    finally:
        subprocess.run(["umount", path], capture_output=True)
        os.rmdir(path)


def test_cgroup_paths_must_be_a_prefixed_name_under_a_controller_root():
    ok = "/sys/fs/cgroup/cpu/lltest-a-r1"
    assert cpulimit.path_problem(ok, "lltest-a-") is None
    for path, prefix in [
        ("/sys/fs/cgroup/cpu", "cpu"),  # a controller root
        ("/sys/fs/cgroup/cpu/lltest-a-", "lltest-a-"),  # the bare prefix
        ("/sys/fs/cgroup/cpu/other-r1", "lltest-a-"),
        ("/sys/fs/cgroup/cpu/x/lltest-a-r1", "lltest-a-"),
        ("/sys/fs/cgroup/cpu/lltest-a-r1/..", "lltest-a-"),
        ("/tmp/lltest-a-r1", "lltest-a-"),
        ("/sys/fs/cgroup/cpu/c1", "c"),  # not a valid prefix at all
    ]:
        assert cpulimit.path_problem(path, prefix), path


# -- journals and registries that are not root's alone ------------------------------------


def victim_folder(prefix: str) -> Path:
    """A folder a journal may name for removal (a run folder: <tmp>/<prefix>run-...)."""
    return Path(tempfile.mkdtemp(prefix=f"{prefix}run-"))


def write_journal(state: Path, prefix: str, victim: Path) -> Path:
    state.mkdir(parents=True, exist_ok=True)
    path = Path(jr.journal_path(str(state), prefix))
    data = {
        "version": jr.VERSION,
        "pid": 1,
        "started": 0,
        "prefix": prefix,
        "backend": "netns",
        "phase": "traffic",
        "hosts": {},
        "changes": [],
        "netns": [],
        "cgroups": [],
        "procs": [],
        "dirs": [],
        "local_dirs": [str(victim)],
    }
    path.write_text(json.dumps(data))
    path.chmod(0o644)
    return path


@pytest.fixture
def private_run_dir(tmp_path, monkeypatch) -> Path:
    run_dir = tmp_path / "run"
    monkeypatch.setenv(runfolder.RUN_DIR_ENV, str(run_dir))
    runfolder.folder("journals")
    return run_dir


def nobody() -> int:
    return pwd.getpwnam("nobody").pw_uid


@needs_root
def test_a_journal_owned_by_nobody_is_refused_and_nothing_in_it_is_done(tmp_path, private_run_dir):
    prefix = unique("j")
    victim = victim_folder(prefix)
    try:
        state = tmp_path / "state"
        journal = write_journal(state, prefix, victim)
        jr.register(str(journal))
        os.chown(journal, nobody(), nobody())
        for args in (["cleanup"], ["restore"]):
            res = lanloss_bed(*args, "--prefix", prefix, state=state, run_dir=private_run_dir)
            assert_refused_naming(res, journal, f"owned by uid {nobody()}")
            assert victim.is_dir()
        # a run of another prefix finds it in the registry and refuses it too
        other = tmp_path / "other"
        res = lanloss_bed(
            "run", "--prefix", unique("k"), state=other, run_dir=private_run_dir, timeout=120
        )
        assert res.returncode == 1, res.stderr
        assert str(journal) in one_line(res)
        assert victim.is_dir()
    finally:
        victim.rmdir()


@needs_root
@pytest.mark.parametrize(
    "mode,word",
    [(0o664, "writable by group or others"), (None, "symlink")],
    ids=["group-writable", "symlink"],
)
def test_a_journal_others_could_have_written_is_refused(mode, word, tmp_path, private_run_dir):
    prefix = unique("j")
    victim = victim_folder(prefix)
    try:
        state = tmp_path / "state"
        journal = write_journal(state, prefix, victim)
        make_untrusted(journal, mode, tmp_path / "elsewhere.json")
        res = lanloss_bed("restore", "--prefix", prefix, state=state, run_dir=private_run_dir)
        assert_refused_naming(res, journal, word)
        assert victim.is_dir()
    finally:
        victim.rmdir()


@needs_root
def test_one_untrusted_journal_stops_every_replay(tmp_path, private_run_dir):
    """All registered journals are checked before any is replayed."""
    good_prefix, bad_prefix = unique("g"), unique("b")
    good_victim, bad_victim = victim_folder(good_prefix), victim_folder(bad_prefix)
    try:
        good = write_journal(tmp_path / "g", good_prefix, good_victim)
        bad = write_journal(tmp_path / "b", bad_prefix, bad_victim)
        jr.register(str(good))
        jr.register(str(bad))
        os.chown(bad, nobody(), nobody())
        with pytest.raises(runner.BedError, match="owned by uid"):
            runner.recover_machine(str(tmp_path / "mine"), unique("m"), lambda s: None)
        assert good_victim.is_dir() and bad_victim.is_dir()
        assert good.exists()
    finally:
        good_victim.rmdir()
        bad_victim.rmdir()


@needs_root
@pytest.mark.parametrize(
    "mode,word", [(0o777, "has mode 777"), (None, "is a symlink")], ids=["mode 0777", "symlink"]
)
def test_a_registry_others_could_have_written_is_refused(mode, word, tmp_path, private_run_dir):
    prefix = unique("j")
    victim = victim_folder(prefix)
    registry = private_run_dir / "journals"
    try:
        journal = write_journal(tmp_path / "state", prefix, victim)
        jr.register(str(journal))
        make_untrusted(registry, mode, tmp_path / "planted")
        res = lanloss_bed(
            "run", "--prefix", unique("k"), state=tmp_path / "mine", run_dir=private_run_dir
        )
        assert_refused_naming(res, registry, word)
        assert victim.is_dir()
    finally:
        victim.rmdir()


@needs_root
def test_a_run_folder_owned_by_another_user_is_refused(tmp_path):
    run_dir = tmp_path / "run"
    run_dir.mkdir(mode=0o700)
    os.chown(run_dir, nobody(), nobody())
    res = lanloss_bed("cleanup", "--prefix", unique("o"), state=tmp_path / "s", run_dir=run_dir)
    assert res.returncode == 1, res.stderr
    assert f"is owned by uid {nobody()}" in one_line(res)
    assert os.listdir(run_dir) == []


def test_only_a_prefixed_run_folder_of_ours_in_the_temp_folder_is_removable(tmp_path):
    prefix = unique("d")
    ours = victim_folder(prefix)
    try:
        assert jr.own_run_folder(str(ours), prefix)
        assert not jr.own_run_folder(str(ours), unique("e"))  # another prefix's
        assert not jr.own_run_folder(str(tmp_path), prefix)  # not <tmp>/<prefix>run-...
        link = Path(tempfile.gettempdir()) / f"{prefix}run-link"
        link.symlink_to(tmp_path)
        try:
            assert not jr.own_run_folder(str(link), prefix)
        finally:
            link.unlink()
    finally:
        ours.rmdir()


# -- the machine lock ---------------------------------------------------------------------

HOLD = """
import sys, time
from lanloss.testbed import journal as jr
held = jr.lock_machine(lambda s: None, timeout=0)
print("held", flush=True)
sys.stdin.read()
"""


@needs_root
@pytest.mark.parametrize("command", ["cleanup", "restore"])
def test_cleanup_and_restore_refuse_while_a_run_holds_the_machine_lock(
    command, tmp_path, private_run_dir
):
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, runfolder.RUN_DIR_ENV: str(private_run_dir)},
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        res = lanloss_bed(
            command, "--prefix", unique("l"), state=tmp_path / "s", run_dir=private_run_dir
        )
        assert res.returncode == 1, res.stderr
        line = one_line(res)
        assert f"pid {holder.pid}" in line and "machine.lock" in line
    finally:
        holder.stdin.close()
        holder.wait(10)


# -- a vm run's journal is the machine's ---------------------------------------------------


def _vm_guest(prefix: str) -> dict:
    from lanloss.testbed import vm
    from lanloss.testbed.inventory import SshSpec

    ssh = SshSpec("root", "/nonexistent", 2201, 5.0, "/nonexistent", "yes")
    t = vm.VmTransport("r1", "127.0.0.1", ssh, netns=f"{prefix}sw1")
    return t.describe()


@needs_root
@pytest.mark.netns
@pytest.mark.slow
def test_a_killed_vm_runs_journal_is_replayed_by_a_netns_run(tmp_path):
    """What a vm run killed by SIGKILL leaves: its journal (registered), a marked
    namespace, the receiver's cgroup with a process in it, htb_hysteresis changed. A netns
    run of another prefix and state folder undoes it all before it records its own
    settings_before."""
    root = cgroup_cpu_root()
    if root is None:
        pytest.skip("no cpu cgroup controller")
    vm_prefix, run_prefix = unique("vm"), unique("nn")
    vm_state, run_state = tmp_path / "vm", tmp_path / "nn"
    machine = runner.Host(
        runner.inv_mod.HostSpec("machine", "machine", "", "", ""), netns.machine_transport()
    )
    inside = None
    machine_lock = jr.lock_machine(lambda s: None)  # no run replays it half-made
    try:
        before = Path(HTB).read_text().strip()
        want = 0 if before == "1" else 1
        vm_state.mkdir()
        journal = jr.Journal.create(str(vm_state), vm_prefix, "vm", True)
        from lanloss.testbed.hosts import gather_facts
        from lanloss.testbed.settings import Change

        gather_facts(machine)
        journal.record_host(machine)
        journal.data["hosts"]["r1"] = {"transport": _vm_guest(vm_prefix), "boot_id": None}
        journal.save()
        netns.create_namespace(f"{vm_prefix}sw1", journal)
        limit = cpulimit.create(machine, f"{vm_prefix}r1", 50, journal)
        inside = subprocess.Popen(["sleep", "300"])
        Path(limit.procs_file).write_text(f"{inside.pid}\n")
        journal.record_change(
            Change("machine", "param", "sch_htb.htb_hysteresis", int(before), want, "x", True)
        )
        Path(HTB).write_text(f"{want}\n")
        assert str(journal.path) in jr.registered()

        out = tmp_path / "r.json"
        proc = subprocess.Popen(
            [sys.executable, "-m", "lanloss.cli", "bed", "run", "--prefix", run_prefix,
             "--rate", "10Mbps", "--duration", "0.3s", "--warmup", "0s", "--out", str(out)],
            cwd=REPO,
            env={**os.environ, "LANLOSS_STATE_DIR": str(run_state)},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
    finally:
        machine_lock.release()
    try:
        _, err = proc.communicate(timeout=240)
        assert proc.returncode == 0, err
        assert Path(HTB).read_text().strip() == before
        rec = json.loads(out.read_text())
        machine_before = rec["env"]["hosts"]["machine"]["settings_before"]
        assert machine_before["param sch_htb.htb_hysteresis"] == before  # the machine's own
        assert not os.path.exists(limit.path)
        assert inside.wait(10) is not None
        assert not os.path.exists(f"/run/netns/{vm_prefix}sw1")
        assert not Path(journal.path).exists()
        assert str(journal.path) not in jr.registered()
        assert marker_names(vm_prefix) == []
    finally:
        if inside is not None:
            inside.kill()
            inside.wait()
        lanloss_bed("restore", "--prefix", vm_prefix, state=vm_state)
        held = jr.lock_machine(lambda s: None)  # no run is measuring meanwhile
        try:
            if Path(HTB).read_text().strip() != before:
                Path(HTB).write_text(f"{before}\n")
        finally:
            held.release()
