// SPDX-License-Identifier: GPL-2.0-only
/*
 * Builds a LanSpec into ns-3 nodes: hosts with IPv4, switches, Ethernet links.
 */
#ifndef LANLOSS_LAN_BUILDER_H
#define LANLOSS_LAN_BUILDER_H

#include "lan-spec.h"

#include "ns3/ethernet-helper.h"
#include "ns3/ethernet-switch-helper.h"
#include "ns3/ipv4-address.h"
#include "ns3/node-container.h"

#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * @ingroup lanloss
 * Turns a LanSpec into a simulated LAN: one node per host and switch, an
 * EthernetNetDevice pair per link, an EthernetSwitchNetDevice per switch, the
 * internet stack and one IPv4 subnet (10.0.0.0/16: one broadcast domain).
 *
 * ARP: every host's cache is filled with permanent entries for every other
 * host, and every host sends one gratuitous ARP at t = 0 so the switches learn
 * where it is (a receiver that never transmits would otherwise be reached by
 * flooding forever). Traffic should start after StartTime().
 */
class LanBuilder
{
  public:
    LanBuilder();

    void SetMtu(uint16_t mtu);
    void SetHostQueueBytes(uint32_t bytes);
    /** 802.3x on every port: hosts honour PAUSE, switches send and honour it. */
    void SetPause(bool enabled);
    void SetSwitchAttribute(std::string name, const AttributeValue& value);

    void Build(const LanSpec& spec);

    /** When the gratuitous ARPs have crossed the LAN and traffic may start. */
    Time StartTime() const;

    Ptr<Node> GetHost(const std::string& name) const;
    Ptr<EthernetNetDevice> GetHostDevice(const std::string& name) const;
    Ipv4Address GetHostAddress(const std::string& name) const;
    const std::vector<std::string>& HostNames() const;
    std::vector<Ptr<EthernetSwitchNetDevice>> GetSwitches() const;

    /** Every Ethernet port with a readable name ("s1", "sw1->r1"), for reports. */
    std::vector<std::pair<std::string, Ptr<EthernetNetDevice>>> NamedPorts() const;

    EthernetHelper& Links();

  private:
    void PopulateArp();
    void SendGratuitousArp(const std::string& host);

    EthernetHelper m_links;
    EthernetSwitchHelper m_switchHelper;
    uint16_t m_mtu;
    bool m_pause;
    Time m_maxDelay;

    std::map<std::string, Ptr<Node>> m_nodes;
    std::map<std::string, Ptr<EthernetNetDevice>> m_hostDevice;
    std::map<std::string, Ipv4Address> m_hostAddress;
    std::vector<std::string> m_hostNames;
    std::map<std::string, Ptr<EthernetSwitchNetDevice>> m_switches;
    std::vector<std::pair<std::string, Ptr<EthernetNetDevice>>> m_ports;
};

} // namespace ns3

#endif /* LANLOSS_LAN_BUILDER_H */
