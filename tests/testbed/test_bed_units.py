# SPDX-License-Identifier: GPL-2.0-only
"""The harness's pure parts: parsers of real tool output, deltas, attribution arithmetic."""

from __future__ import annotations

import os

import pytest

from lanloss.testbed import attribution, counters, settings, transport
from lanloss.testbed.attribution import FlowPath, Source
from lanloss.testbed.errors import BedError

# Verbatim ethtool 6.1 output of a virtio NIC on this kind of machine.
ETHTOOL_C = """Coalesce parameters for eth0:
Adaptive RX: off  TX: n/a
stats-block-usecs: n/a
sample-interval: n/a

rx-usecs: 0
rx-frames: 1
rx-usecs-irq: n/a
"""
ETHTOOL_G = """Ring parameters for eth0:
Pre-set maximums:
RX:\t\t4096
RX Mini:\tn/a
TX:\t\t4096
Current hardware settings:
RX:\t\t256
RX Mini:\tn/a
TX:\t\t256
"""
ETHTOOL_A = """Pause parameters for eth1:
Autonegotiate:\ton
RX:\t\toff
TX:\t\toff
"""
SNMP = """Ip: Forwarding DefaultTTL InReceives ReasmFails
Ip: 2 64 1000 3
Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors
Udp: 900 0 100 5 90 0 2
"""


def test_parse_ethtool_settings():
    assert settings.parse_coalesce(ETHTOOL_C) == {"adaptive-rx": "off", "rx-usecs": 0}
    assert settings.parse_ring(ETHTOOL_G) == {"max": 4096, "current": 256}
    assert settings.parse_pause(ETHTOOL_A) == {"autoneg": "on", "rx": "off", "tx": "off"}
    assert settings.parse_mtu("2: eth0@if3: <UP> mtu 9000 qdisc tbf state UP") == 9000


def test_itr_means_interrupts_per_second():
    assert settings.itr_to_usecs(0) == 0  # one interrupt per packet
    assert settings.itr_to_usecs(2500) == 400
    assert settings.itr_to_usecs(8000) == 125


def test_snmp_and_softnet_parsing_and_wrapping_delta():
    snmp = counters.parse_snmp(SNMP)
    assert snmp["Udp"]["RcvbufErrors"] == 90 and snmp["Ip"]["ReasmFails"] == 3
    before = counters.Snapshot("h", 0.0, {"softnet": [[0xFFFFFFF0, 0xFFFFFFFF, 0]]})
    after = counters.Snapshot("h", 1.0, {"softnet": [[0x10, 0x4, 0]]})
    d = counters.delta(before, after)
    assert d["softnet"] == {"processed": 0x20, "dropped": 5, "time_squeeze": 0}


def test_cpu_stat_deltas_become_the_records_shares_of_the_simulators_kinds_of_work():
    # Linux 6.1's /proc/stat first line: user nice system idle iowait irq softirq steal
    # guest guest_nice (guest time is already in user and nice)
    before = counters.parse_cpu_stat("cpu  100 0 50 1000 10 5 20 0 7 0\ncpu0 1 2 3\n")
    after = counters.parse_cpu_stat("cpu  130 10 110 1200 10 35 120 5 9 0\n")
    assert before["softirq"] == 20 and "guest" not in before
    ticks = counters.delta(
        counters.Snapshot("h", 0.0, {"stat": before}), counters.Snapshot("h", 1.0, {"stat": after})
    )["stat"]
    assert ticks == {"user": 30, "nice": 10, "system": 60, "idle": 200, "iowait": 0,
                     "irq": 30, "softirq": 100, "steal": 5}  # fmt: skip
    shares = counters.cpu_shares(ticks)
    assert shares == {"irq": 0.069, "softirq": 0.2299, "app": 0.2299, "idle": 0.4598}  # of 435
    assert sum(shares.values()) + 5 / 435 == pytest.approx(1, abs=1e-3)  # steal: the rest
    assert counters.cpu_shares({k: 0 for k in ticks}) is None  # no time passed
    assert counters.parse_cpu_stat("intr 1 2 3\n") == {}


def test_dev_and_tc_parsing_use_root_qdiscs_only():
    dev = counters.parse_dev(
        "Inter-|   Receive\n face |bytes\n  eth0: 100 2 0 7 1 0 0 0 200 3 0 4 0 0 0 0\n"
    )
    assert dev["eth0"]["rx_drop"] == 7 and dev["eth0"]["rx_fifo"] == 1
    assert dev["eth0"]["tx_drop"] == 4
    tc = counters.parse_tc_json(
        '[{"kind":"mq","handle":"0:","dev":"eth0","root":true,"drops":5,"backlog":0},'
        '{"kind":"pfifo_fast","handle":"0:","dev":"eth0","parent":":1","drops":5}]'
    )
    assert set(tc) == {"eth0"} and tc["eth0"]["drops"] == 5  # not 10: mq sums its children


def test_batch_framing_survives_output_without_newline_and_failures():
    argvs = [["printf", "no newline"], ["sh", "-c", "echo oops >&2; exit 3"], ["true"]]
    res = transport.Local("here").run_many(argvs)
    assert [r.rc for r in res] == [0, 3, 0]
    assert res[0].out == "no newline" and res[1].out.strip() == "oops" and res[2].out == ""


def test_a_batch_cut_short_keeps_the_commands_that_finished():
    # command 1 began but never ended (its shell was killed): it and command 2 have no output
    nonce = "abc123"
    text = f"@@LL:{nonce}:B:0\nfirst\n@@LL:{nonce}:E:0:0\n@@LL:{nonce}:B:1\npartial output"
    argvs = [["a"], ["b"], ["c"]]
    res = transport.parse_batch(argvs, nonce, text)
    assert [(r.rc, r.out) for r in res] == [(0, "first"), (255, ""), (255, "")]
    # a frame's end must carry its own index: output that ends command 0's frame early
    # under another index is output, not an end line
    text = f"@@LL:{nonce}:B:0\nx\n@@LL:{nonce}:E:1:7\ny\n@@LL:{nonce}:E:0:2\n"
    (only,) = transport.parse_batch([["a"]], nonce, text)
    assert (only.rc, only.out) == (2, f"x\n@@LL:{nonce}:E:1:7\ny")


def test_batch_quotes_arguments_for_the_shell():
    evil = "$(touch /tmp/lanloss-pwned); `id`; 'quote\"\n"
    res = transport.Local("here").run_many([["printf", "%s", evil]])
    assert res[0].out == evil


@pytest.mark.parametrize("direct", [True, False], ids=["local", "through-commands"])
def test_files_are_read_sized_and_removed_by_exact_name(tmp_path, monkeypatch, direct):
    """A local host's files directly, any other host's through its commands: the same
    answers, and the same one-line errors naming the host and the path."""
    host = transport.Local("here")
    if not direct:  # the Transport's own versions (stat, cat, rm), as an ssh host runs them
        for name in ("read_file", "file_size", "remove_files"):
            monkeypatch.setattr(host, name, getattr(transport.Transport, name).__get__(host))
    keep, gone = tmp_path / "keep.json", tmp_path / "gone.json"
    keep.write_bytes(b"12345")
    gone.write_bytes(b"x")
    assert host.read_file(str(keep)) == b"12345" and host.file_size(str(keep)) == 5
    assert host.file_size(str(tmp_path / "absent")) is None
    host.remove_files([str(gone), str(tmp_path / "absent")])  # an absent one is no error
    assert not gone.exists() and keep.read_bytes() == b"12345"
    with pytest.raises(BedError, match=r"^here: cannot read .*absent: "):
        host.read_file(str(tmp_path / "absent"))
    (tmp_path / "folder").mkdir()
    with pytest.raises(BedError, match=r"^here: cannot remove .*folder"):
        host.remove_files([str(tmp_path / "folder")])
    assert (tmp_path / "folder").is_dir()


def _path(**kw) -> FlowPath:
    base = dict(
        sender="s1",
        sender_iface="eth0",
        receiver="r1",
        receiver_iface="eth0",
        stream=0,
        machine="m",
        sent=100,
        received=80,
    )
    return FlowPath(**{**base, **kw})


def test_attribution_conserves_and_leaves_the_rest_unexplained():
    paths = [_path()]
    deltas = {"r1": {"snmp": {"Udp": {"RcvbufErrors": 15, "InErrors": 15}}}}
    res = attribution.attribute(paths, attribution.sources(paths, deltas, "udp"))
    assert res["totals"]["socket_rcvbuf"] == 15
    assert res["totals"]["unexplained"] == 5
    assert sum(res["totals"].values()) == 20  # sent - received


def test_shared_counter_is_split_in_proportion_to_loss():
    paths = [_path(sender="s1", stream=0, received=90), _path(sender="s2", stream=1, received=70)]
    srcs = [Source("switch_egress", 40, [0, 1], "sw1 p3")]
    res = attribution.attribute(paths, srcs)
    assert [f["switch_egress"] for f in res["flows"]] == [10, 30]
    assert res["totals"]["unexplained"] == 0


def test_multicast_drop_before_copying_counts_for_every_receiver():
    paths = [_path(receiver="r1", received=90), _path(receiver="r2", received=90)]
    srcs = [Source("sender_queue", 10, [0, 1], "s1 eth0", copies=True)]
    res = attribution.attribute(paths, srcs)
    assert [f["sender_queue"] for f in res["flows"]] == [10, 10]
    assert res["totals"]["unexplained"] == 0


def test_overlapping_counters_give_negative_unexplained_and_a_flag():
    paths = [_path(received=95)]
    res = attribution.attribute(paths, [Source("backlog", 8, [0], "m softnet")])
    assert res["totals"]["unexplained"] == -3
    assert res["flags"]


def test_journal_can_reach_a_host_again_from_its_description():
    from lanloss.testbed.inventory import SshSpec
    from lanloss.testbed.journal import transport_from
    from lanloss.testbed.ssh import SshTransport

    t = SshTransport("h1", "192.0.2.1", SshSpec("lab", "/k", 2222, 3.0, "/kh", "yes"))
    again = transport_from(t.describe())
    assert isinstance(again, SshTransport) and again.describe() == t.describe()
    local = transport.Local("r1", "lanloss-r1")
    assert transport_from(local.describe()).describe() == local.describe()


def test_ssh_commands_are_one_quoted_argument():
    from lanloss.testbed.inventory import SshSpec
    from lanloss.testbed.ssh import SshTransport

    t = SshTransport("h1", "192.0.2.1", SshSpec("lab", "/k"))
    argv = t.wrap(["cat", "/proc/net/snmp; reboot"])
    assert argv[0] == "ssh" and argv[-2:] == ["--", "cat '/proc/net/snmp; reboot'"]
    assert "BatchMode=yes" in argv and "ConnectTimeout=5" in argv
    t.close()  # the ControlMaster socket folder


def test_a_second_run_waits_for_the_lock_then_gives_up_naming_the_holder(tmp_path):
    import threading

    from lanloss.testbed import journal as jr
    from lanloss.testbed.errors import BedError

    held = jr.lock(str(tmp_path), "t-")
    said: list[str] = []
    threading.Timer(0.5, held.release).start()
    second = jr.lock(str(tmp_path), "t-", said.append, timeout=10)  # waits, then gets it
    assert len(said) == 1 and f"pid {os.getpid()}" in said[0]
    with pytest.raises(BedError, match=rf"pid {os.getpid()}\) holds .*t-lock"):
        jr.lock(str(tmp_path), "t-", timeout=0.3)
    second.release()


def test_per_host_reads_every_host_at_once_and_raises_the_first_error_after_all():
    """Reads run together (each waits for every other to have started), the answers come
    by name in the hosts' order, and a failing read is raised only once every read is
    done: the first by the hosts' order, not by time."""
    import threading
    from types import SimpleNamespace

    from lanloss.testbed.hosts import per_host

    names = [f"h{i}" for i in range(11)]  # more hosts than threads: some share one
    started = threading.Barrier(8, timeout=10)
    finished = []

    def read(host):
        if int(host.name[1:]) < 8:
            started.wait()  # 8 reads at once, or this times out
        finished.append(host.name)
        if host.name in ("h9", "h2"):
            raise RuntimeError(f"{host.name} failed")
        return host.name.upper()

    hosts = [SimpleNamespace(name=n) for n in names]
    with pytest.raises(RuntimeError, match="^h2 failed$"):
        per_host(hosts, read)
    assert sorted(finished) == sorted(names)
    ok = per_host(hosts[3:6], lambda h: h.name.upper())
    assert list(ok.items()) == [("h3", "H3"), ("h4", "H4"), ("h5", "H5")]


def test_a_local_read_refuses_what_is_not_a_regular_file(tmp_path):
    """`cat` of a FIFO would wait for a writer: read here, it is refused at once (the
    harness's own reads have no timeout), as is a folder."""
    host = transport.Local("here")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path in (fifo, tmp_path):
        res = host.run(["cat", str(path)])
        assert res.rc == 1 and res.out.startswith(f"cat: {path}: ")
        with pytest.raises(BedError, match=f"^here: cannot read {path}: "):
            host.read_file(str(path))
    assert host.run_many([["cat", str(fifo)], ["true"]])[1].rc == 0
