// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of LanBuilder's cost terms that grow with the number of hosts, by
 * counting: ARP entries, frames on the wire before traffic starts, unknown
 * unicast floods, and the ports the station directory gives each switch.
 */
#include "lanloss-test-compat.h"

#include "ns3/arp-cache.h"
#include "ns3/channel.h"
#include "ns3/ethernet-net-device.h"
#include "ns3/ethernet-switch-net-device.h"
#include "ns3/ipv4-interface.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/ipv6-l3-protocol.h"
#include "ns3/lan-builder.h"
#include "ns3/lan-spec.h"
#include "ns3/names.h"
#include "ns3/output-stream-wrapper.h"
#include "ns3/simulator.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/test.h"
#include "ns3/udp-l4-protocol.h"

#include <sstream>
#include <string>

using namespace ns3;

namespace
{

LanSpec
TwoTier()
{
    // 2 senders on edge1, 6 receivers over edge2..edge3 (LanSpec::TwoTier)
    return LanSpec::TwoTier(2,
                            6,
                            3,
                            DataRate("100Mbps"),
                            DataRate("1Gbps"),
                            DataRate("1Gbps"),
                            MicroSeconds(1));
}

/** Entries in @p host's ARP cache, as its printout lists them (one line each). */
uint32_t
ArpCacheLines(const LanBuilder& lan, const std::string& host)
{
    Ptr<Ipv4L3Protocol> ip = lan.GetHost(host)->GetObject<Ipv4L3Protocol>();
    Ptr<ArpCache> cache =
        ip->GetInterface(ip->GetInterfaceForDevice(lan.GetHostDevice(host)))->GetArpCache();
    std::ostringstream text;
    cache->PrintArpCache(Create<OutputStreamWrapper>(&text));
    uint32_t lines = 0;
    for (char c : text.str())
    {
        lines += c == '\n';
    }
    return lines;
}

/** End of one LAN: the simulator and the global node names (LanBuilder adds them). */
void
Done()
{
    Simulator::Destroy();
    Names::Clear();
}

uint64_t
HostFramesSent(const LanBuilder& lan)
{
    uint64_t n = 0;
    for (const auto& h : lan.HostNames())
    {
        n += lan.GetHostDevice(h)->GetDataFramesSent();
    }
    return n;
}

uint64_t
UnknownFloods(const LanBuilder& lan)
{
    uint64_t n = 0;
    for (const auto& sw : lan.GetSwitches())
    {
        n += sw->GetUnknownUnicastFloods();
    }
    return n;
}

void
CountRx(uint32_t* n, Ptr<const Packet> p)
{
    ++*n;
}

/** One frame from @p from to @p to's MAC, of the local experimental EtherType (802)
 *  that no protocol on the hosts handles: the switch reads only the MAC header. */
void
SendFrame(const LanBuilder* lan, std::string from, std::string to)
{
    Ptr<EthernetNetDevice> dev = lan->GetHostDevice(from);
    dev->Send(Create<Packet>(100), lan->GetHostDevice(to)->GetAddress(), 0x88B5);
}

} // namespace

class ArpEntriesTestCase : public TestCase
{
  public:
    ArpEntriesTestCase()
        : TestCase("ARP entries: the two ends of each flow, not every pair of hosts")
    {
    }

  private:
    void DoRun() override
    {
        {
            LanBuilder lan;
            lan.Build(TwoTier()); // flows r_j <- s_(j mod 2): 6 flows
            NS_TEST_ASSERT_MSG_EQ(lan.GetArpEntries(), 12, "both ends of 6 flows");
            NS_TEST_ASSERT_MSG_EQ(ArpCacheLines(lan, "s1"), 3, "s1 sends to r1, r3, r5");
            NS_TEST_ASSERT_MSG_EQ(ArpCacheLines(lan, "r2"), 1, "r2 hears from s2 only");
            Done();
        }
        {
            LanBuilder lan;
            lan.SetArpScope(LanBuilder::ARP_ALL);
            lan.Build(TwoTier());
            NS_TEST_ASSERT_MSG_EQ(lan.GetArpEntries(), 8 * 7, "every ordered pair");
            NS_TEST_ASSERT_MSG_EQ(ArpCacheLines(lan, "r2"), 7, "every other host");
            Done();
        }
    }
};

class StackTestCase : public TestCase
{
  public:
    StackTestCase()
        : TestCase("Hosts get IPv4, UDP and TCP; IPv6 only on request")
    {
    }

  private:
    void DoRun() override
    {
        for (bool ipv6 : {false, true})
        {
            LanBuilder lan;
            if (ipv6)
            {
                lan.SetIpv6(true);
            }
            lan.Build(TwoTier());
            for (const auto& h : lan.HostNames())
            {
                Ptr<Node> node = lan.GetHost(h);
                NS_TEST_ASSERT_MSG_NE(node->GetObject<Ipv4L3Protocol>(), nullptr, h);
                NS_TEST_ASSERT_MSG_NE(node->GetObject<UdpL4Protocol>(), nullptr, h);
                NS_TEST_ASSERT_MSG_NE(node->GetObject<TcpL4Protocol>(), nullptr, h);
                NS_TEST_ASSERT_MSG_EQ(bool(node->GetObject<Ipv6L3Protocol>()), ipv6, h);
            }
            Done();
        }
    }
};

class QuietStartTestCase : public TestCase
{
  public:
    QuietStartTestCase()
        : TestCase("no frame on the wire before traffic unless gratuitous ARP is asked for")
    {
    }

  private:
    void DoRun() override
    {
        {
            LanBuilder lan;
            lan.Build(TwoTier());
            Simulator::Stop(lan.StartTime());
            Simulator::Run();
            NS_TEST_ASSERT_MSG_EQ(HostFramesSent(lan), 0, "directory: silent start");
            Done();
        }
        {
            LanBuilder lan;
            lan.SetStationLearning(LanBuilder::LEARN_GRATUITOUS_ARP);
            lan.Build(TwoTier());
            uint32_t r1 = 0;
            lan.GetHostDevice("r1")->TraceConnectWithoutContext("MacRx",
                                                                MakeBoundCallback(&CountRx, &r1));
            Simulator::Stop(lan.StartTime());
            Simulator::Run();
            NS_TEST_ASSERT_MSG_EQ(HostFramesSent(lan), 8, "one gratuitous ARP per host");
            NS_TEST_ASSERT_MSG_EQ(r1, 7, "every other host's broadcast reaches r1");
            Done();
        }
    }
};

class NoFloodTestCase : public TestCase
{
  public:
    NoFloodTestCase()
        : TestCase("a receiver that never sent is reached without flooding while learned")
    {
    }

  private:
    /** Frames the hosts other than r4 received after s1 sent one frame to r4 at @p when. */
    static uint32_t Stray(LanBuilder::StationLearning mode, Time when, uint64_t* floods)
    {
        LanBuilder lan;
        lan.SetStationLearning(mode);
        lan.SetSwitchAttribute("AgeingTime", TimeValue(MilliSeconds(10)));
        lan.Build(TwoTier());
        std::vector<uint32_t> rx(lan.HostNames().size(), 0);
        for (std::size_t i = 0; i < rx.size(); ++i)
        {
            lan.GetHostDevice(lan.HostNames()[i])
                ->TraceConnectWithoutContext("MacRx", MakeBoundCallback(&CountRx, &rx[i]));
        }
        Simulator::Schedule(lan.StartTime() + when, &SendFrame, &lan, "s1", "r4");
        Simulator::Run();
        uint32_t stray = 0;
        for (std::size_t i = 0; i < rx.size(); ++i)
        {
            stray += lan.HostNames()[i] == "r4" ? 0 : rx[i];
        }
        *floods = UnknownFloods(lan);
        Done();
        return stray;
    }

    void DoRun() override
    {
        uint64_t floods = 0;
        uint32_t stray = Stray(LanBuilder::LEARN_DIRECTORY, Seconds(0), &floods);
        NS_TEST_ASSERT_MSG_EQ(floods, 0, "directory: r4 known on every switch");
        NS_TEST_ASSERT_MSG_EQ(stray, 0, "directory: only r4 gets it");
        stray = Stray(LanBuilder::LEARN_GRATUITOUS_ARP, Seconds(0), &floods);
        NS_TEST_ASSERT_MSG_EQ(floods, 0, "gratuitous ARP: r4 learned at t = 0");
        NS_TEST_ASSERT_MSG_EQ(stray, 7 * 7, "gratuitous ARP: 7 hosts hear 7 others, no flood");
        stray = Stray(LanBuilder::LEARN_TRAFFIC, Seconds(0), &floods);
        NS_TEST_ASSERT_MSG_EQ(floods, 4, "from traffic: all four switches flood");
        NS_TEST_ASSERT_MSG_EQ(stray, 6, "from traffic: every host but s1 and r4 gets a copy");
        // After AgeingTime an entry learned at t = 0 has expired: unknown again, as with
        // a real gratuitous ARP.
        stray = Stray(LanBuilder::LEARN_DIRECTORY, MilliSeconds(20), &floods);
        NS_TEST_ASSERT_MSG_EQ(floods, 4, "directory after ageing: flooded");
        NS_TEST_ASSERT_MSG_EQ(stray, 6, "directory after ageing: every other host");
    }
};

class DirectoryPortsTestCase : public TestCase
{
  public:
    DirectoryPortsTestCase()
        : TestCase("the station directory gives each switch the port on the path to a host")
    {
    }

  private:
    void DoRun() override
    {
        LanBuilder lan;
        lan.Build(TwoTier());
        uint32_t checked = 0;
        for (const auto& h : lan.HostNames())
        {
            Ptr<Channel> hostCable = lan.GetHostDevice(h)->GetChannel();
            // The edge switch of h: its port towards h is h's cable.
            bool attached = false;
            for (const std::string sw : {"edge1", "edge2", "edge3"})
            {
                uint32_t port = lan.PortTowards(sw, h);
                NS_TEST_ASSERT_MSG_LT(port, lan.GetSwitch(sw)->GetNPorts(), "a port of " << sw);
                if (lan.GetSwitch(sw)->GetPort(port)->GetChannel() == hostCable)
                {
                    attached = true;
                    ++checked;
                }
                else
                {
                    // any other edge switch sends it up its only trunk, port 0
                    NS_TEST_ASSERT_MSG_EQ(port, 0, sw << " towards " << h << ": the uplink");
                }
            }
            NS_TEST_ASSERT_MSG_EQ(attached, true, h << " is on one edge switch");
            // core: the trunk to h's edge switch, whose uplink shares its cable
            uint32_t corePort = lan.PortTowards("core", h);
            Ptr<Channel> trunk = lan.GetSwitch("core")->GetPort(corePort)->GetChannel();
            bool onTrunk = false;
            for (const std::string sw : {"edge1", "edge2", "edge3"})
            {
                onTrunk = onTrunk || (lan.GetSwitch(sw)->GetPort(0)->GetChannel() == trunk &&
                                      lan.GetSwitch(sw)->GetPort(lan.PortTowards(sw, h))
                                              ->GetChannel() == hostCable);
            }
            NS_TEST_ASSERT_MSG_EQ(onTrunk, true, "core towards " << h << ": its edge's trunk");
        }
        NS_TEST_ASSERT_MSG_EQ(checked, 8, "every host found once");
        NS_TEST_ASSERT_MSG_EQ(lan.GetDirectory()->GetNHosts(), 8, "one entry per host");
        Done();
    }
};

class LanlossLanTestSuite : public TestSuite
{
  public:
    LanlossLanTestSuite()
        : TestSuite("lanloss-lan", Type::UNIT)
    {
        AddTestCase(new ArpEntriesTestCase, Duration::QUICK);
        AddTestCase(new StackTestCase, Duration::QUICK);
        AddTestCase(new QuietStartTestCase, Duration::QUICK);
        AddTestCase(new NoFloodTestCase, Duration::QUICK);
        AddTestCase(new DirectoryPortsTestCase, Duration::QUICK);
    }
};

static LanlossLanTestSuite g_lanlossLanTestSuite;
