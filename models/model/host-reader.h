// SPDX-License-Identifier: GPL-2.0-only
/*
 * A process that reads datagrams from a HostSocket, on the host's CPU.
 */
#ifndef LANLOSS_HOST_READER_H
#define LANLOSS_HOST_READER_H

#include "host-datagram.h"

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>

namespace ns3
{

class HostCpu;
class HostSocket;

/**
 * @ingroup lanloss
 * A receiving process: a blocking recvmsg loop on a HostSocket, as a task
 * thread pinned to Core of the host's HostCpu. Each datagram costs ReadCost of
 * CPU time (system call, copy, and what the application does with it), at
 * task priority, so interrupts and softirqs on the same core pre-empt it.
 *
 * Optional stalls: stall k (k = 0, 1, ...) starts at StallStart + k *
 * StallPeriod and lasts StallLength; during a stall the process reads nothing
 * and uses no CPU (it is blocked elsewhere: disk, display, a lock, GC). A read
 * in progress when a stall starts is finished first. Stalls are how the
 * socket buffer overflows while the CPU is not saturated (seed 000: bursty
 * losses at the socket after ITR had removed the interrupt losses); with
 * stalls of T_off the buffer overflows once rate * T_off > capacity.
 *
 * Several readers may share one socket (each with its own thread and CPU
 * time, on its own core or not): a datagram wakes one waiting reader.
 */
class HostReader : public Object
{
  public:
    static TypeId GetTypeId();

    HostReader();
    ~HostReader() override;

    /**
     * Start reading @p socket on @p cpu (called by HostSocket). @p nodeId is
     * the context of the reader's own events (stalls), which may be
     * scheduled before the simulation runs.
     */
    void Start(Ptr<HostCpu> cpu, HostSocket* socket, uint32_t nodeId);
    /** Blocked in recvmsg on an empty socket (not reading, not stalled). */
    bool IsWaiting() const;
    /** In the middle of a recvmsg (a datagram taken from the socket, not yet delivered). */
    bool IsReading() const;
    /** Data arrived: a waiting reader starts reading. */
    void Wake();
    /**
     * Run the reader's thread in HostCpu bandwidth group @p group (a cgroup CPU
     * quota, option recv_cpu); before Start.
     */
    void SetCpuGroup(uint32_t group);

    uint32_t GetCore() const;
    /** Datagrams read (copy finished). */
    uint64_t GetReads() const;
    /** Stalls begun. */
    uint64_t GetStalls() const;
    /** CPU time this reader has used on completed reads. */
    Time GetCpuTime() const;

  protected:
    void DoDispose() override;

  private:
    void TryRead();
    void ReadDone();
    void StallBegin();
    void StallEnd();

    Time m_readCost;
    Time m_workCost;
    uint32_t m_core;
    uint32_t m_group;
    Time m_stallPeriod;
    Time m_stallLength;
    Time m_stallStart;

    Ptr<HostCpu> m_cpu;
    HostSocket* m_socket; //!< owns this reader
    uint32_t m_thread;
    bool m_reading;
    bool m_stalled;
    HostDatagram m_current;
    Callback<void> m_readDone;
    EventId m_stallEvent;
    EventId m_stallEndEvent;

    uint64_t m_reads;
    uint64_t m_stalls;
    Time m_cpuTime;
};

} // namespace ns3

#endif /* LANLOSS_HOST_READER_H */
