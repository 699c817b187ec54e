// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
 * A LAN described as hosts, switches, links and flows: what LanBuilder builds.
 */
#ifndef LANLOSS_LAN_SPEC_H
#define LANLOSS_LAN_SPEC_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{

/**
 * @ingroup lanloss
 * Topology of a switched LAN. The shared vocabulary's topologies (star, two-tier,
 * two-site) are generated once, by lanloss/topology.py, which both the scenario program
 * (through FromFile) and the netns testbed build from; the named generators here give
 * C++ users the same LANs (tests/sim/test_topology_spec.py keeps them equal). FromFile
 * reads the line format that `lanloss sim run` writes every run's LAN in:
 *
 *     switch NAME
 *     host NAME sender|receiver|host
 *     link NAME NAME RATE DELAY        (e.g. link s1 sw0 1Gbps 1us)
 *     flow FROM TO [RATE]              (optional; default: senders -> receivers)
 *
 * Any inconsistency (a link naming an unknown node, a duplicate name, a host
 * with no link, a loop) throws LanSpecError naming it.
 */
struct LanSpec
{
    /** One cable between two nodes (hosts or switches). */
    struct Link
    {
        std::string a; //!< one end's node name
        std::string b; //!< the other end's node name
        DataRate rate; //!< the link's rate in bit/s (both directions)
        Time delay;    //!< the cable's one-way propagation delay
    };

    /** A unicast flow between two hosts. */
    struct Flow
    {
        std::string from; //!< the sending host's name
        std::string to;   //!< the receiving host's name
        DataRate rate; //!< 0 bps = the run's default rate
    };

    /** A host: one node with one Ethernet device. */
    struct Host
    {
        std::string name; //!< its node name (unique among hosts and switches)
        std::string role; //!< sender, receiver or host
    };

    std::vector<Host> hosts;           //!< the hosts, in node order
    std::vector<std::string> switches; //!< the switch names, in node order
    std::vector<Link> links;           //!< the cables; a loop-free graph over all nodes
    std::vector<Flow> flows;           //!< the flows (empty: none given)

    /**
     * One switch, sw1; senders s1.. on @p senderRate links, receivers r1.. on @p edgeRate
     * links; the default flows.
     * @param senders the number of senders
     * @param receivers the number of receivers
     * @param edgeRate the receivers' link rate in bit/s
     * @param senderRate the senders' link rate in bit/s
     * @param linkDelay every cable's one-way delay
     * @return the spec
     */
    static LanSpec Star(uint32_t senders,
                        uint32_t receivers,
                        DataRate edgeRate,
                        DataRate senderRate,
                        Time linkDelay);
    /**
     * A core switch with @p edgeSwitches edge switches on @p backboneRate links;
     * senders on the first edge switch, receivers spread over the others
     * (over all of them when there is only one). Switches core, edge1..; the default flows.
     * @param senders the number of senders
     * @param receivers the number of receivers
     * @param edgeSwitches the number of edge switches (at least 1)
     * @param edgeRate the receivers' link rate in bit/s
     * @param senderRate the senders' link rate in bit/s
     * @param backboneRate the edge-to-core link rate in bit/s
     * @param linkDelay every cable's one-way delay
     * @return the spec
     */
    static LanSpec TwoTier(uint32_t senders,
                           uint32_t receivers,
                           uint32_t edgeSwitches,
                           DataRate edgeRate,
                           DataRate senderRate,
                           DataRate backboneRate,
                           Time linkDelay);
    /**
     * Two stars (senders at switch siteA, receivers at switch siteB) joined by one
     * @p backboneRate link of @p wanDelay; the default flows.
     * @param senders the number of senders
     * @param receivers the number of receivers
     * @param edgeRate the receivers' link rate in bit/s
     * @param senderRate the senders' link rate in bit/s
     * @param backboneRate the site-to-site link rate in bit/s
     * @param linkDelay the one-way delay of every cable but the backbone
     * @param wanDelay the backbone's one-way delay
     * @return the spec
     */
    static LanSpec TwoSite(uint32_t senders,
                           uint32_t receivers,
                           DataRate edgeRate,
                           DataRate senderRate,
                           DataRate backboneRate,
                           Time linkDelay,
                           Time wanDelay);
    /**
     * Read a spec file in the line format above; throws LanSpecError naming the line.
     * @param path the file
     * @return the spec (Build validates it), with the default flows when the file has no
     *         flow line
     */
    static LanSpec FromFile(const std::string& path);
    /** This spec in the line format (rates in bit/s, delays in ns): FromFile reads it back.
     *  @return one line per switch, host, link and flow, in this spec's order */
    std::string ToText() const;

    /** Default unicast flows: sender i -> receiver i mod R, and when there are
     *  more receivers than senders, receiver j <- sender j mod S. */
    void AddDefaultFlows();
    /**
     * @param role sender, receiver or host
     * @return the names of the hosts with @p role, in host order
     */
    std::vector<std::string> HostsWithRole(const std::string& role) const;
    /** Throws LanSpecError if the spec is inconsistent. */
    void Validate() const;
};

/**
 * @ingroup lanloss
 * An inconsistent LAN spec or an unreadable spec file; what() names the problem.
 */
class LanSpecError : public std::runtime_error
{
  public:
    using std::runtime_error::runtime_error;
};

} // namespace ns3

#endif /* LANLOSS_LAN_SPEC_H */
