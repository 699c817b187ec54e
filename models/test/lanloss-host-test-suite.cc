// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of the receiving-host model, the CPU (scheduling, CFS bandwidth groups), the socket (truesize,
 * capacity) and the application (stalls, readers, two sockets)
 * (the bed: host-test-bed.h).
 */
#include "host-test-bed.h"
#include "lanloss-test-compat.h"

#include "ns3/boolean.h"
#include "ns3/double.h"

using namespace ns3;
using namespace hosttest;

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
 * A task whose job's done callback wakes another task of its core and then
 * queues its own next job keeps the core for its slice (no wake-up
 * pre-emption): ksoftirqd's poll goes on to its next frame after the frame it
 * delivered woke the reader. Completion times are exact.
 */
class HostCpuCallbackWakeTestCase : public TestCase
{
  public:
    HostCpuCallbackWakeTestCase()
        : TestCase("HostCpu: a task woken from a job's callback waits for the slice")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<HostCpu> cpu = CreateObject<HostCpu>();
        cpu->SetAttribute("Cores", UintegerValue(1));
        cpu->SetAttribute("TimeSlice", TimeValue(MilliSeconds(3)));
        const uint32_t poller = cpu->CreateThread(0, "ksoftirqd/0");
        const uint32_t reader = cpu->CreateThread(0, "reader");
        uint32_t frames = 0;
        std::vector<Time> reads;
        // The poller takes 5 frames of 1 ms; each wakes the reader (a 0.25 ms read) before
        // the poller queues its next frame, as JobDone delivers a frame and then Steps.
        std::function<void()> frame = [&]() {
            cpu->Submit(reader, MicroSeconds(250), HostCpu::APP_WORK, Callback<void>([&]() {
                            reads.push_back(Simulator::Now());
                        }));
            if (++frames < 5)
            {
                cpu->Submit(poller, MilliSeconds(1), HostCpu::SOFTIRQ_WORK, Callback<void>(frame));
            }
        };
        Simulator::Schedule(Seconds(0), [&]() {
            cpu->Submit(poller, MilliSeconds(1), HostCpu::SOFTIRQ_WORK, Callback<void>(frame));
        });
        Simulator::Run();
        Simulator::Destroy();

        // poller 0-3 (frames 1-3, its 3 ms slice; reads 1-3 wait), reader 3-3.75 (three
        // reads), poller 3.75-5.75 (frames 4, 5), reader 5.75-6.25 (reads 4, 5).
        const std::vector<Time> want = {MicroSeconds(3250),
                                        MicroSeconds(3500),
                                        MicroSeconds(3750),
                                        MicroSeconds(6000),
                                        MicroSeconds(6250)};
        NS_TEST_ASSERT_MSG_EQ(reads.size(), want.size(), "a read per frame");
        for (size_t i = 0; i < want.size() && i < reads.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(reads[i], want[i], "read " << i + 1 << " after the slice");
        }
    }
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
        Ptr<HostRxNic> nic = CreateObject<HostRxNic>();
        // align64(len + NET_SKB_PAD 64) + 256 (sk_buff) + 320 (skb_shared_info)
        NS_TEST_ASSERT_MSG_EQ(nic->TruesizeOf(60), 704, "minimum frame");
        NS_TEST_ASSERT_MSG_EQ(nic->TruesizeOf(106), 768, "64-byte payload");
        NS_TEST_ASSERT_MSG_EQ(nic->TruesizeOf(256), 896, "copybreak itself is copied");
        NS_TEST_ASSERT_MSG_EQ(nic->TruesizeOf(257), 2304, "above copybreak: the 2 KiB buffer");
        NS_TEST_ASSERT_MSG_EQ(nic->TruesizeOf(1514), 2304, "full frame");
        // Linux 6.1 as measured in the vm testbed's guest: 1280 for a copy of any length,
        // 2176 for a frame kept in e1000's fragment (7 datagrams of 64 bytes fill an 8 KiB
        // sk_rcvbuf: floor(8192 / 1280) + 1, against 11 at 768)
        nic->SetAttribute("CopiedTruesize", UintegerValue(LANLOSS_COPIED_TRUESIZE_6_1));
        NS_TEST_ASSERT_MSG_EQ(LANLOSS_COPIED_TRUESIZE_6_1, 1280, "SKB_TRUESIZE(1024 - 320)");
        NS_TEST_ASSERT_MSG_EQ(LANLOSS_KEPT_TRUESIZE_6_1, 2176, "SKB_TRUESIZE(1600)");
        NS_TEST_ASSERT_MSG_EQ(nic->TruesizeOf(106), 1280, "6.1: a 64-byte payload's copy");
        NS_TEST_ASSERT_MSG_EQ(nic->TruesizeOf(256), 1280, "6.1: copybreak itself");
        NS_TEST_ASSERT_MSG_EQ(nic->TruesizeOf(257), 2304, "above copybreak: the buffer's");
        NS_TEST_ASSERT_MSG_EQ(HostSocket::Capacity(8192, 1280), 7, "the guest's 4 KiB socket");
        NS_TEST_ASSERT_MSG_EQ(HostSocket::Capacity(8192, 768), 11, "2.6's copies");
        nic->SetAttribute("CopiedTruesize", UintegerValue(0));
        NS_TEST_ASSERT_MSG_EQ(nic->TruesizeOf(106), 768, "back to the 2.6 rule");
        nic->SetAttribute("CopyBreak", UintegerValue(0));
        NS_TEST_ASSERT_MSG_EQ(nic->TruesizeOf(60),
                              2304,
                              "copybreak off: every frame keeps its buffer");
        nic->SetAttribute("RxBufferTruesize", UintegerValue(4352));
        NS_TEST_ASSERT_MSG_EQ(nic->TruesizeOf(1514), 4352, "4 KiB buffers");
        nic->SetAttribute("Truesize", UintegerValue(1000));
        NS_TEST_ASSERT_MSG_EQ(nic->TruesizeOf(60), 1000, "fixed truesize");

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
        bed.Costs(MicroSeconds(8), MicroSeconds(2), MicroSeconds(2), MicroSeconds(5), 0);
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
        bed.Costs(MicroSeconds(8), MicroSeconds(2), MicroSeconds(2), MicroSeconds(5), itr);
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
 * A garbage-collected reader (seed 003's Java receiver): it stops for CollectPause each
 * CollectEvery bytes it has read. 1000-byte datagrams at 10,000/s, a collection every
 * 100 datagrams read, 5 ms pauses (50 arrivals), a socket of 10 (sk_rcvbuf 18432, truesize
 * 2048). The reader keeps up between pauses, so a cycle is 100 datagrams read, then 50
 * arrivals of which 10 wait and 40 are lost; the 10 count towards the next 100. 1500
 * arrivals: collections after arrivals 100, 240, ..., 1500 (11, the last after the
 * traffic), 10 x 40 lost, 1100 read.
 */
class CollectionTestCase : public TestCase
{
  public:
    CollectionTestCase()
        : TestCase("collections: a pause every CollectEvery bytes read loses what the socket "
                   "cannot hold")
    {
    }

  private:
    void DoRun() override
    {
        Bed bed(DataRate("1Gbps"));
        bed.Costs(MicroSeconds(1), NanoSeconds(250), NanoSeconds(250), MicroSeconds(2), 0);
        bed.host.SetRxPathAttribute("Truesize", UintegerValue(2048));
        bed.host.SetSocketAttribute("RcvBuf", UintegerValue(9216));
        bed.host.SetSocketAttribute("Force", BooleanValue(true));
        bed.host.SetReaderAttribute("CollectEvery", UintegerValue(100 * 1000));
        bed.host.SetReaderAttribute("CollectPause", TimeValue(MilliSeconds(5)));
        bed.Install(1);
        bed.Traffic(1000, 10000, MilliSeconds(1), MilliSeconds(151));
        const Outcome o = bed.Finish(MilliSeconds(300), 1000);

        NS_TEST_ASSERT_MSG_EQ(o.rcvbuf, 18432, "SO_RCVBUF 9216, doubled");
        NS_TEST_ASSERT_MSG_EQ(o.sent, 1500, "150 ms at 10,000/s");
        NS_TEST_ASSERT_MSG_EQ(o.readerCollections.at(0), 11, "one per 100,000 bytes read");
        NS_TEST_ASSERT_MSG_EQ(o.received, 1100, "100 + 10 x 100 read");
        NS_TEST_ASSERT_MSG_EQ(o.Drops(LossAccountant::SOCKET_RCVBUF),
                              400,
                              "50 arrivals per pause, 10 held: 40 lost in each of 10");
        NS_TEST_ASSERT_MSG_EQ(o.Conserved(), true, "sent = received + drops");
    }
};

/**
 * Seed 004: receive capacity grows with the number of reading processes, up
 * to the wire. 1 Gbit/s, 18-byte payloads at 1.4 Mpps (the wire carries
 * 1.488), 4 cores, NIC interrupt on core 0, readers on cores 1-3, 2 us per
 * read. Processes with a socket each (SO_REUSEPORT, the datagrams dealt out in
 * turn): 1 reads 0.5 Mpps, 2 read 1 Mpps, 3 read all. Threads sharing one
 * socket copy one at a time and pay 1 us at every handoff of its lock: two
 * read 1 / 3 us = 0.333 Mpps, less than one alone.
 */
class ReadersScaleTestCase : public TestCase
{
  public:
    ReadersScaleTestCase()
        : TestCase("readers: processes on sockets of their own scale to the wire; threads on "
                   "one socket copy one at a time")
    {
    }

  private:
    Outcome Run(uint32_t n, bool reusePort)
    {
        Bed bed(DataRate("1Gbps"));
        bed.Costs(MicroSeconds(1), NanoSeconds(250), NanoSeconds(250), MicroSeconds(2), 20000);
        bed.host.SetCpuAttribute("Cores", UintegerValue(4));
        bed.host.SetReaderAttribute("WakeupCost", TimeValue(MicroSeconds(1)));
        bed.host.SetReusePort(reusePort);
        bed.Install(n);
        bed.Traffic(18, 1.4e6, MilliSeconds(1), MilliSeconds(21), MilliSeconds(5));
        return bed.Finish(MilliSeconds(40), 18);
    }

    void DoRun() override
    {
        const double pps = 1.4e6;
        for (uint32_t n : {1u, 2u, 3u})
        {
            const Outcome o = Run(n, true);
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
                                      "each reader has its own CPU time, no handoffs");
                NS_TEST_ASSERT_MSG_GT(o.readerReads[i], 0, "every reader reads");
            }
            NS_TEST_ASSERT_MSG_EQ(reads, o.received, "reads = datagrams received");
            if (n == 3)
            {
                NS_TEST_ASSERT_MSG_EQ(o.lost, 0, "three readers keep up with the wire");
            }
        }
        const Outcome shared = Run(2, false);
        NS_TEST_ASSERT_MSG_EQ_TOL(shared.goodputPps, 1e6 / 3, 0.02 * 1e6 / 3, "two threads");
        NS_TEST_ASSERT_MSG_EQ(shared.Conserved(), true, "conservation, shared socket");
    }
};

/**
 * WakeFromSleep: a lone reader woken from its sleep in recvmsg pays WakeupCost (the context
 * switch) before it reads. 1 Gbit/s, one interrupt per frame, 2 us per read, 3 us per
 * wake-up. Datagrams 100 us apart find the reader asleep every time: its CPU time is
 * exactly (2 + 3) us per read with the flag and 2 us without. At 250k/s (4 us apart, one
 * core: 1.5 us of interrupt and stack per frame) a woken reader falls behind and reads on
 * without sleeping, so only some reads pay.
 */
class WakeFromSleepTestCase : public TestCase
{
  public:
    WakeFromSleepTestCase()
        : TestCase("readers: WakeFromSleep charges a lone reader each wake-up from its sleep")
    {
    }

  private:
    Outcome Run(bool wake, double pps)
    {
        Bed bed(DataRate("1Gbps"));
        bed.Costs(MicroSeconds(1), NanoSeconds(250), NanoSeconds(250), MicroSeconds(2), 0);
        bed.host.SetReaderAttribute("WakeupCost", TimeValue(MicroSeconds(3)));
        bed.host.SetReaderAttribute("WakeFromSleep", BooleanValue(wake));
        bed.Install(1);
        bed.Traffic(18, pps, MilliSeconds(1), MilliSeconds(11), MilliSeconds(0));
        return bed.Finish(MilliSeconds(30), 18);
    }

    void DoRun() override
    {
        for (bool wake : {false, true})
        {
            const Outcome o = Run(wake, 10e3);
            const std::string with = wake ? " (WakeFromSleep)" : " (without)";
            NS_TEST_ASSERT_MSG_EQ(o.lost, 0, "100 us apart nothing is lost" + with);
            NS_TEST_ASSERT_MSG_EQ(o.readerReads[0], o.received, "reads = received" + with);
            NS_TEST_ASSERT_MSG_EQ(o.readerCpu[0],
                                  MicroSeconds(wake ? 5 : 2) * int64_t(o.readerReads[0]),
                                  "every read follows a wake-up" + with);
            NS_TEST_ASSERT_MSG_EQ(o.Conserved(), true, "conservation" + with);
        }
        const Outcome fast = Run(true, 250e3);
        const Time reads = MicroSeconds(2) * int64_t(fast.readerReads[0]);
        NS_TEST_ASSERT_MSG_EQ(fast.Conserved(), true, "conservation at 250k/s");
        NS_TEST_ASSERT_MSG_GT(fast.readerCpu[0], reads, "some reads follow a wake-up");
        NS_TEST_ASSERT_MSG_LT(fast.readerCpu[0],
                              reads + MicroSeconds(3) * int64_t(fast.readerReads[0]),
                              "a reader that finds the queue non-empty does not sleep");
    }
};

/**
 * CallCost: a receive call takes the datagrams waiting (at most CallBatch) and its first
 * read pays CallCost. 1 Gbit/s, one interrupt per frame, 2 us per read, 3 us per call.
 * Datagrams 100 us apart find the reader asleep: a call each, (2 + 3) us per read. In
 * bursts of 8 (back to back, 800 us apart) the reader finds the burst's others waiting:
 * fewer calls, and its CPU time is exactly 2 us per read and 3 us per call; with
 * CallBatch 1 every read is a call again, and with CallBatch 2 a call takes at most two.
 */
class CallCostTestCase : public TestCase
{
  public:
    CallCostTestCase()
        : TestCase("readers: CallCost is paid once per receive call of up to CallBatch")
    {
    }

  private:
    struct Calls
    {
        Outcome o;
        uint64_t calls;
    };

    Calls Run(std::string pattern, uint32_t batch)
    {
        Bed bed(DataRate("1Gbps"));
        bed.Costs(MicroSeconds(1), NanoSeconds(250), NanoSeconds(250), MicroSeconds(2), 0);
        bed.host.SetReaderAttribute("CallCost", TimeValue(MicroSeconds(3)));
        bed.host.SetReaderAttribute("CallBatch", UintegerValue(batch));
        bed.Install(1);
        bed.Traffic(18, 10e3, MilliSeconds(1), MilliSeconds(11), MilliSeconds(0), pattern);
        Calls c{bed.Finish(MilliSeconds(30), 18), 0};
        c.calls = bed.rx.readers[0]->GetCalls();
        return c;
    }

    void DoRun() override
    {
        const Calls paced = Run("cbr", 64);
        NS_TEST_ASSERT_MSG_EQ(paced.o.lost, 0, "paced: nothing lost");
        NS_TEST_ASSERT_MSG_EQ(paced.calls, paced.o.readerReads[0], "paced: a call per read");
        NS_TEST_ASSERT_MSG_EQ(paced.o.readerCpu[0],
                              MicroSeconds(5) * int64_t(paced.o.readerReads[0]),
                              "paced: every read pays the call");
        for (uint32_t batch : {64u, 2u, 1u})
        {
            const Calls b = Run("burst:8", batch);
            const std::string with = " (bursts of 8, CallBatch " + std::to_string(batch) + ")";
            const uint64_t reads = b.o.readerReads[0];
            NS_TEST_ASSERT_MSG_EQ(b.o.lost, 0, "nothing lost" + with);
            NS_TEST_ASSERT_MSG_EQ(reads, b.o.received, "reads = received" + with);
            NS_TEST_ASSERT_MSG_EQ(b.o.readerCpu[0],
                                  MicroSeconds(2) * int64_t(reads) +
                                      MicroSeconds(3) * int64_t(b.calls),
                                  "2 us per read, 3 us per call" + with);
            NS_TEST_ASSERT_MSG_EQ(b.o.Conserved(), true, "conservation" + with);
            NS_TEST_ASSERT_MSG_GT_OR_EQ(b.calls * batch, reads, "at most CallBatch a call" + with);
            if (batch == 1)
            {
                NS_TEST_ASSERT_MSG_EQ(b.calls, reads, "a call per read" + with);
            }
            else
            {
                NS_TEST_ASSERT_MSG_LT(b.calls, reads, "a burst's others wait: fewer calls" + with);
            }
        }
    }
};

/**
 * CallCost comes after a call's last look at the queue (recvmmsg's exit, the
 * application's loop, the next call's entry): a datagram that arrives meanwhile is taken
 * by the next call, with no sleep and no wake-up. Datagrams 100 us apart, 2 us per read,
 * 150 us per call: after the first datagram wakes the reader, every later one arrives
 * while it pays a call, so it never sleeps again until the traffic ends. Its CPU time is
 * exactly 2 us per read and 150 us per call, and a call takes one or two datagrams.
 * (Paid with a call's first read, as before, the reader found the queue empty after each
 * call's reads and slept: a wake-up per call.)
 */
class CallReturnTestCase : public TestCase
{
  public:
    CallReturnTestCase()
        : TestCase("readers: a datagram that arrives while a call returns needs no wake-up")
    {
    }

  private:
    void DoRun() override
    {
        Bed bed(DataRate("1Gbps"));
        bed.Costs(MicroSeconds(1), NanoSeconds(250), NanoSeconds(250), MicroSeconds(2), 0);
        bed.host.SetReaderAttribute("CallCost", TimeValue(MicroSeconds(150)));
        bed.Install(1);
        bed.Traffic(18, 10e3, MilliSeconds(1), MilliSeconds(11), MilliSeconds(0), "cbr");
        const Outcome o = bed.Finish(MilliSeconds(30), 18);
        Ptr<HostReader> reader = bed.rx.readers[0];
        const uint64_t reads = o.readerReads[0];
        const uint64_t calls = reader->GetCalls();
        NS_TEST_ASSERT_MSG_EQ(o.lost, 0, "nothing lost");
        NS_TEST_ASSERT_MSG_EQ(reads, o.received, "reads = received");
        NS_TEST_ASSERT_MSG_EQ(o.Conserved(), true, "conservation");
        NS_TEST_ASSERT_MSG_EQ(reader->GetWakeups(), 1, "only the first datagram wakes it");
        NS_TEST_ASSERT_MSG_EQ(o.readerCpu[0],
                              MicroSeconds(2) * int64_t(reads) + MicroSeconds(150) * int64_t(calls),
                              "2 us per read, 150 us per call");
        NS_TEST_ASSERT_MSG_LT(calls, reads, "some calls take two");
        NS_TEST_ASSERT_MSG_GT_OR_EQ(calls * 2, reads, "no call takes more than two");
    }
};

/**
 * ForwardDeficit (Linux 6.1's udp_rmem_release): a read datagram's charge is released at
 * its dequeue, but held back while the charges not yet released are under a quarter of
 * sk_rcvbuf and the reader's queue (what it took from the receive queue at once) holds
 * datagrams. setsockopt(4 KiB): sk_rcvbuf 8192, a quarter 2048; truesize 1280: 7 queue.
 * Without it the charge goes after the copy (Consume), one datagram at a time.
 */
class ForwardDeficitTestCase : public TestCase
{
  public:
    ForwardDeficitTestCase()
        : TestCase("socket: ForwardDeficit releases read charges in quarters of sk_rcvbuf")
    {
    }

  private:
    static HostDatagram Datagram()
    {
        HostDatagram d;
        HostRxFrame f;
        f.packet = Create<Packet>(64);
        d.frames.push_back(f);
        d.truesize = 1280;
        d.payloadBytes = 64;
        return d;
    }

    void DoRun() override
    {
        for (bool deficit : {false, true})
        {
            const std::string with = deficit ? " (ForwardDeficit)" : " (after the copy)";
            Ptr<HostSocket> socket = CreateObject<HostSocket>();
            socket->SetAttribute("RcvBuf", UintegerValue(4096));
            socket->SetAttribute("Force", BooleanValue(true));
            socket->SetAttribute("ForwardDeficit", BooleanValue(deficit));
            NS_TEST_ASSERT_MSG_EQ(socket->GetRcvbuf(), 8192, "4 KiB doubled" + with);
            uint32_t queued = 0;
            while (socket->Enqueue(Datagram()))
            {
                ++queued;
            }
            NS_TEST_ASSERT_MSG_EQ(queued, 7, "floor(8192 / 1280) + 1 queued" + with);
            // one read: the reader takes all 7; 1280 < 2048 and 6 left, so held back
            socket->Consume(socket->Dequeue());
            NS_TEST_ASSERT_MSG_EQ(socket->GetRmemAlloc(),
                                  (deficit ? 7 : 6) * 1280,
                                  "after one read" + with);
            NS_TEST_ASSERT_MSG_EQ(socket->Enqueue(Datagram()), !deficit, "room" + with);
            // a second read: 2560 >= 2048, both released at its dequeue (without: the
            // datagram let in above keeps the socket at 7, the read's charge still on)
            HostDatagram second = socket->Dequeue();
            NS_TEST_ASSERT_MSG_EQ(socket->GetRmemAlloc(),
                                  (deficit ? 5 : 7) * 1280,
                                  "at the second dequeue" + with);
            socket->Consume(second);
            NS_TEST_ASSERT_MSG_EQ(socket->Enqueue(Datagram()), true, "room again" + with);
            uint32_t reads = 2;
            while (!socket->IsEmpty())
            {
                socket->Consume(socket->Dequeue());
                ++reads;
            }
            NS_TEST_ASSERT_MSG_EQ(reads, (deficit ? 8u : 9u), "every datagram queued is read" + with);
            NS_TEST_ASSERT_MSG_EQ(socket->GetRmemAlloc(), 0, "nothing charged at the end" + with);
            socket->Dispose();
        }
    }
};

/** A job's callback that records, under @p name, when the job ended. */
Callback<void>
RecordDone(std::map<std::string, Time>& done, const std::string& name)
{
    return Callback<void>([&done, name]() { done[name] = Simulator::Now(); });
}

/**
 * A job submitted with interrupts off (spin_lock_irqsave) is not pre-empted on its
 * core, neither by a hard IRQ nor a softirq nor by the end of its time slice: they run
 * after it, in priority order.
 */
class HostCpuIrqsOffTestCase : public TestCase
{
  public:
    HostCpuIrqsOffTestCase()
        : TestCase("HostCpu: a job with interrupts off runs to its end, then IRQ > softirq")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<HostCpu> cpu = CreateObject<HostCpu>();
        cpu->SetAttribute("TimeSlice", TimeValue(MicroSeconds(3)));
        const uint32_t a = cpu->CreateThread(0, "a");
        const uint32_t b = cpu->CreateThread(0, "b");
        std::map<std::string, Time> done;
        auto at = [&done](std::string n) { return RecordDone(done, n); };
        Simulator::Schedule(Seconds(0), [&]() {
            cpu->Submit(a, MicroSeconds(10), HostCpu::APP_WORK, at("a"), true);
            cpu->Submit(b, MicroSeconds(2), HostCpu::APP_WORK, at("b"));
        });
        Simulator::Schedule(MicroSeconds(1), [&]() {
            cpu->Submit(cpu->SoftIrqContext(0), MicroSeconds(1), HostCpu::SOFTIRQ_WORK, at("s"));
            cpu->Submit(cpu->HardIrqContext(0), MicroSeconds(1), HostCpu::IRQ_WORK, at("i"));
        });
        Simulator::Stop(MilliSeconds(1));
        Simulator::Run();
        const Time app = cpu->GetBusyTime(HostCpu::APP_WORK);
        Simulator::Destroy();
        // a 0-10 (no pre-emption, no slice end); irq 10-11; softirq 11-12; b 12-14
        NS_TEST_ASSERT_MSG_EQ(done["a"], MicroSeconds(10), "interrupts off: a runs through");
        NS_TEST_ASSERT_MSG_EQ(done["i"], MicroSeconds(11), "the hard IRQ waits for a");
        NS_TEST_ASSERT_MSG_EQ(done["s"], MicroSeconds(12), "then the softirq");
        NS_TEST_ASSERT_MSG_EQ(done["b"], MicroSeconds(14), "then the other task");
        NS_TEST_ASSERT_MSG_EQ(app, MicroSeconds(12), "task time");
    }
};

/**
 * SMT (SmtSiblings 2, SmtShare 0.65): two logical CPUs of one core. A job alone runs at
 * full speed; while both siblings run, each progresses at 0.65. Jobs of 10 us and 5 us
 * started together: the 5 us job ends at 5 / 0.65 = 7.693 us (rounded up to the ns), the
 * other has done 5 us by then and runs its last 5 us alone: 12.693 us. Busy time is wall
 * time per logical CPU.
 */
class HostCpuSmtTestCase : public TestCase
{
  public:
    HostCpuSmtTestCase()
        : TestCase("HostCpu SMT: siblings at 0.65 of a core while both run, full speed alone")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<HostCpu> cpu = CreateObject<HostCpu>();
        cpu->SetAttribute("SmtSiblings", UintegerValue(2));
        cpu->SetAttribute("SmtShare", DoubleValue(0.65));
        cpu->SetAttribute("Cores", UintegerValue(2));
        const uint32_t a = cpu->CreateThread(0, "a");
        const uint32_t b = cpu->CreateThread(1, "b");
        std::map<std::string, Time> done;
        auto at = [&done](std::string n) { return RecordDone(done, n); };
        Simulator::Schedule(Seconds(0), [&]() {
            cpu->Submit(a, MicroSeconds(10), HostCpu::APP_WORK, at("a"));
            cpu->Submit(b, MicroSeconds(5), HostCpu::APP_WORK, at("b"));
        });
        // later, a job alone on CPU 1: full speed
        Simulator::Schedule(MicroSeconds(100), [&]() {
            cpu->Submit(b, MicroSeconds(4), HostCpu::APP_WORK, at("alone"));
        });
        Simulator::Stop(MilliSeconds(1));
        Simulator::Run();
        const Time busy0 = cpu->GetBusyTime(0, HostCpu::APP_WORK);
        const Time busy1 = cpu->GetBusyTime(1, HostCpu::APP_WORK);
        Simulator::Destroy();
        NS_TEST_ASSERT_MSG_EQ(done["b"], NanoSeconds(7693), "5 us at 0.65");
        NS_TEST_ASSERT_MSG_EQ(done["a"], NanoSeconds(12693), "5 us shared, 5 us alone");
        NS_TEST_ASSERT_MSG_EQ(done["alone"], MicroSeconds(104), "alone: full speed");
        NS_TEST_ASSERT_MSG_EQ(busy0, NanoSeconds(12693), "CPU 0 wall time busy");
        NS_TEST_ASSERT_MSG_EQ(busy1, NanoSeconds(7693 + 4000), "CPU 1 wall time busy");
    }
};

/**
 * The shared-socket bed of the socket-lock cases: a 3-core host, a fast kernel (1 us per
 * interrupt, 0.5 us per frame), ITR @p itr, @p read per read, @p wakeup per wake-up,
 * Linux's queue spinlock on, the readers sharing one socket.
 */
void
SharedSocketHost(Bed& bed, uint32_t itr, Time read, Time wakeup)
{
    bed.Costs(MicroSeconds(1), NanoSeconds(250), NanoSeconds(250), read, itr);
    bed.host.SetCpuAttribute("Cores", UintegerValue(3));
    bed.host.SetReaderAttribute("WakeupCost", TimeValue(wakeup));
    bed.host.SetSocketAttribute("QueueSpinlock", BooleanValue(true));
    bed.host.SetReusePort(false);
}

/**
 * Linux's socket lock (HostSocket QueueSpinlock): two readers on one socket, on cores 1
 * and 2, the softirq's enqueue on core 0, datagrams 100 us apart so that both readers
 * sleep before each one. Per datagram, with WakeAll: both are woken (2 wakeups, each
 * paying W), the first takes the lock (its line from core 0: T + H) and the datagram,
 * the second spins until the first releases it (T + H), takes it (T + H) and finds the
 * queue empty (a futile wakeup). Exact counts: wakeups 2N, futile N, line transfers
 * 3N - 1 (the first enqueue finds no previous holder), reader CPU N (2W + R + 3(T + H)),
 * spin N (T + H). Exclusive wake-ups: N wakeups, none futile, 2N - 1 transfers, reader
 * CPU N (W + R + T + H).
 */
class QueueSpinlockTestCase : public TestCase
{
  public:
    QueueSpinlockTestCase()
        : TestCase("socket lock as Linux: a spinlock around the dequeue, a line transfer per "
                   "change of core, futile wakeups with wake-all")
    {
    }

  private:
    struct Counts
    {
        Outcome o;
        uint64_t wakeups = 0;
        uint64_t futile = 0;
        uint64_t transfers = 0;
        Time spin;
    };

    Counts Run(bool wakeAll)
    {
        Bed bed(DataRate("1Gbps"));
        SharedSocketHost(bed, 0, MicroSeconds(2), MicroSeconds(1));
        bed.host.SetSocketAttribute("LineTransfer", TimeValue(NanoSeconds(100)));
        bed.host.SetSocketAttribute("LockHold", TimeValue(NanoSeconds(50)));
        bed.host.SetSocketAttribute("WakeAll", BooleanValue(wakeAll));
        bed.Install(2);
        bed.Traffic(18, 10000, MilliSeconds(1), MilliSeconds(11), MilliSeconds(0));
        Counts c;
        const Ptr<HostSocket> sock = bed.rx.sockets.front();
        c.o = bed.Finish(MilliSeconds(20), 18);
        c.wakeups = sock->GetWakeups();
        c.futile = sock->GetFutileWakeups();
        c.transfers = sock->GetLineTransfers();
        c.spin = sock->GetSpinTime();
        return c;
    }

    void DoRun() override
    {
        const Time w = MicroSeconds(1);
        const Time r = MicroSeconds(2);
        const Time th = NanoSeconds(150);
        const Counts all = Run(true);
        const uint64_t n = all.o.sent;
        NS_TEST_ASSERT_MSG_EQ(n, 100, "100 datagrams at 10,000/s for 10 ms");
        NS_TEST_ASSERT_MSG_EQ(all.o.Conserved(), true, "conservation");
        NS_TEST_ASSERT_MSG_EQ(all.o.received, n, "nothing lost at this rate");
        NS_TEST_ASSERT_MSG_EQ(all.wakeups, 2 * n, "wake-all: both readers per datagram");
        NS_TEST_ASSERT_MSG_EQ(all.futile, n, "one of the two finds the queue empty");
        NS_TEST_ASSERT_MSG_EQ(all.transfers, 3 * n - 1, "enqueue, reader, reader");
        NS_TEST_ASSERT_MSG_EQ(all.spin, th * int64_t(n), "the second spins T + H");
        const Time cpu = all.o.readerCpu[0] + all.o.readerCpu[1];
        NS_TEST_ASSERT_MSG_EQ(cpu, (w * 2 + r + th * 3) * int64_t(n), "readers' CPU");
        NS_TEST_ASSERT_MSG_EQ(all.o.readerReads[0] + all.o.readerReads[1], n, "reads");

        const Counts one = Run(false);
        NS_TEST_ASSERT_MSG_EQ(one.o.Conserved(), true, "conservation, exclusive wake-ups");
        NS_TEST_ASSERT_MSG_EQ(one.o.received, n, "nothing lost, exclusive wake-ups");
        NS_TEST_ASSERT_MSG_EQ(one.wakeups, n, "exclusive: one reader per datagram");
        NS_TEST_ASSERT_MSG_EQ(one.futile, 0, "no futile wakeups");
        NS_TEST_ASSERT_MSG_EQ(one.transfers, 2 * n - 1, "enqueue, reader");
        NS_TEST_ASSERT_MSG_EQ(one.spin, Seconds(0), "nobody spins");
        const Time cpu1 = one.o.readerCpu[0] + one.o.readerCpu[1];
        NS_TEST_ASSERT_MSG_EQ(cpu1, (w + r + th) * int64_t(n), "readers' CPU, exclusive");
    }
};

/**
 * Linux 2.6.25-2.6.32's owner lock (HostSocket OwnerCost): after its copy each reader
 * frees the datagram under lock_sock. Two readers on cores 1 and 2 of one socket, fed
 * faster than they read, 20 us per read of which O = 10 us under the lock, W = 5 us per
 * handoff: the copies overlap, the owner sections do not, and each reader finds the
 * socket owned by the other, so the lock passes with every datagram and the pair reads
 * one per O + W = 15 us (66,667/s; one reader alone: 50,000/s). The softirq parks
 * what arrives while the socket is owned and release_sock queues it: conservation holds.
 */
class OwnerLockTestCase : public TestCase
{
  public:
    OwnerLockTestCase()
        : TestCase("socket owner lock (2.6.32): two readers read one per owner section + "
                   "handoff, the softirq parks datagrams meanwhile")
    {
    }

  private:
    Outcome Run(uint32_t readers, uint64_t& handoffs, uint64_t& backlogged)
    {
        Bed bed(DataRate("1Gbps"));
        SharedSocketHost(bed, 20000, MicroSeconds(20), MicroSeconds(5));
        bed.host.SetSocketAttribute("OwnerCost", TimeValue(MicroSeconds(10)));
        bed.host.SetSocketAttribute("RcvBuf", UintegerValue(1 << 20));
        bed.host.SetSocketAttribute("Force", BooleanValue(true));
        bed.Install(readers);
        bed.Traffic(1472, 81000, MilliSeconds(1), MilliSeconds(61), MilliSeconds(20));
        const Ptr<HostSocket> sock = bed.rx.sockets.front();
        const Outcome o = bed.Finish(MilliSeconds(200), 1472);
        handoffs = sock->GetLockHandoffs();
        backlogged = sock->GetBacklogged();
        return o;
    }

    void DoRun() override
    {
        uint64_t handoffs = 0;
        uint64_t backlogged = 0;
        const Outcome one = Run(1, handoffs, backlogged);
        NS_TEST_ASSERT_MSG_EQ(one.Conserved(), true, "conservation, one reader");
        NS_TEST_ASSERT_MSG_EQ_TOL(one.goodputPps, 50000, 1000, "one reader: 1 / 20 us");
        NS_TEST_ASSERT_MSG_EQ(handoffs, 0, "one reader never waits for the lock");
        NS_TEST_ASSERT_MSG_GT(backlogged, 0, "datagrams parked while it owns the socket");
        const Outcome two = Run(2, handoffs, backlogged);
        NS_TEST_ASSERT_MSG_EQ(two.Conserved(), true, "conservation, two readers");
        NS_TEST_ASSERT_MSG_EQ_TOL(two.goodputPps, 1e6 / 15, 1e6 / 15 * 0.02, "1 / (O + W)");
        const uint64_t reads = two.readerReads[0] + two.readerReads[1];
        NS_TEST_ASSERT_MSG_EQ(reads, two.received, "reads = datagrams received");
        NS_TEST_ASSERT_MSG_EQ_TOL(double(handoffs), double(reads), 0.01 * reads,
                                  "the lock is handed over with every datagram");
        NS_TEST_ASSERT_MSG_GT(backlogged, 0, "datagrams parked while a reader owns it");
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
        bed.Costs(MicroSeconds(8), MicroSeconds(2), MicroSeconds(2), MicroSeconds(5), 2500);
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
        AddTestCase(new HostCpuCallbackWakeTestCase, Duration::QUICK);
        AddTestCase(new TruesizeRuleTestCase, Duration::QUICK);
        AddTestCase(new CollectionTestCase, Duration::QUICK);
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
        AddTestCase(new StallBurstTestCase, Duration::QUICK);
        AddTestCase(new ReadersScaleTestCase, Duration::QUICK);
        AddTestCase(new WakeFromSleepTestCase, Duration::QUICK);
        AddTestCase(new CallCostTestCase, Duration::QUICK);
        AddTestCase(new CallReturnTestCase, Duration::QUICK);
        AddTestCase(new ForwardDeficitTestCase, Duration::QUICK);
        AddTestCase(new TwoSocketsTestCase, Duration::QUICK);
        AddTestCase(new HostCpuIrqsOffTestCase, Duration::QUICK);
        AddTestCase(new HostCpuSmtTestCase, Duration::QUICK);
        AddTestCase(new QueueSpinlockTestCase, Duration::QUICK);
        AddTestCase(new OwnerLockTestCase, Duration::QUICK);
    }
};

static LanlossHostTestSuite g_lanlossHostTestSuite;
