// SPDX-License-Identifier: GPL-2.0-only
/*
 * Turns a finished scenario into the scenario part of a lanloss run record.
 */
#ifndef LANLOSS_SCENARIO_REPORT_H
#define LANLOSS_SCENARIO_REPORT_H

#include "scenario-hosts.h"
#include "scenario-options.h"

#include "ns3/lanloss-module.h"
#include "ns3/packet-sink.h"

#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace lanloss
{

/** Payload bytes a TCP receiver read inside the goodput window. */
struct TcpWindowBytes
{
    ns3::Time start;
    ns3::Time end;
    uint64_t bytes = 0;
};

/**
 * One sender -> receiver flow of the record. UDP: `source` and the receiver's
 * UdpFlowSink; its losses are attributed by `accountant` (the run's, or with
 * multicast the receiver's own). TCP: `tcpSource` and the receiving application:
 * `tcpReader` on a host with the host model (it reads on the host's CPU), else ns-3's
 * PacketSink `tcpSink`.
 */
struct ScenarioFlow
{
    std::string from;
    std::string to;
    uint32_t id;
    ns3::DataRate rate; //!< 0 = max
    ns3::Ptr<ns3::UdpFlowSource> source;
    ns3::Ptr<ns3::LossAccountant> accountant;
    ns3::Ptr<ns3::TcpFlowSource> tcpSource;
    ns3::Ptr<ns3::PacketSink> tcpSink;
    ns3::Ptr<ns3::HostTcpReader> tcpReader;
    std::shared_ptr<TcpWindowBytes> tcpWindow;
    ns3::Ptr<ns3::MessageEcho> echo;      //!< option echo: the receiver's echo thread
    ns3::Ptr<ns3::EchoTimer> echoTimer;   //!< and the sender's timing thread

    /** @return whether the echo threads have nothing left to do (no echo: true) */
    bool EchoIdle() const
    {
        return (!echo || echo->IsIdle()) && (!echoTimer || echoTimer->IsIdle());
    }

    /** @return the bytes the TCP receiver has read so far */
    uint64_t TcpReceived() const
    {
        return tcpReader ? tcpReader->GetTotalRx() : tcpSink->GetTotalRx();
    }
};

struct ScenarioRun
{
    ScenarioOptions options;
    ns3::Ptr<ns3::LossAccountant> accountant;
    const ns3::LanBuilder* lan = nullptr;
    std::map<std::string, ns3::Ptr<ns3::UdpFlowSink>> sinks;
    std::vector<ScenarioFlow> flows;
    std::vector<ReceiverHost> hosts; //!< receiving hosts with the host model (none: ideal)
    std::map<std::string, uint64_t> senderFrames; //!< data frames each sender had sent at start
    ns3::Time trafficStart;
    double wallSeconds = 0;
    double setupSeconds = 0; //!< building the LAN and its applications, before Run()
    double simulatedSeconds = 0;
    uint64_t events = 0;
    ns3::Time drainBound;   //!< how long after the stop the LAN may take to empty
    bool drained = false;   //!< the LAN emptied before the drain bound
    std::string failedFlow; //!< a TCP connection given up while not drained ("" = none)
    bool failedConnecting = false; //!< ... before it was open
};

/** flows, drops, pause, cpu, timing, extra; Python adds params, env and the totals
 *  (lanloss.totals: one definition for simulator and testbed). */
void WriteReport(std::ostream& os, const ScenarioRun& run);

} // namespace lanloss

#endif
