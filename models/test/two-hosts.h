// SPDX-License-Identifier: GPL-2.0-only
/*
 * The two-host fixture of the module's test suites: two hosts joined by one
 * EthernetChannel, IPv4 10.1.1.1 and 10.1.1.2, ARP caches pre-populated
 * (NeighborCacheHelper) as LanBuilder does, so the first datagrams are not held (ns-3's
 * ARP pending queue keeps only 3) and timing checks are exact from t = 0. The
 * applications' suites (lanloss-udp-source, lanloss-udp-sink, lanloss-tcp-source) use it
 * as it is; the receiving-host suites build their Bed (host-test-bed.h) on it.
 */
#ifndef LANLOSS_TWO_HOSTS_H
#define LANLOSS_TWO_HOSTS_H

#include "ns3/data-rate.h"
#include "ns3/drop-tail-queue.h"
#include "ns3/ethernet-channel.h"
#include "ns3/ethernet-net-device.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/mac48-address.h"
#include "ns3/neighbor-cache-helper.h"
#include "ns3/node-container.h"
#include "ns3/uinteger.h"

#include <cstdint>

namespace lanlosstest
{

using namespace ns3;

const uint16_t PORT = 5201; //!< the receiving application's port

/** Two hosts, one cable, IPv4 10.1.1.1 and 10.1.1.2, ARP filled in (unless asked not to). */
struct TwoHosts
{
    NodeContainer nodes;
    Ptr<EthernetNetDevice> dev[2];
    Ipv4Address addr[2];

    /**
     * @param rate both devices' link speed
     * @param mtu both devices' MTU
     * @param txQueueBytes a DropTailQueue of this many bytes on each device (0: the default)
     * @param populateArp fill the ARP caches (false: a live ARP exchange)
     */
    explicit TwoHosts(DataRate rate,
                      uint16_t mtu = 1500,
                      uint32_t txQueueBytes = 0,
                      bool populateArp = true)
    {
        nodes.Create(2);
        Ptr<EthernetChannel> channel = CreateObject<EthernetChannel>();
        NetDeviceContainer devices;
        for (int i = 0; i < 2; ++i)
        {
            dev[i] = CreateObject<EthernetNetDevice>();
            dev[i]->SetAttribute("DataRate", DataRateValue(rate));
            dev[i]->SetAttribute("Mtu", UintegerValue(mtu));
            dev[i]->SetAttribute("Address", Mac48AddressValue(Mac48Address::Allocate()));
            if (txQueueBytes > 0)
            {
                Ptr<DropTailQueue<Packet>> q = CreateObject<DropTailQueue<Packet>>();
                q->SetMaxSize(QueueSize(QueueSizeUnit::BYTES, txQueueBytes));
                dev[i]->SetQueue(q);
            }
            nodes.Get(i)->AddDevice(dev[i]);
            dev[i]->Attach(channel);
            devices.Add(dev[i]);
        }
        InternetStackHelper stack;
        stack.Install(nodes);
        Ipv4AddressHelper ip("10.1.1.0", "255.255.255.0");
        Ipv4InterfaceContainer ifs = ip.Assign(devices);
        addr[0] = ifs.GetAddress(0);
        addr[1] = ifs.GetAddress(1);
        if (populateArp)
        {
            NeighborCacheHelper().PopulateNeighborCache(channel);
        }
    }
};

} // namespace lanlosstest

#endif /* LANLOSS_TWO_HOSTS_H */
