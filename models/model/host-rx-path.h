// SPDX-License-Identifier: GPL-2.0-only
/*
 * The receive path of a Linux host: its NIC and its kernel's receive path, wired between
 * the device's MAC and ns-3's IPv4.
 */
#ifndef LANLOSS_HOST_RX_PATH_H
#define LANLOSS_HOST_RX_PATH_H

#include "ethernet-rx-path.h"
#include "host-rx-kernel.h"
#include "host-rx-nic.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class EthernetNetDevice;
class HostCpu;
class HostSocket;

/**
 * @ingroup lanloss
 * A receiving host between its NIC's MAC and ns-3's IPv4: the NIC (HostRxNic: FIFO,
 * DMA, RX ring, interrupts, PAUSE) and the kernel's receive path (HostRxKernel: NAPI,
 * softirq, RPS and backlog, reassembly, UDP sockets), each with its own attributes and
 * trace sources, on the node's HostCpu:
 *
 *   MAC -> HostRxNic (FIFO -> DMA -> ring -> interrupt, hard IRQ)
 *       -> HostRxKernel (NAPI poll -> [RPS backlog] -> IP + UDP -> HostSocket)
 *       -> HostReader -> EthernetNetDevice::DeliverUp
 *
 * All CPU work runs on the node's HostCpu (aggregated to the node; created with one
 * core if there is none), so hard IRQ pre-empts softirq pre-empts the application, and
 * receive livelock emerges.
 *
 * Set the parts' attributes before Attach (EthernetNetDevice::SetRxPath), with the
 * HostCpu's Cores: GetNic()->SetAttribute, GetKernel()->SetAttribute, or
 * HostReceiverHelper::SetRxPathAttribute, which finds the part an attribute belongs to.
 *
 * Every frame handed to Receive ends in exactly one place: DeliverUp (directly or after
 * a read), or one of RxFifoDrop, RxRingDrop (the NIC's), BacklogDrop, ReassemblyDrop
 * (the kernel's), SocketDrop; or it is still inside the host (GetFramesInFlight). So for
 * tagged datagrams sent == received + drops once the host is drained.
 */
class HostRxPath : public EthernetRxPath
{
  public:
    /** Counters for the run record (all since the start): the NIC's and the kernel's. */
    struct Stats : HostRxNic::Stats, HostRxKernel::Stats
    {
    };

    static TypeId GetTypeId();

    HostRxPath();
    ~HostRxPath() override;

    /** Use @p cpu (otherwise the node's HostCpu, created if missing). Before Attach. */
    void SetCpu(Ptr<HostCpu> cpu);
    Ptr<HostCpu> GetCpu() const;
    /** Use @p nic, @p kernel (otherwise ones with default attributes). Before Attach. */
    void SetParts(Ptr<HostRxNic> nic, Ptr<HostRxKernel> kernel);
    Ptr<HostRxNic> GetNic() const;
    Ptr<HostRxKernel> GetKernel() const;

    /** HostRxKernel::AddSocket. */
    void AddSocket(Ptr<HostSocket> socket);
    /** HostRxKernel::GetSocket. */
    Ptr<HostSocket> GetSocket(uint16_t port) const;
    /** HostRxKernel::GetSockets. */
    std::vector<Ptr<HostSocket>> GetSockets(uint16_t port) const;

    // EthernetRxPath
    void Attach(Ptr<EthernetNetDevice> device) override;
    void Receive(Ptr<Packet> packet,
                 uint16_t protocol,
                 Mac48Address source,
                 Mac48Address destination,
                 NetDevice::PacketType type) override;

    Stats GetStats() const;
    /** Frames anywhere between the FIFO and a socket (FIFO, ring, poll, backlog, reassembly). */
    uint32_t GetFramesInFlight() const;
    /** Fragments waiting in IPv4 reassembly (part of GetFramesInFlight). */
    uint32_t GetFramesReassembling() const;

  protected:
    void NotifyConstructionCompleted() override;
    void DoDispose() override;

  private:
    Ptr<HostRxNic> m_nic;
    Ptr<HostRxKernel> m_kernel;
    Ptr<HostCpu> m_cpu;
    bool m_attached;
};

} // namespace ns3

#endif /* LANLOSS_HOST_RX_PATH_H */
