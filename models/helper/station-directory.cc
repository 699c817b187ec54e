// SPDX-License-Identifier: GPL-2.0-only
#include "station-directory.h"

#include "ns3/assert.h"

#include <deque>

namespace ns3
{

uint64_t
StationDirectory::Key(Mac48Address mac)
{
    uint8_t b[6];
    mac.CopyTo(b);
    uint64_t k = 0;
    for (uint8_t x : b)
    {
        k = (k << 8) | x;
    }
    return k;
}

uint32_t
StationDirectory::AddSwitch()
{
    m_trunks.emplace_back();
    return m_trunks.size() - 1;
}

void
StationDirectory::AddHost(Mac48Address mac, uint32_t sw, uint32_t port)
{
    NS_ASSERT(sw < m_trunks.size());
    m_hosts[Key(mac)] = Attachment{sw, port};
}

void
StationDirectory::AddTrunk(uint32_t a, uint32_t portA, uint32_t b, uint32_t portB)
{
    NS_ASSERT(a < m_trunks.size() && b < m_trunks.size());
    m_trunks[a].emplace_back(b, portA);
    m_trunks[b].emplace_back(a, portB);
}

void
StationDirectory::Finish()
{
    const uint32_t n = m_trunks.size();
    m_next.assign(n, std::vector<uint32_t>(n, NO_PORT));
    // Breadth-first from each switch: the first trunk taken towards t is the next hop
    // (the LAN is a tree: LanSpec::Validate rejects loops, so the path is unique).
    for (uint32_t s = 0; s < n; ++s)
    {
        std::deque<uint32_t> todo;
        std::vector<bool> seen(n, false);
        seen[s] = true;
        for (const auto& [t, port] : m_trunks[s])
        {
            if (!seen[t])
            {
                seen[t] = true;
                m_next[s][t] = port;
                todo.push_back(t);
            }
        }
        while (!todo.empty())
        {
            uint32_t u = todo.front();
            todo.pop_front();
            for (const auto& [t, port] : m_trunks[u])
            {
                if (!seen[t])
                {
                    seen[t] = true;
                    m_next[s][t] = m_next[s][u];
                    todo.push_back(t);
                }
            }
        }
    }
}

uint32_t
StationDirectory::PortTowards(uint32_t sw, Mac48Address mac) const
{
    auto it = m_hosts.find(Key(mac));
    if (it == m_hosts.end() || sw >= m_next.size())
    {
        return NO_PORT;
    }
    const Attachment& at = it->second;
    return at.sw == sw ? at.port : m_next[sw][at.sw];
}

uint32_t
StationDirectory::GetNHosts() const
{
    return m_hosts.size();
}

} // namespace ns3
