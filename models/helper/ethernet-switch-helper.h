// SPDX-License-Identifier: GPL-2.0-only
/*
 * Turns a node with EthernetNetDevice ports into an EthernetSwitch.
 */
#ifndef LANLOSS_ETHERNET_SWITCH_HELPER_H
#define LANLOSS_ETHERNET_SWITCH_HELPER_H

#include "ns3/ethernet-switch-net-device.h"
#include "ns3/net-device-container.h"
#include "ns3/node.h"
#include "ns3/object-factory.h"

#include <string>

namespace ns3
{

/**
 * @ingroup lanloss
 * Installs an EthernetSwitchNetDevice on a node and adds the given
 * EthernetNetDevices (already on that node) as its ports.
 */
class EthernetSwitchHelper
{
  public:
    EthernetSwitchHelper();
    void SetAttribute(std::string name, const AttributeValue& value);
    Ptr<EthernetSwitchNetDevice> Install(Ptr<Node> node, NetDeviceContainer ports);

  private:
    ObjectFactory m_factory;
};

} // namespace ns3

#endif /* LANLOSS_ETHERNET_SWITCH_HELPER_H */
