// SPDX-License-Identifier: GPL-2.0-only
#include "scenario-multicast.h"

#include <algorithm>
#include <deque>
#include <map>

using namespace ns3;

namespace lanloss
{

std::vector<std::pair<Ptr<EthernetSwitchNetDevice>, uint32_t>>
PortsTowards(const LanSpec& spec, const LanBuilder& lan, const std::string& receiver)
{
    std::map<std::string, std::vector<std::string>> adjacent;
    for (const auto& l : spec.links)
    {
        adjacent[l.a].push_back(l.b);
        adjacent[l.b].push_back(l.a);
    }
    // Breadth-first from the receiver: next[n] is n's neighbour on the way to it.
    std::map<std::string, std::string> next;
    std::deque<std::string> todo{receiver};
    next[receiver] = receiver;
    while (!todo.empty())
    {
        std::string n = todo.front();
        todo.pop_front();
        for (const auto& m : adjacent[n])
        {
            if (!next.count(m))
            {
                next[m] = n;
                todo.push_back(m);
            }
        }
    }
    const auto ports = lan.NamedPorts();
    std::vector<std::pair<Ptr<EthernetSwitchNetDevice>, uint32_t>> out;
    for (const auto& s : spec.switches)
    {
        if (!next.count(s))
        {
            continue; // not connected to the receiver (Validate forbids it)
        }
        const std::string name = s + "->" + next[s];
        auto it = std::find_if(ports.begin(), ports.end(), [&](const auto& p) {
            return p.first == name;
        });
        NS_ABORT_MSG_IF(it == ports.end(), "no switch port named " << name);
        for (const auto& sw : lan.GetSwitches())
        {
            for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
            {
                if (sw->GetPort(p) == it->second)
                {
                    out.emplace_back(sw, p);
                }
            }
        }
    }
    return out;
}

} // namespace lanloss
