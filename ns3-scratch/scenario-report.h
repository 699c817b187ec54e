/*
 * Turns a finished scenario into the scenario part of a lanloss run record.
 */
#ifndef LANLOSS_SCENARIO_REPORT_H
#define LANLOSS_SCENARIO_REPORT_H

#include "scenario-options.h"

#include "ns3/lanloss-module.h"

#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace lanloss
{

struct ScenarioFlow
{
    std::string from;
    std::string to;
    uint32_t id;
    ns3::DataRate rate; //!< 0 = max
    ns3::Ptr<ns3::UdpFlowSource> source;
};

struct ScenarioRun
{
    ScenarioOptions options;
    ns3::Ptr<ns3::LossAccountant> accountant;
    const ns3::LanBuilder* lan = nullptr;
    std::map<std::string, ns3::Ptr<ns3::UdpFlowSink>> sinks;
    std::vector<ScenarioFlow> flows;
    ns3::Time trafficStart;
    double wallSeconds = 0;
    double simulatedSeconds = 0;
    uint64_t events = 0;
};

/** flows, totals, drops, pause, timing, extra (params and env are added by Python). */
void WriteReport(std::ostream& os, const ScenarioRun& run);

} // namespace lanloss

#endif
