// SPDX-License-Identifier: GPL-2.0-only
#include "mac-control-header.h"

#include "ethernet-wire.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MacControlHeader);

Mac48Address
MacControlHeader::PauseDestination()
{
    return Mac48Address("01:80:c2:00:00:01");
}

TypeId
MacControlHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MacControlHeader")
                            .SetParent<Header>()
                            .SetGroupName("Lanloss")
                            .AddConstructor<MacControlHeader>();
    return tid;
}

TypeId
MacControlHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

MacControlHeader::MacControlHeader()
    : m_opcode(ethernet::MAC_CONTROL_OPCODE_PAUSE),
      m_pauseTime(0)
{
}

void
MacControlHeader::SetOpcode(uint16_t opcode)
{
    m_opcode = opcode;
}

uint16_t
MacControlHeader::GetOpcode() const
{
    return m_opcode;
}

void
MacControlHeader::SetPauseTime(uint16_t quanta)
{
    m_pauseTime = quanta;
}

uint16_t
MacControlHeader::GetPauseTime() const
{
    return m_pauseTime;
}

bool
MacControlHeader::IsPause() const
{
    return m_opcode == ethernet::MAC_CONTROL_OPCODE_PAUSE;
}

uint32_t
MacControlHeader::GetSerializedSize() const
{
    return SERIALIZED_SIZE;
}

void
MacControlHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteHtonU16(m_opcode);
    start.WriteHtonU16(m_pauseTime);
    start.WriteU8(0, SERIALIZED_SIZE - 4);
}

uint32_t
MacControlHeader::Deserialize(Buffer::Iterator start)
{
    m_opcode = start.ReadNtohU16();
    m_pauseTime = start.ReadNtohU16();
    start.Next(SERIALIZED_SIZE - 4);
    return SERIALIZED_SIZE;
}

void
MacControlHeader::Print(std::ostream& os) const
{
    os << "opcode=0x" << std::hex << m_opcode << std::dec << " pause_time=" << m_pauseTime;
}

} // namespace ns3
