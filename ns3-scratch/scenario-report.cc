#include "scenario-report.h"

#include "json-writer.h"

#include <array>

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

} // namespace

void
WriteReport(std::ostream& os, const ScenarioRun& run)
{
    const ScenarioOptions& o = run.options;
    const double seconds = o.duration.GetSeconds();
    JsonWriter j(os);
    j.BeginObject();
    j.Field("ns3_version", "3.44");

    uint64_t sentTotal = 0, receivedTotal = 0;
    double offeredBps = 0, offeredPps = 0, goodputTotal = 0;
    Drops dropsTotal{};

    j.BeginArray("flows");
    for (const auto& f : run.flows)
    {
        Ptr<UdpFlowSink> sink = run.sinks.at(f.to);
        // A failed socket send consumes its sequence number, so attempts are 0..n-1.
        const uint64_t sent = f.source->GetSent() + f.source->GetSendFailures();
        UdpFlowSink::FlowStats st = sink->GetFlowStats(f.id, sent);
        LossAccountant::Attribution a = run.accountant->Attribute(f.id, sink->MissingSeqs(f.id, sent));
        Drops d{};
        for (int p = 0; p < LossAccountant::N_POINTS; ++p)
        {
            d[p] = a.byPoint[p];
            dropsTotal[p] += a.byPoint[p];
        }
        d[LossAccountant::N_POINTS] = a.unexplained;
        dropsTotal[LossAccountant::N_POINTS] += a.unexplained;

        const double payloadBits = 8.0 * o.payload;
        if (f.rate.GetBitRate() > 0)
        {
            offeredBps += f.rate.GetBitRate();
            offeredPps += f.rate.GetBitRate() / payloadBits;
        }
        else // max: what the sender's stack accepted
        {
            offeredBps += sent * payloadBits / seconds;
            offeredPps += sent / seconds;
        }
        sentTotal += sent;
        receivedTotal += st.received;
        goodputTotal += st.goodputBps;

        j.BeginObject();
        j.Field("sender", f.from);
        j.Field("receiver", f.to);
        j.Field("sent", sent);
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
        WriteDrops(j, "drops", d);
        j.EndObject();
    }
    j.EndArray();

    j.BeginObject("totals");
    j.Field("offered_bps", offeredBps);
    j.Field("offered_pps", offeredPps);
    j.Field("sent", sentTotal);
    j.Field("received", receivedTotal);
    j.Field("loss", sentTotal ? 1.0 - double(receivedTotal) / double(sentTotal) : 0.0);
    j.Field("goodput_bps", goodputTotal);
    j.EndObject();
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

    j.BeginObject("timing");
    j.Field("events", run.events);
    j.Field("simulated_s", run.simulatedSeconds);
    j.Field("traffic_start_s", run.trafficStart.GetSeconds());
    j.Field("sim_wall_s", run.wallSeconds);
    j.EndObject();

    j.BeginObject("extra");
    j.BeginObject("senders");
    for (const auto& f : run.flows)
    {
        j.BeginObject("flow" + std::to_string(f.id))
            .Field("sender", f.from)
            .Field("sent_ok", f.source->GetSent())
            .Field("send_failures", f.source->GetSendFailures())
            .Field("blocked_s", f.source->GetBlockedTime().GetSeconds())
            .EndObject();
    }
    j.EndObject();
    j.BeginObject("switch_ports");
    for (const auto& sw : run.lan->GetSwitches())
    {
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            std::string name;
            for (const auto& [n, dev] : run.lan->NamedPorts())
            {
                if (dev == sw->GetPort(p))
                {
                    name = n;
                }
            }
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
