// SPDX-License-Identifier: GPL-2.0-only
#include "host-cpu.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HostCpu");
NS_OBJECT_ENSURE_REGISTERED(HostCpu);

TypeId
HostCpu::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::HostCpu")
            .SetParent<Object>()
            .SetGroupName("Lanloss")
            .AddConstructor<HostCpu>()
            .AddAttribute("Cores",
                          "Number of cores. The NIC interrupt and its NAPI poll run on core 0; "
                          "set before any thread is created.",
                          UintegerValue(1),
                          MakeUintegerAccessor(&HostCpu::SetNCores, &HostCpu::GetNCores),
                          MakeUintegerChecker<uint32_t>(1, 256))
            .AddAttribute("TimeSlice",
                          "Time slice (s) of round-robin sharing between runnable tasks of one "
                          "core (CFS gives each of two busy tasks sched_latency/2 = 3 ms).",
                          TimeValue(MilliSeconds(3)),
                          MakeTimeAccessor(&HostCpu::m_timeSlice),
                          MakeTimeChecker(MicroSeconds(1)))
            .AddAttribute("SmtSiblings",
                          "Logical CPUs per physical core: 1, or 2 (hyper-threading: Cores "
                          "counts logical CPUs, i and i + Cores/2 share a core).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&HostCpu::m_smt),
                          MakeUintegerChecker<uint32_t>(1, 2))
            .AddAttribute("SmtShare",
                          "SMT: speed of a logical CPU while its sibling runs a job, as a "
                          "share of the core's (the pair does 2 x SmtShare of a core's work).",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&HostCpu::m_smtShare),
                          MakeDoubleChecker<double>(0.01, 1.0));
    return tid;
}

HostCpu::HostCpu()
    : m_nCores(0),
      m_timeSlice(MilliSeconds(3)),
      m_smt(1),
      m_smtShare(1.0),
      m_created(Simulator::Now())
{
    NS_LOG_FUNCTION(this);
    SetNCores(1);
}

HostCpu::~HostCpu() = default;

void
HostCpu::DoDispose()
{
    for (Core& c : m_cores)
    {
        c.event.Cancel();
    }
    for (Group& g : m_groups)
    {
        g.refill.Cancel();
    }
    m_groups.clear();
    m_contexts.clear();
    m_cores.clear();
    Object::DoDispose();
}

HostCpu::Context
HostCpu::MakeContext(Level level, uint32_t core, const std::string& name)
{
    Context x;
    x.level = level;
    x.core = core;
    x.name = name;
    return x;
}

void
HostCpu::SetNCores(uint32_t cores)
{
    NS_ABORT_MSG_IF(cores == 0, "HostCpu: at least one core");
    NS_ABORT_MSG_IF(m_contexts.size() > 2 * std::size_t(m_nCores),
                    "HostCpu: Cores must be set before threads are created");
    m_nCores = cores;
    m_cores.assign(cores, Core{});
    m_contexts.clear();
    for (uint32_t i = 0; i < cores; ++i)
    {
        m_cores[i].hardirq = m_contexts.size();
        m_contexts.push_back(MakeContext(HARDIRQ, i, "hardirq/" + std::to_string(i)));
        m_cores[i].softirq = m_contexts.size();
        m_contexts.push_back(MakeContext(SOFTIRQ, i, "softirq/" + std::to_string(i)));
    }
}

uint32_t
HostCpu::GetNCores() const
{
    return m_nCores;
}

uint32_t
HostCpu::HardIrqContext(uint32_t core) const
{
    NS_ASSERT(core < m_nCores);
    return m_cores[core].hardirq;
}

uint32_t
HostCpu::SoftIrqContext(uint32_t core) const
{
    NS_ASSERT(core < m_nCores);
    return m_cores[core].softirq;
}

uint32_t
HostCpu::CreateThread(uint32_t core, const std::string& name)
{
    NS_ABORT_MSG_UNLESS(core < m_nCores,
                        "HostCpu: thread " << name << " on core " << core << " of " << m_nCores);
    m_contexts.push_back(MakeContext(TASK, core, name));
    return m_contexts.size() - 1;
}

uint32_t
HostCpu::GetQueuedJobs(uint32_t context) const
{
    return m_contexts.at(context).jobs.size();
}

uint32_t
HostCpu::GetCore(uint32_t context) const
{
    return m_contexts.at(context).core;
}

void
HostCpu::Submit(uint32_t context, Time cost, Work work, Callback<void> done, bool irqsOff)
{
    NS_ASSERT(context < m_contexts.size());
    NS_ASSERT(!cost.IsStrictlyNegative());
    Context& x = m_contexts[context];
    x.jobs.push_back(Job{cost, work, done, irqsOff});
    if (x.level == TASK && !x.queued)
    {
        x.queued = true;
        m_cores[x.core].runQueue.push_back(context);
    }
    if (!m_cores[x.core].ending)
    {
        Dispatch(x.core);
    }
}

uint32_t
HostCpu::Pick(uint32_t core)
{
    Core& c = m_cores[core];
    if (!m_contexts[c.hardirq].jobs.empty())
    {
        return c.hardirq;
    }
    if (!m_contexts[c.softirq].jobs.empty())
    {
        return c.softirq;
    }
    // A task that has no job left has blocked, one in a throttled group waits for its
    // refill (Refill queues it again): either leaves the run queue, and its next
    // wake-up starts a fresh slice.
    while (!c.runQueue.empty() &&
           (m_contexts[c.runQueue.front()].jobs.empty() || !Runnable(c.runQueue.front())))
    {
        Context& t = m_contexts[c.runQueue.front()];
        t.queued = false;
        t.sliceUsed = Seconds(0);
        c.runQueue.pop_front();
    }
    return c.runQueue.empty() ? NONE : c.runQueue.front();
}

void
HostCpu::Dispatch(uint32_t core)
{
    Core& c = m_cores[core];
    if (c.running != NONE && m_contexts[c.running].jobs.front().irqsOff)
    {
        return; // interrupts off: the job ends before anything else gets the core
    }
    uint32_t best = Pick(core);
    if (best != c.running)
    {
        if (c.running != NONE)
        {
            Suspend(core); // may throttle a group: pick again
            best = Pick(core);
        }
        if (best != NONE && c.running == NONE)
        {
            Start(core, best);
        }
    }
    if (m_smt > 1)
    {
        Retime((core + m_nCores / 2) % m_nCores); // this CPU may have started or stopped
    }
    ReportBusy(core);
}

void
HostCpu::ReportBusy(uint32_t core)
{
    Core& c = m_cores[core];
    const bool busy = c.running != NONE;
    if (busy == c.busyReported || c.busyCallback.IsNull())
    {
        return;
    }
    c.busyReported = busy;
    c.busyCallback(busy);
}

void
HostCpu::SetBusyCallback(uint32_t core, Callback<void, bool> busy)
{
    NS_ABORT_MSG_UNLESS(core < m_nCores, "HostCpu: no core " << core);
    m_cores[core].busyCallback = busy;
    m_cores[core].busyReported = m_cores[core].running != NONE;
}

bool
HostCpu::IsBusy(uint32_t core) const
{
    return m_cores.at(core).running != NONE;
}

double
HostCpu::SpeedOf(uint32_t core) const
{
    if (m_smt == 1)
    {
        return 1.0;
    }
    return m_cores[(core + m_nCores / 2) % m_nCores].running != NONE ? m_smtShare : 1.0;
}

Time
HostCpu::Progress(uint32_t core, Time elapsed) const
{
    const double speed = m_cores[core].speed;
    if (speed == 1.0)
    {
        return elapsed;
    }
    return TimeStep(int64_t(std::floor(double(elapsed.GetTimeStep()) * speed)));
}

void
HostCpu::Retime(uint32_t core)
{
    Core& c = m_cores[core];
    if (c.running == NONE || SpeedOf(core) == c.speed)
    {
        return;
    }
    const uint32_t id = c.running;
    Suspend(core);
    if (c.running == NONE && !m_contexts[id].jobs.empty() && Runnable(id))
    {
        Start(core, id); // the same job, at the new speed
    }
    else
    {
        Dispatch(core);
    }
}

void
HostCpu::Start(uint32_t core, uint32_t context)
{
    Core& c = m_cores[core];
    Context& x = m_contexts[context];
    c.running = context;
    c.started = Simulator::Now();
    Time run = x.jobs.front().remaining;
    if (x.level == TASK && !x.jobs.front().irqsOff)
    {
        Time left = m_timeSlice - x.sliceUsed;
        if (left.IsStrictlyNegative())
        {
            left = Seconds(0);
        }
        run = std::min(run, left);
        if (x.group != NONE)
        {
            Group& g = m_groups[x.group];
            RollPeriods(g);
            run = std::min(run, std::max(g.runtime, Seconds(0)));
        }
    }
    c.endsJob = run == x.jobs.front().remaining;
    c.speed = SpeedOf(core);
    if (c.speed != 1.0)
    {
        // the job's CPU work at this speed takes longer on the wall clock
        run = TimeStep(int64_t(std::ceil(double(run.GetTimeStep()) / c.speed)));
    }
    c.event = Simulator::Schedule(run, &HostCpu::Expire, this, core);
}

void
HostCpu::Suspend(uint32_t core)
{
    Core& c = m_cores[core];
    Context& x = m_contexts[c.running];
    Job& j = x.jobs.front();
    const Time elapsed = Simulator::Now() - c.started;
    j.remaining -= std::min(j.remaining, Progress(core, elapsed));
    c.busy[j.work] += elapsed;
    if (x.level == TASK)
    {
        x.sliceUsed += elapsed;
    }
    c.event.Cancel();
    const uint32_t id = c.running;
    c.running = NONE;
    ChargeGroup(id, elapsed);
}

void
HostCpu::Expire(uint32_t core)
{
    Core& c = m_cores[core];
    const uint32_t id = c.running;
    Context& x = m_contexts[id];
    Job& j = x.jobs.front();
    const Time elapsed = Simulator::Now() - c.started;
    // at its scheduled end the job is done (at SMT speed the wall time was rounded up)
    j.remaining =
        c.endsJob ? Seconds(0) : j.remaining - std::min(j.remaining, Progress(core, elapsed));
    c.busy[j.work] += elapsed;
    if (x.level == TASK)
    {
        x.sliceUsed += elapsed;
    }
    c.running = NONE;
    ChargeGroup(id, elapsed);
    if (!j.remaining.IsStrictlyPositive())
    {
        Callback<void> done = j.done;
        x.jobs.pop_front();
        // The task stays in front of the run queue while its callback runs, so
        // a job it queues for itself continues its slice (a reader reading on),
        // and what the callback submits to this core waits for the Dispatch
        // below: a task it wakes does not take the core before the callback has
        // queued its own context's next job.
        if (!done.IsNull())
        {
            c.ending = true;
            done();
            c.ending = false;
        }
    }
    else
    {
        // Slice over: the next runnable task of this core gets it.
        x.sliceUsed = Seconds(0);
        if (c.runQueue.size() > 1 && c.runQueue.front() == id)
        {
            c.runQueue.pop_front();
            c.runQueue.push_back(id);
        }
    }
    Dispatch(core);
}

uint32_t
HostCpu::CreateBandwidthGroup(Time quota, Time period)
{
    NS_ABORT_MSG_UNLESS(quota.IsStrictlyPositive() && period.IsStrictlyPositive(),
                        "HostCpu: a bandwidth group needs a positive quota and period");
    Group g;
    g.quota = quota;
    g.period = period;
    g.periodStart = Simulator::Now();
    g.runtime = quota;
    g.periods = 1;
    m_groups.push_back(g);
    return m_groups.size() - 1;
}

void
HostCpu::SetThreadGroup(uint32_t context, uint32_t group)
{
    NS_ABORT_MSG_UNLESS(context < m_contexts.size() && m_contexts[context].level == TASK,
                        "HostCpu: only tasks join a bandwidth group");
    NS_ABORT_MSG_UNLESS(group < m_groups.size(), "HostCpu: no bandwidth group " << group);
    m_contexts[context].group = group;
    m_groups[group].members.push_back(context);
}

bool
HostCpu::Runnable(uint32_t context) const
{
    const uint32_t g = m_contexts[context].group;
    return g == NONE || !m_groups[g].throttled;
}

void
HostCpu::RollPeriods(Group& g)
{
    const Time now = Simulator::Now();
    if (now < g.periodStart + g.period)
    {
        return;
    }
    const int64_t k = (now - g.periodStart).GetTimeStep() / g.period.GetTimeStep();
    g.periodStart += g.period * k;
    g.periods += k;
    g.runtime = g.quota; // unused quota does not carry over
}

void
HostCpu::ChargeGroup(uint32_t context, Time elapsed)
{
    Context& x = m_contexts[context];
    if (x.level != TASK || x.group == NONE)
    {
        return;
    }
    Group& g = m_groups[x.group];
    // The run may have crossed period boundaries: each part is charged to its period.
    Time from = Simulator::Now() - elapsed;
    Time left = elapsed;
    if (from < g.periodStart) // a period another task of the group has already closed
    {
        left -= std::min(left, g.periodStart - from);
        from = g.periodStart;
    }
    while (left.IsStrictlyPositive())
    {
        const Time end = g.periodStart + g.period;
        const Time part = std::min(left, end - from);
        g.runtime -= part;
        left -= part;
        from += part;
        if (from >= end)
        {
            g.periodStart = end;
            g.runtime = g.quota;
            ++g.periods;
        }
    }
    RollPeriods(g);
    if (g.throttled || g.runtime.IsStrictlyPositive())
    {
        return;
    }
    g.throttled = true;
    g.throttledSince = Simulator::Now();
    ++g.throttledPeriods;
    g.refill = Simulator::Schedule(g.periodStart + g.period - Simulator::Now(),
                                   &HostCpu::Refill,
                                   this,
                                   x.group);
    // Its other tasks running elsewhere stop now too.
    for (uint32_t core = 0; core < m_nCores; ++core)
    {
        const uint32_t running = m_cores[core].running;
        if (running != NONE && running != context && m_contexts[running].group == x.group &&
            !m_contexts[running].jobs.front().irqsOff)
        {
            Suspend(core);
            Dispatch(core);
        }
    }
}

void
HostCpu::Refill(uint32_t group)
{
    Group& g = m_groups[group];
    RollPeriods(g);
    g.throttled = false;
    g.throttledTime += Simulator::Now() - g.throttledSince;
    std::vector<uint32_t> cores;
    for (uint32_t m : g.members)
    {
        Context& t = m_contexts[m];
        if (!t.jobs.empty() && !t.queued)
        {
            t.queued = true;
            m_cores[t.core].runQueue.push_back(m);
            cores.push_back(t.core);
        }
    }
    for (uint32_t core : cores)
    {
        Dispatch(core);
    }
}

uint64_t
HostCpu::GetGroupPeriods(uint32_t group) const
{
    const Group& g = m_groups.at(group);
    const Time since = Simulator::Now() - g.periodStart;
    return g.periods + (since >= g.period ? since.GetTimeStep() / g.period.GetTimeStep() : 0);
}

uint64_t
HostCpu::GetGroupThrottledPeriods(uint32_t group) const
{
    return m_groups.at(group).throttledPeriods;
}

Time
HostCpu::GetGroupThrottledTime(uint32_t group) const
{
    const Group& g = m_groups.at(group);
    return g.throttledTime + (g.throttled ? Simulator::Now() - g.throttledSince : Seconds(0));
}

HostCpu::GroupStat
HostCpu::GetGroupStat(uint32_t group) const
{
    const Group& g = m_groups.at(group);
    return GroupStat{g.quota,
                     g.period,
                     GetGroupPeriods(group),
                     g.throttledPeriods,
                     GetGroupThrottledTime(group)};
}

Time
HostCpu::GetBusyTime(uint32_t core, Work work) const
{
    const Core& c = m_cores.at(core);
    Time t = c.busy[work];
    if (c.running != NONE && m_contexts[c.running].jobs.front().work == work)
    {
        t += Simulator::Now() - c.started;
    }
    return t;
}

Time
HostCpu::GetBusyTime(Work work) const
{
    Time t;
    for (uint32_t i = 0; i < m_nCores; ++i)
    {
        t += GetBusyTime(i, work);
    }
    return t;
}

Time
HostCpu::GetIdleTime() const
{
    Time busy;
    for (uint8_t w = 0; w < N_WORK; ++w)
    {
        busy += GetBusyTime(static_cast<Work>(w));
    }
    return (Simulator::Now() - m_created) * int64_t(m_nCores) - busy;
}

double
HostCpu::GetShare(Work work) const
{
    const double total = ((Simulator::Now() - m_created) * int64_t(m_nCores)).GetSeconds();
    return total > 0 ? GetBusyTime(work).GetSeconds() / total : 0.0;
}

double
HostCpu::GetIdleShare() const
{
    const double total = ((Simulator::Now() - m_created) * int64_t(m_nCores)).GetSeconds();
    return total > 0 ? GetIdleTime().GetSeconds() / total : 1.0;
}

} // namespace ns3
