// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
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
    /** Installs EthernetSwitchNetDevices with their default attributes. */
    EthernetSwitchHelper();
    /**
     * Set an attribute of the switches Install creates from now on (EthernetSwitchNetDevice).
     * @param name the attribute's name, e.g. "EgressBufferBytes"
     * @param value its value
     */
    void SetAttribute(std::string name, const AttributeValue& value);
    /**
     * Put a switch with a fresh MAC address on @p node and add @p ports as its ports, in
     * their order (port i = ports.Get(i)).
     * @param node the switch node
     * @param ports EthernetNetDevices already on @p node
     * @return the switch
     */
    Ptr<EthernetSwitchNetDevice> Install(Ptr<Node> node, NetDeviceContainer ports);

  private:
    ObjectFactory m_factory;
};

} // namespace ns3

#endif /* LANLOSS_ETHERNET_SWITCH_HELPER_H */
