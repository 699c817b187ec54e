// SPDX-License-Identifier: GPL-2.0-only
/*
 * The UDP applications' fixture on the two-host fixture (two-hosts.h): a UdpFlowSource
 * on host 0, a UdpFlowSink on host 1, and the departure times of a paced source.
 */
#ifndef LANLOSS_UDP_FLOW_FIXTURE_H
#define LANLOSS_UDP_FLOW_FIXTURE_H

#include "two-hosts.h"

#include "ns3/inet-socket-address.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/udp-flow-sink.h"
#include "ns3/udp-flow-source.h"

#include <string>
#include <vector>

namespace lanlosstest
{

/** A UdpFlowSource on host 0 (flow 7, on its device) to @p remote, during [start, stop). */
inline Ptr<UdpFlowSource>
MakeSource(const TwoHosts& net,
           Address remote,
           uint32_t payload,
           std::string rate,
           Time start,
           Time stop)
{
    Ptr<UdpFlowSource> src = CreateObject<UdpFlowSource>();
    src->SetAttribute("Remote", AddressValue(remote));
    src->SetAttribute("PayloadSize", UintegerValue(payload));
    src->SetAttribute("DataRate", DataRateValue(DataRate(rate)));
    src->SetAttribute("FlowId", UintegerValue(7));
    src->SetAttribute("Device", PointerValue(net.dev[0]));
    net.nodes.Get(0)->AddApplication(src);
    src->SetStartTime(start);
    src->SetStopTime(stop);
    return src;
}

/** A UdpFlowSource on host 0 to host 1, port PORT (as above). */
inline Ptr<UdpFlowSource>
MakeSourceToHost1(const TwoHosts& net, uint32_t payload, std::string rate, Time start, Time stop)
{
    return MakeSource(net, InetSocketAddress(net.addr[1], PORT), payload, rate, start, stop);
}

/** A UdpFlowSink on host 1, port PORT, its goodput window [windowStart, windowEnd). */
inline Ptr<UdpFlowSink>
MakeSink(const TwoHosts& net, Time windowStart, Time windowEnd)
{
    Ptr<UdpFlowSink> sink = CreateObject<UdpFlowSink>();
    sink->SetAttribute("Local", AddressValue(InetSocketAddress(Ipv4Address::GetAny(), PORT)));
    sink->SetAttribute("WindowStart", TimeValue(windowStart));
    sink->SetAttribute("WindowEnd", TimeValue(windowEnd));
    net.nodes.Get(1)->AddApplication(sink);
    sink->SetStartTime(Seconds(0));
    return sink;
}

/** What the source and the sink of flow 7 reported at the end of a run. */
struct FlowResult
{
    uint64_t sent = 0;
    uint64_t failures = 0; //!< send failures of the socket
    Time first;            //!< first send time
    Time last;             //!< last send time
    Time blocked;          //!< time the source waited for room in the device queue
    UdpFlowSink::FlowStats stats;
    std::vector<uint64_t> missing;  //!< seqs sent and never received
    std::vector<uint32_t> flowIds; //!< the flows the sink received
};

/** Run the simulation until @p stop, read flow 7 of @p src and @p sink, destroy it. */
inline FlowResult
RunFlow(Ptr<UdpFlowSource> src, Ptr<UdpFlowSink> sink, Time stop)
{
    Simulator::Stop(stop);
    Simulator::Run();
    FlowResult r;
    r.sent = src->GetSent();
    r.failures = src->GetSendFailures();
    r.first = src->GetFirstSendTime();
    r.last = src->GetLastSendTime();
    r.blocked = src->GetBlockedTime();
    r.stats = sink->GetFlowStats(7, r.sent);
    r.missing = sink->MissingSeqs(7, r.sent);
    r.flowIds = sink->GetFlowIds();
    Simulator::Destroy();
    return r;
}

/** Time of datagram k of a paced source: k * payload bits / rate, floored to ns. */
inline Time
Paced(uint64_t k, uint32_t payload, uint64_t bps)
{
    return NanoSeconds(static_cast<int64_t>(static_cast<unsigned __int128>(k) * payload * 8 *
                                            1000000000ULL / bps));
}

} // namespace lanlosstest

#endif /* LANLOSS_UDP_FLOW_FIXTURE_H */
