// SPDX-License-Identifier: GPL-2.0-only
#include "udp-flow-source.h"

#include "datagram-id.h"
#include "ethernet-net-device.h"
#include "flow-seq-tag.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"
#include "ns3/queue.h"
#include "ns3/simulator.h"
#include "ns3/socket.h"
#include "ns3/string.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/uinteger.h"

#include <cstdlib>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("UdpFlowSource");
NS_OBJECT_ENSURE_REGISTERED(UdpFlowSource);

// The flow: where to, how much, in which pattern.
void
UdpFlowSource::AddFlowAttributes(TypeId& tid)
{
    tid
        .AddAttribute("Remote",
                      "Destination: an InetSocketAddress (unicast or IPv4 multicast group).",
                      AddressValue(),
                      MakeAddressAccessor(&UdpFlowSource::m_remote),
                      MakeAddressChecker())
        .AddAttribute("PayloadSize",
                      "UDP payload of every datagram, in bytes (1.." +
                          std::to_string(MAX_PAYLOAD) + ").",
                      UintegerValue(1472),
                      MakeUintegerAccessor(&UdpFlowSource::m_payloadSize),
                      MakeUintegerChecker<uint32_t>(1, MAX_PAYLOAD))
        .AddAttribute("DataRate",
                      "Offered load in UDP payload bits per second (as iperf3 -b); "
                      "ignored with MaxRate.",
                      DataRateValue(DataRate("1Mbps")),
                      MakeDataRateAccessor(&UdpFlowSource::m_rate),
                      MakeDataRateChecker())
        .AddAttribute("MaxRate",
                      "Send as fast as the device queue accepts (blocking, no pacing; "
                      "needs Device).",
                      BooleanValue(false),
                      MakeBooleanAccessor(&UdpFlowSource::m_maxRate),
                      MakeBooleanChecker())
        .AddAttribute(
            "Pattern",
            "Departure pattern: \"cbr\", \"poisson\" or \"burst:N\" (N datagrams "
            "back to back every N periods).",
            StringValue("cbr"),
            MakeStringAccessor(&UdpFlowSource::SetPattern, &UdpFlowSource::GetPattern),
            MakeStringChecker())
        .AddAttribute("StartBurst",
                      "Datagrams sent back to back as the flow starts, before the Pattern "
                      "begins (0: none), all due at the start.",
                      UintegerValue(0),
                      MakeUintegerAccessor(&UdpFlowSource::m_startBurst),
                      MakeUintegerChecker<uint32_t>())
        .AddAttribute("FlowId",
                      "Flow identifier written into the payload header (and the FlowSeqTag).",
                      UintegerValue(0),
                      MakeUintegerAccessor(&UdpFlowSource::m_flowId),
                      MakeUintegerChecker<uint32_t>())
        .AddAttribute("Seed",
                      "Run seed (>= 1): Poisson gaps are drawn from the stream of "
                      "(Seed, FlowId) of lanloss-schedule.h, as the testbed's "
                      "lanloss-send draws them, so both offer the same departures.",
                      UintegerValue(1),
                      MakeUintegerAccessor(&UdpFlowSource::m_seed),
                      MakeUintegerChecker<uint64_t>(1, UINT64_MAX / LANLOSS_STREAMS_PER_SEED));
}

// How the sending host sends: blocking on its device, the MTU, its CPU costs, the
// multicast TTL.
void
UdpFlowSource::AddSendingHostAttributes(TypeId& tid)
{
    tid
        .AddAttribute("Blocking",
                      "Wait for room in the device queue instead of letting the device "
                      "drop (a blocking sendto(); needs Device).",
                      BooleanValue(false),
                      MakeBooleanAccessor(&UdpFlowSource::m_blocking),
                      MakeBooleanChecker())
        .AddAttribute("Device",
                      "The EthernetNetDevice the datagrams leave by (the socket is bound "
                      "to it).",
                      PointerValue(),
                      MakePointerAccessor(&UdpFlowSource::m_device),
                      MakePointerChecker<EthernetNetDevice>())
        .AddAttribute("FastPath",
                      "Send single-frame datagrams from the socket's port straight to "
                      "Device, around ns-3's UDP, IPv4, traffic-control and ARP objects "
                      "(UdpFastPath: the same frames at the same times, but no IPv4 trace "
                      "sees them); the socket is used where the fast path cannot be.",
                      BooleanValue(false),
                      MakeBooleanAccessor(&UdpFlowSource::m_fastPath),
                      MakeBooleanChecker())
        .AddAttribute("Mtu",
                      "IP MTU in bytes used to size a datagram's frames in the device "
                      "queue; 0 = the Device's MTU (1500 without a Device).",
                      UintegerValue(0),
                      MakeUintegerAccessor(&UdpFlowSource::m_mtu),
                      MakeUintegerChecker<uint32_t>(0, ethernet::MAX_JUMBO_MTU))
        .AddAttribute("SendCost",
                      "The sending host's CPU time per send() call (system call, UDP/IP, "
                      "driver): the next datagram leaves this much later at the earliest.",
                      TimeValue(Seconds(0)),
                      MakeTimeAccessor(&UdpFlowSource::m_sendCost),
                      MakeTimeChecker(Seconds(0)))
        .AddAttribute("SendByteCost",
                      "The sending host's CPU time per payload byte in seconds (copy "
                      "from user space, checksum), added to SendCost for each datagram "
                      "(a double: a fraction of a nanosecond per byte is typical).",
                      DoubleValue(0.0),
                      MakeDoubleAccessor(&UdpFlowSource::m_sendByteCost),
                      MakeDoubleChecker<double>(0.0, 1e-3))
        .AddAttribute("SendPacketCost",
                      "The sending host's CPU time per frame of a datagram in seconds "
                      "(the driver's transmission of each IP fragment), added to SendCost.",
                      DoubleValue(0.0),
                      MakeDoubleAccessor(&UdpFlowSource::m_sendPacketCost),
                      MakeDoubleChecker<double>(0.0, 1.0))
        .AddAttribute("MulticastTtl",
                      "IP TTL of datagrams sent to a multicast group (hops).",
                      UintegerValue(1),
                      MakeUintegerAccessor(&UdpFlowSource::m_multicastTtl),
                      MakeUintegerChecker<uint8_t>(1));
}

void
UdpFlowSource::AddTraceSources(TypeId& tid)
{
    tid
        .AddTraceSource("Tx",
                        "A datagram was handed to the socket.",
                        MakeTraceSourceAccessor(&UdpFlowSource::m_txTrace),
                        "ns3::Packet::TracedCallback")
        .AddTraceSource("TxFailure",
                        "The socket refused a datagram (Send returned -1).",
                        MakeTraceSourceAccessor(&UdpFlowSource::m_txFailureTrace),
                        "ns3::Packet::TracedCallback");
}

TypeId
UdpFlowSource::GetTypeId()
{
    static TypeId tid = [] {
        TypeId t = TypeId("ns3::UdpFlowSource")
                       .SetParent<Application>()
                       .SetGroupName("Lanloss")
                       .AddConstructor<UdpFlowSource>();
        AddFlowAttributes(t);
        AddSendingHostAttributes(t);
        AddTraceSources(t);
        return t;
    }();
    return tid;
}

UdpFlowSource::UdpFlowSource()
{
    NS_LOG_FUNCTION(this);
}

UdpFlowSource::~UdpFlowSource() = default;

void
UdpFlowSource::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_sendEvent.Cancel();
    m_retryEvent.Cancel();
    m_socket = nullptr;
    m_zeros = nullptr;
    m_device = nullptr;
    Application::DoDispose();
}

int64_t
UdpFlowSource::AssignStreams(int64_t stream)
{
    return 0;
}

void
UdpFlowSource::SetPattern(std::string pattern)
{
    if (pattern == "cbr")
    {
        m_kind = CBR;
        m_burst = 1;
    }
    else if (pattern == "poisson")
    {
        m_kind = POISSON;
        m_burst = 1;
    }
    else if (pattern.rfind("burst:", 0) == 0)
    {
        char* end = nullptr;
        unsigned long n = std::strtoul(pattern.c_str() + 6, &end, 10);
        NS_ABORT_MSG_IF(end == pattern.c_str() + 6 || *end != '\0' || n < 1 || n > UINT32_MAX,
                        "UdpFlowSource: bad burst size in Pattern \"" << pattern << "\"");
        m_kind = BURST;
        m_burst = static_cast<uint32_t>(n);
    }
    else
    {
        NS_ABORT_MSG("UdpFlowSource: Pattern must be cbr, poisson or burst:N, not \"" << pattern
                                                                                      << "\"");
    }
    m_pattern = pattern;
}

std::string
UdpFlowSource::GetPattern() const
{
    return m_pattern;
}

// ---------------------------------------------------------------- payload header

void
UdpFlowSource::WriteHeader(uint8_t* buf, uint32_t len, const WireHeader& h)
{
    // Little-endian whatever the host order, as testbed/tools/wire.h (ll_hdr_put).
    if (len < SEQ_BYTES)
    {
        return;
    }
    for (int i = 0; i < 8; ++i)
    {
        buf[i] = static_cast<uint8_t>(h.seq >> (8 * i));
    }
    if (len < HEADER_BYTES)
    {
        return;
    }
    for (int i = 0; i < 8; ++i)
    {
        buf[8 + i] = static_cast<uint8_t>(h.txNs >> (8 * i));
    }
    for (int i = 0; i < 4; ++i)
    {
        buf[16 + i] = static_cast<uint8_t>(h.flow >> (8 * i));
        buf[20 + i] = static_cast<uint8_t>(h.magic >> (8 * i));
    }
}

bool
UdpFlowSource::ReadHeader(Ptr<const Packet> packet, WireHeader& h)
{
    if (packet->GetSize() < HEADER_BYTES)
    {
        return false;
    }
    uint8_t buf[HEADER_BYTES];
    packet->CopyData(buf, HEADER_BYTES);
    return ParseHeader(buf, h);
}

bool
UdpFlowSource::ParseHeader(const uint8_t* buf, WireHeader& h)
{
    h = WireHeader{0, 0, 0, 0};
    for (int i = 0; i < 8; ++i)
    {
        h.seq |= uint64_t(buf[i]) << (8 * i);
        h.txNs |= uint64_t(buf[8 + i]) << (8 * i);
    }
    for (int i = 0; i < 4; ++i)
    {
        h.flow |= uint32_t(buf[16 + i]) << (8 * i);
        h.magic |= uint32_t(buf[20 + i]) << (8 * i);
    }
    return h.magic == HEADER_MAGIC;
}

// ---------------------------------------------------------------- start / stop

void
UdpFlowSource::StartApplication()
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_UNLESS(InetSocketAddress::IsMatchingType(m_remote),
                        "UdpFlowSource: Remote must be an InetSocketAddress");
    NS_ABORT_MSG_IF((m_blocking || m_maxRate) && !m_device,
                    "UdpFlowSource: Blocking and MaxRate need the Device attribute");
    NS_ABORT_MSG_IF(!m_maxRate && m_rate.GetBitRate() == 0,
                    "UdpFlowSource: DataRate must be positive unless MaxRate");

    uint32_t mtu = m_mtu;
    if (mtu == 0)
    {
        mtu = m_device ? m_device->GetMtu() : 1500;
    }
    m_frames = ethernet::UdpDatagramFrames(m_payloadSize, mtu);
    m_headerBytes = std::min(m_payloadSize, HEADER_BYTES);
    m_zeros = m_payloadSize > m_headerBytes ? Create<Packet>(m_payloadSize - m_headerBytes)
                                            : nullptr;

    m_socket = Socket::CreateSocket(GetNode(), UdpSocketFactory::GetTypeId());
    if (m_device)
    {
        m_socket->BindToNetDevice(m_device);
    }
    InetSocketAddress remote = InetSocketAddress::ConvertFrom(m_remote);
    if (remote.GetIpv4().IsMulticast())
    {
        m_socket->SetAttribute("IpMulticastTtl", UintegerValue(m_multicastTtl));
    }
    NS_ABORT_MSG_IF(m_socket->Bind() == -1, "UdpFlowSource: Bind failed");
    NS_ABORT_MSG_IF(m_socket->Connect(m_remote) == -1, "UdpFlowSource: Connect failed");
    // The socket stays bound either way: its port is the fast path's source port.
    if (m_fastPath && m_frames.fragments == 1)
    {
        m_fastSender.Prepare(m_socket, m_device, m_remote, m_multicastTtl);
    }

    if (m_kind == POISSON && !m_maxRate)
    {
        lanloss_rng_init(&m_rng, lanloss_stream_seed(m_seed, m_flowId));
        m_meanGapNs = double(m_payloadSize) * 8 * 1e9 / double(m_rate.GetBitRate());
    }
    if (m_device && (m_blocking || m_maxRate))
    {
        m_device->TraceConnectWithoutContext("PhyTxBegin",
                                             MakeCallback(&UdpFlowSource::DeviceTxBegin, this));
        if (m_maxRate)
        {
            m_device->TraceConnectWithoutContext("MacTx",
                                                 MakeCallback(&UdpFlowSource::DeviceMacTx, this));
            m_device->TraceConnectWithoutContext(
                "MacTxDrop",
                MakeCallback(&UdpFlowSource::DeviceMacTxDrop, this));
        }
        m_traceConnected = true;
    }

    m_running = true;
    m_anchor = Simulator::Now();
    m_units = 0;
    m_offsetNs = 0;
    SendDue();
}

void
UdpFlowSource::StopApplication()
{
    NS_LOG_FUNCTION(this);
    m_running = false;
    m_sendEvent.Cancel();
    m_retryEvent.Cancel();
    StopWaiting();
    if (m_traceConnected)
    {
        m_device->TraceDisconnectWithoutContext("PhyTxBegin",
                                                MakeCallback(&UdpFlowSource::DeviceTxBegin, this));
        if (m_maxRate)
        {
            m_device->TraceDisconnectWithoutContext(
                "MacTx",
                MakeCallback(&UdpFlowSource::DeviceMacTx, this));
            m_device->TraceDisconnectWithoutContext(
                "MacTxDrop",
                MakeCallback(&UdpFlowSource::DeviceMacTxDrop, this));
        }
        m_traceConnected = false;
    }
    if (m_socket)
    {
        m_socket->Close();
    }
}

// ---------------------------------------------------------------- sending

bool
UdpFlowSource::PastStop(Time t) const
{
    // StopTime zero means "never" (Application's convention).
    return m_stopTime.IsStrictlyPositive() && t >= m_stopTime;
}

Time
UdpFlowSource::Due() const
{
    if (m_kind == POISSON)
    {
        return m_anchor + NanoSeconds(static_cast<int64_t>(m_offsetNs));
    }
    // units * payload bits / rate in integer ns, from the anchor: no drift
    unsigned __int128 bits = static_cast<unsigned __int128>(m_units) * m_payloadSize * 8;
    auto ns = static_cast<int64_t>(bits * 1000000000ULL / m_rate.GetBitRate());
    return m_anchor + NanoSeconds(ns);
}

void
UdpFlowSource::Advance(Time due)
{
    if (m_seq <= m_startBurst)
    {
        return; // the start burst: every one of its datagrams is due at the start
    }
    Time now = Simulator::Now();
    if ((m_blocking || m_maxRate) && now > due)
    {
        // A blocked sender does not catch up: pacing restarts from this departure.
        m_anchor = now;
        m_units = 0;
        m_offsetNs = 0;
    }
    switch (m_kind)
    {
    case CBR:
        m_units += 1;
        break;
    case BURST:
        if ((m_seq - m_startBurst) % m_burst == 0) // m_seq is already the next datagram's
        {
            m_units += m_burst;
        }
        break;
    case POISSON:
        m_offsetNs += lanloss_exp_gap(&m_rng, m_meanGapNs);
        break;
    }
}

bool
UdpFlowSource::MustWait() const
{
    if (!(m_blocking || m_maxRate))
    {
        return false;
    }
    if (m_device->HasRoomFor(m_frames.queueBytes))
    {
        return false;
    }
    if (m_device->GetQueue()->IsEmpty())
    {
        // It can never fit: send it and let the device drop what does not (sender_queue).
        NS_LOG_WARN("datagram of " << m_frames.queueBytes << " queue bytes exceeds the queue");
        return false;
    }
    return true;
}

void
UdpFlowSource::StartWaiting()
{
    if (!m_waiting)
    {
        m_waiting = true;
        m_waitStart = Simulator::Now();
    }
}

void
UdpFlowSource::StopWaiting()
{
    if (m_waiting)
    {
        m_blockedTime += Simulator::Now() - m_waitStart;
        m_waiting = false;
    }
}

void
UdpFlowSource::SendDue()
{
    while (m_running)
    {
        Time now = Simulator::Now();
        if (PastStop(now))
        {
            return;
        }
        Time due = now;
        if (!m_maxRate)
        {
            due = Due();
            if (PastStop(due))
            {
                return; // nothing more is due before StopTime
            }
            if (due > now)
            {
                NS_ASSERT(!m_waiting);
                m_sendEvent = Simulator::Schedule(due - now, &UdpFlowSource::SendDue, this);
                return;
            }
        }
        if (m_cpuFreeAt > now)
        {
            // Still inside the previous send() call: a CPU-bound sender falls behind its
            // schedule (a paced one then catches up as fast as its CPU allows). It waits
            // for its CPU, not for the queue: no retry on frames leaving.
            StopWaiting();
            if (m_sendEvent.IsExpired())
            {
                m_sendEvent =
                    Simulator::Schedule(m_cpuFreeAt - now, &UdpFlowSource::SendDue, this);
            }
            return;
        }
        if (m_callSeq != m_seq + 1)
        {
            m_callSeq = m_seq + 1; // the call for datagram m_seq begins (it may block)
            m_callStart = now;
        }
        if (MustWait())
        {
            StartWaiting(); // DeviceTxBegin resumes us when a frame leaves the queue
            return;
        }
        StopWaiting();
        bool reached = SendOne();
        Advance(due);
        if (m_maxRate && !reached)
        {
            // Held before the device (ARP), refused or dropped: resume on the next
            // frame out rather than hand the stack datagrams without end at this instant.
            StartWaiting();
            return;
        }
    }
}

Ptr<Packet>
UdpFlowSource::MakePayload(const WireHeader& h)
{
    // Only the header's bytes are written; the rest of the payload is the source's one
    // zero-area packet, appended: ns-3 writes a zero area out as zeros (the testbed
    // tools' payload) but never allocates or copies it, in this packet or its copies.
    WriteHeader(m_header.data(), m_headerBytes, h);
    Ptr<Packet> packet = Create<Packet>(m_header.data(), m_headerBytes);
    if (m_zeros)
    {
        packet->AddAtEnd(m_zeros);
    }
    return packet;
}

bool
UdpFlowSource::SendOne()
{
    const uint64_t seq = m_seq++;
    const Time now = Simulator::Now();
    // The call's CPU time, spent whether or not the socket takes the datagram. It is
    // charged after the datagram left (it leaves at the call's start): rates are exact,
    // each datagram's latency is short of one call's time.
    const Time cost = m_sendCost + Seconds(m_sendByteCost * m_payloadSize +
                                           m_sendPacketCost * m_frames.fragments);
    m_cpuFreeAt = now + cost;
    m_sendCpu += cost;
    Ptr<Packet> packet = MakePayload(
        WireHeader{seq, static_cast<uint64_t>(now.GetNanoSeconds()), m_flowId, HEADER_MAGIC});
    if (m_frames.fragments > 1 || m_headerBytes < HEADER_BYTES)
    {
        packet->AddPacketTag(FlowSeqTag(m_flowId, seq, now)); // what the bytes cannot name
    }
    m_stamps.Record(seq, m_callStart);
    if (m_fastSender.IsReady())
    {
        // As the stack: a frame the device refuses counts where the device drops it. The
        // Tx trace is given the payload without headers, as when the socket sends a copy.
        m_fastSender.Send(m_txTrace.IsEmpty() ? packet : packet->Copy());
    }
    else if (m_socket->Send(packet) < 0)
    {
        NS_LOG_LOGIC("send of seq " << seq << " failed: errno " << m_socket->GetErrno());
        ++m_failures;
        m_txFailureTrace(packet);
        return false;
    }
    if (m_sent == 0)
    {
        m_firstSend = now;
    }
    m_lastSend = now;
    ++m_sent;
    m_txTrace(packet);
    return m_deviceSeen == seq + 1 && m_deviceDropped != seq + 1;
}

void
UdpFlowSource::DeviceMacTx(Ptr<const Packet> packet)
{
    DatagramId id;
    if (IdentifyDatagram(packet, PacketStart::IPV4, id) && id.flow == m_flowId)
    {
        m_deviceSeen = id.seq + 1;
    }
}

void
UdpFlowSource::DeviceMacTxDrop(Ptr<const Packet> frame)
{
    DatagramId id;
    if (IdentifyDatagram(frame, PacketStart::ETHERNET, id) && id.flow == m_flowId)
    {
        m_deviceDropped = id.seq + 1;
    }
}

void
UdpFlowSource::DeviceTxBegin(Ptr<const Packet> frame)
{
    // A frame left the queue: room may have appeared. Retry after the device's
    // event, not inside it, so the device is never re-entered from its own trace.
    if (m_running && m_waiting && m_retryEvent.IsExpired())
    {
        m_retryEvent = Simulator::ScheduleNow(&UdpFlowSource::SendDue, this);
    }
}

// ---------------------------------------------------------------- counters

void
UdpFlowSource::KeepStamps()
{
    m_stamps.Keep();
}

Time
UdpFlowSource::GetStamp(uint64_t seq) const
{
    return m_stamps.Get(seq);
}

uint64_t
UdpFlowSource::GetSent() const
{
    return m_sent;
}

uint64_t
UdpFlowSource::GetSendFailures() const
{
    return m_failures;
}

Time
UdpFlowSource::GetSendCpuTime() const
{
    return m_sendCpu;
}

Time
UdpFlowSource::GetBlockedTime() const
{
    return m_blockedTime + (m_waiting ? Simulator::Now() - m_waitStart : Seconds(0));
}

Time
UdpFlowSource::GetFirstSendTime() const
{
    return m_firstSend;
}

Time
UdpFlowSource::GetLastSendTime() const
{
    return m_lastSend;
}

} // namespace ns3
