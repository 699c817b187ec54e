# SPDX-License-Identifier: GPL-2.0-only
"""The receiving-host presets: one table, read by the vocabulary (``host``'s choices), the
simulator's resolution of host values (lanloss/host_values.py) and, generated at build time, the
scenario program (its NIC families; ns3-scratch/CMakeLists.txt).

Two kinds of value. A NIC's and kernel's constants come from datasheets and driver sources
(FIFO sizes, ring defaults, rmem_default, PAUSE times). CPU costs no datasheet gives: each
preset says whether they are orders of magnitude for its era (fitted to nothing) or were
fitted by ``lanloss calibrate`` (lanloss/analysis/calibrate.py) to a *named* subset of its
paper's numbers, at most a third; the seed figures then mark those rows ``calibrated`` and
count only the others as evidence.

``e1000-2008``: a 2008 single-core PC with an Intel 8254x on 32-bit PCI, e1000 driver,
Linux 2.6 with NAPI (seed 000's era). FIFO 48 KiB (e1000_reset, E1000_PBA_48K), ring 256
(e1000 RxDescriptors default); itr 0, one interrupt per packet, the state seed 000 found
before its fix; CPU costs 8 us / 4 us / 5 us per interrupt / frame / read: orders of
magnitude for such a PC, fitted to nothing (the ITR-0 knee for 64-byte payloads is then
58.8 kpps, 30 Mbit/s: not the seed's ~20); rmem_default 109568 of i386 2.6 kernels (256 x
(sizeof(struct sk_buff) 172 + 256)), i.e. ``rcvbuf`` 54784.

``w7x-client-2008``: seed 000's monitoring client: e1000-2008 whose cost per datagram read
(13.71 us, the client's own processing included) was fitted to the seed's one number, losses
from about 20 Mbit/s (64-byte multicast, an interrupt per packet: 0.1 % lost at 20 Mbit/s).

``athlon-2003``: seed 001's lab PC (AMD Athlon XP 1544 MHz, a 100 Mbit/s PCI NIC without
interrupt moderation, Linux 2.4/2.6): 5 us per interrupt, 3 us per frame, 1 ns per byte
copied (orders of magnitude); the cost per read, 2.371 us, fitted to one number of the
seed's table (64-byte UDP with 16 KiB buffers: 48.51 Mbit/s, below the wire's 49.23).

``xeon-2002``: seed 002's servers (2002, an 82545 on PCI-X, the TCP receive path on one
CPU, ITR 8000, e1000's default of the time): 5 us per interrupt, 10 us per frame (driver,
IP, TCP and the ACK it sends), 5 us per read and 1.5 ns per byte copied: orders of
magnitude for a 2002 server, fitted to nothing (the summary withholds its numbers).

``java-2015``: seed 003's PCs (2015, four cores, an igb-class NIC) with the thesis' Java
receiver: 1 us per interrupt and per frame, 10 us per read (a Java DatagramSocket.receive),
0.3 ns per byte: orders of magnitude, fitted to nothing (the thesis' numbers are withheld).

``x3440-2010``: seed 004's host (Xeon X3440, 4 cores, an 82574L with one queue on PCIe 1.1
x1, e1000e, 20 KiB receive buffer, ring 256, ITR 20000, rmem_default 126976 of 2.6.32
x86-64): the kernel's cost per frame (0.585 us), the cost per read (0.447 us) and per byte
(4.97 ns) fitted to 3 of the seed's 9 receive rates (Model 1 with 1 and 2 processes, Model
2 with 1); readers on every core, the first with the interrupt (``reader_cores all``).

``modern``: an igb-class NIC (82576: 64 KiB receive FIFO, E1000_PBA_64K in igb_reset) with
its ring at the 4096 maximum, four cores, itr 20000 (dynamic conservative mode's rate for
small packets), costs 1 us per interrupt, 0.6 us per frame (driver 0.25 + stack 0.35), 1.27
us per read: orders of magnitude (the read cost is seed 004's one-process rate taken as a
read's cost, not fitted: x3440-2010 is that seed's host), rmem_default 212992, i.e.
``rcvbuf`` 106496.

``netns``: the netns testbed's receiving host on this kind of machine (a veth pair into the
emulated switch): two cores, the kernel's receive work on core 0 (veth: it runs on the
sender's CPU), the reader on core 1; no interrupts, no NIC FIFO or ring to overflow (both
beyond reach), rmem_default 212992 as on the testbed machine (``rcvbuf`` 106496);
``packet_cost`` and ``read_cost`` (2 us each) are orders of magnitude for a virtual CPU:
``lanloss fit`` calibrates them against the testbed, and its host file starts from here.

``wakeup_cost`` (a context switch: 1.5-5 us by era) only matters for readers that share a
socket; ``read_byte_cost`` 0 means the preset's read cost was set at one payload size and
holds the copy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# The host values: every preset sets all of them; a host file may set any of them.
HOST_OPTIONS: tuple[str, ...] = (
    "cores",
    "irq_cost",
    "packet_cost",
    "read_cost",
    "read_byte_cost",
    "wakeup_cost",
    "reader_cores",
    "truesize",
    "rx_fifo",
    "rx_ring",
    "itr",
    "backlog",
    "rcvbuf",
    "stall_period",
    "stall_length",
    "rps",
)


@dataclass(frozen=True)
class Nic:
    """What a preset's NIC and driver family fix, beyond the host values a user sets."""

    dma_bps: int  # host bus: the DMA rate from the NIC's FIFO to memory
    driver_share: float  # DriverCost / (DriverCost + StackCost) of packet_cost
    pause_time: int  # quanta of a host XOFF
    pause_refresh: int  # XOFF refresh while the FIFO stays high, quanta
    drop_when_no_ring: bool  # SRRCTL.DROP_EN when receive flow control is off


@dataclass(frozen=True)
class Preset:
    summary: str  # what it is, in a few words (the `host` option's help)
    values: dict[str, Any]  # every HOST_OPTIONS value, canonical (seconds, bytes, counts)
    nic: Nic


# The e1000-2008 PC (seed 000's era), which seed 000's client shares but for its read cost.
_E1000_2008: dict[str, Any] = {
    "cores": 1,
    "irq_cost": 8e-6,
    "packet_cost": 4e-6,
    "read_cost": 5e-6,
    "read_byte_cost": 0.0,
    "wakeup_cost": 5e-6,
    "reader_cores": "others",
    "truesize": 0,
    "rx_fifo": 49152,
    "rx_ring": 256,
    "itr": 0,
    "backlog": 1000,
    "rcvbuf": 54784,
    "stall_period": 0.0,
    "stall_length": 0.0,
    "rps": "off",
}
# 82540/82545 on 32-bit 33 MHz PCI (133 MB/s); e1000: E1000_FC_PAUSE_TIME 0x0680, refresh at
# half; no DROP_EN. Driver 2 us + stack 2 us of the 4 us packet_cost.
_E1000_NIC = Nic(1_064_000_000, 0.5, 0x0680, 0x0340, False)


# The one table of presets (see the module docstring and models/doc/host-model.rst for
# sources). The scenario program's copy is generated from it at build time
# (``python -m lanloss.host_values --cxx-header``: build/.../scenario-presets.h), so adding a
# preset or changing a value is an edit here only.
TABLE: dict[str, Preset] = {
    "e1000-2008": Preset(
        "seed 000's 2008 PC, e1000, one core",
        _E1000_2008,
        _E1000_NIC,
    ),
    "modern": Preset(
        "igb-class, 4 cores",
        {
            "cores": 4,
            "irq_cost": 1e-6,
            "packet_cost": 0.6e-6,
            "read_cost": 1.27e-6,
            "read_byte_cost": 0.0,
            "wakeup_cost": 1.5e-6,
            "reader_cores": "others",
            "truesize": 0,
            "rx_fifo": 65536,
            "rx_ring": 4096,
            "itr": 20000,
            "backlog": 1000,
            "rcvbuf": 106496,
            "stall_period": 0.0,
            "stall_length": 0.0,
            "rps": "off",
        },
        # 82576 (igb) on PCIe 2.0 x4 (16 Gbit/s after 8b/10b); igb_reset: pause_time 0xFFFF
        # with XON; igb_setup_srrctl sets DROP_EN with several queues and rx pause off.
        # Driver 0.25 us + stack 0.35 us of the 0.6 us packet_cost.
        Nic(16_000_000_000, 0.25 / 0.6, 0xFFFF, 0x7FFF, True),
    ),
    "netns": Preset(
        "the netns testbed's veth host",
        {
            "cores": 2,
            "irq_cost": 0.0,
            "packet_cost": 2e-6,
            "read_cost": 2e-6,
            "read_byte_cost": 0.0,
            "wakeup_cost": 2e-6,
            "reader_cores": "others",
            "truesize": 0,
            "rx_fifo": 1 << 24,
            "rx_ring": 4096,
            "itr": 0,
            "backlog": 1000,
            "rcvbuf": 106496,
            "stall_period": 0.0,
            "stall_length": 0.0,
            "rps": "off",
        },
        # veth in a network namespace (the netns testbed's host): no FIFO, ring, DMA or
        # PAUSE (the preset's FIFO and ring are too large to matter); the whole per-frame
        # cost is the stack's.
        Nic(400_000_000_000, 0.0, 0xFFFF, 0x7FFF, False),
    ),
    "w7x-client-2008": Preset(
        "seed 000's monitoring client: e1000-2008 with its read cost fitted to the seed",
        # the e1000-2008 PC, but for the client's cost per datagram read
        {**_E1000_2008, "read_cost": 13.71e-6},
        _E1000_NIC,
    ),
    "athlon-2003": Preset(
        "seed 001's 2003 lab PC: Athlon XP, 100 Mbit/s NIC, one core; read cost fitted",
        {
            "cores": 1,
            "irq_cost": 5e-6,
            "packet_cost": 3e-6,
            "read_cost": 2.371e-6,
            "read_byte_cost": 1e-9,
            "wakeup_cost": 5e-6,
            "reader_cores": "others",
            "truesize": 0,
            "rx_fifo": 16384,
            "rx_ring": 256,
            "itr": 0,
            "backlog": 300,
            "rcvbuf": 32767,
            "stall_period": 0.0,
            "stall_length": 0.0,
            "rps": "off",
        },
        # a 2003 100 Mbit/s PCI NIC (Intel 8255x-class): 32-bit 33 MHz PCI, no interrupt
        # moderation, no flow control by default; the e1000 family's pause constants.
        Nic(1_064_000_000, 0.5, 0x0680, 0x0340, False),
    ),
    "xeon-2002": Preset(
        "seed 002's 2002 servers: e1000 on PCI-X, the TCP receive path on one CPU",
        {
            "cores": 1,
            "irq_cost": 5e-6,
            "packet_cost": 10e-6,
            "read_cost": 5e-6,
            "read_byte_cost": 1.5e-9,
            "wakeup_cost": 5e-6,
            "reader_cores": "others",
            "truesize": 0,
            "rx_fifo": 49152,
            "rx_ring": 256,
            "itr": 8000,
            "backlog": 300,
            "rcvbuf": 32767,
            "stall_period": 0.0,
            "stall_length": 0.0,
            "rps": "off",
        },
        # 82545 on 64-bit 133 MHz PCI-X (8.5 Gbit/s); e1000's pause constants.
        Nic(8_500_000_000, 0.4, 0x0680, 0x0340, False),
    ),
    "java-2015": Preset(
        "seed 003's 2015 PCs with a Java receiver: 4 cores, igb-class NIC",
        {
            "cores": 4,
            "irq_cost": 1e-6,
            "packet_cost": 1e-6,
            "read_cost": 10e-6,
            "read_byte_cost": 0.3e-9,
            "wakeup_cost": 2e-6,
            "reader_cores": "others",
            "truesize": 0,
            "rx_fifo": 65536,
            "rx_ring": 256,
            "itr": 20000,
            "backlog": 1000,
            "rcvbuf": 106496,
            "stall_period": 0.0,
            "stall_length": 0.0,
            "rps": "off",
        },
        # an igb/e1000e-class NIC on PCIe (the modern preset's family)
        Nic(16_000_000_000, 0.4, 0xFFFF, 0x7FFF, True),
    ),
    "x3440-2010": Preset(
        "seed 004's Xeon X3440, 82574L, 4 cores",
        {
            "cores": 4,
            "irq_cost": 1e-6,
            "packet_cost": 0.585e-6,
            "read_cost": 0.447e-6,
            "read_byte_cost": 4.97e-9,
            "wakeup_cost": 1.5e-6,
            "reader_cores": "all",
            "truesize": 0,
            "rx_fifo": 20480,
            "rx_ring": 256,
            "itr": 20000,
            "backlog": 1000,
            "rcvbuf": 63488,
            "stall_period": 0.0,
            "stall_length": 0.0,
            "rps": "off",
        },
        # 82574L (e1000e) on PCIe 1.1 x1 (2 Gbit/s after 8b/10b): a 20 KiB receive packet
        # buffer (PBA), one queue, no DROP_EN; E1000_FC_PAUSE_TIME 0x0680 refreshed at half.
        Nic(2_000_000_000, 0.4, 0x0680, 0x0340, False),
    ),
}


def summaries() -> str:
    """The presets in words, for the `host` option's help."""
    return ", ".join(f"{name} ({p.summary})" for name, p in TABLE.items())
