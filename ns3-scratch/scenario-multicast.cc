// SPDX-License-Identifier: GPL-2.0-only
#include "scenario-multicast.h"


using namespace ns3;

namespace lanloss
{

std::vector<std::pair<Ptr<EthernetSwitchNetDevice>, uint32_t>>
PortsTowards(const LanSpec& spec, const LanBuilder& lan, const std::string& receiver)
{
    // The builder's station directory answers per switch in constant time: a search of
    // the whole LAN per receiver would make a multicast run's set-up quadratic.
    std::vector<std::pair<Ptr<EthernetSwitchNetDevice>, uint32_t>> out;
    for (const auto& s : spec.switches)
    {
        const uint32_t port = lan.PortTowards(s, receiver);
        NS_ABORT_MSG_IF(port == StationDirectory::NO_PORT,
                        "no port of " << s << " leads to " << receiver);
        out.emplace_back(lan.GetSwitch(s), port);
    }
    return out;
}

} // namespace lanloss
