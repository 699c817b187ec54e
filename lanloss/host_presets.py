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
receiving thread: 1 us per interrupt and per frame (orders of magnitude); per message read,
the modern preset's C read (1.27 us) times 1.89, what the thesis' receiving thread (a
DatagramSocket.receive(), each message copied into the DataHandler's queue) cost against a
C reader's recvfrom() on one machine (testbed/java_costs/measure.py): 2.40 us; per byte,
three copies (the kernel's, Java's into the packet, the queued copy) at 6 GB/s: 0.5 ns.
Its collector (``Collector``): the program stops 1.8 ms each 32 MiB it reads (the thesis'
threads under Java 8's collector and heap for an 8 GiB PC, measured:
testbed/java_costs/gc_pauses.py). Fitted to nothing (the thesis' numbers are withheld).

``x3440-2010``: seed 004's host (Xeon X3440, 4 cores, an 82574L with one queue on PCIe 1.1
x1, e1000e, 20 KiB receive buffer, ring 256, ITR 20000, rmem_default 126976 of 2.6.32
x86-64): the kernel's cost per frame (0.5805 us), the cost per read (0.4402 us) and per byte
(4.897 ns) fitted to 3 of the seed's 9 receive rates (Model 1 with 1 and 2 processes, Model
2 with 1); readers on every core, the first with the interrupt (``reader_cores all``).
Its CPU family (``SocketLock``, ``Smt``; constants from the era's documentation, fitted to
nothing): Linux 2.6.32's socket locks for threads sharing one socket (the queue spinlock
with a 28 ns cache-line transfer, lock_sock around the free, every sleeping thread woken by
a datagram) and hyper-threading (8 logical CPUs, a sibling at 0.65 of a core while the
other runs). Every other preset has neither (the model's simpler defaults).

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

``qemu-e1000``: the vm testbed's receiving guest (QEMU's emulated 82545EM, Linux 6.1's
e1000, one vCPU at -icount shift 5): its costs are guest instructions converted to times by
the shift, its interrupt floor (at most 7,813/s even with ITR 0) and FIFO (the tap's 1000
frames) applied to each run by ``qemu_e1000_rules``, and its clock under -icount align
(``GuestClock``: frames reach it in bursts); see the constants above its entry.

``wakeup_cost`` (a context switch: 1.5-5 us by era) only matters for readers that share a
socket, except where ``Preset.wake_from_sleep`` charges every wake-up (qemu-e1000, whose
count was measured in the guest); ``read_byte_cost`` 0 means the preset's read cost was set
at one payload size and holds the copy.
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
    "read_call_cost",
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
    # An interrupt cause (a frame into the ring) that comes while the interrupt is masked
    # stays in ICR and raises the interrupt at the driver's unmask, even when the poll took
    # the frame meanwhile (HostRxNic CauseLatch). QEMU's e1000 does (hw/net/e1000.c:
    # set_ims -> set_ics with ICR's causes); the era presets are judged without it.
    cause_latch: bool = False


@dataclass(frozen=True)
class SocketLock:
    """How readers sharing one socket take it (HostSocket QueueSpinlock). Off (the default):
    one recvmsg at a time under a sleeping lock, wakeup_cost at each handoff. On: Linux's
    sk_receive_queue.lock, a spinlock with interrupts off around the dequeue only; each
    taking core pays ``line_transfer`` when the lock's cache line was last on another core,
    then holds it ``hold`` seconds; ``wake_all``: a datagram wakes every sleeping reader.
    ``owner``: Linux 2.6.25-2.6.32's lock_sock around skb_free_datagram after the copy, that
    many seconds of read_cost under the socket's owner lock (a sleeping lock; the softirq
    parks datagrams in the socket's backlog meanwhile); 0 = none (2.6.33 and later)."""

    spinlock: bool = False
    line_transfer: float = 0.0  # s per move of the lock's line between cores
    hold: float = 0.0  # s the lock is held once its line is here
    wake_all: bool = False  # threads polling one descriptor without EPOLLEXCLUSIVE
    owner: float = 0.0  # s of read_cost under lock_sock after the copy


@dataclass(frozen=True)
class Smt:
    """Simultaneous multithreading (HostCpu SmtSiblings, SmtShare): ``threads`` logical CPUs
    per core (the host has ``cores`` x threads of them; i and i + n/2 are siblings), each at
    ``share`` of the core's speed while its sibling is busy. 1 thread: no SMT."""

    threads: int = 1
    share: float = 1.0


@dataclass(frozen=True)
class Collector:
    """A garbage-collected receiving program (HostReader and HostTcpReader CollectEvery,
    CollectPause): once its reads have allocated ``every`` bytes (a copy of each message's
    payload) since its last collection, it stops for ``pause`` seconds and reads nothing.
    ``every`` 0: a program without a collector (C, every preset but java-2015)."""

    every: int = 0
    pause: float = 0.0


@dataclass(frozen=True)
class GuestClock:
    """A QEMU guest's clock under -icount align (the model's GuestClock): a busy guest runs
    ``speedup`` times faster than its clock's instruction rate until its clock leads real
    time by ``advance`` seconds, then QEMU's vCPU sleeps the lead off; frames from the wire
    reach the guest on its clock (in bursts). Each interrupt costs the emulator
    ``interrupt_stall`` seconds of real time in which the guest's clock stands still.
    ``advance`` 0: a real host's clock."""

    advance: float = 0.0
    speedup: float = 1.0
    interrupt_stall: float = 0.0


@dataclass(frozen=True)
class Preset:
    summary: str  # what it is, in a few words (the `host` option's help)
    values: dict[str, Any]  # every HOST_OPTIONS value, canonical (seconds, bytes, counts)
    nic: Nic
    lock: SocketLock = SocketLock()
    smt: Smt = Smt()
    clock: GuestClock = GuestClock()
    collector: Collector = Collector()
    # Linux 2.4 to 4.13 (tcp_low_latency 0): a TCP segment that arrives while the reader is
    # in recv() is copied straight into its buffer (the prequeue), so the ACK advertises
    # the window after the copy (HostTcpReader DirectCopy). Removed in 4.14.
    tcp_prequeue: bool = False
    # The kernel whose skb truesize the host is charged (lanloss-linux-rx.h): "2.6", a copy
    # at copybreak that fits the frame and a 2 KiB receive buffer; "6.1", a copy from a
    # 1 KiB allocation (1280 bytes) and e1000's 1600-byte fragment (2176) at MTU 1500. And
    # how its UDP socket releases a read datagram's charge: 2.6 after the copy; 6.1 at the
    # dequeue, held back in quarters of sk_rcvbuf (HostSocket ForwardDeficit).
    skb: str = "2.6"
    # A reader asleep in recvmsg pays wakeup_cost when a datagram wakes it (HostReader
    # WakeFromSleep: the context switch), shared socket or not. Off, only a shared socket's
    # handoffs pay it (and every wake-up under a SocketLock spinlock); the era presets'
    # read costs were set without it.
    wake_from_sleep: bool = False

    def __post_init__(self) -> None:
        if self.skb not in ("2.6", "6.1"):
            raise ValueError(f"Preset skb: {self.skb!r} is not 2.6 or 6.1")


# The e1000-2008 PC (seed 000's era), which seed 000's client shares but for its read cost.
_E1000_2008: dict[str, Any] = {
    "cores": 1,
    "irq_cost": 8e-6,
    "packet_cost": 4e-6,
    "read_cost": 5e-6,
    "read_byte_cost": 0.0,
    "read_call_cost": 0.0,
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


# The modern igb-class PC, which seed 003's Java PCs share but for their costs and ring.
_MODERN: dict[str, Any] = {
    "cores": 4,
    "irq_cost": 1e-6,
    "packet_cost": 0.6e-6,
    "read_cost": 1.27e-6,
    "read_byte_cost": 0.0,
    "read_call_cost": 0.0,
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
}


# Seed 003's Java receiving thread against a C reader, busy cost per message on one machine
# (testbed/java_costs/measure.py, two runs on 7 December 2026, OpenJDK 17 with the Parallel
# collector, 1400-byte datagrams on loopback, the thread reading a full buffer; the median
# of the ten repetitions of each): the thesis' threads, written from its description (a
# DatagramSocket.receive() per datagram, a copy of each message put in the DataHandler's
# queue of 10,000), 1.903 us; a C recvfrom() loop, 1.005 us (each run's own ratio: 1.84
# and 2.00). A ratio of two code paths on one machine carries to another; the costs do not.
JAVA_THESIS_READ_RATIO = 1.89
# One copy of a byte between CPU and memory at the ~6 GB/s of "a high-end modern PC" (E. R.
# Harold, Java Network Programming, 4th ed., O'Reilly 2013, ch. 11), in seconds.
JAVA_COPY_BYTE_COST = 1 / 6e9
# Seed 003's Java receiver stops for its collector (testbed/java_costs/gc_pauses.py: the
# thesis' threads, ThesisPath copy, with the Parallel collector and the heap Java 8's
# ergonomics give an 8 GiB PC, -Xms128m -Xmx2048m; 40,000- and 65,000-byte datagrams on
# loopback; two runs of 5 repetitions each on 7 December 2026, testbed/java_costs/runs/
# gc-pauses-*.json). Each run's first young collection came when the young generation
# held 32 MiB (the initial eden of that heap), and the median pause over all 216 young
# collections was 1.82 ms (quartiles 0.97 and 3.81). A program allocating one copy of each
# message's payload stops that long each 32 MiB it reads. At seed 003's own rate (paced, 112
# MB/s: testbed/java_costs/gc_loss.py, runs/gc-loss-*-first-second-*.json) a fresh JVM's
# first second collected 3 times, 48 pauses of median 1.85 ms: this is a program started
# for its run; one that has run for 3 s pauses 0.30 ms (runs/gc-loss-*-after-3s-*.json).
# Fitted to nothing.
JAVA_COLLECTOR = Collector(every=32 * 2**20, pause=1.8e-3)


# QEMU's emulated Intel 82545EM (-device e1000-82545em) driven by Linux 6.1's e1000 in a
# one-vCPU guest whose instruction rate is fixed (QEMU -icount shift=N: 10^9 / 2^N
# instructions per second of the guest's clock; testbed/vm.py, --vm-icount). Its CPU costs
# are counts of guest instructions, so one calibration serves every shift; the model takes
# times, so they are converted here by the shift (qemu_e1000_values). irq_cost,
# packet_cost, read_byte_cost, read_call_cost and wakeup_cost are measured in the guest by
# its own clock and are not fitted; read_cost is measured too, but ``lanloss calibrate
# --table`` fits it to a third of a vm study (analysis/calibrate.py): the reader's work on
# a datagram in a saturated guest (its socket full, its batches of 64) is not what it is
# at the low rates where it was measured.
QEMU_E1000_SHIFT = 5  # the shift of the preset's times (the vm-e1000 study's)
# A receive call of lanloss-recv, the study's reader, beyond the reads of its datagrams
# (read_call_cost): recvmmsg's entry and exit and the reader's clock reads around it
# (one of them, CLOCK_THREAD_CPUTIME_ID, a system call). From the guest's idle time around
# lanloss-recv itself (testbed/vm_costs/measure_recv.sh, fit_recv.py; 2026-12-06, shift 5,
# a standing guest, rx-usecs 400, 16 runs of 10 s of 64-byte datagrams at 500-3,000/s,
# paced and in bursts of 8 and 16, --batch 1 and 64, nothing dropped): busy = datagrams x
# 5,221 + calls x 1,458 + the interrupt's, byte's and wake-up's counts below + 0.81 s per
# run, 90 % interval 1,089-1,795 per call; the runs that differ only in their calls (the
# same bursts, interrupts and wake-ups; --batch 1 against 64) give 1,452-1,599 directly
# (docs/testbed-vm.md §19). Not fitted to any study point.
QEMU_E1000_READ_CALL = 1460.0
QEMU_E1000_INSTRUCTIONS: dict[str, float] = {
    # An interrupt and a frame, from the guest's idle time (/proc/stat, exact under NOHZ)
    # around lanloss-recv stopped (SIGSTOP) on a full 4 KiB socket, so that every frame goes
    # through e1000_clean_rx_irq, GRO, IP and UDP to the socket and is dropped there, unread,
    # and nothing wakes (testbed/vm_costs/measure_recv.sh, BATCH stop; 2026-12-06, shift 5, a
    # standing guest, rx-usecs 400; 9 runs of 10 s at 1,000-4,500 frames/s of 64 bytes, paced
    # and in bursts of 8, 0.13-0.95 interrupts per frame, and one of 1,472 bytes): busy =
    # frames x 3,319 + interrupts x 1,980 + frame payload bytes x 0.336 + 0.80 s per run,
    # residuals within 0.8 %, 90 % bootstrap intervals frame 3,288-3,351 and interrupt
    # 1,878-2,025; with the byte solved too, 0.305 (docs/testbed-vm.md §20). The byte: from
    # a bare C receiver (testbed/vm_costs/measure.sh, §16; 17 runs, 64-1,472 bytes), 0.46 per
    # payload byte, of which 0.124 is the reader's copy (its own CPU time: rep movsq, one
    # instruction per 8 bytes under TCG) and the rest GRO's checksum in the softirq (QEMU's
    # e1000 has rx-checksumming off), as the stopped reader's frames show; the model charges
    # all of it in the reader. (§16's interrupt, 2,750, was solved with the wake-up fixed at
    # the pipe's 4,300, and the two trade in runs where a wake-up follows most interrupts;
    # with nothing to wake, the interrupt is 1,980.)
    "irq_cost": 1980.0,
    "packet_cost": 3319.0,
    # The reader's datagram beyond its call, with the frame, interrupt and run above fixed:
    # 7 runs of lanloss-recv reading 500-3,000/s, paced and in bursts, --batch 1 and 64,
    # nothing dropped (the same guest and evening), busy less those = reads x 1,817 +
    # calls x 1,453 + wake-ups x 6,848, residuals within 2.5 %; 90 % intervals read
    # 1,698-3,648, call -599-1,702 (the call's own measure, §19, below), wake-up
    # 5,897-9,080 (testbed/vm_costs/fit_recv.py; §20). The start of ``calibrate --table``'s
    # fit.
    "read_cost": 1817.0,
    "read_byte_cost": 0.46,
    "read_call_cost": QEMU_E1000_READ_CALL,
    # A reader woken from its sleep in recvmsg (Preset.wake_from_sleep), from the runs
    # above: 6,848 instructions. The guest's one vCPU is idle while its reader sleeps, so a
    # wake-up is the softirq's wake, the idle loop's exit (the tick restarted), the two
    # context switches and the idle loop's entry again; a pipe ping-pong between two
    # processes, which never lets the vCPU idle, measured 4,300 for the wake and the
    # switches alone (round trip 428.5-429.2 us, the two syscalls 76.7-77.7 us of the
    # guest's clock at shift 5; docs/testbed-vm.md §14).
    "wakeup_cost": 6848.0,
}
# QEMU's e1000 model (hw/net/e1000.c, set_interrupt_cause) arms its mitigation timer after
# every interrupt it raises for max(the ITR register, 500) units of 256 ns of the guest's
# clock: "a maximum observable interrupt rate of 7813 interrupts/sec" even with ITR 0 (the
# driver's rx-usecs 0). The model's ITR interval is floor(1e9 / (256 itr)) units, so itr
# 7812 is the largest rate that gives 500.
QEMU_E1000_MIN_ITR_UNITS = 500
QEMU_E1000_MAX_ITR = 7812
# QEMU -icount align (accel/tcg/cpu-exec.c, align_clocks): the vCPU sleeps once the guest's
# clock leads real time by more than VM_CLOCK_ADVANCE, 3 ms.
QEMU_ALIGN_ADVANCE_S = 3e-3
# How fast QEMU runs the guest, from the scheduler's record of its vCPU thread (perf:
# sched_switch and clock_nanosleep of the thread QEMU names "ALL CPUs/TCG"; 2026-12-05,
# shift 5, all of QEMU's threads on CPU 1, the harness's placement until 2026-12-06;
# docs/testbed-vm.md §10). Measured again with the vCPU on a core of its own, the
# placement since, from /proc's CPU time of that thread (2026-12-06, §12; perf's tracing
# perturbs that placement): a busy loop ran it 8.1 % of real time (1 / 0.081 = 12.3), an
# hour later 11.4-12.3 % (8.1-8.8; kernel code 4.8-8.1), and at 4.5k/s the interrupts'
# stall came to about 165 us. The values below are kept: this machine's speed differs
# between its hours, so a value from one is no measurement of another's runs (the study's
# verdict moves with it: §12). The guest's clock
# advances only while that thread runs guest code; it stands still while the thread
# sleeps in align, waits for a CPU, or emulates a device register access.
# - A guest that never halts (a shell loop in the guest, no traffic, 3.8 s): the thread ran
#   9.20 % of real time and slept in align most of the rest, so the guest's code runs
#   1 / 0.0920 = 10.87 times faster than its clock.
# - 64-byte datagrams at 4.5k/s (a rate no study judges; 2.7 s of traffic, the guest idle
#   1.4 % of it): the thread ran 21.75 % of real time while taking 1,030 interrupts/s, so
#   each interrupt cost (0.2175 - 0.986 x 0.0920) / 1030 = 123 us of real time in which the
#   guest's clock stood still (the interrupt's delivery and the driver's register accesses:
#   ICR, IMC, RDT, IMS). Checked at 1.95k/s (no study rate either, the guest idle 26 %):
#   the thread ran 22.9 % of real time, 21.2 % predicted by these two numbers.
# (The share of a core the thread used over a whole point, env.vm.icount.vcpu_share, is no
# measure of either: its window held the guest's clock probe, python3 starting in the
# guest, whose code is new to QEMU's translator.) Measured at shift 5 only: a run at
# another shift is simulated with the same speedup and stall (the preset's times are
# converted by the shift; these are not).
# Every icount point now measures its emulator over its traffic (env.vm.icount.window,
# docs/testbed-vm.md §22) and `lanloss calibrate --table` solves a study's windows (the
# options guest_emulation_share and guest_interrupt_stall); these are the defaults.
QEMU_BUSY_SPEEDUP = 10.87
QEMU_INTERRUPT_STALL_S = 123e-6
# A full RX ring makes QEMU stop reading the tap; the frames wait in the tap's queue (its
# tx_queue_len, 1000 frames here) and are dropped beyond it: the emulated NIC's "FIFO".
QEMU_E1000_TAP_FRAMES = 1000


def qemu_e1000_values(shift: int, instructions: dict[str, float]) -> dict[str, float]:
    """Instruction counts -> the model's times (seconds) at the guest's shift."""
    return {k: float(v) * 2**shift / 1e9 for k, v in instructions.items()}


def qemu_e1000_rules(params: dict[str, Any], explicit: set[str]) -> None:
    """What QEMU's e1000 model fixes beyond a preset's constants, applied to a resolved
    run: its interrupt floor (an itr of 0, or one faster than the floor, is the floor) and
    its FIFO of QEMU_E1000_TAP_FRAMES frames of the run's datagrams (MAC header to FCS),
    unless rx_fifo was given."""
    itr = int(params.get("itr") or 0)
    if itr == 0 or itr > QEMU_E1000_MAX_ITR:
        params["itr"] = QEMU_E1000_MAX_ITR
    if "rx_fifo" not in explicit:
        mtu, payload = int(params.get("mtu") or 1500), int(params.get("payload") or 0)
        per_frame = mtu - 20 - 8  # the UDP payload bytes of a full first fragment
        frames, rest = divmod(payload, per_frame) if payload > per_frame else (0, payload)
        last = max(rest + 8 + 20 + 14, 60) + 4
        size = frames * (mtu + 14 + 4) + last  # the datagram's frames, MAC header to FCS
        params["rx_fifo"] = QEMU_E1000_TAP_FRAMES * size // (frames + 1)


# The one table of presets (see the module docstring and models/doc/host-model.rst for
# sources). The scenario program's copy is generated from it at build time
# (``python -m lanloss.host_values --cxx-header``: build/.../scenario-presets.h), so adding a
# preset or changing a value is an edit here only.
TABLE: dict[str, Preset] = {
    "e1000-2008": Preset(
        "seed 000's 2008 PC, e1000, one core",
        _E1000_2008,
        _E1000_NIC,
        tcp_prequeue=True,  # Linux 2.6
    ),
    "modern": Preset(
        "igb-class, 4 cores",
        _MODERN,
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
            "read_call_cost": 0.0,
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
        tcp_prequeue=True,  # e1000-2008's Linux 2.6
    ),
    "qemu-e1000": Preset(
        f"a QEMU guest at -icount shift {QEMU_E1000_SHIFT}: emulated 82545EM, Linux 6.1, one vCPU",
        {
            "cores": 1,
            **qemu_e1000_values(QEMU_E1000_SHIFT, QEMU_E1000_INSTRUCTIONS),
            "reader_cores": "others",
            "truesize": 0,  # e1000's copybreak rule (copybreak 256 in 6.1 as in 2.6), skb 6.1
            "rx_fifo": QEMU_E1000_TAP_FRAMES * 110,  # 64-byte datagrams; qemu_e1000_rules
            "rx_ring": 256,  # e1000 RxDescriptors default (E1000_DEFAULT_RXD)
            "itr": QEMU_E1000_MAX_ITR,  # the emulation's floor; the driver's rx-usecs 0
            "backlog": 1000,  # net.core.netdev_max_backlog of 6.1
            "rcvbuf": 106496,  # rmem_default 212992 of 6.1 x86-64, halved
            "stall_period": 0.0,
            "stall_length": 0.0,
            "rps": "off",
        },
        # QEMU copies a frame from the tap into guest memory when it reads it (no bus to
        # wait for: the DMA rate is the netns preset's "beyond reach"); e1000's driver share
        # and pause constants (QEMU's model sends and honours no PAUSE); no DROP_EN.
        # Its ICR keeps causes that come while the interrupt is masked (cause_latch).
        Nic(400_000_000_000, 0.5, 0x0680, 0x0340, False, cause_latch=True),
        clock=GuestClock(QEMU_ALIGN_ADVANCE_S, QEMU_BUSY_SPEEDUP, QEMU_INTERRUPT_STALL_S),
        skb="6.1",  # the guest's Debian 6.1.0, whose truesizes were measured in it
        wake_from_sleep=True,  # a context switch per wake-up, measured in the guest
    ),
    "athlon-2003": Preset(
        "seed 001's 2003 lab PC: Athlon XP, 100 Mbit/s NIC, one core; read cost fitted",
        {
            "cores": 1,
            "irq_cost": 5e-6,
            "packet_cost": 3e-6,
            "read_cost": 2.371e-6,
            "read_byte_cost": 1e-9,
            "read_call_cost": 0.0,
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
        tcp_prequeue=True,  # Linux 2.4.21 (the seed's server)
    ),
    "xeon-2002": Preset(
        "seed 002's 2002 servers: e1000 on PCI-X, the TCP receive path on one CPU",
        {
            "cores": 1,
            "irq_cost": 5e-6,
            "packet_cost": 10e-6,
            "read_cost": 5e-6,
            "read_byte_cost": 1.5e-9,
            "read_call_cost": 0.0,
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
        # The summary names no OS: the netperf servers taken as Linux 2.4, as seed 001's.
        tcp_prequeue=True,
    ),
    "java-2015": Preset(
        "seed 003's 2015 PCs with a Java receiver: 4 cores, igb-class NIC",
        # the modern PC (an igb-class NIC, the same kernel), but for its costs and its ring
        {
            **_MODERN,
            "packet_cost": 1e-6,
            "read_cost": _MODERN["read_cost"] * JAVA_THESIS_READ_RATIO,
            "read_byte_cost": 3 * JAVA_COPY_BYTE_COST,
            "read_call_cost": 0.0,
            "wakeup_cost": 2e-6,
            "rx_ring": 256,
        },
        # an igb/e1000e-class NIC on PCIe (the modern preset's family)
        Nic(16_000_000_000, 0.4, 0xFFFF, 0x7FFF, True),
        tcp_prequeue=True,  # Linux of 2015 (3.x-4.x: before 4.14)
        collector=JAVA_COLLECTOR,  # its receiving thread's collector (measured above)
    ),
    "x3440-2010": Preset(
        "seed 004's Xeon X3440, 82574L, 4 cores",
        {
            "cores": 4,
            "irq_cost": 1e-6,
            "packet_cost": 0.5805e-6,
            "read_cost": 0.4402e-6,
            "read_byte_cost": 4.897e-9,
            "read_call_cost": 0.0,
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
        # Linux 2.6.32's queue spinlock on a Nehalem die (X3440: 4 cores, 8 MiB inclusive
        # L3): a line modified in another core's cache reaches a core in about 28 ns (Molka
        # et al., PACT 2009, Xeon X5570, the same core and L3); the hold, a locked
        # instruction pair and __skb_unlink, ~50 cycles at 2.53 GHz: 20 ns (an order of
        # magnitude). The seed's receivers are asynchronous (epoll, 2010: no
        # EPOLLEXCLUSIVE) and "all threads are activated" by a datagram: wake_all. 2.6.32's
        # udp_recvmsg frees under lock_sock: three lines the softirq wrote (the socket
        # lock's, sk_rmem_alloc's, the skb head's) at 28 ns and four locked instructions
        # (~20 cycles each): 0.116 us of the read (an order of magnitude).
        SocketLock(spinlock=True, line_transfer=28e-9, hold=20e-9, wake_all=True, owner=116e-9),
        # Hyper-threading: 8 logical CPUs on the 4 cores (Intel X3440 specification); a
        # pair does up to 30 % more than one thread (Marr et al., "Hyper-Threading
        # Technology Architecture and Microarchitecture", Intel Technology Journal 6(1),
        # 2002): each sibling at 0.65 of the core while both run.
        Smt(threads=2, share=0.65),
        tcp_prequeue=True,  # Linux 2.6.32
    ),
}


def summaries() -> str:
    """The presets in words, for the `host` option's help."""
    return ", ".join(f"{name} ({p.summary})" for name, p in TABLE.items())
