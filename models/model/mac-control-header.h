// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
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

    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();
    /** @return the TypeId of this header, MacControlHeader's */
    TypeId GetInstanceTypeId() const override;

    /** A PAUSE (opcode 0x0001) with pause_time 0 (an XON). */
    MacControlHeader();

    /** @param opcode the MAC Control opcode (0x0001: PAUSE) */
    void SetOpcode(uint16_t opcode);
    /** @return the MAC Control opcode */
    uint16_t GetOpcode() const;
    /** @param quanta the pause_time in quanta of 512 bit times (0: XON) */
    void SetPauseTime(uint16_t quanta);
    /** @return the pause_time in quanta of 512 bit times (0: XON) */
    uint16_t GetPauseTime() const;
    /** @return whether the opcode is PAUSE */
    bool IsPause() const;

    /** @return SERIALIZED_SIZE (46) bytes */
    uint32_t GetSerializedSize() const override;
    /**
     * Write opcode and pause_time big-endian, then 42 zero bytes.
     * @param start where to write
     */
    void Serialize(Buffer::Iterator start) const override;
    /**
     * Read opcode and pause_time, skip the reserved bytes.
     * @param start where to read
     * @return SERIALIZED_SIZE, the bytes read
     */
    uint32_t Deserialize(Buffer::Iterator start) override;
    /**
     * Print "opcode=0x1 pause_time=N".
     * @param os the stream
     */
    void Print(std::ostream& os) const override;

  private:
    uint16_t m_opcode;
    uint16_t m_pauseTime;
};

} // namespace ns3

#endif /* LANLOSS_MAC_CONTROL_HEADER_H */
