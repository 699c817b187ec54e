// SPDX-License-Identifier: GPL-2.0-only
/*
 * Multicast attribution: which switch ports lead towards a receiver, so that a drop on one
 * branch of a flood counts only for the receivers behind it.
 */
#ifndef LANLOSS_SCENARIO_MULTICAST_H
#define LANLOSS_SCENARIO_MULTICAST_H

#include "ns3/lanloss-module.h"

#include <string>
#include <utility>
#include <vector>

namespace lanloss
{

/**
 * For every switch of the LAN, the port that leads towards host @p receiver (the
 * LAN is a tree, LanSpec::Validate: one such port per switch). A flooded frame
 * reaches @p receiver through exactly these ports, whichever host sent it.
 */
std::vector<std::pair<ns3::Ptr<ns3::EthernetSwitchNetDevice>, uint32_t>> PortsTowards(
    const ns3::LanSpec& spec,
    const ns3::LanBuilder& lan,
    const std::string& receiver);

} // namespace lanloss

#endif
