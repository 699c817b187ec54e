// SPDX-License-Identifier: GPL-2.0-only
#include "guest-clock.h"

#include "host-cpu.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"

#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("GuestClock");
NS_OBJECT_ENSURE_REGISTERED(GuestClock);

TypeId
GuestClock::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::GuestClock")
            .SetParent<Object>()
            .SetGroupName("Lanloss")
            .AddConstructor<GuestClock>()
            .AddAttribute("Advance",
                          "The lead of the guest's clock over real time at which QEMU's vCPU "
                          "sleeps it off (VM_CLOCK_ADVANCE = 3 ms); 0: no -icount align.",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&GuestClock::m_advance),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("Speedup",
                          "QEMU's free emulation speed over the guest clock's instruction "
                          "rate: a busy guest's clock runs this much faster than real time "
                          "until it sleeps (above 1).",
                          DoubleValue(12.0),
                          MakeDoubleAccessor(&GuestClock::m_speedup),
                          MakeDoubleChecker<double>(1.0))
            .AddAttribute("InterruptStall",
                          "Real time QEMU's vCPU thread spends on each interrupt the NIC "
                          "raises while the guest's clock stands still (its register "
                          "accesses and the interrupt's delivery); 0: none.",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&GuestClock::m_interruptStall),
                          MakeTimeChecker(Seconds(0)));
    return tid;
}

GuestClock::GuestClock() = default;

GuestClock::~GuestClock() = default;

void
GuestClock::DoDispose()
{
    m_tick.Cancel();
    m_held.clear();
    m_cpu = nullptr;
    m_deliver = Callback<void, HostRxFrame>();
    Object::DoDispose();
}

void
GuestClock::Attach(Ptr<HostCpu> cpu, uint32_t core, Callback<void, HostRxFrame> deliver)
{
    NS_ABORT_MSG_IF(IsAligned() && m_speedup <= 1.0,
                    "GuestClock: Speedup must be above 1, not " << m_speedup);
    m_cpu = cpu;
    m_core = core;
    m_deliver = deliver;
    m_leadAt = Simulator::Now();
    if (IsAligned())
    {
        m_busy = cpu->IsBusy(core);
        cpu->SetBusyCallback(core, MakeCallback(&GuestClock::BusyChanged, this));
    }
}

bool
GuestClock::IsAligned() const
{
    return m_advance.IsStrictlyPositive();
}

void
GuestClock::Arrive(HostRxFrame frame)
{
    if (!IsAligned())
    {
        m_deliver(std::move(frame));
        return;
    }
    Advance();
    m_held.emplace_back(Simulator::Now(), std::move(frame));
    Release();
    Plan();
}

void
GuestClock::Advance()
{
    const Time now = Simulator::Now();
    if (m_busy)
    {
        const double grown = double((now - m_leadAt).GetTimeStep()) * (1.0 - 1.0 / m_speedup);
        m_lead += TimeStep(std::llround(grown));
    }
    m_leadAt = now;
}

void
GuestClock::BusyChanged(bool busy)
{
    Advance();
    m_busy = busy;
    Plan();
}

void
GuestClock::Tick()
{
    Advance();
    // align_clocks: a lead above VM_CLOCK_ADVANCE is slept off at once (the rounding of
    // the planned time may leave it a step short)
    if (m_busy && m_lead >= m_advance - TimeStep(1))
    {
        m_lead = Seconds(0);
        ++m_stats.sleeps;
    }
    Release();
    Plan();
}

void
GuestClock::Release()
{
    const Time now = Simulator::Now();
    const Time real = now - m_lead; // the real time of the guest's present instant
    while (!m_held.empty() && m_held.front().first <= real)
    {
        const Time waited = now - m_held.front().first;
        if (waited.IsStrictlyPositive())
        {
            ++m_stats.framesHeld;
            m_stats.longestHold = std::max(m_stats.longestHold, waited);
        }
        HostRxFrame f = std::move(m_held.front().second);
        m_held.pop_front();
        m_deliver(std::move(f)); // may start the vCPU: BusyChanged re-plans
    }
}

void
GuestClock::Plan()
{
    m_tick.Cancel();
    // Guest time per unit of real time: Speedup while busy, 1 while idle.
    const double pace = m_busy ? m_speedup : 1.0;
    bool due = false;
    double wait = 0; // time steps of the guest's clock
    if (m_busy)
    {
        wait = double((m_advance - m_lead).GetTimeStep()) / (1.0 - 1.0 / m_speedup);
        due = true;
    }
    if (!m_held.empty())
    {
        const Time real = Simulator::Now() - m_lead;
        const double release = double((m_held.front().first - real).GetTimeStep()) * pace;
        wait = due ? std::min(wait, release) : release;
        due = true;
    }
    if (due)
    {
        m_tick = Simulator::Schedule(TimeStep(std::max<int64_t>(0, std::llround(std::ceil(wait)))),
                                     &GuestClock::Tick,
                                     this);
    }
}

void
GuestClock::Stall(double share)
{
    if (!IsAligned() || !m_interruptStall.IsStrictlyPositive())
    {
        return;
    }
    Advance();
    // real time passes, the guest's clock does not: the lead shrinks (a guest behind
    // real time is not modelled: the wire's frames must not reach it before they came)
    const Time stall = TimeStep(std::llround(double(m_interruptStall.GetTimeStep()) * share));
    m_lead = std::max(Seconds(0), m_lead - stall);
    Release();
    Plan();
}

Time
GuestClock::GetLead()
{
    Advance();
    return m_lead;
}

uint32_t
GuestClock::GetFramesHeld() const
{
    return m_held.size();
}

GuestClock::Stats
GuestClock::GetStats() const
{
    return m_stats;
}

} // namespace ns3
