// SPDX-License-Identifier: GPL-2.0-only
/*
 * The test bed of the receiving-host suites (lanloss-host, lanloss-host-nic,
 * lanloss-host-kernel), on the two-host fixture (two-hosts.h): host 0 sends with a
 * UdpFlowSource, host 1 has the host model (HostReceiverHelper) on its NIC and a
 * UdpFlowSink on the same port, which sees a datagram when the modelled application has
 * read it. Every case ends with the host
 * drained and checks conservation: sent == received + drops attributed by
 * LossAccountant, nothing unexplained.
 *
 * Costs are set explicitly in each case (the e1000-2008 defaults unless stated), so the
 * cases test the mechanisms, not the preset.
 */
#ifndef LANLOSS_HOST_TEST_BED_H
#define LANLOSS_HOST_TEST_BED_H

#include "two-hosts.h"

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/ethernet-channel.h"
#include "ns3/ethernet-net-device.h"
#include "ns3/ethernet-wire.h"
#include "ns3/host-cpu.h"
#include "ns3/host-reader.h"
#include "ns3/host-receiver-helper.h"
#include "ns3/host-rx-path.h"
#include "ns3/host-socket.h"
#include "ns3/inet-socket-address.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/loss-accountant.h"
#include "ns3/neighbor-cache-helper.h"
#include "ns3/node-container.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/udp-flow-sink.h"
#include "ns3/udp-flow-source.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <string>
#include <vector>

namespace hosttest
{

using namespace ns3;

const uint16_t PORT = 5201;
const uint32_t FLOW = 7;

/** What a run leaves behind, read before Simulator::Destroy. */
struct Outcome
{
    uint64_t sent = 0;
    uint64_t received = 0;
    uint64_t lost = 0;
    double goodputPps = 0; //!< datagrams/s read by the application in the sink's window
    double runMean = 0;
    uint64_t runCount = 0;
    double latencyMaxUs = 0;
    double latencyP50Us = 0;
    LossAccountant::Attribution attribution;
    std::array<uint64_t, LossAccountant::N_POINTS> frameDrops{};
    uint64_t otherIpv4 = 0;
    HostRxPath::Stats stats;
    uint32_t inFlight = 0;    //!< frames still inside the host
    uint32_t socketQueue = 0; //!< datagrams still in sockets
    uint64_t socketDrops = 0; //!< all sockets
    uint64_t socketEnqueued = 0;
    uint32_t peakRmem = 0;
    uint32_t rcvbuf = 0;
    std::array<Time, HostCpu::N_WORK> busy{};
    Time idle;
    std::vector<uint64_t> readerReads;
    std::vector<Time> readerCpu;
    std::vector<uint64_t> readerCollections;
    uint64_t pauseSentByHost = 0;
    uint64_t senderQueueDrops = 0;

    double Loss() const
    {
        return sent ? double(lost) / sent : 0.0;
    }

    /** sent == received + every drop point, nothing unexplained, nothing left inside. */
    bool Conserved() const
    {
        uint64_t drops = 0;
        for (uint64_t v : attribution.byPoint)
        {
            drops += v;
        }
        return attribution.unexplained == 0 && sent == received + drops && inFlight == 0 &&
               socketQueue == 0 && otherIpv4 == 0;
    }

    uint64_t Drops(LossAccountant::Point p) const
    {
        return attribution.byPoint[p];
    }
};

/** Two hosts on one cable; host 1 gets the host model. */
class Bed : public lanlosstest::TwoHosts
{
  public:
    HostReceiverHelper host; //!< configure before Install
    HostReceiverHelper::Host rx;
    Ptr<LossAccountant> accountant;
    Ptr<UdpFlowSource> source;
    Ptr<UdpFlowSink> sink;

    explicit Bed(DataRate rate)
        : TwoHosts(rate)
    {
        accountant = Create<LossAccountant>();
        accountant->WatchHostDevice(dev[0]);
        accountant->WatchIpv4(nodes.Get(1));
    }

    /**
     * The receiving host's CPU costs (hard IRQ, driver per frame, stack per datagram, read)
     * and its NIC's InterruptThrottleRate @p itr (interrupts/s, 0 = one per frame).
     */
    void Costs(Time irq, Time driver, Time stack, Time read, uint32_t itr)
    {
        host.SetRxPathAttribute("InterruptThrottleRate", UintegerValue(itr));
        host.SetRxPathAttribute("IrqCost", TimeValue(irq));
        host.SetRxPathAttribute("DriverCost", TimeValue(driver));
        host.SetRxPathAttribute("StackCost", TimeValue(stack));
        host.SetReaderAttribute("ReadCost", TimeValue(read));
    }

    /**
     * A 1 ms hard IRQ, one interrupt per frame (ITR 0) and a ring of @p ring descriptors:
     * frames arriving during the IRQ wait in the ring, then in the NIC FIFO.
     */
    void LongIrq(uint32_t ring)
    {
        Costs(MilliSeconds(1), MicroSeconds(2), MicroSeconds(2), MicroSeconds(5), 0);
        host.SetRxPathAttribute("RxRingSize", UintegerValue(ring));
    }

    /** Host model on host 1: @p readers on one HostSocket (none: no socket, ideal reader). */
    void Install(uint32_t readers = 1)
    {
        std::vector<uint16_t> ports;
        if (readers > 0)
        {
            ports.push_back(PORT);
        }
        rx = host.Install(dev[1], ports, readers);
        HostReceiverHelper::ConnectAccountant(rx, accountant);
    }

    /** A paced flow host 0 -> host 1 of @p pps datagrams/s during [start, stop). */
    void Traffic(uint32_t payload,
                 double pps,
                 Time start,
                 Time stop,
                 Time warmup = MilliSeconds(20),
                 std::string pattern = "cbr")
    {
        source = CreateObject<UdpFlowSource>();
        source->SetAttribute("Remote", AddressValue(InetSocketAddress(addr[1], PORT)));
        source->SetAttribute("PayloadSize", UintegerValue(payload));
        source->SetAttribute("DataRate",
                             DataRateValue(DataRate(uint64_t(std::llround(pps * payload * 8)))));
        source->SetAttribute("Pattern", StringValue(pattern));
        source->SetAttribute("FlowId", UintegerValue(FLOW));
        source->SetAttribute("Device", PointerValue(dev[0]));
        nodes.Get(0)->AddApplication(source);
        source->SetStartTime(start);
        source->SetStopTime(stop);
        sink = CreateObject<UdpFlowSink>();
        sink->SetAttribute("Local", AddressValue(InetSocketAddress(Ipv4Address::GetAny(), PORT)));
        sink->SetAttribute("WindowStart", TimeValue(start + warmup));
        sink->SetAttribute("WindowEnd", TimeValue(stop));
        nodes.Get(1)->AddApplication(sink);
        sink->SetStartTime(Seconds(0));
    }

    /** @p n datagrams of 18 bytes (60-byte frames) sent at once at t = 1 ms; run until @p end. */
    Outcome Burst(uint32_t n, Time end)
    {
        const uint32_t payload = 18;
        Traffic(payload,
                1000,
                MilliSeconds(1),
                MilliSeconds(1) + NanoSeconds(1),
                Seconds(0),
                "burst:" + std::to_string(n));
        return Finish(end, payload);
    }

    /** Run until @p end, read everything, destroy the simulation. */
    Outcome Finish(Time end, uint32_t payload)
    {
        Simulator::Stop(end);
        Simulator::Run();
        Outcome o;
        o.sent = source->GetSent() + source->GetSendFailures();
        const UdpFlowSink::FlowStats s = sink->GetFlowStats(FLOW, o.sent);
        o.received = s.received;
        o.lost = s.lost;
        o.goodputPps = std::isnan(s.goodputBps) ? 0 : s.goodputBps / (payload * 8.0);
        o.runMean = s.lossRunMean;
        o.runCount = s.lossRunCount;
        o.latencyMaxUs = s.latencyMaxUs;
        o.latencyP50Us = s.latencyP50Us;
        o.attribution = accountant->Attribute(FLOW, sink->MissingSeqs(FLOW, o.sent));
        o.frameDrops = accountant->FrameDrops();
        o.otherIpv4 = accountant->OtherIpv4Drops();
        o.stats = rx.path->GetStats();
        o.inFlight = rx.path->GetFramesInFlight();
        for (const Ptr<HostSocket>& sock : rx.sockets)
        {
            o.socketQueue += sock->GetQueueLength();
            o.socketDrops += sock->GetDrops();
            o.socketEnqueued += sock->GetEnqueued();
            o.peakRmem = std::max(o.peakRmem, sock->GetPeakRmemAlloc());
            o.rcvbuf = sock->GetRcvbuf();
        }
        for (uint8_t w = 0; w < HostCpu::N_WORK; ++w)
        {
            o.busy[w] = rx.cpu->GetBusyTime(static_cast<HostCpu::Work>(w));
        }
        o.idle = rx.cpu->GetIdleTime();
        for (const Ptr<HostReader>& r : rx.readers)
        {
            o.readerReads.push_back(r->GetReads());
            o.readerCpu.push_back(r->GetCpuTime());
            o.readerCollections.push_back(r->GetCollections());
        }
        o.pauseSentByHost = dev[1]->GetPauseFramesSent();
        o.senderQueueDrops = o.frameDrops[LossAccountant::SENDER_QUEUE];
        Simulator::Destroy();
        return o;
    }
};

} // namespace hosttest

#endif /* LANLOSS_HOST_TEST_BED_H */
