// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
 * A UDP sink that measures per-flow loss, reordering, loss runs and latency.
 */
#ifndef LANLOSS_UDP_FLOW_SINK_H
#define LANLOSS_UDP_FLOW_SINK_H

#include "ns3/address.h"
#include "ns3/application.h"
#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <map>
#include <vector>

namespace ns3
{

class Packet;
class Socket;

/**
 * @ingroup lanloss
 * Receives the datagrams of one or more UdpFlowSources on one UDP port and
 * keeps per-flow statistics (a flow is UdpFlowSource's FlowId, read from the
 * datagram's FlowSeqTag or payload header by IdentifyDatagram; a datagram with
 * neither is counted as unidentified).
 *
 * Multicast: ns-3 3.44 IPv4 accepts every multicast group at the IP layer
 * (Ipv4L3Protocol::IsDestinationAddress) and UdpSocketImpl::MulticastJoinGroup
 * is a no-op, so a socket bound to Ipv4Address::GetAny() (or to the group
 * address) and Local's port receives the group's datagrams. The sink still
 * calls MulticastJoinGroup for Group so the intent is explicit; a host that
 * did not join but listens on the port would receive them too (no IGMP
 * filtering in the host).
 *
 * The socket's receive buffer (RcvBufSize) defaults to 1 GiB: this sink models
 * an ideal reader; socket-buffer loss belongs to the host model.
 */
class UdpFlowSink : public Application
{
  public:
    /** Statistics of one flow over its seqs 0 .. sent-1 (the run record's `flows`). */
    struct FlowStats
    {
        uint64_t sent;         //!< as passed by the caller
        uint64_t received;     //!< distinct seqs in [0, sent) that arrived
        uint64_t duplicated;   //!< arrivals of a seq already seen
        uint64_t reordered;    //!< first arrivals with a seq below the highest seen
        uint64_t lost;         //!< sent - received
        uint64_t bytes;        //!< payload bytes of first arrivals
        double goodputBps;     //!< window payload bits / window length (NaN if no window)
        double latencyP50Us;   //!< nearest-rank median, microseconds (NaN if none)
        double latencyP99Us;   //!< nearest-rank 99th percentile, microseconds (NaN if none)
        double latencyMaxUs;   //!< microseconds (NaN if none)
        uint64_t lossRunCount; //!< maximal runs of consecutive missing seqs
        double lossRunMean;    //!< mean run length (0 if none)
        uint64_t lossRunMax;   //!< longest run (0 if none)

        /**
         * Statistics before anything is counted: zero counts, NaN goodput and latencies.
         * @param sentSeqs the seqs the source used (0 .. sentSeqs - 1)
         */
        explicit FlowStats(uint64_t sentSeqs = 0);
    };

    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    /** A sink not yet started: no socket, no flows. */
    UdpFlowSink();
    ~UdpFlowSink() override;

    /** @return flow ids seen so far, ascending */
    std::vector<uint32_t> GetFlowIds() const;
    /**
     * Statistics of @p flow given that its source used seqs 0 .. @p sent - 1.
     * @param flow a flow id
     * @param sent datagrams its source sent (seqs used)
     * @return the flow's statistics (a flow never seen: nothing received, every seq lost)
     */
    FlowStats GetFlowStats(uint32_t flow, uint64_t sent) const;
    /**
     * @param flow a flow id
     * @param sent datagrams its source sent (seqs used)
     * @return seqs in [0, @p sent) of @p flow that never arrived, ascending
     */
    std::vector<uint64_t> MissingSeqs(uint32_t flow, uint64_t sent) const;

    /** @return datagrams received, all flows, duplicates included */
    uint64_t GetTotalReceived() const;
    /** @return datagrams with neither a FlowSeqTag nor the payload header */
    uint64_t GetUnidentified() const;
    /** @return the receiving socket (valid after start), e.g. for its "Drop" trace source */
    Ptr<Socket> GetSocket() const;

  protected:
    /** Release the socket. */
    void DoDispose() override;

  private:
    struct Flow
    {
        uint64_t arrivals = 0;
        uint64_t duplicated = 0;
        uint64_t reordered = 0;
        uint64_t bytes = 0;
        uint64_t windowBytes = 0;
        uint64_t highest = 0;
        bool any = false;
        std::vector<bool> seen;
        std::vector<double> latencyUs;
    };

    void StartApplication() override;
    void StopApplication() override;
    void HandleRead(Ptr<Socket> socket);
    /** One datagram read, from the socket or the node's UdpFastPath. */
    void Read(Ptr<Packet> packet, const Address& from);
    void Account(Ptr<Packet> packet);

    // Attributes
    Address m_local;
    Ipv4Address m_group;
    Time m_windowStart;
    Time m_windowEnd;
    uint32_t m_rcvBufSize;
    bool m_fastPath;

    Ptr<Socket> m_socket;
    uint16_t m_fastPathPort = 0; //!< the port listened on by the fast path (0: none)
    std::map<uint32_t, Flow> m_flows;
    uint64_t m_totalReceived;
    uint64_t m_unidentified;

    TracedCallback<Ptr<const Packet>, const Address&> m_rxTrace;
};

} // namespace ns3

#endif /* LANLOSS_UDP_FLOW_SINK_H */
