// SPDX-License-Identifier: GPL-2.0-only
/*
 * Attributes every lost datagram to the first drop point that dropped any of its frames.
 */
#ifndef LANLOSS_LOSS_ACCOUNTANT_H
#define LANLOSS_LOSS_ACCOUNTANT_H

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
 * dropped). Datagrams are identified by their FlowSeqTag; untagged frames
 * (ARP, PAUSE) are counted separately and never enter the conservation.
 *
 * The drop point names are the run record's (docs/architecture.md), so the ns-3 API and
 * `lanloss sim run` report the same numbers.
 */
class LossAccountant : public SimpleRefCount<LossAccountant>
{
  public:
    enum Point
    {
        SENDER_SOCKET,
        SENDER_QUEUE,
        SWITCH_INGRESS,
        SWITCH_EGRESS,
        RX_ERROR,
        RX_FIFO,
        RX_RING,
        BACKLOG,
        REASSEMBLY,
        SOCKET_RCVBUF,
        N_POINTS,
    };

    static const char* PointName(Point p);

    /** A sending host's NIC: transmit-queue drops are `sender_queue`. */
    void WatchHostDevice(Ptr<EthernetNetDevice> device);
    /** A switch: `switch_ingress` and `switch_egress`. */
    void WatchSwitch(Ptr<EthernetSwitchNetDevice> sw);
    /**
     * One receiver's branches of a switch: only copies headed out of @p egressPorts
     * (dropped at ingress admission or in the egress buffer) are recorded. A flooded
     * (multicast) frame is admitted per copy, so a drop on one branch is a loss only
     * for the receivers behind that port; watch, for each receiver, the port of every
     * switch that leads towards it.
     */
    void WatchSwitchBranch(Ptr<EthernetSwitchNetDevice> sw, std::set<uint32_t> egressPorts);
    /**
     * WatchSwitchBranch for many receivers of one switch at once: @p byPort maps an
     * egress port to the accountants of the receivers behind it. One subscription per
     * switch, and a dropped copy costs one Record per receiver behind its port, where
     * WatchSwitchBranch per receiver costs a callback per receiver for every drop and
     * receivers x switches subscriptions (too many for multicast to hundreds of members).
     */
    static void WatchSwitchBranches(
        Ptr<EthernetSwitchNetDevice> sw,
        const std::map<uint32_t, std::vector<Ptr<LossAccountant>>>& byPort);
    /** A receiving NIC's discarded corrupt frames (ReceiveErrorModel): `rx_error`. */
    void WatchReceiveErrors(Ptr<EthernetNetDevice> device);
    /** A host's IPv4: reassembly timeouts are `reassembly`; other IPv4 drops are kept
     *  apart as "ipv4 other" and end up unexplained (they mean a modelling bug). */
    void WatchIpv4(Ptr<Node> host);

    /** Record a drop of the datagram this packet (or fragment) belongs to. */
    void Record(Point point, Ptr<const Packet> packet);
    /** Record a drop of a whole datagram known by its ids (e.g. a failed socket send). */
    void RecordDatagram(Point point, uint32_t flow, uint64_t seq);

    struct Attribution
    {
        std::array<uint64_t, N_POINTS> byPoint{};
        uint64_t unexplained = 0;
    };

    /** Split the missing datagrams of @p flow among the drop points. */
    Attribution Attribute(uint32_t flow, const std::vector<uint64_t>& missingSeqs) const;

    /** Frames dropped at each point, tagged or not (diagnostics). */
    const std::array<uint64_t, N_POINTS>& FrameDrops() const;
    uint64_t UntaggedDrops() const;
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
