// SPDX-License-Identifier: GPL-2.0-only
#include "scenario-options.h"

// the flags: generated at build time from lanloss/options.py (OPTIONS), the one table
#include "scenario-flags.h"

#include "scenario-hosts.h"
#include "scenario-presets.h"

#include "ns3/abort.h"
#include "ns3/command-line.h"
#include "ns3/ethernet-switch-net-device.h"
#include "ns3/lan-spec.h"
#include "ns3/udp-flow-source.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>

using namespace ns3;

namespace lanloss
{

namespace
{

[[noreturn]] void
Fail(const std::string& option, const std::string& value, const std::string& why)
{
    std::cerr << "lanloss-sim: error: " << option << ": '" << value << "' " << why << std::endl;
    std::exit(2);
}

/** The vocabulary's row for flag @p name (scenario-flags.h). */
const flags::Flag&
Row(const std::string& name)
{
    for (const flags::Flag& f : flags::TABLE)
    {
        if (name == f.name)
        {
            return f;
        }
    }
    NS_ABORT_MSG("scenario-flags.h has no flag " << name);
}

/** A bound as the vocabulary states it: whole numbers in full, others as %g does. */
std::string
Bound(double value)
{
    std::ostringstream os;
    if (value == std::floor(value) && std::fabs(value) < 1e15)
    {
        os << int64_t(value);
    }
    else
    {
        os << value;
    }
    return os.str();
}

/** The value of flag @p f within the vocabulary's range (in its canonical unit). */
void
CheckRange(const flags::Flag& f, double value, const std::string& text)
{
    if (f.hasMinimum && value < f.minimum)
    {
        Fail(f.name, text, "is below the minimum " + Bound(f.minimum));
    }
    if (f.hasMaximum && value > f.maximum)
    {
        Fail(f.name, text, "is above the maximum " + Bound(f.maximum));
    }
}

/** The @p digits of the flag's @p text -> their value; a number beyond 64 bits is
 *  refused, naming the option. */
uint64_t
Whole(const std::string& name, const std::string& digits, const std::string& text)
{
    try
    {
        return std::stoull(digits);
    }
    catch (const std::out_of_range&)
    {
        Fail(name, text, "is too large");
    }
}

/** The decimal @p number of the flag's @p text -> its value; one beyond a double's range
 *  is refused, naming the option. */
double
Real(const std::string& name, const std::string& number, const std::string& text)
{
    try
    {
        return std::stod(number);
    }
    catch (const std::out_of_range&)
    {
        Fail(name, text, "is out of range");
    }
}

/** The longest time a flag may give: far inside ns-3's Time range (2^63 ns, 292 years),
 *  so that sums of times (start, duration, drain bound) cannot overflow it. */
constexpr double MAX_TIME_SECONDS = 1e9;

} // namespace

void
FlagTexts::AddTo(CommandLine& cmd)
{
    for (const flags::Flag& f : flags::TABLE)
    {
        std::string& text = m_text[f.name]; // a map's elements stay where they are
        text = f.defaultText;
        cmd.AddValue(f.name, f.help, text);
    }
}

const std::string&
FlagTexts::Text(const std::string& name) const
{
    Row(name);
    return m_text.at(name);
}

bool
FlagTexts::IsSet(const std::string& name) const
{
    return !Text(name).empty();
}

DataRate
FlagTexts::Rate(const std::string& name) const
{
    const std::string& text = Text(name);
    DataRateValue v;
    if (!v.DeserializeFromString(text, MakeDataRateChecker()) || v.Get().GetBitRate() == 0)
    {
        Fail(name, text, "is not a positive data rate (e.g. 100Mbps)");
    }
    CheckRange(Row(name), double(v.Get().GetBitRate()), text);
    return v.Get();
}

Time
FlagTexts::Duration(const std::string& name) const
{
    static const std::regex re(
        R"(^\s*([0-9]*\.?[0-9]+([eE][+-]?[0-9]+)?)\s*(s|ms|us|ns|ps|fs|min|h|d|y)?\s*$)");
    static const std::map<std::string, double> unit = {{"", 1.0},
                                                       {"s", 1.0},
                                                       {"ms", 1e-3},
                                                       {"us", 1e-6},
                                                       {"ns", 1e-9},
                                                       {"ps", 1e-12},
                                                       {"fs", 1e-15},
                                                       {"min", 60.0},
                                                       {"h", 3600.0},
                                                       {"d", 86400.0},
                                                       {"y", 365.0 * 86400}};
    const std::string& text = Text(name);
    std::smatch m;
    if (!std::regex_match(text, m, re))
    {
        Fail(name, text, "is not a non-negative duration (e.g. 2s, 1us)");
    }
    const double seconds = Real(name, m[1].str(), text) * unit.at(m[3].str());
    if (seconds > MAX_TIME_SECONDS)
    {
        Fail(name, text, "is beyond the simulator's time range (1e9 s)");
    }
    TimeValue v;
    if (!v.DeserializeFromString(text, MakeTimeChecker()))
    {
        Fail(name, text, "is not a non-negative duration (e.g. 2s, 1us)");
    }
    CheckRange(Row(name), seconds, text);
    return v.Get();
}

double
FlagTexts::Seconds(const std::string& name) const
{
    static const std::regex re(R"(^\s*([0-9]*\.?[0-9]+([eE][+-]?[0-9]+)?)\s*(s|ms|us|ns|ps)?\s*$)");
    static const std::map<std::string, double> unit = {
        {"", 1.0}, {"s", 1.0}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}, {"ps", 1e-12}};
    const std::string& text = Text(name);
    std::smatch m;
    if (!std::regex_match(text, m, re))
    {
        Fail(name, text, "is not a time (e.g. 0.5ns)");
    }
    const double seconds = Real(name, m[1].str(), text) * unit.at(m[3].str());
    // a cost per byte or frame, summed over a message of up to 1 MiB
    if (seconds * (1 << 20) > MAX_TIME_SECONDS)
    {
        Fail(name, text, "is beyond the simulator's time range (1e9 s per MiB)");
    }
    CheckRange(Row(name), seconds, text);
    return seconds;
}

uint64_t
FlagTexts::Size(const std::string& name) const
{
    static const std::regex re(R"(^\s*([0-9]+)\s*(B|KiB|MiB|GiB|kB|KB|MB|GB)?\s*$)");
    const std::string& text = Text(name);
    std::smatch m;
    if (!std::regex_match(text, m, re))
    {
        Fail(name, text, "is not a size in bytes (e.g. 131072, 128KiB)");
    }
    const uint64_t n = Whole(name, m[1], text);
    const std::string unit = m[2];
    const uint64_t scale = unit == "KiB"                  ? 1ull << 10
                           : unit == "MiB"                ? 1ull << 20
                           : unit == "GiB"                ? 1ull << 30
                           : unit == "kB" || unit == "KB" ? 1000
                           : unit == "MB"                 ? 1000000
                           : unit == "GB"                 ? 1000000000
                                                          : 1;
    if (n > UINT64_MAX / scale)
    {
        Fail(name, text, "is too large");
    }
    CheckRange(Row(name), double(n * scale), text);
    return n * scale;
}

uint64_t
FlagTexts::Count(const std::string& name) const
{
    static const std::regex re(R"(^[0-9]+$)");
    const std::string& text = Text(name);
    if (!std::regex_match(text, re))
    {
        Fail(name, text, "is not a whole number");
    }
    const uint64_t v = Whole(name, text, text);
    CheckRange(Row(name), double(v), text);
    return v;
}

double
FlagTexts::Probability(const std::string& name) const
{
    static const std::regex re(R"(^\s*([0-9]*\.?[0-9]+([eE][+-]?[0-9]+)?)\s*$)");
    const std::string& text = Text(name);
    if (!std::regex_match(text, re))
    {
        Fail(name, text, "is not a probability (e.g. 0.001)");
    }
    const double v = Real(name, text, text);
    if (v >= 1.0)
    {
        Fail(name, text, "must be below 1");
    }
    CheckRange(Row(name), v, text);
    return v;
}

std::string
FlagTexts::Choice(const std::string& name) const
{
    const flags::Flag& f = Row(name);
    NS_ABORT_MSG_UNLESS(f.choices, "flag " << name << " is not a choice");
    const std::string& text = Text(name);
    std::string known;
    for (const char* const* c = f.choices; *c; ++c)
    {
        if (text == *c)
        {
            return text;
        }
        known += (known.empty() ? "" : ", ") + std::string(*c);
    }
    Fail(name, text, "is not one of (" + known + ")");
}

bool
FlagTexts::OnOff(const std::string& name) const
{
    return Choice(name) == "on";
}

namespace
{

/** The flags of the program itself, not options of the vocabulary. */
void
AddProgramFlags(CommandLine& cmd, ScenarioOptions& o)
{
    cmd.AddValue("out", "write the JSON result here (default stdout)", o.out);
    cmd.AddValue("pcap", "write pcap files with this prefix", o.pcap);
    cmd.AddValue("print_spec",
                 "print the LAN this run builds (topology line format) and exit",
                 o.printSpec);
    cmd.AddValue("check",
                 "check the flags against the LAN (as a run does before it starts), then exit",
                 o.checkOnly);
    cmd.AddValue("udp_fast_path",
                 "UDP datagrams of one frame go between the applications and the devices "
                 "around ns-3's UDP and IPv4 objects (UdpFastPath): the same record, faster",
                 o.udpFastPath);
}

/** The LAN: topology, link speeds and delays, hosts. */
void
ReadLan(const FlagTexts& f, ScenarioOptions& o)
{
    o.topology = f.Text("topology");
    o.edgeRate = f.Rate("edge_rate");
    o.backboneRate = f.Rate("backbone_rate");
    o.senderRate = f.IsSet("sender_rate") ? f.Rate("sender_rate") : o.edgeRate;
    o.linkDelay = f.Duration("link_delay");
    o.wanDelay = f.Duration("wan_delay");
    o.edgeSwitches = f.Count("edge_switches");
    o.senders = f.Count("senders");
    o.receivers = f.Count("receivers");
}

/** The burst of a pattern burst:N, within the source's 32-bit counter (UdpFlowSource;
 *  the vocabulary's range is narrower). */
std::string
ReadPattern(const FlagTexts& f)
{
    static const std::regex patternRe(flags::PATTERN_RE);
    const std::string& pattern = f.Text("pattern");
    std::smatch burst;
    if (!std::regex_match(pattern, burst, patternRe))
    {
        Fail("pattern", pattern, "is not cbr, poisson or burst:N");
    }
    const bool burstTooLarge =
        burst[2].matched &&
        (burst[2].length() > 10 || Whole("pattern", burst[2], pattern) > UINT32_MAX);
    if (burstTooLarge)
    {
        Fail("pattern", pattern, "has a burst size above 4294967295");
    }
    return pattern;
}

/** The traffic: protocol, cast, payload, rate, pattern, times, seed. */
void
ReadTraffic(const FlagTexts& f, ScenarioOptions& o)
{
    o.payload = f.Count("payload");
    o.maxRate = f.Text("rate") == "max";
    if (!o.maxRate)
    {
        o.rate = f.Rate("rate");
    }
    o.pattern = ReadPattern(f);
    o.startBurst = static_cast<uint32_t>(f.Count("start_burst")); // at most 1e6 (the table)
    o.duration = f.Duration("duration");
    o.warmup = f.Duration("warmup");
    if (o.warmup >= o.duration)
    {
        Fail("warmup", f.Text("warmup"), "must be shorter than duration");
    }
    o.seed = f.Count("seed");
    o.multicast = f.Choice("cast") == "multicast";
    o.tcp = f.Choice("protocol") == "tcp";
    if (!o.tcp && o.payload > UdpFlowSource::MAX_PAYLOAD)
    {
        Fail("payload",
             f.Text("payload"),
             "exceeds the UDP maximum " + std::to_string(UdpFlowSource::MAX_PAYLOAD));
    }
    if (o.tcp && o.startBurst > 0)
    {
        Fail("start_burst", f.Text("start_burst"), "needs protocol udp");
    }
    if (o.tcp && o.multicast)
    {
        Fail("cast", f.Text("cast"), "needs protocol udp (TCP is unicast)");
    }
    if (f.IsSet("tcp_window"))
    {
        if (!o.tcp)
        {
            Fail("tcp_window", f.Text("tcp_window"), "applies to protocol tcp only");
        }
        o.tcpWindow = f.Size("tcp_window");
    }
    o.frameLoss = f.Probability("frame_loss");
}

/** The links and switches: MTU, PAUSE, buffers and queues; the senders' costs. */
void
ReadLinksAndSenders(const FlagTexts& f, ScenarioOptions& o)
{
    o.mtu = f.Count("mtu");
    o.pause = f.OnOff("pause");
    o.pauseStyle = f.Choice("pause_style");
    o.pauseQuanta = f.Count("pause_quanta");
    o.switchBuffer = f.Size("switch_buffer");
    o.switchPool = f.Size("switch_pool");
    o.txQueue = f.Size("tx_queue");
    o.blocking = f.OnOff("blocking");
    o.sendCost = f.Duration("send_cost");
    o.sendByteCost = f.Seconds("send_byte_cost");
    o.sendPacketCost = f.Seconds("send_packet_cost");
}

/** The receiving applications: readers, their sockets and CPU share. */
void
ReadReceivers(const FlagTexts& f, ScenarioOptions& o)
{
    o.readers = f.Count("readers");
    o.reusePort = f.OnOff("reuseport");
    if (o.reusePort && o.readers > 1 && o.multicast)
    {
        Fail("reuseport",
             f.Text("reuseport"),
             "with multicast: every socket of the group gets a copy");
    }
    if (f.IsSet("recv_cpu"))
    {
        o.recvCpu = f.Count("recv_cpu");
    }
    if (f.IsSet("recv_work"))
    {
        o.recvWork = f.Duration("recv_work");
    }
    o.echo = f.OnOff("echo");
    if (o.echo && o.multicast)
    {
        Fail("echo", f.Text("echo"), "needs cast unicast (every member would echo each message)");
    }
    o.echoCost = f.Duration("echo_cost");
    o.echoRecvCost = f.Duration("echo_recv_cost");
    if (f.IsSet("guest_emulation_share"))
    {
        o.guestEmulationShare = f.Probability("guest_emulation_share");
    }
    if (f.IsSet("guest_interrupt_stall"))
    {
        o.guestInterruptStall = f.Duration("guest_interrupt_stall");
    }
}

/** An ideal host takes no host value (HOST_VALUE_FLAGS, scenario-presets.h), one reader and
 * no CPU share or work. */
void
CheckIdealHost(const FlagTexts& f, const ScenarioOptions& o)
{
    const std::string needs = "needs a host model (--host " + HostPresetNames() + ")";
    for (const char* name : HOST_VALUE_FLAGS)
    {
        if (f.IsSet(name))
        {
            Fail(name, f.Text(name), needs);
        }
    }
    if (o.readers != 1)
    {
        Fail("readers", f.Text("readers"), needs);
    }
    for (const char* name : {"recv_cpu", "recv_work"})
    {
        if (f.IsSet(name))
        {
            Fail(name, f.Text(name), needs);
        }
    }
    if (o.echo)
    {
        Fail("echo", f.Text("echo"), needs);
    }
}

/** A host model's values, every one given (`lanloss sim run` fills them from the preset). */
HostValues
ReadHostValues(const FlagTexts& f)
{
    for (const char* name : HOST_VALUE_FLAGS)
    {
        if (!f.IsSet(name))
        {
            Fail(name,
                 "",
                 "is missing: a host model needs every host value (`lanloss sim run` fills "
                 "them from its preset, lanloss/host_values.py)");
        }
    }
    HostValues h;
    h.cores = f.Count("cores");
    h.irqCost = f.Duration("irq_cost");
    h.packetCost = f.Duration("packet_cost");
    h.readCost = f.Duration("read_cost");
    h.readByteCost = f.Seconds("read_byte_cost");
    h.readCallCost = f.Duration("read_call_cost");
    h.wakeupCost = f.Duration("wakeup_cost");
    h.readersOnEveryCore = f.Choice("reader_cores") == "all";
    h.truesize = f.Size("truesize");
    h.rxFifo = f.Size("rx_fifo");
    h.rxRing = f.Count("rx_ring");
    h.itr = f.Count("itr");
    h.backlog = f.Count("backlog");
    h.rcvbuf = f.Size("rcvbuf");
    h.stallPeriod = f.Duration("stall_period");
    h.stallLength = f.Duration("stall_length");
    if (h.stallLength.IsStrictlyPositive() != h.stallPeriod.IsStrictlyPositive())
    {
        Fail("stall_length",
             f.Text("stall_length"),
             "and stall_period must both be zero or both positive");
    }
    if (h.stallPeriod.IsStrictlyPositive() && h.stallLength >= h.stallPeriod)
    {
        Fail("stall_length", f.Text("stall_length"), "must be shorter than stall_period");
    }
    h.rps = f.OnOff("rps");
    return h;
}

} // namespace

ScenarioOptions
ParseOptions(int argc, char* argv[])
{
    ScenarioOptions o;
    FlagTexts f; // the vocabulary's flags, from their defaults (scenario-flags.h)
    CommandLine cmd("lanloss-sim");
    cmd.Usage("One lanloss simulation point: a switched Ethernet LAN, UDP flows, a JSON "
              "run record (flags = the shared vocabulary of lanloss/options.py).");
    f.AddTo(cmd);
    AddProgramFlags(cmd, o);
    cmd.Parse(argc, argv);

    ReadLan(f, o);
    ReadTraffic(f, o);
    ReadLinksAndSenders(f, o);
    ReadReceivers(f, o);
    o.host = f.Choice("host");
    if (o.host == "ideal")
    {
        CheckIdealHost(f, o);
        return o;
    }
    o.hostValues = ReadHostValues(f);
    return o;
}

void
CheckOptionsAgainstLan(const ScenarioOptions& o, const LanSpec& spec)
{
    if (!o.pause)
    {
        return;
    }
    // With PAUSE every switch port needs its egress buffer above the port's headroom
    // (the switch's own rule: EthernetSwitchNetDevice::PauseHeadroom).
    auto isSwitch = [&spec](const std::string& node) {
        return std::find(spec.switches.begin(), spec.switches.end(), node) !=
               spec.switches.end();
    };
    for (const auto& link : spec.links)
    {
        const bool switchEnd = isSwitch(link.a) || isSwitch(link.b);
        const uint32_t headroom =
            EthernetSwitchNetDevice::PauseHeadroom(o.mtu, link.rate, link.delay);
        if (switchEnd && o.switchBuffer <= headroom)
        {
            Fail("switch_buffer",
                 std::to_string(o.switchBuffer),
                 "is not above the PAUSE headroom of link " + link.a + "-" + link.b + " (" +
                     std::to_string(headroom) +
                     " B: 3 frames of the MTU, a PAUSE frame and the cable's round trip); "
                     "raise switch_buffer or turn pause off");
        }
    }
}

} // namespace lanloss
