// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of UdpFlowSink's bookkeeping and of FlowSeqTag, the per-datagram tag it reads.
 */
#include "lanloss-test-compat.h"
#include "udp-flow-fixture.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/drop-tail-queue.h"
#include "ns3/ethernet-channel.h"
#include "ns3/ethernet-header.h"
#include "ns3/ethernet-net-device.h"
#include "ns3/ethernet-wire.h"
#include "ns3/flow-seq-tag.h"
#include "ns3/inet-socket-address.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/ipv4-static-routing-helper.h"
#include "ns3/mac48-address.h"
#include "ns3/neighbor-cache-helper.h"
#include "ns3/node-container.h"
#include "ns3/packet-sink.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/socket.h"
#include "ns3/string.h"
#include "ns3/tcp-flow-source.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/test.h"
#include "ns3/udp-flow-sink.h"
#include "ns3/udp-flow-source.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <set>
#include <vector>

using namespace ns3;
using namespace lanlosstest;

/**
 * Sink bookkeeping with a hand-made arrival order: duplicates, reordering,
 * loss runs, missing seqs, nearest-rank latency percentiles.
 */
class SinkStatsTestCase : public TestCase
{
  public:
    SinkStatsTestCase()
        : TestCase("sink: duplicates, reordering, loss runs, percentiles")
    {
    }

  private:
    void SendSeq(Ptr<Socket> socket, uint32_t flow, uint64_t seq, Time sentAt)
    {
        Ptr<Packet> p = Create<Packet>(100);
        p->AddPacketTag(FlowSeqTag(flow, seq, sentAt));
        socket->Send(p);
    }

    void DoRun() override
    {
        TwoHosts net(DataRate("100Mbps"), 1500);
        Ptr<UdpFlowSink> sink = MakeSink(net, Seconds(0), Seconds(1));
        Ptr<Socket> socket = Socket::CreateSocket(net.nodes.Get(0), UdpSocketFactory::GetTypeId());
        socket->Connect(InetSocketAddress(net.addr[1], PORT));
        // Flow 3: arrivals 0 1 3 2 2 6 7 9 of 12 sent -> missing 4 5 | 8 | 10 11.
        // The claimed send times make latencies 1..8 ms apart from the wire time.
        const std::vector<uint64_t> order{0, 1, 3, 2, 2, 6, 7, 9};
        for (std::size_t i = 0; i < order.size(); ++i)
        {
            Time at = MilliSeconds(10 * (i + 1));
            Simulator::Schedule(at,
                                &SinkStatsTestCase::SendSeq,
                                this,
                                socket,
                                3,
                                order[i],
                                at - MilliSeconds(i + 1));
        }
        // An untagged datagram without the header is counted apart.
        Simulator::Schedule(MilliSeconds(200), [socket]() { socket->Send(Create<Packet>(10)); });
        Simulator::Stop(MilliSeconds(300));
        Simulator::Run();
        const UdpFlowSink::FlowStats s = sink->GetFlowStats(3, 12);
        const std::vector<uint64_t> missing = sink->MissingSeqs(3, 12);
        const UdpFlowSink::FlowStats none = sink->GetFlowStats(99, 5);
        const uint64_t unidentified = sink->GetUnidentified();
        const uint64_t total = sink->GetTotalReceived();
        Simulator::Destroy();

        NS_TEST_ASSERT_MSG_EQ(total, 9, "every datagram read");
        NS_TEST_ASSERT_MSG_EQ(unidentified, 1, "untagged, headerless datagram");
        NS_TEST_ASSERT_MSG_EQ(s.received, 7, "distinct seqs 0 1 2 3 6 7 9");
        NS_TEST_ASSERT_MSG_EQ(s.duplicated, 1, "seq 2 twice");
        NS_TEST_ASSERT_MSG_EQ(s.reordered, 1, "seq 2 after 3");
        NS_TEST_ASSERT_MSG_EQ(s.lost, 5, "12 - 7");
        NS_TEST_ASSERT_MSG_EQ(s.bytes, 700, "first arrivals only");
        NS_TEST_ASSERT_MSG_EQ(bool(missing == std::vector<uint64_t>{4, 5, 8, 10, 11}),
                              true,
                              "missing seqs");
        NS_TEST_ASSERT_MSG_EQ(s.lossRunCount, 3, "runs 4-5, 8, 10-11");
        NS_TEST_ASSERT_MSG_EQ(s.lossRunMax, 2, "longest run");
        NS_TEST_ASSERT_MSG_EQ_TOL(s.lossRunMean, 5.0 / 3.0, 1e-12, "mean run");
        NS_TEST_ASSERT_MSG_EQ_TOL(s.goodputBps, 700 * 8.0, 1e-9, "700 B in a 1 s window");
        // First arrivals have claimed latencies 1 2 3 (seq 3) 4 (seq 2) 6 7 8 ms,
        // plus the idle-link wire time of a 100-byte datagram (142-byte frame).
        const double wireUs = (142 + 4 + 8) * 8 / 100.0 + 1.0;
        NS_TEST_ASSERT_MSG_EQ_TOL(s.latencyP50Us, 4000 + wireUs, 1e-6, "nearest-rank p50");
        NS_TEST_ASSERT_MSG_EQ_TOL(s.latencyP99Us, 8000 + wireUs, 1e-6, "nearest-rank p99");
        NS_TEST_ASSERT_MSG_EQ_TOL(s.latencyMaxUs, 8000 + wireUs, 1e-6, "max");
        NS_TEST_ASSERT_MSG_EQ(none.lost, 5, "an unseen flow lost everything");
        NS_TEST_ASSERT_MSG_EQ(none.lossRunCount, 1, "one run");
        NS_TEST_ASSERT_MSG_EQ(std::isnan(none.latencyP50Us), true, "no latency samples");
    }
};

/** The tag's serialisation round trips. */
class FlowSeqTagTestCase : public TestCase
{
  public:
    FlowSeqTagTestCase()
        : TestCase("FlowSeqTag round trip through a packet and a fragment")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<Packet> p = Create<Packet>(3000);
        p->AddPacketTag(FlowSeqTag(0xDEADBEEF, (uint64_t(1) << 39) + 5, NanoSeconds(-7)));
        Ptr<Packet> frag = p->CreateFragment(1480, 1480);
        FlowSeqTag t;
        NS_TEST_ASSERT_MSG_EQ(frag->PeekPacketTag(t), true, "fragments carry packet tags");
        NS_TEST_ASSERT_MSG_EQ(t.GetFlowId(), 0xDEADBEEF, "flow");
        NS_TEST_ASSERT_MSG_EQ(t.GetSeq(), (uint64_t(1) << 39) + 5, "seq");
        NS_TEST_ASSERT_MSG_EQ(t.GetSendTime(), NanoSeconds(-7), "send time");
        NS_TEST_ASSERT_MSG_EQ(t.GetSerializedSize(), 20, "size");
    }
};

/** The lanloss-udp-sink suite. */
class LanlossUdpSinkTestSuite : public TestSuite
{
  public:
    LanlossUdpSinkTestSuite()
        : TestSuite("lanloss-udp-sink", Type::UNIT)
    {
        AddTestCase(new FlowSeqTagTestCase, Duration::QUICK);
        AddTestCase(new SinkStatsTestCase, Duration::QUICK);
    }
};

static LanlossUdpSinkTestSuite g_lanlossUdpSinkTestSuite; //!< Static variable for test initialization
