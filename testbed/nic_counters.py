# SPDX-License-Identifier: GPL-2.0-only
"""Which receiving-NIC counters are drops, and at which drop point: a table per driver.

The driver comes from ``ethtool -i`` (lanloss.testbed.hosts.gather_facts). Each driver's
``ethtool -S`` names are matched against its rules (a regular expression matching the whole
name; per-queue counters such as ``rx_queue_3_drops``, ``rx-3.drops`` or ``[3]: rx_discards``
match one rule and are summed) and each rule says what the counter is:

| kind       | meaning                                                         | goes to          |
|------------|-----------------------------------------------------------------|------------------|
| rx_fifo    | the NIC's own packet buffer / FIFO overflowed, or it missed it   | drops.rx_fifo    |
| rx_ring    | no RX descriptor or buffer was available (ring, WQE, memory)    | drops.rx_ring    |
| rx_error   | frame discarded as bad: FCS, alignment, length, runt, jabber     | drops.rx_error   |
| pause_rx   | PAUSE frames received (xon + xoff)                               | pause, fallback  |
| pause_tx   | PAUSE frames sent                                                | pause, fallback  |
| double     | counts frames another mapped counter already counts (a sum, a    | nowhere          |
|            | per-priority split, a copy of /proc/net/dev)                     |                  |
| not_drop   | not a drop of the frame (an event, a precursor whose drop shows  | nowhere          |
|            | elsewhere, a frame not addressed to this host, a byte count)     |                  |
| uncertain  | may or may not be drops of the run's frames, or may overlap a    | listed; makes    |
|            | mapped counter: listed by name, attribution marked incomplete    | it incomplete    |

/proc/net/dev is read too. Its ``drop`` column is rx_dropped + rx_missed_errors of the
driver's netdev stats plus the kernel core's own drops of the device (dev->core_stats); a
map names the mapped counters its driver adds into ``drop`` (``in_dev_drop``), and what is
left of ``drop`` goes to rx_ring as drops of the driver or the core with no driver counter
(the harness's rule before per-driver maps; note that a backlog drop in enqueue_to_backlog
also counts here, as it does in softnet_stat). Its ``fifo`` column (rx_fifo_errors) is a
drop point (``dev_fifo``), a copy of mapped counters ("double") or "uncertain".

A driver without a map (and veth, whose ethtool names are XDP queue counters) gets the kernel
view, the harness's e1000-era rule: rx_fifo = fifo + rx_missed_errors, rx_ring = drop -
rx_missed_errors. For every driver, a counter that moved, that no rule names, and whose name
looks like a drop (drop, discard, miss, err, overflow, no buffer, fail, crc, ...) and not like
the transmit side, is listed by name with its delta, and the attribution is marked incomplete.

The kernel's standard statistics (``ethtool -S IFACE --all-groups``: eth-phy, eth-mac,
eth-ctrl, rmon; names from net/ethtool/stats.c, documented in
Documentation/networking/ethtool-netlink.rst and statistics.rst) count a point only when the
driver's map has no counter for it; otherwise they are a cross-check ("double"). Standard
PAUSE counts come from ``ethtool -I -a`` (kernel >= 5.10); a driver's pause counters are
the fallback when a NIC does not report them there.

Where each mapping comes from (kernel tree paths; NVIDIA/Intel documents by title):

- e1000, e1000e, igb, igc: drivers/net/ethernet/intel/{e1000/e1000_main.c e1000_update_stats,
  e1000e/netdev.c e1000e_update_stats, igb/igb_main.c igb_update_stats, igc/igc_main.c
  igc_update_stats} and their *_ethtool.c string tables; the Intel I210 datasheet, 7.9.4
  "Linux net_device_stats" (rx_fifo_errors = HRMPC + sum(RQDPC), rx_missed_errors = MPC).
  MPC (rx_missed_errors) counts frames missed because the packet buffer was full; RQDPC
  (rx_queue_N_drops) counts frames dropped because their queue had no descriptor; RNBC
  (rx_no_buffer_count) is not a drop (igb_update_stats: "the hardware FIFO might save the day").
- ixgbe: drivers/net/ethernet/intel/ixgbe/ixgbe_main.c ixgbe_update_stats (rx_missed_errors =
  MPC sum, rx_no_dma_resources = QPRDC sum: queue drop, no descriptor).
- i40e, ice: drivers/net/ethernet/intel/{i40e/i40e_ethtool.c, ice/ice_ethtool.c} and the
  statistics sections of Documentation/networking/device_drivers/ethernet/intel/{i40e,ice}.rst
  (rx_dropped: VSI drops for lack of descriptors; port.rx_dropped / rx_dropped.nic: port-level
  drops for lack of packet buffer).
- mlx5_core: Documentation/networking/device_drivers/ethernet/mellanox/mlx5/counters.rst and
  NVIDIA's "Understanding mlx5 ethtool Counters" (rx_out_of_buffer: no software buffer posted
  for the queue; rx_discards_phy: dropped for lack of buffers on the physical port);
  en_main.c mlx5e_get_stats (rx_missed_errors = rx_out_of_buffer; since the 2024 patch
  "net/mlx5e: Report rx_discards_phy via rx_fifo_errors", rx_fifo_errors = rx_discards_phy).
- mlx4_en: drivers/net/ethernet/mellanox/mlx4/en_ethtool.c, en_port.c (rx_fifo_errors =
  RdropOvflw, the port buffer overflow; the mlx5 counters document names it as the ConnectX-3
  name of rx_discards_phy). No published mlx4_en dump with these names was found: the map is
  not checked against a fixture (tests/testbed/fixtures/ethtool/mlx4_en-1.txt holds only
  packet and byte counters).
- igc: no published igc dump was found; its map is igb's (igc_ethtool.c keeps igb's names).
- bnxt_en: drivers/net/ethernet/broadcom/bnxt/bnxt_ethtool.c, bnxt.c bnxt_get_ring_stats
  (per-ring rx_discards: ring had no buffer; rx_stat_discard: port discards).
- tg3: drivers/net/ethernet/broadcom/tg3.c tg3_get_nstats (rx_missed_errors = rx_discards:
  frames the NIC could not store).
- r8169: drivers/net/ethernet/realtek/r8169_main.c rtl8169_get_stats64 (rx_missed_errors =
  the chip's RxMissed; a 16-bit counter that wraps).
- virtio_net: drivers/net/virtio_net.c virtnet_stats (rx_dropped = sum of rq drops).
- vmxnet3: drivers/net/vmxnet3/vmxnet3_ethtool.c (per-queue blocks with repeated names, summed
  by the parser) and vmxnet3_get_stats64 (rx_dropped = drv dropped rx total + pkts rx OOB).
- ena: drivers/net/ethernet/amazon/ena/ena_ethtool.c and Documentation/networking/
  device_drivers/ethernet/amazon/ena.rst; the device's own rx drops reach /proc/net/dev only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

NIC_POINTS = ("rx_fifo", "rx_ring", "rx_error")
KINDS = NIC_POINTS + ("pause_rx", "pause_tx", "double", "not_drop", "uncertain")


@dataclass(frozen=True)
class Rule:
    pattern: str  # regular expression matching a whole `ethtool -S` name
    kind: str
    why: str = ""

    def matches(self, name: str) -> bool:
        return re.fullmatch(self.pattern, name) is not None


@dataclass(frozen=True)
class DriverMap:
    driver: str
    rules: tuple[Rule, ...]
    in_dev_drop: tuple[str, ...] = ()  # patterns: mapped counters inside /proc/net/dev `drop`
    dev_fifo: str = "uncertain"  # /proc/net/dev `fifo`: a drop point, "double" or "uncertain"
    fixture: bool = True  # False: no published dump was found to check the names against

    @property
    def counts_pause(self) -> bool:
        return any(r.kind.startswith("pause_") for r in self.rules)

    def rule_for(self, name: str) -> Rule | None:
        return next((r for r in self.rules if r.matches(name)), None)


def _r(pattern: str, kind: str, why: str = "") -> Rule:
    assert kind in KINDS, kind
    return Rule(pattern, kind, why)


Q = r"\d+"  # a queue, ring or priority number

# The port's receive errors of the i40e/ice family (the Intel 40G/100G MACs), as named
# without the driver's prefix or suffix.
_PORT_ERRORS = (
    "rx_crc_errors",
    "rx_length_errors",
    "rx_undersize",
    "rx_fragments",
    "rx_oversize",
    "rx_jabber",
)


def _vsi_and_port(driver: str, port: str, *own: Rule) -> DriverMap:
    """A driver of the i40e/ice family: the VSI's drops, the port's (MAC's) counters, which
    the two drivers name alike but for a prefix or suffix (the pattern `port`, "{}": the MAC's
    own name), then the driver's `own` rules."""
    return DriverMap(
        driver,
        (
            _r("rx_dropped", "rx_ring", "VSI drops: no descriptor"),
            _r(port.format("rx_dropped"), "rx_fifo", "port drops: no packet buffer"),
            *(_r(port.format(e), "rx_error") for e in _PORT_ERRORS),
            _r(port.format("illegal_bytes"), "not_drop", "a byte count"),
            _r(port.format("rx_csum_bad"), "not_drop", "delivered"),
            _r(port.format("link_xo(n|ff)_rx"), "pause_rx"),
            _r(port.format("link_xo(n|ff)_tx"), "pause_tx"),
            *own,
        ),
        ("rx_dropped",),
    )


# The receive error registers e1000, e1000e and igb (igc) share, under the same ethtool names.
_INTEL_RX_ERRORS = (
    _r("rx_crc_errors", "rx_error", "CRCERRS"),
    _r("rx_align_errors", "rx_error", "ALGNERRC"),
    _r("rx_long_length_errors", "rx_error", "ROC: oversize"),
    _r("rx_short_length_errors", "rx_error", "RUC: undersize"),
    _r("rx_length_errors", "double", "ROC + RUC"),
    _r("rx_frame_errors", "double", "ALGNERRC"),
    _r("rx_errors", "double", "sum of the error counters"),
    _r("rx_over_errors", "uncertain", "netdev stat the driver does not set"),
)

# The PAUSE frame counters (XON + XOFF received, sent) of e1000, e1000e, igb (igc) and ixgbe.
_INTEL_PAUSE = (
    _r("rx_flow_control_xo(n|ff)", "pause_rx"),
    _r("tx_flow_control_xo(n|ff)", "pause_tx"),
)

# e1000 family (e1000, e1000e): counters from the hardware statistics registers.
_E1000_COMMON = (
    _r("rx_missed_errors", "rx_fifo", "MPC: packet buffer full"),
    _r("rx_no_buffer_count", "not_drop", "RNBC: no descriptor at that moment; drop is in MPC"),
    *_INTEL_RX_ERRORS,
    _r("rx_csum_offload_errors", "not_drop", "delivered; the kernel counts UDP InCsumErrors"),
    _r("alloc_rx_buff_failed", "not_drop", "refill failure; the drop shows as MPC"),
    _r("dropped_smbus", "not_drop", "management frames for the BMC"),
    *_INTEL_PAUSE,
)

E1000 = DriverMap("e1000", _E1000_COMMON, ("rx_missed_errors",), dev_fifo="rx_fifo")

E1000E = DriverMap(
    "e1000e",
    _E1000_COMMON
    + (
        _r("rx_dma_failed", "not_drop", "RX buffer DMA mapping failed: refill failure"),
        _r("uncorr_ecc_errors", "uncertain", "packet buffer ECC error"),
        _r("corr_ecc_errors", "not_drop", "corrected"),
    ),
    ("rx_missed_errors",),
    dev_fifo="rx_fifo",
)

_IGB_RULES = (
    _r(f"rx_queue_{Q}_drops", "rx_ring", "RQDPC: queue had no descriptor"),
    _r("rx_missed_errors", "rx_fifo", "MPC: packet buffer full"),
    _r("rx_no_buffer_count", "not_drop", "RNBC: not an exact drop count (igb_update_stats)"),
    _r("rx_fifo_errors", "double", "netdev copy: sum(RQDPC) + RNBC"),
    *_INTEL_RX_ERRORS,
    _r(f"rx_queue_{Q}_csum_err", "not_drop", "delivered; the kernel checks the checksum"),
    _r(f"rx_queue_{Q}_alloc_failed", "not_drop", "refill failure; the drop shows as RQDPC"),
    _r("dropped_smbus", "not_drop", "management frames for the BMC"),
    *_INTEL_PAUSE,
)

IGB = DriverMap("igb", _IGB_RULES, ("rx_missed_errors",), dev_fifo="double")
IGC = DriverMap("igc", _IGB_RULES, ("rx_missed_errors",), dev_fifo="double", fixture=False)

IXGBE = DriverMap(
    "ixgbe",
    (
        _r("rx_missed_errors", "rx_fifo", "MPC: packet buffer full"),
        _r("rx_no_dma_resources", "rx_ring", "QPRDC: queue had no descriptor"),
        _r("rx_no_buffer_count", "not_drop", "RNBC (82598): not a drop"),
        _r("rx_crc_errors", "rx_error", "CRCERRS"),
        _r("rx_long_length_errors", "rx_error", "ROC"),
        _r("rx_short_length_errors", "rx_error", "RUC"),
        _r("rx_errors", "double", "sum of the error counters"),
        _r("rx_frame_errors", "double", "netdev copy"),
        _r("rx_dropped", "double", "netdev copy; /proc/net/dev drop holds it"),
        _r("rx_over_errors", "uncertain", "netdev stat the driver does not set"),
        _r("rx_fifo_errors", "uncertain", "netdev stat the driver does not set"),
        _r("rx_csum_offload_errors", "not_drop", "delivered"),
        _r("alloc_rx_(page|buff)_failed", "not_drop", "refill failure"),
        _r("fdir_miss", "not_drop", "flow director miss: delivered by RSS"),
        _r("fdir_overflow", "not_drop", "flow director table full"),
        *_INTEL_PAUSE,
    ),
    ("rx_missed_errors",),
)

I40E = _vsi_and_port(
    "i40e",
    r"port\.{}",
    _r("rx_crc_errors", "double", "copy of port.rx_crc_errors"),
    _r("rx_length_errors", "double", "copy of port.rx_length_errors"),
    _r("rx_errors", "double", "sum of the error counters"),
    _r(r"(veb\.)?rx_unknown_protocol", "not_drop", "protocols the VSI does not take"),
    _r(r"veb\.rx_discards", "uncertain", "VEB switch discards (SR-IOV)"),
    _r(rf"port\.(rx|tx)_priority_{Q}_xo(n|ff)(_2_xoff)?", "not_drop", "PFC, not PAUSE"),
)

ICE = _vsi_and_port(
    "ice",
    r"{}\.nic",
    _r("rx_unknown_protocol", "not_drop", "protocols the VSI does not take"),
    _r("rx_(pg_)?alloc_fail", "not_drop", "refill failure; the drop shows as rx_dropped"),
    _r(rf"(rx|tx)_priority_{Q}_xo(n|ff)\.nic", "not_drop", "PFC, not PAUSE"),
)

MLX5 = DriverMap(
    "mlx5_core",
    (
        _r("rx_out_of_buffer", "rx_ring", "no receive WQE/buffer posted for the queue"),
        _r("rx_discards_phy", "rx_fifo", "no buffer on the physical port"),
        _r(f"rx_prio{Q}_discards", "double", "per-priority part of rx_discards_phy"),
        _r("rx_undersize_pkts_phy", "rx_error"),
        _r("rx_fragments_phy", "rx_error"),
        _r("rx_jabbers_phy", "rx_error"),
        _r("rx_out_of_range_len_phy", "rx_error"),
        _r(f"rx{Q}_wqe_err", "rx_error", "wrong opcode on the receive queue"),
        _r(f"rx{Q}_oversize_pkts_sw_drop", "rx_error", "larger than the MTU"),
        _r(f"rx{Q}_buff_alloc_err", "not_drop", "refill failure; the drop is rx_out_of_buffer"),
        _r(f"rx({Q})?_xdp_drop", "uncertain", "dropped by an XDP program"),
        _r("rx_if_down_packets", "uncertain", "received while the interface was down"),
        _r("rx_steer_missed_packets", "not_drop", "matched no steering rule: not for this host"),
        _r(f"rx({Q})?_cache_(full|empty|busy|waive)", "not_drop", "page cache events"),
        _r(f"rx{Q}_arfs_err", "not_drop", "aRFS filter not installed"),
        _r("rx_buffer_passed_thres_phy", "not_drop", "an occupancy event"),
        _r("rx_pause_ctrl_phy", "pause_rx"),
        _r("tx_pause_ctrl_phy", "pause_tx"),
        _r("(rx|tx)_global_pause", "double", "the same PAUSE frames"),
    ),
    ("rx_out_of_buffer",),
    dev_fifo="double",
)

MLX4 = DriverMap(
    "mlx4_en",
    (
        _r("rx_fifo_errors", "rx_fifo", "RdropOvflw: port buffer overflow"),
        _r("rx_dropped", "uncertain", "RDROP + driver drops"),
        _r("rx_crc_errors", "rx_error"),
        _r("rx_length_errors", "rx_error"),
        _r("rx_errors", "double", "sum of the error counters"),
        _r("rx_pause", "pause_rx"),
        _r("tx_pause", "pause_tx"),
    ),
    ("rx_dropped",),
    dev_fifo="double",
    fixture=False,
)

B = rf"\[{Q}\]: "  # bnxt's per-ring prefix
BNXT = DriverMap(
    "bnxt_en",
    (
        _r(f"{B}rx_discards", "rx_ring", "ring had no buffer"),
        _r("rx_total_ring_discards", "double", "sum of the rings' rx_discards"),
        _r("rx_total_oom_discards", "rx_ring", "no memory for a buffer: dropped"),
        _r("rx_total_netpoll_discards", "uncertain", "dropped on the netpoll path"),
        _r(f"({B}rx_buf_errors|rx_total_buf_errors)", "uncertain", "ring buffer errors"),
        _r(f"{B}rx_errors", "rx_error", "ring error packets"),
        _r("rx_stat_discard", "rx_fifo", "port discards"),
        _r(f"rx_discard_packets_cos{Q}", "double", "per-CoS part of rx_stat_discard"),
        _r(f"rx_discard_bytes_cos{Q}", "not_drop", "a byte count"),
        _r("rx_(fcs_err|align_err|jbr|runt|undrsz|ovrsz|mtu_err)_frames", "rx_error"),
        _r("rx_stat_err", "double", "sum of the error counters"),
        _r("rx_runt_bytes", "not_drop", "a byte count"),
        _r(f"({B}rx_l4_csum_errors|rx_total_l4_csum_errors)", "not_drop", "delivered"),
        _r("rx_pcs_symbol_err", "double", "corrupts frames counted as FCS errors"),
        _r("rx_fec_uncorrectable_blocks", "double", "corrupts frames counted as FCS errors"),
        _r(f"({B}missed_irqs|total_missed_irqs)", "not_drop", "interrupt events"),
        _r("rx_pause_frames", "pause_rx"),
        _r("tx_pause_frames", "pause_tx"),
        _r("rx_pfc_frames", "not_drop", "PFC, not PAUSE"),
    ),
    (f"{B}rx_discards", "rx_total_oom_discards", "rx_total_netpoll_discards"),
)

TG3 = DriverMap(
    "tg3",
    (
        _r("rx_discards", "rx_fifo", "frames the NIC could not store (rx_missed_errors)"),
        _r("rxbds_empty", "not_drop", "BD ring empty events"),
        _r("mbuf_lwm_thresh_hit", "not_drop", "an occupancy event"),
        _r("rx_(fcs|align)_errors", "rx_error"),
        _r("rx_frame_too_long_errors", "rx_error"),
        _r("rx_(jabbers|undersize_packets|fragments)", "rx_error"),
        _r("rx_(in|out)_length_errors", "rx_error"),
        _r("rx_errors", "double", "sum of the error counters"),
        _r("dma_(write|read)(_prio)?q_full", "not_drop", "DMA queue full events"),
        _r("tx_comp_queue_full", "not_drop", "transmit side"),
        _r("rx_xo(n|ff)_pause_rcvd", "pause_rx"),
        _r("tx_xo(n|ff)_sent", "pause_tx"),
        _r("rx_xoff_entered", "not_drop", "a state change"),
    ),
    ("rx_discards",),
)

R8169 = DriverMap(
    "r8169",
    (
        _r("rx_missed", "rx_fifo", "RxMissed: the chip's FIFO was full (16-bit, wraps)"),
        _r("rx_errors", "rx_error", "RxER: errored frames"),
        _r("align_errors", "double", "part of rx_errors"),
    ),
    ("rx_missed",),
)

VIRTIO_NET = DriverMap(
    "virtio_net",
    (
        _r(f"rx_queue_{Q}_drops", "rx_ring", "driver drops: no buffer or a bad buffer"),
        _r("rx_drops", "double", "sum of rx_queue_N_drops"),
        _r(f"rx(_queue_{Q})?_xdp_drops", "uncertain", "dropped by an XDP program"),
    ),
    (f"rx_queue_{Q}_drops",),
)

VMXNET3 = DriverMap(
    "vmxnet3",
    (
        _r("pkts rx OOB", "rx_ring", "device had no RX buffer"),
        _r("drv dropped rx total", "rx_error", "frames the device flagged as bad"),
        _r("err|fcs", "double", "parts of drv dropped rx total"),
        _r("pkts rx err", "uncertain", "device-side errors; may be the frames dropped above"),
        _r("rx buf alloc fail", "not_drop", "refill failure; the drop is pkts rx OOB"),
        _r("hdr err|giant hdr|too many frags|tso|ring full", "not_drop", "Tx Queue block"),
    ),
    ("drv dropped rx total", "pkts rx OOB"),
)

ENA = DriverMap(
    "ena",
    (
        _r(f"queue_{Q}_rx_skb_alloc_fail", "uncertain", "no memory for the skb: dropped"),
        _r(f"queue_{Q}_rx_page_alloc_fail", "not_drop", "refill failure"),
        _r(f"queue_{Q}_rx_dma_mapping_err", "not_drop", "refill failure"),
        _r(f"queue_{Q}_rx_refil_partial", "not_drop", "refill event"),
        _r(f"queue_{Q}_rx_empty_rx_ring", "not_drop", "empty ring events"),
        _r(f"queue_{Q}_rx_bad_csum", "not_drop", "delivered"),
        _r(f"queue_{Q}_rx_bad_(desc_num|req_id)", "uncertain", "device error: queue reset"),
    ),
)

# The kernel view: a driver without a map. The harness's original rule.
KERNEL = DriverMap(
    "kernel", (_r("rx_missed_errors", "rx_fifo"),), ("rx_missed_errors",), dev_fifo="rx_fifo"
)

DRIVERS: dict[str, DriverMap] = {
    m.driver: m
    for m in (
        E1000,
        E1000E,
        IGB,
        IGC,
        IXGBE,
        I40E,
        ICE,
        MLX4,
        MLX5,
        BNXT,
        TG3,
        R8169,
        VIRTIO_NET,
        VMXNET3,
        ENA,
    )
}

# `ethtool -S IFACE --all-groups` names, "<group>-<name>" (net/ethtool/stats.c).
STANDARD = (
    _r("eth-mac-FrameCheckSequenceErrors", "rx_error"),
    _r("eth-mac-AlignmentErrors", "rx_error"),
    _r("eth-mac-FrameTooLongErrors", "rx_error"),
    _r("eth-mac-InRangeLengthErrors", "rx_error"),
    _r("eth-mac-OutOfRangeLengthField", "uncertain", "length field out of range"),
    _r("eth-mac-FramesLostDueToIntMACRcvError", "rx_fifo", "lost inside the MAC"),
    _r("rmon-etherStats(UndersizePkts|Fragments|Jabbers)", "rx_error"),
    _r("rmon-etherStatsOversizePkts", "uncertain", "oversize but good: kept if MTU allows"),
    _r("eth-phy-SymbolErrorDuringCarrier", "double", "corrupts frames counted as FCS errors"),
    _r("eth-mac-.*Xmit.*|eth-mac-.*Transmitted.*|eth-mac-.*Collision.*", "not_drop", "transmit"),
    _r("eth-mac-(LateCollisions|CarrierSenseErrors|FramesAbortedDueToXSColls)", "not_drop"),
    _r("eth-mac-FramesLostDueToIntMACXmitError", "not_drop", "transmit"),
    _r("eth-mac-FramesWith(DeferredXmissions|ExcessiveDeferral)", "not_drop", "transmit"),
    _r("eth-mac-.*ReceivedOK", "not_drop", "good frames and octets"),
    _r("eth-ctrl-.*", "not_drop", "MAC control frames"),
    _r("(rx-|tx-)?rmon-etherStatsPkts.*", "not_drop", "size histogram"),
)

DROP_LIKE = re.compile(
    r"drop|discard|miss|err|overflow|overrun|over_|no_?buf|no_dma|out_of_buffer|oob|fifo|"
    r"full|fail|crc|fcs|bad|lost|jabber|undersize|oversize|fragment|runt|align|short|illegal|"
    r"exceed",
    re.IGNORECASE,
)
TX_SIDE = re.compile(r"(^|[^a-z])tx([^a-z]|$)|xmit|transmit", re.IGNORECASE)
RING_PREFIX = re.compile(r"^\[\d+\]: ")


def looks_like_rx_drop(name: str) -> bool:
    """A name that says drop/error/miss/... and not the transmit side."""
    base = RING_PREFIX.sub("", name)
    return bool(DROP_LIKE.search(base)) and not TX_SIDE.search(base)


def map_for(driver: str | None) -> DriverMap:
    return DRIVERS.get(driver or "", KERNEL)


# Drivers read through the kernel view by design, not for want of a map: software devices
# with no NIC buffer or ring of their own, whose drops are the kernel's /proc/net/dev columns.
KERNEL_VIEW_DRIVERS = ("veth",)


def mapped(driver: str | None) -> str | None:
    """The map a driver's counters are read through ("kernel" for KERNEL_VIEW_DRIVERS), or
    None when the driver has none (its NIC drops may be left unexplained)."""
    if driver in DRIVERS:
        return driver
    return KERNEL.driver if driver in KERNEL_VIEW_DRIVERS else None


@dataclass
class NicDrops:
    """What one receiving interface's counters say over a run."""

    driver: str | None
    map: str  # the map used: a driver name, or "kernel"
    points: dict[str, int] = field(default_factory=lambda: dict.fromkeys(NIC_POINTS, 0))
    counters: dict[str, list[str]] = field(default_factory=dict)  # point -> what it summed
    pause: dict[str, int] = field(default_factory=lambda: {"rx": 0, "tx": 0})
    unmapped: dict[str, int] = field(default_factory=dict)  # moved, drop-like, no rule
    uncertain: dict[str, int] = field(default_factory=dict)  # moved, may or may not be drops

    @property
    def complete(self) -> bool:
        return not self.unmapped and not self.uncertain

    def add(self, point: str, value: int, what: str) -> None:
        self.points[point] += value
        self.counters.setdefault(point, []).append(what)

    def describe(self, point: str) -> str:
        return "+".join(self.counters.get(point, []))


def _moved(counters: dict[str, Any]) -> dict[str, int]:
    return {k: v for k, v in counters.items() if isinstance(v, int) and v != 0}


def nic_drops(
    driver: str | None,
    ethtool: dict[str, Any],
    dev: dict[str, Any],
    standard: dict[str, Any] | None = None,
) -> NicDrops:
    """Deltas of one interface's `ethtool -S`, /proc/net/dev row and standard statistics ->
    drops per NIC point, PAUSE frames, and the counters that left attribution incomplete."""
    m = map_for(driver)
    out = NicDrops(driver, m.driver)
    summed: dict[tuple[str, str], int] = {}  # (kind, rule pattern) -> delta
    in_drop = 0
    for name, value in sorted(_moved(ethtool).items()):
        if value < 0:
            out.uncertain[name] = value  # went backwards: wrapped or reset
            continue
        rule = m.rule_for(name)
        if rule is None:
            if looks_like_rx_drop(name):
                out.unmapped[name] = value
            continue
        if rule.kind == "uncertain":
            out.uncertain[name] = value
        elif rule.kind in NIC_POINTS or rule.kind.startswith("pause_"):
            summed[(rule.kind, rule.pattern)] = summed.get((rule.kind, rule.pattern), 0) + value
        if any(re.fullmatch(p, name) for p in m.in_dev_drop):
            in_drop += value
    for (kind, pattern), value in summed.items():
        if kind.startswith("pause_"):
            out.pause[kind[6:]] += value
        else:
            out.add(kind, value, pattern)
    _dev_columns(m, dev, in_drop, out)
    _standard(m, standard or {}, out)
    return out


def _dev_columns(m: DriverMap, dev: dict[str, Any], in_drop: int, out: NicDrops) -> None:
    """/proc/net/dev: fifo by the map's rule; what `drop` holds beyond the mapped counters the
    driver adds into it is rx_ring (driver or core drops with no driver counter)."""
    fifo = dev.get("rx_fifo", 0) if isinstance(dev.get("rx_fifo"), int) else 0
    drop = dev.get("rx_drop", 0) if isinstance(dev.get("rx_drop"), int) else 0
    if fifo:
        if m.dev_fifo in NIC_POINTS:
            out.add(m.dev_fifo, fifo, "dev rx_fifo")
        elif m.dev_fifo == "uncertain":
            out.uncertain["/proc/net/dev fifo"] = fifo
    held = "+".join(m.in_dev_drop) if m.in_dev_drop else ""
    rest = max(0, drop - in_drop)
    if rest:
        out.add("rx_ring", rest, f"dev rx_drop-({held})" if held else "dev rx_drop")


def _standard(m: DriverMap, standard: dict[str, Any], out: NicDrops) -> None:
    """Standard statistics count a point the driver's map has no counter for."""
    covered = {r.kind for r in m.rules} | {m.dev_fifo, "rx_ring"}
    for name, value in sorted(_moved(standard).items()):
        rule = next((r for r in STANDARD if r.matches(name)), None)
        if rule is None:
            if looks_like_rx_drop(name):
                out.unmapped[name] = value
        elif rule.kind == "uncertain":
            out.uncertain[name] = value
        elif rule.kind in NIC_POINTS and rule.kind not in covered and value > 0:
            out.add(rule.kind, value, name)
