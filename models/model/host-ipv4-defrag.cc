// SPDX-License-Identifier: GPL-2.0-only
#include "host-ipv4-defrag.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HostIpv4Defrag");

HostIpv4Defrag::HostIpv4Defrag()
    : m_timeout(Seconds(30)),
      m_timeouts(0),
      m_fragmentsDropped(0)
{
}

HostIpv4Defrag::~HostIpv4Defrag()
{
    Clear();
}

void
HostIpv4Defrag::SetTimeout(Time timeout)
{
    m_timeout = timeout;
}

Time
HostIpv4Defrag::GetTimeout() const
{
    return m_timeout;
}

void
HostIpv4Defrag::SetDropCallback(Callback<void, const HostRxFrame&> drop)
{
    m_drop = drop;
}

bool
HostIpv4Defrag::Add(const HostRxFrame& frame, const Ipv4Header& header, HostDatagram& datagram)
{
    const Key key{header.GetSource().Get(),
                  header.GetDestination().Get(),
                  header.GetIdentification(),
                  header.GetProtocol()};
    auto [it, created] = m_queues.try_emplace(key);
    Queue& q = it->second;
    if (created)
    {
        // ip_frag_create(): the timer runs from the first fragment, not the last.
        q.timer = Simulator::Schedule(m_timeout, &HostIpv4Defrag::Expire, this, key);
    }
    const uint16_t offset = header.GetFragmentOffset();
    const uint16_t length = header.GetPayloadSize();
    if (!q.fragments.emplace(offset, frame).second)
    {
        NS_LOG_LOGIC("duplicate fragment at offset " << offset << " ignored");
        return false;
    }
    q.have += length;
    if (header.IsLastFragment())
    {
        q.total = int64_t(offset) + length;
    }
    if (q.total < 0 || q.have != q.total)
    {
        return false;
    }
    q.timer.Cancel();
    datagram.frames.clear();
    datagram.truesize = 0;
    datagram.port = 0;
    datagram.frames.reserve(q.fragments.size());
    for (auto& [off, f] : q.fragments)
    {
        datagram.truesize += f.truesize;
        datagram.frames.push_back(std::move(f));
    }
    m_queues.erase(it);
    return true;
}

void
HostIpv4Defrag::Expire(Key key)
{
    auto it = m_queues.find(key);
    if (it == m_queues.end())
    {
        return;
    }
    // ip_expire(): the whole queue goes (ReasmTimeout, ReasmFails).
    std::map<uint16_t, HostRxFrame> fragments = std::move(it->second.fragments);
    m_queues.erase(it);
    ++m_timeouts;
    for (const auto& [off, f] : fragments)
    {
        ++m_fragmentsDropped;
        if (!m_drop.IsNull())
        {
            m_drop(f);
        }
    }
}

uint32_t
HostIpv4Defrag::GetPending() const
{
    return m_queues.size();
}

uint32_t
HostIpv4Defrag::GetFragmentsHeld() const
{
    uint32_t n = 0;
    for (const auto& [key, q] : m_queues)
    {
        n += q.fragments.size();
    }
    return n;
}

uint64_t
HostIpv4Defrag::GetTimeouts() const
{
    return m_timeouts;
}

uint64_t
HostIpv4Defrag::GetFragmentsDropped() const
{
    return m_fragmentsDropped;
}

void
HostIpv4Defrag::Clear()
{
    for (auto& [key, q] : m_queues)
    {
        q.timer.Cancel();
    }
    m_queues.clear();
}

} // namespace ns3
