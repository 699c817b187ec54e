// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of UdpFlowSink's bookkeeping and of FlowSeqTag, the per-datagram tag it reads.
 */
#include "lanloss-test-compat.h"
#include "udp-flow-fixture.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/datagram-id.h"
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
#include "ns3/udp-header.h"
#include "ns3/lanloss-wire-format.h"
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

/**
 * IdentifyDatagram on packets built header by header: the payload header names a datagram
 * through an Ethernet (and an 802.1Q) header, an IPv4 header with options and a UDP header;
 * a tag wins over the bytes; a later fragment, another protocol, another EtherType or a
 * payload without the magic names none.
 */
class IdentifyDatagramTestCase : public TestCase
{
  public:
    IdentifyDatagramTestCase()
        : TestCase("IdentifyDatagram reads the payload header through the headers, tags first")
    {
    }

  private:
    static Ptr<Packet> Payload(uint64_t seq)
    {
        std::vector<uint8_t> b(100, 0);
        UdpFlowSource::WriteHeader(b.data(), b.size(), {seq, 123456789, 42, LANLOSS_MAGIC});
        return Create<Packet>(b.data(), b.size());
    }

    static Ptr<Packet> Ipv4(Ptr<Packet> p, uint8_t protocol, uint16_t offset, uint8_t optionWords)
    {
        UdpHeader udp;
        udp.SetDestinationPort(LANLOSS_PORT);
        p->AddHeader(udp);
        // An IPv4 header written as bytes: options make IHL > 5, which Ipv4Header cannot.
        const uint32_t len = 20 + 4 * optionWords;
        std::vector<uint8_t> h(len, 0);
        h[0] = 0x40 | (5 + optionWords);
        h[6] = offset >> 8;
        h[7] = offset & 0xFF;
        h[8] = 64;
        h[9] = protocol;
        Ptr<Packet> ip = Create<Packet>(h.data(), h.size());
        ip->AddAtEnd(p);
        return ip;
    }

    static Ptr<Packet> Frame(Ptr<Packet> ip, bool vlan, uint16_t type = 0x0800)
    {
        std::vector<uint8_t> mac(vlan ? 18 : 14, 0);
        const std::size_t at = vlan ? 16 : 12;
        if (vlan)
        {
            mac[12] = 0x81;
        }
        mac[at] = type >> 8;
        mac[at + 1] = type & 0xFF;
        Ptr<Packet> f = Create<Packet>(mac.data(), mac.size());
        f->AddAtEnd(ip);
        return f;
    }

    void DoRun() override
    {
        DatagramId id;
        NS_TEST_ASSERT_MSG_EQ(IdentifyDatagram(Payload(7), PacketStart::PAYLOAD, id), true, "");
        NS_TEST_ASSERT_MSG_EQ(id.flow, 42, "flow from the header");
        NS_TEST_ASSERT_MSG_EQ(id.seq, 7, "seq from the header");
        NS_TEST_ASSERT_MSG_EQ(id.sent, NanoSeconds(123456789), "send time from the header");

        const Ptr<Packet> ip = Ipv4(Payload(8), 17, 0, 0);
        NS_TEST_ASSERT_MSG_EQ((IdentifyDatagram(ip, PacketStart::IPV4, id) && id.seq == 8),
                              true,
                              "through IPv4 and UDP");
        const Ptr<Packet> options = Ipv4(Payload(9), 17, 0, 3);
        NS_TEST_ASSERT_MSG_EQ((IdentifyDatagram(options, PacketStart::IPV4, id) && id.seq == 9),
                              true,
                              "through an IPv4 header with 12 bytes of options");
        NS_TEST_ASSERT_MSG_EQ(
            (IdentifyDatagram(Frame(Ipv4(Payload(10), 17, 0, 0), false), PacketStart::ETHERNET, id) &&
             id.seq == 10),
            true,
            "through the MAC header");
        NS_TEST_ASSERT_MSG_EQ(
            (IdentifyDatagram(Frame(Ipv4(Payload(11), 17, 0, 3), true), PacketStart::ETHERNET, id) &&
             id.seq == 11),
            true,
            "through an 802.1Q tag and IPv4 options");

        // Names none: a frame read as a payload, a later fragment (offset 185 x 8 bytes), the
        // first fragment's flags alone do not matter (MF set, offset 0: it has the header),
        // TCP, ARP's EtherType, a payload without the magic, a packet too short.
        NS_TEST_ASSERT_MSG_EQ(IdentifyDatagram(ip, PacketStart::PAYLOAD, id), false, "");
        NS_TEST_ASSERT_MSG_EQ(IdentifyDatagram(Ipv4(Payload(1), 17, 185, 0), PacketStart::IPV4, id),
                              false,
                              "a later fragment");
        NS_TEST_ASSERT_MSG_EQ(
            (IdentifyDatagram(Ipv4(Payload(12), 17, 0x2000, 0), PacketStart::IPV4, id) && id.seq == 12),
            true,
            "a first fragment");
        NS_TEST_ASSERT_MSG_EQ(IdentifyDatagram(Ipv4(Payload(1), 6, 0, 0), PacketStart::IPV4, id),
                              false,
                              "TCP");
        NS_TEST_ASSERT_MSG_EQ(
            IdentifyDatagram(Frame(Ipv4(Payload(1), 17, 0, 0), false, 0x0806), PacketStart::ETHERNET, id),
            false,
            "ARP's EtherType");
        NS_TEST_ASSERT_MSG_EQ(IdentifyDatagram(Create<Packet>(100), PacketStart::PAYLOAD, id),
                              false,
                              "zeros: no magic");
        NS_TEST_ASSERT_MSG_EQ(IdentifyDatagram(Create<Packet>(10), PacketStart::ETHERNET, id),
                              false,
                              "shorter than a MAC header");

        // A tag names the datagram whatever the bytes, and before them.
        Ptr<Packet> later = Ipv4(Payload(1), 17, 185, 0);
        later->AddPacketTag(FlowSeqTag(5, 99, NanoSeconds(3)));
        NS_TEST_ASSERT_MSG_EQ(IdentifyDatagram(later, PacketStart::IPV4, id), true, "tagged");
        NS_TEST_ASSERT_MSG_EQ((id.flow == 5 && id.seq == 99 && id.sent == NanoSeconds(3)),
                              true,
                              "the tag's name, not the bytes'");
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
        AddTestCase(new IdentifyDatagramTestCase, Duration::QUICK);
        AddTestCase(new SinkStatsTestCase, Duration::QUICK);
    }
};

static LanlossUdpSinkTestSuite g_lanlossUdpSinkTestSuite; //!< Static variable for test initialization
