# SPDX-License-Identifier: GPL-2.0-only
"""The receiving-host presets: one table, read by the vocabulary (``host``'s choices), the
simulator's resolution of host values (lanloss/hosts.py) and, generated at build time, the
scenario program (its NIC families). Where each value comes from: lanloss/hosts.py's
docstring and models/doc/host-model.rst, "Presets"."""

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


# The one table of presets (see the module docstring and models/doc/host-model.rst for
# sources). The scenario program's copy is generated from it at build time
# (``python -m lanloss.hosts --cxx-header``: build/.../scenario-presets.h), so adding a
# preset or changing a value is an edit here only.
TABLE: dict[str, Preset] = {
    "e1000-2008": Preset(
        "seed 000's 2008 PC, e1000, one core",
        {
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
        },
        # 82540/82545 on 32-bit 33 MHz PCI (133 MB/s); e1000: E1000_FC_PAUSE_TIME 0x0680,
        # refresh at half; no DROP_EN. Driver 2 us + stack 2 us of the 4 us packet_cost.
        Nic(1_064_000_000, 0.5, 0x0680, 0x0340, False),
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
        {
            "cores": 1,
            "irq_cost": 8e-6,
            "packet_cost": 4e-6,
            "read_cost": 13.71e-6,
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
        },
        # the e1000-2008 PC's NIC (82540/82545 on 32-bit PCI)
        Nic(1_064_000_000, 0.5, 0x0680, 0x0340, False),
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
