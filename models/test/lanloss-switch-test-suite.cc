// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of the Ethernet switch: learning and flooding, egress limits and the
 * shared pool, the PAUSE headroom formula, XOFF/XON.
 */
#include "lanloss-test-compat.h"

#include "ns3/boolean.h"
#include "ns3/ethernet-helper.h"
#include "ns3/ethernet-net-device.h"
#include "ns3/ethernet-switch-helper.h"
#include "ns3/ethernet-switch-net-device.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <vector>

using namespace ns3;

namespace
{

/** A star of raw hosts (no IP) around one switch; counts frames each host gets. */
struct Star
{
    Ptr<EthernetSwitchNetDevice> sw;
    std::vector<Ptr<EthernetNetDevice>> hosts;
    std::vector<uint32_t> rx;
    uint32_t egressDrops = 0;
    uint32_t maxEgressAtDrop = 0;

    Star(const std::vector<std::string>& rates, bool pause, uint32_t buffer, uint32_t pool = 0)
    {
        Ptr<Node> swNode = CreateObject<Node>();
        NetDeviceContainer ports;
        EthernetHelper links;
        for (const auto& rate : rates)
        {
            links.SetDeviceAttribute("DataRate", StringValue(rate));
            links.SetDeviceAttribute("FlowControl", BooleanValue(pause));
            NetDeviceContainer pair = links.Install(CreateObject<Node>(), swNode);
            hosts.push_back(DynamicCast<EthernetNetDevice>(pair.Get(0)));
            ports.Add(pair.Get(1));
        }
        EthernetSwitchHelper helper;
        helper.SetAttribute("EgressBufferBytes", UintegerValue(buffer));
        helper.SetAttribute("SharedPoolBytes", UintegerValue(pool));
        helper.SetAttribute("PauseEnabled", BooleanValue(pause));
        sw = helper.Install(swNode, ports);
        rx.assign(hosts.size(), 0);
        for (std::size_t i = 0; i < hosts.size(); ++i)
        {
            hosts[i]->TraceConnectWithoutContext("MacRx",
                                                 MakeBoundCallback(&Star::OnRx, this, i));
        }
        sw->TraceConnectWithoutContext("EgressDrop", MakeBoundCallback(&Star::OnDrop, this));
    }

    static void OnRx(Star* s, std::size_t i, Ptr<const Packet> p)
    {
        s->rx[i]++;
    }

    static void OnDrop(Star* s, Ptr<const Packet> p, uint32_t port)
    {
        s->egressDrops++;
        s->maxEgressAtDrop =
            std::max(s->maxEgressAtDrop, s->sw->GetPortState(port).egressBytes);
    }

    void Send(std::size_t from, std::size_t to, uint32_t n, uint32_t payload)
    {
        for (uint32_t k = 0; k < n; ++k)
        {
            hosts[from]->Send(Create<Packet>(payload), hosts[to]->GetAddress(), 0x0800);
        }
    }
};

} // namespace

class LearningTestCase : public TestCase
{
  public:
    LearningTestCase()
        : TestCase("unknown unicast is flooded, learned unicast is not")
    {
    }

  private:
    void DoRun() override
    {
        Star star({"100Mbps", "100Mbps", "100Mbps"}, false, 128 * 1024);
        // A -> B before the switch knows B: flooded to B and C
        Simulator::Schedule(MicroSeconds(0), &Star::Send, &star, 0, 1, 1, 100);
        // B -> A: A was learned from its first frame, so only A gets it
        Simulator::Schedule(MicroSeconds(100), &Star::Send, &star, 1, 0, 1, 100);
        // A -> B again: B now learned, C no longer sees it
        Simulator::Schedule(MicroSeconds(200), &Star::Send, &star, 0, 1, 1, 100);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(star.rx[1], 2, "B got both frames for it");
        NS_TEST_ASSERT_MSG_EQ(star.rx[0], 1, "A got B's reply");
        NS_TEST_ASSERT_MSG_EQ(star.rx[2], 1, "C saw only the flooded first frame");
        Simulator::Destroy();
    }
};

class EgressLimitTestCase : public TestCase
{
  public:
    EgressLimitTestCase()
        : TestCase("a 1G burst into a 100M port overflows the egress buffer, in bytes")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t buffer = 20 * 1518;
        Star star({"1Gbps", "100Mbps"}, false, buffer);
        Simulator::Schedule(Seconds(0), &Star::Send, &star, 1, 0, 1, 100); // learn B's port
        Simulator::Schedule(MicroSeconds(100), &Star::Send, &star, 0, 1, 100, 1500);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_GT(star.egressDrops, 0, "the burst overflowed");
        NS_TEST_ASSERT_MSG_EQ(star.egressDrops + star.rx[1], 100, "every frame delivered or dropped");
        NS_TEST_ASSERT_MSG_GT(star.maxEgressAtDrop + 1518, buffer, "dropped only when full");
        const auto& out = star.sw->GetPortState(1);
        NS_TEST_ASSERT_MSG_EQ(out.egressDrops, star.egressDrops, "counted per port");
        NS_TEST_ASSERT_MSG_EQ(out.egressBytes, 0, "buffer empty at the end");
        Simulator::Destroy();
    }
};

class SharedPoolTestCase : public TestCase
{
  public:
    SharedPoolTestCase()
        : TestCase("a shared pool smaller than the sum of egress buffers limits all ports")
    {
    }

  private:
    void DoRun() override
    {
        // two 1G senders, two 100M receivers; per-port 64 KiB but only 64 KiB in all
        Star pooled({"1Gbps", "1Gbps", "100Mbps", "100Mbps"}, false, 64 * 1024, 64 * 1024);
        Star unpooled({"1Gbps", "1Gbps", "100Mbps", "100Mbps"}, false, 64 * 1024, 0);
        for (Star* s : {&pooled, &unpooled})
        {
            Simulator::Schedule(Seconds(0), &Star::Send, s, 2, 0, 1, 100);
            Simulator::Schedule(Seconds(0), &Star::Send, s, 3, 1, 1, 100);
            Simulator::Schedule(MicroSeconds(100), &Star::Send, s, 0, 2, 60, 1500);
            Simulator::Schedule(MicroSeconds(100), &Star::Send, s, 1, 3, 60, 1500);
        }
        Simulator::Run();
        NS_TEST_ASSERT_MSG_GT(pooled.egressDrops, unpooled.egressDrops, "the pool binds");
        // 120 data frames, plus each receiver saw the other's first (flooded) frame
        NS_TEST_ASSERT_MSG_EQ(pooled.egressDrops + pooled.rx[2] + pooled.rx[3], 122, "conserved");
        NS_TEST_ASSERT_MSG_EQ(pooled.sw->GetPoolBytes(), 0, "pool empty at the end");
        Simulator::Destroy();
    }
};

class HeadroomTestCase : public TestCase
{
  public:
    HeadroomTestCase()
        : TestCase("PAUSE headroom = 3 max frames + PAUSE frame + cable round trip")
    {
    }

  private:
    void DoRun() override
    {
        Star star({"1Gbps", "100Mbps"}, true, 128 * 1024);
        // 1G port, 1 us cable: 3*1538 + 84 + 2*125 bytes
        const auto& fast = star.sw->GetPortState(0);
        NS_TEST_ASSERT_MSG_EQ(fast.headroom, 3 * 1538 + 84 + 2 * 125, "1G headroom");
        NS_TEST_ASSERT_MSG_EQ(star.sw->GetPortState(1).headroom,
                              3 * 1538 + 84 + 2 * 13,
                              "100M headroom");
        NS_TEST_ASSERT_MSG_EQ(fast.xoff, 128 * 1024 - fast.headroom, "XOFF = buffer - headroom");
        NS_TEST_ASSERT_MSG_EQ(fast.xon, fast.xoff / 2, "XON = XOFF / 2");
        Simulator::Destroy();
    }
};

class XoffXonTestCase : public TestCase
{
  public:
    XoffXonTestCase()
        : TestCase("with PAUSE a 1G burst into 100M is held back, not dropped")
    {
    }

  private:
    void DoRun() override
    {
        Star star({"1Gbps", "100Mbps"}, true, 32 * 1024);
        std::vector<uint16_t> sent;
        star.sw->TraceConnectWithoutContext(
            "PauseSent",
            MakeBoundCallback(+[](std::vector<uint16_t>* v, uint32_t, uint16_t q) { v->push_back(q); },
                              &sent));
        Simulator::Schedule(Seconds(0), &Star::Send, &star, 1, 0, 1, 100);
        Simulator::Schedule(MicroSeconds(100), &Star::Send, &star, 0, 1, 200, 1500);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(star.egressDrops, 0, "nothing dropped");
        NS_TEST_ASSERT_MSG_EQ(star.sw->GetPortState(0).ingressDrops, 0, "headroom sufficed");
        NS_TEST_ASSERT_MSG_EQ(star.rx[1], 200, "all delivered");
        NS_TEST_ASSERT_MSG_GT(sent.size(), 1, "XOFF and XON sent");
        NS_TEST_ASSERT_MSG_EQ(sent.front(), 0xFFFF, "XOFF first");
        NS_TEST_ASSERT_MSG_EQ(sent.back(), 0, "XON last");
        NS_TEST_ASSERT_MSG_EQ(star.hosts[0]->GetPauseFramesReceived(), sent.size(), "all arrived");
        NS_TEST_ASSERT_MSG_EQ(star.sw->GetPortState(0).holdingPeer,
                              false,
                              "released at the end");
        Simulator::Destroy();
    }
};

class LanlossSwitchTestSuite : public TestSuite
{
  public:
    LanlossSwitchTestSuite()
        : TestSuite("lanloss-switch", Type::UNIT)
    {
        AddTestCase(new LearningTestCase, Duration::QUICK);
        AddTestCase(new EgressLimitTestCase, Duration::QUICK);
        AddTestCase(new SharedPoolTestCase, Duration::QUICK);
        AddTestCase(new HeadroomTestCase, Duration::QUICK);
        AddTestCase(new XoffXonTestCase, Duration::QUICK);
    }
};

static LanlossSwitchTestSuite g_lanlossSwitchTestSuite;
