// SPDX-License-Identifier: GPL-2.0-only
/*
 * HostRxPath: attributes, construction, wiring to a device, the CPU and sockets, the
 * truesize rule and the counters. The NIC's half of the path is host-rx-nic.cc, the
 * kernel's host-rx-kernel.cc.
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

NS_LOG_COMPONENT_DEFINE("HostRxPath");
NS_OBJECT_ENSURE_REGISTERED(HostRxPath);

namespace
{

constexpr uint32_t SKB_OVERHEAD =
    256 + 320;                       //!< sizeof(sk_buff) + sizeof(skb_shared_info), aligned, x86-64
constexpr uint32_t NET_SKB_PAD = 64; //!< max(32, L1_CACHE_BYTES)

} // namespace

TypeId
HostRxPath::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::HostRxPath")
            .SetParent<EthernetRxPath>()
            .SetGroupName("Lanloss")
            .AddConstructor<HostRxPath>()
            // ---- NIC
            .AddAttribute("RxFifoBytes",
                          "NIC receive FIFO (packet buffer, PBA) in bytes: 48 KiB on the "
                          "8254x e1000 (E1000_PBA_48K).",
                          UintegerValue(49152),
                          MakeUintegerAccessor(&HostRxPath::m_fifoSize),
                          MakeUintegerChecker<uint32_t>(64))
            .AddAttribute("RxRingSize",
                          "RX descriptors (ethtool -G rx; e1000 default 256, max 4096); the "
                          "ring holds one frame less.",
                          UintegerValue(256),
                          MakeUintegerAccessor(&HostRxPath::m_ringSize),
                          MakeUintegerChecker<uint32_t>(2, 65536))
            .AddAttribute("DmaRate",
                          "Rate (bit/s) at which the NIC moves a frame from its FIFO to host "
                          "memory; 0 = at once. 1064 Mbit/s = 32-bit 33 MHz PCI (133 MB/s).",
                          DataRateValue(DataRate("1064Mbps")),
                          MakeDataRateAccessor(&HostRxPath::m_dmaRate),
                          MakeDataRateChecker())
            .AddAttribute("RxBufferWrite",
                          "Cleaned descriptors the driver collects before giving them back to "
                          "the NIC (E1000_RX_BUFFER_WRITE = 16); all are given back at the end "
                          "of each poll.",
                          UintegerValue(16),
                          MakeUintegerAccessor(&HostRxPath::m_rxBufferWrite),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("DropWhenNoDescriptor",
                          "Drop a frame at once when no descriptor is free (igb/ixgbe "
                          "SRRCTL.DROP_EN: rx_ring) instead of holding it in the FIFO "
                          "(e1000/e1000e: the FIFO fills, rx_fifo).",
                          BooleanValue(false),
                          MakeBooleanAccessor(&HostRxPath::m_dropNoDescriptor),
                          MakeBooleanChecker())
            .AddAttribute("InterruptThrottleRate",
                          "Maximum interrupts per second (e1000 InterruptThrottleRate, "
                          "register granularity 256 ns); 0 = no moderation. The dynamic "
                          "modes 1 and 3 are not modelled.",
                          UintegerValue(2500),
                          MakeUintegerAccessor(&HostRxPath::m_itr),
                          MakeUintegerChecker<uint32_t>(0, 3906250))
            .AddAttribute("FlowControl",
                          "Send IEEE 802.3x PAUSE when the FIFO reaches its high-water mark.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&HostRxPath::m_flowControl),
                          MakeBooleanChecker())
            .AddAttribute("PauseTime",
                          "pause_time of the XOFF frames, in quanta of 512 bit times "
                          "(E1000_FC_PAUSE_TIME = 0x0680).",
                          UintegerValue(0x0680),
                          MakeUintegerAccessor(&HostRxPath::m_pauseTime),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("PauseRefreshQuanta",
                          "Interval, in quanta of 512 bit times at the link rate, at which "
                          "XOFF is sent again while the FIFO stays at or above the low-water "
                          "mark (half PauseTime; PCH e1000e: refresh 0x0400 for pause 0x0650).",
                          UintegerValue(0x0340),
                          MakeUintegerAccessor(&HostRxPath::m_pauseRefreshQuanta),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("SendXon",
                          "Send XON (pause_time 0) when the FIFO falls below the low-water "
                          "mark (e1000 fc.send_xon = 1).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&HostRxPath::m_sendXon),
                          MakeBooleanChecker())
            // ---- CPU costs
            .AddAttribute("IrqCost",
                          "CPU time (s) of one NIC hard interrupt: entry and exit, the "
                          "e1000_intr ICR read and IMC write over the bus, napi_schedule.",
                          TimeValue(MicroSeconds(8)),
                          MakeTimeAccessor(&HostRxPath::m_irqCost),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("DriverCost",
                          "Softirq CPU time (s) per frame in the driver poll "
                          "(e1000_clean_rx_irq: descriptor, skb, copybreak copy, "
                          "eth_type_trans, netif_receive_skb entry, RPS steering).",
                          TimeValue(MicroSeconds(2)),
                          MakeTimeAccessor(&HostRxPath::m_driverCost),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("StackCost",
                          "Softirq CPU time (s) per frame in IP and UDP (ip_rcv, ip_defrag, "
                          "udp_rcv, socket lookup, enqueue and wake-up).",
                          TimeValue(MicroSeconds(2)),
                          MakeTimeAccessor(&HostRxPath::m_stackCost),
                          MakeTimeChecker(Seconds(0)))
            // ---- softirq
            .AddAttribute("NapiWeight",
                          "Frames per NAPI poll of the NIC (NAPI_POLL_WEIGHT = 64).",
                          UintegerValue(64),
                          MakeUintegerAccessor(&HostRxPath::m_napiWeight),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("NetdevBudget",
                          "Packets per net_rx_action run (net.core.netdev_budget = 300).",
                          UintegerValue(300),
                          MakeUintegerAccessor(&HostRxPath::m_netdevBudget),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("NetdevBudgetUsecs",
                          "Time (s) limit of a net_rx_action run (net.core.netdev_budget_usecs "
                          "= 2000 us).",
                          TimeValue(MicroSeconds(2000)),
                          MakeTimeAccessor(&HostRxPath::m_netdevBudgetTime),
                          MakeTimeChecker(MicroSeconds(1)))
            .AddAttribute("MaxSoftirqRestart",
                          "net_rx_action runs one __do_softirq may make before handing the "
                          "work to ksoftirqd (MAX_SOFTIRQ_RESTART = 10).",
                          UintegerValue(10),
                          MakeUintegerAccessor(&HostRxPath::m_maxSoftirqRestart),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("MaxSoftirqTime",
                          "Time (s) after which __do_softirq hands the work to ksoftirqd "
                          "(MAX_SOFTIRQ_TIME = 2 ms).",
                          TimeValue(MilliSeconds(2)),
                          MakeTimeAccessor(&HostRxPath::m_maxSoftirqTime),
                          MakeTimeChecker(MicroSeconds(1)))
            .AddAttribute("RpsCpus",
                          "Receive Packet Steering: bit mask of the cores whose backlog a "
                          "frame may be queued to (rps_cpus); 0 = no RPS, no backlog.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&HostRxPath::m_rpsCpus),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("BacklogSize",
                          "net.core.netdev_max_backlog: a frame is dropped when the backlog "
                          "input queue already holds more than this (1000).",
                          UintegerValue(1000),
                          MakeUintegerAccessor(&HostRxPath::m_backlogSize),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("DevWeight",
                          "Frames per process_backlog poll (net.core.dev_weight = 64).",
                          UintegerValue(64),
                          MakeUintegerAccessor(&HostRxPath::m_devWeight),
                          MakeUintegerChecker<uint32_t>(1))
            // ---- memory accounting
            .AddAttribute("Truesize",
                          "Bytes charged to a socket per received frame (skb->truesize); "
                          "0 = from the frame length by the e1000 copybreak rule.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&HostRxPath::m_truesize),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("CopyBreak",
                          "Frames of at most this many bytes (MAC header on, no FCS) are "
                          "copied into a fitting skb (e1000 copybreak = 256).",
                          UintegerValue(256),
                          MakeUintegerAccessor(&HostRxPath::m_copyBreak),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("RxBufferTruesize",
                          "truesize in bytes of a frame kept in its receive buffer (e1000 "
                          "2 KiB buffer: SKB_TRUESIZE(2048 - 320) = 2304).",
                          UintegerValue(2304),
                          MakeUintegerAccessor(&HostRxPath::m_rxBufferTruesize),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("ReassemblyTimeout",
                          "Time (s) an incomplete IPv4 datagram is kept (net.ipv4.ipfrag_time "
                          "= 30 s).",
                          TimeValue(Seconds(30)),
                          MakeTimeAccessor(&HostRxPath::m_reassemblyTimeout),
                          MakeTimeChecker(MicroSeconds(1)))
            // ---- drops
            .AddTraceSource("RxFifoDrop",
                            "A frame found no room in the NIC FIFO (rx_missed_errors): rx_fifo.",
                            MakeTraceSourceAccessor(&HostRxPath::m_rxFifoDropTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("RxRingDrop",
                            "A frame found no free descriptor and DropWhenNoDescriptor is "
                            "set: rx_ring.",
                            MakeTraceSourceAccessor(&HostRxPath::m_rxRingDropTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("BacklogDrop",
                            "RPS: the target core's backlog was full (softnet_stat dropped): "
                            "backlog.",
                            MakeTraceSourceAccessor(&HostRxPath::m_backlogDropTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("ReassemblyDrop",
                            "A held IPv4 fragment was dropped by the reassembly timer: "
                            "reassembly.",
                            MakeTraceSourceAccessor(&HostRxPath::m_reassemblyDropTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("Interrupt",
                            "The NIC raised an interrupt (argument: frames in the ring).",
                            MakeTraceSourceAccessor(&HostRxPath::m_interruptTrace),
                            "ns3::HostRxPath::InterruptTracedCallback");
    return tid;
}

HostRxPath::HostRxPath()
    : m_fifoSize(49152),
      m_ringSize(256),
      m_dmaRate(DataRate("1064Mbps")),
      m_rxBufferWrite(16),
      m_dropNoDescriptor(false),
      m_itr(2500),
      m_napiWeight(64),
      m_netdevBudget(300),
      m_netdevBudgetTime(MicroSeconds(2000)),
      m_maxSoftirqRestart(10),
      m_maxSoftirqTime(MilliSeconds(2)),
      m_irqCost(MicroSeconds(8)),
      m_driverCost(MicroSeconds(2)),
      m_stackCost(MicroSeconds(2)),
      m_rpsCpus(0),
      m_backlogSize(1000),
      m_devWeight(64),
      m_truesize(0),
      m_copyBreak(256),
      m_rxBufferTruesize(2304),
      m_reassemblyTimeout(Seconds(30)),
      m_flowControl(false),
      m_pauseTime(0x0680),
      m_pauseRefreshQuanta(0x0340),
      m_sendXon(true),
      m_attached(false),
      m_fifoBytes(0),
      m_dmaBusy(false),
      m_hwFree(0),
      m_cleaned(0),
      m_irqEnabled(true),
      m_anyIrq(false),
      m_xoff(false)
{
    NS_LOG_FUNCTION(this);
}

HostRxPath::~HostRxPath() = default;

void
HostRxPath::DoDispose()
{
    m_dmaEvent.Cancel();
    m_irqEvent.Cancel();
    m_refreshEvent.Cancel();
    m_defrag.Clear();
    m_fifo.clear();
    m_ring.clear();
    m_softnet.clear();
    for (auto& [port, group] : m_sockets)
    {
        for (auto& socket : group.sockets)
        {
            socket->Dispose();
        }
    }
    m_sockets.clear();
    m_device = nullptr;
    m_cpu = nullptr;
    EthernetRxPath::DoDispose();
}

void
HostRxPath::SetCpu(Ptr<HostCpu> cpu)
{
    NS_ABORT_MSG_IF(m_attached, "HostRxPath: SetCpu after Attach");
    m_cpu = cpu;
}

Ptr<HostCpu>
HostRxPath::GetCpu() const
{
    return m_cpu;
}

void
HostRxPath::AddSocket(Ptr<HostSocket> socket)
{
    const uint16_t port = socket->GetPort();
    PortSockets& group = m_sockets[port];
    if (!group.sockets.empty())
    {
        NS_ABORT_MSG_UNLESS(socket->IsReusePort() && group.sockets.front()->IsReusePort(),
                            "HostRxPath: two HostSockets on port "
                                << port << " without ReusePort on both");
    }
    group.sockets.push_back(socket);
    if (m_attached)
    {
        socket->Attach(m_cpu, MakeCallback(&HostRxPath::DeliverDatagram, this), NodeId());
    }
}

uint32_t
HostRxPath::NodeId() const
{
    Ptr<Node> node = m_device ? m_device->GetNode() : nullptr;
    return node ? node->GetId() : Simulator::GetContext();
}

Ptr<HostSocket>
HostRxPath::GetSocket(uint16_t port) const
{
    auto it = m_sockets.find(port);
    return it == m_sockets.end() ? nullptr : it->second.sockets.front();
}

std::vector<Ptr<HostSocket>>
HostRxPath::GetSockets(uint16_t port) const
{
    auto it = m_sockets.find(port);
    return it == m_sockets.end() ? std::vector<Ptr<HostSocket>>{} : it->second.sockets;
}

HostSocket*
HostRxPath::PortSockets::Pick()
{
    if (sockets.size() == 1)
    {
        return PeekPointer(sockets.front());
    }
    HostSocket* s = PeekPointer(sockets[next]);
    next = (next + 1) % sockets.size();
    return s;
}

void
HostRxPath::Attach(Ptr<EthernetNetDevice> device)
{
    NS_LOG_FUNCTION(this << device);
    NS_ABORT_MSG_IF(m_attached, "HostRxPath: attached twice");
    m_device = device;
    if (!m_cpu)
    {
        Ptr<Node> node = device->GetNode();
        m_cpu = node ? node->GetObject<HostCpu>() : nullptr;
        if (!m_cpu)
        {
            m_cpu = CreateObject<HostCpu>();
            if (node)
            {
                node->AggregateObject(m_cpu);
            }
        }
    }
    m_attached = true;
    m_hwFree = m_ringSize - 1;
    m_softnet.assign(m_cpu->GetNCores(), Softnet{});
    for (uint32_t c = 0; c < m_softnet.size(); ++c)
    {
        m_softnet[c].ksoftirqd = m_cpu->CreateThread(c, "ksoftirqd/" + std::to_string(c));
        m_softnet[c].jobDone = MakeCallback(&HostRxPath::JobDone, this, c);
    }
    m_rpsList.clear();
    for (uint32_t c = 0; c < m_softnet.size() && c < 64; ++c)
    {
        if (m_rpsCpus & (uint64_t(1) << c))
        {
            m_rpsList.push_back(c);
        }
    }
    NS_ABORT_MSG_IF(m_rpsCpus != 0 && m_rpsList.empty(),
                    "HostRxPath: RpsCpus names no core of the host");
    m_defrag.SetTimeout(m_reassemblyTimeout);
    m_defrag.SetDropCallback(MakeCallback(&HostRxPath::ReassemblyTimeout, this));
    for (auto& [port, group] : m_sockets)
    {
        for (auto& socket : group.sockets)
        {
            socket->Attach(m_cpu, MakeCallback(&HostRxPath::DeliverDatagram, this), NodeId());
        }
    }
}

// ---------------------------------------------------------------- NIC

uint32_t
HostRxPath::TruesizeOf(uint32_t frameBytes) const
{
    if (m_truesize > 0)
    {
        return m_truesize;
    }
    if (frameBytes <= m_copyBreak)
    {
        // e1000_copybreak: napi_alloc_skb(len) -> SKB_TRUESIZE(SKB_DATA_ALIGN(len + NET_SKB_PAD))
        return ((frameBytes + NET_SKB_PAD + 63) / 64) * 64 + SKB_OVERHEAD;
    }
    return m_rxBufferTruesize;
}

// ---------------------------------------------------------------- state

HostRxPath::Stats
HostRxPath::GetStats() const
{
    Stats s = m_stats;
    s.reassemblyTimeouts = m_defrag.GetTimeouts();
    return s;
}

uint32_t
HostRxPath::GetFifoBytes() const
{
    return m_fifoBytes;
}

uint32_t
HostRxPath::GetFreeDescriptors() const
{
    return m_hwFree;
}

uint32_t
HostRxPath::GetRingFrames() const
{
    return m_ring.size();
}

uint32_t
HostRxPath::GetFramesInFlight() const
{
    uint32_t n = m_fifo.size() + m_ring.size() + m_defrag.GetFragmentsHeld();
    for (const Softnet& sd : m_softnet)
    {
        n += sd.input.size() + sd.process.size() + (sd.inflight.packet ? 1 : 0);
    }
    return n;
}

uint32_t
HostRxPath::GetFramesReassembling() const
{
    return m_defrag.GetFragmentsHeld();
}

bool
HostRxPath::IsInterruptEnabled() const
{
    return m_irqEnabled;
}

} // namespace ns3
