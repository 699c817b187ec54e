// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of the receiving-host model: HostCpu, HostRxPath, HostSocket, HostReader.
 *
 * Every network case runs on two hosts joined by one EthernetChannel (1 us),
 * ARP filled in (NeighborCacheHelper): host 0 sends with a UdpFlowSource,
 * host 1 has the host model (HostReceiverHelper) on its NIC and a UdpFlowSink
 * on the same port, which sees a datagram when the modelled application has
 * read it. Every case ends with the host drained and checks conservation:
 * sent == received + drops attributed by LossAccountant, nothing unexplained.
 *
 * Costs are set explicitly in each case (the e1000-2008 defaults unless
 * stated), so the cases test the mechanisms, not the preset.
 */
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

using namespace ns3;

namespace
{

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
class Bed
{
  public:
    NodeContainer nodes;
    Ptr<EthernetNetDevice> dev[2];
    Ipv4Address addr[2];
    HostReceiverHelper host; //!< configure before Install
    HostReceiverHelper::Host rx;
    Ptr<LossAccountant> accountant;
    Ptr<UdpFlowSource> source;
    Ptr<UdpFlowSink> sink;

    explicit Bed(DataRate rate)
    {
        nodes.Create(2);
        Ptr<EthernetChannel> channel = CreateObject<EthernetChannel>();
        NetDeviceContainer devices;
        for (int i = 0; i < 2; ++i)
        {
            dev[i] = CreateObject<EthernetNetDevice>();
            dev[i]->SetAttribute("DataRate", DataRateValue(rate));
            dev[i]->SetAttribute("Address", Mac48AddressValue(Mac48Address::Allocate()));
            nodes.Get(i)->AddDevice(dev[i]);
            dev[i]->Attach(channel);
            devices.Add(dev[i]);
        }
        InternetStackHelper stack;
        stack.Install(nodes);
        Ipv4AddressHelper ip("10.1.1.0", "255.255.255.0");
        Ipv4InterfaceContainer ifs = ip.Assign(devices);
        addr[0] = ifs.GetAddress(0);
        addr[1] = ifs.GetAddress(1);
        NeighborCacheHelper().PopulateNeighborCache(channel);
        accountant = Create<LossAccountant>();
        accountant->WatchHostDevice(dev[0]);
        accountant->WatchIpv4(nodes.Get(1));
    }

    /** The e1000-2008 costs (the attribute defaults), ITR as given. */
    void Costs(Time irq, Time driver, Time stack, Time read)
    {
        host.SetRxPathAttribute("IrqCost", TimeValue(irq));
        host.SetRxPathAttribute("DriverCost", TimeValue(driver));
        host.SetRxPathAttribute("StackCost", TimeValue(stack));
        host.SetReaderAttribute("ReadCost", TimeValue(read));
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
        }
        o.pauseSentByHost = dev[1]->GetPauseFramesSent();
        o.senderQueueDrops = o.frameDrops[LossAccountant::SENDER_QUEUE];
        Simulator::Destroy();
        return o;
    }
};

} // namespace

/**
 * HostCpu alone: strict pre-emptive priority hard IRQ > softirq > tasks,
 * round-robin time slices between tasks of one core, cores independent, and
 * CPU time accounted by kind of work. Every completion time is exact.
 */
class HostCpuSchedulingTestCase : public TestCase
{
  public:
    HostCpuSchedulingTestCase()
        : TestCase("HostCpu: IRQ > softirq > tasks, 3 ms slices, exact accounting")
    {
    }

  private:
    void Done(std::string name)
    {
        m_done[name] = Simulator::Now();
    }

    void DoRun() override
    {
        Ptr<HostCpu> cpu = CreateObject<HostCpu>();
        cpu->SetAttribute("Cores", UintegerValue(2));
        cpu->SetAttribute("TimeSlice", TimeValue(MilliSeconds(3)));
        const uint32_t a = cpu->CreateThread(0, "a");
        const uint32_t b = cpu->CreateThread(0, "b");
        const uint32_t c = cpu->CreateThread(1, "c");
        auto done = [this](std::string n) { return Callback<void>([this, n]() { Done(n); }); };
        Simulator::Schedule(Seconds(0), [&]() {
            cpu->Submit(a, MilliSeconds(10), HostCpu::APP_WORK, done("a"));
            cpu->Submit(b, MilliSeconds(10), HostCpu::APP_WORK, done("b"));
            cpu->Submit(c, MilliSeconds(4), HostCpu::APP_WORK, done("c"));
        });
        // At 1 ms a softirq job, then a hard IRQ job, both on core 0.
        Simulator::Schedule(MilliSeconds(1), [&]() {
            cpu->Submit(cpu->SoftIrqContext(0),
                        MilliSeconds(2),
                        HostCpu::SOFTIRQ_WORK,
                        done("soft"));
            cpu->Submit(cpu->HardIrqContext(0), MilliSeconds(1), HostCpu::IRQ_WORK, done("irq"));
        });
        // While the softirq runs, a second softirq job queues behind it (FIFO).
        Simulator::Schedule(MicroSeconds(2500), [&]() {
            cpu->Submit(cpu->SoftIrqContext(0),
                        MicroSeconds(500),
                        HostCpu::SOFTIRQ_WORK,
                        done("soft2"));
        });
        Simulator::Stop(MilliSeconds(30));
        Simulator::Run();
        Time busy[HostCpu::N_WORK];
        for (uint8_t w = 0; w < HostCpu::N_WORK; ++w)
        {
            busy[w] = cpu->GetBusyTime(static_cast<HostCpu::Work>(w));
        }
        const Time core1App = cpu->GetBusyTime(1, HostCpu::APP_WORK);
        const Time idle = cpu->GetIdleTime();
        const double shareSum = cpu->GetShare(HostCpu::IRQ_WORK) +
                                cpu->GetShare(HostCpu::SOFTIRQ_WORK) +
                                cpu->GetShare(HostCpu::APP_WORK) + cpu->GetIdleShare();
        Simulator::Destroy();

        // Core 0: a 0-1; irq 1-2 (pre-empts a; the softirq waits); soft 2-4; soft2 4-4.5;
        // a 4.5-6.5 (its slice: 1 + 2 = 3 ms); b 6.5-9.5; a 9.5-12.5 (6); b 12.5-15.5 (6);
        // a 15.5-18.5 (9); b 18.5-21.5 (9); a 21.5-22.5 (done); b 22.5-23.5 (done).
        NS_TEST_ASSERT_MSG_EQ(m_done["irq"], MilliSeconds(2), "hard IRQ pre-empts the task");
        NS_TEST_ASSERT_MSG_EQ(m_done["soft"], MilliSeconds(4), "softirq after the hard IRQ");
        NS_TEST_ASSERT_MSG_EQ(m_done["soft2"], MicroSeconds(4500), "softirq jobs in order");
        NS_TEST_ASSERT_MSG_EQ(m_done["a"], MicroSeconds(22500), "task a: 10 ms in 3 ms slices");
        NS_TEST_ASSERT_MSG_EQ(m_done["b"], MicroSeconds(23500), "task b: 10 ms in 3 ms slices");
        NS_TEST_ASSERT_MSG_EQ(m_done["c"], MilliSeconds(4), "core 1 is independent");
        NS_TEST_ASSERT_MSG_EQ(busy[HostCpu::IRQ_WORK], MilliSeconds(1), "IRQ time");
        NS_TEST_ASSERT_MSG_EQ(busy[HostCpu::SOFTIRQ_WORK], MicroSeconds(2500), "softirq time");
        NS_TEST_ASSERT_MSG_EQ(busy[HostCpu::APP_WORK], MilliSeconds(24), "task time");
        NS_TEST_ASSERT_MSG_EQ(core1App, MilliSeconds(4), "per-core time");
        NS_TEST_ASSERT_MSG_EQ(idle,
                              MilliSeconds(60) - MicroSeconds(27500),
                              "idle = cores*t - busy");
        NS_TEST_ASSERT_MSG_EQ_TOL(shareSum, 1.0, 1e-12, "shares sum to 1");
    }

    std::map<std::string, Time> m_done;
};

/**
 * CFS bandwidth control: a group's tasks share Quota per Period and are
 * throttled, on every core at once, when it is used up; the next period
 * refills it. Completion times and cpu.stat-style counters are exact.
 */
class HostCpuBandwidthTestCase : public TestCase
{
  public:
    HostCpuBandwidthTestCase()
        : TestCase("HostCpu: CFS bandwidth groups throttle at their quota, exact times")
    {
    }

  private:
    void Done(std::string name)
    {
        m_done[name] = Simulator::Now();
    }

    void DoRun() override
    {
        Ptr<HostCpu> cpu = CreateObject<HostCpu>();
        cpu->SetAttribute("Cores", UintegerValue(3));
        cpu->SetAttribute("TimeSlice", TimeValue(MilliSeconds(3)));
        const uint32_t a = cpu->CreateThread(0, "a");
        const uint32_t b = cpu->CreateThread(1, "b");
        const uint32_t c = cpu->CreateThread(2, "c");
        const uint32_t ga = cpu->CreateBandwidthGroup(MilliSeconds(20), MilliSeconds(100));
        const uint32_t gbc = cpu->CreateBandwidthGroup(MilliSeconds(30), MilliSeconds(100));
        cpu->SetThreadGroup(a, ga);
        cpu->SetThreadGroup(b, gbc);
        cpu->SetThreadGroup(c, gbc);
        auto done = [this](std::string n) { return Callback<void>([this, n]() { Done(n); }); };
        Simulator::Schedule(Seconds(0), [&]() {
            cpu->Submit(a, MilliSeconds(50), HostCpu::APP_WORK, done("a"));
            cpu->Submit(b, MilliSeconds(20), HostCpu::APP_WORK, done("b"));
            cpu->Submit(c, MilliSeconds(20), HostCpu::APP_WORK, done("c"));
        });
        Simulator::Stop(MilliSeconds(250));
        Simulator::Run();
        const uint64_t periods = cpu->GetGroupPeriods(ga);
        const uint64_t throttled = cpu->GetGroupThrottledPeriods(ga);
        const Time throttledTime = cpu->GetGroupThrottledTime(ga);
        const uint64_t throttledBc = cpu->GetGroupThrottledPeriods(gbc);
        const Time app = cpu->GetBusyTime(HostCpu::APP_WORK);
        Simulator::Destroy();

        // a: 20 ms of quota per 100 ms period: runs 0-20, 100-120, 200-210.
        NS_TEST_ASSERT_MSG_EQ(m_done["a"], MilliSeconds(210), "50 ms of work at 20 ms/100 ms");
        NS_TEST_ASSERT_MSG_EQ(periods, 3, "periods begun at 0, 100 and 200 ms");
        NS_TEST_ASSERT_MSG_EQ(throttled, 2, "throttled in the first two periods");
        NS_TEST_ASSERT_MSG_EQ(throttledTime, MilliSeconds(160), "20-100 and 120-200 ms");
        // b and c share 30 ms: both run 15 ms in parallel, wait, then finish at 105 ms.
        NS_TEST_ASSERT_MSG_EQ(m_done["b"], MilliSeconds(105), "the group's quota is shared");
        NS_TEST_ASSERT_MSG_EQ(m_done["c"], MilliSeconds(105), "throttled on every core at once");
        NS_TEST_ASSERT_MSG_EQ(throttledBc, 1, "one throttled period");
        NS_TEST_ASSERT_MSG_EQ(app, MilliSeconds(90), "CPU time = work done");
    }

    std::map<std::string, Time> m_done;
};

/**
 * Linux's UDP charging rule: with a stalled reader the socket takes exactly
 * floor(sk_rcvbuf / truesize) + 1 datagrams, sk_rcvbuf = 2 * min(SO_RCVBUF,
 * rmem_max) (or rmem_default without setsockopt), truesize by the copybreak
 * rule or fixed, and the sum of the fragments' for a fragmented datagram.
 */
class SocketCapacityTestCase : public TestCase
{
  public:
    SocketCapacityTestCase(std::string name,
                           uint32_t payload,
                           double pps,
                           uint32_t rcvbuf,
                           bool force,
                           uint32_t truesize,
                           uint32_t expectedRcvbuf,
                           uint32_t expectedTruesize)
        : TestCase("socket capacity: " + name),
          m_payload(payload),
          m_pps(pps),
          m_rcvbuf(rcvbuf),
          m_force(force),
          m_truesize(truesize),
          m_expectedRcvbuf(expectedRcvbuf),
          m_expectedTruesize(expectedTruesize)
    {
    }

  private:
    void DoRun() override
    {
        Bed bed(DataRate("100Mbps"));
        bed.Costs(MicroSeconds(8), MicroSeconds(2), MicroSeconds(2), MicroSeconds(5));
        bed.host.SetRxPathAttribute("InterruptThrottleRate", UintegerValue(0));
        bed.host.SetRxPathAttribute("Truesize", UintegerValue(m_truesize));
        bed.host.SetSocketAttribute("RcvBuf", UintegerValue(m_rcvbuf));
        bed.host.SetSocketAttribute("Force", BooleanValue(m_force));
        // The reader is stalled for the first 100 ms; the traffic lasts 50 ms.
        bed.host.SetReaderAttribute("StallStart", TimeValue(Seconds(0)));
        bed.host.SetReaderAttribute("StallPeriod", TimeValue(Seconds(10)));
        bed.host.SetReaderAttribute("StallLength", TimeValue(MilliSeconds(100)));
        bed.Install(1);
        bed.Traffic(m_payload, m_pps, MilliSeconds(1), MilliSeconds(51));
        Outcome o = bed.Finish(MilliSeconds(300), m_payload);

        const uint32_t capacity = m_expectedRcvbuf / m_expectedTruesize + 1;
        NS_TEST_ASSERT_MSG_EQ(o.rcvbuf, m_expectedRcvbuf, "sk_rcvbuf");
        NS_TEST_ASSERT_MSG_GT(o.sent, capacity, "more datagrams than the buffer holds");
        NS_TEST_ASSERT_MSG_EQ(o.socketEnqueued, capacity, "floor(rcvbuf / truesize) + 1 queued");
        NS_TEST_ASSERT_MSG_EQ(o.peakRmem, capacity * m_expectedTruesize, "charged by truesize");
        NS_TEST_ASSERT_MSG_EQ(o.received, capacity, "the reader reads them after the stall");
        NS_TEST_ASSERT_MSG_EQ(o.Drops(LossAccountant::SOCKET_RCVBUF),
                              o.sent - capacity,
                              "the rest: socket_rcvbuf");
        NS_TEST_ASSERT_MSG_EQ(o.pauseSentByHost, 0, "a full socket never pauses");
        NS_TEST_ASSERT_MSG_EQ(o.Conserved(), true, "sent = received + drops");
    }

    uint32_t m_payload;
    double m_pps;
    uint32_t m_rcvbuf;
    bool m_force;
    uint32_t m_truesize;
    uint32_t m_expectedRcvbuf;
    uint32_t m_expectedTruesize;
};

/** The truesize and sk_rcvbuf formulas themselves. */
class TruesizeRuleTestCase : public TestCase
{
  public:
    TruesizeRuleTestCase()
        : TestCase("truesize: e1000 copybreak rule; sk_rcvbuf: doubling, clamp, minimum")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<HostRxPath> path = CreateObject<HostRxPath>();
        // align64(len + NET_SKB_PAD 64) + 256 (sk_buff) + 320 (skb_shared_info)
        NS_TEST_ASSERT_MSG_EQ(path->TruesizeOf(60), 704, "minimum frame");
        NS_TEST_ASSERT_MSG_EQ(path->TruesizeOf(106), 768, "64-byte payload");
        NS_TEST_ASSERT_MSG_EQ(path->TruesizeOf(256), 896, "copybreak itself is copied");
        NS_TEST_ASSERT_MSG_EQ(path->TruesizeOf(257), 2304, "above copybreak: the 2 KiB buffer");
        NS_TEST_ASSERT_MSG_EQ(path->TruesizeOf(1514), 2304, "full frame");
        path->SetAttribute("CopyBreak", UintegerValue(0));
        NS_TEST_ASSERT_MSG_EQ(path->TruesizeOf(60),
                              2304,
                              "copybreak off: every frame keeps its buffer");
        path->SetAttribute("RxBufferTruesize", UintegerValue(4352));
        NS_TEST_ASSERT_MSG_EQ(path->TruesizeOf(1514), 4352, "4 KiB buffers");
        path->SetAttribute("Truesize", UintegerValue(1000));
        NS_TEST_ASSERT_MSG_EQ(path->TruesizeOf(60), 1000, "fixed truesize");

        Ptr<HostSocket> s = CreateObject<HostSocket>();
        NS_TEST_ASSERT_MSG_EQ(s->GetRcvbuf(), 212992, "no setsockopt: rmem_default, not doubled");
        s->SetAttribute("RcvBuf", UintegerValue(100000));
        NS_TEST_ASSERT_MSG_EQ(s->GetRcvbuf(), 200000, "doubled");
        s->SetAttribute("RcvBuf", UintegerValue(1000000));
        NS_TEST_ASSERT_MSG_EQ(s->GetRcvbuf(), 425984, "clamped to rmem_max, then doubled");
        s->SetAttribute("Force", BooleanValue(true));
        NS_TEST_ASSERT_MSG_EQ(s->GetRcvbuf(), 2000000, "SO_RCVBUFFORCE: no clamp");
        s->SetAttribute("RcvBuf", UintegerValue(1000));
        NS_TEST_ASSERT_MSG_EQ(s->GetRcvbuf(), 4608, "SOCK_MIN_RCVBUF");
        s->SetAttribute("Force", BooleanValue(false));
        s->SetAttribute("RmemMax", UintegerValue(8388608));
        s->SetAttribute("RcvBuf", UintegerValue(4194304));
        NS_TEST_ASSERT_MSG_EQ(s->GetRcvbuf(), 8388608, "rmem_max raised: 4 MiB doubled");
        s->SetAttribute("RcvBuf", UintegerValue(0));
        s->SetAttribute("RmemDefault", UintegerValue(1048576));
        NS_TEST_ASSERT_MSG_EQ(s->GetRcvbuf(), 1048576, "rmem_default");
        NS_TEST_ASSERT_MSG_EQ(HostSocket::Capacity(212992, 768), 278, "capacity formula");
        NS_TEST_ASSERT_MSG_EQ(HostSocket::Capacity(1536, 768), 3, "exact multiple: one more");
    }
};

/**
 * An idle host: a datagram reaches the application exactly wire + cable +
 * DMA + IrqCost + DriverCost + StackCost + ReadCost after it was sent (the
 * first interrupt after a quiet period is immediate, even with ITR), and
 * without a HostSocket, without ReadCost.
 */
class IdleLatencyTestCase : public TestCase
{
  public:
    IdleLatencyTestCase(bool socket, bool dma)
        : TestCase(std::string("idle host latency is the sum of the stages") +
                   (socket ? ", with a reader" : ", no socket") + (dma ? ", PCI DMA" : ", no DMA")),
          m_socket(socket),
          m_dma(dma)
    {
    }

  private:
    void DoRun() override
    {
        Bed bed(DataRate("100Mbps"));
        bed.Costs(MicroSeconds(8), MicroSeconds(2), MicroSeconds(3), MicroSeconds(5));
        bed.host.SetRxPathAttribute("InterruptThrottleRate", UintegerValue(2500));
        bed.host.SetRxPathAttribute("DmaRate",
                                    DataRateValue(DataRate(m_dma ? "1064Mbps" : "0bps")));
        bed.Install(m_socket ? 1 : 0);
        // 64-byte payloads 1 ms apart: every one finds the host idle.
        bed.Traffic(64, 1000, MilliSeconds(1), MilliSeconds(21), MilliSeconds(0));
        Outcome o = bed.Finish(MilliSeconds(50), 64);

        const uint32_t frame = 64 + 8 + 20 + ethernet::MAC_HEADER_BYTES; // 106, no FCS
        const double wireUs = ethernet::FrameWireBytes(frame) * 8 / 100.0;
        const double dmaUs =
            m_dma ? DataRate("1064Mbps").CalculateBytesTxTime(frame + 4).GetNanoSeconds() / 1000.0
                  : 0.0;
        const double expected = wireUs + 1.0 + dmaUs + 8 + 2 + 3 + (m_socket ? 5 : 0);
        NS_TEST_ASSERT_MSG_EQ(o.sent, 20, "20 datagrams");
        NS_TEST_ASSERT_MSG_EQ(o.received, 20, "no loss");
        NS_TEST_ASSERT_MSG_EQ_TOL(o.latencyP50Us, expected, 1e-6, "p50 latency exact");
        NS_TEST_ASSERT_MSG_EQ_TOL(o.latencyMaxUs, expected, 1e-6, "max latency exact");
        NS_TEST_ASSERT_MSG_EQ(o.stats.interrupts, 20, "one interrupt each");
        NS_TEST_ASSERT_MSG_EQ(o.busy[HostCpu::IRQ_WORK], MicroSeconds(20 * 8), "IRQ CPU time");
        NS_TEST_ASSERT_MSG_EQ(o.busy[HostCpu::SOFTIRQ_WORK], MicroSeconds(20 * 5), "softirq CPU");
        NS_TEST_ASSERT_MSG_EQ(o.busy[HostCpu::APP_WORK],
                              MicroSeconds(m_socket ? 20 * 5 : 0),
                              "application CPU time");
        NS_TEST_ASSERT_MSG_EQ(o.Conserved(), true, "sent = received + drops");
    }

    bool m_socket;
    bool m_dma;
};

/**
 * InterruptThrottleRate: interrupts are exactly the e1000 ITR interval apart
 * under steady traffic (floor(1e9 / (256 * 2500)) * 256 ns = 399.872 us);
 * ITR 0 raises one per frame while the kernel keeps up.
 */
class InterruptThrottleTestCase : public TestCase
{
  public:
    InterruptThrottleTestCase()
        : TestCase("ITR: interrupts exactly 399.872 us apart at 2500; one per frame at 0")
    {
    }

  private:
    void Irq(uint32_t ringFrames)
    {
        m_times.push_back(Simulator::Now());
    }

    void DoRun() override
    {
        {
            Ptr<HostRxPath> p = CreateObject<HostRxPath>();
            p->SetAttribute("InterruptThrottleRate", UintegerValue(2500));
            NS_TEST_ASSERT_MSG_EQ(p->GetInterruptInterval(), NanoSeconds(399872), "2500/s");
            p->SetAttribute("InterruptThrottleRate", UintegerValue(100000));
            NS_TEST_ASSERT_MSG_EQ(p->GetInterruptInterval(), NanoSeconds(9984), "100000/s");
            p->SetAttribute("InterruptThrottleRate", UintegerValue(0));
            NS_TEST_ASSERT_MSG_EQ(p->GetInterruptInterval(), Seconds(0), "off");
        }
        for (uint32_t itr : {2500u, 0u})
        {
            m_times.clear();
            Bed bed(DataRate("100Mbps"));
            bed.Costs(MicroSeconds(8), MicroSeconds(2), MicroSeconds(2), MicroSeconds(5));
            bed.host.SetRxPathAttribute("InterruptThrottleRate", UintegerValue(itr));
            bed.Install(1);
            bed.rx.path->TraceConnectWithoutContext(
                "Interrupt",
                MakeCallback(&InterruptThrottleTestCase::Irq, this));
            bed.Traffic(64, 40000, MilliSeconds(1), MilliSeconds(51));
            Outcome o = bed.Finish(MilliSeconds(80), 64);
            NS_TEST_ASSERT_MSG_EQ(o.sent, 2000, "40 kpps for 50 ms");
            NS_TEST_ASSERT_MSG_EQ(o.received, 2000, "no loss at 40 kpps");
            NS_TEST_ASSERT_MSG_EQ(o.stats.interrupts, m_times.size(), "trace = counter");
            if (itr == 0)
            {
                NS_TEST_ASSERT_MSG_EQ(o.stats.interrupts, 2000, "one interrupt per frame");
                NS_TEST_ASSERT_MSG_EQ(o.stats.polls, 2000, "one poll per interrupt");
            }
            else
            {
                uint64_t wrong = 0;
                for (std::size_t k = 1; k < m_times.size(); ++k)
                {
                    wrong += m_times[k] - m_times[k - 1] != NanoSeconds(399872);
                }
                NS_TEST_ASSERT_MSG_EQ(wrong, 0, "every gap is the ITR interval");
                // 50 ms / 399.872 us = 125.04: 126 interrupts, maybe one more for the tail
                NS_TEST_ASSERT_MSG_EQ_TOL(double(m_times.size()), 126.5, 0.5, "interrupt count");
            }
            NS_TEST_ASSERT_MSG_EQ(o.Conserved(), true, "sent = received + drops");
        }
    }

    std::vector<Time> m_times;
};

/**
 * NAPI and softirq budgets: 1000 frames wait in the ring during a 10 ms hard
 * IRQ; net_rx_action then polls the NIC 64 frames at a time until its budget
 * (300 packets, decremented after each poll: 5 polls = 320) or its time
 * (NetdevBudgetUsecs) is used up (time_squeeze); __do_softirq restarts it
 * while under MaxSoftirqRestart runs and MaxSoftirqTime, then ksoftirqd
 * finishes. 1000 frames = 15 polls of 64 + one of 40; the last is delivered
 * 10 ms + 1000 * DriverCost after the first arrived.
 */
class NapiBudgetTestCase : public TestCase
{
  public:
    NapiBudgetTestCase(Time driverCost,
                       uint32_t maxRestart,
                       uint64_t runs,
                       uint64_t squeezes,
                       uint64_t ksoftirqd,
                       std::string why)
        : TestCase("NAPI: " + why),
          m_driverCost(driverCost),
          m_maxRestart(maxRestart),
          m_runs(runs),
          m_squeezes(squeezes),
          m_ksoftirqd(ksoftirqd)
    {
    }

  private:
    void DoRun() override
    {
        Bed bed(DataRate("100Mbps"));
        bed.Costs(MilliSeconds(10), m_driverCost, Seconds(0), MicroSeconds(5));
        bed.host.SetRxPathAttribute("InterruptThrottleRate", UintegerValue(0));
        bed.host.SetRxPathAttribute("RxRingSize", UintegerValue(2048));
        bed.host.SetRxPathAttribute("MaxSoftirqRestart", UintegerValue(m_maxRestart));
        bed.Install(0);
        // 1000 datagrams of 18 bytes (60-byte frames) at once at t = 1 ms.
        bed.Traffic(18,
                    1000,
                    MilliSeconds(1),
                    MilliSeconds(1) + NanoSeconds(1),
                    Seconds(0),
                    "burst:1000");
        Outcome o = bed.Finish(MilliSeconds(200), 18);

        NS_TEST_ASSERT_MSG_EQ(o.sent, 1000, "one burst");
        NS_TEST_ASSERT_MSG_EQ(o.received, 1000, "no loss");
        NS_TEST_ASSERT_MSG_EQ(o.stats.interrupts, 1, "one interrupt");
        NS_TEST_ASSERT_MSG_EQ(o.stats.peakRingFrames, 1000, "all in the ring");
        NS_TEST_ASSERT_MSG_EQ(o.stats.polls, 16, "15 polls of 64, one of 40");
        NS_TEST_ASSERT_MSG_EQ(o.stats.softirqRuns, m_runs, "net_rx_action runs");
        NS_TEST_ASSERT_MSG_EQ(o.stats.timeSqueeze, m_squeezes, "time_squeeze");
        NS_TEST_ASSERT_MSG_EQ(o.stats.ksoftirqdWakeups, m_ksoftirqd, "handed to ksoftirqd");
        // First frame: 72 wire bytes (5.76 us) + 1 us cable + DMA of 64 bytes.
        const double dmaUs = DataRate("1064Mbps").CalculateBytesTxTime(64).GetNanoSeconds() / 1e3;
        NS_TEST_ASSERT_MSG_EQ_TOL(o.latencyMaxUs,
                                  5.76 + 1.0 + dmaUs + 10000 +
                                      1000 * m_driverCost.GetMicroSeconds(),
                                  1e-6,
                                  "the last frame after the IRQ and all the poll work");
        NS_TEST_ASSERT_MSG_EQ(o.busy[HostCpu::IRQ_WORK], MilliSeconds(10), "IRQ time");
        NS_TEST_ASSERT_MSG_EQ(o.busy[HostCpu::SOFTIRQ_WORK],
                              m_driverCost * 1000,
                              "softirq time, ksoftirqd's included");
        NS_TEST_ASSERT_MSG_EQ(o.Conserved(), true, "sent = received + drops");
    }

    Time m_driverCost;
    uint32_t m_maxRestart;
    uint64_t m_runs;
    uint64_t m_squeezes;
    uint64_t m_ksoftirqd;
};

/**
 * RxBufferWrite: the driver gives cleaned descriptors back every 16 frames,
 * so during one poll the NIC refills the ring from its FIFO and the poll goes
 * on (ring of 40, 100 frames: polls of 64 and 36, one interrupt). Giving them
 * back only at the end of a poll (64) empties the ring first: 3 polls of at
 * most 39, 3 interrupts.
 */
class RxBufferWriteTestCase : public TestCase
{
  public:
    RxBufferWriteTestCase(uint32_t rxBufferWrite, uint64_t interrupts, uint64_t polls)
        : TestCase("RxBufferWrite " + std::to_string(rxBufferWrite) + ": " +
                   std::to_string(interrupts) + " interrupts, " + std::to_string(polls) + " polls"),
          m_rxBufferWrite(rxBufferWrite),
          m_interrupts(interrupts),
          m_polls(polls)
    {
    }

  private:
    void DoRun() override
    {
        Bed bed(DataRate("100Mbps"));
        bed.Costs(MilliSeconds(1), MicroSeconds(2), MicroSeconds(2), MicroSeconds(5));
        bed.host.SetRxPathAttribute("InterruptThrottleRate", UintegerValue(0));
        bed.host.SetRxPathAttribute("RxRingSize", UintegerValue(40));
        bed.host.SetRxPathAttribute("RxBufferWrite", UintegerValue(m_rxBufferWrite));
        bed.Install(0);
        bed.Traffic(18,
                    1000,
                    MilliSeconds(1),
                    MilliSeconds(1) + NanoSeconds(1),
                    Seconds(0),
                    "burst:100");
        Outcome o = bed.Finish(MilliSeconds(50), 18);
        NS_TEST_ASSERT_MSG_EQ(o.received, 100, "no loss: the FIFO holds the rest");
        NS_TEST_ASSERT_MSG_EQ(o.stats.peakRingFrames, 39, "a ring of 40 holds 39");
        NS_TEST_ASSERT_MSG_EQ(o.stats.interrupts, m_interrupts, "interrupts");
        NS_TEST_ASSERT_MSG_EQ(o.stats.polls, m_polls, "polls");
        NS_TEST_ASSERT_MSG_EQ(o.Conserved(), true, "sent = received + drops");
    }

    uint32_t m_rxBufferWrite;
    uint64_t m_interrupts;
    uint64_t m_polls;
};

/**
 * FIFO and ring: a burst of 50 frames during a 1 ms hard IRQ with a ring of
 * 8 descriptors (7 usable). e1000: 43 frames wait in the FIFO (RNBC counts
 * them, nothing lost); a 640-byte FIFO holds 10 and drops 33 (rx_fifo);
 * DROP_EN drops all 43 at once (rx_ring).
 */
class RingAndFifoTestCase : public TestCase
{
  public:
    RingAndFifoTestCase(uint32_t fifo, bool dropEn, uint64_t fifoDrops, uint64_t ringDrops)
        : TestCase("ring of 8, FIFO " + std::to_string(fifo) + (dropEn ? ", DROP_EN" : "") + ": " +
                   std::to_string(fifoDrops) + " rx_fifo, " + std::to_string(ringDrops) +
                   " rx_ring"),
          m_fifo(fifo),
          m_dropEn(dropEn),
          m_fifoDrops(fifoDrops),
          m_ringDrops(ringDrops)
    {
    }

  private:
    void DoRun() override
    {
        Bed bed(DataRate("100Mbps"));
        bed.Costs(MilliSeconds(1), MicroSeconds(2), MicroSeconds(2), MicroSeconds(5));
        bed.host.SetRxPathAttribute("InterruptThrottleRate", UintegerValue(0));
        bed.host.SetRxPathAttribute("RxRingSize", UintegerValue(8));
        bed.host.SetRxPathAttribute("RxFifoBytes", UintegerValue(m_fifo));
        bed.host.SetRxPathAttribute("DropWhenNoDescriptor", BooleanValue(m_dropEn));
        bed.Install(1);
        bed.Traffic(18,
                    1000,
                    MilliSeconds(1),
                    MilliSeconds(1) + NanoSeconds(1),
                    Seconds(0),
                    "burst:50");
        Outcome o = bed.Finish(MilliSeconds(50), 18);

        NS_TEST_ASSERT_MSG_EQ(o.sent, 50, "one burst of 50");
        NS_TEST_ASSERT_MSG_EQ(o.stats.rxNoBuffer, 43, "arrivals with no free descriptor");
        NS_TEST_ASSERT_MSG_EQ(o.stats.rxFifoDrops, m_fifoDrops, "rx_missed_errors");
        NS_TEST_ASSERT_MSG_EQ(o.stats.rxRingDrops, m_ringDrops, "ring drops");
        NS_TEST_ASSERT_MSG_EQ(o.Drops(LossAccountant::RX_FIFO), m_fifoDrops, "rx_fifo");
        NS_TEST_ASSERT_MSG_EQ(o.Drops(LossAccountant::RX_RING), m_ringDrops, "rx_ring");
        NS_TEST_ASSERT_MSG_EQ(o.received, 50 - m_fifoDrops - m_ringDrops, "the rest arrive");
        NS_TEST_ASSERT_MSG_EQ(o.stats.peakRingFrames, 7, "a ring of 8 holds 7");
        NS_TEST_ASSERT_MSG_EQ(o.Conserved(), true, "sent = received + drops");
    }

    uint32_t m_fifo;
    bool m_dropEn;
    uint64_t m_fifoDrops;
    uint64_t m_ringDrops;
};

/**
 * RPS and the backlog: frames steered to core 1, whose process_backlog takes
 * 1 ms per frame. While the first is processed the other 99 of a burst
 * arrive; the input queue accepts a frame while it holds at most
 * netdev_max_backlog: with 20, 1 + 21 get through and 78 are backlog drops;
 * with 1000 all do, in process_backlog polls of at most DevWeight frames.
 */
class RpsBacklogTestCase : public TestCase
{
  public:
    RpsBacklogTestCase(uint32_t backlog, uint32_t devWeight, uint64_t drops, uint64_t backlogPolls)
        : TestCase("RPS: backlog " + std::to_string(backlog) + ", dev_weight " +
                   std::to_string(devWeight) + ": " + std::to_string(drops) + " drops, " +
                   std::to_string(backlogPolls) + " polls"),
          m_backlog(backlog),
          m_devWeight(devWeight),
          m_drops(drops),
          m_backlogPolls(backlogPolls)
    {
    }

  private:
    void DoRun() override
    {
        Bed bed(DataRate("100Mbps"));
        bed.Costs(MicroSeconds(1), MicroSeconds(1), MilliSeconds(1), MicroSeconds(5));
        bed.host.SetCpuAttribute("Cores", UintegerValue(2));
        bed.host.SetRxPathAttribute("InterruptThrottleRate", UintegerValue(0));
        bed.host.SetRxPathAttribute("RpsCpus", UintegerValue(0x2));
        bed.host.SetRxPathAttribute("BacklogSize", UintegerValue(m_backlog));
        bed.host.SetRxPathAttribute("DevWeight", UintegerValue(m_devWeight));
        bed.Install(0);
        bed.Traffic(18,
                    1000,
                    MilliSeconds(1),
                    MilliSeconds(1) + NanoSeconds(1),
                    Seconds(0),
                    "burst:100");
        Ptr<HostCpu> cpu = bed.rx.cpu;
        Outcome o = bed.Finish(MilliSeconds(200), 18);
        const uint64_t through = 100 - m_drops;
        NS_TEST_ASSERT_MSG_EQ(o.sent, 100, "one burst of 100");
        NS_TEST_ASSERT_MSG_EQ(o.stats.backlogDrops, m_drops, "softnet_stat dropped");
        NS_TEST_ASSERT_MSG_EQ(o.Drops(LossAccountant::BACKLOG), m_drops, "backlog");
        NS_TEST_ASSERT_MSG_EQ(o.received, through, "the rest get through");
        NS_TEST_ASSERT_MSG_EQ(o.stats.backlogPolls, m_backlogPolls, "process_backlog polls");
        NS_TEST_ASSERT_MSG_EQ(o.busy[HostCpu::SOFTIRQ_WORK],
                              MicroSeconds(100) + MilliSeconds(int64_t(through)),
                              "driver on core 0 for all, IP on core 1 for those let through");
        NS_TEST_ASSERT_MSG_EQ(o.Conserved(), true, "sent = received + drops");
    }

    uint32_t m_backlog;
    uint32_t m_devWeight;
    uint64_t m_drops;
    uint64_t m_backlogPolls;
};

/**
 * ksoftirqd shares the core: a host whose softirq cannot keep up (DriverCost
 * 20 us, 80 kpps offered, one core) never completes its NAPI poll, so the
 * work moves to ksoftirqd, a task like the reader; the two then share the
 * core by time slices (the application is not starved as it is by softirqs
 * run on interrupt exit). The reader (50 us per read, it always has data)
 * gets about half the core: ~10 kpps.
 */
class KsoftirqdShareTestCase : public TestCase
{
  public:
    KsoftirqdShareTestCase()
        : TestCase("ksoftirqd: an overloaded softirq shares the core with the reader")
    {
    }

  private:
    void DoRun() override
    {
        Bed bed(DataRate("100Mbps"));
        bed.Costs(MicroSeconds(8), MicroSeconds(20), MicroSeconds(2), MicroSeconds(50));
        bed.host.SetRxPathAttribute("InterruptThrottleRate", UintegerValue(2500));
        bed.Install(1);
        bed.Traffic(64, 80000, MilliSeconds(1), MilliSeconds(201), MilliSeconds(50));
        Outcome o = bed.Finish(MilliSeconds(400), 64);
        NS_TEST_ASSERT_MSG_GT_OR_EQ(o.stats.ksoftirqdWakeups, 1, "work handed to ksoftirqd");
        NS_TEST_ASSERT_MSG_EQ_TOL(o.goodputPps, 10000, 1000, "the reader gets half the core");
        NS_TEST_ASSERT_MSG_GT(o.Drops(LossAccountant::RX_FIFO), 0, "the ring overflows");
        NS_TEST_ASSERT_MSG_GT(o.Drops(LossAccountant::SOCKET_RCVBUF), 0, "so does the socket");
        NS_TEST_ASSERT_MSG_EQ(o.Conserved(), true, "sent = received + drops");
    }
};

/**
 * Reassembly: datagrams of three fragments whose 2nd and 3rd find no
 * descriptor (DROP_EN, one usable descriptor, 1 ms IRQ): the first fragment
 * waits in reassembly until ReassemblyTimeout and is dropped there; the
 * datagram's loss is charged to its first drop point, rx_ring.
 */
class ReassemblyTimeoutTestCase : public TestCase
{
  public:
    ReassemblyTimeoutTestCase()
        : TestCase("reassembly: incomplete datagrams time out, loss charged to rx_ring")
    {
    }

  private:
    void DoRun() override
    {
        Bed bed(DataRate("100Mbps"));
        bed.Costs(MilliSeconds(1), MicroSeconds(2), MicroSeconds(2), MicroSeconds(5));
        bed.host.SetRxPathAttribute("InterruptThrottleRate", UintegerValue(0));
        bed.host.SetRxPathAttribute("RxRingSize", UintegerValue(2));
        bed.host.SetRxPathAttribute("DropWhenNoDescriptor", BooleanValue(true));
        bed.host.SetRxPathAttribute("ReassemblyTimeout", TimeValue(MilliSeconds(50)));
        bed.Install(1);
        bed.Traffic(4000, 100, MilliSeconds(1), MilliSeconds(50), Seconds(0));
        Outcome o = bed.Finish(MilliSeconds(200), 4000);

        NS_TEST_ASSERT_MSG_EQ(o.sent, 5, "5 datagrams, 10 ms apart");
        NS_TEST_ASSERT_MSG_EQ(o.received, 0, "none complete");
        NS_TEST_ASSERT_MSG_EQ(o.stats.rxRingDrops, 10, "2nd and 3rd fragments");
        NS_TEST_ASSERT_MSG_EQ(o.stats.reassemblyTimeouts, 5, "Ip ReasmTimeout");
        NS_TEST_ASSERT_MSG_EQ(o.stats.reassemblyDrops, 5, "first fragments dropped by the timer");
        NS_TEST_ASSERT_MSG_EQ(o.frameDrops[LossAccountant::REASSEMBLY], 5, "traced");
        NS_TEST_ASSERT_MSG_EQ(o.Drops(LossAccountant::RX_RING), 5, "first drop point wins");
        NS_TEST_ASSERT_MSG_EQ(o.Conserved(), true, "sent = received + drops");
    }
};

/**
 * Receive livelock (docs/physics.md §2), 64-byte payloads at 100 Mbit/s, costs
 * c_i = 8 us per interrupt, c_d = 4 us per frame, c_a = 5 us per read, one
 * core. ITR 0: one interrupt per frame (while 1/lambda > c_i + c_d), so the
 * application gets what is left: goodput = min(lambda, (1 - lambda (c_i +
 * c_d)) / c_a); the knee is 1/(c_i + c_d + c_a) = 58.8 kpps and beyond it
 * goodput FALLS with slope -(c_i + c_d)/c_a = -2.4. ITR 2500: the interrupt
 * cost is capped at 2500 c_i = 2 %, the knee moves to (1 - 2500 c_i)/(c_d +
 * c_a) = 108.9 kpps, beyond the 96.2 kpps a 100 Mbit/s wire carries: no loss
 * at all; at 1 Gbit/s the knee shows at that rate and goodput falls beyond it
 * with slope -c_d/c_a.
 */
class LivelockTestCase : public TestCase
{
  public:
    LivelockTestCase()
        : TestCase("livelock: ITR 0 goodput falls past 58.8 kpps; ITR 2500 knee 108.9 kpps")
    {
    }

  private:
    Outcome Run(DataRate link, uint32_t itr, double pps)
    {
        Bed bed(link);
        bed.Costs(MicroSeconds(8), MicroSeconds(2), MicroSeconds(2), MicroSeconds(5));
        bed.host.SetRxPathAttribute("InterruptThrottleRate", UintegerValue(itr));
        bed.Install(1);
        bed.Traffic(64, pps, MilliSeconds(1), MilliSeconds(151));
        return bed.Finish(MilliSeconds(300), 64);
    }

    void DoRun() override
    {
        const double ci = 8e-6;
        const double cd = 4e-6;
        const double ca = 5e-6;
        // ---- 100 Mbit/s
        const std::vector<double> rates{40e3, 56e3, 64e3, 72e3, 80e3};
        std::vector<Outcome> itr0;
        std::vector<Outcome> itr2500;
        for (double pps : rates)
        {
            itr0.push_back(Run(DataRate("100Mbps"), 0, pps));
            itr2500.push_back(Run(DataRate("100Mbps"), 2500, pps));
        }
        for (std::size_t k = 0; k < rates.size(); ++k)
        {
            const double pps = rates[k];
            const Outcome& a = itr0[k];
            const Outcome& b = itr2500[k];
            const std::string at = " at " + std::to_string(int(pps)) + " pps";
            NS_TEST_ASSERT_MSG_EQ(a.Conserved(), true, "conservation, ITR 0" + at);
            NS_TEST_ASSERT_MSG_EQ(b.Conserved(), true, "conservation, ITR 2500" + at);
            NS_TEST_ASSERT_MSG_EQ(a.stats.interrupts,
                                  a.sent,
                                  "ITR 0: one interrupt per frame" + at);
            const double model = std::min(pps, (1 - pps * (ci + cd)) / ca);
            NS_TEST_ASSERT_MSG_EQ_TOL(a.goodputPps, model, 0.01 * pps, "ITR 0 livelock line" + at);
            NS_TEST_ASSERT_MSG_EQ(a.Drops(LossAccountant::SOCKET_RCVBUF),
                                  a.lost,
                                  "all at the socket");
            NS_TEST_ASSERT_MSG_EQ(b.lost, 0, "ITR 2500: no loss below its knee" + at);
            NS_TEST_ASSERT_MSG_LT_OR_EQ(b.Loss() * 10, a.Loss(), "ITR 2500 loses 10x less" + at);
            NS_TEST_ASSERT_MSG_LT_OR_EQ(b.stats.interrupts, 151 * 2.5 + 1, "ITR caps interrupts");
            if (k > 0 && pps > 1 / (ci + cd + ca))
            {
                NS_TEST_ASSERT_MSG_LT(a.goodputPps,
                                      itr0[k - 1].goodputPps - 5000,
                                      "past the knee goodput falls as the rate rises" + at);
            }
        }
        NS_TEST_ASSERT_MSG_EQ(itr0[0].lost + itr0[1].lost, 0, "ITR 0: no loss below 58.8 kpps");
        // CPU time is exactly the costs times the counts below the knee.
        const Outcome& low = itr0[0];
        NS_TEST_ASSERT_MSG_EQ(low.busy[HostCpu::IRQ_WORK],
                              MicroSeconds(8) * int64_t(low.sent),
                              "irq");
        NS_TEST_ASSERT_MSG_EQ(low.busy[HostCpu::SOFTIRQ_WORK],
                              MicroSeconds(4) * int64_t(low.sent),
                              "softirq");
        NS_TEST_ASSERT_MSG_EQ(low.busy[HostCpu::APP_WORK],
                              MicroSeconds(5) * int64_t(low.sent),
                              "app");

        // ---- 1 Gbit/s: the ITR 2500 knee and the fall past it
        const double knee2500 = (1 - 2500 * ci) / (cd + ca);
        for (double pps : {104e3, 112e3, 120e3})
        {
            const Outcome b = Run(DataRate("1Gbps"), 2500, pps);
            const std::string at = " at " + std::to_string(int(pps)) + " pps, 1 Gbit/s";
            NS_TEST_ASSERT_MSG_EQ(b.Conserved(), true, "conservation" + at);
            const double model = std::min(pps, (1 - 2500 * ci - pps * cd) / ca);
            NS_TEST_ASSERT_MSG_EQ_TOL(b.goodputPps, model, 0.01 * pps, "ITR 2500 line" + at);
            if (pps < knee2500)
            {
                NS_TEST_ASSERT_MSG_EQ(b.lost, 0, "no loss below the knee" + at);
            }
            else
            {
                NS_TEST_ASSERT_MSG_GT(b.lost, 0, "loss past the knee" + at);
            }
        }
    }
};

/**
 * Seed 000: ITR removes the interrupt losses; what is left comes from the
 * socket buffer while the application stalls, in bursts; a larger buffer
 * removes it. 64-byte payloads at 64 kpps, reader stalls of 5 ms every 50 ms,
 * rmem_default (278 datagrams of truesize 768 < 320 arriving per stall).
 */
class StallBurstTestCase : public TestCase
{
  public:
    StallBurstTestCase()
        : TestCase("stalls: ITR 2500 loss 10x lower and bursty; a larger rcvbuf removes it")
    {
    }

  private:
    Outcome Run(uint32_t itr, uint32_t rcvbuf)
    {
        Bed bed(DataRate("100Mbps"));
        bed.Costs(MicroSeconds(8), MicroSeconds(2), MicroSeconds(2), MicroSeconds(5));
        bed.host.SetRxPathAttribute("InterruptThrottleRate", UintegerValue(itr));
        bed.host.SetSocketAttribute("RcvBuf", UintegerValue(rcvbuf));
        bed.host.SetReaderAttribute("StallStart", TimeValue(MilliSeconds(50)));
        bed.host.SetReaderAttribute("StallPeriod", TimeValue(MilliSeconds(50)));
        bed.host.SetReaderAttribute("StallLength", TimeValue(MilliSeconds(5)));
        bed.Install(1);
        bed.Traffic(64, 64000, MilliSeconds(10), MilliSeconds(410));
        return bed.Finish(MilliSeconds(600), 64);
    }

    void DoRun() override
    {
        const Outcome a = Run(0, 0);
        const Outcome b = Run(2500, 0);
        const Outcome c = Run(2500, 212992);
        NS_TEST_ASSERT_MSG_EQ(a.Conserved(), true, "conservation, ITR 0");
        NS_TEST_ASSERT_MSG_EQ(b.Conserved(), true, "conservation, ITR 2500");
        NS_TEST_ASSERT_MSG_EQ(c.Conserved(), true, "conservation, large rcvbuf");
        NS_TEST_ASSERT_MSG_GT(b.lost, 0, "ITR 2500 still loses during stalls");
        NS_TEST_ASSERT_MSG_LT_OR_EQ(b.Loss() * 10, a.Loss(), "10x less loss with ITR 2500");
        NS_TEST_ASSERT_MSG_GT(b.runMean, 10 * a.runMean, "losses come in long runs");
        NS_TEST_ASSERT_MSG_EQ(b.Drops(LossAccountant::SOCKET_RCVBUF), b.lost, "all at the socket");
        NS_TEST_ASSERT_MSG_EQ(b.pauseSentByHost, 0, "no PAUSE for a full socket");
        NS_TEST_ASSERT_MSG_EQ(c.rcvbuf, 425984, "SO_RCVBUF 212992, doubled");
        NS_TEST_ASSERT_MSG_LT(c.Loss(), 1e-4, "555 datagrams cover a 5 ms stall at 64 kpps");
    }
};

/**
 * Host PAUSE comes from the NIC FIFO only. A host whose softirq cannot keep
 * up (DriverCost 20 us: 50 kpps, offered 80 kpps) exhausts its ring, the FIFO
 * fills, and every XOFF is sent with no free descriptor and the FIFO at the
 * high-water mark; the sender (honouring PAUSE, blocking) then loses nothing.
 * Without flow control the same host drops at the FIFO. A 20 ms hard IRQ
 * keeps the FIFO above the low-water mark: XOFF is refreshed every 832
 * quanta (4259.84 us at 100 Mbit/s).
 */
class HostPauseTestCase : public TestCase
{
  public:
    HostPauseTestCase()
        : TestCase(
              "PAUSE only when the FIFO fills (ring exhausted), refreshed, XON below low water")
    {
    }

  private:
    void PauseTx(Ptr<HostRxPath> path, uint16_t quanta)
    {
        m_pauses.push_back({Simulator::Now(), quanta});
        if (quanta > 0)
        {
            m_badQuanta += quanta != 0x0680;
            m_badXoff +=
                path->GetFreeDescriptors() != 0 || path->GetFifoBytes() < path->GetLowWater();
        }
        else
        {
            m_badXon += path->GetFifoBytes() >= path->GetLowWater();
        }
    }

    Outcome Run(bool flowControl, Time irqCost, Time driverCost, uint32_t& hwm, bool sendXon = true)
    {
        m_pauses.clear();
        Bed bed(DataRate("100Mbps"));
        bed.Costs(irqCost, driverCost, MicroSeconds(2), MicroSeconds(5));
        bed.host.SetCpuAttribute("Cores", UintegerValue(2)); // the reader keeps up on core 1
        bed.host.SetRxPathAttribute("InterruptThrottleRate", UintegerValue(2500));
        bed.host.SetRxPathAttribute("FlowControl", BooleanValue(flowControl));
        bed.host.SetRxPathAttribute("SendXon", BooleanValue(sendXon));
        bed.dev[0]->SetFlowControl(true); // the sender honours PAUSE
        bed.Install(1);
        bed.rx.path->TraceConnectWithoutContext("RxFifoDrop", MakeCallback(&Nop));
        bed.dev[1]->TraceConnectWithoutContext(
            "PauseTx",
            MakeCallback(&HostPauseTestCase::PauseTx, this).Bind(bed.rx.path));
        bed.Traffic(64, 80000, MilliSeconds(1), MilliSeconds(101));
        bed.source->SetAttribute("Blocking", BooleanValue(true));
        hwm = bed.rx.path->GetHighWater();
        return bed.Finish(MilliSeconds(400), 64);
    }

    static void Nop(Ptr<const Packet> p)
    {
    }

    void DoRun() override
    {
        uint32_t hwm = 0;
        // Overloaded softirq, flow control on: PAUSE, no loss.
        m_badXoff = m_badXon = 0;
        const Outcome a = Run(true, MicroSeconds(8), MicroSeconds(20), hwm);
        NS_TEST_ASSERT_MSG_EQ(hwm, 44232, "min(0.9 * 49152, 49152 - 1518) & ~7");
        NS_TEST_ASSERT_MSG_GT(a.stats.xoffSent, 0, "XOFF sent");
        NS_TEST_ASSERT_MSG_EQ(a.pauseSentByHost,
                              a.stats.xoffSent + a.stats.xonSent,
                              "all on the wire");
        NS_TEST_ASSERT_MSG_EQ(m_badXoff,
                              0,
                              "XOFF only with the ring exhausted, FIFO at high water");
        NS_TEST_ASSERT_MSG_EQ(m_badXon, 0, "XON only below low water");
        NS_TEST_ASSERT_MSG_GT_OR_EQ(a.stats.peakFifoBytes, hwm, "the FIFO reached high water");
        NS_TEST_ASSERT_MSG_EQ(a.stats.rxFifoDrops, 0, "PAUSE in time: no FIFO drop");
        NS_TEST_ASSERT_MSG_EQ(a.lost, 0, "lossless: the sender waits");
        NS_TEST_ASSERT_MSG_EQ(a.Conserved(), true, "conservation with PAUSE");
        // Same host without flow control: FIFO drops, no PAUSE.
        const Outcome b = Run(false, MicroSeconds(8), MicroSeconds(20), hwm);
        NS_TEST_ASSERT_MSG_EQ(b.pauseSentByHost, 0, "no PAUSE without flow control");
        NS_TEST_ASSERT_MSG_GT(b.Drops(LossAccountant::RX_FIFO), 0, "rx_fifo drops instead");
        NS_TEST_ASSERT_MSG_EQ(b.Conserved(), true, "conservation without PAUSE");
        // A 20 ms hard IRQ: the FIFO stays above low water, XOFF is refreshed.
        m_badXoff = m_badXon = 0;
        const Outcome c = Run(true, MilliSeconds(20), MicroSeconds(2), hwm);
        uint32_t refreshes = 0;
        uint32_t wrongGap = 0;
        for (std::size_t k = 1; k < m_pauses.size(); ++k)
        {
            if (m_pauses[k].second > 0 && m_pauses[k - 1].second > 0)
            {
                ++refreshes;
                wrongGap += m_pauses[k].first - m_pauses[k - 1].first != NanoSeconds(4259840);
            }
        }
        NS_TEST_ASSERT_MSG_GT(refreshes, 0, "XOFF refreshed while above low water");
        NS_TEST_ASSERT_MSG_EQ(wrongGap, 0, "refresh every 832 quanta");
        NS_TEST_ASSERT_MSG_EQ(m_badXoff, 0, "refreshes too only with the FIFO full");
        NS_TEST_ASSERT_MSG_EQ(m_badXon, 0, "XON only below low water");
        NS_TEST_ASSERT_MSG_EQ(c.stats.rxFifoDrops, 0, "no FIFO drop");
        NS_TEST_ASSERT_MSG_EQ(c.Conserved(), true, "conservation with refreshes");
        // No XON: the sender waits for each PAUSE to expire; still lossless.
        m_badXoff = m_badXon = 0;
        const Outcome d = Run(true, MicroSeconds(8), MicroSeconds(20), hwm, false);
        NS_TEST_ASSERT_MSG_GT(d.stats.xoffSent, 0, "XOFF sent");
        NS_TEST_ASSERT_MSG_EQ(d.stats.xonSent, 0, "no XON");
        NS_TEST_ASSERT_MSG_EQ(d.pauseSentByHost, d.stats.xoffSent, "only XOFF on the wire");
        NS_TEST_ASSERT_MSG_EQ(m_badXoff, 0, "XOFF only with the ring exhausted");
        NS_TEST_ASSERT_MSG_EQ(d.lost, 0, "lossless");
        NS_TEST_ASSERT_MSG_EQ(d.Conserved(), true, "conservation without XON");
        NS_TEST_ASSERT_MSG_EQ(m_badQuanta, 0, "every XOFF carries 0x0680 quanta");
    }

    std::vector<std::pair<Time, uint16_t>> m_pauses;
    uint64_t m_badXoff{0};
    uint64_t m_badXon{0};
    uint64_t m_badQuanta{0};
};

/**
 * Seed 004: receive capacity grows with the number of reading processes, up
 * to the wire. 1 Gbit/s, 18-byte payloads at 1.4 Mpps (the wire carries
 * 1.488), 4 cores, NIC interrupt on core 0, readers on cores 1-3 sharing one
 * socket, 2 us per read: 1 reader reads 0.5 Mpps, 2 read 1 Mpps, 3 read all.
 */
class ReadersScaleTestCase : public TestCase
{
  public:
    ReadersScaleTestCase()
        : TestCase("readers: capacity grows with processes on separate cores up to the wire")
    {
    }

  private:
    void DoRun() override
    {
        const double pps = 1.4e6;
        for (uint32_t n : {1u, 2u, 3u})
        {
            Bed bed(DataRate("1Gbps"));
            bed.Costs(MicroSeconds(1), NanoSeconds(250), NanoSeconds(250), MicroSeconds(2));
            bed.host.SetCpuAttribute("Cores", UintegerValue(4));
            bed.host.SetRxPathAttribute("InterruptThrottleRate", UintegerValue(20000));
            bed.Install(n);
            bed.Traffic(18, pps, MilliSeconds(1), MilliSeconds(21), MilliSeconds(5));
            Outcome o = bed.Finish(MilliSeconds(40), 18);
            const std::string with = " with " + std::to_string(n) + " readers";
            const double expected = std::min(pps, n * 0.5e6);
            NS_TEST_ASSERT_MSG_EQ_TOL(o.goodputPps, expected, 0.02 * expected, "goodput" + with);
            NS_TEST_ASSERT_MSG_EQ(o.Conserved(), true, "conservation" + with);
            uint64_t reads = 0;
            for (std::size_t i = 0; i < o.readerReads.size(); ++i)
            {
                reads += o.readerReads[i];
                NS_TEST_ASSERT_MSG_EQ(o.readerCpu[i],
                                      MicroSeconds(2) * int64_t(o.readerReads[i]),
                                      "each reader has its own CPU time");
                NS_TEST_ASSERT_MSG_GT(o.readerReads[i], 0, "every reader reads");
            }
            NS_TEST_ASSERT_MSG_EQ(reads, o.received, "reads = datagrams received");
            if (n == 3)
            {
                NS_TEST_ASSERT_MSG_EQ(o.lost, 0, "three readers keep up with the wire");
            }
        }
    }
};

/**
 * Several sockets: HostReceiverHelper::Install with two ports puts a
 * HostSocket on each, with its own reader, on cores 1 and 2 of a 3-core host
 * (the NIC interrupt keeps core 0); each flow reaches its own sink through
 * its own socket, and the other host traffic (none here) would go up at once.
 */
class TwoSocketsTestCase : public TestCase
{
  public:
    TwoSocketsTestCase()
        : TestCase("two ports: one HostSocket and reader each, readers off the IRQ core")
    {
    }

  private:
    void DoRun() override
    {
        Bed bed(DataRate("100Mbps"));
        bed.Costs(MicroSeconds(8), MicroSeconds(2), MicroSeconds(2), MicroSeconds(5));
        bed.host.SetCpuAttribute("Cores", UintegerValue(3));
        bed.rx = bed.host.Install(bed.dev[1], {PORT, PORT + 1}, 1);
        HostReceiverHelper::ConnectAccountant(bed.rx, bed.accountant);
        bed.Traffic(64, 20000, MilliSeconds(1), MilliSeconds(51));
        // A second flow (id 8) to the second port, and its sink.
        Ptr<UdpFlowSource> src2 = CreateObject<UdpFlowSource>();
        src2->SetAttribute("Remote", AddressValue(InetSocketAddress(bed.addr[1], PORT + 1)));
        src2->SetAttribute("PayloadSize", UintegerValue(1472));
        src2->SetAttribute("DataRate", DataRateValue(DataRate("20Mbps")));
        src2->SetAttribute("FlowId", UintegerValue(8));
        src2->SetAttribute("Device", PointerValue(bed.dev[0]));
        bed.nodes.Get(0)->AddApplication(src2);
        src2->SetStartTime(MilliSeconds(1));
        src2->SetStopTime(MilliSeconds(51));
        Ptr<UdpFlowSink> sink2 = CreateObject<UdpFlowSink>();
        sink2->SetAttribute("Local",
                            AddressValue(InetSocketAddress(Ipv4Address::GetAny(), PORT + 1)));
        bed.nodes.Get(1)->AddApplication(sink2);
        Ptr<HostSocket> s1 = bed.rx.path->GetSocket(PORT);
        Ptr<HostSocket> s2 = bed.rx.path->GetSocket(PORT + 1);
        NS_TEST_ASSERT_MSG_EQ(bed.rx.sockets.size(), 2, "two sockets");
        NS_TEST_ASSERT_MSG_EQ((s1 == bed.rx.sockets[0] && s2 == bed.rx.sockets[1]),
                              true,
                              "by port");
        NS_TEST_ASSERT_MSG_EQ(bed.rx.readers[0]->GetCore(), 1, "reader 0 on core 1");
        NS_TEST_ASSERT_MSG_EQ(bed.rx.readers[1]->GetCore(), 2, "reader 1 on core 2");
        Simulator::Schedule(MilliSeconds(99), [&]() {
            const uint64_t sent2 = src2->GetSent();
            m_sent2 = sent2;
            m_received2 = sink2->GetFlowStats(8, sent2).received;
            m_read1 = s1->GetRead();
            m_read2 = s2->GetRead();
            m_app1 = bed.rx.cpu->GetBusyTime(1, HostCpu::APP_WORK);
            m_app2 = bed.rx.cpu->GetBusyTime(2, HostCpu::APP_WORK);
            m_app0 = bed.rx.cpu->GetBusyTime(0, HostCpu::APP_WORK);
        });
        Outcome o = bed.Finish(MilliSeconds(100), 64);
        NS_TEST_ASSERT_MSG_EQ(o.sent, 1000, "flow 7: 1000 datagrams");
        NS_TEST_ASSERT_MSG_EQ(o.received, 1000, "flow 7 complete");
        NS_TEST_ASSERT_MSG_EQ(o.Conserved(), true, "flow 7 conserved");
        NS_TEST_ASSERT_MSG_GT(m_sent2, 0, "flow 8 sent");
        NS_TEST_ASSERT_MSG_EQ(m_received2, m_sent2, "flow 8 complete");
        NS_TEST_ASSERT_MSG_EQ(m_read1, 1000, "socket 1 read flow 7");
        NS_TEST_ASSERT_MSG_EQ(m_read2, m_sent2, "socket 2 read flow 8");
        NS_TEST_ASSERT_MSG_EQ(m_app1, MicroSeconds(5) * 1000, "reader 1 time on core 1");
        NS_TEST_ASSERT_MSG_EQ(m_app2, MicroSeconds(5) * int64_t(m_sent2), "reader 2 on core 2");
        NS_TEST_ASSERT_MSG_EQ(m_app0, Seconds(0), "no application work on the IRQ core");
    }

    uint64_t m_sent2{0};
    uint64_t m_received2{0};
    uint64_t m_read1{0};
    uint64_t m_read2{0};
    Time m_app0;
    Time m_app1;
    Time m_app2;
};

class LanlossHostTestSuite : public TestSuite
{
  public:
    LanlossHostTestSuite()
        : TestSuite("lanloss-host", Type::UNIT)
    {
        AddTestCase(new HostCpuSchedulingTestCase, Duration::QUICK);
        AddTestCase(new HostCpuBandwidthTestCase, Duration::QUICK);
        AddTestCase(new TruesizeRuleTestCase, Duration::QUICK);
        //                                 name, payload, pps, RcvBuf, Force, Truesize, rcvbuf,
        //                                 truesize
        AddTestCase(
            new SocketCapacityTestCase("rmem_default, 64 B", 64, 20000, 0, false, 0, 212992, 768),
            Duration::QUICK);
        AddTestCase(new SocketCapacityTestCase("SO_RCVBUF 100000",
                                               64,
                                               20000,
                                               100000,
                                               false,
                                               0,
                                               200000,
                                               768),
                    Duration::QUICK);
        AddTestCase(new SocketCapacityTestCase("SO_RCVBUF 1 MB clamped",
                                               64,
                                               20000,
                                               1000000,
                                               false,
                                               0,
                                               425984,
                                               768),
                    Duration::QUICK);
        AddTestCase(new SocketCapacityTestCase("SO_RCVBUFFORCE 300000",
                                               64,
                                               20000,
                                               300000,
                                               true,
                                               0,
                                               600000,
                                               768),
                    Duration::QUICK);
        AddTestCase(
            new SocketCapacityTestCase("SOCK_MIN_RCVBUF", 64, 20000, 1000, false, 0, 4608, 768),
            Duration::QUICK);
        AddTestCase(new SocketCapacityTestCase("1472 B, 2 KiB buffers",
                                               1472,
                                               4000,
                                               0,
                                               false,
                                               0,
                                               212992,
                                               2304),
                    Duration::QUICK);
        AddTestCase(new SocketCapacityTestCase("4000 B in 3 fragments",
                                               4000,
                                               2000,
                                               0,
                                               false,
                                               0,
                                               212992,
                                               3 * 2304),
                    Duration::QUICK);
        AddTestCase(new SocketCapacityTestCase("fixed truesize 1000",
                                               64,
                                               20000,
                                               0,
                                               false,
                                               1000,
                                               212992,
                                               1000),
                    Duration::QUICK);
        AddTestCase(new IdleLatencyTestCase(true, true), Duration::QUICK);
        AddTestCase(new IdleLatencyTestCase(false, true), Duration::QUICK);
        AddTestCase(new IdleLatencyTestCase(true, false), Duration::QUICK);
        AddTestCase(new InterruptThrottleTestCase, Duration::QUICK);
        //                                 DriverCost, MaxSoftirqRestart, runs, squeezes, ksoftirqd
        AddTestCase(new NapiBudgetTestCase(MicroSeconds(1),
                                           10,
                                           4,
                                           3,
                                           0,
                                           "4 runs of 320 within 2 ms, all in softirq"),
                    Duration::QUICK);
        AddTestCase(new NapiBudgetTestCase(MicroSeconds(5),
                                           10,
                                           4,
                                           3,
                                           1,
                                           "runs of 1.6 ms: past MaxSoftirqTime, ksoftirqd"),
                    Duration::QUICK);
        AddTestCase(new NapiBudgetTestCase(MicroSeconds(1),
                                           2,
                                           4,
                                           3,
                                           1,
                                           "MaxSoftirqRestart 2, then ksoftirqd"),
                    Duration::QUICK);
        AddTestCase(new NapiBudgetTestCase(MicroSeconds(50),
                                           10,
                                           16,
                                           15,
                                           1,
                                           "polls of 3.2 ms: NetdevBudgetUsecs ends each run"),
                    Duration::QUICK);
        AddTestCase(new RxBufferWriteTestCase(16, 1, 2), Duration::QUICK);
        AddTestCase(new RxBufferWriteTestCase(64, 3, 3), Duration::QUICK);
        AddTestCase(new KsoftirqdShareTestCase, Duration::QUICK);
        AddTestCase(new RingAndFifoTestCase(49152, false, 0, 0), Duration::QUICK);
        AddTestCase(new RingAndFifoTestCase(640, false, 33, 0), Duration::QUICK);
        AddTestCase(new RingAndFifoTestCase(49152, true, 0, 43), Duration::QUICK);
        AddTestCase(new RpsBacklogTestCase(20, 64, 78, 1), Duration::QUICK);
        AddTestCase(new RpsBacklogTestCase(1000, 64, 0, 2), Duration::QUICK);
        AddTestCase(new RpsBacklogTestCase(1000, 16, 0, 7), Duration::QUICK);
        AddTestCase(new ReassemblyTimeoutTestCase, Duration::QUICK);
        AddTestCase(new LivelockTestCase, Duration::QUICK);
        AddTestCase(new StallBurstTestCase, Duration::QUICK);
        AddTestCase(new HostPauseTestCase, Duration::QUICK);
        AddTestCase(new ReadersScaleTestCase, Duration::QUICK);
        AddTestCase(new TwoSocketsTestCase, Duration::QUICK);
    }
};

static LanlossHostTestSuite g_lanlossHostTestSuite;
