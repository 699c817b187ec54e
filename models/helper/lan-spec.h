// SPDX-License-Identifier: GPL-2.0-only
/*
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
    struct Link
    {
        std::string a;
        std::string b;
        DataRate rate;
        Time delay;
    };

    struct Flow
    {
        std::string from;
        std::string to;
        DataRate rate; //!< 0 bps = the run's default rate
    };

    struct Host
    {
        std::string name;
        std::string role; //!< sender, receiver or host
    };

    std::vector<Host> hosts;
    std::vector<std::string> switches;
    std::vector<Link> links;
    std::vector<Flow> flows;

    /** One switch; senders on @p senderRate links, receivers on @p edgeRate links. */
    static LanSpec Star(uint32_t senders,
                        uint32_t receivers,
                        DataRate edgeRate,
                        DataRate senderRate,
                        Time linkDelay);
    /** A core switch with @p edgeSwitches edge switches on @p backboneRate links;
     *  senders on the first edge switch, receivers spread over the others
     *  (over all of them when there is only one). */
    static LanSpec TwoTier(uint32_t senders,
                           uint32_t receivers,
                           uint32_t edgeSwitches,
                           DataRate edgeRate,
                           DataRate senderRate,
                           DataRate backboneRate,
                           Time linkDelay);
    /** Two stars (senders at site A, receivers at site B) joined by one
     *  @p backboneRate link of @p wanDelay. */
    static LanSpec TwoSite(uint32_t senders,
                           uint32_t receivers,
                           DataRate edgeRate,
                           DataRate senderRate,
                           DataRate backboneRate,
                           Time linkDelay,
                           Time wanDelay);
    /** Read a spec file in the line format above; throws LanSpecError naming the line. */
    static LanSpec FromFile(const std::string& path);
    /** This spec in the line format (rates in bit/s, delays in ns): FromFile reads it back.
     *  @return one line per switch, host, link and flow, in this spec's order */
    std::string ToText() const;

    /** Default unicast flows: sender i -> receiver i mod R, and when there are
     *  more receivers than senders, receiver j <- sender j mod S. */
    void AddDefaultFlows();
    std::vector<std::string> HostsWithRole(const std::string& role) const;
    /** Throws LanSpecError if the spec is inconsistent. */
    void Validate() const;
};

class LanSpecError : public std::runtime_error
{
  public:
    using std::runtime_error::runtime_error;
};

} // namespace ns3

#endif /* LANLOSS_LAN_SPEC_H */
