// SPDX-License-Identifier: GPL-2.0-only
#include "scenario-hosts.h"

// FAMILIES: generated at build time from lanloss/host_presets.py (TABLE), the one preset table
#include "scenario-presets.h"

#include "ns3/address.h"
#include "ns3/boolean.h"
#include "ns3/inet-socket-address.h"
#include "ns3/node.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/lanloss-linux-rx.h"
#include "ns3/uinteger.h"

#include <algorithm>

using namespace ns3;

namespace lanloss
{

namespace
{

/** cpu.cfs_period_us of the testbed's recv_cpu cgroup (testbed/cpulimit.py PERIOD_US;
 *  the run record reports it, and a test compares the two). */
const Time RECV_CPU_PERIOD = MilliSeconds(100);

const NicFamily&
Family(const std::string& preset)
{
    for (const NicFamily& f : FAMILIES)
    {
        if (preset == f.preset)
        {
            return f;
        }
    }
    NS_ABORT_MSG("no NIC family for host preset " << preset);
}

/** e1000's receive buffer for an MTU (2048, 4096, 8192 or 16384 bytes, e1000_change_mtu)
 *  plus the sk_buff, as the model's LANLOSS_RX_BUFFER_TRUESIZE for MTU 1500. */
uint32_t
RxBufferTruesize(uint32_t mtu)
{
    uint32_t buffer = LANLOSS_RX_BUFFER;
    while (buffer < mtu + 22 && buffer < 16384) // + MAC header, FCS, VLAN tag
    {
        buffer *= 2;
    }
    return buffer + LANLOSS_SKB_HEAD;
}

} // namespace

Time
RecvCpuPeriod()
{
    return RECV_CPU_PERIOD;
}

bool
IsHostPreset(const std::string& name)
{
    for (const NicFamily& f : FAMILIES)
    {
        if (name == f.preset)
        {
            return true;
        }
    }
    return false;
}

std::string
HostPresetNames()
{
    std::string names;
    for (const NicFamily& f : FAMILIES)
    {
        names += std::string(names.empty() ? "" : ", ") + f.preset;
    }
    return names;
}

std::vector<ReceiverHost>
InstallReceiverHosts(const ScenarioOptions& o,
                     const LanBuilder& lan,
                     const std::vector<std::string>& names,
                     uint16_t port,
                     Time trafficStart,
                     Ptr<LossAccountant> global,
                     const std::vector<Ptr<LossAccountant>>& own)
{
    const HostValues& v = o.hostValues;
    const NicFamily& family = Family(o.host);
    HostReceiverHelper helper;
    helper.SetCpuAttribute("Cores", UintegerValue(v.cores * family.smtThreads));
    if (family.smtThreads > 1)
    {
        helper.SetCpuAttribute("SmtSiblings", UintegerValue(family.smtThreads));
        helper.SetCpuAttribute("SmtShare", DoubleValue(family.smtShare));
    }
    helper.SetNicAttribute("RxFifoBytes", UintegerValue(v.rxFifo));
    helper.SetNicAttribute("RxRingSize", UintegerValue(v.rxRing));
    helper.SetNicAttribute("DmaRate", DataRateValue(DataRate(family.dmaBps)));
    helper.SetNicAttribute("DropWhenNoDescriptor",
                           BooleanValue(family.dropWhenNoRing && !o.pause));
    helper.SetNicAttribute("InterruptThrottleRate", UintegerValue(v.itr));
    helper.SetNicAttribute("CauseLatch", BooleanValue(family.causeLatch));
    // A host sends PAUSE only from its FIFO's high-water mark (docs/physics.md §7).
    helper.SetNicAttribute("FlowControl", BooleanValue(o.pause));
    helper.SetNicAttribute("PauseTime", UintegerValue(family.pauseTime));
    helper.SetNicAttribute("PauseRefreshQuanta", UintegerValue(family.refresh));
    helper.SetNicAttribute("SendXon", BooleanValue(true));
    helper.SetNicAttribute("IrqCost", TimeValue(v.irqCost));
    helper.SetNicAttribute("GuestClockAdvance", TimeValue(Seconds(family.clockAdvanceS)));
    // the emulator's speed and stall: the study's own (--guest_emulation_share,
    // --guest_interrupt_stall, from calibrate --table) where given, else the preset's
    helper.SetNicAttribute("GuestClockSpeedup",
                           DoubleValue(o.guestEmulationShare > 0 ? 1 / o.guestEmulationShare
                                                                 : family.clockSpeedup));
    helper.SetNicAttribute("GuestClockInterruptStall",
                           TimeValue(o.guestInterruptStall.IsPositive()
                                         ? o.guestInterruptStall
                                         : Seconds(family.clockInterruptStallS)));
    const int64_t driverSteps =
        int64_t(double(v.packetCost.GetTimeStep()) * family.driverShare + 0.5);
    helper.SetKernelAttribute("DriverCost", TimeValue(TimeStep(driverSteps)));
    helper.SetKernelAttribute("StackCost",
                              TimeValue(TimeStep(v.packetCost.GetTimeStep() - driverSteps)));
    const uint32_t cpus = v.cores * family.smtThreads; // logical CPUs
    const uint64_t everyCore = cpus >= 64 ? ~uint64_t(0) : (uint64_t(1) << cpus) - 1;
    helper.SetKernelAttribute("RpsCpus", UintegerValue(v.rps ? everyCore : 0));
    helper.SetKernelAttribute("BacklogSize", UintegerValue(v.backlog));
    helper.SetNicAttribute("Truesize", UintegerValue(v.truesize));
    helper.SetNicAttribute("RxBufferTruesize", UintegerValue(RxBufferTruesize(o.mtu)));
    if (family.skb61) // Linux 6.1's copy and, at standard frames, its e1000 fragment
    {
        helper.SetSocketAttribute("ForwardDeficit", BooleanValue(true)); // 6.1's UDP
        helper.SetNicAttribute("CopiedTruesize", UintegerValue(LANLOSS_COPIED_TRUESIZE_6_1));
        if (o.mtu <= 1500)
        {
            helper.SetNicAttribute("RxBufferTruesize",
                                   UintegerValue(LANLOSS_KEPT_TRUESIZE_6_1));
        }
    }
    // rcvbuf as passed to setsockopt; the testbed raises rmem_max to it (settings.py), so
    // no clamp: sk_rcvbuf = max(2 * rcvbuf, SOCK_MIN_RCVBUF).
    helper.SetSocketAttribute("RcvBuf", UintegerValue(v.rcvbuf));
    helper.SetSocketAttribute("Force", BooleanValue(true));
    if (family.queueSpinlock)
    {
        helper.SetSocketAttribute("QueueSpinlock", BooleanValue(true));
        helper.SetSocketAttribute("LineTransfer", TimeValue(Seconds(family.lineTransferS)));
        helper.SetSocketAttribute("LockHold", TimeValue(Seconds(family.lockHoldS)));
        helper.SetSocketAttribute("WakeAll", BooleanValue(family.wakeAll));
        helper.SetSocketAttribute("OwnerCost", TimeValue(Seconds(family.ownerS)));
    }
    helper.SetReaderAttribute("ReadCost", TimeValue(v.readCost));
    helper.SetReaderAttribute("ReadByteCost", DoubleValue(v.readByteCost));
    helper.SetReaderAttribute("WakeupCost", TimeValue(v.wakeupCost));
    helper.SetReaderAttribute("WakeFromSleep", BooleanValue(family.wakeFromSleep));
    helper.SetReaderAttribute("CallCost", TimeValue(v.readCallCost));
    helper.SetReadersOnEveryCore(v.readersOnEveryCore);
    helper.SetReusePort(o.reusePort);
    helper.SetReaderAttribute("WorkCost", TimeValue(o.recvWork));
    helper.SetReaderCpuQuota(o.recvCpu / 100.0, RECV_CPU_PERIOD);
    helper.SetReaderAttribute("StallPeriod", TimeValue(v.stallPeriod));
    helper.SetReaderAttribute("StallLength", TimeValue(v.stallLength));
    helper.SetReaderAttribute("StallStart", TimeValue(trafficStart));
    helper.SetReaderAttribute("CollectEvery", UintegerValue(family.collectEveryBytes));
    helper.SetReaderAttribute("CollectPause", TimeValue(Seconds(family.collectPauseS)));

    std::vector<ReceiverHost> hosts;
    for (size_t i = 0; i < names.size(); ++i)
    {
        ReceiverHost r;
        r.name = names[i];
        r.host = helper.Install(lan.GetHostDevice(names[i]), {port}, o.readers);
        HostReceiverHelper::ConnectAccountant(r.host, global);
        if (!own.empty())
        {
            HostReceiverHelper::ConnectAccountant(r.host, own[i]);
        }
        hosts.push_back(std::move(r));
    }
    return hosts;
}

Ptr<HostTcpReader>
InstallTcpReader(const ScenarioOptions& o,
                 const ReceiverHost& host,
                 Ptr<Node> node,
                 uint16_t port)
{
    const HostValues& v = o.hostValues;
    Ptr<HostTcpReader> reader = CreateObject<HostTcpReader>();
    reader->SetAttribute("Local", AddressValue(InetSocketAddress(Ipv4Address::GetAny(), port)));
    reader->SetAttribute("ReadCost", TimeValue(v.readCost));
    reader->SetAttribute("ReadByteCost", DoubleValue(v.readByteCost));
    const NicFamily& family = Family(o.host);
    reader->SetAttribute("DirectCopy", BooleanValue(family.tcpPrequeue));
    reader->SetAttribute("CollectEvery", UintegerValue(family.collectEveryBytes));
    reader->SetAttribute("CollectPause", TimeValue(Seconds(family.collectPauseS)));
    // where the first UDP reader goes (HostReceiverHelper::Install)
    const uint32_t core = v.cores == 1 || v.readersOnEveryCore ? 0 : 1;
    reader->SetAttribute("Core", UintegerValue(core));
    if (host.host.cpuGroup != HostCpu::NONE)
    {
        reader->SetCpuGroup(host.host.cpuGroup);
    }
    node->AddApplication(reader);
    reader->SetStartTime(Seconds(0));
    return reader;
}

bool
ReceiverHostsDrained(const std::vector<ReceiverHost>& hosts)
{
    for (const ReceiverHost& r : hosts)
    {
        const Ptr<HostRxPath>& path = r.host.path;
        if (path->GetFramesInFlight() != path->GetFramesReassembling())
        {
            return false;
        }
        for (const auto& socket : r.host.sockets)
        {
            if (socket->GetQueueLength() > 0)
            {
                return false;
            }
        }
        for (const auto& reader : r.host.readers)
        {
            if (reader->IsReading())
            {
                return false;
            }
        }
    }
    return true;
}

void
SnapshotCpu(std::vector<ReceiverHost>* hosts, bool end)
{
    for (ReceiverHost& r : *hosts)
    {
        auto& busy = end ? r.busyEnd : r.busyStart;
        for (int w = 0; w < HostCpu::N_WORK; ++w)
        {
            busy[w] = r.host.cpu->GetBusyTime(HostCpu::Work(w));
        }
        (end ? r.idleEnd : r.idleStart) = r.host.cpu->GetIdleTime();
    }
}

} // namespace lanloss
