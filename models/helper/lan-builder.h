// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
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
 * The stack is IPv4's (with UDP and TCP); IPv6's objects, which nothing of the LAN
 * uses and which cost memory and set-up time per host, only on request (SetIpv6).
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
    /** MTU 1500, PAUSE off, station learning from the directory, ARP entries per flow. */
    LanBuilder();

    /**
     * The MTU of every Ethernet device Build creates (hosts and switch ports).
     * @param mtu the MTU in bytes (default 1500)
     */
    void SetMtu(uint16_t mtu);
    /**
     * The transmit queue limit of every device Build creates (EthernetHelper::SetQueueBytes;
     * switch ports then lift it, the switch admits frames itself).
     * @param bytes the limit in bytes (default 1 MiB)
     */
    void SetHostQueueBytes(uint32_t bytes);
    /**
     * 802.3x on every port: hosts honour PAUSE, switches send and honour it.
     * @param enabled PAUSE on (default off)
     */
    void SetPause(bool enabled);
    /**
     * Set an attribute of every switch Build creates (EthernetSwitchNetDevice).
     * @param name the attribute's name, e.g. "EgressBufferBytes"
     * @param value its value
     */
    void SetSwitchAttribute(std::string name, const AttributeValue& value);

    /** How the switches learn where the hosts are (see the class description). */
    enum StationLearning
    {
        LEARN_DIRECTORY,      //!< switches know every host from t = 0, no frames sent
        LEARN_GRATUITOUS_ARP, //!< every host broadcasts a gratuitous ARP at t = 0
        LEARN_TRAFFIC,        //!< switches learn from traffic only
    };
    /** Which permanent ARP entries Build adds. */
    enum ArpScope
    {
        ARP_FLOWS, //!< entries between the two ends of each flow of the spec
        ARP_ALL,   //!< every host knows every other host (N^2 entries)
    };
    /**
     * @param mode how the switches learn where the hosts are (default LEARN_DIRECTORY)
     */
    void SetStationLearning(StationLearning mode);
    /**
     * @param scope which permanent ARP entries Build adds (default ARP_FLOWS)
     */
    void SetArpScope(ArpScope scope);
    /**
     * Install IPv6 on the hosts too (InternetStackHelper's IPv6 stack; no addresses are
     * assigned: the LAN's subnet is IPv4's).
     * @param enabled IPv6 installed (default off)
     */
    void SetIpv6(bool enabled);

    /**
     * Build @p spec (validated first; an inconsistent spec throws LanSpecError): nodes
     * (named with Names), links, switches, the internet stack, addresses, ARP entries,
     * and with LEARN_GRATUITOUS_ARP one gratuitous ARP per host at t = 0. Call once.
     * @param spec the LAN
     */
    void Build(const LanSpec& spec);

    /** @return when the gratuitous ARPs have crossed the LAN and traffic may start: 1 ms +
     *          4 x the longest cable delay */
    Time StartTime() const;

    /**
     * Permanent ARP entries for each other on hosts @p a and @p b (after Build).
     * @param a a host's name
     * @param b another host's name
     */
    void AddArpEntry(const std::string& a, const std::string& b);
    /** @return permanent ARP entries added, summed over hosts */
    uint64_t GetArpEntries() const;
    /** @return where the switches find hosts (LEARN_DIRECTORY; also for users' own
     *          lookups) */
    Ptr<StationDirectory> GetDirectory() const;
    /**
     * @param sw a switch name of the spec
     * @param host a host name of the spec
     * @return the port of switch @p sw towards host @p host (StationDirectory::NO_PORT if
     *         unreachable)
     */
    uint32_t PortTowards(const std::string& sw, const std::string& host) const;

    /**
     * @param name a host name of the spec
     * @return the host's node (an unknown name throws std::out_of_range)
     */
    Ptr<Node> GetHost(const std::string& name) const;
    /**
     * @param name a host name of the spec
     * @return the host's Ethernet device (its only one)
     */
    Ptr<EthernetNetDevice> GetHostDevice(const std::string& name) const;
    /**
     * @param name a host name of the spec
     * @return the host's IPv4 address in 10.0.0.0/16
     */
    Ipv4Address GetHostAddress(const std::string& name) const;
    /** @return the host names, in the spec's order */
    const std::vector<std::string>& HostNames() const;
    /** @return every switch device, ordered by switch name */
    std::vector<Ptr<EthernetSwitchNetDevice>> GetSwitches() const;
    /**
     * @param name a switch name of the spec
     * @return the switch device on that node
     */
    Ptr<EthernetSwitchNetDevice> GetSwitch(const std::string& name) const;

    /** @return every Ethernet port with a readable name ("s1", "sw1->r1"), for reports */
    const std::vector<std::pair<std::string, Ptr<EthernetNetDevice>>>& NamedPorts() const;

    /** @return the link helper Build uses (to set further device or channel attributes,
     *          or to enable pcap on the devices) */
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
    bool m_ipv6;
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
