// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
 * A receiving application that reads a TCP connection on the host's CPU.
 */
#ifndef LANLOSS_HOST_TCP_READER_H
#define LANLOSS_HOST_TCP_READER_H

#include "ns3/address.h"
#include "ns3/application.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"

#include <cstdint>

namespace ns3
{

class HostCpu;
class Packet;
class Socket;

/**
 * @ingroup lanloss
 * The TCP counterpart of HostReader: a process that accepts one connection on Local and
 * reads it with blocking recv() calls of at most ReadSize bytes, each costing ReadCost plus
 * ReadByteCost per byte of the host's CPU (the node's HostCpu, a task thread on Core, in
 * the bandwidth group SetCpuGroup names), so interrupts and softirqs on that core pre-empt
 * it. The bytes stay in the socket's receive buffer until their read has run: a reader
 * that cannot keep up closes TCP's advertised window and slows the sender, where a UDP
 * reader would lose datagrams.
 *
 * The kernel's work per segment (driver, IP, TCP, the ACK it sends) is the receive path's
 * (HostRxKernel DriverCost and StackCost, the vocabulary's packet_cost); this is the
 * application's: the system call and the copy to user space.
 *
 * DirectCopy (Linux 2.4 to 4.13 with tcp_low_latency 0: the prequeue, tcp_recvmsg's
 * ucopy): while the reader is inside recv(), blocked or copying, a segment that arrives
 * is handed to it and copied straight into the call's buffer, up to ReadSize bytes per
 * call. Such bytes leave the socket's receive buffer on arrival, so the ACK the segment
 * draws advertises the window as it is after the copy: a reader that keeps up never
 * shrinks the window. A call that took bytes while it ran goes on copying them
 * (ReadByteCost each) before it returns. Linux sends that ACK from the reader's context
 * after the copy; here it leaves on arrival (earlier by the copy's CPU time). Off (4.14
 * and later, or tcp_low_latency 1): the softirq queues the segment and ACKs it at once,
 * so bytes not yet read shrink the window the ACK advertises.
 *
 * Collections, as HostReader's: once CollectEvery bytes read have been allocated since the
 * last collection, the program stops for CollectPause after the call that filled its young
 * generation; meanwhile it reads nothing and takes nothing arriving (the window closes).
 */
class HostTcpReader : public Application
{
  public:
    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    /** A reader not yet started: no thread, no connection. */
    HostTcpReader();
    ~HostTcpReader() override;

    /**
     * Run the reader's thread in HostCpu bandwidth group @p group (option recv_cpu); before
     * the application starts.
     * @param group a group id from HostCpu::CreateBandwidthGroup
     */
    void SetCpuGroup(uint32_t group);

    /** @return bytes read by the application so far */
    uint64_t GetTotalRx() const;
    /** @return recv() calls that returned data */
    uint64_t GetReads() const;
    /** @return CPU time of the reads run so far */
    Time GetCpuTime() const;
    /** @return the core the reader runs on */
    uint32_t GetCore() const;
    /** @return collections begun (CollectEvery) */
    uint64_t GetCollections() const;

  protected:
    /** Release the CPU, the listening socket and the connection. */
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;

    bool Accept(Ptr<Socket> listener, const Address& from);
    void Accepted(Ptr<Socket> socket, const Address& from);
    void DataArrived(Ptr<Socket> socket);
    /** Start a recv() call if none runs and bytes wait; @p arriving: called as a segment
     *  arrives (its own ACK follows and carries the window). */
    void TryRead(bool arriving);
    /** DirectCopy: a call in progress takes what arrived, up to its buffer's room. */
    void TakeArrived();
    /** Remove @p bytes from the socket; with @p mayUpdate, tell the sender of a window
     *  the removal reopens (tcp_cleanup_rbuf). */
    Ptr<Packet> TakeFromSocket(uint32_t bytes, bool mayUpdate);
    void ReadDone();
    void CollectionEnd();

    Address m_local;
    Time m_readCost;
    double m_readByteCost; //!< seconds per byte (below 1 ns: a double)
    uint32_t m_readSize;
    uint32_t m_core;
    uint32_t m_group;
    bool m_directCopy;
    uint64_t m_collectEvery; //!< bytes read between collections (0: none)
    Time m_collectPause;
    uint64_t m_allocated;    //!< bytes read since the last collection
    bool m_collecting;       //!< stopped for a collection
    uint64_t m_collections;
    EventId m_collectEndEvent;

    Ptr<HostCpu> m_cpu;
    uint32_t m_thread;
    Ptr<Socket> m_listener;
    Ptr<Socket> m_conn;
    Address m_peer;
    bool m_reading;
    uint32_t m_pendingBytes; //!< the bytes of the call in progress
    uint32_t m_costedBytes;  //!< of those, the bytes whose copy has been submitted
    Ptr<Packet> m_taken;     //!< DirectCopy: the call's bytes, out of the socket already

    uint64_t m_totalRx;
    uint64_t m_reads;
    Time m_cpuTime;

    /** Data read (as PacketSink's Rx): the bytes of one recv(), and the peer. */
    TracedCallback<Ptr<const Packet>, const Address&> m_rxTrace;
};

} // namespace ns3

#endif /* LANLOSS_HOST_TCP_READER_H */
