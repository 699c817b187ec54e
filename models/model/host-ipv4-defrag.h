// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
 * IPv4 reassembly inside the host receive model (Linux ip_defrag()).
 */
#ifndef LANLOSS_HOST_IPV4_DEFRAG_H
#define LANLOSS_HOST_IPV4_DEFRAG_H

#include "host-datagram.h"

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/ipv4-header.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <map>
#include <tuple>

namespace ns3
{

/**
 * @ingroup lanloss
 * Collects the IPv4 fragments of datagrams, as ip_defrag() does in the
 * softirq, so that the host model can charge a socket for the whole datagram
 * (the sum of its fragments' truesizes) at the moment its last fragment is
 * processed. A datagram whose fragments do not all arrive within Timeout of
 * its first one is dropped (Linux net.ipv4.ipfrag_time, 30 s: Ip ReasmTimeout
 * and ReasmFails), every held fragment reported to the drop callback.
 *
 * The completed datagram keeps its fragments as frames; the host model hands
 * them to ns-3's IPv4, which reassembles them at once (it then holds nothing,
 * so its own reassembly timer never fires for them).
 *
 * Not modelled: the ipfrag_high_thresh memory limit (4 MB), overlapping
 * fragments (a fragment at an offset already held is ignored as a duplicate;
 * a switched LAN neither overlaps nor duplicates).
 */
class HostIpv4Defrag
{
  public:
    /** Nothing held; Timeout 30 s (net.ipv4.ipfrag_time). */
    HostIpv4Defrag();
    /** Drops everything held silently (Clear). */
    ~HostIpv4Defrag();

    /** Not copyable: its timers point at it. */
    HostIpv4Defrag(const HostIpv4Defrag&) = delete;
    /**
     * Not copyable: its timers point at it.
     * @return never
     */
    HostIpv4Defrag& operator=(const HostIpv4Defrag&) = delete;

    /**
     * @param timeout how long an incomplete datagram is kept after its first fragment
     *        arrived (net.ipv4.ipfrag_time)
     */
    void SetTimeout(Time timeout);
    /** @return how long an incomplete datagram is kept after its first fragment arrived */
    Time GetTimeout() const;
    /**
     * @param drop called for each fragment of a datagram that timed out
     */
    void SetDropCallback(Callback<void, const HostRxFrame&> drop);

    /**
     * Add a fragment (MF set or offset > 0) whose IPv4 header is @p header.
     * A datagram is keyed by (source, destination, id, protocol); a fragment at an offset
     * already held is ignored.
     * @param frame the fragment as received
     * @param header its IPv4 header (read, not removed)
     * @param datagram where a completed datagram is put
     * @return true if it completed a datagram, then put in @p datagram with its
     *         frames in offset order and the sum of their truesizes
     */
    bool Add(const HostRxFrame& frame, const Ipv4Header& header, HostDatagram& datagram);

    /** @return datagrams with some fragments held */
    uint32_t GetPending() const;
    /** @return fragments held */
    uint32_t GetFragmentsHeld() const;
    /** @return datagrams dropped by the timer (Ip ReasmTimeout) */
    uint64_t GetTimeouts() const;
    /** @return fragments dropped by the timer */
    uint64_t GetFragmentsDropped() const;
    /** Drop everything held, silently (end of simulation). */
    void Clear();

  private:
    using Key = std::tuple<uint32_t, uint32_t, uint16_t, uint8_t>; //!< src, dst, id, protocol

    struct Queue
    {
        std::map<uint16_t, HostRxFrame> fragments; //!< by offset (bytes)
        uint32_t have = 0;                         //!< IP payload bytes held
        int64_t total = -1;                        //!< IP payload bytes, once the last is seen
        EventId timer;
    };

    void Expire(Key key);

    Time m_timeout;
    Callback<void, const HostRxFrame&> m_drop;
    std::map<Key, Queue> m_queues;
    uint64_t m_timeouts;
    uint64_t m_fragmentsDropped;
};

} // namespace ns3

#endif /* LANLOSS_HOST_IPV4_DEFRAG_H */
