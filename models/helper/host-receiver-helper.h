// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
 * Installs the receiving-host model (CPU, receive path, sockets, readers) on a host's NIC.
 */
#ifndef LANLOSS_HOST_RECEIVER_HELPER_H
#define LANLOSS_HOST_RECEIVER_HELPER_H

#include "loss-accountant.h"

#include "ns3/ethernet-net-device.h"
#include "ns3/host-cpu.h"
#include "ns3/host-reader.h"
#include "ns3/host-rx-path.h"
#include "ns3/host-socket.h"
#include "ns3/object-factory.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * @ingroup lanloss
 * Puts a HostCpu, a HostRxPath, HostSockets and HostReaders on a receiving
 * host, so that a UdpFlowSink on the same port receives each datagram when
 * the modelled application has read it:
 *
 *     HostReceiverHelper host;
 *     host.SetRxPathAttribute("InterruptThrottleRate", UintegerValue(0));
 *     host.SetSocketAttribute("RcvBuf", UintegerValue(212992));
 *     HostReceiverHelper::Host h = host.Install(lan.GetHostDevice("r1"), {5201}, 1);
 *     HostReceiverHelper::ConnectAccountant(h, accountant);
 *
 * The HostCpu is aggregated to the node (one per node; Install on a second
 * device of the same node reuses it). Readers are placed on cores: with one
 * core all on core 0 (with the NIC interrupt); otherwise reader i on core
 * 1 + i mod (Cores - 1), away from the interrupt core (as the netns testbed
 * pins its receivers), or, with SetReadersOnEveryCore, on core i mod Cores:
 * the first reader on the interrupt's core, where the softirq that wakes it
 * runs (the scheduler's wake-affine placement of a waker and its wakee), the
 * others spread over every core. A reader's "Core" attribute set with
 * SetReaderAttribute overrides both.
 *
 * The readers of a port share one socket (threads reading one descriptor), or,
 * with SetReusePort, each has a socket of its own in a SO_REUSEPORT group
 * (processes on one port).
 */
class HostReceiverHelper
{
  public:
    /** What Install created on one host. */
    struct Host
    {
        Ptr<HostCpu> cpu;                     //!< the node's CPU (new or reused)
        Ptr<HostRxPath> path;                 //!< the receive path put on the device
        std::vector<Ptr<HostSocket>> sockets; //!< every socket, port by port
        std::vector<Ptr<HostReader>> readers; //!< every reader, port by port
        uint32_t cpuGroup = HostCpu::NONE; //!< the readers' bandwidth group, if capped
    };

    /** Default attributes everywhere, no CPU cap, one socket per port, readers off the
     *  interrupt's core. */
    HostReceiverHelper();

    /**
     * Set an attribute of the HostCpu created for a node that has none (e.g. "Cores").
     * @param name the attribute's name
     * @param value its value
     */
    void SetCpuAttribute(const std::string& name, const AttributeValue& value);
    /**
     * An attribute of the receive path's NIC (HostRxNic) or kernel (HostRxKernel), the
     * one whose TypeId has @p name; a name neither has aborts.
     * @param name the attribute's name
     * @param value its value
     */
    void SetRxPathAttribute(const std::string& name, const AttributeValue& value);
    /**
     * Set an attribute of the receive path's NIC (HostRxNic).
     * @param name the attribute's name
     * @param value its value
     */
    void SetNicAttribute(const std::string& name, const AttributeValue& value);
    /**
     * Set an attribute of the receive path's kernel (HostRxKernel).
     * @param name the attribute's name
     * @param value its value
     */
    void SetKernelAttribute(const std::string& name, const AttributeValue& value);
    /**
     * Set an attribute of every HostSocket (e.g. "RcvBuf"); not "Port", which Install
     * sets from its ports (aborts).
     * @param name the attribute's name
     * @param value its value
     */
    void SetSocketAttribute(const std::string& name, const AttributeValue& value);
    /**
     * Set an attribute of every HostReader; setting "Core" overrides the placement
     * described above for all readers.
     * @param name the attribute's name
     * @param value its value
     */
    void SetReaderAttribute(const std::string& name, const AttributeValue& value);
    /**
     * Cap the readers of each host at @p share (0..1] of one CPU, as a cgroup CFS
     * quota: one bandwidth group per host, quota share x @p period per @p period
     * (option recv_cpu; the testbed's period is 100 ms). 0 = no cap.
     * @param share the share of one CPU, in (0, 1]; 0 = no cap
     * @param period the CFS period
     */
    void SetReaderCpuQuota(double share, Time period);
    /**
     * @param on each reader reads a socket of its own, the port's sockets a SO_REUSEPORT
     *        group (off: the port's readers share one socket)
     */
    void SetReusePort(bool on);
    /**
     * @param on place reader i on core i mod Cores, the first with the interrupt (off: on
     *        cores 1 .. Cores - 1 only)
     */
    void SetReadersOnEveryCore(bool on);

    /**
     * Install the model on @p device: for each port in @p ports, @p readersPerPort
     * HostReaders, on one HostSocket or (SetReusePort) on one each.
     * @param device the receiving host's NIC
     * @param ports the UDP ports read
     * @param readersPerPort readers of each port
     * @return what was installed
     */
    Host Install(Ptr<EthernetNetDevice> device,
                 const std::vector<uint16_t>& ports,
                 uint32_t readersPerPort) const;

    /**
     * Record the host's drops in @p accountant: the NIC's RxFifoDrop -> rx_fifo,
     * RxRingDrop -> rx_ring, the kernel's BacklogDrop -> backlog, ReassemblyDrop ->
     * reassembly, every socket's SocketDrop -> socket_rcvbuf.
     * @param host what Install created
     * @param accountant where the drops are recorded
     */
    static void ConnectAccountant(const Host& host, Ptr<LossAccountant> accountant);

  private:
    ObjectFactory m_cpu;
    ObjectFactory m_nic;
    ObjectFactory m_kernel;
    ObjectFactory m_socket;
    ObjectFactory m_reader;
    bool m_readerCoreSet;
    double m_quotaShare;
    Time m_quotaPeriod;
    bool m_reusePort;
    bool m_everyCore;
};

} // namespace ns3

#endif /* LANLOSS_HOST_RECEIVER_HELPER_H */
