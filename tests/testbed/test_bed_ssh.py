# SPDX-License-Identifier: GPL-2.0-only
"""The ssh backend against real sshd servers, each running inside a network namespace
built here (hosts lltbs-h1, lltbs-h2 on a bridge, the harness in lltbs-ctl). It must run
the same point as the netns backend and give a record of the same shape."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from bed_process import kill_and_wait
from load_rules import judged, record_disturbance, shared_clock_as_on_idle

from lanloss.record import load

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root (network namespaces, sshd)"),
    pytest.mark.skipif(not os.path.exists("/usr/sbin/sshd"), reason="needs openssh-server"),
    pytest.mark.netns,
    pytest.mark.slow,
]

SSH_NS = "lltbs-"  # not under the harness prefix (lltb-), which its netns runs clean up
NET = "10.79.0"
SSHD_CONFIG = """ListenAddress {addr}
HostKey {dir}/hostkey
AuthorizedKeysFile {dir}/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PidFile {dir}/sshd-{name}.pid
"""


def sh(*argv: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(argv, check=True, capture_output=True, text=True, timeout=20, **kw)


def _delete_namespaces() -> None:
    for ns in sorted(os.listdir("/run/netns")) if os.path.isdir("/run/netns") else []:
        if ns.startswith(SSH_NS):
            for pid in subprocess.run(
                ["ip", "netns", "pids", ns], capture_output=True, text=True
            ).stdout.split():
                subprocess.run(["kill", "-9", pid], capture_output=True)
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def start_sshd(ns: str, d, name: str, addr: str, wrap: tuple[str, ...] = ()) -> subprocess.Popen:
    """sshd in namespace ns listening on addr (SSHD_CONFIG, files under d), started through
    `wrap` (e.g. setpriv ... --), once its log says it listens."""
    conf = d / f"sshd-{name}.conf"
    conf.write_text(SSHD_CONFIG.format(addr=addr, dir=d, name=name))
    log = d / f"sshd-{name}.log"
    server = subprocess.Popen(
        ["ip", "netns", "exec", ns, *wrap, "/usr/sbin/sshd", "-D", "-f", str(conf), "-E", str(log)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while "Server listening" not in (log.read_text() if log.exists() else ""):
        if time.monotonic() > deadline:
            server.kill()
            raise AssertionError(f"sshd {name} did not start: {log}")
        time.sleep(0.05)
    return server


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """Two sshd 'hosts' and a controller namespace on one bridge; an inventory for them."""
    d = tmp_path_factory.mktemp("sshlab")
    _delete_namespaces()
    sh("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(d / "hostkey"))
    sh("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(d / "id"))
    shutil.copy(d / "id.pub", d / "authorized_keys")
    os.makedirs("/run/sshd", exist_ok=True)  # sshd's privilege separation folder
    sh("ip", "netns", "add", f"{SSH_NS}sw")
    sh("ip", "-n", f"{SSH_NS}sw", "link", "add", "br0", "type", "bridge")
    sh("ip", "-n", f"{SSH_NS}sw", "link", "set", "br0", "up")
    servers = []
    try:
        for i, name in enumerate(("ctl", "h1", "h2"), start=1):
            ns = f"{SSH_NS}{name}"
            sh("ip", "netns", "add", ns)
            sh("ip", "link", "add", "eth0", "netns", ns, "type", "veth",
               "peer", "name", f"p{i}", "netns", f"{SSH_NS}sw")  # fmt: skip
            sh("ip", "-n", ns, "addr", "add", f"{NET}.{i}/24", "dev", "eth0")
            for dev_ns, dev in ((ns, "eth0"), (ns, "lo"), (f"{SSH_NS}sw", f"p{i}")):
                sh("ip", "-n", dev_ns, "link", "set", dev, "up")
            sh("ip", "-n", f"{SSH_NS}sw", "link", "set", f"p{i}", "master", "br0")
            if name == "ctl":
                continue
            servers.append(start_sshd(ns, d, name, f"{NET}.{i}"))
        inv = d / "hosts.yaml"
        inv.write_text(
            "ssh: {user: root, key: id, known_hosts: known_hosts}\n"
            f"tools_dir: {d}/tools\n"
            f"workdir: {d}/work\n"
            "hosts:\n"
            f"  h1: {{address: {NET}.2, interface: eth0, role: sender}}\n"
            f"  h2: {{address: {NET}.3, interface: eth0, role: receiver}}\n"
        )
        yield {"dir": d, "inventory": inv, "ctl": f"{SSH_NS}ctl"}
    finally:
        for s in servers:
            s.terminate()
            s.wait(10)
        _delete_namespaces()


def test_ssh_runs_the_same_point_with_the_same_record_shape(lab, bed, tmp_path):
    point = ["--rate", "50Mbps", "--payload", "1472", "--duration", "1s"]

    def attempt(i: int):
        folder = tmp_path / f"attempt{i}"
        folder.mkdir()
        res = bed(
            "run",
            "--backend",
            "ssh",
            "--inventory",
            str(lab["inventory"]),
            *point,
            "--out",
            str(folder / "ssh.json"),
            netns=lab["ctl"],
        )
        assert res.returncode == 0, res.stderr
        res = bed("run", *point, "--out", str(folder / "netns.json"))
        assert res.returncode == 0, res.stderr
        return load(str(folder / "ssh.json")), load(str(folder / "netns.json"))

    def disturbance(recs):
        return [why for rec in recs for why in record_disturbance(rec)]

    judged(attempt, disturbance, lambda recs: _same_point(lab, *recs))


def _same_point(lab, ssh, ns) -> None:
    assert ssh.to_dict().keys() == ns.to_dict().keys()
    assert ssh.params == ns.params
    assert ssh.totals.keys() == ns.totals.keys() and ssh.drops.keys() == ns.drops.keys()
    assert [vars(f).keys() for f in ssh.flows] == [vars(f).keys() for f in ns.flows]
    assert [(f.sender, f.receiver) for f in ssh.flows] == [("h1", "h2")]
    for rec in (ssh, ns):
        assert rec.conservation_error() == 0
        assert rec.totals["received"] == rec.totals["sent"] > 4000
        # at the rate the sender achieved (within 1 % of 50 Mbit/s: load_rules)
        assert rec.totals["goodput_bps"] == pytest.approx(rec.totals["achieved_send_bps"], rel=0.01)
    for name in ("h1", "h2"):
        host = ssh.env["hosts"][name]
        assert {"kernel", "driver", "settings_before", "settings_after", "unsupported"} <= set(host)
        assert host["settings_before"] == host["settings_after"]
        assert host["driver"] == "veth"
    assert ssh.env["backend"] == "ssh" and ssh.env["restore"]["ok"]
    # the tools were put on the host (copied: same architecture)
    assert list((lab["dir"] / "tools").glob("*/lanloss-recv"))
    # the run folder on the hosts is gone
    assert not list((lab["dir"] / "work").glob("lanloss-run-*"))


def test_unreachable_host_is_one_clear_line(lab, bed, bed_state, tmp_path):
    inv = tmp_path / "hosts.yaml"
    text = lab["inventory"].read_text()
    text = text.replace(f"{NET}.3,", f"{NET}.3, ssh: {{port: 2222}},")  # nothing listens
    text = text.replace("key: id", f"key: {lab['dir']}/id")
    text = text.replace("known_hosts: known_hosts", f"known_hosts: {lab['dir']}/known_hosts")
    inv.write_text(text)
    # no hang: the fixture's timeout (120 s) fails a harness that never gives up; the
    # refusal is ssh's own first answer ("Connection refused"), not a retry's
    res = bed(
        "run", "--backend", "ssh", "--inventory", str(inv), "--duration", "0.5s", netns=lab["ctl"]
    )
    assert res.returncode == 1
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "h2" in lines[0] and "unreachable" in lines[0], res.stderr
    assert "2222" in lines[0] and "refused" in lines[0]
    assert not list(bed_state.glob("journal*"))


def test_check_reports_the_receivers_clock_offset_to_its_sender(lab, bed):
    # where the ssh clients' control sockets go (short: a socket's path has 107 bytes)
    tmp = Path(tempfile.mkdtemp(prefix="llt-", dir="/tmp"))
    # bed check's probe runs in the host's /tmp (it makes no folder on a lab host)
    probe_pid = Path("/tmp/clock-probe-h2.log.pid")
    probe_pid.unlink(missing_ok=True)  # left by a run before this fix
    try:
        res = bed(
            "check", "--backend", "ssh", "--inventory", str(lab["inventory"]),
            netns=lab["ctl"], env={"TMPDIR": str(tmp)},
        )  # fmt: skip
        left = list(tmp.iterdir())
    finally:
        shutil.rmtree(tmp)
    assert res.returncode == 0, res.stderr
    # nothing left behind: the control sockets' folders, the probe's PID file on the host
    assert left == [] and not probe_pid.exists()
    # the table's row of h2 ends in its clock against h1 (testbed/lab_check.py)
    row = next((ln for ln in res.stdout.splitlines() if ln.startswith("h2 ")), res.stdout)
    row = shared_clock_as_on_idle(row)
    # two namespaces of one kernel: one CLOCK_REALTIME, so the offset is 0 within its bound
    m = re.search(r"  h1: offset ([-+][\d.]+) us ± ([\d.]+) us \(ping-pong\)$", row)
    assert m and abs(float(m[1])) <= float(m[2]) + 0.1, row


def _remote_tools(lab) -> list[str]:
    """Live lanloss-send/-recv processes of the lab's hosts (same kernel: /proc shows them)."""
    work = str(lab["dir"] / "work")
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode()
            state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if work in cmd and ("lanloss-send" in cmd or "lanloss-recv" in cmd) and state != "Z":
            out.append(cmd)
    return out


def _processes_naming(text: str) -> list[int]:
    """PIDs of this machine's processes whose command line contains `text`."""
    pids = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                if text.encode() in fh.read():
                    pids.append(int(pid))
        except OSError:
            continue
    return pids


def test_remote_tools_stop_when_the_harness_is_killed(lab, bed, bed_state, ns_prefix):
    """kill -9 of `lanloss bed run --backend ssh`: its ssh clients die with it (parent-death
    signal), the channel's stdin ends, and the remote watcher stops the tools."""
    import json
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    cmd = [sys.executable, "-m", "lanloss.cli", "bed", "run", "--prefix", ns_prefix]
    cmd += ["--backend", "ssh", "--inventory", str(lab["inventory"])]
    cmd += ["--rate", "10Mbps", "--duration", "60s"]
    proc = subprocess.Popen(
        ["nsenter", f"--net=/run/netns/{lab['ctl']}", "--", *cmd],
        cwd=repo,
        env={**os.environ, "LANLOSS_STATE_DIR": str(bed_state)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    journal = bed_state / f"journal-{ns_prefix.rstrip('-')}.json"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert proc.poll() is None
            try:
                if json.loads(journal.read_text()).get("phase") == "traffic":
                    break
            except (FileNotFoundError, json.JSONDecodeError):
                pass
            time.sleep(0.05)
        # the traffic phase is journalled before the tools are up over ssh: wait for them
        deadline = time.monotonic() + 15
        while not _remote_tools(lab) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _remote_tools(lab), "the remote tools were not found running"
        assert kill_and_wait(proc, lambda: _remote_tools(lab), 5) == []
        masters = [h["ssh_control"] for h in json.loads(journal.read_text())["hosts"].values()]
        assert masters and all(os.path.isdir(m) for m in masters)  # ControlPersist outlives it
    finally:
        proc.kill()
        res = bed("restore", netns=lab["ctl"])  # the journal's settings come back
        assert res.returncode == 0, res.stderr
    # and the killed run's master connections are stopped, their folders gone
    assert not any(os.path.exists(m) for m in masters)
    deadline = time.monotonic() + 5  # a master exits just after it acknowledges "-O exit"
    while any(_processes_naming(m) for m in masters) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_processes_naming(m) for m in masters)
