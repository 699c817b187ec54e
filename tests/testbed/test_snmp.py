# SPDX-License-Identifier: GPL-2.0-only
"""Switch counters over SNMP without an agent: net-snmp outputs (tests/testbed/fixtures/snmp,
recorded or written, see its README) read into port counters, their deltas (Counter32
wrap, the HC PAUSE counters preferred), the record's pause section and the attribution;
and the inventory's switch section."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from test_bed_input import key  # noqa: F401 - the fixture of an inventory's key file

from lanloss.options import OptionError
from lanloss.testbed import attribution, inventory, run_record, snmp

FIXTURES = Path(__file__).parent / "fixtures" / "snmp"
CISCO = {"Gi1/0/1": 10101, "Gi1/0/2": 10102}


def _values(name: str) -> dict[str, str]:
    return snmp.parse_values((FIXTURES / name).read_text())


def _snap(name: str, indexes: dict[str, int]) -> snmp.Snapshot:
    return snmp.Snapshot("sw1", 0.0, snmp.parse_ports(_values(name), indexes))


def _moved(kind: str) -> dict:
    before = _snap(f"etherlike-{kind}-before.txt", CISCO)
    after = _snap(f"etherlike-{kind}-after.txt", CISCO)
    return snmp.delta(before, after)


def test_ports_are_found_by_ifname_or_ifindex_in_a_recorded_walk():
    names = _values("netsnmp-5.9-linux-ifname.txt")
    assert snmp.port_indexes(names, ["p1", 2]) == {"p1": 3, "2": 2}
    with pytest.raises(snmp.SnmpError, match=r"no port named 'Gi1/0/1' \(ifName: lo, p1, p2\)"):
        snmp.port_indexes(names, ["Gi1/0/1"])
    with pytest.raises(snmp.SnmpError, match=r"no ifIndex 9 \(ifIndexes: \[1, 2, 3\]\)"):
        snmp.port_indexes(names, [9])


def test_linux_agent_has_if_mib_counters_and_no_pause_table():
    parsed = snmp.parse_ports(_values("netsnmp-5.9-linux-counters.txt"), {"p1": 3, "p2": 2})
    assert parsed["dot3"] == {}  # "No Such Object" is left out, never read as 0
    assert set(parsed["ifmib"]["p1"]) == set(snmp.IF_COUNTERS)
    assert parsed["ifmib"]["p2"]["ifHCOutUcastPkts"] == 1


def test_hc_pause_counters_are_preferred_and_counter32_wraps_once():
    moved = _moved("hc")
    assert moved["pause"] == {
        "Gi1/0/1": {"rx_pause_frames": 0, "tx_pause_frames": 1412},
        "Gi1/0/2": {"rx_pause_frames": 1708, "tx_pause_frames": 0},
    }
    assert moved["ifmib"]["Gi1/0/2"]["ifOutDiscards"] == 4716  # 4294967290 -> 4710
    assert moved["ifmib"]["Gi1/0/1"]["ifHCInUcastPkts"] == 85000
    assert moved["ifmib"]["Gi1/0/2"]["ifInDiscards"] == 0


def test_an_agent_with_only_counter32_pause_gives_the_same_frames():
    assert _moved("32")["pause"] == _moved("hc")["pause"]


def test_more_pause_frames_than_a_counter32_holds_come_from_the_hc_counter():
    five_billion = {"dot3HCInPauseFrames": 5_000_000_000, "dot3InPauseFrames": 705_032_704}
    assert snmp.pause_frames(five_billion) == {"rx_pause_frames": 5_000_000_000}


def test_switch_pause_frames_reach_the_record_pause_section():
    deltas: dict = {}
    before = {"sw1": _snap("etherlike-hc-before.txt", CISCO)}
    after = {"sw1": _snap("etherlike-hc-after.txt", CISCO)}
    snmp.add_deltas(deltas, before, after)
    pause = run_record._pause(SimpleNamespace(hosts={}), SimpleNamespace(deltas=deltas, facts={}))
    assert pause == {
        "frames_sent": 1412,
        "ports": {
            "sw1:Gi1/0/1": {"frames_sent": 1412, "frames_received": 0},
            "sw1:Gi1/0/2": {"frames_sent": 0, "frames_received": 1708},
        },
    }


def test_a_failed_reading_gives_no_counters_not_zeros():
    deltas: dict = {}
    before = {"sw1": snmp.Snapshot("sw1", 0.0, {"ifmib": {}, "dot3": {}}, {"snmp": "Timeout"})}
    after = {"sw1": _snap("etherlike-hc-after.txt", CISCO)}
    snmp.add_deltas(deltas, before, after)
    assert "ifmib" not in deltas.get("sw1", {})


def _path(sent: int, received: int) -> attribution.FlowPath:
    return attribution.FlowPath(
        "a", "eth1", "b", "eth1", 0, "b", sent, received,
        ingress=[("sw1", "Gi1/0/1")], egress=[("sw1", "Gi1/0/2")],
    )  # fmt: skip


def test_switch_drops_read_over_snmp_are_attributed_at_the_switch_egress():
    deltas: dict = {}
    snmp.add_deltas(
        deltas,
        {"sw1": _snap("etherlike-hc-before.txt", CISCO)},
        {"sw1": _snap("etherlike-hc-after.txt", CISCO)},
    )
    paths = [_path(100_000, 100_000 - 4716)]
    attr = attribution.attribute(paths, attribution.sources(paths, deltas, "udp"))
    assert attr["totals"]["switch_egress"] == 4716
    assert attr["totals"]["unexplained"] == 0
    assert attr["detail"] == [
        {
            "point": "switch_egress",
            "counter": "sw1 Gi1/0/2 ifOutDiscards (SNMP)",
            "value": 4716,
            "flows": 1,
        }
    ]


def test_switch_ingress_over_snmp_counts_discards_and_errors():
    deltas = {"sw1": {"ifmib": {"Gi1/0/1": {"ifInDiscards": 7, "ifInErrors": 2}}}}
    paths = [_path(1000, 991)]
    attr = attribution.attribute(paths, attribution.sources(paths, deltas, "udp"))
    assert attr["totals"]["switch_ingress"] == 9 and attr["totals"]["unexplained"] == 0


def test_client_arguments_of_v2c_and_v3_agents():
    v2 = snmp.Agent("192.0.2.2", community="lab-ro")
    assert v2.client_args()[-3:] == ["-c", "lab-ro", "udp:192.0.2.2:161"]
    v3 = snmp.Agent(
        "2001:db8::2", 1161, "3", user="lanloss", auth_protocol="SHA",
        auth_password="auth-pass", priv_protocol="AES", priv_password="priv-pass",
    )  # fmt: skip
    args = v3.client_args()
    assert args[args.index("-l") + 1] == "authPriv"
    assert args[-9:] == [
        "-u", "lanloss", "-a", "SHA", "-A", "auth-pass", "-x", "AES", "-X", "priv-pass",
        "udp:[2001:db8::2]:1161",
    ][-9:]  # fmt: skip


# -- the inventory's switches ------------------------------------------------------------------

HOSTS = """
hosts:
  pc1: {address: 127.0.0.1, data_address: 10.9.0.1, interface: eth1, role: sender,
        switch: sw1, switch_port: Gi1/0/1}
  pc2: {address: 127.0.0.1, data_address: 10.9.0.2, interface: eth1, role: receiver,
        switch: sw2, switch_port: 5}
"""
SWITCHES = """
ssh: {key: id}
switches:
  sw1: {address: 127.0.0.1, snmp: {version: 2c, community: lab-ro}}
  sw2:
    address: 127.0.0.1
    snmp: {version: "3", user: lanloss, auth: {protocol: SHA, password: auth-pass},
           counter_refresh: 5}
links:
  - {switch: sw1, port: Te1/1/1, peer: sw2, peer_port: 49}
"""


@pytest.fixture
def lab(key: Path) -> Path:  # noqa: F811
    """A folder with the key the inventories name (`id`)."""
    return key.parent


def _write(lab: Path, text: str) -> str:
    path = lab / "inv.yaml"
    path.write_text(text)
    return str(path)


def test_a_path_crosses_the_ports_of_both_switches(lab):
    inv = inventory.load(_write(lab, SWITCHES + HOSTS))
    assert inv.switches["sw2"].agent.level() == "authNoPriv"
    assert inv.switches["sw2"].agent.refresh_s == 5.0
    assert inv.hosts["pc2"].switch_port == 5
    assert inv.flow_ports("pc1", "pc2") == (
        [("sw1", "Gi1/0/1"), ("sw2", "49")],
        [("sw1", "Te1/1/1"), ("sw2", "5")],
    )
    assert inv.flow_ports("pc2", "pc1") == (
        [("sw2", "5"), ("sw1", "Te1/1/1")],
        [("sw2", "49"), ("sw1", "Gi1/0/1")],
    )
    assert inv.switch_port("sw2", "49") == 49 and inv.ports_on("sw1") == ["Gi1/0/1", "Te1/1/1"]


@pytest.mark.parametrize(
    ("old", "new", "why"),
    [
        ("community: lab-ro", "community: ''", "switch 'sw1': snmp community '' is missing"),
        ("version: 2c", "version: 1", "switch 'sw1': snmp version 1 is not one of 2c, 3"),
        ("password: auth-pass", "password: short", "snmp auth password must be text of at least 8"),
        ("protocol: SHA", "protocol: SHA1", "snmp auth protocol 'SHA1' is not one of MD5, SHA"),
        ("counter_refresh: 5", "priv: {protocol: AES, password: priv-pass}", None),
        ("peer: sw2", "peer: sw3", "link 1: peer 'sw3' is not in 'switches'"),
        ("peer_port: 49", "peer_port: 5", "switch sw2 port 5 is plugged twice: host 'pc2', a link"),
        ("switch: sw2, switch_port: 5", "switch: sw2", "host 'pc2': give both switch and"),
        ("switch_port: Gi1/0/1", "switch_port: -3", "switch_port -3 is not an ifIndex"),
        ("switch_port: Gi1/0/1", "switch_port: [1]", "switch_port [1] is not an ifName or"),
        ("switch: sw1, switch_port", "switch: sw9, switch_port",
         "host 'pc1': switch 'sw9' is not in 'switches'"),
        ("links:\n  - {switch: sw1, port: Te1/1/1, peer: sw2, peer_port: 49}", "links: []",
         "switches sw1 and sw2 are not connected by 'links'"),
    ],
)  # fmt: skip
def test_a_bad_switch_section_is_one_line_naming_it(lab, old, new, why):
    text = (SWITCHES + HOSTS).replace(old, new, 1)
    assert text != SWITCHES + HOSTS
    if why is None:  # a valid variant: authPriv
        assert inventory.load(_write(lab, text)).switches["sw2"].agent.level() == "authPriv"
        return
    with pytest.raises(OptionError) as exc:
        inventory.load(_write(lab, text))
    assert why in str(exc.value) and "\n" not in str(exc.value)


def test_links_with_a_loop_are_refused(lab):
    text = SWITCHES.replace(
        "switches:\n",
        "switches:\n  sw3: {address: 127.0.0.1, snmp: {community: c}}\n",
    ) + "  - {switch: sw2, port: 50, peer: sw3, peer_port: 1}\n" \
        "  - {switch: sw3, port: 2, peer: sw1, peer_port: Te1/1/2}\n" + HOSTS  # fmt: skip
    with pytest.raises(OptionError, match="links form a loop through sw3-sw1"):
        inventory.load(_write(lab, text))


def test_the_cli_refuses_a_bad_switch_before_touching_anything(lab):
    path = _write(lab, (SWITCHES + HOSTS).replace("version: 2c", "version: 4"))
    res = subprocess.run(
        [sys.executable, "-m", "lanloss.cli", "bed", "check", "--backend", "ssh",
         "--inventory", path],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert res.returncode == 2
    assert len(res.stderr.strip().splitlines()) == 1
    assert "switch 'sw1': snmp version 4 is not one of 2c, 3" in res.stderr
