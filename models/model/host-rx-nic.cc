// SPDX-License-Identifier: GPL-2.0-only
/*
 * HostRxNic: the receive FIFO and its DMA into the RX ring, the FIFO's PAUSE watermarks,
 * interrupts with their moderation (ITR), and the driver's side of the ring (descriptor
 * refill, skb truesize).
 */
#include "host-rx-nic.h"

#include "ethernet-net-device.h"
#include "ethernet-wire.h"
#include "host-cpu.h"
#include "lanloss-linux-rx.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HostRxNic");
NS_OBJECT_ENSURE_REGISTERED(HostRxNic);

// The receive FIFO, its DMA into the RX ring and the ring's descriptors.
void
HostRxNic::AddRingAttributes(TypeId& tid)
{
    tid
        .AddAttribute("RxFifoBytes",
                      "NIC receive FIFO (packet buffer, PBA) in bytes: 48 KiB on the "
                      "8254x e1000 (E1000_PBA_48K).",
                      UintegerValue(49152),
                      MakeUintegerAccessor(&HostRxNic::m_fifoSize),
                      MakeUintegerChecker<uint32_t>(64))
        .AddAttribute("RxRingSize",
                      "RX descriptors (ethtool -G rx; e1000 default 256, max 4096); the "
                      "ring holds one frame less.",
                      UintegerValue(256),
                      MakeUintegerAccessor(&HostRxNic::m_ringSize),
                      MakeUintegerChecker<uint32_t>(2, 65536))
        .AddAttribute("DmaRate",
                      "Rate (bit/s) at which the NIC moves a frame from its FIFO to host "
                      "memory; 0 = at once. 1064 Mbit/s = 32-bit 33 MHz PCI (133 MB/s).",
                      DataRateValue(DataRate("1064Mbps")),
                      MakeDataRateAccessor(&HostRxNic::m_dmaRate),
                      MakeDataRateChecker())
        .AddAttribute("RxBufferWrite",
                      "Cleaned descriptors the driver collects before giving them back to "
                      "the NIC (E1000_RX_BUFFER_WRITE = 16); all are given back at the end "
                      "of each poll.",
                      UintegerValue(16),
                      MakeUintegerAccessor(&HostRxNic::m_rxBufferWrite),
                      MakeUintegerChecker<uint32_t>(1))
        .AddAttribute("DropWhenNoDescriptor",
                      "Drop a frame at once when no descriptor is free (igb/ixgbe "
                      "SRRCTL.DROP_EN: rx_ring) instead of holding it in the FIFO "
                      "(e1000/e1000e: the FIFO fills, rx_fifo).",
                      BooleanValue(false),
                      MakeBooleanAccessor(&HostRxNic::m_dropNoDescriptor),
                      MakeBooleanChecker());
}

// Where an interrupt's GuestClock stall falls: QEMU emulates the interrupt's delivery and
// each of the e1000 driver's register accesses (Linux 6.1) while the guest's clock stands
// still, taken here as equal parts of InterruptStall. Before the handler's ICR read clears
// the causes: the delivery and the read itself. Before the poll looks at the ring: the IMC
// write, the STATUS read that flushes it, the APIC's EOI. At the poll's end, before the
// interrupt is unmasked: the RDT write (e1000_alloc_rx_buffers), the IMS write, the
// STATUS read. Frames let in by the second part latch a cause that the poll then takes.
static constexpr double STALL_TO_ICR_READ = 2.0 / 8;
static constexpr double STALL_TO_POLL = 3.0 / 8;
static constexpr double STALL_AT_ENABLE = 3.0 / 8;

// Interrupt moderation and the CPU cost of one interrupt.
void
HostRxNic::AddInterruptAttributes(TypeId& tid)
{
    tid
        .AddAttribute("InterruptThrottleRate",
                      "Maximum interrupts per second (e1000 InterruptThrottleRate, "
                      "register granularity 256 ns); 0 = no moderation. The dynamic "
                      "modes 1 and 3 are not modelled.",
                      UintegerValue(2500),
                      MakeUintegerAccessor(&HostRxNic::m_itr),
                      MakeUintegerChecker<uint32_t>(0, 3906250))
        .AddAttribute("IrqCost",
                      "CPU time (s) of one NIC hard interrupt: entry and exit, the "
                      "e1000_intr ICR read and IMC write over the bus, napi_schedule.",
                      TimeValue(MicroSeconds(8)),
                      MakeTimeAccessor(&HostRxNic::m_irqCost),
                      MakeTimeChecker(Seconds(0)))
        .AddAttribute("CauseLatch",
                      "A frame written to the ring while the interrupt is masked keeps its "
                      "cause pending (ICR) until the next interrupt, which unmasking raises "
                      "even if the poll took the frame (QEMU's e1000: set_ims -> set_ics "
                      "with ICR's causes). Off: an interrupt needs frames in the ring.",
                      BooleanValue(false),
                      MakeBooleanAccessor(&HostRxNic::m_causeLatch),
                      MakeBooleanChecker());
}

// A QEMU guest's clock under -icount align (GuestClock), which lets the wire's frames in.
void
HostRxNic::AddGuestClockAttributes(TypeId& tid)
{
    tid.AddAttribute("GuestClockAdvance",
                     "GuestClock Advance: the lead at which a QEMU guest's vCPU sleeps "
                     "(QEMU VM_CLOCK_ADVANCE = 3 ms); 0: a real host, frames go straight in.",
                     TimeValue(Seconds(0)),
                     MakeTimeAccessor(&HostRxNic::m_clockAdvance),
                     MakeTimeChecker(Seconds(0)))
        .AddAttribute("GuestClockSpeedup",
                      "GuestClock Speedup: QEMU's free emulation speed over the guest "
                      "clock's instruction rate (above 1).",
                      DoubleValue(12.0),
                      MakeDoubleAccessor(&HostRxNic::m_clockSpeedup),
                      MakeDoubleChecker<double>(1.0))
        .AddAttribute("GuestClockInterruptStall",
                      "GuestClock InterruptStall: real time QEMU spends on each interrupt "
                      "while the guest's clock stands still.",
                      TimeValue(Seconds(0)),
                      MakeTimeAccessor(&HostRxNic::m_clockInterruptStall),
                      MakeTimeChecker(Seconds(0)));
}

// IEEE 802.3x PAUSE sent from the FIFO's watermarks.
void
HostRxNic::AddPauseAttributes(TypeId& tid)
{
    tid
        .AddAttribute("FlowControl",
                      "Send IEEE 802.3x PAUSE when the FIFO reaches its high-water mark.",
                      BooleanValue(false),
                      MakeBooleanAccessor(&HostRxNic::m_flowControl),
                      MakeBooleanChecker())
        .AddAttribute("PauseTime",
                      "pause_time of the XOFF frames, in quanta of 512 bit times "
                      "(E1000_FC_PAUSE_TIME = 0x0680).",
                      UintegerValue(0x0680),
                      MakeUintegerAccessor(&HostRxNic::m_pauseTime),
                      MakeUintegerChecker<uint16_t>(1))
        .AddAttribute("PauseRefreshQuanta",
                      "Interval, in quanta of 512 bit times at the link rate, at which "
                      "XOFF is sent again while the FIFO stays at or above the low-water "
                      "mark (half PauseTime; PCH e1000e: refresh 0x0400 for pause 0x0650).",
                      UintegerValue(0x0340),
                      MakeUintegerAccessor(&HostRxNic::m_pauseRefreshQuanta),
                      MakeUintegerChecker<uint16_t>(1))
        .AddAttribute("SendXon",
                      "Send XON (pause_time 0) when the FIFO falls below the low-water "
                      "mark (e1000 fc.send_xon = 1).",
                      BooleanValue(true),
                      MakeBooleanAccessor(&HostRxNic::m_sendXon),
                      MakeBooleanChecker());
}

// What a received frame is charged to a socket (skb truesize).
void
HostRxNic::AddTruesizeAttributes(TypeId& tid)
{
    tid
        .AddAttribute("Truesize",
                      "Bytes charged to a socket per received frame (skb->truesize); "
                      "0 = from the frame length by the e1000 copybreak rule.",
                      UintegerValue(0),
                      MakeUintegerAccessor(&HostRxNic::m_truesize),
                      MakeUintegerChecker<uint32_t>())
        .AddAttribute("CopiedTruesize",
                      "truesize in bytes of a frame copied at copybreak; 0 = the 2.6 rule, "
                      "SKB_TRUESIZE(SKB_DATA_ALIGN(len + NET_SKB_PAD)) (Linux 6.1: "
                      "LANLOSS_COPIED_TRUESIZE_6_1 whatever the length).",
                      UintegerValue(0),
                      MakeUintegerAccessor(&HostRxNic::m_copiedTruesize),
                      MakeUintegerChecker<uint32_t>())
        .AddAttribute("CopyBreak",
                      "Frames of at most this many bytes (MAC header on, no FCS) are "
                      "copied into a fitting skb (e1000 copybreak).",
                      UintegerValue(LANLOSS_COPYBREAK),
                      MakeUintegerAccessor(&HostRxNic::m_copyBreak),
                      MakeUintegerChecker<uint32_t>())
        .AddAttribute("RxBufferTruesize",
                      "truesize in bytes of a frame kept in its receive buffer (e1000 "
                      "2 KiB buffer: SKB_TRUESIZE(2048 - 320)).",
                      UintegerValue(LANLOSS_RX_BUFFER_TRUESIZE),
                      MakeUintegerAccessor(&HostRxNic::m_rxBufferTruesize),
                      MakeUintegerChecker<uint32_t>(1));
}

// The drops at the FIFO and the ring, and the interrupts.
void
HostRxNic::AddTraceSources(TypeId& tid)
{
    tid
        .AddTraceSource("RxFifoDrop",
                        "A frame found no room in the NIC FIFO (rx_missed_errors): rx_fifo.",
                        MakeTraceSourceAccessor(&HostRxNic::m_rxFifoDropTrace),
                        "ns3::Packet::TracedCallback")
        .AddTraceSource("RxRingDrop",
                        "A frame found no free descriptor and DropWhenNoDescriptor is "
                        "set: rx_ring.",
                        MakeTraceSourceAccessor(&HostRxNic::m_rxRingDropTrace),
                        "ns3::Packet::TracedCallback")
        .AddTraceSource("Interrupt",
                        "The NIC raised an interrupt (argument: frames in the ring).",
                        MakeTraceSourceAccessor(&HostRxNic::m_interruptTrace),
                        "ns3::HostRxNic::InterruptTracedCallback");
}

TypeId
HostRxNic::GetTypeId()
{
    static TypeId tid = [] {
        TypeId t = TypeId("ns3::HostRxNic")
                       .SetParent<Object>()
                       .SetGroupName("Lanloss")
                       .AddConstructor<HostRxNic>();
        AddRingAttributes(t);
        AddInterruptAttributes(t);
        AddPauseAttributes(t);
        AddTruesizeAttributes(t);
        AddGuestClockAttributes(t);
        AddTraceSources(t);
        return t;
    }();
    return tid;
}

HostRxNic::HostRxNic()
    : m_fifoSize(49152),
      m_ringSize(256),
      m_dmaRate(DataRate("1064Mbps")),
      m_rxBufferWrite(16),
      m_dropNoDescriptor(false),
      m_itr(2500),
      m_irqCost(MicroSeconds(8)),
      m_causeLatch(false),
      m_flowControl(false),
      m_pauseTime(0x0680),
      m_pauseRefreshQuanta(0x0340),
      m_sendXon(true),
      m_truesize(0),
      m_copiedTruesize(0),
      m_copyBreak(LANLOSS_COPYBREAK),
      m_rxBufferTruesize(LANLOSS_RX_BUFFER_TRUESIZE),
      m_clockAdvance(Seconds(0)),
      m_clockSpeedup(12.0),
      m_fifoBytes(0),
      m_dmaBusy(false),
      m_hwFree(0),
      m_cleaned(0),
      m_irqEnabled(true),
      m_causePending(false),
      m_fifoIn(0),
      m_fifoOut(0),
      m_fifoInAtIcrRead(0),
      m_anyIrq(false),
      m_xoff(false)
{
    NS_LOG_FUNCTION(this);
}

HostRxNic::~HostRxNic() = default;

void
HostRxNic::DoDispose()
{
    m_dmaEvent.Cancel();
    m_irqEvent.Cancel();
    m_refreshEvent.Cancel();
    m_fifo.clear();
    m_ring.clear();
    m_napiSchedule = MakeNullCallback<void>();
    if (m_clock)
    {
        m_clock->Dispose();
        m_clock = nullptr;
    }
    m_device = nullptr;
    m_cpu = nullptr;
    Object::DoDispose();
}

void
HostRxNic::Attach(Ptr<EthernetNetDevice> device, Ptr<HostCpu> cpu, Callback<void> napiSchedule)
{
    NS_ABORT_MSG_IF(m_device, "HostRxNic: attached twice");
    m_device = device;
    m_cpu = cpu;
    m_napiSchedule = napiSchedule;
    m_hwFree = m_ringSize - 1;
    m_clock = CreateObject<GuestClock>();
    m_clock->SetAttribute("Advance", TimeValue(m_clockAdvance));
    m_clock->SetAttribute("Speedup", DoubleValue(m_clockSpeedup));
    m_clock->SetAttribute("InterruptStall", TimeValue(m_clockInterruptStall));
    m_clock->Attach(cpu, IRQ_CORE, MakeCallback(&HostRxNic::Admit, this));
}

void
HostRxNic::Receive(Ptr<Packet> packet,
                   uint16_t protocol,
                   Mac48Address source,
                   Mac48Address destination,
                   NetDevice::PacketType type)
{
    NS_LOG_FUNCTION(this << packet);
    const uint32_t frameNoFcs = packet->GetSize() + ethernet::MAC_HEADER_BYTES;
    HostRxFrame f;
    f.packet = packet;
    f.protocol = protocol;
    f.source = source;
    f.destination = destination;
    f.type = type;
    f.fifoBytes = frameNoFcs + ethernet::FCS_BYTES;
    f.truesize = TruesizeOf(frameNoFcs);
    ++m_stats.framesReceived;
    m_clock->Arrive(std::move(f));
}

void
HostRxNic::Admit(HostRxFrame f)
{
    const Ptr<Packet> packet = f.packet;
    if (m_hwFree == 0)
    {
        ++m_stats.rxNoBuffer; // RNBC: counted, not a drop; the frame may still fit in the FIFO
    }
    if (m_fifoBytes + f.fifoBytes > m_fifoSize)
    {
        // MPC, "missed packets": reported by Linux as rx_missed_errors.
        ++m_stats.rxFifoDrops;
        m_rxFifoDropTrace(packet);
        return;
    }
    m_fifoBytes += f.fifoBytes;
    m_stats.peakFifoBytes = std::max(m_stats.peakFifoBytes, m_fifoBytes);
    m_fifo.push_back(std::move(f));
    ++m_fifoIn;
    CheckPause();
    TryDma();
}

void
HostRxNic::TryDma()
{
    while (!m_dmaBusy && !m_fifo.empty())
    {
        if (m_hwFree == 0)
        {
            if (!m_dropNoDescriptor)
            {
                return; // e1000: the frame waits in the FIFO for the driver to refill the ring
            }
            // SRRCTL.DROP_EN: dropped for want of a descriptor (per-queue RQDPC).
            HostRxFrame f = std::move(m_fifo.front());
            m_fifo.pop_front();
            ++m_fifoOut;
            m_fifoBytes -= f.fifoBytes;
            ++m_stats.rxRingDrops;
            m_rxRingDropTrace(f.packet);
            CheckPause();
            continue;
        }
        --m_hwFree;
        if (m_dmaRate.GetBitRate() == 0)
        {
            FinishDma();
            continue;
        }
        m_dmaBusy = true;
        m_dmaEvent = Simulator::Schedule(m_dmaRate.CalculateBytesTxTime(m_fifo.front().fifoBytes),
                                         &HostRxNic::DmaDone,
                                         this);
    }
}

void
HostRxNic::DmaDone()
{
    m_dmaBusy = false;
    FinishDma();
    TryDma();
}

void
HostRxNic::FinishDma()
{
    HostRxFrame f = std::move(m_fifo.front());
    m_fifo.pop_front();
    m_fifoBytes -= f.fifoBytes;
    m_ring.push_back(std::move(f));
    // RXT0 into ICR, unless the frame had come before the handler's ICR read (the one
    // emulated NIC that latches writes a frame to the ring as it reads it from the tap)
    ++m_fifoOut;
    m_causePending = m_causePending || m_fifoOut > m_fifoInAtIcrRead;
    m_stats.peakRingFrames = std::max<uint32_t>(m_stats.peakRingFrames, m_ring.size());
    CheckPause();
    MaybeInterrupt();
}

uint32_t
HostRxNic::GetHighWater() const
{
    const uint32_t maxFrame =
        (m_device ? m_device->GetMtu() : 1500) + ethernet::MAC_HEADER_BYTES + ethernet::FCS_BYTES;
    if (m_fifoSize <= maxFrame)
    {
        return 0;
    }
    const uint32_t hwm = std::min<uint32_t>(uint64_t(m_fifoSize) * 9 / 10, m_fifoSize - maxFrame);
    return hwm & ~uint32_t(7); // FCRTH: 8-byte granularity
}

uint32_t
HostRxNic::GetLowWater() const
{
    const uint32_t hwm = GetHighWater();
    return hwm >= 8 ? hwm - 8 : 0;
}

void
HostRxNic::CheckPause()
{
    if (!m_flowControl)
    {
        return;
    }
    if (!m_xoff && m_fifoBytes >= GetHighWater())
    {
        m_xoff = true;
        SendXoff();
    }
    else if (m_xoff && m_fifoBytes < GetLowWater())
    {
        m_xoff = false;
        m_refreshEvent.Cancel();
        if (m_sendXon)
        {
            ++m_stats.xonSent;
            m_device->SendPause(0);
        }
    }
}

void
HostRxNic::SendXoff()
{
    // The refresh runs while the XOFF lasts: CheckPause cancels it below the low-water mark.
    ++m_stats.xoffSent;
    m_device->SendPause(m_pauseTime);
    m_refreshEvent = Simulator::Schedule(ethernet::PauseQuantum(m_device->GetDataRate()) *
                                             int64_t(m_pauseRefreshQuanta),
                                         &HostRxNic::SendXoff,
                                         this);
}

Time
HostRxNic::GetInterruptInterval() const
{
    if (m_itr == 0)
    {
        return Seconds(0);
    }
    // e1000_configure_rx: ew32(ITR, 1000000000 / (itr * 256)), in units of 256 ns.
    return NanoSeconds(int64_t(1000000000ULL / (uint64_t(m_itr) * 256)) * 256);
}

bool
HostRxNic::HasInterruptCause() const
{
    return !m_ring.empty() || (m_causeLatch && m_causePending);
}

void
HostRxNic::MaybeInterrupt()
{
    if (!m_irqEnabled || !HasInterruptCause() || !m_irqEvent.IsExpired())
    {
        return;
    }
    const Time now = Simulator::Now();
    const Time earliest = m_anyIrq ? m_lastIrq + GetInterruptInterval() : now;
    if (earliest <= now)
    {
        RaiseInterrupt();
    }
    else
    {
        m_irqEvent = Simulator::Schedule(earliest - now, &HostRxNic::RaiseInterrupt, this);
    }
}

void
HostRxNic::RaiseInterrupt()
{
    if (!m_irqEnabled || !HasInterruptCause())
    {
        return;
    }
    // e1000_intr masks the interrupt (IMC) and schedules NAPI; it stays masked until
    // the poll completes.
    m_irqEnabled = false;
    m_anyIrq = true;
    m_lastIrq = Simulator::Now();
    ++m_stats.interrupts;
    m_interruptTrace(m_ring.size());
    m_clock->Stall(STALL_TO_ICR_READ);
    // The ICR read clears the causes of every frame that had come by then.
    m_causePending = false;
    m_fifoInAtIcrRead = m_fifoIn;
    m_clock->Stall(STALL_TO_POLL);
    m_cpu->Submit(m_cpu->HardIrqContext(IRQ_CORE),
                  m_irqCost,
                  HostCpu::IRQ_WORK,
                  MakeCallback(&HostRxNic::IrqDone, this));
}

void
HostRxNic::IrqDone()
{
    m_napiSchedule(); // the softirq runs on irq_exit
}

// ---------------------------------------------------------------- the driver's side

bool
HostRxNic::HasRingFrame() const
{
    return !m_ring.empty();
}

HostRxFrame
HostRxNic::TakeRingFrame()
{
    HostRxFrame f = std::move(m_ring.front());
    m_ring.pop_front();
    return f;
}

void
HostRxNic::CleanedDescriptor()
{
    if (++m_cleaned >= m_rxBufferWrite)
    {
        ReturnDescriptors();
    }
}

void
HostRxNic::ReturnDescriptors()
{
    if (m_cleaned == 0)
    {
        return;
    }
    m_hwFree += m_cleaned;
    m_cleaned = 0;
    TryDma();
}

void
HostRxNic::EnableInterrupt()
{
    m_clock->Stall(STALL_AT_ENABLE);
    m_irqEnabled = true;
    const uint64_t before = m_stats.interrupts;
    MaybeInterrupt();
    // a cause pending at the unmasking raises the interrupt at once (the floor has passed)
    m_stats.interruptsAtUnmask += m_stats.interrupts - before;
}

uint32_t
HostRxNic::TruesizeOf(uint32_t frameBytes) const
{
    if (m_truesize > 0)
    {
        return m_truesize;
    }
    if (frameBytes <= m_copyBreak && m_copiedTruesize > 0)
    {
        return m_copiedTruesize;
    }
    if (frameBytes <= m_copyBreak)
    {
        // e1000_copybreak: napi_alloc_skb(len) -> SKB_TRUESIZE(SKB_DATA_ALIGN(len + NET_SKB_PAD))
        return ((frameBytes + LANLOSS_NET_SKB_PAD + 63) / 64) * 64 + LANLOSS_SKB_OVERHEAD;
    }
    return m_rxBufferTruesize;
}

// ---------------------------------------------------------------- state

HostRxNic::Stats
HostRxNic::GetStats() const
{
    Stats s = m_stats;
    if (m_clock)
    {
        s.clockSleeps = m_clock->GetStats().sleeps;
        s.clockHeldFrames = m_clock->GetStats().framesHeld;
    }
    return s;
}

uint32_t
HostRxNic::GetFifoBytes() const
{
    return m_fifoBytes;
}

uint32_t
HostRxNic::GetFreeDescriptors() const
{
    return m_hwFree;
}

uint32_t
HostRxNic::GetRingFrames() const
{
    return m_ring.size();
}

uint32_t
HostRxNic::GetFramesHeld() const
{
    return m_fifo.size() + m_ring.size() + (m_clock ? m_clock->GetFramesHeld() : 0);
}

bool
HostRxNic::IsInterruptEnabled() const
{
    return m_irqEnabled;
}

} // namespace ns3
