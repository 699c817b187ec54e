// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
 * Attributes every lost datagram to the first drop point that dropped any of its frames.
 */
#ifndef LANLOSS_LOSS_ACCOUNTANT_H
#define LANLOSS_LOSS_ACCOUNTANT_H

#include "ns3/datagram-id.h"
#include "ns3/ethernet-net-device.h"
#include "ns3/ethernet-switch-net-device.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/node.h"
#include "ns3/packet.h"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * @ingroup lanloss
 * Subscribes to the drop trace sources of hosts, switches and IPv4 and keeps,
 * for every (flow, seq) datagram that lost a frame, the first drop point that
 * did it (a datagram is lost once, even if several of its fragments are
 * dropped). Datagrams are identified by their payload header or their
 * FlowSeqTag (IdentifyDatagram); frames that name none (ARP, PAUSE) are
 * counted separately and never enter the conservation.
 *
 * The drop point names are the run record's (docs/architecture.md), so the ns-3 API and
 * `lanloss sim run` report the same numbers.
 */
class LossAccountant : public SimpleRefCount<LossAccountant>
{
  public:
    /** The drop points, in the run record's order. */
    enum Point
    {
        SENDER_SOCKET,  //!< the sending socket refused the datagram (Send returned -1)
        SENDER_QUEUE,   //!< the sending host's transmit queue was full (MacTxDrop)
        SWITCH_INGRESS, //!< a switch's ingress beyond XOFF + headroom (IngressDrop)
        SWITCH_EGRESS,  //!< a switch's egress buffer or shared pool (EgressDrop)
        RX_ERROR,       //!< the receiving NIC discarded a corrupt frame (PhyRxDrop)
        RX_FIFO,        //!< the receiving NIC's FIFO was full (RxFifoDrop)
        RX_RING,        //!< no free RX descriptor with DropWhenNoDescriptor (RxRingDrop)
        BACKLOG,        //!< RPS: the target core's backlog was full (BacklogDrop)
        REASSEMBLY,     //!< IPv4 reassembly timed out (ReassemblyDrop, IPv4's own timeout)
        SOCKET_RCVBUF,  //!< the socket's receive buffer was full (SocketDrop)
        N_POINTS,       //!< the number of points (not a point)
    };

    /**
     * @param p a drop point
     * @return its name in the run record ("sender_socket", ..., "socket_rcvbuf")
     */
    static const char* PointName(Point p);
    /**
     * @param p a drop point
     * @return where the packets its trace source gives start (the payload at
     *         sender_socket, the frame at the sender's queue, the switch and rx_error, the
     *         IPv4 packet at the receiving host's points)
     */
    static PacketStart StartAt(Point p);

    /**
     * A sending host's NIC: transmit-queue drops are `sender_queue`.
     * @param device the host's device (its MacTxDrop)
     */
    void WatchHostDevice(Ptr<EthernetNetDevice> device);
    /**
     * A switch: `switch_ingress` and `switch_egress`, whatever the egress port.
     * @param sw the switch (its IngressDrop and EgressDrop)
     */
    void WatchSwitch(Ptr<EthernetSwitchNetDevice> sw);
    /**
     * One receiver's branches of a switch: only copies headed out of @p egressPorts
     * (dropped at ingress admission or in the egress buffer) are recorded. A flooded
     * (multicast) frame is admitted per copy, so a drop on one branch is a loss only
     * for the receivers behind that port; watch, for each receiver, the port of every
     * switch that leads towards it.
     * @param sw the switch (its IngressCopyDrop and EgressDrop)
     * @param egressPorts the ports that lead towards this accountant's receiver
     */
    void WatchSwitchBranch(Ptr<EthernetSwitchNetDevice> sw, std::set<uint32_t> egressPorts);
    /**
     * WatchSwitchBranch for many receivers of one switch at once: @p byPort maps an
     * egress port to the accountants of the receivers behind it. One subscription per
     * switch, and a dropped copy costs one Record per receiver behind its port, where
     * WatchSwitchBranch per receiver costs a callback per receiver for every drop and
     * receivers x switches subscriptions (too many for multicast to hundreds of members).
     * @param sw the switch
     * @param byPort egress port -> the accountants of the receivers behind it
     */
    static void WatchSwitchBranches(
        Ptr<EthernetSwitchNetDevice> sw,
        const std::map<uint32_t, std::vector<Ptr<LossAccountant>>>& byPort);
    /**
     * A receiving NIC's discarded corrupt frames (ReceiveErrorModel): `rx_error`.
     * @param device the receiving host's device (its PhyRxDrop)
     */
    void WatchReceiveErrors(Ptr<EthernetNetDevice> device);
    /**
     * A host's IPv4: reassembly timeouts are `reassembly`; other IPv4 drops are kept
     * apart as "ipv4 other" and end up unexplained (they mean a modelling bug).
     * @param host a node with an Ipv4L3Protocol (its Drop trace)
     */
    void WatchIpv4(Ptr<Node> host);

    /**
     * Record a drop of the datagram this packet (or fragment) belongs to: counted as a
     * frame drop at @p point; one that names its datagram (IdentifyDatagram, through the
     * headers StartAt(point) says it has) also names the datagram's drop point, unless an
     * earlier drop already did (the first point wins).
     * @param point where it was dropped
     * @param packet the dropped frame or packet
     */
    void Record(Point point, Ptr<const Packet> packet);
    /**
     * Record a drop of a whole datagram known by its ids (e.g. a failed socket send);
     * the first point recorded for a datagram wins.
     * @param point where it was dropped
     * @param flow its flow id
     * @param seq its sequence number (below 2^40)
     */
    void RecordDatagram(Point point, uint32_t flow, uint64_t seq);

    /** The missing datagrams of one flow, split among the drop points. */
    struct Attribution
    {
        std::array<uint64_t, N_POINTS> byPoint{}; //!< datagrams first dropped at each point
        uint64_t unexplained = 0;                 //!< missing with no drop recorded
    };

    /**
     * Split the missing datagrams of @p flow among the drop points.
     * @param flow a flow id
     * @param missingSeqs its missing seqs (UdpFlowSink::MissingSeqs)
     * @return per point the datagrams whose first drop was there; the rest unexplained
     */
    Attribution Attribute(uint32_t flow, const std::vector<uint64_t>& missingSeqs) const;

    /** @return frames dropped at each point, tagged or not (diagnostics) */
    const std::array<uint64_t, N_POINTS>& FrameDrops() const;
    /** @return dropped frames that name no datagram (ARP, PAUSE), never in the
     *          conservation */
    uint64_t UntaggedDrops() const;
    /** @return IPv4 drops other than reassembly timeouts (should be 0) */
    uint64_t OtherIpv4Drops() const;

  private:
    static uint64_t Key(uint32_t flow, uint64_t seq);
    void Ipv4Drop(const Ipv4Header& header,
                  Ptr<const Packet> packet,
                  Ipv4L3Protocol::DropReason reason,
                  Ptr<Ipv4> ipv4,
                  uint32_t iface);

    struct Branch
    {
        LossAccountant* accountant;
        std::set<uint32_t> egressPorts;
    };
    static void BranchEgressDrop(const Branch* branch, Ptr<const Packet> packet, uint32_t out);
    static void BranchIngressDrop(const Branch* branch,
                                  Ptr<const Packet> packet,
                                  uint32_t in,
                                  uint32_t out);

    std::vector<std::unique_ptr<Branch>> m_branches; //!< stable addresses for bound callbacks
    std::unordered_map<uint64_t, uint8_t> m_first; //!< (flow, seq) -> first drop point
    std::array<uint64_t, N_POINTS> m_frameDrops{};
    uint64_t m_untagged = 0;
    uint64_t m_otherIpv4 = 0;
};

} // namespace ns3

#endif /* LANLOSS_LOSS_ACCOUNTANT_H */
