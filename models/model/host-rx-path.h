// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
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

    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    /** A path not yet attached; its NIC and kernel exist once it is constructed. */
    HostRxPath();
    ~HostRxPath() override;

    /**
     * Use @p cpu (otherwise the node's HostCpu, created if missing). Before Attach.
     * @param cpu the host's CPU
     */
    void SetCpu(Ptr<HostCpu> cpu);
    /** @return the host's CPU (null before Attach unless SetCpu) */
    Ptr<HostCpu> GetCpu() const;
    /**
     * Use @p nic, @p kernel (otherwise ones with default attributes). Before Attach.
     * @param nic the NIC part
     * @param kernel the kernel part
     */
    void SetParts(Ptr<HostRxNic> nic, Ptr<HostRxKernel> kernel);
    /** @return the NIC part */
    Ptr<HostRxNic> GetNic() const;
    /** @return the kernel part */
    Ptr<HostRxKernel> GetKernel() const;

    /**
     * HostRxKernel::AddSocket.
     * @param socket the socket, its Port set
     */
    void AddSocket(Ptr<HostSocket> socket);
    /**
     * HostRxKernel::GetSocket.
     * @param port a UDP port
     * @return the (first) socket bound to @p port, or null
     */
    Ptr<HostSocket> GetSocket(uint16_t port) const;
    /**
     * HostRxKernel::GetSockets.
     * @param port a UDP port
     * @return every socket bound to @p port, in the order added
     */
    std::vector<Ptr<HostSocket>> GetSockets(uint16_t port) const;

    // EthernetRxPath
    /**
     * Start the host: the CPU (SetCpu, or the node's, created with one core if missing),
     * the NIC and the kernel attached to @p device.
     * @param device the host's NIC device
     */
    void Attach(Ptr<EthernetNetDevice> device) override;
    /**
     * A data frame for this host: to the NIC (HostRxNic::Receive).
     * @param packet the MAC payload (MAC header removed, padding kept)
     * @param protocol the EtherType
     * @param source the frame's source MAC address
     * @param destination the frame's destination MAC address
     * @param type host, broadcast or multicast
     */
    void Receive(Ptr<Packet> packet,
                 uint16_t protocol,
                 Mac48Address source,
                 Mac48Address destination,
                 NetDevice::PacketType type) override;

    /** @return the NIC's and the kernel's counters since the start */
    Stats GetStats() const;
    /** @return frames anywhere between the FIFO and a socket (FIFO, ring, poll, backlog,
     *          reassembly) */
    uint32_t GetFramesInFlight() const;
    /** @return fragments waiting in IPv4 reassembly (part of GetFramesInFlight) */
    uint32_t GetFramesReassembling() const;

  protected:
    /** Give the path a NIC and a kernel with default attributes where the attributes Nic
     *  and Kernel named none (SetParts may still replace them). */
    void NotifyConstructionCompleted() override;
    /** Dispose of the NIC and the kernel; release the CPU. */
    void DoDispose() override;

  private:
    Ptr<HostRxNic> m_nic;
    Ptr<HostRxKernel> m_kernel;
    Ptr<HostCpu> m_cpu;
    bool m_attached;
};

} // namespace ns3

#endif /* LANLOSS_HOST_RX_PATH_H */
