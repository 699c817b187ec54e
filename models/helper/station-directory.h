// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
 * Where every host of a LAN is, as the switches would know it after each host
 * had announced itself (a gratuitous ARP) at t = 0.
 */
#ifndef LANLOSS_STATION_DIRECTORY_H
#define LANLOSS_STATION_DIRECTORY_H

#include "ns3/mac48-address.h"
#include "ns3/simple-ref-count.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * @ingroup lanloss
 * The forwarding tables a loop-free LAN's switches would hold once every host
 * had sent one broadcast frame, answered on demand instead of being filled by
 * N broadcasts of N copies each (N^2 frame deliveries, N x switches entries).
 *
 * Hosts are attached to a switch port; switches are joined by trunks. The port
 * of switch s towards host h is h's port when h hangs off s, else the trunk of
 * s on the (unique) path to h's switch. Memory: one entry per host and one
 * next-hop row per switch (switches^2 ports, negligible beside the hosts).
 */
class StationDirectory : public SimpleRefCount<StationDirectory>
{
  public:
    static constexpr uint32_t NO_PORT = 0xFFFFFFFF; //!< no port: unknown host or unreachable

    /**
     * Add a switch.
     * @return its index (0, 1, ... in the order added)
     */
    uint32_t AddSwitch();
    /**
     * Host @p mac on port @p port of switch @p sw.
     * @param mac the host's MAC address
     * @param sw the switch's index
     * @param port the port's index on that switch
     */
    void AddHost(Mac48Address mac, uint32_t sw, uint32_t port);
    /**
     * A link between port @p portA of switch @p a and port @p portB of switch @p b.
     * @param a one switch's index
     * @param portA its port's index
     * @param b the other switch's index
     * @param portB its port's index
     */
    void AddTrunk(uint32_t a, uint32_t portA, uint32_t b, uint32_t portB);
    /** Compute the switch-to-switch next hops; call once after the last Add. */
    void Finish();

    /**
     * @param sw a switch's index
     * @param mac a host's MAC address
     * @return the port of switch @p sw a frame for @p mac leaves by, or NO_PORT (unknown
     *         host)
     */
    uint32_t PortTowards(uint32_t sw, Mac48Address mac) const;
    /** @return the number of hosts added */
    uint32_t GetNHosts() const;

  private:
    struct Attachment
    {
        uint32_t sw;
        uint32_t port;
    };

    static uint64_t Key(Mac48Address mac);

    std::unordered_map<uint64_t, Attachment> m_hosts;
    //! m_trunks[s]: (neighbour switch, port of s towards it)
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> m_trunks;
    //! m_next[s][t]: port of s towards switch t (NO_PORT if t == s or unreachable)
    std::vector<std::vector<uint32_t>> m_next;
};

} // namespace ns3

#endif /* LANLOSS_STATION_DIRECTORY_H */
