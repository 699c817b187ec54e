// SPDX-License-Identifier: GPL-2.0-only
#include "ethernet-rx-path.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(EthernetRxPath);

TypeId
EthernetRxPath::GetTypeId()
{
    static TypeId tid = TypeId("ns3::EthernetRxPath").SetParent<Object>().SetGroupName("Lanloss");
    return tid;
}

} // namespace ns3
