// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of the Ethernet device, channel and PAUSE timing against IEEE 802.3
 * numbers computed by hand (exact event times, no tolerance unless stated).
 */
#include "lanloss-test-compat.h"

#include "ns3/ethernet-channel.h"
#include "ns3/ethernet-helper.h"
#include "ns3/ethernet-net-device.h"
#include "ns3/ethernet-wire.h"
#include "ns3/mac-control-header.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/boolean.h"
#include "ns3/error-model.h"
#include "ns3/pointer.h"
#include "ns3/string.h"

#include <vector>

using namespace ns3;

namespace
{

/** Two nodes, one full-duplex link; records event times. */
struct Link
{
    Ptr<EthernetNetDevice> a;
    Ptr<EthernetNetDevice> b;
    std::vector<Time> rxEnd;   //!< PhyRxEnd at b
    std::vector<Time> txBegin; //!< PhyTxBegin at a
    std::vector<Time> pauseRx; //!< PauseRx at a

    Link(const std::string& rate, Time delay)
    {
        EthernetHelper helper;
        helper.SetDeviceAttribute("DataRate", StringValue(rate));
        helper.SetDeviceAttribute("FlowControl", BooleanValue(true));
        helper.SetChannelAttribute("Delay", TimeValue(delay));
        NetDeviceContainer d = helper.Install(CreateObject<Node>(), CreateObject<Node>());
        a = DynamicCast<EthernetNetDevice>(d.Get(0));
        b = DynamicCast<EthernetNetDevice>(d.Get(1));
        b->TraceConnectWithoutContext("PhyRxEnd", MakeCallback(&Link::OnRx, this));
        a->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&Link::OnTx, this));
        a->TraceConnectWithoutContext("PauseRx", MakeCallback(&Link::OnPause, this));
    }

    void OnRx(Ptr<const Packet> p)
    {
        rxEnd.push_back(Simulator::Now());
    }

    void OnTx(Ptr<const Packet> p)
    {
        txBegin.push_back(Simulator::Now());
    }

    void OnPause(uint16_t q)
    {
        pauseRx.push_back(Simulator::Now());
    }

    /** Queue @p n IPv4-typed frames with @p payload bytes from a to b. */
    void SendData(uint32_t n, uint32_t payload)
    {
        for (uint32_t i = 0; i < n; ++i)
        {
            a->Send(Create<Packet>(payload), b->GetAddress(), 0x0800);
        }
    }
};

} // namespace

/** Back-to-back frames arrive exactly one wire slot (frame + IFG) apart. */
class WireTimingTestCase : public TestCase
{
  public:
    WireTimingTestCase(std::string rate, uint32_t payload, uint32_t slotBytes)
        : TestCase("wire slot of a " + std::to_string(payload) + "-byte MAC payload at " + rate),
          m_rate(rate),
          m_payload(payload),
          m_slotBytes(slotBytes)
    {
    }

  private:
    void DoRun() override
    {
        Link link(m_rate, MicroSeconds(1));
        Simulator::Schedule(Seconds(0), &Link::SendData, &link, 10, m_payload);
        Simulator::Run();
        DataRate r(m_rate);
        NS_TEST_ASSERT_MSG_EQ(link.rxEnd.size(), 10, "all frames arrive");
        Time slot = r.CalculateBytesTxTime(m_slotBytes);
        for (std::size_t i = 1; i < link.rxEnd.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(link.rxEnd[i] - link.rxEnd[i - 1], slot, "one slot apart");
        }
        // first frame: serialisation (slot minus IFG) plus the cable's delay
        NS_TEST_ASSERT_MSG_EQ(link.rxEnd[0],
                              r.CalculateBytesTxTime(m_slotBytes - 12) + MicroSeconds(1),
                              "first frame's last bit");
        Simulator::Destroy();
    }

    std::string m_rate;
    uint32_t m_payload;
    uint32_t m_slotBytes;
};

/** One quantum is 512 bit times at the link's own rate; the timer restarts; 0 releases. */
class PauseQuantumTestCase : public TestCase
{
  public:
    PauseQuantumTestCase(std::string rate, uint16_t quanta, Time expected)
        : TestCase("PAUSE of " + std::to_string(quanta) + " quanta at " + rate),
          m_rate(rate),
          m_quanta(quanta),
          m_expected(expected)
    {
    }

  private:
    void DoRun() override
    {
        Link link(m_rate, Seconds(0));
        // b pauses a at t=0; a gets data 1 ns after the PAUSE (64 B + preamble) arrived
        Simulator::Schedule(Seconds(0), &EthernetNetDevice::SendPause, link.b, m_quanta);
        Simulator::Schedule(DataRate(m_rate).CalculateBytesTxTime(72) + NanoSeconds(1),
                            &Link::SendData,
                            &link,
                            1,
                            1000);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(link.pauseRx.size(), 1, "PAUSE received");
        NS_TEST_ASSERT_MSG_EQ(link.txBegin.size(), 1, "data sent after the pause");
        NS_TEST_ASSERT_MSG_EQ(link.txBegin[0] - link.pauseRx[0], m_expected, "held exactly");
        NS_TEST_ASSERT_MSG_EQ(link.a->GetPausedTime(), m_expected, "paused time counted");
        Simulator::Destroy();
    }

    std::string m_rate;
    uint16_t m_quanta;
    Time m_expected;
};

/** The frame in flight finishes; a PAUSE arriving in the IFG is honoured (INET #68). */
class PauseDuringFrameAndGapTestCase : public TestCase
{
  public:
    PauseDuringFrameAndGapTestCase()
        : TestCase("PAUSE during a frame and during the inter-frame gap")
    {
    }

  private:
    void DoRun() override
    {
        // 100 Mbit/s, no cable delay; a sends 3 full frames back to back.
        Link link("100Mbps", Seconds(0));
        DataRate r("100Mbps");
        const Time frame = r.CalculateBytesTxTime(1538 - 12); // 1500-byte MAC payload
        const Time gap = r.CalculateBytesTxTime(12);
        const Time pauseFrame = r.CalculateBytesTxTime(72); // 64-byte frame + preamble
        Simulator::Schedule(Seconds(0), &Link::SendData, &link, 3, 1500);
        // PAUSE (100 quanta = 512 us) sent by b so that it arrives during frame 0 ...
        Simulator::Schedule(frame / 2 - pauseFrame, &EthernetNetDevice::SendPause, link.b, 100);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(link.txBegin.size(), 3, "three frames");
        const Time quanta100 = r.CalculateBytesTxTime(6400);
        NS_TEST_ASSERT_MSG_EQ(link.txBegin[0], Seconds(0), "frame 0 started at once");
        // frame 0 finished; frame 1 waits for the timer started on receipt (frame/2)
        NS_TEST_ASSERT_MSG_EQ(link.txBegin[1], frame / 2 + quanta100, "held from receipt");
        Simulator::Destroy();

        // ... and a PAUSE arriving inside the gap after frame 0
        Link link2("100Mbps", Seconds(0));
        Simulator::Schedule(Seconds(0), &Link::SendData, &link2, 2, 1500);
        Time arrive = frame + gap / 2;
        Simulator::Schedule(arrive - pauseFrame, &EthernetNetDevice::SendPause, link2.b, 100);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(link2.pauseRx.size(), 1, "PAUSE received");
        NS_TEST_ASSERT_MSG_EQ(link2.pauseRx[0], arrive, "arrived inside the IFG");
        NS_TEST_ASSERT_MSG_EQ(link2.txBegin[1], arrive + quanta100, "honoured");
        Simulator::Destroy();
    }
};

/** A new PAUSE restarts the timer; PAUSE 0 (XON) releases at once. */
class PauseRestartAndXonTestCase : public TestCase
{
  public:
    PauseRestartAndXonTestCase()
        : TestCase("a new PAUSE restarts the timer, pause_time 0 releases")
    {
    }

  private:
    void DoRun() override
    {
        DataRate r("1Gbps");
        const Time pauseFrame = r.CalculateBytesTxTime(72);
        Link link("1Gbps", Seconds(0));
        Simulator::Schedule(Seconds(0), &EthernetNetDevice::SendPause, link.b, 1000);
        Simulator::Schedule(MicroSeconds(1), &Link::SendData, &link, 1, 100);
        Simulator::Schedule(MicroSeconds(100), &EthernetNetDevice::SendPause, link.b, 1000);
        Simulator::Run();
        // restarted at 100 us + frame time: held 1000 quanta from the second arrival
        NS_TEST_ASSERT_MSG_EQ(link.txBegin[0],
                              MicroSeconds(100) + pauseFrame + r.CalculateBytesTxTime(64000),
                              "timer restarted");
        Simulator::Destroy();

        Link link2("1Gbps", Seconds(0));
        Simulator::Schedule(Seconds(0), &EthernetNetDevice::SendPause, link2.b, 0xFFFF);
        Simulator::Schedule(MicroSeconds(1), &Link::SendData, &link2, 1, 100);
        Simulator::Schedule(MicroSeconds(50), &EthernetNetDevice::SendPause, link2.b, 0);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(link2.txBegin[0], MicroSeconds(50) + pauseFrame, "XON releases");
        // held from the first PAUSE's arrival to the XON's arrival: 50 us
        NS_TEST_ASSERT_MSG_EQ(link2.a->GetPausedTime(), MicroSeconds(50), "paused time");
        Simulator::Destroy();
    }
};

/** A paused transmitter can still send its own PAUSE (INET #69). */
class PausedPortSendsPauseTestCase : public TestCase
{
  public:
    PausedPortSendsPauseTestCase()
        : TestCase("a paused port still sends PAUSE, ahead of its queued data")
    {
    }

  private:
    void DoRun() override
    {
        Link link("100Mbps", Seconds(0));
        Simulator::Schedule(Seconds(0), &EthernetNetDevice::SendPause, link.b, 0xFFFF);
        Simulator::Schedule(MicroSeconds(10), &Link::SendData, &link, 5, 1500);
        Simulator::Schedule(MicroSeconds(20), &EthernetNetDevice::SendPause, link.a, 100);
        Simulator::Stop(MilliSeconds(5));
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(link.a->GetPauseFramesSent(), 1, "paused a sent its PAUSE");
        NS_TEST_ASSERT_MSG_EQ(link.b->GetPauseFramesReceived(), 1, "b received it");
        NS_TEST_ASSERT_MSG_EQ(link.txBegin.size(), 1, "only the PAUSE left a, no data");
        NS_TEST_ASSERT_MSG_EQ(link.txBegin[0], MicroSeconds(20), "at once, despite the pause");
        Simulator::Destroy();
    }
};

/** Transmit queue limit in bytes: the frame that does not fit is dropped and traced. */
static void
CountDrop(uint32_t* n, Ptr<const Packet>)
{
    ++*n;
}

class QueueLimitTestCase : public TestCase
{
  public:
    QueueLimitTestCase()
        : TestCase("transmit queue limit in bytes")
    {
    }

  private:
    void DoRun() override
    {
        EthernetHelper helper;
        helper.SetQueueBytes(3 * 1514);
        NetDeviceContainer d = helper.Install(CreateObject<Node>(), CreateObject<Node>());
        auto a = DynamicCast<EthernetNetDevice>(d.Get(0));
        uint32_t drops = 0;
        a->TraceConnectWithoutContext("MacTxDrop", MakeBoundCallback(&CountDrop, &drops));
        for (int i = 0; i < 6; ++i)
        {
            a->Send(Create<Packet>(1500), d.Get(1)->GetAddress(), 0x0800);
        }
        // the first frame starts at once and leaves the queue: 1 on the wire + 3 queued
        NS_TEST_ASSERT_MSG_EQ(drops, 2, "two frames did not fit");
        Simulator::Run();
        Simulator::Destroy();
    }
};

/** A frame the ReceiveErrorModel marks is discarded after its last bit (bad FCS), traced. */
class ReceiveErrorTestCase : public TestCase
{
  public:
    ReceiveErrorTestCase()
        : TestCase("receive error model: corrupt frames are dropped as PhyRxDrop")
    {
    }

  private:
    static void Count(uint32_t* n, Ptr<const Packet> p)
    {
        ++*n;
    }

    void DoRun() override
    {
        Link link("100Mbps", MicroSeconds(1));
        Ptr<ReceiveListErrorModel> em = CreateObject<ReceiveListErrorModel>();
        em->SetList({1, 3}); // the second and fourth frames received (0-based)
        link.b->SetAttribute("ReceiveErrorModel", PointerValue(em));
        uint32_t dropped = 0, up = 0;
        link.b->TraceConnectWithoutContext("PhyRxDrop", MakeBoundCallback(&Count, &dropped));
        link.b->TraceConnectWithoutContext("MacRx", MakeBoundCallback(&Count, &up));
        link.SendData(5, 100);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(link.rxEnd.size(), 5, "every frame reached the PHY");
        NS_TEST_ASSERT_MSG_EQ(dropped, 2, "two frames marked corrupt");
        NS_TEST_ASSERT_MSG_EQ(up, 3, "the others went up");
        Simulator::Destroy();
    }
};

class LanlossEthernetTestSuite : public TestSuite
{
  public:
    LanlossEthernetTestSuite()
        : TestSuite("lanloss-ethernet", Type::UNIT)
    {
        // slot = preamble 8 + max(payload+14+4, 64) + IFG 12
        AddTestCase(new WireTimingTestCase("100Mbps", 1, 84), Duration::QUICK);
        AddTestCase(new WireTimingTestCase("100Mbps", 46, 84), Duration::QUICK);
        AddTestCase(new WireTimingTestCase("100Mbps", 1500, 1538), Duration::QUICK);
        AddTestCase(new WireTimingTestCase("1Gbps", 1, 84), Duration::QUICK);
        AddTestCase(new WireTimingTestCase("1Gbps", 9000, 9038), Duration::QUICK);
        AddTestCase(new PauseQuantumTestCase("100Mbps", 1, NanoSeconds(5120)), Duration::QUICK);
        AddTestCase(new PauseQuantumTestCase("1Gbps", 1, NanoSeconds(512)), Duration::QUICK);
        AddTestCase(new PauseQuantumTestCase("100Mbps", 0xFFFF, NanoSeconds(335539200)),
                    Duration::QUICK);
        AddTestCase(new PauseQuantumTestCase("1Gbps", 0xFFFF, NanoSeconds(33553920)),
                    Duration::QUICK);
        AddTestCase(new PauseDuringFrameAndGapTestCase, Duration::QUICK);
        AddTestCase(new PauseRestartAndXonTestCase, Duration::QUICK);
        AddTestCase(new PausedPortSendsPauseTestCase, Duration::QUICK);
        AddTestCase(new QueueLimitTestCase, Duration::QUICK);
        AddTestCase(new ReceiveErrorTestCase, Duration::QUICK);
    }
};

static LanlossEthernetTestSuite g_lanlossEthernetTestSuite;
