// SPDX-License-Identifier: GPL-2.0-only
#include "host-receiver-helper.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/node.h"
#include "ns3/uinteger.h"

namespace ns3
{

HostReceiverHelper::HostReceiverHelper()
    : m_readerCoreSet(false),
      m_quotaShare(0),
      m_reusePort(false),
      m_everyCore(false)
{
    m_cpu.SetTypeId(HostCpu::GetTypeId());
    m_nic.SetTypeId(HostRxNic::GetTypeId());
    m_kernel.SetTypeId(HostRxKernel::GetTypeId());
    m_socket.SetTypeId(HostSocket::GetTypeId());
    m_reader.SetTypeId(HostReader::GetTypeId());
}

void
HostReceiverHelper::SetCpuAttribute(const std::string& name, const AttributeValue& value)
{
    m_cpu.Set(name, value);
}

void
HostReceiverHelper::SetRxPathAttribute(const std::string& name, const AttributeValue& value)
{
    TypeId::AttributeInformation info;
    if (HostRxNic::GetTypeId().LookupAttributeByName(name, &info))
    {
        m_nic.Set(name, value);
        return;
    }
    NS_ABORT_MSG_UNLESS(HostRxKernel::GetTypeId().LookupAttributeByName(name, &info),
                        "HostReceiverHelper: no attribute " << name
                                                            << " on HostRxNic or HostRxKernel");
    m_kernel.Set(name, value);
}

void
HostReceiverHelper::SetNicAttribute(const std::string& name, const AttributeValue& value)
{
    m_nic.Set(name, value);
}

void
HostReceiverHelper::SetKernelAttribute(const std::string& name, const AttributeValue& value)
{
    m_kernel.Set(name, value);
}

void
HostReceiverHelper::SetSocketAttribute(const std::string& name, const AttributeValue& value)
{
    NS_ABORT_MSG_IF(name == "Port", "HostReceiverHelper: ports are given to Install");
    m_socket.Set(name, value);
}

void
HostReceiverHelper::SetReaderAttribute(const std::string& name, const AttributeValue& value)
{
    m_readerCoreSet = m_readerCoreSet || name == "Core";
    m_reader.Set(name, value);
}

void
HostReceiverHelper::SetReusePort(bool on)
{
    m_reusePort = on;
}

void
HostReceiverHelper::SetReadersOnEveryCore(bool on)
{
    m_everyCore = on;
}

void
HostReceiverHelper::SetReaderCpuQuota(double share, Time period)
{
    NS_ABORT_MSG_UNLESS(share >= 0 && share <= 1, "HostReceiverHelper: CPU share " << share);
    NS_ABORT_MSG_UNLESS(share == 0 || period.IsStrictlyPositive(),
                        "HostReceiverHelper: a CPU quota needs a positive period");
    m_quotaShare = share;
    m_quotaPeriod = period;
}

HostReceiverHelper::Host
HostReceiverHelper::Install(Ptr<EthernetNetDevice> device,
                            const std::vector<uint16_t>& ports,
                            uint32_t readersPerPort) const
{
    Ptr<Node> node = device->GetNode();
    NS_ABORT_MSG_UNLESS(node, "HostReceiverHelper: the device must be on a node");
    NS_ABORT_MSG_IF(device->GetRxPath(), "HostReceiverHelper: the device has a receive path");
    Host h;
    h.cpu = node->GetObject<HostCpu>();
    if (!h.cpu)
    {
        h.cpu = m_cpu.Create<HostCpu>();
        node->AggregateObject(h.cpu);
    }
    h.path = CreateObject<HostRxPath>();
    h.path->SetParts(m_nic.Create<HostRxNic>(), m_kernel.Create<HostRxKernel>());
    h.path->SetCpu(h.cpu);
    device->SetRxPath(h.path);
    const uint32_t cores = h.cpu->GetNCores();
    // The testbed puts the receiving process (all its readers) in one cgroup.
    const uint32_t group = h.cpuGroup = m_quotaShare > 0
                               ? h.cpu->CreateBandwidthGroup(m_quotaPeriod * m_quotaShare,
                                                             m_quotaPeriod)
                               : HostCpu::NONE;
    uint32_t index = 0;
    for (uint16_t port : ports)
    {
        Ptr<HostSocket> socket;
        for (uint32_t i = 0; i < readersPerPort; ++i, ++index)
        {
            if (!socket || m_reusePort)
            {
                socket = m_socket.Create<HostSocket>();
                socket->SetAttribute("Port", UintegerValue(port));
                socket->SetAttribute("ReusePort", BooleanValue(m_reusePort));
                h.path->AddSocket(socket);
                h.sockets.push_back(socket);
            }
            Ptr<HostReader> reader = m_reader.Create<HostReader>();
            if (!m_readerCoreSet)
            {
                const uint32_t core = cores == 1 ? 0
                                      : m_everyCore ? index % cores
                                                    : 1 + index % (cores - 1);
                reader->SetAttribute("Core", UintegerValue(core));
            }
            if (group != HostCpu::NONE)
            {
                reader->SetCpuGroup(group);
            }
            socket->AddReader(reader);
            h.readers.push_back(reader);
        }
    }
    return h;
}

namespace
{

void
RecordDrop(LossAccountant* accountant, LossAccountant::Point point, Ptr<const Packet> packet)
{
    accountant->Record(point, packet);
}

} // namespace

void
HostReceiverHelper::ConnectAccountant(const Host& host, Ptr<LossAccountant> accountant)
{
    // Raw pointer, as LossAccountant::Watch* do: the accountant outlives the run.
    LossAccountant* acc = PeekPointer(accountant);
    const Ptr<HostRxNic> nic = host.path->GetNic();
    const Ptr<HostRxKernel> kernel = host.path->GetKernel();
    nic->TraceConnectWithoutContext("RxFifoDrop",
                                    MakeBoundCallback(&RecordDrop, acc, LossAccountant::RX_FIFO));
    nic->TraceConnectWithoutContext("RxRingDrop",
                                    MakeBoundCallback(&RecordDrop, acc, LossAccountant::RX_RING));
    kernel->TraceConnectWithoutContext(
        "BacklogDrop",
        MakeBoundCallback(&RecordDrop, acc, LossAccountant::BACKLOG));
    kernel->TraceConnectWithoutContext(
        "ReassemblyDrop",
        MakeBoundCallback(&RecordDrop, acc, LossAccountant::REASSEMBLY));
    for (const Ptr<HostSocket>& socket : host.sockets)
    {
        socket->TraceConnectWithoutContext(
            "SocketDrop",
            MakeBoundCallback(&RecordDrop, acc, LossAccountant::SOCKET_RCVBUF));
    }
}

} // namespace ns3
