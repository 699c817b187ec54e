// SPDX-License-Identifier: GPL-2.0-only
#include "lan-builder.h"

#include "ns3/arp-cache.h"
#include "ns3/arp-header.h"
#include "ns3/arp-l3-protocol.h"
#include "ns3/boolean.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/ipv4-interface.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/log.h"
#include "ns3/names.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("LanBuilder");

LanBuilder::LanBuilder()
    : m_mtu(1500),
      m_pause(false),
      m_maxDelay(Seconds(0)),
      m_learning(LEARN_DIRECTORY),
      m_arpScope(ARP_FLOWS),
      m_ipv6(false),
      m_arpEntries(0),
      m_directory(Create<StationDirectory>())
{
}

void
LanBuilder::SetStationLearning(StationLearning mode)
{
    m_learning = mode;
}

void
LanBuilder::SetArpScope(ArpScope scope)
{
    m_arpScope = scope;
}

void
LanBuilder::SetIpv6(bool enabled)
{
    m_ipv6 = enabled;
}

static uint32_t
LocateStation(Ptr<StationDirectory> directory, uint32_t sw, Mac48Address mac)
{
    return directory->PortTowards(sw, mac);
}

void
LanBuilder::SetMtu(uint16_t mtu)
{
    m_mtu = mtu;
}

void
LanBuilder::SetHostQueueBytes(uint32_t bytes)
{
    m_links.SetQueueBytes(bytes);
}

void
LanBuilder::SetPause(bool enabled)
{
    m_pause = enabled;
    m_switchHelper.SetAttribute("PauseEnabled", BooleanValue(enabled));
}

void
LanBuilder::SetSwitchAttribute(std::string name, const AttributeValue& value)
{
    m_switchHelper.SetAttribute(name, value);
}

EthernetHelper&
LanBuilder::Links()
{
    return m_links;
}

void
LanBuilder::Build(const LanSpec& spec)
{
    spec.Validate();
    NodeContainer hosts = CreateNodes(spec);
    SwitchPorts switchPorts;
    for (const auto& l : spec.links)
    {
        InstallLink(l, switchPorts);
    }
    m_directory->Finish();
    InstallSwitches(spec, switchPorts);
    AddressHosts(spec, hosts);
    if (m_learning == LEARN_GRATUITOUS_ARP)
    {
        for (const auto& name : m_hostNames)
        {
            Simulator::ScheduleWithContext(m_nodes[name]->GetId(),
                                           Seconds(0),
                                           &LanBuilder::SendGratuitousArp,
                                           this,
                                           name);
        }
    }
}

NodeContainer
LanBuilder::CreateNodes(const LanSpec& spec)
{
    for (const auto& s : spec.switches)
    {
        Ptr<Node> node = CreateObject<Node>();
        Names::Add(s, node);
        m_nodes[s] = node;
        m_switchIndex[s] = m_directory->AddSwitch();
    }
    NodeContainer hosts;
    for (const auto& h : spec.hosts)
    {
        Ptr<Node> node = CreateObject<Node>();
        Names::Add(h.name, node);
        m_nodes[h.name] = node;
        m_hostNames.push_back(h.name);
        hosts.Add(node);
    }
    return hosts;
}

void
LanBuilder::InstallLink(const LanSpec::Link& l, SwitchPorts& switchPorts)
{
    m_links.SetDeviceAttribute("DataRate", DataRateValue(l.rate));
    m_links.SetDeviceAttribute("Mtu", UintegerValue(m_mtu));
    m_links.SetDeviceAttribute("FlowControl", BooleanValue(m_pause));
    m_links.SetChannelAttribute("Delay", TimeValue(l.delay));
    m_maxDelay = std::max(m_maxDelay, l.delay);
    NetDeviceContainer pair = m_links.Install(m_nodes[l.a], m_nodes[l.b]);
    const std::string ends[2] = {l.a, l.b};
    uint32_t portOf[2] = {StationDirectory::NO_PORT, StationDirectory::NO_PORT};
    for (int i = 0; i < 2; ++i)
    {
        auto dev = DynamicCast<EthernetNetDevice>(pair.Get(i));
        const std::string& self = ends[i];
        const std::string& peer = ends[1 - i];
        if (m_switchIndex.count(self))
        {
            portOf[i] = switchPorts[self].GetN(); // the index AddPort will give it
            switchPorts[self].Add(dev);
            m_ports.emplace_back(self + "->" + peer, dev);
        }
        else
        {
            m_hostDevice[self] = dev;
            m_ports.emplace_back(self, dev);
        }
    }
    for (int i = 0; i < 2; ++i)
    {
        if (portOf[i] == StationDirectory::NO_PORT)
        {
            continue;
        }
        const uint32_t sw = m_switchIndex[ends[i]];
        if (portOf[1 - i] == StationDirectory::NO_PORT)
        {
            m_directory->AddHost(Mac48Address::ConvertFrom(pair.Get(1 - i)->GetAddress()),
                                 sw,
                                 portOf[i]);
        }
        else if (i == 0)
        {
            m_directory->AddTrunk(sw, portOf[0], m_switchIndex[ends[1]], portOf[1]);
        }
    }
}

void
LanBuilder::InstallSwitches(const LanSpec& spec, SwitchPorts& switchPorts)
{
    for (const auto& s : spec.switches)
    {
        m_switches[s] = m_switchHelper.Install(m_nodes[s], switchPorts[s]);
        if (m_learning == LEARN_DIRECTORY)
        {
            m_switches[s]->SetStationLocator(
                MakeBoundCallback(&LocateStation, m_directory, m_switchIndex[s]));
        }
    }
}

void
LanBuilder::AddressHosts(const LanSpec& spec, NodeContainer& hosts)
{
    InternetStackHelper stack;
    stack.SetIpv6StackInstall(m_ipv6);
    stack.Install(hosts);
    Ipv4AddressHelper addresses("10.0.0.0", "255.255.0.0");
    for (const auto& name : m_hostNames)
    {
        NetDeviceContainer one(m_hostDevice[name]);
        Ipv4InterfaceContainer ifc = addresses.Assign(one);
        m_hostAddress[name] = ifc.GetAddress(0);
    }
    if (m_arpScope == ARP_ALL)
    {
        for (const auto& self : m_hostNames)
        {
            for (const auto& peer : m_hostNames)
            {
                if (peer != self)
                {
                    AddArpOneWay(self, peer);
                }
            }
        }
        return;
    }
    for (const auto& f : spec.flows)
    {
        AddArpEntry(f.from, f.to);
    }
}

void
LanBuilder::AddArpEntry(const std::string& a, const std::string& b)
{
    AddArpOneWay(a, b);
    AddArpOneWay(b, a);
}

void
LanBuilder::AddArpOneWay(const std::string& self, const std::string& peer)
{
    NS_ABORT_MSG_UNLESS(m_hostDevice.count(self) && m_hostDevice.count(peer),
                        "ARP entry between unknown hosts " << self << " and " << peer);
    Ptr<Ipv4L3Protocol> ip = m_nodes[self]->GetObject<Ipv4L3Protocol>();
    int32_t ifIndex = ip->GetInterfaceForDevice(m_hostDevice[self]);
    Ptr<ArpCache> cache = ip->GetInterface(ifIndex)->GetArpCache();
    const Ipv4Address address = m_hostAddress[peer];
    if (cache->Lookup(address))
    {
        return; // a second flow between the same hosts
    }
    ArpCache::Entry* entry = cache->Add(address);
    entry->SetMacAddress(m_hostDevice[peer]->GetAddress());
    entry->MarkPermanent();
    ++m_arpEntries;
}

uint64_t
LanBuilder::GetArpEntries() const
{
    return m_arpEntries;
}

Ptr<StationDirectory>
LanBuilder::GetDirectory() const
{
    return m_directory;
}

uint32_t
LanBuilder::PortTowards(const std::string& sw, const std::string& host) const
{
    return m_directory->PortTowards(m_switchIndex.at(sw),
                                    Mac48Address::ConvertFrom(m_hostDevice.at(host)->GetAddress()));
}

void
LanBuilder::SendGratuitousArp(const std::string& host)
{
    Ptr<EthernetNetDevice> dev = m_hostDevice[host];
    ArpHeader arp;
    arp.SetRequest(dev->GetAddress(),
                   m_hostAddress[host],
                   dev->GetBroadcast(),
                   m_hostAddress[host]);
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(arp);
    dev->Send(p, dev->GetBroadcast(), ArpL3Protocol::PROT_NUMBER);
}

Time
LanBuilder::StartTime() const
{
    // a broadcast crosses at most a few hops; 1 ms plus the longest cable is ample
    return MilliSeconds(1) + 4 * m_maxDelay;
}

Ptr<Node>
LanBuilder::GetHost(const std::string& name) const
{
    return m_nodes.at(name);
}

Ptr<EthernetNetDevice>
LanBuilder::GetHostDevice(const std::string& name) const
{
    return m_hostDevice.at(name);
}

Ipv4Address
LanBuilder::GetHostAddress(const std::string& name) const
{
    return m_hostAddress.at(name);
}

const std::vector<std::string>&
LanBuilder::HostNames() const
{
    return m_hostNames;
}

std::vector<Ptr<EthernetSwitchNetDevice>>
LanBuilder::GetSwitches() const
{
    std::vector<Ptr<EthernetSwitchNetDevice>> v;
    for (const auto& [name, sw] : m_switches)
    {
        v.push_back(sw);
    }
    return v;
}

Ptr<EthernetSwitchNetDevice>
LanBuilder::GetSwitch(const std::string& name) const
{
    return m_switches.at(name);
}

const std::vector<std::pair<std::string, Ptr<EthernetNetDevice>>>&
LanBuilder::NamedPorts() const
{
    return m_ports;
}

} // namespace ns3
