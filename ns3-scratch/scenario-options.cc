// SPDX-License-Identifier: GPL-2.0-only
#include "scenario-options.h"

// defaults: generated at build time from lanloss/options.py (OPTIONS), the one table
#include "scenario-defaults.h"

#include "scenario-hosts.h"

#include "ns3/command-line.h"
#include "ns3/ethernet-switch-net-device.h"
#include "ns3/lan-spec.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <regex>

using namespace ns3;

namespace lanloss
{

[[noreturn]] static void
Fail(const std::string& option, const std::string& value, const std::string& why)
{
    std::cerr << "lanloss-sim: error: " << option << ": '" << value << "' " << why << std::endl;
    std::exit(2);
}

static DataRate
Rate(const std::string& name, const std::string& text)
{
    DataRateValue v;
    if (!v.DeserializeFromString(text, MakeDataRateChecker()) || v.Get().GetBitRate() == 0)
    {
        Fail(name, text, "is not a positive data rate (e.g. 100Mbps)");
    }
    return v.Get();
}

/** The @p digits of the flag's @p text -> their value; a number beyond 64 bits is
 *  refused, naming the option. */
static uint64_t
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
static double
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

static Time
Duration(const std::string& name, const std::string& text)
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
    std::smatch m;
    if (!std::regex_match(text, m, re))
    {
        Fail(name, text, "is not a non-negative duration (e.g. 2s, 1us)");
    }
    if (Real(name, m[1].str(), text) * unit.at(m[3].str()) > MAX_TIME_SECONDS)
    {
        Fail(name, text, "is beyond the simulator's time range (1e9 s)");
    }
    TimeValue v;
    if (!v.DeserializeFromString(text, MakeTimeChecker()))
    {
        Fail(name, text, "is not a non-negative duration (e.g. 2s, 1us)");
    }
    return v.Get();
}

static uint64_t
Size(const std::string& name, const std::string& text)
{
    static const std::regex re(R"(^\s*([0-9]+)\s*(B|KiB|MiB|GiB|kB|KB|MB|GB)?\s*$)");
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
    return n * scale;
}

static uint64_t
Count(const std::string& name, const std::string& text, uint64_t lo, uint64_t hi)
{
    static const std::regex re(R"(^[0-9]+$)");
    if (!std::regex_match(text, re))
    {
        Fail(name, text, "is not a whole number");
    }
    const uint64_t v = Whole(name, text, text);
    if (v < lo || v > hi)
    {
        Fail(name, text, "is outside " + std::to_string(lo) + ".." + std::to_string(hi));
    }
    return v;
}

static double
Probability(const std::string& name, const std::string& text)
{
    static const std::regex re(R"(^\s*([0-9]*\.?[0-9]+([eE][+-]?[0-9]+)?)\s*$)");
    if (!std::regex_match(text, re))
    {
        Fail(name, text, "is not a probability (e.g. 0.001)");
    }
    const double v = Real(name, text, text);
    if (v >= 1.0)
    {
        Fail(name, text, "must be below 1");
    }
    return v;
}

static bool
OnOff(const std::string& name, const std::string& text)
{
    if (text == "on")
        return true;
    if (text == "off")
        return false;
    Fail(name, text, "is not on or off");
}

/** A time as a double in seconds ("5e-10s", "0.5ns"): below ns-3's 1 ns resolution. */
static double
SecondsOf(const std::string& name, const std::string& text)
{
    static const std::regex re(R"(^\s*([0-9]*\.?[0-9]+([eE][+-]?[0-9]+)?)\s*(s|ms|us|ns|ps)?\s*$)");
    std::smatch m;
    if (!std::regex_match(text, m, re))
    {
        Fail(name, text, "is not a time (e.g. 0.5ns)");
    }
    static const std::map<std::string, double> unit = {
        {"", 1.0}, {"s", 1.0}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}, {"ps", 1e-12}};
    const double seconds = Real(name, m[1].str(), text) * unit.at(m[3].str());
    // a cost per byte or frame, summed over a message of up to 1 MiB
    if (seconds * (1 << 20) > MAX_TIME_SECONDS)
    {
        Fail(name, text, "is beyond the simulator's time range (1e9 s per MiB)");
    }
    return seconds;
}

ScenarioOptions
ParseOptions(int argc, char* argv[])
{
    ScenarioOptions o;
    // The vocabulary's defaults (generated from lanloss/options.py: scenario-defaults.h);
    // "" = unset: host values come all together, or not at all for the ideal host.
    namespace d = defaults;
    std::string topology = d::topology, edgeRate = d::edge_rate;
    std::string backboneRate = d::backbone_rate, senderRate = d::sender_rate;
    std::string linkDelay = d::link_delay, wanDelay = d::wan_delay;
    std::string edgeSwitches = d::edge_switches, senders = d::senders;
    std::string receivers = d::receivers, payload = d::payload;
    std::string rate = d::rate, pattern = d::pattern, duration = d::duration;
    std::string warmup = d::warmup, seed = d::seed, mtu = d::mtu, pause = d::pause;
    std::string pauseStyle = d::pause_style, pauseQuanta = d::pause_quanta;
    std::string switchBuffer = d::switch_buffer, switchPool = d::switch_pool;
    std::string txQueue = d::tx_queue, blocking = d::blocking, host = d::host;
    std::string cast = d::cast, protocol = d::protocol, tcpWindow = d::tcp_window;
    std::string frameLoss = d::frame_loss, readers = d::readers, reusePort = d::reuseport;
    std::string recvCpu = d::recv_cpu, recvWork = d::recv_work;
    std::string sendCost = d::send_cost, sendByteCost = d::send_byte_cost;
    std::string sendPacketCost = d::send_packet_cost;
    std::string cores = d::cores, irqCost = d::irq_cost, packetCost = d::packet_cost;
    std::string readCost = d::read_cost, readByteCost = d::read_byte_cost;
    std::string wakeupCost = d::wakeup_cost, readerCores = d::reader_cores;
    std::string truesize = d::truesize, rxFifo = d::rx_fifo, rxRing = d::rx_ring;
    std::string itr = d::itr, backlog = d::backlog, rcvbuf = d::rcvbuf;
    std::string stallPeriod = d::stall_period, stallLength = d::stall_length, rps = d::rps;

    CommandLine cmd("lanloss-sim");
    cmd.Usage("One lanloss simulation point: a switched Ethernet LAN, UDP flows, a JSON "
              "run record (flags = the shared vocabulary of lanloss/options.py).");
    cmd.AddValue("topology", "star, two-tier, two-site, or a topology spec file", topology);
    cmd.AddValue("edge_rate", "link speed of the hosts' edge links", edgeRate);
    cmd.AddValue("backbone_rate", "link speed between switches", backboneRate);
    cmd.AddValue("sender_rate", "link speed of the sending hosts (default edge_rate)", senderRate);
    cmd.AddValue("link_delay", "propagation delay of every LAN link", linkDelay);
    cmd.AddValue("wan_delay", "propagation delay of the two-site backbone link", wanDelay);
    cmd.AddValue("edge_switches", "edge switches under the core (two-tier)", edgeSwitches);
    cmd.AddValue("senders", "sending hosts", senders);
    cmd.AddValue("receivers", "receiving hosts", receivers);
    cmd.AddValue("payload", "UDP payload bytes (1..65507), TCP message (1..1048576)", payload);
    cmd.AddValue("rate", "offered payload bit rate per flow, or max", rate);
    cmd.AddValue("pattern", "cbr, poisson or burst:N", pattern);
    cmd.AddValue("duration", "traffic duration", duration);
    cmd.AddValue("warmup", "start of the traffic discarded from goodput", warmup);
    cmd.AddValue("seed", "RNG run number", seed);
    cmd.AddValue("mtu", "IP MTU of every link (68..9216)", mtu);
    cmd.AddValue("pause", "IEEE 802.3x flow control: on/off", pause);
    cmd.AddValue("pause_style", "xon (XOFF+XON) or timed (refreshed, no XON)", pauseStyle);
    cmd.AddValue("pause_quanta", "pause_time of an XOFF in quanta (1..65535)", pauseQuanta);
    cmd.AddValue("switch_buffer", "egress buffer per switch port, bytes", switchBuffer);
    cmd.AddValue("switch_pool", "shared buffer pool per switch, bytes (0 = none)", switchPool);
    cmd.AddValue("tx_queue", "transmit queue of each host NIC, bytes", txQueue);
    cmd.AddValue("blocking", "paced sender waits when its queue is full: on/off", blocking);
    cmd.AddValue("cast", "unicast or multicast (one group, every receiver a member)", cast);
    cmd.AddValue("protocol", "udp or tcp (bulk transfer of payload-byte messages)", protocol);
    cmd.AddValue("tcp_window", "TCP socket buffers = window, bytes (tcp only)", tcpWindow);
    cmd.AddValue("send_cost", "the sender's CPU time per send() call", sendCost);
    cmd.AddValue("send_byte_cost", "the sender's CPU time per payload byte", sendByteCost);
    cmd.AddValue("send_packet_cost", "the sender's CPU time per frame it sends", sendPacketCost);
    cmd.AddValue("frame_loss", "probability that a receiving NIC discards a frame", frameLoss);
    cmd.AddValue("host", "receive-host model: ideal or a preset of lanloss/hosts.py", host);
    cmd.AddValue("readers", "receiving processes per receiver (host model)", readers);
    cmd.AddValue("reuseport", "readers share one socket (off) or have one each (on)", reusePort);
    cmd.AddValue("recv_cpu", "readers' CPU share per host, % of one CPU (CFS quota)", recvCpu);
    cmd.AddValue("recv_work", "the application's own CPU time per datagram", recvWork);
    cmd.AddValue("cores", "CPU cores of a receiving host", cores);
    cmd.AddValue("irq_cost", "CPU time per NIC interrupt", irqCost);
    cmd.AddValue("packet_cost", "kernel CPU time per frame (driver + IP/UDP)", packetCost);
    cmd.AddValue("read_cost", "application CPU time per datagram read", readCost);
    cmd.AddValue("read_byte_cost", "application CPU time per payload byte read", readByteCost);
    cmd.AddValue("wakeup_cost", "CPU time of a reader handed a shared socket's lock", wakeupCost);
    cmd.AddValue("reader_cores", "readers on the other cores (others) or all", readerCores);
    cmd.AddValue("truesize", "skb truesize per frame, bytes (0 = driver rule)", truesize);
    cmd.AddValue("rx_fifo", "NIC receive FIFO, bytes", rxFifo);
    cmd.AddValue("rx_ring", "NIC RX descriptors", rxRing);
    cmd.AddValue("itr", "max interrupts per second (0 = one per packet)", itr);
    cmd.AddValue("backlog", "netdev_max_backlog (used with rps on)", backlog);
    cmd.AddValue("rcvbuf", "SO_RCVBUF as passed to setsockopt, bytes", rcvbuf);
    cmd.AddValue("stall_period", "the reader stalls every this long (0 = never)", stallPeriod);
    cmd.AddValue("stall_length", "for this long", stallLength);
    cmd.AddValue("rps", "Receive Packet Steering over every core: on/off", rps);
    cmd.AddValue("out", "write the JSON result here (default stdout)", o.out);
    cmd.AddValue("pcap", "write pcap files with this prefix", o.pcap);
    cmd.AddValue("print_spec",
                 "print the LAN this run builds (topology line format) and exit",
                 o.printSpec);
    cmd.AddValue("check",
                 "check the flags against the LAN (as a run does before it starts), then exit",
                 o.checkOnly);
    cmd.Parse(argc, argv);

    o.topology = topology;
    o.edgeRate = Rate("edge_rate", edgeRate);
    o.backboneRate = Rate("backbone_rate", backboneRate);
    o.senderRate = senderRate.empty() ? o.edgeRate : Rate("sender_rate", senderRate);
    o.linkDelay = Duration("link_delay", linkDelay);
    o.wanDelay = Duration("wan_delay", wanDelay);
    o.edgeSwitches = Count("edge_switches", edgeSwitches, 1, 64);
    o.senders = Count("senders", senders, 1, 1024);
    o.receivers = Count("receivers", receivers, 1, 1024);
    o.payload = Count("payload", payload, 1, 1048576); // a TCP message, as lanloss-send
    if (rate == "max")
    {
        o.maxRate = true;
    }
    else
    {
        o.maxRate = false;
        o.rate = Rate("rate", rate);
    }
    static const std::regex patternRe(R"(^(cbr|poisson|burst:([1-9][0-9]*))$)");
    std::smatch burst;
    if (!std::regex_match(pattern, burst, patternRe))
        Fail("pattern", pattern, "is not cbr, poisson or burst:N");
    // the source's burst counter is 32 bits (UdpFlowSource); the vocabulary's range
    // (lanloss/options.py) is narrower
    const bool burstTooLarge =
        burst[2].matched &&
        (burst[2].length() > 10 || Whole("pattern", burst[2], pattern) > UINT32_MAX);
    if (burstTooLarge)
        Fail("pattern", pattern, "has a burst size above 4294967295");
    o.pattern = pattern;
    o.duration = Duration("duration", duration);
    if (!o.duration.IsStrictlyPositive())
        Fail("duration", duration, "must be positive");
    o.warmup = Duration("warmup", warmup);
    if (o.warmup >= o.duration)
        Fail("warmup", warmup, "must be shorter than duration");
    o.seed = Count("seed", seed, 1, 0x7FFFFFFF);
    o.mtu = Count("mtu", mtu, 68, 9216);
    o.pause = OnOff("pause", pause);
    if (pauseStyle != "xon" && pauseStyle != "timed")
        Fail("pause_style", pauseStyle, "is not xon or timed");
    o.pauseStyle = pauseStyle;
    o.pauseQuanta = Count("pause_quanta", pauseQuanta, 1, 0xFFFF);
    o.switchBuffer = Size("switch_buffer", switchBuffer);
    o.switchPool = Size("switch_pool", switchPool);
    o.txQueue = Size("tx_queue", txQueue);
    if (o.switchBuffer < 64 || o.switchBuffer > 0xFFFFFFFFull)
        Fail("switch_buffer", switchBuffer, "is outside 64 B .. 4 GiB");
    if (o.txQueue < 64 || o.txQueue > 0xFFFFFFFFull)
        Fail("tx_queue", txQueue, "is outside 64 B .. 4 GiB");
    if (o.switchPool > 0xFFFFFFFFull)
        Fail("switch_pool", switchPool, "is above 4 GiB");
    o.blocking = OnOff("blocking", blocking);
    if (cast != "unicast" && cast != "multicast")
        Fail("cast", cast, "is not unicast or multicast");
    o.multicast = cast == "multicast";
    if (protocol != "udp" && protocol != "tcp")
        Fail("protocol", protocol, "is not udp or tcp");
    o.tcp = protocol == "tcp";
    if (!o.tcp && o.payload > 65507)
        Fail("payload", payload, "exceeds the UDP maximum 65507");
    if (o.tcp && o.multicast)
        Fail("cast", cast, "needs protocol udp (TCP is unicast)");
    if (!tcpWindow.empty())
    {
        if (!o.tcp)
            Fail("tcp_window", tcpWindow, "applies to protocol tcp only");
        o.tcpWindow = Size("tcp_window", tcpWindow);
        if (o.tcpWindow < 2048 || o.tcpWindow > (1u << 30))
            Fail("tcp_window", tcpWindow, "is outside 2 KiB .. 1 GiB");
    }
    o.frameLoss = Probability("frame_loss", frameLoss);
    o.sendCost = Duration("send_cost", sendCost);
    o.sendByteCost = SecondsOf("send_byte_cost", sendByteCost);
    o.sendPacketCost = SecondsOf("send_packet_cost", sendPacketCost);
    o.readers = Count("readers", readers, 1, 256);
    o.reusePort = OnOff("reuseport", reusePort);
    if (o.reusePort && o.readers > 1 && o.multicast)
        Fail("reuseport", reusePort, "with multicast: every socket of the group gets a copy");
    if (!recvCpu.empty())
        o.recvCpu = Count("recv_cpu", recvCpu, 1, 100);
    if (!recvWork.empty())
        o.recvWork = Duration("recv_work", recvWork);

    const std::pair<const char*, const std::string*> values[] = {
        {"cores", &cores},
        {"irq_cost", &irqCost},
        {"packet_cost", &packetCost},
        {"read_cost", &readCost},
        {"read_byte_cost", &readByteCost},
        {"wakeup_cost", &wakeupCost},
        {"reader_cores", &readerCores},
        {"truesize", &truesize},
        {"rx_fifo", &rxFifo},
        {"rx_ring", &rxRing},
        {"itr", &itr},
        {"backlog", &backlog},
        {"rcvbuf", &rcvbuf},
        {"stall_period", &stallPeriod},
        {"stall_length", &stallLength},
        {"rps", &rps},
    };
    if (host == "ideal")
    {
        for (const auto& [name, text] : values)
        {
            if (!text->empty())
                Fail(name, *text, "needs a host model (--host " + HostPresetNames() + ")");
        }
        if (o.readers != 1)
            Fail("readers", readers, "needs a host model (--host " + HostPresetNames() + ")");
        if (!recvCpu.empty())
            Fail("recv_cpu", recvCpu, "needs a host model (--host " + HostPresetNames() + ")");
        if (!recvWork.empty())
            Fail("recv_work", recvWork, "needs a host model (--host " + HostPresetNames() + ")");
        o.host = host;
        return o;
    }
    if (!IsHostPreset(host))
        Fail("host", host, "is not a known preset (ideal, " + HostPresetNames() + ")");
    o.host = host;
    for (const auto& [name, text] : values)
    {
        if (text->empty())
            Fail(name,
                 "",
                 "is missing: a host model needs every host value (`lanloss sim run` fills "
                 "them from its preset, lanloss/hosts.py)");
    }
    HostValues& h = o.hostValues;
    h.cores = Count("cores", cores, 1, 64);
    h.irqCost = Duration("irq_cost", irqCost);
    h.packetCost = Duration("packet_cost", packetCost);
    h.readCost = Duration("read_cost", readCost);
    h.readByteCost = SecondsOf("read_byte_cost", readByteCost);
    h.wakeupCost = Duration("wakeup_cost", wakeupCost);
    if (readerCores != "others" && readerCores != "all")
        Fail("reader_cores", readerCores, "is not others or all");
    h.readersOnEveryCore = readerCores == "all";
    h.truesize = Count("truesize", truesize, 0, 1u << 24);
    h.rxFifo = Count("rx_fifo", std::to_string(Size("rx_fifo", rxFifo)), 2048, 1u << 24);
    h.rxRing = Count("rx_ring", rxRing, 8, 65536);
    h.itr = Count("itr", itr, 0, 1000000);
    h.backlog = Count("backlog", backlog, 1, 1u << 24);
    h.rcvbuf = Size("rcvbuf", rcvbuf);
    if (h.rcvbuf > 0x7FFFFFFFull / 2)
        Fail("rcvbuf", rcvbuf, "is above 1 GiB");
    h.stallPeriod = Duration("stall_period", stallPeriod);
    h.stallLength = Duration("stall_length", stallLength);
    if (h.stallLength.IsStrictlyPositive() != h.stallPeriod.IsStrictlyPositive())
        Fail("stall_length", stallLength, "and stall_period must both be zero or both positive");
    if (h.stallPeriod.IsStrictlyPositive() && h.stallLength >= h.stallPeriod)
        Fail("stall_length", stallLength, "must be shorter than stall_period");
    h.rps = OnOff("rps", rps);
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
