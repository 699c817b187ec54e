// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
 * Packet tag naming the datagram a packet (or IPv4 fragment) belongs to.
 */
#ifndef LANLOSS_FLOW_SEQ_TAG_H
#define LANLOSS_FLOW_SEQ_TAG_H

#include "ns3/nstime.h"
#include "ns3/tag.h"

#include <cstdint>

namespace ns3
{

/**
 * @ingroup lanloss
 * Flow id, sequence number and send time of one UDP datagram, carried as a
 * *packet* tag where the datagram's bytes cannot name every frame of it (a
 * fragmented datagram, a payload shorter than UdpFlowSource's header). IPv4
 * fragmentation copies packet tags to every fragment and reassembly keeps the
 * first fragment's, so every drop point (device queue, switch, NIC, reassembly,
 * socket) can say which datagram of which flow it dropped (IdentifyDatagram).
 */
class FlowSeqTag : public Tag
{
  public:
    static constexpr uint32_t SERIALIZED_SIZE = 20; //!< flow 4 + seq 8 + send time 8

    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();
    /** @return the TypeId of this tag, FlowSeqTag's */
    TypeId GetInstanceTypeId() const override;

    /** Flow 0, seq 0, send time 0. */
    FlowSeqTag();
    /**
     * @param flowId the flow's id (UdpFlowSource FlowId)
     * @param seq the datagram's sequence number in its flow (0, 1, ...)
     * @param sendTime when the sender handed the datagram to its socket
     */
    FlowSeqTag(uint32_t flowId, uint64_t seq, Time sendTime);

    /** @param flowId the flow's id (UdpFlowSource FlowId) */
    void SetFlowId(uint32_t flowId);
    /** @return the flow's id */
    uint32_t GetFlowId() const;
    /** @param seq the datagram's sequence number in its flow */
    void SetSeq(uint64_t seq);
    /** @return the datagram's sequence number in its flow */
    uint64_t GetSeq() const;
    /**
     * Time the sender handed the datagram to its socket (kept in whole nanoseconds).
     * @param sendTime the send time
     */
    void SetSendTime(Time sendTime);
    /** @return the time the sender handed the datagram to its socket (ns resolution) */
    Time GetSendTime() const;

    /** @return SERIALIZED_SIZE (20) bytes */
    uint32_t GetSerializedSize() const override;
    /**
     * Write flow id (u32), seq (u64) and send time (u64 ns).
     * @param buffer where to write
     */
    void Serialize(TagBuffer buffer) const override;
    /**
     * Read what Serialize wrote.
     * @param buffer where to read
     */
    void Deserialize(TagBuffer buffer) override;
    /**
     * Print "flow=F seq=S sent=Tns".
     * @param os the stream
     */
    void Print(std::ostream& os) const override;

  private:
    uint32_t m_flowId;
    uint64_t m_seq;
    int64_t m_sendTimeNs;
};

} // namespace ns3

#endif /* LANLOSS_FLOW_SEQ_TAG_H */
