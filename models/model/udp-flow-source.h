// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
 * A UDP traffic source with sequence numbers and timestamps (iperf3/netperf-like).
 */
#ifndef LANLOSS_UDP_FLOW_SOURCE_H
#define LANLOSS_UDP_FLOW_SOURCE_H

#include "ethernet-wire.h"
#include "lanloss-schedule.h"
#include "lanloss-linux-rx.h"
#include "lanloss-ns3-compat.h"
#include "lanloss-wire-format.h"

#include "send-stamps.h"
#include "udp-fast-path.h"

#include "ns3/address.h"
#include "ns3/application.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"

#include <array>
#include <cstdint>
#include <string>

namespace ns3
{

class EthernetNetDevice;
class Packet;
class Socket;

/**
 * @ingroup lanloss
 * Sends UDP datagrams of PayloadSize bytes to one unicast address or IPv4
 * multicast group, paced at DataRate (payload bits per second, as iperf3 -b)
 * with a "cbr", "poisson" or "burst:N" pattern, or as fast as the sending
 * host's transmit queue accepts them (MaxRate, as netperf UDP_STREAM with a
 * blocking socket).
 *
 * When PayloadSize >= 24, a datagram carries the testbed tools' header in its
 * first 24 payload bytes (little-endian: seq u64, tx_ns u64, flow u32, magic u32
 * = LANLOSS_MAGIC; lanloss-wire-format.h), so that captures of the sim and the
 * testbed read alike. As there, a payload of 8 to 23 bytes carries the seq
 * only and a shorter one nothing; the rest of the payload is zeros. A datagram
 * whose bytes cannot name every frame of it also carries a FlowSeqTag (flow,
 * seq, send time) as a packet tag: one shorter than the header, and one sent in
 * fragments (the later fragments carry no header). IdentifyDatagram reads
 * either (datagram-id.h).
 * Sequence numbers count send attempts: a datagram whose Send fails still
 * uses its seq, so seqs 0 .. GetSent() + GetSendFailures() - 1 were used and
 * the scenario can attribute the missing one to sender_socket (TxFailure
 * carries its tag). lanloss-send instead keeps the number for the next try.
 *
 * Pacing: datagram k is due at start + k * PayloadSize * 8 / DataRate,
 * computed from the start in integer nanoseconds (no accumulated drift);
 * sending stops at StopTime (datagrams are due in [StartTime, StopTime)).
 * Poisson draws exponential gaps with that mean (the first datagram is sent at
 * start); burst:N sends N datagrams at once every N periods.
 *
 * Blocking (needs Device): a datagram is sent only when the device's transmit
 * queue has room for all of its frames (ethernet::UdpDatagramFrames at Mtu);
 * otherwise the source waits for the device's PhyTxBegin, like a blocking
 * sendto(). A blocked sender does not catch up: when datagram k leaves at
 * s > due(k), the schedule is re-anchored at s, so datagram k+1 is due at
 * max(due(k), s) + gap. Without Blocking the datagram is sent on schedule and
 * the device drops what its queue cannot hold (MacTxDrop: sender_queue).
 *
 * MaxRate (needs Device): no pacing, blocking; at most one datagram is handed
 * to the stack while the queue has no room, and a datagram that does not
 * reach the device queue at once (ARP still pending, send failure, a frame
 * dropped anyway) makes the source wait for the next PhyTxBegin instead of
 * spinning at one instant of simulated time.
 *
 * Multicast: the socket's IP multicast TTL is MulticastTtl; the sending node
 * needs a route for the group (e.g.
 * Ipv4StaticRoutingHelper::SetDefaultMulticastRoute), as a Linux host needs
 * one for 224.0.0.0/4.
 */
class UdpFlowSource : public Application
{
  public:
    static constexpr uint32_t HEADER_BYTES = LANLOSS_HDR_FULL; //!< seq 8, tx_ns 8, flow 4, magic 4
    static constexpr uint32_t SEQ_BYTES = LANLOSS_HDR_SEQ; //!< the truncated header: seq only
    static constexpr uint32_t HEADER_MAGIC = LANLOSS_MAGIC; //!< "LLSS" read little-endian
    static constexpr uint32_t MAX_PAYLOAD = LANLOSS_UDP_MAX_PAYLOAD; //!< 65535 - IPv4 - UDP

    /** The testbed tools' datagram header. */
    struct WireHeader
    {
        uint64_t seq;   //!< the datagram's sequence number in its flow
        uint64_t txNs;  //!< its send time, ns (the simulation clock)
        uint32_t flow;  //!< the flow id
        uint32_t magic; //!< HEADER_MAGIC in a full header
    };

    /**
     * Write @p h little-endian at the start of a payload of @p len bytes: all
     * of it from HEADER_BYTES on, the seq alone from SEQ_BYTES, else nothing.
     * @param buf the payload (at least @p len bytes)
     * @param len the payload's length in bytes
     * @param h the header
     */
    static void WriteHeader(uint8_t* buf, uint32_t len, const WireHeader& h);
    /**
     * Read the header from the first HEADER_BYTES bytes of @p packet.
     * @param packet a UDP payload
     * @param h where the header is put (when the packet is long enough)
     * @return false if the packet is shorter or the magic does not match
     */
    static bool ReadHeader(Ptr<const Packet> packet, WireHeader& h);
    /**
     * Read the header from HEADER_BYTES bytes.
     * @param buf the payload's first HEADER_BYTES bytes
     * @param h where the header is put
     * @return false if the magic does not match
     */
    static bool ParseHeader(const uint8_t* buf, WireHeader& h);

    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    /** A source not yet started: no socket, nothing sent. */
    UdpFlowSource();
    ~UdpFlowSource() override;

    /**
     * No ns-3 random streams: the Poisson gaps come from the schedule generator shared with
     * the testbed (lanloss-schedule.h), seeded by the Seed and FlowId attributes.
     * @param stream the first stream index (unused)
     * @return the number of streams used (0)
     */
    int64_t AssignStreams(int64_t stream) LANLOSS_OVERRIDE_APPLICATION_ASSIGN_STREAMS;

    /** @return datagrams handed to the socket successfully */
    uint64_t GetSent() const;
    /** @return datagrams whose Send returned -1 (the scenario's `sender_socket`) */
    uint64_t GetSendFailures() const;
    /** @return the sending host's CPU time spent in send() calls (SendCost, SendByteCost,
     *          SendPacketCost) */
    Time GetSendCpuTime() const;
    /** @return time spent waiting for room in the device queue (up to now) */
    Time GetBlockedTime() const;
    /** @return time of the first successful send (zero if none) */
    Time GetFirstSendTime() const;
    /** @return time of the last successful send (zero if none) */
    Time GetLastSendTime() const;
    /** Keep each datagram's send stamp for GetStamp (call before the start). */
    void KeepStamps();
    /**
     * When the send() call of datagram @p seq began, its wait for room included: the time a
     * sending program reads just before the call (seed 003's Java sender stamps it into
     * the message).
     * @param seq the datagram's sequence number
     * @return the stamp; negative if the datagram was not sent or stamps are not kept
     */
    Time GetStamp(uint64_t seq) const;

  protected:
    /** Cancel the pending send and retry; release the socket and the device. */
    void DoDispose() override;

  private:
    // The attribute table of GetTypeId, a group of related attributes each.
    static void AddFlowAttributes(TypeId& tid);
    static void AddSendingHostAttributes(TypeId& tid);
    static void AddTraceSources(TypeId& tid);

    enum PatternKind
    {
        CBR,
        POISSON,
        BURST,
    };

    void StartApplication() override;
    void StopApplication() override;

    void SetPattern(std::string pattern);
    std::string GetPattern() const;

    /** Send every datagram that is due and fits; then schedule or wait. */
    void SendDue();
    /** The payload of one datagram: @p h, then zeros to the payload size. */
    Ptr<Packet> MakePayload(const WireHeader& h);
    /** Hand datagram m_seq to the socket. @return true if it reached the device */
    bool SendOne();
    /** The due time of datagram m_seq (paced patterns). */
    Time Due() const;
    /** Move the schedule on to the next datagram after one due at @p due left now. */
    void Advance(Time due);
    /** Whether the sender must wait for room in the device queue. */
    bool MustWait() const;
    bool PastStop(Time t) const;
    void StartWaiting();
    void StopWaiting();
    void DeviceTxBegin(Ptr<const Packet> frame);
    /** The device's MacTx: @p packet is the IPv4 packet it was given. */
    void DeviceMacTx(Ptr<const Packet> packet);
    /** The device's MacTxDrop: @p frame has its MAC header. */
    void DeviceMacTxDrop(Ptr<const Packet> frame);

    // What every datagram reads and writes (SendDue, Due, MustWait, SendOne, Advance and
    // the device's traces) comes first and together: at thousands of hosts a source has
    // gone cold by its next datagram, so each cache line it touches is a miss.
    bool m_running = false;
    bool m_maxRate = false;
    bool m_blocking = false;
    bool m_waiting = false;
    PatternKind m_kind = CBR;
    uint32_t m_burst = 1;      //!< datagrams per burst (1 for cbr and poisson)
    uint32_t m_startBurst = 0; //!< datagrams sent back to back at the start, before the pattern
    uint32_t m_payloadSize = 1472;
    uint32_t m_flowId = 0;
    ethernet::DatagramFrames m_frames{0, 0, 0};
    DataRate m_rate;

    // Schedule: due(m_seq) = m_anchor + m_units periods (cbr, burst) or + m_offset (poisson).
    Time m_anchor;
    uint64_t m_units = 0;
    double m_offsetNs = 0; //!< Poisson: the exact offset from m_anchor, ns (as lanloss-send's)
    double m_meanGapNs = 0; //!< Poisson: the mean gap, ns
    lanloss_rng m_rng{};    //!< the Poisson gaps (lanloss-schedule.h)

    uint64_t m_seq = 0;           //!< next sequence number
    uint64_t m_deviceSeen = 0;    //!< 1 + seq of the last own datagram the device took (0 = none)
    uint64_t m_deviceDropped = 0; //!< 1 + seq of the last own datagram the device dropped
    Time m_cpuFreeAt;             //!< the end of the send() call in progress
    Time m_sendCost;              //!< CPU per send() call
    double m_sendByteCost = 0;    //!< CPU per payload byte, seconds
    double m_sendPacketCost = 0;  //!< seconds per frame (IP fragment) of a datagram
    Time m_sendCpu;               //!< CPU spent in send() calls so far
    uint64_t m_callSeq = 0;       //!< 1 + the seq whose send() call began at m_callStart
    Time m_callStart;
    uint64_t m_sent = 0;
    Time m_lastSend;
    EventId m_sendEvent;
    uint32_t m_headerBytes = 0; //!< the payload's header bytes: min(payload, HEADER_BYTES)
    std::array<uint8_t, HEADER_BYTES> m_header{}; //!< rewritten per datagram
    Ptr<const Packet> m_zeros; //!< the rest of the payload, a zero area (null if none)
    UdpFastSender m_fastSender; //!< ready where FastPath may bypass the socket
    Ptr<EthernetNetDevice> m_device;
    TracedCallback<Ptr<const Packet>> m_txTrace;
    SendStamps m_stamps;

    // Attributes and state read at start, on a wait, a failure or at the end
    Address m_remote;
    std::string m_pattern = "cbr";
    bool m_fastPath = false;
    bool m_traceConnected = false;
    uint32_t m_mtu = 0;
    uint8_t m_multicastTtl = 1;
    uint64_t m_seed = 1;     //!< run seed: the Poisson stream is (m_seed, m_flowId)
    Ptr<Socket> m_socket;
    EventId m_retryEvent;
    Time m_waitStart;
    uint64_t m_failures = 0;
    Time m_blockedTime;
    Time m_firstSend;
    TracedCallback<Ptr<const Packet>> m_txFailureTrace;
};

} // namespace ns3

#endif /* LANLOSS_UDP_FLOW_SOURCE_H */
