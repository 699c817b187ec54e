// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
 * The send stamps of a source's messages, by message number (option echo).
 */
#ifndef LANLOSS_SEND_STAMPS_H
#define LANLOSS_SEND_STAMPS_H

#include "ns3/nstime.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * @ingroup lanloss
 * When each message's send() call began, as a sending program reads its clock just before
 * the call and writes the time into the message (seed 003's Java sender): kept only once
 * Keep() was called, so a source without an echo stores nothing.
 */
class SendStamps
{
  public:
    /** Keep the stamps from now on. */
    void Keep()
    {
        m_keep = true;
    }

    /**
     * Message @p seq's call began at @p start (ignored unless kept).
     * @param seq the message's number (0 = the first)
     * @param start when its send() call began
     */
    void Record(uint64_t seq, Time start)
    {
        if (!m_keep)
        {
            return;
        }
        if (m_steps.size() <= seq)
        {
            m_steps.resize(seq + 1, -1);
        }
        m_steps[seq] = start.GetTimeStep();
    }

    /**
     * @param seq the message's number (0 = the first)
     * @return message @p seq's stamp; negative if none was recorded
     */
    Time Get(uint64_t seq) const
    {
        return TimeStep(seq < m_steps.size() ? m_steps[seq] : -1);
    }

  private:
    bool m_keep = false;
    std::vector<int64_t> m_steps; //!< per message: its call's start in time steps (-1: none)
};

} // namespace ns3

#endif /* LANLOSS_SEND_STAMPS_H */
