// SPDX-License-Identifier: GPL-2.0-only
/*
 * IEEE 802.3 MAC Control frame carrying a PAUSE (802.3x, Annex 31B).
 */
#ifndef LANLOSS_MAC_CONTROL_HEADER_H
#define LANLOSS_MAC_CONTROL_HEADER_H

#include "ns3/header.h"
#include "ns3/mac48-address.h"

namespace ns3
{

/**
 * @ingroup lanloss
 * The MAC Control payload of a PAUSE frame: opcode 0x0001, a 16-bit pause_time
 * in quanta of 512 bit times, and 42 reserved zero bytes, so that with the
 * 14-byte MAC header and the FCS the frame is exactly the 64-byte minimum.
 * It travels with EtherType 0x8808 to 01-80-C2-00-00-01, which bridges never
 * forward (802.1D reserved address).
 */
class MacControlHeader : public Header
{
  public:
    static constexpr uint32_t SERIALIZED_SIZE = 46; //!< opcode 2 + pause_time 2 + reserved 42

    /** @return the PAUSE destination address 01-80-C2-00-00-01 */
    static Mac48Address PauseDestination();

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;

    MacControlHeader();

    void SetOpcode(uint16_t opcode);
    uint16_t GetOpcode() const;
    void SetPauseTime(uint16_t quanta);
    uint16_t GetPauseTime() const;
    bool IsPause() const;

    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

  private:
    uint16_t m_opcode;
    uint16_t m_pauseTime;
};

} // namespace ns3

#endif /* LANLOSS_MAC_CONTROL_HEADER_H */
