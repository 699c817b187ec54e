// SPDX-License-Identifier: GPL-2.0-only
/*
 * The receiving hosts of a scenario: the host model (HostReceiverHelper) installed from
 * the run's host values, its drops wired to the accountants, CPU shares over the window.
 */
#ifndef LANLOSS_SCENARIO_HOSTS_H
#define LANLOSS_SCENARIO_HOSTS_H

#include "scenario-options.h"

#include "ns3/lanloss-module.h"

#include <array>
#include <string>
#include <vector>

namespace lanloss
{

/** One receiving host with the host model, and its CPU time at the window's ends. */
struct ReceiverHost
{
    std::string name;
    ns3::HostReceiverHelper::Host host;
    std::array<ns3::Time, ns3::HostCpu::N_WORK> busyStart{};
    std::array<ns3::Time, ns3::HostCpu::N_WORK> busyEnd{};
    ns3::Time idleStart;
    ns3::Time idleEnd;
};

/**
 * Install the host model (o.host, o.hostValues) on the receiving hosts @p names:
 * a socket on @p port read by o.readers readers whose stalls start at
 * @p trafficStart. The drops go to @p global and, if @p own is not empty, to
 * @p own[i] for host i (multicast: each receiver's own attribution).
 */
/** The CFS period of the readers' CPU quota (recv_cpu). */
ns3::Time RecvCpuPeriod();

/** Whether @p name is a host preset this program has a NIC family for. */
bool IsHostPreset(const std::string& name);
/** The presets, comma-separated (for messages). */
std::string HostPresetNames();

std::vector<ReceiverHost> InstallReceiverHosts(
    const ScenarioOptions& o,
    const ns3::LanBuilder& lan,
    const std::vector<std::string>& names,
    uint16_t port,
    ns3::Time trafficStart,
    ns3::Ptr<ns3::LossAccountant> global,
    const std::vector<ns3::Ptr<ns3::LossAccountant>>& own);

/**
 * The TCP receiving application of @p host (which has the host model), on its CPU:
 * reads cost read_cost per call and read_byte_cost per byte, on the core the first UDP
 * reader would have, in the host's CPU quota group (recv_cpu) if it has one.
 */
ns3::Ptr<ns3::HostTcpReader> InstallTcpReader(const ScenarioOptions& o,
                                             const ReceiverHost& host,
                                             ns3::Ptr<ns3::Node> node,
                                             uint16_t port);

/** Nothing left inside any host but fragments waiting for reassembly (a datagram that
 *  lost a fragment is already accounted; its other fragments time out later). */
bool ReceiverHostsDrained(const std::vector<ReceiverHost>& hosts);

/** Remember every host's CPU time at the start (@p end false) or end of the window. */
void SnapshotCpu(std::vector<ReceiverHost>* hosts, bool end);

} // namespace lanloss

#endif
