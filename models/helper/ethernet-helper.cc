// SPDX-License-Identifier: GPL-2.0-only
#include "ethernet-helper.h"

#include "ns3/drop-tail-queue.h"
#include "ns3/ethernet-channel.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EthernetHelper");

EthernetHelper::EthernetHelper()
    : m_queueBytes(1024 * 1024)
{
    m_deviceFactory.SetTypeId("ns3::EthernetNetDevice");
    m_channelFactory.SetTypeId("ns3::EthernetChannel");
}

void
EthernetHelper::SetDeviceAttribute(std::string name, const AttributeValue& value)
{
    m_deviceFactory.Set(name, value);
}

void
EthernetHelper::SetChannelAttribute(std::string name, const AttributeValue& value)
{
    m_channelFactory.Set(name, value);
}

void
EthernetHelper::SetQueueBytes(uint32_t bytes)
{
    m_queueBytes = bytes;
}

Ptr<EthernetNetDevice>
EthernetHelper::MakeDevice(Ptr<Node> node)
{
    Ptr<EthernetNetDevice> dev = m_deviceFactory.Create<EthernetNetDevice>();
    dev->SetAddress(Mac48Address::Allocate());
    Ptr<Queue<Packet>> queue = CreateObject<DropTailQueue<Packet>>();
    queue->SetMaxSize(QueueSize(QueueSizeUnit::BYTES, m_queueBytes));
    dev->SetQueue(queue);
    node->AddDevice(dev);
    return dev;
}

NetDeviceContainer
EthernetHelper::Install(Ptr<Node> a, Ptr<Node> b)
{
    Ptr<EthernetChannel> channel = m_channelFactory.Create<EthernetChannel>();
    Ptr<EthernetNetDevice> da = MakeDevice(a);
    Ptr<EthernetNetDevice> db = MakeDevice(b);
    da->Attach(channel);
    db->Attach(channel);
    NetDeviceContainer devices;
    devices.Add(da);
    devices.Add(db);
    return devices;
}

void
EthernetHelper::EnablePcapInternal(std::string prefix,
                                   Ptr<NetDevice> nd,
                                   bool promiscuous,
                                   bool explicitFilename)
{
    Ptr<EthernetNetDevice> device = nd->GetObject<EthernetNetDevice>();
    if (!device)
    {
        NS_LOG_INFO("EthernetHelper::EnablePcapInternal: not an EthernetNetDevice");
        return;
    }
    PcapHelper pcapHelper;
    std::string filename =
        explicitFilename ? prefix : pcapHelper.GetFilenameFromDevice(prefix, device);
    Ptr<PcapFileWrapper> file =
        pcapHelper.CreateFile(filename, std::ios::out, PcapHelper::DLT_EN10MB);
    // Every frame in and out, MAC Control included: the device has one sniffer.
    pcapHelper.HookDefaultSink<EthernetNetDevice>(device, "PromiscSniffer", file);
}

} // namespace ns3
