// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of the receiving-host model, the kernel: NAPI budget, ksoftirqd, RPS backlog,
 * reassembly, receive livelock
 * (the bed: host-test-bed.h).
 */
#include "host-test-bed.h"
#include "lanloss-test-compat.h"

using namespace ns3;
using namespace hosttest;

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
        bed.Costs(MilliSeconds(10), m_driverCost, Seconds(0), MicroSeconds(5), 0);
        bed.host.SetRxPathAttribute("RxRingSize", UintegerValue(2048));
        bed.host.SetRxPathAttribute("MaxSoftirqRestart", UintegerValue(m_maxRestart));
        bed.Install(0);
        Outcome o = bed.Burst(1000, MilliSeconds(200));

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
        bed.Costs(MicroSeconds(8), MicroSeconds(20), MicroSeconds(2), MicroSeconds(50), 2500);
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
 * Two ways to live past capacity (receive livelock or not). One core, no interrupt
 * cost, P = 100 us of softirq work per frame (driver 50 + stack 50), R = 50 us per read,
 * 8,000 datagrams/s offered: the softirq alone keeps up (lambda P = 0.8), softirq and
 * reader together do not (lambda (P + R) = 1.2). Softirqs run on interrupt exit before
 * any task, so each NAPI poll ends with the ring empty, the reader gets what is left,
 * (1 - lambda P) / R = 4,000 reads/s, and the rest is dropped at the socket after its
 * softirq work was done. A burst of more than a poll's weight first (StartBurst 200: 200
 * more datagrams at the start) makes a poll end with work left past MaxSoftirqTime: the
 * work goes to ksoftirqd, a task that shares the core with the reader. Then the ring never empties,
 * the poll never completes, no interrupt is taken again and ksoftirqd keeps the work:
 * every frame it takes is read, 1 / (P + R) = 6,667 datagrams/s, and the rest waits in
 * the ring and is dropped at the NIC, where it costs no CPU. Same host, same traffic, two
 * outcomes decided by the start (a saturated QEMU guest shows both: docs/testbed-vm.md).
 */
class TwoSaturatedLivesTestCase : public TestCase
{
  public:
    TwoSaturatedLivesTestCase()
        : TestCase("past capacity: inline softirqs starve the reader; ksoftirqd, once it has "
                   "the work, keeps it")
    {
    }

  private:
    /** 8,000 datagrams/s of 64 bytes for 400 ms; @p startBurst more at the start. */
    Outcome Run(uint32_t startBurst)
    {
        Bed bed(DataRate("100Mbps"));
        bed.Costs(Seconds(0), MicroSeconds(50), MicroSeconds(50), MicroSeconds(50), 2500);
        bed.host.SetRxPathAttribute("RxRingSize", UintegerValue(256));
        bed.Install(1);
        bed.Traffic(64, 8000, MilliSeconds(1), MilliSeconds(401), MilliSeconds(50));
        bed.source->SetAttribute("StartBurst", UintegerValue(startBurst));
        return bed.Finish(MilliSeconds(600), 64);
    }

    void DoRun() override
    {
        const double lambda = 8000;
        const double p = 100e-6;
        const double r = 50e-6;
        const Outcome inlineLife = Run(0);
        NS_TEST_ASSERT_MSG_EQ(inlineLife.stats.ksoftirqdWakeups, 0, "softirqs on interrupt exit");
        NS_TEST_ASSERT_MSG_EQ_TOL(inlineLife.goodputPps,
                                  (1 - lambda * p) / r,
                                  0.01 * lambda,
                                  "the reader gets what the softirq leaves");
        NS_TEST_ASSERT_MSG_EQ(inlineLife.Drops(LossAccountant::SOCKET_RCVBUF),
                              inlineLife.lost,
                              "every loss at the socket, after its softirq work");
        NS_TEST_ASSERT_MSG_GT(inlineLife.lost, 0, "loss");
        NS_TEST_ASSERT_MSG_EQ(inlineLife.Conserved(), true, "sent = received + drops");

        const Outcome ksoftirqdLife = Run(200);
        NS_TEST_ASSERT_MSG_EQ(ksoftirqdLife.stats.ksoftirqdWakeups, 1, "handed over once, kept");
        NS_TEST_ASSERT_MSG_EQ(ksoftirqdLife.stats.interrupts, 1, "the poll never completes");
        NS_TEST_ASSERT_MSG_EQ_TOL(ksoftirqdLife.goodputPps,
                                  1 / (p + r),
                                  0.01 * lambda,
                                  "every frame taken is read");
        NS_TEST_ASSERT_MSG_EQ(ksoftirqdLife.Drops(LossAccountant::SOCKET_RCVBUF),
                              0,
                              "no loss at the socket");
        NS_TEST_ASSERT_MSG_EQ(ksoftirqdLife.Drops(LossAccountant::RX_FIFO),
                              ksoftirqdLife.lost,
                              "every loss at the NIC");
        NS_TEST_ASSERT_MSG_GT(ksoftirqdLife.lost, 0, "loss");
        NS_TEST_ASSERT_MSG_EQ(ksoftirqdLife.Conserved(), true, "sent = received + drops");
    }
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
        bed.Costs(MicroSeconds(1), MicroSeconds(1), MilliSeconds(1), MicroSeconds(5), 0);
        bed.host.SetCpuAttribute("Cores", UintegerValue(2));
        bed.host.SetRxPathAttribute("RpsCpus", UintegerValue(0x2));
        bed.host.SetRxPathAttribute("BacklogSize", UintegerValue(m_backlog));
        bed.host.SetRxPathAttribute("DevWeight", UintegerValue(m_devWeight));
        bed.Install(0);
        Outcome o = bed.Burst(100, MilliSeconds(200));
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
        bed.LongIrq(2);
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
        bed.Costs(MicroSeconds(8), MicroSeconds(2), MicroSeconds(2), MicroSeconds(5), itr);
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

class LanlossHostKernelTestSuite : public TestSuite
{
  public:
    LanlossHostKernelTestSuite()
        : TestSuite("lanloss-host-kernel", Type::UNIT)
    {
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
        AddTestCase(new KsoftirqdShareTestCase, Duration::QUICK);
        AddTestCase(new TwoSaturatedLivesTestCase, Duration::QUICK);
        AddTestCase(new RpsBacklogTestCase(20, 64, 78, 1), Duration::QUICK);
        AddTestCase(new RpsBacklogTestCase(1000, 64, 0, 2), Duration::QUICK);
        AddTestCase(new RpsBacklogTestCase(1000, 16, 0, 7), Duration::QUICK);
        AddTestCase(new ReassemblyTimeoutTestCase, Duration::QUICK);
        AddTestCase(new LivelockTestCase, Duration::QUICK);
    }
};

static LanlossHostKernelTestSuite g_lanlossHostKernelTestSuite;
