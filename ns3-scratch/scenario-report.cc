// SPDX-License-Identifier: GPL-2.0-only
#include "scenario-report.h"

#include "json-writer.h"

#include <array>
#include <cmath>
#include <map>
#include <set>

using namespace ns3;

namespace lanloss
{

namespace
{

using Drops = std::array<uint64_t, LossAccountant::N_POINTS + 1>; // + unexplained

void
WriteDrops(JsonWriter& j, const std::string& key, const Drops& d)
{
    j.BeginObject(key);
    for (int p = 0; p < LossAccountant::N_POINTS; ++p)
    {
        j.Field(LossAccountant::PointName(LossAccountant::Point(p)), d[p]);
    }
    j.Field("unexplained", d[LossAccountant::N_POINTS]);
    j.EndObject();
}

/** The host model's own counters per receiving host (ethtool -S, softnet_stat, ss -m). */
void
WriteHosts(JsonWriter& j, const ScenarioRun& run)
{
    j.BeginObject("hosts");
    for (const auto& h : run.hosts)
    {
        HostRxPath::Stats s = h.host.path->GetStats();
        j.BeginObject(h.name);
        j.Field("cores", h.host.cpu->GetNCores());
        j.Field("frames_received", s.framesReceived)
            .Field("rx_missed_errors", s.rxFifoDrops)
            .Field("rx_ring_drops", s.rxRingDrops)
            .Field("rx_no_buffer_count", s.rxNoBuffer)
            .Field("backlog_drops", s.backlogDrops)
            .Field("reassembly_timeouts", s.reassemblyTimeouts)
            .Field("reassembly_fragment_drops", s.reassemblyDrops)
            .Field("interrupts", s.interrupts)
            .Field("interrupts_at_unmask", s.interruptsAtUnmask)
            .Field("polls", s.polls)
            .Field("empty_polls", s.emptyPolls)
            .Field("single_polls", s.singlePolls)
            .Field("burst_polls", s.burstPolls)
            .Field("burst_poll_frames", s.burstPollFrames)
            .Field("softirq_runs", s.softirqRuns)
            .Field("time_squeeze", s.timeSqueeze)
            .Field("ksoftirqd_wakeups", s.ksoftirqdWakeups)
            .Field("xoff_sent", s.xoffSent)
            .Field("xon_sent", s.xonSent)
            .Field("peak_fifo_bytes", s.peakFifoBytes)
            .Field("peak_ring_frames", s.peakRingFrames)
            .Field("high_water_bytes", h.host.path->GetNic()->GetHighWater())
            .Field("clock_sleeps", s.clockSleeps)
            .Field("clock_held_frames", s.clockHeldFrames);
        j.BeginArray("sockets"); // one, or a SO_REUSEPORT group (reuseport on)
        for (const auto& socket : h.host.sockets)
        {
            j.BeginObject()
                .Field("port", uint32_t(socket->GetPort()))
                .Field("sk_rcvbuf", socket->GetRcvbuf())
                .Field("enqueued", socket->GetEnqueued())
                .Field("drops", socket->GetDrops())
                .Field("read", socket->GetRead())
                .Field("peak_rmem_alloc", socket->GetPeakRmemAlloc())
                .Field("peak_queue", socket->GetPeakQueueLength())
                .Field("lock_handoffs", socket->GetLockHandoffs());
            if (socket->IsQueueSpinlock())
            {
                // Linux's queue spinlock (the preset's SocketLock): its contention
                j.Field("wakeups", socket->GetWakeups())
                    .Field("futile_wakeups", socket->GetFutileWakeups())
                    .Field("line_transfers", socket->GetLineTransfers())
                    .Field("spin_s", socket->GetSpinTime().GetSeconds())
                    .Field("backlogged", socket->GetBacklogged());
            }
            j.EndObject();
        }
        j.EndArray();
        if (h.host.cpuGroup != HostCpu::NONE)
        {
            // As the testbed's cpu_limit (testbed/cpulimit.py) plus cpu.stat's counters.
            const HostCpu::GroupStat st = h.host.cpu->GetGroupStat(h.host.cpuGroup);
            j.BeginObject("cpu_limit")
                .Field("method", std::string("model"))
                .Field("percent", run.options.recvCpu)
                .Field("quota_enforced", true)
                .Field("period_us", uint64_t(st.period.GetMicroSeconds()))
                .Field("quota_us", uint64_t(st.quota.GetMicroSeconds()))
                .Field("nr_periods", st.periods)
                .Field("nr_throttled", st.throttledPeriods)
                .Field("throttled_s", st.throttledTime.GetSeconds())
                .EndObject();
        }
        j.BeginArray("readers");
        for (const auto& reader : h.host.readers)
        {
            j.BeginObject()
                .Field("core", reader->GetCore())
                .Field("reads", reader->GetReads())
                .Field("calls", reader->GetCalls())
                .Field("wakeups", reader->GetWakeups())
                .Field("stalls", reader->GetStalls())
                .Field("collections", reader->GetCollections())
                .Field("cpu_s", reader->GetCpuTime().GetSeconds())
                .EndObject();
        }
        j.EndArray();
        j.BeginArray("tcp_readers"); // the TCP receiving applications on this host
        for (const auto& f : run.flows)
        {
            if (f.tcpReader && f.to == h.name)
            {
                j.BeginObject()
                    .Field("core", f.tcpReader->GetCore())
                    .Field("reads", f.tcpReader->GetReads())
                    .Field("bytes", f.tcpReader->GetTotalRx())
                    .Field("collections", f.tcpReader->GetCollections())
                    .Field("cpu_s", f.tcpReader->GetCpuTime().GetSeconds())
                    .EndObject();
            }
        }
        j.EndArray();
        j.EndObject();
    }
    j.EndObject();
}

/** One flow's counts as the record gives them: the receiver's statistics and the lost
 *  datagrams by drop point. */
struct FlowCounts
{
    UdpFlowSink::FlowStats stats; //!< TCP: sent, received, lost and goodput only
    Drops drops{};
};

/** TCP: messages, the sender's whole messages accepted by its socket, and the messages
 *  the receiver has read (TCP retransmits what the network drops: no drop points). */
FlowCounts
TcpFlowCounts(const ScenarioFlow& f, const ScenarioOptions& o)
{
    FlowCounts c;
    UdpFlowSink::FlowStats& st = c.stats;
    st.sent = f.tcpSource->GetSent();
    st.received = f.TcpReceived() / o.payload;
    st.lost = st.sent > st.received ? st.sent - st.received : 0;
    const double window = (f.tcpWindow->end - f.tcpWindow->start).GetSeconds();
    st.goodputBps = window > 0 ? 8.0 * f.tcpWindow->bytes / window : NAN;
    c.drops[LossAccountant::N_POINTS] = st.lost; // unexplained: 0 once the connection drained
    return c;
}

/** UDP: the sink's counts, each lost datagram attributed to its drop point. */
FlowCounts
UdpFlowCounts(const ScenarioFlow& f, const ScenarioRun& run)
{
    FlowCounts c;
    Ptr<UdpFlowSink> sink = run.sinks.at(f.to);
    // A failed socket send consumes its sequence number, so attempts are 0..n-1.
    const uint64_t sent = f.source->GetSent() + f.source->GetSendFailures();
    c.stats = sink->GetFlowStats(f.id, sent);
    LossAccountant::Attribution a = f.accountant->Attribute(f.id, sink->MissingSeqs(f.id, sent));
    for (int p = 0; p < LossAccountant::N_POINTS; ++p)
    {
        c.drops[p] = a.byPoint[p];
    }
    c.drops[LossAccountant::N_POINTS] = a.unexplained;
    return c;
}

/** One flow of "flows". The record's totals (offered, loss, goodput, achieved) are
 *  computed from these by lanloss.totals, for the simulator and the testbed alike. */
void
WriteFlow(JsonWriter& j, const ScenarioFlow& f, const FlowCounts& c)
{
    j.BeginObject();
    j.Field("stream", f.id);
    j.Field("rate_bps", f.rate.GetBitRate()); // 0: max
    j.Field("sender", f.from);
    j.Field("receiver", f.to);
    const UdpFlowSink::FlowStats& st = c.stats;
    j.Field("sent", st.sent);
    j.Field("received", st.received);
    j.Field("lost", st.lost);
    j.Field("duplicated", st.duplicated);
    j.Field("reordered", st.reordered);
    j.Field("goodput_bps", st.goodputBps);
    j.BeginObject("latency_us")
        .Field("p50", st.latencyP50Us)
        .Field("p99", st.latencyP99Us)
        .Field("max", st.latencyMaxUs)
        .EndObject();
    j.BeginObject("loss_runs")
        .Field("count", st.lossRunCount)
        .Field("mean", st.lossRunMean)
        .Field("max", st.lossRunMax)
        .EndObject();
    WriteDrops(j, "drops", c.drops);
    j.EndObject();
}

/** "flows", then "drops": the flows' drops summed. */
void
WriteFlows(JsonWriter& j, const ScenarioRun& run)
{
    Drops dropsTotal{};
    j.BeginArray("flows");
    for (const auto& f : run.flows)
    {
        const FlowCounts c = f.tcpSource ? TcpFlowCounts(f, run.options) : UdpFlowCounts(f, run);
        for (size_t p = 0; p < c.drops.size(); ++p)
        {
            dropsTotal[p] += c.drops[p];
        }
        WriteFlow(j, f, c);
    }
    j.EndArray();
    WriteDrops(j, "drops", dropsTotal);
}

/** "pause": the ports that saw PAUSE (keeps records of big LANs readable), and the sums. */
void
WritePause(JsonWriter& j, const ScenarioRun& run)
{
    uint64_t pauseSent = 0, pauseReceived = 0;
    j.BeginObject("pause");
    j.BeginObject("ports");
    for (const auto& [name, dev] : run.lan->NamedPorts())
    {
        if (dev->GetPauseFramesSent() == 0 && dev->GetPauseFramesReceived() == 0)
        {
            continue;
        }
        pauseSent += dev->GetPauseFramesSent();
        pauseReceived += dev->GetPauseFramesReceived();
        j.BeginObject(name)
            .Field("frames_sent", dev->GetPauseFramesSent())
            .Field("frames_received", dev->GetPauseFramesReceived())
            .Field("paused_s", dev->GetPausedTime().GetSeconds())
            .EndObject();
    }
    j.EndObject();
    j.Field("frames_sent", pauseSent);
    j.Field("frames_received", pauseReceived);
    j.EndObject();
}

/** "cpu": share of each receiving host's CPU (all cores) per kind of work over the
 *  goodput window, as /proc/stat would show it (irq, softirq incl. ksoftirqd, app, idle). */
void
WriteCpu(JsonWriter& j, const ScenarioRun& run)
{
    const ScenarioOptions& o = run.options;
    const Time windowStart = run.trafficStart + o.warmup;
    const Time stop = run.trafficStart + o.duration;
    j.BeginObject("cpu");
    for (const auto& h : run.hosts)
    {
        const double total =
            double(h.host.cpu->GetNCores()) * (stop - windowStart).GetSeconds();
        auto share = [&](int w) {
            return total > 0 ? (h.busyEnd[w] - h.busyStart[w]).GetSeconds() / total : NAN;
        };
        j.BeginObject(h.name)
            .Field("irq", share(HostCpu::IRQ_WORK))
            .Field("softirq", share(HostCpu::SOFTIRQ_WORK))
            .Field("app", share(HostCpu::APP_WORK))
            .Field("idle", total > 0 ? (h.idleEnd - h.idleStart).GetSeconds() / total : NAN)
            .EndObject();
    }
    j.EndObject();
}

void
WriteTiming(JsonWriter& j, const ScenarioRun& run)
{
    j.BeginObject("timing");
    j.Field("events", run.events);
    j.Field("simulated_s", run.simulatedSeconds);
    j.Field("traffic_start_s", run.trafficStart.GetSeconds());
    j.Field("sim_wall_s", run.wallSeconds);
    j.Field("setup_wall_s", run.setupSeconds);
    j.EndObject();
}

/** A sender's echo timing (option echo): the mean round trip of the messages stamped
 *  inside the goodput window, and the counts behind it. */
void
WriteEcho(JsonWriter& j, const ScenarioFlow& f)
{
    j.Field("echo_timed", f.echoTimer->GetTimed())
        .Field("echo_rtt_mean_s", f.echoTimer->GetMeanRoundTrip().GetSeconds())
        .Field("echo_received", f.echoTimer->GetReceived())
        .Field("echoed", f.echo->GetEchoed())
        .Field("echo_queue_drops", f.echo->GetQueueDrops());
}

/** extra "senders": each source's own counters, once per source (multicast: one source,
 *  a flow per receiver). */
void
WriteSenders(JsonWriter& j, const ScenarioRun& run)
{
    j.BeginObject("senders");
    std::set<uint32_t> seen;
    for (const auto& f : run.flows)
    {
        if (!seen.insert(f.id).second)
        {
            continue;
        }
        j.BeginObject("flow" + std::to_string(f.id)).Field("sender", f.from);
        if (f.tcpSource)
        {
            j.Field("messages", f.tcpSource->GetSent())
                .Field("bytes", f.tcpSource->GetBytes())
                .Field("blocked_s", f.tcpSource->GetBlockedTime().GetSeconds())
                .Field("send_cpu_s", f.tcpSource->GetSendCpuTime().GetSeconds());
        }
        else
        {
            j.Field("sent_ok", f.source->GetSent())
                .Field("send_failures", f.source->GetSendFailures())
                .Field("blocked_s", f.source->GetBlockedTime().GetSeconds())
                .Field("send_cpu_s", f.source->GetSendCpuTime().GetSeconds())
                .Field("first_send_s", f.source->GetFirstSendTime().GetSeconds())
                .Field("last_send_s", f.source->GetLastSendTime().GetSeconds());
        }
        if (f.echoTimer)
        {
            WriteEcho(j, f);
        }
        j.Field("frames_on_link",
                run.senderFrames.count(f.from)
                    ? run.lan->GetHostDevice(f.from)->GetDataFramesSent() -
                          run.senderFrames.at(f.from)
                    : 0);
        j.EndObject();
    }
    j.EndObject();
}

/** extra "switch_ports": every switch port's drops and PAUSE thresholds. */
void
WriteSwitchPorts(JsonWriter& j, const ScenarioRun& run)
{
    j.BeginObject("switch_ports");
    // One pass over the ports: a search per port would make the record quadratic in hosts.
    std::map<const EthernetNetDevice*, std::string> portName;
    for (const auto& [n, dev] : run.lan->NamedPorts())
    {
        portName[PeekPointer(dev)] = n;
    }
    for (const auto& sw : run.lan->GetSwitches())
    {
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            const std::string& name = portName[PeekPointer(sw->GetPort(p))];
            const auto& port = sw->GetPortState(p);
            j.BeginObject(name)
                .Field("egress_drops", port.egressDrops)
                .Field("ingress_drops", port.ingressDrops)
                .Field("xoff_bytes", port.xoff)
                .Field("xon_bytes", port.xon)
                .Field("headroom_bytes", port.headroom)
                .EndObject();
        }
    }
    j.EndObject();
}

/** "extra": what the record's common fields leave out. */
void
WriteExtra(JsonWriter& j, const ScenarioRun& run)
{
    const ScenarioOptions& o = run.options;
    j.BeginObject("extra");
    j.Field("cast", o.multicast ? "multicast" : "unicast");
    j.Field("protocol", o.tcp ? "tcp" : "udp");
    WriteSenders(j, run);
    WriteHosts(j, run);
    WriteSwitchPorts(j, run);
    Drops frames{};
    for (int p = 0; p < LossAccountant::N_POINTS; ++p)
    {
        frames[p] = run.accountant->FrameDrops()[p];
    }
    WriteDrops(j, "frame_drops", frames);
    j.Field("untagged_frame_drops", run.accountant->UntaggedDrops());
    j.Field("ipv4_other_drops", run.accountant->OtherIpv4Drops());
    j.EndObject();
}

} // namespace

void
WriteReport(std::ostream& os, const ScenarioRun& run)
{
    JsonWriter j(os);
    j.BeginObject();
    WriteFlows(j, run);
    WritePause(j, run);
    WriteCpu(j, run);
    WriteTiming(j, run);
    WriteExtra(j, run);
    j.EndObject();
    os << "\n";
}

} // namespace lanloss
