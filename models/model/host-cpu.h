// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
 * The CPU of a receiving host: cores shared by hard-IRQ, softirq and process work.
 */
#ifndef LANLOSS_HOST_CPU_H
#define LANLOSS_HOST_CPU_H

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace ns3
{

/**
 * @ingroup lanloss
 * A host's cores, each running work in three execution contexts with strict,
 * preemptive priority, as on Linux:
 *
 *   hard IRQ  >  softirq  >  tasks (processes and ksoftirqd)
 *
 * A unit of work (a "job": an interrupt handler, one packet of a NAPI poll,
 * one recvmsg) has a CPU cost. A job of a higher context pre-empts the one
 * running on the same core, which resumes later with what it had left (so a
 * read that costs 5 us may take 50 us of wall time while packets arrive:
 * receive livelock, Mogul & Ramakrishnan 1997, emerges from the priorities).
 * Jobs of one context run one after the other (FIFO).
 *
 * Tasks are threads pinned to a core (CreateThread). Runnable threads of a
 * core share it round robin with a time slice (TimeSlice, a stand-in for
 * CFS's fair share: two busy threads get half the core each); a thread keeps
 * the core while it has jobs queued and its slice lasts, and gives it up when
 * it blocks (no job) or its slice ends. There is no wake-up pre-emption and
 * no migration between cores. A job's done callback runs before its core is
 * given to anyone: a context that queues its next job there keeps the core,
 * whatever the callback woke meanwhile (ksoftirqd goes on to its poll's next
 * frame after that frame woke the reader, as the kernel's loop does).
 *
 * Bandwidth groups (CreateBandwidthGroup) are CFS bandwidth control, a cgroup's
 * cpu.cfs_quota_us per cpu.cfs_period_us: the tasks of a group share Quota of
 * CPU time per Period; when it is used up they are throttled (taken off their
 * cores, runnable or not) until the next period refills it. Periods start at
 * the group's creation; unused quota does not carry over (cfs_burst_us 0).
 *
 * SMT (SmtSiblings 2): the cores are logical CPUs, two per physical core, CPU
 * i and i + Cores/2 siblings (Linux's numbering on Nehalem). A CPU whose
 * sibling is running a job progresses at SmtShare of a core's speed, alone at
 * full speed; a job's cost is CPU time at full speed, the CPU's busy time is
 * its wall time (as /proc/stat counts a logical CPU).
 *
 * Time is accounted by the kind of work (Work), not by the context it ran in:
 * softirq work done by ksoftirqd counts as softirq, as /proc/stat counts it
 * with CONFIG_IRQ_TIME_ACCOUNTING.
 */
class HostCpu : public Object
{
  public:
    /** No context, no group. */
    static constexpr uint32_t NONE = UINT32_MAX;

    /** Kinds of work, for the CPU shares (the run record's cpu {irq, softirq, app}). */
    enum Work : uint8_t
    {
        IRQ_WORK,     //!< hard-IRQ handlers
        SOFTIRQ_WORK, //!< NET_RX softirq: driver poll, IP, UDP (also when run by ksoftirqd)
        APP_WORK,     //!< the receiving application (recvmsg and its own processing)
        N_WORK,       //!< the number of kinds (not a kind)
    };

    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    /** One core (attribute Cores), a hard-IRQ and a softirq context on it. */
    HostCpu();
    ~HostCpu() override;

    /**
     * Set the number of cores (attribute Cores; only before any thread is created): each
     * gets a hard-IRQ and a softirq context.
     * @param cores the number of cores (logical CPUs with SMT), at least 1
     */
    void SetNCores(uint32_t cores);
    /** @return the number of cores (logical CPUs with SMT) */
    uint32_t GetNCores() const;

    /**
     * @param core a core's index
     * @return the hard-IRQ context of @p core
     */
    uint32_t HardIrqContext(uint32_t core) const;
    /**
     * @param core a core's index
     * @return the softirq context of @p core
     */
    uint32_t SoftIrqContext(uint32_t core) const;
    /**
     * A task (process, thread, ksoftirqd) pinned to @p core.
     * @param core the core's index (below Cores)
     * @param name the thread's name (for logs and errors)
     * @return its context id
     */
    uint32_t CreateThread(uint32_t core, const std::string& name);

    /**
     * Queue a job in context @p context: it runs for @p cost of CPU time as
     * soon as the context gets the core, and @p done is called when it ends.
     * With @p irqsOff the job runs with interrupts and bottom halves off
     * (spin_lock_irqsave): once started, nothing pre-empts it on its core and
     * no time slice or bandwidth quota cuts it; keep such jobs short.
     * @param context a context id (HardIrqContext, SoftIrqContext, CreateThread)
     * @param cost the job's CPU time at full speed
     * @param work the kind of work it is accounted as
     * @param done called when the job ends
     * @param irqsOff run it with interrupts and bottom halves off
     */
    void Submit(uint32_t context, Time cost, Work work, Callback<void> done, bool irqsOff = false);

    /**
     * A CFS bandwidth group: its tasks share @p quota of CPU time every @p period.
     * Its first period starts now.
     * @param quota CPU time per period, all the group's tasks together (cpu.cfs_quota_us)
     * @param period the period (cpu.cfs_period_us)
     * @return the group's id, for SetThreadGroup
     */
    uint32_t CreateBandwidthGroup(Time quota, Time period);
    /**
     * Put task @p context (from CreateThread) in bandwidth group @p group; only tasks
     * join groups.
     * @param context a task's context id
     * @param group a group id from CreateBandwidthGroup
     */
    void SetThreadGroup(uint32_t context, uint32_t group);
    /**
     * @param group a group id
     * @return periods that began since the group was created (cpu.stat nr_periods)
     */
    uint64_t GetGroupPeriods(uint32_t group) const;
    /**
     * @param group a group id
     * @return periods in which the group was throttled (cpu.stat nr_throttled)
     */
    uint64_t GetGroupThrottledPeriods(uint32_t group) const;
    /**
     * @param group a group id
     * @return time the group spent throttled (cpu.stat throttled_time), up to now
     */
    Time GetGroupThrottledTime(uint32_t group) const;

    /** A bandwidth group's settings (cpu.max) and counters (cpu.stat), up to now. */
    struct GroupStat
    {
        Time quota;                //!< CPU time per period (cpu.cfs_quota_us)
        Time period;               //!< the period (cpu.cfs_period_us)
        uint64_t periods;          //!< as GetGroupPeriods
        uint64_t throttledPeriods; //!< as GetGroupThrottledPeriods
        Time throttledTime;        //!< as GetGroupThrottledTime
    };

    /**
     * @param group a group id
     * @return the group's quota and period and its counters up to now
     */
    GroupStat GetGroupStat(uint32_t group) const;

    /**
     * Call @p busy(true) when @p core starts running work after being idle, and
     * @p busy(false) when it falls idle (a guest's vCPU halting: GuestClock).
     * @param core a core's index
     * @param busy the callback (null: none)
     */
    void SetBusyCallback(uint32_t core, Callback<void, bool> busy);
    /**
     * @param core a core's index
     * @return whether a job runs on @p core now
     */
    bool IsBusy(uint32_t core) const;

    /**
     * @param context a context id
     * @return jobs queued in @p context, the running one included
     */
    uint32_t GetQueuedJobs(uint32_t context) const;
    /**
     * @param context a context id
     * @return the core the context runs on
     */
    uint32_t GetCore(uint32_t context) const;

    /**
     * @param work a kind of work
     * @return CPU time (wall time on the cores) spent on @p work over all cores since the
     *         start, up to now
     */
    Time GetBusyTime(Work work) const;
    /**
     * @param core a core's index
     * @param work a kind of work
     * @return CPU time spent on @p work by @p core since the start, up to now
     */
    Time GetBusyTime(uint32_t core, Work work) const;
    /** @return idle CPU time over all cores since the start: cores x elapsed - busy */
    Time GetIdleTime() const;
    /**
     * @param work a kind of work
     * @return share of the CPU (all cores) spent on @p work since the start, in [0, 1]
     *         (0 before any time has passed)
     */
    double GetShare(Work work) const;
    /** @return share of the CPU (all cores) left idle since the start, in [0, 1] (1 before
     *          any time has passed) */
    double GetIdleShare() const;

  protected:
    /** Cancel the cores' and groups' events and drop every context and job. */
    void DoDispose() override;

  private:
    enum Level : uint8_t
    {
        HARDIRQ,
        SOFTIRQ,
        TASK,
    };

    struct Job
    {
        Time remaining;
        Work work;
        Callback<void> done;
        bool irqsOff = false; //!< not pre-empted once started (spin_lock_irqsave)
    };

    struct Context
    {
        std::deque<Job> jobs;
        Level level = TASK;
        uint32_t core = 0;
        std::string name;
        bool queued = false;   //!< TASK: in its core's run queue
        Time sliceUsed;        //!< TASK: CPU time used in the current slice
        uint32_t group = NONE; //!< TASK: bandwidth group
    };

    struct Group
    {
        Time quota;
        Time period;
        Time periodStart; //!< start of the current period
        Time runtime;     //!< quota left in the current period
        bool throttled = false;
        Time throttledSince;
        Time throttledTime;
        uint64_t periods = 0;
        uint64_t throttledPeriods = 0;
        EventId refill;
        std::vector<uint32_t> members;
    };

    struct Core
    {
        uint32_t hardirq = NONE;
        uint32_t softirq = NONE;
        std::deque<uint32_t> runQueue; //!< runnable tasks, the current one in front
        uint32_t running = NONE;       //!< context whose job is on the core
        Time started;                  //!< when that job (re)started
        EventId event;                 //!< its end, or the end of its slice
        std::array<Time, N_WORK> busy{};
        double speed = 1.0;  //!< SMT: progress per unit of wall time of the running job
        bool endsJob = false; //!< the scheduled event is the running job's end
        bool ending = false;  //!< a job's done callback runs: Expire dispatches after it
        bool busyReported = false;   //!< what busyCallback was last told
        Callback<void, bool> busyCallback;
    };

    /** SMT: the speed @p core runs at now (SmtShare while its sibling is busy). */
    double SpeedOf(uint32_t core) const;
    /** SMT: re-time the job running on @p core after its sibling started or stopped. */
    void Retime(uint32_t core);
    /** CPU work done in @p elapsed wall time on @p core at its speed. */
    Time Progress(uint32_t core, Time elapsed) const;

    static Context MakeContext(Level level, uint32_t core, const std::string& name);
    /** The context that should run on @p core now (NONE: idle). */
    uint32_t Pick(uint32_t core);
    /** Put the right context on @p core (pre-empting if needed). */
    void Dispatch(uint32_t core);
    /** Tell the core's busy callback if the core went from idle to busy or back. */
    void ReportBusy(uint32_t core);
    void Start(uint32_t core, uint32_t context);
    /** Take the running job off @p core, keeping what it has left. */
    void Suspend(uint32_t core);
    /** The running job ended or its slice ran out. */
    void Expire(uint32_t core);
    /** Charge @p elapsed CPU time of task @p context to its group (throttling it at 0). */
    void ChargeGroup(uint32_t context, Time elapsed);
    /** Start the periods that have begun by now (a new period refills the quota). */
    void RollPeriods(Group& g);
    /** The next period began: refill, unthrottle and requeue the group's tasks. */
    void Refill(uint32_t group);
    /** Whether @p context may run (not in a throttled group). */
    bool Runnable(uint32_t context) const;

    uint32_t m_nCores;
    Time m_timeSlice;
    uint32_t m_smt;    //!< logical CPUs per physical core (1 or 2)
    double m_smtShare; //!< speed of a logical CPU while its sibling is busy
    Time m_created;
    std::vector<Core> m_cores;
    std::vector<Context> m_contexts;
    std::vector<Group> m_groups;
};

} // namespace ns3

#endif /* LANLOSS_HOST_CPU_H */
