// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
 * Builds full-duplex Ethernet links (two EthernetNetDevices on one EthernetChannel).
 */
#ifndef LANLOSS_ETHERNET_HELPER_H
#define LANLOSS_ETHERNET_HELPER_H

#include "ns3/ethernet-net-device.h"
#include "ns3/net-device-container.h"
#include "ns3/node.h"
#include "ns3/object-factory.h"
#include "ns3/trace-helper.h"

#include <string>

namespace ns3
{

/**
 * @ingroup lanloss
 * Installs a full-duplex Ethernet link between two nodes. Both ends get the
 * same data rate (SetDeviceAttribute("DataRate", ...)); the cable's delay is a
 * channel attribute; the transmit queue limit is in bytes.
 * Pcap files use the Ethernet link type (DLT_EN10MB), so Wireshark decodes
 * every frame, MAC Control PAUSE included.
 */
class EthernetHelper : public PcapHelperForDevice
{
  public:
    /** EthernetNetDevices on EthernetChannels, transmit queues of 1 MiB. */
    EthernetHelper();

    /**
     * Set an attribute of the devices Install creates from now on (EthernetNetDevice).
     * @param name the attribute's name, e.g. "DataRate"
     * @param value its value
     */
    void SetDeviceAttribute(std::string name, const AttributeValue& value);
    /**
     * Set an attribute of the channels Install creates from now on (EthernetChannel).
     * @param name the attribute's name, e.g. "Delay"
     * @param value its value
     */
    void SetChannelAttribute(std::string name, const AttributeValue& value);
    /**
     * Transmit queue limit of new devices (a DropTailQueue limited in bytes of frames
     * without FCS, padding included); default 1 MiB.
     * @param bytes the limit in bytes
     */
    void SetQueueBytes(uint32_t bytes);

    /**
     * A link between @p a and @p b: a new channel and a device on each node, each with a
     * fresh MAC address and its own transmit queue.
     * @param a one node
     * @param b the other node
     * @return {device on a, device on b}
     */
    NetDeviceContainer Install(Ptr<Node> a, Ptr<Node> b);

  private:
    Ptr<EthernetNetDevice> MakeDevice(Ptr<Node> node);
    void EnablePcapInternal(std::string prefix,
                            Ptr<NetDevice> nd,
                            bool promiscuous,
                            bool explicitFilename) override;

    ObjectFactory m_deviceFactory;
    ObjectFactory m_channelFactory;
    uint32_t m_queueBytes;
};

} // namespace ns3

#endif /* LANLOSS_ETHERNET_HELPER_H */
