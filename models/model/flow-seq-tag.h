// SPDX-License-Identifier: GPL-2.0-only
/*
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
 * *packet* tag. IPv4 fragmentation copies packet tags to every fragment and
 * reassembly keeps the first fragment's, so every drop point (device queue,
 * switch, NIC, reassembly, socket) can say which datagram of which flow it
 * dropped, and the sink can measure latency without parsing the payload.
 */
class FlowSeqTag : public Tag
{
  public:
    static constexpr uint32_t SERIALIZED_SIZE = 20; //!< flow 4 + seq 8 + send time 8

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;

    FlowSeqTag();
    FlowSeqTag(uint32_t flowId, uint64_t seq, Time sendTime);

    void SetFlowId(uint32_t flowId);
    uint32_t GetFlowId() const;
    void SetSeq(uint64_t seq);
    uint64_t GetSeq() const;
    /** Time the sender handed the datagram to its socket (ns resolution). */
    void SetSendTime(Time sendTime);
    Time GetSendTime() const;

    uint32_t GetSerializedSize() const override;
    void Serialize(TagBuffer buffer) const override;
    void Deserialize(TagBuffer buffer) override;
    void Print(std::ostream& os) const override;

  private:
    uint32_t m_flowId;
    uint64_t m_seq;
    int64_t m_sendTimeNs;
};

} // namespace ns3

#endif /* LANLOSS_FLOW_SEQ_TAG_H */
