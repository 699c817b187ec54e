// SPDX-License-Identifier: GPL-2.0-only
#include "flow-seq-tag.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlowSeqTag");
NS_OBJECT_ENSURE_REGISTERED(FlowSeqTag);

TypeId
FlowSeqTag::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FlowSeqTag")
                            .SetParent<Tag>()
                            .SetGroupName("Lanloss")
                            .AddConstructor<FlowSeqTag>();
    return tid;
}

TypeId
FlowSeqTag::GetInstanceTypeId() const
{
    return GetTypeId();
}

FlowSeqTag::FlowSeqTag()
    : m_flowId(0),
      m_seq(0),
      m_sendTimeNs(0)
{
}

FlowSeqTag::FlowSeqTag(uint32_t flowId, uint64_t seq, Time sendTime)
    : m_flowId(flowId),
      m_seq(seq),
      m_sendTimeNs(sendTime.GetNanoSeconds())
{
}

void
FlowSeqTag::SetFlowId(uint32_t flowId)
{
    m_flowId = flowId;
}

uint32_t
FlowSeqTag::GetFlowId() const
{
    return m_flowId;
}

void
FlowSeqTag::SetSeq(uint64_t seq)
{
    m_seq = seq;
}

uint64_t
FlowSeqTag::GetSeq() const
{
    return m_seq;
}

void
FlowSeqTag::SetSendTime(Time sendTime)
{
    m_sendTimeNs = sendTime.GetNanoSeconds();
}

Time
FlowSeqTag::GetSendTime() const
{
    return NanoSeconds(m_sendTimeNs);
}

uint32_t
FlowSeqTag::GetSerializedSize() const
{
    return SERIALIZED_SIZE;
}

void
FlowSeqTag::Serialize(TagBuffer buffer) const
{
    buffer.WriteU32(m_flowId);
    buffer.WriteU64(m_seq);
    buffer.WriteU64(static_cast<uint64_t>(m_sendTimeNs));
}

void
FlowSeqTag::Deserialize(TagBuffer buffer)
{
    m_flowId = buffer.ReadU32();
    m_seq = buffer.ReadU64();
    m_sendTimeNs = static_cast<int64_t>(buffer.ReadU64());
}

void
FlowSeqTag::Print(std::ostream& os) const
{
    os << "flow=" << m_flowId << " seq=" << m_seq << " sent=" << m_sendTimeNs << "ns";
}

} // namespace ns3
