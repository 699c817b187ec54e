// SPDX-License-Identifier: GPL-2.0-only
#include "scenario-drain.h"

#include "scenario-hosts.h"

#include "ns3/ethernet-wire.h"
#include "ns3/tcp-socket-base.h"
#include "ns3/tcp-socket.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <string>

using namespace ns3;

namespace lanloss
{

namespace
{

/** An attribute's default as the run set it (Config::SetDefault changes it). */
template <class V>
auto
DefaultOf(TypeId tid, const std::string& name)
{
    TypeId::AttributeInformation info;
    if (!tid.LookupAttributeByName(name, &info))
    {
        throw std::logic_error(tid.GetName() + " has no attribute " + name);
    }
    return DynamicCast<const V>(info.initialValue)->Get();
}

double
Sec(Time t)
{
    return t.GetSeconds();
}

/** Hosts that send data: the flows' sources (multicast: the group's senders). */
double
SendingHosts(const ScenarioOptions& o, const LanSpec& spec)
{
    if (o.multicast)
    {
        return spec.HostsWithRole("sender").size();
    }
    std::set<std::string> from;
    for (const auto& f : spec.flows)
    {
        from.insert(f.from);
    }
    return from.empty() ? spec.hosts.size() : from.size();
}

/** Frame bytes of @p payload bytes of TCP stream: full segments, each with its ACK. */
double
TcpFrameBytes(const ScenarioOptions& o, double payload)
{
    const double mss = std::max<double>(1, DefaultOf<UintegerValue>(TcpSocket::GetTypeId(),
                                                                    "SegmentSize"));
    const double segment = ethernet::FrameSlotBytes(o.mtu + ethernet::MAC_HEADER_BYTES);
    const double ack = ethernet::FrameSlotBytes(ethernet::MIN_FRAME_NO_FCS);
    return std::ceil(payload / mss) * (segment + ack);
}

/** TCP payload the sockets of one connection can hold: send and receive buffer. */
double
TcpBufferedBytes()
{
    return double(DefaultOf<UintegerValue>(TcpSocket::GetTypeId(), "SndBufSize")) +
           double(DefaultOf<UintegerValue>(TcpSocket::GetTypeId(), "RcvBufSize"));
}

/**
 * Frame bytes the LAN can hold when the sources stop: every host's transmit queue,
 * every switch's buffers, every cable in both directions (with the frame each
 * transmitter may have started), and TCP's socket buffers.
 */
double
CapacityBytes(const ScenarioOptions& o, const LanSpec& spec)
{
    const double maxFrame = ethernet::FrameSlotBytes(o.mtu + ethernet::MAC_HEADER_BYTES);
    double bytes = spec.hosts.size() * (double(o.txQueue) + maxFrame);
    for (const auto& sw : spec.switches)
    {
        double ports = 0;
        for (const auto& l : spec.links)
        {
            ports += (l.a == sw) + (l.b == sw);
        }
        double buffers = ports * double(o.switchBuffer);
        if (o.switchPool > 0)
        {
            buffers = std::min(buffers, double(o.switchPool));
        }
        bytes += buffers + ports * maxFrame;
    }
    for (const auto& l : spec.links)
    {
        bytes += 2 * (Sec(l.delay) * l.rate.GetBitRate() / 8 + maxFrame);
    }
    if (o.tcp)
    {
        bytes += spec.flows.size() * TcpFrameBytes(o, TcpBufferedBytes());
    }
    return bytes;
}

/** Frame bytes the sources can have sent at all: each sending host's fastest link for the
 *  whole duration, plus what its transmit queue (and TCP's buffers) took beyond that. */
double
SentBytes(const ScenarioOptions& o, const LanSpec& spec)
{
    double fastest = 0;
    for (const auto& l : spec.links)
    {
        fastest = std::max<double>(fastest, l.rate.GetBitRate());
    }
    double perHost = fastest * Sec(o.duration) / 8 + double(o.txQueue);
    if (o.tcp)
    {
        perHost += spec.flows.size() * TcpFrameBytes(o, TcpBufferedBytes());
    }
    return SendingHosts(o, spec) * perHost;
}

/** CPU a receiving host spends on @p bytes of frames (each at least a minimum frame),
 *  slowed by its readers' quota and stretched by its stalls. */
double
HostSeconds(const ScenarioOptions& o, double bytes)
{
    const HostValues& h = o.hostValues;
    const double frames = std::ceil(bytes / ethernet::MIN_FRAME_BYTES);
    double perFrame = Sec(h.irqCost) + Sec(h.packetCost) + Sec(h.readCost) +
                      Sec(h.readCallCost) + Sec(h.wakeupCost) + Sec(o.recvWork);
    if (h.itr > 0)
    {
        perFrame += 1.0 / h.itr; // an interrupt at least per frame, at most itr per second
    }
    double cpu = frames * perFrame + bytes * h.readByteCost;
    if (o.recvCpu > 0)
    {
        cpu = cpu * 100.0 / o.recvCpu + Sec(RecvCpuPeriod());
    }
    if (h.stallPeriod.IsStrictlyPositive())
    {
        const double period = Sec(h.stallPeriod);
        const double stall = Sec(h.stallLength);
        cpu = cpu * period / (period - stall) + stall;
    }
    return cpu;
}

/** Seconds a peer sits out one PAUSE of o.pauseQuanta at @p bitRate. */
double
PauseSeconds(const ScenarioOptions& o, double bitRate)
{
    return o.pauseQuanta * double(ethernet::PAUSE_QUANTUM_BITS) / bitRate;
}

/**
 * The PAUSE waits of a drain carrying @p bytes. A peer sits out at most one PAUSE per
 * hop and at the receiver after its last XOFF (XON style: the XON frees it sooner).
 * Timed PAUSE has no XON: every XOFF of a switch port can idle its peer for a whole
 * pause time, and a port sends a new XOFF only after refilling from XON to XOFF.
 */
double
PauseWaitSeconds(const ScenarioOptions& o,
                 const LanBuilder& lan,
                 double bytes,
                 double hops,
                 double slowest)
{
    double seconds = (hops + 1) * PauseSeconds(o, slowest);
    if (o.pauseStyle != "timed")
    {
        return seconds;
    }
    for (const auto& sw : lan.GetSwitches())
    {
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            const auto& port = sw->GetPortState(p);
            const double band = std::max<double>(1, double(port.xoff) - double(port.xon));
            const double xoffs = 1 + std::ceil(bytes / band);
            seconds += xoffs * PauseSeconds(o, sw->GetPort(p)->GetDataRate().GetBitRate());
        }
    }
    return seconds;
}

/** TCP's longest wait for a connection or segment: its first timeout (at least an RTT
 *  bound @p rtt, as RTO = SRTT + 4 RTTVAR <= 5 RTT) doubled on every retry. */
double
TcpRetrySeconds(double rtt)
{
    const TypeId tcp = TcpSocket::GetTypeId();
    const double minRto = Sec(DefaultOf<TimeValue>(TcpSocketBase::GetTypeId(), "MinRto"));
    const double connTimeout = Sec(DefaultOf<TimeValue>(tcp, "ConnTimeout"));
    const double first = std::max({minRto, connTimeout, 5 * rtt});
    const double retries = std::max(DefaultOf<UintegerValue>(tcp, "DataRetries"),
                                    DefaultOf<UintegerValue>(tcp, "ConnCount"));
    return first * (std::pow(2.0, retries + 1) - 1);
}

} // namespace

Time
DrainPollInterval(Time sinceStop, Time bound)
{
    if (sinceStop < MIN_DRAIN_BOUND)
    {
        return MicroSeconds(100);
    }
    return std::max(MilliSeconds(10), bound / 1000000);
}

Time
DrainBound(const ScenarioOptions& o, const LanSpec& spec, const LanBuilder& lan)
{
    // A path in the tree crosses each switch at most once.
    const double hops = spec.switches.size() + 1;
    const double copies = o.multicast ? std::max<size_t>(1, spec.HostsWithRole("receiver").size())
                                      : 1;
    double slowest = 0;
    double longest = 0;
    for (const auto& l : spec.links)
    {
        const double rate = l.rate.GetBitRate();
        slowest = slowest == 0 ? rate : std::min(slowest, rate);
        longest = std::max(longest, Sec(l.delay));
    }
    const double bytes = std::min(CapacityBytes(o, spec), SentBytes(o, spec)) * copies;
    // every byte over every hop at the slowest rate; propagation there and back per hop
    double seconds = hops * bytes * 8 / slowest + 2 * hops * longest;
    if (o.pause)
    {
        seconds += PauseWaitSeconds(o, lan, bytes, hops, slowest);
    }
    if (o.host != "ideal")
    {
        seconds += HostSeconds(o, bytes);
    }
    if (o.tcp)
    {
        seconds += TcpRetrySeconds(seconds);
    }
    // one send still on a sender's CPU when the sources stop
    seconds += Sec(o.sendCost) + o.payload * o.sendByteCost +
               std::ceil(o.payload / double(o.mtu)) * o.sendPacketCost;
    // capped far below ns-3's time range (about 292 years), so stop + bound cannot overflow
    return ns3::Seconds(std::min(std::max(Sec(MIN_DRAIN_BOUND), seconds), 1e9));
}

} // namespace lanloss
