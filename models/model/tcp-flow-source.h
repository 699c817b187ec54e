// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
 * A TCP bulk (or paced) sender of fixed-size messages, the TCP cases of the testbed's lanloss-send.
 */
#ifndef LANLOSS_TCP_FLOW_SOURCE_H
#define LANLOSS_TCP_FLOW_SOURCE_H

#include "send-stamps.h"

#include "ns3/address.h"
#include "ns3/application.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <cstdint>

namespace ns3
{

class Socket;

/**
 * @ingroup lanloss
 * Opens one TCP connection to Remote and writes messages of MessageSize bytes
 * into it: as fast as the socket's send buffer accepts them (MaxRate, a bulk
 * transfer as netperf TCP_STREAM or iperf3 -t), or paced at DataRate
 * (message bits per second) with blocking writes, as testbed/tools/tx_tcp.c
 * does: message k is due at start + k * MessageSize * 8 / DataRate, and a
 * sender held up by a full send buffer does not catch up afterwards (the
 * schedule restarts from the moment the message could be written).
 *
 * The sending host's CPU (SendCost, SendByteCost, SendPacketCost): each send()
 * call costs SendCost, each byte SendByteCost (the copy from user space) and
 * each segment it makes SendPacketCost (TCP's transmission, the driver, and the
 * ACK that comes back for it: the receiver ACKs every segment), charged per
 * byte as SendPacketCost / SegmentSize. The next call is made when the CPU is
 * done with the last: a CPU-bound sender writes no faster than that.
 *
 * A message is written as a blocking send() on Linux writes it: what fits in the
 * send buffer goes in at once, the rest as space frees, so a message may be larger
 * than the buffer (netperf's 64 KiB messages into 16 KiB buffers). It counts as
 * sent once its last byte is in (GetSent); GetBytes counts every byte accepted. At
 * StopTime no further byte is written and the socket is closed; data already
 * accepted is still delivered (TcpSocketBase closes on an empty buffer), so once the
 * connection has drained the receiver has read GetBytes() bytes, of which
 * GetSent() whole messages.
 *
 * NoDelay sets TCP_NODELAY: off (Nagle) for a bulk transfer, so that segments are
 * full-size whatever the message size, as netperf TCP_STREAM and iperf3 leave it;
 * on for paced messages, as lanloss-send does, so a message is not held for an ACK.
 * Socket buffers, the segment size (MSS) and the other TCP parameters are the
 * TcpSocket defaults (set them with Config::SetDefault before the start).
 */
class TcpFlowSource : public Application
{
  public:
    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    /** A source not yet started: no socket, nothing sent. */
    TcpFlowSource();
    ~TcpFlowSource() override;

    /** @return whole messages the socket accepted */
    uint64_t GetSent() const;
    /** @return bytes the socket accepted (whole messages and the start of an unfinished
     *          one) */
    uint64_t GetBytes() const;
    /** @return time spent waiting for room in the send buffer while messages were due */
    Time GetBlockedTime() const;
    /** @return whether the connection was established */
    bool IsConnected() const;
    /** @return whether TCP gave the connection up (connect or retransmission limit): what
     *          it accepted and had not delivered then never arrives */
    bool HasFailed() const;
    /** @return the sending host's CPU time spent in send() calls (the three costs) */
    Time GetSendCpuTime() const;
    /** Keep each message's send stamp for GetStamp (call before the start). */
    void KeepStamps();
    /**
     * When the send() call of message @p seq (0 = the first) began, its blocking included:
     * the time a sending program reads just before the call (seed 003's Java sender stamps
     * it into the message).
     * @param seq the message's number (0 = the first)
     * @return the stamp; negative if the message was not begun or stamps are not kept
     */
    Time GetStamp(uint64_t seq) const;

  protected:
    /** Cancel the next send and release the socket. */
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;

    void Connected(Ptr<Socket> socket);
    void ConnectFailed(Ptr<Socket> socket);
    void ErrorClose(Ptr<Socket> socket);
    void SpaceAvailable(Ptr<Socket> socket, uint32_t available);
    /** Write every message that is due and fits; then schedule the next or wait. */
    void SendDue();
    bool WriteOne();
    /** The sending host's CPU for one send() call of @p bytes. */
    void ChargeCpu(uint32_t bytes);
    Time Due() const;

    // Attributes
    Address m_remote;
    uint32_t m_messageSize;
    DataRate m_rate;
    bool m_maxRate;
    bool m_noDelay;
    Time m_sendCost;
    double m_sendByteCost;   //!< seconds per byte
    double m_sendPacketCost; //!< seconds per segment

    Ptr<Socket> m_socket;
    bool m_running;
    bool m_connected;
    bool m_failed;
    bool m_waiting;
    EventId m_sendEvent;
    Time m_anchor;    //!< due time of message m_anchorSeq
    uint64_t m_anchorSeq;
    Time m_waitStart;
    Time m_blocked;
    uint64_t m_sent;
    uint32_t m_pending; //!< bytes of the current message not yet accepted (0 = none)
    uint64_t m_bytes;
    Time m_cpuFree;  //!< when the sending host's CPU is done with the last send() call
    Time m_cpuTime;  //!< the CPU those calls took
    SendStamps m_stamps;
};

} // namespace ns3

#endif /* LANLOSS_TCP_FLOW_SOURCE_H */
