// SPDX-License-Identifier: GPL-2.0-only
/*
 * HostRxPath: wires a HostRxNic and a HostRxKernel to a device and the host's CPU, and
 * sums their counters.
 */
#include "host-rx-path.h"

#include "ethernet-net-device.h"
#include "host-cpu.h"
#include "host-socket.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/pointer.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HostRxPath");
NS_OBJECT_ENSURE_REGISTERED(HostRxPath);

TypeId
HostRxPath::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::HostRxPath")
            .SetParent<EthernetRxPath>()
            .SetGroupName("Lanloss")
            .AddConstructor<HostRxPath>()
            .AddAttribute("Nic",
                          "The NIC: FIFO, DMA, RX ring, interrupts, PAUSE (HostRxNic).",
                          PointerValue(),
                          MakePointerAccessor(&HostRxPath::m_nic),
                          MakePointerChecker<HostRxNic>())
            .AddAttribute("Kernel",
                          "The kernel's receive path: NAPI, softirq, RPS and backlog, "
                          "reassembly, UDP sockets (HostRxKernel).",
                          PointerValue(),
                          MakePointerAccessor(&HostRxPath::m_kernel),
                          MakePointerChecker<HostRxKernel>());
    return tid;
}

HostRxPath::HostRxPath()
    : m_attached(false)
{
    NS_LOG_FUNCTION(this);
}

void
HostRxPath::NotifyConstructionCompleted()
{
    // after the attributes are set: parts not given as Nic / Kernel have the defaults
    if (!m_nic)
    {
        m_nic = CreateObject<HostRxNic>();
    }
    if (!m_kernel)
    {
        m_kernel = CreateObject<HostRxKernel>();
    }
    EthernetRxPath::NotifyConstructionCompleted();
}

HostRxPath::~HostRxPath() = default;

void
HostRxPath::DoDispose()
{
    m_nic->Dispose();
    m_kernel->Dispose();
    m_nic = nullptr;
    m_kernel = nullptr;
    m_cpu = nullptr;
    EthernetRxPath::DoDispose();
}

void
HostRxPath::SetCpu(Ptr<HostCpu> cpu)
{
    NS_ABORT_MSG_IF(m_attached, "HostRxPath: SetCpu after Attach");
    m_cpu = cpu;
}

Ptr<HostCpu>
HostRxPath::GetCpu() const
{
    return m_cpu;
}

void
HostRxPath::SetParts(Ptr<HostRxNic> nic, Ptr<HostRxKernel> kernel)
{
    NS_ABORT_MSG_IF(m_attached, "HostRxPath: SetParts after Attach");
    NS_ABORT_MSG_UNLESS(nic && kernel, "HostRxPath: SetParts needs a NIC and a kernel");
    m_nic = nic;
    m_kernel = kernel;
}

Ptr<HostRxNic>
HostRxPath::GetNic() const
{
    return m_nic;
}

Ptr<HostRxKernel>
HostRxPath::GetKernel() const
{
    return m_kernel;
}

void
HostRxPath::AddSocket(Ptr<HostSocket> socket)
{
    m_kernel->AddSocket(socket);
}

Ptr<HostSocket>
HostRxPath::GetSocket(uint16_t port) const
{
    return m_kernel->GetSocket(port);
}

std::vector<Ptr<HostSocket>>
HostRxPath::GetSockets(uint16_t port) const
{
    return m_kernel->GetSockets(port);
}

void
HostRxPath::Attach(Ptr<EthernetNetDevice> device)
{
    NS_LOG_FUNCTION(this << device);
    NS_ABORT_MSG_IF(m_attached, "HostRxPath: attached twice");
    if (!m_cpu)
    {
        Ptr<Node> node = device->GetNode();
        m_cpu = node ? node->GetObject<HostCpu>() : nullptr;
        if (!m_cpu)
        {
            m_cpu = CreateObject<HostCpu>();
            if (node)
            {
                node->AggregateObject(m_cpu);
            }
        }
    }
    m_attached = true;
    m_nic->Attach(device,
                  m_cpu,
                  MakeCallback(&HostRxKernel::ScheduleNicPoll, PeekPointer(m_kernel)));
    m_kernel->Attach(device, m_cpu, m_nic);
}

void
HostRxPath::Receive(Ptr<Packet> packet,
                    uint16_t protocol,
                    Mac48Address source,
                    Mac48Address destination,
                    NetDevice::PacketType type)
{
    NS_ASSERT_MSG(m_attached, "HostRxPath: Receive before Attach");
    m_nic->Receive(packet, protocol, source, destination, type);
}

HostRxPath::Stats
HostRxPath::GetStats() const
{
    Stats s;
    static_cast<HostRxNic::Stats&>(s) = m_nic->GetStats();
    static_cast<HostRxKernel::Stats&>(s) = m_kernel->GetStats();
    return s;
}

uint32_t
HostRxPath::GetFramesInFlight() const
{
    return m_nic->GetFramesHeld() + m_kernel->GetFramesInFlight();
}

uint32_t
HostRxPath::GetFramesReassembling() const
{
    return m_kernel->GetFramesReassembling();
}

} // namespace ns3
