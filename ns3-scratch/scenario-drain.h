// SPDX-License-Identifier: GPL-2.0-only
/*
 * How long a scenario may take to drain after its sources stop: the run lasts until
 * nothing is queued anywhere, and a LAN still holding traffic after this bound is an
 * error, never a record that calls queued packets lost.
 */
#ifndef LANLOSS_SCENARIO_DRAIN_H
#define LANLOSS_SCENARIO_DRAIN_H

#include "scenario-options.h"

#include "ns3/lan-builder.h"
#include "ns3/lan-spec.h"
#include "ns3/nstime.h"

namespace lanloss
{

/** The smallest bound: every run that drains within it keeps its record unchanged. */
const ns3::Time MIN_DRAIN_BOUND = ns3::Seconds(60);

/** How often a run looks whether the LAN is empty: every 100 us for MIN_DRAIN_BOUND
 *  after the sources stop, then a millionth of the bound (at least 10 ms). */
ns3::Time DrainPollInterval(ns3::Time sinceStop, ns3::Time bound);

/**
 * An upper bound, from the options and the LAN, on the time from the sources' stop
 * until every queue, cable, host and connection is empty: the bytes the LAN can still
 * hold (at most what was sent) carried over every hop at the slowest link rate, the
 * cables' propagation, the PAUSE waits (one per hop; with timed PAUSE, which has no
 * XON, one per time a switch port can fill from XON to XOFF), the receiving hosts'
 * CPU work on every frame (under their CPU quota and stalls) and TCP's retransmission
 * back-off; at least MIN_DRAIN_BOUND. @p lan is the LAN built from @p spec.
 */
ns3::Time DrainBound(const ScenarioOptions& o,
                     const ns3::LanSpec& spec,
                     const ns3::LanBuilder& lan);

} // namespace lanloss

#endif
