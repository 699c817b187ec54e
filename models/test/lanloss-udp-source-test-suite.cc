// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of UdpFlowSource: cbr, burst and poisson departures, max rate, overload and
 * blocking, fragmentation, multicast. Every case runs on the two-host fixture
 * (two-hosts.h); one case runs a live ARP exchange.
 */
#include "lanloss-test-compat.h"
#include "udp-flow-fixture.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/global-value.h"
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
#include "ns3/udp-fast-path.h"
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
 * CBR departures: count, exact send times, header bytes and tag round trip,
 * exact one-way latency on an idle link, no loss below line rate.
 */
class CbrTestCase : public TestCase
{
  public:
    CbrTestCase(uint32_t payload, std::string rate, Time duration, uint64_t expected)
        : TestCase("cbr " + std::to_string(payload) + " B at " + rate + " for " +
                   std::to_string(duration.GetMilliSeconds()) + " ms sends " +
                   std::to_string(expected)),
          m_payload(payload),
          m_rate(rate),
          m_duration(duration),
          m_expected(expected)
    {
    }

  private:
    void Rx(Ptr<const Packet> p, const Address& from)
    {
        ++m_rx;
        // A tag exactly where the bytes cannot name the datagram: a payload short of the
        // full header (one frame at every size here).
        FlowSeqTag tag;
        m_bad += p->PeekPacketTag(tag) != (m_payload < UdpFlowSource::HEADER_BYTES);
        DatagramId id;
        if (!IdentifyDatagram(p, PacketStart::PAYLOAD, id))
        {
            ++m_bad;
            return;
        }
        const Time due = m_start + Paced(id.seq, m_payload, DataRate(m_rate).GetBitRate());
        if (p->GetSize() != m_payload || id.flow != 7 || id.sent != due)
        {
            ++m_bad;
        }
        std::vector<uint8_t> b(p->GetSize());
        p->CopyData(b.data(), b.size());
        if (m_payload < UdpFlowSource::HEADER_BYTES)
        {
            // Truncated header (testbed/tools/wire.h): seq only from 8 bytes, then zeros.
            std::size_t zerosFrom = 0;
            if (m_payload >= UdpFlowSource::SEQ_BYTES)
            {
                uint64_t seq = 0;
                for (int i = 7; i >= 0; --i)
                {
                    seq = (seq << 8) | b[i];
                }
                m_bad += seq != id.seq;
                zerosFrom = UdpFlowSource::SEQ_BYTES;
            }
            for (std::size_t i = zerosFrom; i < b.size(); ++i)
            {
                m_bad += b[i] != 0;
            }
            return;
        }
        // Little-endian, byte by byte (independent of UdpFlowSource::ReadHeader).
        uint64_t seq = 0;
        uint64_t txNs = 0;
        uint32_t flow = 0;
        for (int i = 7; i >= 0; --i)
        {
            seq = (seq << 8) | b[i];
            txNs = (txNs << 8) | b[8 + i];
        }
        for (int i = 3; i >= 0; --i)
        {
            flow = (flow << 8) | b[16 + i];
        }
        const bool magic = b[20] == 0x53 && b[21] == 0x53 && b[22] == 0x4C && b[23] == 0x4C;
        if (seq != id.seq || txNs != uint64_t(due.GetNanoSeconds()) || flow != 7 || !magic)
        {
            ++m_bad;
        }
        for (std::size_t i = UdpFlowSource::HEADER_BYTES; i < b.size(); ++i)
        {
            m_bad += b[i] != 0; // the rest of the payload is zeros, as the testbed's tools send
        }
        m_seqs.insert(seq);
    }

    void DoRun() override
    {
        TwoHosts net(DataRate("100Mbps"), 1500);
        Ptr<UdpFlowSource> src =
            MakeSourceToHost1(net, m_payload, m_rate, m_start, m_start + m_duration);
        Ptr<UdpFlowSink> sink = MakeSink(net, m_start, m_start + m_duration);
        sink->TraceConnectWithoutContext("Rx", MakeCallback(&CbrTestCase::Rx, this));
        const FlowResult r = RunFlow(src, sink, m_start + m_duration + MilliSeconds(10));
        const UdpFlowSink::FlowStats& s = r.stats;

        const uint64_t bps = DataRate(m_rate).GetBitRate();
        NS_TEST_ASSERT_MSG_EQ(r.sent, m_expected, "datagrams due in [start, stop)");
        NS_TEST_ASSERT_MSG_EQ(r.failures, 0, "no socket failures");
        NS_TEST_ASSERT_MSG_EQ(r.first, m_start, "first datagram at StartTime");
        NS_TEST_ASSERT_MSG_EQ(r.last,
                              m_start + Paced(m_expected - 1, m_payload, bps),
                              "absolute schedule, no drift");
        NS_TEST_ASSERT_MSG_EQ(r.blocked, Seconds(0), "never blocked");
        NS_TEST_ASSERT_MSG_EQ(m_rx, m_expected, "every datagram read");
        NS_TEST_ASSERT_MSG_EQ(m_bad, 0, "tag, size and header bytes round trip");
        NS_TEST_ASSERT_MSG_EQ(r.flowIds.size(), 1, "one flow");
        NS_TEST_ASSERT_MSG_EQ(r.flowIds[0], 7, "flow id from the tag");
        NS_TEST_ASSERT_MSG_EQ(s.received, m_expected, "no loss below line rate");
        NS_TEST_ASSERT_MSG_EQ(s.lost, 0, "no loss below line rate");
        NS_TEST_ASSERT_MSG_EQ(s.duplicated, 0, "no duplicates");
        NS_TEST_ASSERT_MSG_EQ(s.reordered, 0, "no reordering");
        NS_TEST_ASSERT_MSG_EQ(s.lossRunCount, 0, "no loss runs");
        if (m_payload >= UdpFlowSource::HEADER_BYTES)
        {
            NS_TEST_ASSERT_MSG_EQ(m_seqs.size(), m_expected, "every header seq once");
        }
        // Idle link: latency = frame serialisation (preamble..FCS) + 1 us cable.
        const ethernet::DatagramFrames f = ethernet::UdpDatagramFrames(m_payload, 1500);
        const double wireUs = (f.wireBytes - ethernet::INTERFRAME_GAP_BITS / 8) * 8 / 100.0 + 1.0;
        NS_TEST_ASSERT_MSG_EQ_TOL(s.latencyP50Us, wireUs, 1e-6, "p50 latency exact");
        NS_TEST_ASSERT_MSG_EQ_TOL(s.latencyMaxUs, wireUs, 1e-6, "max latency exact");
        // Goodput over the sending window: expected datagrams * payload bits / window.
        const double goodput = m_expected * m_payload * 8.0 / m_duration.GetSeconds();
        NS_TEST_ASSERT_MSG_EQ_TOL(s.goodputBps, goodput, goodput * 1e-9, "window goodput");
    }

    uint32_t m_payload;
    std::string m_rate;
    Time m_duration;
    uint64_t m_expected;
    Time m_start{MilliSeconds(100)};
    uint64_t m_rx{0};
    uint64_t m_bad{0};
    std::set<uint64_t> m_seqs;
};

/** burst:N and poisson departures. */
class PatternTestCase : public TestCase
{
  public:
    PatternTestCase()
        : TestCase("burst:4 sends 4 at once every 4 periods; poisson keeps the mean rate")
    {
    }

  private:
    void Tx(Ptr<const Packet> p)
    {
        DatagramId id;
        IdentifyDatagram(p, PacketStart::PAYLOAD, id);
        m_txTimes.push_back(id.sent);
    }

    uint64_t RunPoisson(uint64_t seed)
    {
        TwoHosts net(DataRate("100Mbps"), 1500);
        // 1472 B at 11.776 Mbit/s: mean gap 1 ms; 1 s -> 1000 expected
        Ptr<UdpFlowSource> src = MakeSourceToHost1(net, 1472, "11.776Mbps", Seconds(0), Seconds(1));
        src->SetAttribute("Pattern", StringValue("poisson"));
        src->SetAttribute("Seed", UintegerValue(seed));
        Ptr<UdpFlowSink> sink = MakeSink(net, Seconds(0), Seconds(1));
        const FlowResult r = RunFlow(src, sink, Seconds(1.01));
        return r.sent == r.stats.received ? r.sent : 0;
    }

    void DoRun() override
    {
        {
            TwoHosts net(DataRate("100Mbps"), 1500);
            // 1472 B at 11.776 Mbit/s: period 1 ms; bursts at 0, 4, ..., 96 ms
            Ptr<UdpFlowSource> src =
                MakeSourceToHost1(net, 1472, "11.776Mbps", Seconds(0), MilliSeconds(100));
            src->SetAttribute("Pattern", StringValue("burst:4"));
            src->TraceConnectWithoutContext("Tx", MakeCallback(&PatternTestCase::Tx, this));
            Ptr<UdpFlowSink> sink = MakeSink(net, Seconds(0), MilliSeconds(100));
            const FlowResult r = RunFlow(src, sink, MilliSeconds(110));
            NS_TEST_ASSERT_MSG_EQ(r.sent, 100, "25 bursts of 4");
            NS_TEST_ASSERT_MSG_EQ(r.stats.received, 100, "no loss");
            uint64_t wrong = 0;
            for (uint64_t k = 0; k < m_txTimes.size(); ++k)
            {
                wrong += m_txTimes[k] != MilliSeconds(4 * (k / 4));
            }
            NS_TEST_ASSERT_MSG_EQ(wrong, 0, "datagram k leaves at 4 ms * floor(k / 4)");
            // Back to back: the 4th waits for three 1538-byte slots (3 * 123.04 us).
            NS_TEST_ASSERT_MSG_EQ_TOL(r.stats.latencyMaxUs,
                                      122.08 + 1.0 + 3 * 123.04,
                                      1e-6,
                                      "last of a burst queues behind three");
        }
        const uint64_t a = RunPoisson(11);
        const uint64_t b = RunPoisson(11);
        const uint64_t c = RunPoisson(12);
        NS_TEST_ASSERT_MSG_EQ(a, b, "same seed and flow, same departures");
        // 1000 expected, Poisson sd ~ 32: 10% is > 3 sd
        NS_TEST_ASSERT_MSG_EQ_TOL(double(a), 1000.0, 100.0, "poisson mean rate");
        NS_TEST_ASSERT_MSG_EQ_TOL(double(c), 1000.0, 100.0, "poisson mean rate");
        NS_TEST_ASSERT_MSG_NE(a, c, "another seed, other departures");
    }

    std::vector<Time> m_txTimes;
};

/**
 * MaxRate: a blocking sender with no pacing fills the wire; goodput is the
 * closed form payload / (frame + preamble + FCS + IFG) and the device never drops.
 */
class MaxRateTestCase : public TestCase
{
  public:
    MaxRateTestCase(uint32_t payload, uint32_t wireBytes, double expectedMbps)
        : TestCase("max rate " + std::to_string(payload) +
                   " B on 100 Mbps = " + std::to_string(expectedMbps) + " Mbps"),
          m_payload(payload),
          m_wireBytes(wireBytes),
          m_expectedMbps(expectedMbps)
    {
    }

  private:
    void Drop(Ptr<const Packet> p)
    {
        ++m_drops;
    }

    void DoRun() override
    {
        TwoHosts net(DataRate("100Mbps"), 1500);
        Ptr<UdpFlowSource> src =
            MakeSourceToHost1(net, m_payload, "1Mbps", MilliSeconds(10), MilliSeconds(400));
        src->SetAttribute("MaxRate", BooleanValue(true));
        net.dev[0]->TraceConnectWithoutContext("MacTxDrop",
                                               MakeCallback(&MaxRateTestCase::Drop, this));
        Ptr<UdpFlowSink> sink = MakeSink(net, MilliSeconds(100), MilliSeconds(300));
        // Long enough after StopTime for the 1 MiB transmit queue to drain.
        const FlowResult r = RunFlow(src, sink, Seconds(1));

        const ethernet::DatagramFrames f = ethernet::UdpDatagramFrames(m_payload, 1500);
        NS_TEST_ASSERT_MSG_EQ(f.wireBytes, m_wireBytes, "closed-form wire bytes");
        const double closedForm = 100e6 * m_payload / f.wireBytes;
        NS_TEST_ASSERT_MSG_EQ_TOL(closedForm / 1e6, m_expectedMbps, 0.005, "closed form");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.stats.goodputBps,
                                  closedForm,
                                  closedForm * 0.005,
                                  "goodput within 0.5% of line rate");
        NS_TEST_ASSERT_MSG_EQ(m_drops, 0, "a blocking sender never overflows its queue");
        NS_TEST_ASSERT_MSG_EQ(r.stats.received, r.sent, "nothing lost");
        NS_TEST_ASSERT_MSG_GT(r.blocked, Seconds(0), "the sender waited for room");
    }

    uint32_t m_payload;
    uint32_t m_wireBytes;
    double m_expectedMbps;
    uint64_t m_drops{0};
};

/**
 * MaxRate with a live ARP exchange: datagrams held in ARP's pending queue do
 * not reach the device, so the source waits for the next frame out instead of
 * handing the stack datagrams without end at t = 0; nothing is lost.
 */
class MaxRateArpTestCase : public TestCase
{
  public:
    MaxRateArpTestCase()
        : TestCase("max rate with a live ARP exchange: no spin, no ARP drops")
    {
    }

  private:
    void ArpDrop(Ptr<const Packet> p)
    {
        ++m_arpDrops;
    }

    void DoRun() override
    {
        TwoHosts net(DataRate("100Mbps"), 1500, 0, false);
        Ptr<UdpFlowSource> src =
            MakeSourceToHost1(net, 1472, "1Mbps", Seconds(0), MilliSeconds(20));
        src->SetAttribute("MaxRate", BooleanValue(true));
        Config::ConnectWithoutContext("/NodeList/*/$ns3::ArpL3Protocol/Drop",
                                      MakeCallback(&MaxRateArpTestCase::ArpDrop, this));
        Ptr<UdpFlowSink> sink = MakeSink(net, Seconds(0), MilliSeconds(20));
        const FlowResult r = RunFlow(src, sink, Seconds(1));

        NS_TEST_ASSERT_MSG_EQ(m_arpDrops, 0, "at most one datagram waits for ARP at a time");
        NS_TEST_ASSERT_MSG_GT(r.sent, 100, "the sender ran once ARP resolved");
        NS_TEST_ASSERT_MSG_EQ(r.stats.received, r.sent, "nothing lost");
    }

    uint64_t m_arpDrops{0};
};

/**
 * A paced sender at twice the line rate: without Blocking the device drops
 * (MacTxDrop) and sent = received + drops exactly, the missing seqs being the
 * dropped ones; with Blocking nothing is dropped and the sender is held.
 */
class OverloadTestCase : public TestCase
{
  public:
    OverloadTestCase(bool blocking)
        : TestCase(std::string("200 Mbps offered on 100 Mbps, ") +
                   (blocking ? "blocking: no drops" : "non-blocking: sender_queue drops")),
          m_blocking(blocking)
    {
    }

  private:
    void Drop(Ptr<const Packet> frame)
    {
        DatagramId id;
        if (IdentifyDatagram(frame, PacketStart::ETHERNET, id))
        {
            m_dropped.insert(id.seq);
        }
        ++m_dropFrames;
    }

    void DoRun() override
    {
        // 64 KiB transmit queue: 43 full frames, overflows within ~5 ms at 2x.
        TwoHosts net(DataRate("100Mbps"), 1500, 65536);
        Ptr<UdpFlowSource> src =
            MakeSourceToHost1(net, 1472, "200Mbps", Seconds(0), MilliSeconds(50));
        src->SetAttribute("Blocking", BooleanValue(m_blocking));
        net.dev[0]->TraceConnectWithoutContext("MacTxDrop",
                                               MakeCallback(&OverloadTestCase::Drop, this));
        Ptr<UdpFlowSink> sink = MakeSink(net, Seconds(0), MilliSeconds(50));
        const FlowResult r = RunFlow(src, sink, MilliSeconds(100));

        // Datagrams due in [0, 50 ms) every 58.88 us: ceil(849.18) = 850.
        if (!m_blocking)
        {
            NS_TEST_ASSERT_MSG_EQ(r.sent, 850, "the paced sender keeps its schedule");
            NS_TEST_ASSERT_MSG_GT(m_dropped.size(), 0, "the queue overflows");
            NS_TEST_ASSERT_MSG_EQ(m_dropFrames, m_dropped.size(), "one frame per datagram");
            NS_TEST_ASSERT_MSG_EQ(r.sent, r.stats.received + m_dropped.size(), "conservation");
            NS_TEST_ASSERT_MSG_EQ(r.stats.lost, m_dropped.size(), "lost = dropped");
            NS_TEST_ASSERT_MSG_EQ(
                bool(r.missing == std::vector<uint64_t>(m_dropped.begin(), m_dropped.end())),
                true,
                "the missing seqs are exactly the dropped ones");
            NS_TEST_ASSERT_MSG_EQ(r.blocked, Seconds(0), "never blocked");
            NS_TEST_ASSERT_MSG_GT(r.stats.lossRunCount, 0, "loss runs counted");
        }
        else
        {
            NS_TEST_ASSERT_MSG_EQ(m_dropFrames, 0, "a blocking sender is never dropped");
            NS_TEST_ASSERT_MSG_EQ(r.stats.received, r.sent, "nothing lost");
            NS_TEST_ASSERT_MSG_LT(r.sent, 850, "the sender slipped behind its schedule");
            NS_TEST_ASSERT_MSG_GT(r.blocked, Seconds(0), "the sender waited for room");
            // The wire carries one 1538-byte slot per 123.04 us; the sender may
            // additionally have filled the 43-frame queue once.
            NS_TEST_ASSERT_MSG_EQ_TOL(double(r.sent), 50e3 / 123.04 + 43, 3.0, "line rate");
        }
    }

    bool m_blocking;
    std::set<uint64_t> m_dropped;
    uint64_t m_dropFrames{0};
};

/**
 * A blocked paced sender does not catch up: the schedule restarts from the
 * moment the blocked datagram leaves. The receiver PAUSEs the sender's link
 * while its 3-frame queue is full; the datagram due at 14 ms waits until the
 * pause ends, and every later one follows at 1 ms spacing from there.
 */
class BlockingSlipTestCase : public TestCase
{
  public:
    BlockingSlipTestCase()
        : TestCase("a blocked sender re-anchors its schedule when the datagram leaves")
    {
    }

  private:
    void Tx(Ptr<const Packet> p)
    {
        DatagramId id;
        IdentifyDatagram(p, PacketStart::PAYLOAD, id);
        m_txTimes.push_back(id.sent);
    }

    void DoRun() override
    {
        TwoHosts net(DataRate("100Mbps"), 1500, 3 * 1514);
        net.dev[0]->SetFlowControl(true);
        // 1472 B at 11.776 Mbit/s: datagram k due at k ms
        Ptr<UdpFlowSource> src =
            MakeSourceToHost1(net, 1472, "11.776Mbps", Seconds(0), MilliSeconds(30));
        src->SetAttribute("Blocking", BooleanValue(true));
        src->TraceConnectWithoutContext("Tx", MakeCallback(&BlockingSlipTestCase::Tx, this));
        Ptr<UdpFlowSink> sink = MakeSink(net, Seconds(0), MilliSeconds(30));
        // PAUSE sent at 10.5 ms arrives after 72 wire bytes (5.76 us) + 1 us cable,
        // and holds 977 quanta * 5.12 us = 5.00224 ms: the pause ends at 15.509 ms.
        Simulator::Schedule(MicroSeconds(10500), &EthernetNetDevice::SendPause, net.dev[1], 977);
        const FlowResult r = RunFlow(src, sink, MilliSeconds(40));

        const Time pauseEnd = MicroSeconds(15509);
        NS_TEST_ASSERT_MSG_EQ(m_txTimes.size(), r.sent, "one Tx per datagram");
        NS_TEST_ASSERT_MSG_EQ(m_txTimes[13], MilliSeconds(13), "seq 13 fills the queue");
        NS_TEST_ASSERT_MSG_EQ(m_txTimes[14], pauseEnd, "seq 14 leaves when the pause ends");
        NS_TEST_ASSERT_MSG_EQ(r.blocked, pauseEnd - MilliSeconds(14), "blocked from 14 ms");
        uint64_t wrong = 0;
        for (uint64_t k = 14; k < m_txTimes.size(); ++k)
        {
            wrong += m_txTimes[k] != pauseEnd + MilliSeconds(k - 14);
        }
        NS_TEST_ASSERT_MSG_EQ(wrong, 0, "1 ms spacing from the departure of seq 14");
        // 0..13 on time, then 15.509 + j ms < 30 ms for j = 0..14
        NS_TEST_ASSERT_MSG_EQ(r.sent, 29, "one datagram fewer than the unblocked schedule");
        NS_TEST_ASSERT_MSG_EQ(r.stats.received, r.sent, "nothing lost");
    }

    std::vector<Time> m_txTimes;
};

/** A 64512-byte datagram leaves as 44 fragments and arrives whole, tag intact. */
class FragmentationTestCase : public TestCase
{
  public:
    FragmentationTestCase()
        : TestCase("64512 B at MTU 1500: 44 fragments, reassembled, tag survives")
    {
    }

  private:
    void Rx(Ptr<const Packet> p, const Address& from)
    {
        FlowSeqTag tag;
        UdpFlowSource::WireHeader h;
        if (p->GetSize() == 64512 && p->PeekPacketTag(tag) && tag.GetFlowId() == 7 &&
            UdpFlowSource::ReadHeader(p, h) && h.seq == tag.GetSeq())
        {
            ++m_whole;
        }
    }

    void PhyTx(Ptr<const Packet> frame)
    {
        ++m_frames;
        FlowSeqTag tag;
        m_taggedFrames += frame->PeekPacketTag(tag);
    }

    void DoRun() override
    {
        TwoHosts net(DataRate("100Mbps"), 1500);
        // 64512 B at 10 Mbit/s: period 51.6096 ms; [0, 200 ms) holds 4 datagrams
        Ptr<UdpFlowSource> src =
            MakeSourceToHost1(net, 64512, "10Mbps", Seconds(0), MilliSeconds(200));
        src->SetAttribute("Blocking", BooleanValue(true));
        net.dev[0]->TraceConnectWithoutContext("PhyTxBegin",
                                               MakeCallback(&FragmentationTestCase::PhyTx, this));
        Ptr<UdpFlowSink> sink = MakeSink(net, Seconds(0), MilliSeconds(200));
        sink->TraceConnectWithoutContext("Rx", MakeCallback(&FragmentationTestCase::Rx, this));
        const FlowResult r = RunFlow(src, sink, MilliSeconds(300));

        const ethernet::DatagramFrames f = ethernet::UdpDatagramFrames(64512, 1500);
        NS_TEST_ASSERT_MSG_EQ(f.fragments, 44, "ceil(64520 / 1480) fragments");
        NS_TEST_ASSERT_MSG_EQ(r.sent, 4, "4 datagrams due");
        NS_TEST_ASSERT_MSG_EQ(m_frames, 4 * f.fragments, "every fragment on the wire");
        NS_TEST_ASSERT_MSG_EQ(m_taggedFrames, m_frames, "every fragment carries the tag");
        NS_TEST_ASSERT_MSG_EQ(m_whole, 4, "reassembled whole, tag and header intact");
        NS_TEST_ASSERT_MSG_EQ(r.stats.received, 4, "no loss");
        // Idle link: the last fragment arrives after all 44 slots minus the final IFG.
        const double us = (f.wireBytes - 12) * 8 / 100.0 + 1.0;
        NS_TEST_ASSERT_MSG_EQ_TOL(r.stats.latencyMaxUs, us, 1e-6, "latency of the whole datagram");
    }

    uint64_t m_whole{0};
    uint64_t m_frames{0};
    uint64_t m_taggedFrames{0};
};

/** A datagram to an IPv4 group reaches a member that joined it. */
class MulticastTestCase : public TestCase
{
  public:
    MulticastTestCase()
        : TestCase("multicast to 225.1.2.3 is received by a member, TTL as set")
    {
    }

  private:
    void PhyRx(Ptr<const Packet> frame)
    {
        EthernetHeader eth(false);
        frame->PeekHeader(eth);
        m_groupFrames += eth.GetDestination() == Mac48Address::GetMulticast(m_group);
    }

    void Deliver(const Ipv4Header& ip, Ptr<const Packet> p, uint32_t iif)
    {
        m_ttlOk += ip.GetDestination() == m_group && ip.GetTtl() == 4;
    }

    void DoRun() override
    {
        TwoHosts net(DataRate("100Mbps"), 1500);
        // The sender needs a route for the group (Linux: 224.0.0.0/4 or default).
        Ipv4StaticRoutingHelper().SetDefaultMulticastRoute(net.nodes.Get(0), net.dev[0]);
        Ptr<UdpFlowSource> src = MakeSource(net,
                                            InetSocketAddress(m_group, PORT),
                                            1472,
                                            "11.776Mbps",
                                            Seconds(0),
                                            MilliSeconds(50));
        src->SetAttribute("MulticastTtl", UintegerValue(4));
        Ptr<UdpFlowSink> sink = MakeSink(net, Seconds(0), MilliSeconds(50));
        sink->SetAttribute("Group", Ipv4AddressValue(m_group));
        net.dev[1]->TraceConnectWithoutContext("PhyRxEnd",
                                               MakeCallback(&MulticastTestCase::PhyRx, this));
        net.nodes.Get(1)->GetObject<Ipv4L3Protocol>()->TraceConnectWithoutContext(
            "LocalDeliver",
            MakeCallback(&MulticastTestCase::Deliver, this));
        const FlowResult r = RunFlow(src, sink, MilliSeconds(60));

        NS_TEST_ASSERT_MSG_EQ(r.failures, 0, "the group is routable");
        NS_TEST_ASSERT_MSG_EQ(r.sent, 50, "one per ms");
        NS_TEST_ASSERT_MSG_EQ(m_groupFrames, 50, "frames to 01:00:5e:01:02:03");
        NS_TEST_ASSERT_MSG_EQ(m_ttlOk, 50, "IP TTL = MulticastTtl");
        NS_TEST_ASSERT_MSG_EQ(r.stats.received, 50, "the member receives every datagram");
    }

    Ipv4Address m_group{"225.1.2.3"};
    uint64_t m_groupFrames{0};
    uint64_t m_ttlOk{0};
};

/**
 * The UDP fast path (UdpFastPath) puts the same bytes on the wire at the same times as
 * ns-3's socket, UDP, IPv4 and ARP objects, and the sink reads the same datagrams; only
 * the IPv4 layer's trace sources no longer see them. Where it cannot stand for the stack
 * (an ARP entry that may expire, checksums on) the stack carries the datagrams.
 */
class FastPathTestCase : public TestCase
{
  public:
    FastPathTestCase()
        : TestCase("the UDP fast path: the stack's frames and reads, without the stack")
    {
    }

  private:
    /** What one run showed. */
    struct Seen
    {
        std::vector<std::vector<uint8_t>> frames; //!< every frame host 0 sent, its bytes
        std::vector<Time> frameTimes;             //!< when each began
        uint64_t ipTx = 0;                        //!< host 0's Ipv4L3Protocol Tx
        uint64_t localDeliver = 0;                //!< host 1's Ipv4L3Protocol LocalDeliver
        uint64_t fastDelivered = 0;               //!< host 1's UdpFastPath deliveries
        FlowResult flow;
    };

    static void Frame(Seen* seen, Ptr<const Packet> frame)
    {
        std::vector<uint8_t> bytes(frame->GetSize());
        frame->CopyData(bytes.data(), bytes.size());
        seen->frames.push_back(std::move(bytes));
        seen->frameTimes.push_back(Simulator::Now());
    }

    static void IpTx(Seen* seen, Ptr<const Packet>, Ptr<Ipv4>, uint32_t)
    {
        ++seen->ipTx;
    }

    static void Delivered(Seen* seen, const Ipv4Header&, Ptr<const Packet>, uint32_t)
    {
        ++seen->localDeliver;
    }

    /** 50 datagrams of @p payload bytes, one per ms, host 0 to host 1. */
    static Seen Run(bool fastPath, bool permanentArp, uint32_t payload)
    {
        TwoHosts net(DataRate("100Mbps"), 1500, 0, permanentArp);
        const std::string rate = std::to_string(payload * 8) + "kbps"; // one per ms
        Ptr<UdpFlowSource> src = MakeSourceToHost1(net, payload, rate, Seconds(0), MilliSeconds(50));
        Ptr<UdpFlowSink> sink = MakeSink(net, Seconds(0), MilliSeconds(60));
        src->SetAttribute("FastPath", BooleanValue(fastPath));
        sink->SetAttribute("FastPath", BooleanValue(fastPath));
        Seen seen;
        net.dev[0]->TraceConnectWithoutContext("PhyTxBegin", MakeBoundCallback(&Frame, &seen));
        net.nodes.Get(0)->GetObject<Ipv4L3Protocol>()->TraceConnectWithoutContext(
            "Tx",
            MakeBoundCallback(&IpTx, &seen));
        net.nodes.Get(1)->GetObject<Ipv4L3Protocol>()->TraceConnectWithoutContext(
            "LocalDeliver",
            MakeBoundCallback(&Delivered, &seen));
        Ptr<Node> receiver = net.nodes.Get(1);
        Simulator::Schedule(MilliSeconds(59), [&seen, receiver]() {
            Ptr<UdpFastPath> path = receiver->GetObject<UdpFastPath>();
            seen.fastDelivered = path ? path->GetDelivered() : 0;
        });
        seen.flow = RunFlow(src, sink, MilliSeconds(60));
        return seen;
    }

    void Same(const Seen& a, const Seen& b, const std::string& what)
    {
        NS_TEST_ASSERT_MSG_EQ(a.frames.size(), b.frames.size(), what << ": frames");
        NS_TEST_ASSERT_MSG_EQ((a.frames == b.frames), true, what << ": the frames' bytes");
        NS_TEST_ASSERT_MSG_EQ((a.frameTimes == b.frameTimes), true, what << ": their times");
        NS_TEST_ASSERT_MSG_EQ(a.flow.stats.received, b.flow.stats.received, what << ": reads");
        NS_TEST_ASSERT_MSG_EQ(a.flow.stats.bytes, b.flow.stats.bytes, what << ": bytes read");
        NS_TEST_ASSERT_MSG_EQ(a.flow.stats.latencyMaxUs, b.flow.stats.latencyMaxUs, what);
    }

    void DoRun() override
    {
        // 64 B: the frame is padded to 60 bytes, and the fast path must cut the padding.
        for (uint32_t payload : {1472U, 64U, 1U})
        {
            const std::string what = std::to_string(payload) + " B";
            const Seen stack = Run(false, true, payload);
            const Seen fast = Run(true, true, payload);
            NS_TEST_ASSERT_MSG_EQ(stack.flow.stats.received, 50, what << ": all read");
            NS_TEST_ASSERT_MSG_EQ(stack.ipTx, 50, what << ": the stack sent them");
            NS_TEST_ASSERT_MSG_EQ(stack.localDeliver, 50, what << ": and delivered them");
            Same(stack, fast, what);
            NS_TEST_ASSERT_MSG_EQ(fast.ipTx, 0, what << ": the fast path sent them");
            NS_TEST_ASSERT_MSG_EQ(fast.localDeliver, 0, what << ": around IPv4");
            NS_TEST_ASSERT_MSG_EQ(fast.fastDelivered, 50, what << ": to the sink");
        }

        // No ARP entry: the sender's stack resolves it (one ARP exchange first); the
        // receiver's fast path still takes the datagrams.
        // (ARP's request jitter is drawn from a stream each run numbers anew: none here.)
        Config::SetDefault("ns3::ArpL3Protocol::RequestJitter",
                           StringValue("ns3::ConstantRandomVariable[Constant=0.0]"));
        const Seen arpStack = Run(false, false, 1472);
        const Seen arpFast = Run(true, false, 1472);
        Config::Reset();
        Same(arpStack, arpFast, "live ARP");
        NS_TEST_ASSERT_MSG_EQ(arpFast.ipTx, 50, "live ARP: the stack sends");
        NS_TEST_ASSERT_MSG_EQ(arpFast.fastDelivered, 50, "live ARP: the fast path reads");

        // Checksums on: the stack both ways.
        GlobalValue::Bind("ChecksumEnabled", BooleanValue(true));
        const Seen sumStack = Run(false, true, 1472);
        const Seen sumFast = Run(true, true, 1472);
        GlobalValue::Bind("ChecksumEnabled", BooleanValue(false));
        Same(sumStack, sumFast, "checksums");
        NS_TEST_ASSERT_MSG_EQ(sumFast.ipTx, 50, "checksums: the stack sends");
        NS_TEST_ASSERT_MSG_EQ(sumFast.localDeliver, 50, "checksums: the stack delivers");
        NS_TEST_ASSERT_MSG_EQ(sumFast.fastDelivered, 0, "checksums: no fast path");
    }
};

/** The lanloss-udp-source suite. */
class LanlossUdpSourceTestSuite : public TestSuite
{
  public:
    LanlossUdpSourceTestSuite()
        : TestSuite("lanloss-udp-source", Type::UNIT)
    {
        // 1 ms period, 100 ms: k * T < D for k = 0..99 (a datagram at StopTime is not sent)
        AddTestCase(new CbrTestCase(1472, "11.776Mbps", MilliSeconds(100), 100), Duration::QUICK);
        // 1.1776 ms period: floor(84.92) + 1 = 85
        AddTestCase(new CbrTestCase(1472, "10Mbps", MilliSeconds(100), 85), Duration::QUICK);
        // 3.925333.. ms period (not a whole ns): floor(254.76) + 1 = 255, no drift
        AddTestCase(new CbrTestCase(1472, "3Mbps", Seconds(1), 255), Duration::QUICK);
        // short payload: the seq only; 16 B at 128 kbit/s = 1 ms period
        AddTestCase(new CbrTestCase(16, "128kbps", MilliSeconds(10), 10), Duration::QUICK);
        // under 8 B: no header at all; 4 B at 32 kbit/s = 1 ms period
        AddTestCase(new CbrTestCase(4, "32kbps", MilliSeconds(10), 10), Duration::QUICK);
        AddTestCase(new PatternTestCase, Duration::QUICK);
        AddTestCase(new MaxRateTestCase(1472, 1538, 95.71), Duration::QUICK);
        AddTestCase(new MaxRateTestCase(64, 130, 49.23), Duration::QUICK);
        AddTestCase(new MaxRateArpTestCase, Duration::QUICK);
        AddTestCase(new OverloadTestCase(false), Duration::QUICK);
        AddTestCase(new OverloadTestCase(true), Duration::QUICK);
        AddTestCase(new BlockingSlipTestCase, Duration::QUICK);
        AddTestCase(new FragmentationTestCase, Duration::QUICK);
        AddTestCase(new MulticastTestCase, Duration::QUICK);
        AddTestCase(new FastPathTestCase, Duration::QUICK);
    }
};

static LanlossUdpSourceTestSuite g_lanlossUdpSourceTestSuite; //!< Static variable for test initialization
