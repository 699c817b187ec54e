// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
 * The sender's timing thread of seed 003's Java programs: the round trip of each message,
 * at the sender's clock.
 */
#ifndef LANLOSS_ECHO_TIMER_H
#define LANLOSS_ECHO_TIMER_H

#include "ns3/address.h"
#include "ns3/application.h"
#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <cstdint>

namespace ns3
{

class Socket;

/**
 * @ingroup lanloss
 * Receives MessageEcho's echoes on Local (seed 003's `TimeCalculator` on UDP port 8888) and
 * adds, per echo, the time the thread has it minus the echoed message's send stamp: the
 * thesis' "send time", a round trip timed at the sender's clock (the message's wait in the
 * sender, the wire, the receiver's buffers and threads, the echo's way back).
 *
 * The thread takes one echo at a time: each costs ReceiveCost (its receive() call) and the
 * clock is read when that call returns, so echoes arriving faster than one per ReceiveCost
 * queue behind each other and their round trips grow by the wait. It runs on a core of its
 * own (the sending thread's CPU is the source's). The stamps come from the sender
 * (SetStampSource: the message's number -> when its send() call began, as the Java sender
 * took System.nanoTime() just before it). Only messages stamped inside [WindowStart,
 * WindowEnd) count, so a run's mean leaves out the start-up as its goodput does.
 */
class EchoTimer : public Application
{
  public:
    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    /** A timer with no stamp source, nothing received. */
    EchoTimer();
    ~EchoTimer() override;

    /**
     * Where the send stamps come from (the source's GetStamp, bound to it).
     * @param stamp the message's number -> its send stamp (negative: not sent)
     */
    void SetStampSource(Callback<Time, uint64_t> stamp);

    /** @return echoes timed (messages stamped inside the window) */
    uint64_t GetTimed() const;
    /** @return echoes received, all of them */
    uint64_t GetReceived() const;
    /** @return the mean round trip of the echoes timed (zero if none) */
    Time GetMeanRoundTrip() const;
    /** @return whether no echo is inside the thread's receive() call */
    bool IsIdle() const;

  protected:
    /** Release the socket and the stamp source. */
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;

    void HandleRead(Ptr<Socket> socket);
    /** The receive() call of the echo of message @p seq returned: time it. */
    void TimeEcho(uint64_t seq);

    Address m_local;
    Time m_receiveCost;
    Time m_windowStart;
    Time m_windowEnd;

    Callback<Time, uint64_t> m_stamp;
    Ptr<Socket> m_socket;
    Time m_freeAt; //!< when the thread's last receive() call returns
    uint64_t m_received;
    uint64_t m_inCall; //!< echoes received whose receive() call has not returned yet
    uint64_t m_timed;
    Time m_sum;
};

} // namespace ns3

#endif /* LANLOSS_ECHO_TIMER_H */
