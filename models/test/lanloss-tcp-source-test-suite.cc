// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of TcpFlowSource on the two-host fixture (two-hosts.h): bulk and paced.
 */
#include "lanloss-test-compat.h"
#include "two-hosts.h"

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
 * TcpFlowSource: a bulk transfer fills a 100 Mbit/s link with full-size segments
 * (MSS 1448 with timestamps: the closed form 100e6 * 1448 / 1538), and a paced one
 * writes exactly one message per period; every accepted byte is delivered.
 */
class TcpFlowSourceTestCase : public TestCase
{
  public:
    explicit TcpFlowSourceTestCase(bool bulk)
        : TestCase(bulk ? "tcp bulk transfer: closed-form goodput, every byte delivered"
                        : "tcp paced messages: one per period, every byte delivered"),
          m_bulk(bulk)
    {
    }

  private:
    void Rx(Ptr<const Packet> p, const Address& from)
    {
        const Time now = Simulator::Now();
        if (now >= MilliSeconds(110) && now < MilliSeconds(410))
        {
            m_windowBytes += p->GetSize();
        }
    }

    void DoRun() override
    {
        Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1500 - 52));
        TwoHosts net(DataRate("100Mbps"), 1500);
        Ptr<PacketSink> sink = CreateObject<PacketSink>();
        sink->SetAttribute("Local", AddressValue(InetSocketAddress(Ipv4Address::GetAny(), PORT)));
        sink->SetAttribute("Protocol", TypeIdValue(TcpSocketFactory::GetTypeId()));
        net.nodes.Get(1)->AddApplication(sink);
        sink->TraceConnectWithoutContext("Rx", MakeCallback(&TcpFlowSourceTestCase::Rx, this));
        Ptr<TcpFlowSource> src = CreateObject<TcpFlowSource>();
        src->SetAttribute("Remote", AddressValue(InetSocketAddress(net.addr[1], PORT)));
        src->SetAttribute("MessageSize", UintegerValue(1472));
        src->SetAttribute("MaxRate", BooleanValue(m_bulk));
        src->SetAttribute("NoDelay", BooleanValue(!m_bulk));
        // 1472 B at 11.776 Mbit/s: one message per millisecond
        src->SetAttribute("DataRate", DataRateValue(DataRate("11.776Mbps")));
        net.nodes.Get(0)->AddApplication(src);
        src->SetStartTime(MilliSeconds(10));
        src->SetStopTime(MilliSeconds(410));
        Simulator::Stop(Seconds(2));
        Simulator::Run();
        const uint64_t sent = src->GetSent();
        const uint64_t bytes = src->GetBytes();
        const uint64_t rx = sink->GetTotalRx();
        const bool connected = src->IsConnected();
        Simulator::Destroy();
        Config::Reset();

        NS_TEST_ASSERT_MSG_EQ(connected, true, "connected");
        // whole messages, and the start of one left unfinished at the stop
        const bool wholePlusPart = bytes >= sent * 1472 && bytes < (sent + 1) * 1472;
        NS_TEST_ASSERT_MSG_EQ(wholePlusPart,
                              true,
                              "bytes = whole messages + part of one");
        NS_TEST_ASSERT_MSG_EQ(rx, bytes, "every accepted byte delivered after the stop");
        if (m_bulk)
        {
            const double closedForm = 100e6 * 1448 / 1538;
            NS_TEST_ASSERT_MSG_EQ_TOL(8.0 * m_windowBytes / 0.3,
                                      closedForm,
                                      closedForm * 0.005,
                                      "goodput within 0.5% of the closed form");
        }
        else
        {
            // the first message is due when the connection is up (one RTT after 10 ms)
            NS_TEST_ASSERT_MSG_EQ(sent, 400, "one message per ms in [connect, 410 ms)");
        }
    }

    bool m_bulk;
    uint64_t m_windowBytes{0};
};

/** The lanloss-tcp-source suite. */
class LanlossTcpSourceTestSuite : public TestSuite
{
  public:
    LanlossTcpSourceTestSuite()
        : TestSuite("lanloss-tcp-source", Type::UNIT)
    {
        AddTestCase(new TcpFlowSourceTestCase(true), Duration::QUICK);
        AddTestCase(new TcpFlowSourceTestCase(false), Duration::QUICK);
    }
};

static LanlossTcpSourceTestSuite g_lanlossTcpSourceTestSuite; //!< Static variable for test initialization
