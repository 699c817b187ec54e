// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
 * The receiver's echo thread of seed 003's Java programs: each message's timestamp back to
 * the sender.
 */
#ifndef LANLOSS_MESSAGE_ECHO_H
#define LANLOSS_MESSAGE_ECHO_H

#include "ns3/address.h"
#include "ns3/application.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <deque>
#include <vector>

namespace ns3
{

class HostCpu;
class Packet;
class Socket;

/**
 * @ingroup lanloss
 * A thread of the receiving host that answers every message its reader has read with a
 * datagram of EchoBytes bytes to Remote (seed 003's `DataHandler`: the receiving thread
 * queues each message, this thread sends its 8-byte send timestamp back to the sender's
 * UDP port 8888, where EchoTimer times the round trip).
 *
 * Messages come from the reader's Rx trace, connected to Read: with MessageSize 0 each
 * call is one message (a UDP datagram: IdentifyDatagram names it; datagrams of flows other
 * than FlowId are not echoed here), otherwise the calls are a
 * byte stream (TCP) and message k is complete once (k + 1) * MessageSize bytes were read.
 * A complete message joins a queue of at most QueueSize entries (a full queue refuses it:
 * counted, never echoed). The thread takes one entry at a time and spends Cost of the
 * node's HostCpu on Core (a task thread: interrupts and softirqs on that core pre-empt it),
 * then sends the echo; the echo's payload is the message's number (8 bytes, little-endian),
 * which stands for the timestamp the message carried: EchoTimer looks the stamp up by it.
 */
class MessageEcho : public Application
{
  public:
    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    /** An echo not yet started: no thread, an empty queue. */
    MessageEcho();
    ~MessageEcho() override;

    /**
     * One read of the receiving application (a reader's Rx trace).
     * @param data the bytes read (a datagram, or a recv() call's bytes of a stream)
     * @param from the peer
     */
    void Read(Ptr<const Packet> data, const Address& from);

    /** @return echoes sent */
    uint64_t GetEchoed() const;
    /** @return messages the full queue refused */
    uint64_t GetQueueDrops() const;
    /** @return whether no message waits and none is being echoed */
    bool IsIdle() const;

  protected:
    /** Release the CPU and the socket. */
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;

    /** Queue message @p seq for the thread. */
    void Enqueue(uint64_t seq);
    /** Start the thread on the next queued message, if it is free. */
    void Next();
    /** The thread's CPU for the head of the queue is done: send its echo. */
    void Echo();

    Address m_remote;
    Time m_cost;
    uint32_t m_core;
    uint32_t m_queueSize;
    uint32_t m_messageSize;
    uint32_t m_echoBytes;
    uint32_t m_flowId;

    Ptr<HostCpu> m_cpu;
    uint32_t m_thread;
    Ptr<Socket> m_socket;
    std::deque<uint64_t> m_queue;
    bool m_busy;
    uint64_t m_streamBytes; //!< bytes read so far (MessageSize > 0)
    uint64_t m_completed;   //!< messages complete so far (MessageSize > 0)
    uint64_t m_echoed;
    uint64_t m_queueDrops;
};

} // namespace ns3

#endif /* LANLOSS_MESSAGE_ECHO_H */
