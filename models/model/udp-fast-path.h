// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
 * The UDP fast path: single-frame datagrams between lanloss's applications and its devices,
 * around ns-3's socket, UDP, IPv4, traffic-control and ARP objects, with the same record.
 */
#ifndef LANLOSS_UDP_FAST_PATH_H
#define LANLOSS_UDP_FAST_PATH_H

#include "ns3/address.h"
#include "ns3/callback.h"
#include "ns3/ipv4-address.h"
#include "ns3/mac48-address.h"
#include "ns3/object.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace ns3
{

class EthernetNetDevice;
class Node;
class Packet;
class Socket;

/**
 * @ingroup lanloss
 * A node's short cut for single-frame UDP datagrams between lanloss's applications and
 * its Mac48NetDevices, around ns-3's socket, UDP, IPv4, traffic-control and ARP objects.
 *
 * The rule: a datagram takes the short cut only where the stack would do nothing that
 * shows. It adds no simulated time (neither does the stack), so a run gives the same
 * record either way (bench/records_identical.py, tests/sim/test_fast_path.py).
 * - Receive (Deliver): an IPv4 frame handed up by a device with no promiscuous receiver,
 *   not a fragment, no IP options, UDP, to one of the node's addresses or a multicast
 *   group (ns-3's IPv4 takes every group), to a port a UdpFlowSink listens on. Headers
 *   and the frame's padding are removed as Ipv4L3Protocol and UdpL4Protocol do; the
 *   listener gets the payload and InetSocketAddress(source, source port), as
 *   UdpSocketImpl::RecvFrom gives them. Anything else goes to the stack.
 * - Send (UdpFastSender): the UDP and IPv4 headers as UdpL4Protocol and Ipv4L3Protocol
 *   write them (ports, addresses, TTL, may-fragment, an identification counted per
 *   sender), straight to the device with an ARP entry that never expires or the group's
 *   MAC address.
 * What the short cut skips: Ipv4L3Protocol's and UdpL4Protocol's trace sources
 * (Tx, Rx, SendOutgoing, LocalDeliver, Drop; FlowMonitor and IP-level pcap use them) and
 * checksums. So it is an attribute of the applications (FastPath), off by default, and
 * it steps aside when Node::ChecksumEnabled(); a program that attaches to those traces
 * leaves it off. Ethernet-level pcap and every trace of the lanloss devices and host
 * model see the same frames either way.
 */
class UdpFastPath : public Object
{
  public:
    /** A listener: the datagram's payload and its InetSocketAddress source. */
    using Listener = Callback<void, Ptr<Packet>, const Address&>;

    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    /**
     * The fast path of @p node: aggregated on first use, when it is attached to every
     * Mac48NetDevice of the node and learns the node's IPv4 addresses.
     * @param node a node with IPv4
     * @return the node's fast path
     */
    static Ptr<UdpFastPath> Of(Ptr<Node> node);

    /**
     * Datagrams to @p port (at any of the node's addresses, or a multicast group) go to
     * @p listener from now on.
     * @param port the UDP port
     * @param listener called with each datagram (payload, source)
     */
    void Listen(uint16_t port, Listener listener);
    /** Datagrams to @p port go to the stack again. @param port the UDP port */
    void Unlisten(uint16_t port);

    /**
     * Take a frame's MAC payload if the rule above lets it through (an IPv4 frame handed
     * up to this node).
     * @param packet the MAC payload (padding kept)
     * @return true if a listener took it; false: the stack gets it
     */
    bool Deliver(Ptr<const Packet> packet);

    /** @return datagrams handed to listeners */
    uint64_t GetDelivered() const;

  protected:
    /** Release the listeners. */
    void DoDispose() override;

  private:
    /** @return the listener of @p port, or null */
    const Listener* Find(uint16_t port) const;

    std::vector<uint32_t> m_local; //!< the node's IPv4 addresses (host order)
    std::vector<std::pair<uint16_t, Listener>> m_listeners;
    uint64_t m_delivered = 0;
};

/**
 * @ingroup lanloss
 * The send half of UdpFastPath for one connected UDP socket: writes the UDP and IPv4
 * headers UdpL4Protocol and Ipv4L3Protocol would and hands the datagram to the device.
 */
class UdpFastSender
{
  public:
    /**
     * Prepare to send what @p socket (bound and connected to @p remote) would send out of
     * @p device.
     * @param socket the bound, connected UDP socket (its local port is the source port)
     * @param device the device the socket is bound to
     * @param remote the destination (unicast or an IPv4 multicast group)
     * @param multicastTtl the socket's IpMulticastTtl
     * @return false where the stack is needed: checksums on, the destination without a
     *         permanent ARP entry on the device's interface, no IPv4 on the device
     */
    bool Prepare(Ptr<Socket> socket,
                 Ptr<EthernetNetDevice> device,
                 const Address& remote,
                 uint8_t multicastTtl);
    /** @return whether Prepare succeeded (and Send may be called) */
    bool IsReady() const;
    /**
     * Add the UDP and IPv4 headers to @p payload and hand it to the device (a frame the
     * device's queue refuses is dropped there, as the stack ignores it too).
     * @param payload the UDP payload; it must fit one frame
     */
    void Send(Ptr<Packet> payload);

  private:
    Ptr<EthernetNetDevice> m_device;
    Mac48Address m_destinationMac;
    Ipv4Address m_source;
    Ipv4Address m_destination;
    uint16_t m_sourcePort = 0;
    uint16_t m_destinationPort = 0;
    uint8_t m_ttl = 64;
    uint16_t m_identification = 0;
    bool m_ready = false;
};

} // namespace ns3

#endif // LANLOSS_UDP_FAST_PATH_H
