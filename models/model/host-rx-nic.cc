// SPDX-License-Identifier: GPL-2.0-only
/*
 * HostRxPath, the NIC's half: the receive FIFO and its DMA into the RX ring, the FIFO's
 * PAUSE watermarks, and interrupts with their moderation (ITR). The kernel's half (NAPI,
 * softirq, backlog, IP and UDP) is host-rx-kernel.cc; construction and state are
 * host-rx-path.cc.
 */
#include "ethernet-net-device.h"
#include "ethernet-wire.h"
#include "host-cpu.h"
#include "host-rx-path.h"
#include "host-socket.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/udp-header.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HostRxNic");

void
HostRxPath::Receive(Ptr<Packet> packet,
                    uint16_t protocol,
                    Mac48Address source,
                    Mac48Address destination,
                    NetDevice::PacketType type)
{
    NS_LOG_FUNCTION(this << packet);
    NS_ASSERT_MSG(m_attached, "HostRxPath: Receive before Attach");
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
    CheckPause();
    TryDma();
}

void
HostRxPath::TryDma()
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
                                         &HostRxPath::DmaDone,
                                         this);
    }
}

void
HostRxPath::DmaDone()
{
    m_dmaBusy = false;
    FinishDma();
    TryDma();
}

void
HostRxPath::FinishDma()
{
    HostRxFrame f = std::move(m_fifo.front());
    m_fifo.pop_front();
    m_fifoBytes -= f.fifoBytes;
    m_ring.push_back(std::move(f));
    m_stats.peakRingFrames = std::max<uint32_t>(m_stats.peakRingFrames, m_ring.size());
    CheckPause();
    MaybeInterrupt();
}

uint32_t
HostRxPath::GetHighWater() const
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
HostRxPath::GetLowWater() const
{
    const uint32_t hwm = GetHighWater();
    return hwm >= 8 ? hwm - 8 : 0;
}

void
HostRxPath::CheckPause()
{
    if (!m_flowControl)
    {
        return;
    }
    if (!m_xoff && m_fifoBytes >= GetHighWater())
    {
        m_xoff = true;
        ++m_stats.xoffSent;
        m_device->SendPause(m_pauseTime);
        m_refreshEvent = Simulator::Schedule(ethernet::PauseQuantum(m_device->GetDataRate()) *
                                                 int64_t(m_pauseRefreshQuanta),
                                             &HostRxPath::PauseRefresh,
                                             this);
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
HostRxPath::PauseRefresh()
{
    // Still at or above the low-water mark (else CheckPause has ended the XOFF).
    ++m_stats.xoffSent;
    m_device->SendPause(m_pauseTime);
    m_refreshEvent = Simulator::Schedule(ethernet::PauseQuantum(m_device->GetDataRate()) *
                                             int64_t(m_pauseRefreshQuanta),
                                         &HostRxPath::PauseRefresh,
                                         this);
}

Time
HostRxPath::GetInterruptInterval() const
{
    if (m_itr == 0)
    {
        return Seconds(0);
    }
    // e1000_configure_rx: ew32(ITR, 1000000000 / (itr * 256)), in units of 256 ns.
    return NanoSeconds(int64_t(1000000000ULL / (uint64_t(m_itr) * 256)) * 256);
}

void
HostRxPath::MaybeInterrupt()
{
    if (!m_irqEnabled || m_ring.empty() || m_irqEvent.IsPending())
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
        m_irqEvent = Simulator::Schedule(earliest - now, &HostRxPath::RaiseInterrupt, this);
    }
}

void
HostRxPath::RaiseInterrupt()
{
    if (!m_irqEnabled || m_ring.empty())
    {
        return;
    }
    // e1000_intr masks the interrupt (IMC) and schedules NAPI; it stays masked
    // until the poll completes.
    m_irqEnabled = false;
    m_anyIrq = true;
    m_lastIrq = Simulator::Now();
    ++m_stats.interrupts;
    m_interruptTrace(m_ring.size());
    m_cpu->Submit(m_cpu->HardIrqContext(IRQ_CORE),
                  m_irqCost,
                  HostCpu::IRQ_WORK,
                  MakeCallback(&HostRxPath::IrqDone, this));
}

void
HostRxPath::IrqDone()
{
    NapiSchedule(IRQ_CORE, NAPI_NIC); // the softirq runs on irq_exit
}

} // namespace ns3
