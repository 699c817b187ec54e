// SPDX-License-Identifier: GPL-2.0-only
/*
 * Builds a LanSpec into ns-3 nodes: hosts with IPv4, switches, Ethernet links.
 */
#ifndef LANLOSS_LAN_BUILDER_H
#define LANLOSS_LAN_BUILDER_H

#include "lan-spec.h"
#include "station-directory.h"

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
 * ARP: the two ends of every flow of the spec get permanent entries for each
 * other (both ways: TCP ACKs and ICMP go back), so no datagram waits on ARP and
 * no ARP request is broadcast; AddArpEntry adds more (ArpScope all: every pair,
 * N^2 entries, which at thousands of hosts costs gigabytes).
 *
 * Station learning: a switch must know where every host is before traffic
 * starts, or a receiver that never transmits is reached by flooding forever.
 * By default (directory) the switches look a destination up in a
 * StationDirectory the first time they need it, exactly as if every host had
 * sent one gratuitous ARP at t = 0, without the N broadcasts of N copies that
 * cost; gratuitous-arp sends those frames; traffic leaves the switches to learn
 * from traffic (unknown unicast is flooded until a host transmits). Traffic
 * should start after StartTime().
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

    enum StationLearning
    {
        LEARN_DIRECTORY,      //!< switches know every host from t = 0, no frames sent
        LEARN_GRATUITOUS_ARP, //!< every host broadcasts a gratuitous ARP at t = 0
        LEARN_TRAFFIC,        //!< switches learn from traffic only
    };
    enum ArpScope
    {
        ARP_FLOWS, //!< entries between the two ends of each flow of the spec
        ARP_ALL,   //!< every host knows every other host (N^2 entries)
    };
    void SetStationLearning(StationLearning mode);
    void SetArpScope(ArpScope scope);

    void Build(const LanSpec& spec);

    /** When the gratuitous ARPs have crossed the LAN and traffic may start. */
    Time StartTime() const;

    /** Permanent ARP entries for each other on hosts @p a and @p b (after Build). */
    void AddArpEntry(const std::string& a, const std::string& b);
    /** Permanent ARP entries added, summed over hosts. */
    uint64_t GetArpEntries() const;
    /** Where the switches find hosts (LEARN_DIRECTORY; also for users' own lookups). */
    Ptr<StationDirectory> GetDirectory() const;
    /** The port of switch @p sw (a switch name of the spec) towards host @p host. */
    uint32_t PortTowards(const std::string& sw, const std::string& host) const;

    Ptr<Node> GetHost(const std::string& name) const;
    Ptr<EthernetNetDevice> GetHostDevice(const std::string& name) const;
    Ipv4Address GetHostAddress(const std::string& name) const;
    const std::vector<std::string>& HostNames() const;
    std::vector<Ptr<EthernetSwitchNetDevice>> GetSwitches() const;
    Ptr<EthernetSwitchNetDevice> GetSwitch(const std::string& name) const;

    /** Every Ethernet port with a readable name ("s1", "sw1->r1"), for reports. */
    const std::vector<std::pair<std::string, Ptr<EthernetNetDevice>>>& NamedPorts() const;

    EthernetHelper& Links();

  private:
    /** The ports of each switch, in the order AddPort numbers them. */
    using SwitchPorts = std::map<std::string, NetDeviceContainer>;

    /** A node per switch and host of @p spec, named; @return the hosts */
    NodeContainer CreateNodes(const LanSpec& spec);
    /** One cable of @p spec, its ends recorded as host devices or switch ports, and
     *  entered in the station directory (host behind a port, or a trunk). */
    void InstallLink(const LanSpec::Link& link, SwitchPorts& switchPorts);
    void InstallSwitches(const LanSpec& spec, SwitchPorts& switchPorts);
    /** IPv4 addresses 10.0.0.0/16 in host order; the ARP entries of the ArpScope. */
    void AddressHosts(const LanSpec& spec, NodeContainer& hosts);
    void AddArpOneWay(const std::string& self, const std::string& peer);
    void SendGratuitousArp(const std::string& host);

    EthernetHelper m_links;
    EthernetSwitchHelper m_switchHelper;
    uint16_t m_mtu;
    bool m_pause;
    Time m_maxDelay;
    StationLearning m_learning;
    ArpScope m_arpScope;
    uint64_t m_arpEntries;
    Ptr<StationDirectory> m_directory;
    std::map<std::string, uint32_t> m_switchIndex;

    std::map<std::string, Ptr<Node>> m_nodes;
    std::map<std::string, Ptr<EthernetNetDevice>> m_hostDevice;
    std::map<std::string, Ipv4Address> m_hostAddress;
    std::vector<std::string> m_hostNames;
    std::map<std::string, Ptr<EthernetSwitchNetDevice>> m_switches;
    std::vector<std::pair<std::string, Ptr<EthernetNetDevice>>> m_ports;
};

} // namespace ns3

#endif /* LANLOSS_LAN_BUILDER_H */
