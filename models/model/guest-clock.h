// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
 * A QEMU guest's clock under -icount align: when the wire's frames reach the guest.
 */
#ifndef LANLOSS_GUEST_CLOCK_H
#define LANLOSS_GUEST_CLOCK_H

#include "host-datagram.h"

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>
#include <deque>

namespace ns3
{

class HostCpu;

/**
 * @ingroup lanloss
 * The clock of a QEMU guest run with -icount shift=N,align=on,sleep=on (one vCPU), and
 * when the frames of the real wire reach it.
 *
 * The host model runs on the guest's clock (its costs are instructions at 10^9 / 2^N
 * per second of it). The wire runs on real time. QEMU executes a busy guest faster
 * than its clock (Speedup: the emulator's free speed over the clock's rate), so the
 * guest's clock runs ahead of real time by a lead that grows by (1 - 1/Speedup) per
 * unit of busy guest time; an idle guest (halted vCPU, sleep=on) keeps its lead. When
 * the lead exceeds Advance, QEMU's vCPU thread sleeps it off in one nanosleep and the
 * lead is 0 again (accel/tcg/cpu-exec.c, align_clocks: VM_CLOCK_ADVANCE = 3 ms): the
 * guest's clock stands still while real time catches up.
 *
 * A frame that reaches the NIC at real time w (the simulator's time of its arrival) is
 * seen by the guest at the first instant of the guest's clock whose real time,
 * now - lead, is w or later: while the guest is idle, lead later; while it is busy,
 * later still (its real time advances at 1/Speedup); at a sleep, at once, with every
 * frame that came during the sleep (bursts of about rate x Advance frames). Frames are
 * released in arrival order. Advance 0: every frame is released at once (a real host).
 *
 * Each interrupt the NIC raises costs QEMU's vCPU thread InterruptStall of real time in
 * which the guest's clock stands still (the emulated device's register accesses and the
 * interrupt's delivery), spent in parts where the driver makes them (HostRxNic): each part
 * lowers the lead by its time, not below 0, and the frames that reached the tap meanwhile
 * are seen at once.
 */
class GuestClock : public Object
{
  public:
    /** What the clock did (all since the start). */
    struct Stats
    {
        uint64_t sleeps = 0;      //!< times the lead passed Advance (QEMU's nanosleep)
        uint64_t framesHeld = 0;  //!< frames released later than they arrived
        Time longestHold;         //!< the longest time a frame waited
    };

    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    GuestClock();
    ~GuestClock() override;

    /**
     * Follow @p core of @p cpu (the guest's vCPU) and release frames to @p deliver.
     * @param cpu the guest's CPU
     * @param core its vCPU's core
     * @param deliver where a released frame goes (the NIC's FIFO)
     */
    void Attach(Ptr<HostCpu> cpu, uint32_t core, Callback<void, HostRxFrame> deliver);

    /** @return whether frames are held at all (Advance above 0) */
    bool IsAligned() const;

    /**
     * A frame reached the NIC now (real time): released now or later, in order.
     * @param frame the frame
     */
    void Arrive(HostRxFrame frame);

    /**
     * Part of an interrupt's emulation ran: the guest's clock stands still for @p share of
     * InterruptStall (the frames that reach the tap meanwhile are let in at once).
     * @param share the part of InterruptStall, 0 to 1
     */
    void Stall(double share);
    /** @return the guest's clock ahead of real time now */
    Time GetLead();
    /** @return frames held now */
    uint32_t GetFramesHeld() const;
    /** @return the counters */
    Stats GetStats() const;

  protected:
    /** Cancel the planned event and drop the held frames. */
    void DoDispose() override;

  private:
    /** Bring the lead up to now (it grows while the vCPU is busy). */
    void Advance();
    /** The vCPU started or stopped running work. */
    void BusyChanged(bool busy);
    /** Release what is due, sleep off a full lead, plan the next event. */
    void Tick();
    /** Release the held frames whose real time has come. */
    void Release();
    /** Schedule Tick at the next release or sleep, as things stand. */
    void Plan();

    Time m_advance;    //!< QEMU's VM_CLOCK_ADVANCE
    double m_speedup;  //!< free emulation speed / the guest clock's instruction rate
    Time m_interruptStall; //!< real time of the emulator's work per interrupt
    Ptr<HostCpu> m_cpu;
    uint32_t m_core = 0;
    Callback<void, HostRxFrame> m_deliver;
    bool m_busy = false;
    Time m_lead;    //!< the guest's clock minus real time
    Time m_leadAt;  //!< when m_lead was brought up to date
    std::deque<std::pair<Time, HostRxFrame>> m_held; //!< (arrival, frame), oldest first
    EventId m_tick;
    Stats m_stats;
};

} // namespace ns3

#endif /* LANLOSS_GUEST_CLOCK_H */
