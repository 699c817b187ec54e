// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tests of the receiving-host model, the NIC: FIFO, DMA into the ring, interrupt moderation,
 * host PAUSE
 * (the bed: host-test-bed.h).
 */
#include "host-test-bed.h"
#include "lanloss-test-compat.h"

#include "ns3/double.h"

using namespace ns3;
using namespace hosttest;

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
        bed.Costs(MicroSeconds(8), MicroSeconds(2), MicroSeconds(3), MicroSeconds(5), 2500);
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
            Ptr<HostRxNic> p = CreateObject<HostRxNic>();
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
            bed.Costs(MicroSeconds(8), MicroSeconds(2), MicroSeconds(2), MicroSeconds(5), itr);
            bed.Install(1);
            bed.rx.path->GetNic()->TraceConnectWithoutContext(
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
 * CauseLatch (QEMU's e1000 ICR): bursts of two back-to-back datagrams 1 ms apart at
 * 1 Gbit/s (the second reaches the ring 1.04 us after the first, inside the first's
 * 8 us interrupt). The poll takes both; without the latch the ring is empty at the
 * unmask and the burst costs one interrupt. With it the second frame's cause is still in
 * ICR, so unmasking raises a second interrupt whose poll finds nothing: at once (18 us
 * after the first: 8 us IRQ + 2 x 5 us per frame) with ITR 0, 399.872 us after it with
 * ITR 2500. A lone frame leaves no cause behind.
 */
class CauseLatchTestCase : public TestCase
{
  public:
    CauseLatchTestCase(bool latch, uint32_t itr, uint32_t burst, uint64_t interrupts, Time gap)
        : TestCase("CauseLatch " + std::string(latch ? "on" : "off") + ", ITR " +
                   std::to_string(itr) + ", bursts of " + std::to_string(burst) + ": " +
                   std::to_string(interrupts) + " interrupts"),
          m_latch(latch),
          m_itr(itr),
          m_burst(burst),
          m_interrupts(interrupts),
          m_gap(gap)
    {
    }

  private:
    void Irq(uint32_t ringFrames)
    {
        m_times.push_back(Simulator::Now());
        m_empty += ringFrames == 0;
    }

    void DoRun() override
    {
        Bed bed(DataRate("1Gbps"));
        bed.Costs(MicroSeconds(8), MicroSeconds(2), MicroSeconds(3), MicroSeconds(5), m_itr);
        bed.host.SetRxPathAttribute("CauseLatch", BooleanValue(m_latch));
        bed.Install(1);
        bed.rx.path->GetNic()->TraceConnectWithoutContext(
            "Interrupt",
            MakeCallback(&CauseLatchTestCase::Irq, this));
        const std::string pattern = m_burst > 1 ? "burst:" + std::to_string(m_burst) : "cbr";
        bed.Traffic(64, 1000.0 * m_burst, MilliSeconds(1), MilliSeconds(21), MilliSeconds(0),
                    pattern);
        Outcome o = bed.Finish(MilliSeconds(50), 64);
        NS_TEST_ASSERT_MSG_EQ(o.sent, 20 * m_burst, "20 bursts");
        NS_TEST_ASSERT_MSG_EQ(o.received, o.sent, "no loss");
        NS_TEST_ASSERT_MSG_EQ(o.stats.interrupts, m_interrupts, "interrupts");
        NS_TEST_ASSERT_MSG_EQ(o.stats.polls, m_interrupts, "one poll per interrupt");
        NS_TEST_ASSERT_MSG_EQ(m_empty, m_interrupts - 20, "the latched ones find the ring empty");
        NS_TEST_ASSERT_MSG_EQ(o.stats.emptyPolls, m_interrupts - 20, "and their polls take nothing");
        if (m_interrupts == 40)
        {
            uint64_t wrong = 0;
            for (std::size_t k = 1; k < m_times.size(); k += 2)
            {
                wrong += m_times[k] - m_times[k - 1] != m_gap;
            }
            NS_TEST_ASSERT_MSG_EQ(wrong, 0, "the latched interrupt follows its burst's");
        }
        NS_TEST_ASSERT_MSG_EQ(o.Conserved(), true, "sent = received + drops");
    }

    bool m_latch;
    uint32_t m_itr;
    uint32_t m_burst;
    uint64_t m_interrupts;
    Time m_gap;
    std::vector<Time> m_times;
    uint64_t m_empty = 0;
};

/**
 * The guest clock tests' sparse train: 20 datagrams 1 ms apart into a guest (Advance
 * 100 us) whose every datagram costs 18 us (IRQ 8 + driver 2 + stack 3 + read 5).
 */
static Outcome
RunSparseGuestTrain(double speedup, Time interruptStall)
{
    Bed bed(DataRate("100Mbps"));
    bed.Costs(MicroSeconds(8), MicroSeconds(2), MicroSeconds(3), MicroSeconds(5), 2500);
    bed.host.SetRxPathAttribute("DmaRate", DataRateValue(DataRate("0bps")));
    bed.host.SetRxPathAttribute("GuestClockAdvance", TimeValue(MicroSeconds(100)));
    bed.host.SetRxPathAttribute("GuestClockSpeedup", DoubleValue(speedup));
    bed.host.SetRxPathAttribute("GuestClockInterruptStall", TimeValue(interruptStall));
    bed.Install(1);
    bed.Traffic(64, 1000, MilliSeconds(1), MilliSeconds(21), MilliSeconds(0));
    return bed.Finish(MilliSeconds(50), 64);
}

/**
 * GuestClock (a QEMU guest under -icount align): 20 datagrams 1 ms apart each find the guest
 * idle and keep it busy 18 us (IRQ 8 + driver 2 + stack 3 + read 5). Its clock's lead grows
 * by (1 - 1/Speedup) x 18 us per datagram and drops by Advance (100 us) at each sleep, so
 * datagram i is held lead_i = (i x growth) mod 100 us before the NIC sees it: its latency is
 * the idle host's plus lead_i, the sleeps are floor(20 x growth / 100 us), and every
 * datagram but the first (lead 0) is held.
 */
class GuestClockLeadTestCase : public TestCase
{
  public:
    GuestClockLeadTestCase(double speedup, int growthUs, const std::string& speedupText)
        : TestCase("guest clock: datagram i waits (i x " + std::to_string(growthUs) +
                   " us) mod 100 us, Speedup " + speedupText),
          m_speedup(speedup),
          m_growthUs(growthUs)
    {
    }

  private:
    void DoRun() override
    {
        const Outcome o = RunSparseGuestTrain(m_speedup, Seconds(0));

        const uint32_t frame = 64 + 8 + 20 + ethernet::MAC_HEADER_BYTES;
        const double idleUs = ethernet::FrameWireBytes(frame) * 8 / 100.0 + 1.0 + 18;
        double longest = 0;
        for (int i = 0; i < 20; ++i)
        {
            longest = std::max(longest, std::fmod(i * m_growthUs, 100.0));
        }
        NS_TEST_ASSERT_MSG_EQ(o.received, 20, "no loss");
        NS_TEST_ASSERT_MSG_EQ_TOL(o.latencyMaxUs, idleUs + longest, 1e-3, "longest wait");
        NS_TEST_ASSERT_MSG_EQ(o.stats.clockSleeps,
                              uint64_t(std::floor(20 * m_growthUs / 100.0)),
                              "sleeps");
        NS_TEST_ASSERT_MSG_EQ(o.stats.clockHeldFrames, 19, "all but the first held");
        NS_TEST_ASSERT_MSG_EQ(o.stats.interrupts, 20, "one interrupt each");
        NS_TEST_ASSERT_MSG_EQ(o.Conserved(), true, "sent = received + drops");
    }

    double m_speedup;
    double m_growthUs;
};

/**
 * GuestClock with InterruptStall: the same sparse train (each datagram finds the guest idle
 * and takes one interrupt; at Speedup 4 the lead grows by 0.75 of each busy stretch). Each
 * interrupt stands the guest's clock still for 5/8 of the stall X as it is raised (the
 * delivery and the accesses up to the poll), then the guest is busy 13 us (IRQ 8, driver
 * 2, stack 3), then 3/8 X as the poll ends (the unmask's accesses), then busy 5 us (the
 * read). So the lead before datagram i + 1 is L(i) after max(0, L - 5X/8), + 9.75 us,
 * max(0, L - 3X/8), + 3.75 us, each growth taken mod 100 us (L(0) = 0, a sleep at each
 * wrap): datagram i is held L(i). X = 0 is the clock without stalls.
 */
class GuestClockStallTestCase : public TestCase
{
  public:
    explicit GuestClockStallTestCase(int stallUs)
        : TestCase("guest clock: each interrupt stands it still " + std::to_string(stallUs) +
                   " us in two parts around the poll"),
          m_stallUs(stallUs)
    {
    }

  private:
    void DoRun() override
    {
        const Outcome o = RunSparseGuestTrain(4.0, MicroSeconds(m_stallUs));

        double lead = 0;
        double longest = 0;
        uint64_t sleeps = 0;
        uint64_t held = 0;
        auto grow = [&](double busyUs) {
            lead += 0.75 * busyUs;
            if (lead >= 100)
            {
                lead -= 100;
                ++sleeps;
            }
        };
        for (int i = 0; i < 20; ++i)
        {
            longest = std::max(longest, lead);
            held += lead > 0;
            lead = std::max(0.0, lead - m_stallUs * 5.0 / 8);
            grow(13);
            lead = std::max(0.0, lead - m_stallUs * 3.0 / 8);
            grow(5);
        }
        const uint32_t frame = 64 + 8 + 20 + ethernet::MAC_HEADER_BYTES;
        const double idleUs = ethernet::FrameWireBytes(frame) * 8 / 100.0 + 1.0 + 18;
        NS_TEST_ASSERT_MSG_EQ(o.received, 20, "no loss");
        NS_TEST_ASSERT_MSG_EQ_TOL(o.latencyMaxUs, idleUs + longest, 1e-3, "longest wait");
        NS_TEST_ASSERT_MSG_EQ(o.stats.clockSleeps, sleeps, "sleeps");
        NS_TEST_ASSERT_MSG_EQ(o.stats.clockHeldFrames, held, "frames held");
        NS_TEST_ASSERT_MSG_EQ(o.stats.interrupts, 20, "one interrupt each");
        NS_TEST_ASSERT_MSG_EQ(o.Conserved(), true, "sent = received + drops");
    }

    int m_stallUs;
};

/**
 * GuestClock under load: whatever the traffic, the lead only grows while the vCPU is busy
 * and each sleep takes Advance off it, so sleeps = floor((1 - 1/Speedup) x busy / Advance)
 * (busy: the CPU's IRQ, softirq and application time). A guest half busy with 64-byte
 * datagrams at 30k/s sees the frames of each 3 ms sleep at once (a burst of ~90 in the
 * ring) and takes fewer interrupts than a host without the clock, at the same ITR.
 */
class GuestClockBusyTestCase : public TestCase
{
  public:
    GuestClockBusyTestCase()
        : TestCase("guest clock: sleeps = floor(growth x busy, Advance); bursts, fewer IRQs")
    {
    }

  private:
    Outcome Run(Time advance)
    {
        Bed bed(DataRate("100Mbps"));
        bed.Costs(MicroSeconds(8), MicroSeconds(5), MicroSeconds(5), MicroSeconds(8), 7812);
        bed.host.SetRxPathAttribute("GuestClockAdvance", TimeValue(advance));
        bed.host.SetRxPathAttribute("GuestClockSpeedup", DoubleValue(4.0));
        bed.Install(1);
        bed.Traffic(64, 30000, MilliSeconds(1), MilliSeconds(101));
        return bed.Finish(MilliSeconds(200), 64);
    }

    void DoRun() override
    {
        const Outcome plain = Run(Seconds(0));
        const Outcome guest = Run(MilliSeconds(3));
        Time busy;
        for (const Time& t : guest.busy)
        {
            busy += t;
        }
        const double expected = std::floor(0.75 * busy.GetSeconds() / 3e-3);
        NS_TEST_ASSERT_MSG_EQ_TOL(double(guest.stats.clockSleeps), expected, 1.0, "sleeps");
        NS_TEST_ASSERT_MSG_GT(guest.stats.clockSleeps, 10, "the guest slept");
        NS_TEST_ASSERT_MSG_EQ(plain.stats.clockSleeps, 0, "no clock, no sleep");
        // a sleep lets in at once every frame that came during it: 3 ms x 30k/s = 90
        NS_TEST_ASSERT_MSG_GT_OR_EQ(guest.stats.peakRingFrames, 80, "a sleep's burst");
        NS_TEST_ASSERT_MSG_LT(plain.stats.peakRingFrames, 20, "no bursts without the clock");
        NS_TEST_ASSERT_MSG_LT(guest.stats.interrupts, plain.stats.interrupts, "fewer IRQs");
        NS_TEST_ASSERT_MSG_EQ(guest.Conserved(), true, "sent = received + drops");
        NS_TEST_ASSERT_MSG_EQ(plain.Conserved(), true, "sent = received + drops");
    }
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
        bed.LongIrq(40);
        bed.host.SetRxPathAttribute("RxBufferWrite", UintegerValue(m_rxBufferWrite));
        bed.Install(0);
        Outcome o = bed.Burst(100, MilliSeconds(50));
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
        bed.LongIrq(8);
        bed.host.SetRxPathAttribute("RxFifoBytes", UintegerValue(m_fifo));
        bed.host.SetRxPathAttribute("DropWhenNoDescriptor", BooleanValue(m_dropEn));
        bed.Install(1);
        Outcome o = bed.Burst(50, MilliSeconds(50));

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
 * The ring running dry between throttled interrupts: a ring of R descriptors holds R - 1
 * frames, a fast kernel empties it at each interrupt, and with DROP_EN (no FIFO to fall
 * back on) the frames of an interval of length T beyond R - 1 are dropped:
 * max(0, lambda T - (R - 1)) per interval. 100,000 frames/s, R = 64: ITR 500 (T =
 * 1999.872 us, 200 frames) drops 137 of every 200 (68.5 %); ITR 2500 (40 frames) none.
 */
class RingDryTestCase : public TestCase
{
  public:
    RingDryTestCase(uint32_t itr, double loss)
        : TestCase("ring of 64 at 100 kpps, ITR " + std::to_string(itr) +
                   ": drops max(0, lambda T - 63) per interval"),
          m_itr(itr),
          m_loss(loss)
    {
    }

  private:
    void DoRun() override
    {
        Bed bed(DataRate("100Mbps"));
        bed.Costs(NanoSeconds(10), NanoSeconds(10), NanoSeconds(10), MicroSeconds(1), m_itr);
        bed.host.SetRxPathAttribute("RxRingSize", UintegerValue(64));
        bed.host.SetRxPathAttribute("DropWhenNoDescriptor", BooleanValue(true));
        bed.Install(0);
        bed.Traffic(18, 100000, MilliSeconds(1), MilliSeconds(201), MilliSeconds(0));
        Outcome o = bed.Finish(MilliSeconds(250), 18);
        NS_TEST_ASSERT_MSG_EQ(o.sent, 20000, "100 kpps for 200 ms");
        // one interval's worth (200 frames of 20,000: 1 %) for where the first and last fall
        NS_TEST_ASSERT_MSG_EQ_TOL(o.Loss(), m_loss, 0.01, "loss = (lambda T - 63) / lambda T");
        NS_TEST_ASSERT_MSG_EQ(o.Drops(LossAccountant::RX_RING), o.lost, "all at the ring");
        NS_TEST_ASSERT_MSG_EQ(o.Conserved(), true, "sent = received + drops");
    }

    uint32_t m_itr;
    double m_loss;
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
    void PauseTx(Ptr<HostRxNic> nic, uint16_t quanta)
    {
        m_pauses.push_back({Simulator::Now(), quanta});
        if (quanta > 0)
        {
            m_badQuanta += quanta != 0x0680;
            m_badXoff +=
                nic->GetFreeDescriptors() != 0 || nic->GetFifoBytes() < nic->GetLowWater();
        }
        else
        {
            m_badXon += nic->GetFifoBytes() >= nic->GetLowWater();
        }
    }

    Outcome Run(bool flowControl, Time irqCost, Time driverCost, uint32_t& hwm, bool sendXon = true)
    {
        m_pauses.clear();
        Bed bed(DataRate("100Mbps"));
        bed.Costs(irqCost, driverCost, MicroSeconds(2), MicroSeconds(5), 2500);
        bed.host.SetCpuAttribute("Cores", UintegerValue(2)); // the reader keeps up on core 1
        bed.host.SetRxPathAttribute("FlowControl", BooleanValue(flowControl));
        bed.host.SetRxPathAttribute("SendXon", BooleanValue(sendXon));
        bed.dev[0]->SetFlowControl(true); // the sender honours PAUSE
        bed.Install(1);
        bed.rx.path->GetNic()->TraceConnectWithoutContext("RxFifoDrop", MakeCallback(&Nop));
        bed.dev[1]->TraceConnectWithoutContext(
            "PauseTx",
            MakeCallback(&HostPauseTestCase::PauseTx, this).Bind(bed.rx.path->GetNic()));
        bed.Traffic(64, 80000, MilliSeconds(1), MilliSeconds(101));
        bed.source->SetAttribute("Blocking", BooleanValue(true));
        hwm = bed.rx.path->GetNic()->GetHighWater();
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

class LanlossHostNicTestSuite : public TestSuite
{
  public:
    LanlossHostNicTestSuite()
        : TestSuite("lanloss-host-nic", Type::UNIT)
    {
        AddTestCase(new IdleLatencyTestCase(true, true), Duration::QUICK);
        AddTestCase(new IdleLatencyTestCase(false, true), Duration::QUICK);
        AddTestCase(new IdleLatencyTestCase(true, false), Duration::QUICK);
        AddTestCase(new InterruptThrottleTestCase, Duration::QUICK);
        AddTestCase(new CauseLatchTestCase(false, 0, 2, 20, Seconds(0)), Duration::QUICK);
        AddTestCase(new CauseLatchTestCase(true, 0, 2, 40, MicroSeconds(18)), Duration::QUICK);
        AddTestCase(new CauseLatchTestCase(true, 2500, 2, 40, NanoSeconds(399872)),
                    Duration::QUICK);
        AddTestCase(new CauseLatchTestCase(true, 0, 1, 20, Seconds(0)), Duration::QUICK);
        AddTestCase(new RxBufferWriteTestCase(16, 1, 2), Duration::QUICK);
        AddTestCase(new RxBufferWriteTestCase(64, 3, 3), Duration::QUICK);
        AddTestCase(new RingAndFifoTestCase(49152, false, 0, 0), Duration::QUICK);
        AddTestCase(new RingAndFifoTestCase(640, false, 33, 0), Duration::QUICK);
        AddTestCase(new RingAndFifoTestCase(49152, true, 0, 43), Duration::QUICK);
        AddTestCase(new RingDryTestCase(500, 137.0 / 200.0), Duration::QUICK);
        AddTestCase(new RingDryTestCase(2500, 0.0), Duration::QUICK);
        AddTestCase(new HostPauseTestCase, Duration::QUICK);
        AddTestCase(new GuestClockLeadTestCase(1e9, 18, "1e9"), Duration::QUICK);
        AddTestCase(new GuestClockLeadTestCase(2, 9, "2"), Duration::QUICK);
        AddTestCase(new GuestClockStallTestCase(5), Duration::QUICK);
        AddTestCase(new GuestClockStallTestCase(20), Duration::QUICK);
        AddTestCase(new GuestClockBusyTestCase, Duration::QUICK);
    }
};

static LanlossHostNicTestSuite g_lanlossHostNicTestSuite;
