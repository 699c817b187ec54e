// SPDX-License-Identifier: GPL-2.0-only
#include "ethernet-switch-helper.h"

#include "ns3/ethernet-net-device.h"

namespace ns3
{

EthernetSwitchHelper::EthernetSwitchHelper()
{
    m_factory.SetTypeId("ns3::EthernetSwitchNetDevice");
}

void
EthernetSwitchHelper::SetAttribute(std::string name, const AttributeValue& value)
{
    m_factory.Set(name, value);
}

Ptr<EthernetSwitchNetDevice>
EthernetSwitchHelper::Install(Ptr<Node> node, NetDeviceContainer ports)
{
    Ptr<EthernetSwitchNetDevice> sw = m_factory.Create<EthernetSwitchNetDevice>();
    sw->SetAddress(Mac48Address::Allocate());
    node->AddDevice(sw);
    for (uint32_t i = 0; i < ports.GetN(); ++i)
    {
        Ptr<EthernetNetDevice> port = DynamicCast<EthernetNetDevice>(ports.Get(i));
        NS_ABORT_MSG_UNLESS(port, "switch ports must be EthernetNetDevices");
        sw->AddPort(port);
    }
    return sw;
}

} // namespace ns3
