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
            .Field("polls", s.polls)
            .Field("softirq_runs", s.softirqRuns)
            .Field("time_squeeze", s.timeSqueeze)
            .Field("ksoftirqd_wakeups", s.ksoftirqdWakeups)
            .Field("xoff_sent", s.xoffSent)
            .Field("xon_sent", s.xonSent)
            .Field("peak_fifo_bytes", s.peakFifoBytes)
            .Field("peak_ring_frames", s.peakRingFrames)
            .Field("high_water_bytes", h.host.path->GetHighWater());
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
                .Field("lock_handoffs", socket->GetLockHandoffs())
                .EndObject();
        }
        j.EndArray();
        if (h.host.cpuGroup != HostCpu::NONE)
        {
            // As the testbed's cpu_limit (testbed/cpulimit.py) plus cpu.stat's counters.
            const Ptr<HostCpu>& cpu = h.host.cpu;
            const uint32_t g = h.host.cpuGroup;
            j.BeginObject("cpu_limit")
                .Field("method", std::string("model"))
                .Field("percent", run.options.recvCpu)
                .Field("quota_enforced", true)
                .Field("period_us", uint64_t(cpu->GetGroupPeriod(g).GetMicroSeconds()))
                .Field("quota_us", uint64_t(cpu->GetGroupQuota(g).GetMicroSeconds()))
                .Field("nr_periods", cpu->GetGroupPeriods(g))
                .Field("nr_throttled", cpu->GetGroupThrottledPeriods(g))
                .Field("throttled_s", cpu->GetGroupThrottledTime(g).GetSeconds())
                .EndObject();
        }
        j.BeginArray("readers");
        for (const auto& reader : h.host.readers)
        {
            j.BeginObject()
                .Field("core", reader->GetCore())
                .Field("reads", reader->GetReads())
                .Field("stalls", reader->GetStalls())
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
                    .Field("cpu_s", f.tcpReader->GetCpuTime().GetSeconds())
                    .EndObject();
            }
        }
        j.EndArray();
        j.EndObject();
    }
    j.EndObject();
}

} // namespace

void
WriteReport(std::ostream& os, const ScenarioRun& run)
{
    const ScenarioOptions& o = run.options;
    const Time windowStart = run.trafficStart + o.warmup;
    const Time stop = run.trafficStart + o.duration;
    JsonWriter j(os);
    j.BeginObject();
    Drops dropsTotal{};

    j.BeginArray("flows");
    for (const auto& f : run.flows)
    {
        uint64_t sent, received, lost, duplicated = 0, reordered = 0;
        double goodput;
        double p50 = NAN, p99 = NAN, maxLatency = NAN, runMean = 0;
        uint64_t runCount = 0, runMax = 0;
        Drops d{};
        if (f.tcpSource)
        {
            // Messages: the sender's whole messages accepted by its socket, the messages the
            // receiver has read (TCP retransmits what the network drops: no drop points).
            sent = f.tcpSource->GetSent();
            received = f.TcpReceived() / o.payload;
            lost = sent > received ? sent - received : 0;
            const double window = (f.tcpWindow->end - f.tcpWindow->start).GetSeconds();
            goodput = window > 0 ? 8.0 * f.tcpWindow->bytes / window : NAN;
            d[LossAccountant::N_POINTS] = lost; // unexplained: 0 once the connection drained
        }
        else
        {
            Ptr<UdpFlowSink> sink = run.sinks.at(f.to);
            // A failed socket send consumes its sequence number, so attempts are 0..n-1.
            sent = f.source->GetSent() + f.source->GetSendFailures();
            UdpFlowSink::FlowStats st = sink->GetFlowStats(f.id, sent);
            LossAccountant::Attribution a =
                f.accountant->Attribute(f.id, sink->MissingSeqs(f.id, sent));
            for (int p = 0; p < LossAccountant::N_POINTS; ++p)
            {
                d[p] = a.byPoint[p];
            }
            d[LossAccountant::N_POINTS] = a.unexplained;
            received = st.received;
            lost = st.lost;
            duplicated = st.duplicated;
            reordered = st.reordered;
            goodput = st.goodputBps;
            p50 = st.latencyP50Us;
            p99 = st.latencyP99Us;
            maxLatency = st.latencyMaxUs;
            runCount = st.lossRunCount;
            runMean = st.lossRunMean;
            runMax = st.lossRunMax;
        }
        for (size_t p = 0; p < d.size(); ++p)
        {
            dropsTotal[p] += d[p];
        }

        // The record's totals (offered, loss, goodput, achieved) are computed from these
        // by lanloss.totals, for the simulator and the testbed alike.
        j.BeginObject();
        j.Field("stream", f.id);
        j.Field("rate_bps", f.rate.GetBitRate()); // 0: max
        j.Field("sender", f.from);
        j.Field("receiver", f.to);
        j.Field("sent", sent);
        j.Field("received", received);
        j.Field("lost", lost);
        j.Field("duplicated", duplicated);
        j.Field("reordered", reordered);
        j.Field("goodput_bps", goodput);
        j.BeginObject("latency_us")
            .Field("p50", p50)
            .Field("p99", p99)
            .Field("max", maxLatency)
            .EndObject();
        j.BeginObject("loss_runs")
            .Field("count", runCount)
            .Field("mean", runMean)
            .Field("max", runMax)
            .EndObject();
        WriteDrops(j, "drops", d);
        j.EndObject();
    }
    j.EndArray();

    WriteDrops(j, "drops", dropsTotal);

    uint64_t pauseSent = 0, pauseReceived = 0;
    j.BeginObject("pause");
    j.BeginObject("ports");
    for (const auto& [name, dev] : run.lan->NamedPorts())
    {
        if (dev->GetPauseFramesSent() == 0 && dev->GetPauseFramesReceived() == 0)
        {
            continue; // keep records of big LANs readable: only ports that saw PAUSE
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

    // cpu: share of each receiving host's CPU (all cores) per kind of work over the
    // goodput window, as /proc/stat would show it (irq, softirq incl. ksoftirqd, app, idle).
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

    j.BeginObject("timing");
    j.Field("events", run.events);
    j.Field("simulated_s", run.simulatedSeconds);
    j.Field("traffic_start_s", run.trafficStart.GetSeconds());
    j.Field("sim_wall_s", run.wallSeconds);
    j.Field("setup_wall_s", run.setupSeconds);
    j.EndObject();

    j.BeginObject("extra");
    j.Field("cast", o.multicast ? "multicast" : "unicast");
    j.Field("protocol", o.tcp ? "tcp" : "udp");
    j.BeginObject("senders");
    std::set<uint32_t> seen; // multicast: one source, a flow per receiver
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
        j.Field("frames_on_link",
                run.senderFrames.count(f.from)
                    ? run.lan->GetHostDevice(f.from)->GetDataFramesSent() -
                          run.senderFrames.at(f.from)
                    : 0);
        j.EndObject();
    }
    j.EndObject();
    WriteHosts(j, run);
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
            j.BeginObject(name)
                .Field("egress_drops", sw->GetEgressDrops(p))
                .Field("ingress_drops", sw->GetIngressDrops(p))
                .Field("xoff_bytes", sw->GetXoffThreshold(p))
                .Field("xon_bytes", sw->GetXonThreshold(p))
                .Field("headroom_bytes", sw->GetHeadroom(p))
                .EndObject();
        }
    }
    j.EndObject();
    Drops frames{};
    for (int p = 0; p < LossAccountant::N_POINTS; ++p)
    {
        frames[p] = run.accountant->FrameDrops()[p];
    }
    WriteDrops(j, "frame_drops", frames);
    j.Field("untagged_frame_drops", run.accountant->UntaggedDrops());
    j.Field("ipv4_other_drops", run.accountant->OtherIpv4Drops());
    j.EndObject();

    j.EndObject();
    os << "\n";
}

} // namespace lanloss
