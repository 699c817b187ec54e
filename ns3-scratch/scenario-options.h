// SPDX-License-Identifier: GPL-2.0-only
/*
 * The scenario's flags: the shared vocabulary (lanloss/options.py), same names.
 */
#ifndef LANLOSS_SCENARIO_OPTIONS_H
#define LANLOSS_SCENARIO_OPTIONS_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <map>
#include <string>

namespace ns3
{
class CommandLine;
struct LanSpec;
} // namespace ns3

namespace lanloss
{

/**
 * The vocabulary's flags as given on the command line, or their defaults: one text per
 * option of the generated table (scenario-flags.h, from lanloss/options.py), read by the
 * option's kind and checked against the option's choices and range. A bad value prints one
 * line naming the flag and exits 2.
 */
class FlagTexts
{
  public:
    /** Register every flag of the table with @p cmd, its text set to the default. */
    void AddTo(ns3::CommandLine& cmd);

    const std::string& Text(const std::string& name) const;
    /** @return whether the flag has a text ("" = unset: the option has no default) */
    bool IsSet(const std::string& name) const;
    ns3::DataRate Rate(const std::string& name) const;
    ns3::Time Duration(const std::string& name) const;
    /** A time as a double in seconds ("0.5ns"): below ns-3's 1 ns resolution. */
    double Seconds(const std::string& name) const;
    uint64_t Size(const std::string& name) const;
    uint64_t Count(const std::string& name) const;
    double Probability(const std::string& name) const;
    std::string Choice(const std::string& name) const;
    bool OnOff(const std::string& name) const;

  private:
    std::map<std::string, std::string> m_text;
};

/**
 * The receiving host's values (lanloss/host_values.py resolves them from a preset, a
 * host file and explicit options; the program takes them as flags).
 */
struct HostValues
{
    uint32_t cores = 0;
    ns3::Time irqCost;
    ns3::Time packetCost; //!< driver + stack per frame, split in the preset's ratio
    ns3::Time readCost;
    double readByteCost = 0;         //!< seconds per payload byte read (below 1 ns)
    ns3::Time readCallCost;          //!< a receive call's cost beyond its reads
    ns3::Time wakeupCost;            //!< a reader handed a shared socket's lock
    bool readersOnEveryCore = false; //!< reader_cores all (else others)
    uint32_t truesize = 0;           //!< 0 = the driver's rule
    uint32_t rxFifo = 0;
    uint32_t rxRing = 0;
    uint32_t itr = 0;
    uint32_t backlog = 0;
    uint64_t rcvbuf = 0;
    ns3::Time stallPeriod;
    ns3::Time stallLength;
    bool rps = false;
};

/** Parsed and validated run options (canonical units); ParseOptions fills every field
 *  from the flags (their defaults: the vocabulary's, scenario-flags.h). */
struct ScenarioOptions
{
    std::string topology;
    ns3::DataRate edgeRate;
    ns3::DataRate backboneRate;
    ns3::DataRate senderRate;
    ns3::Time linkDelay;
    ns3::Time wanDelay;
    uint32_t edgeSwitches = 0;
    uint32_t senders = 0;
    uint32_t receivers = 0;
    bool multicast = false;
    bool tcp = false;
    uint64_t tcpWindow = 0; //!< 0 = ns-3's TcpSocket default buffers
    uint32_t payload = 0;
    bool maxRate = false;
    ns3::DataRate rate; //!< unless maxRate
    std::string pattern;
    uint32_t startBurst = 0; //!< UDP datagrams back to back at each flow's start (start_burst)
    ns3::Time duration;
    ns3::Time warmup;
    uint32_t seed = 0;
    uint32_t mtu = 0;
    bool pause = false;
    ns3::Time sendCost;        //!< the sender's CPU per send() call
    double sendByteCost = 0;   //!< and per payload byte, seconds (below 1 ns)
    double sendPacketCost = 0; //!< and per frame (TCP: segment, with its ACK), seconds
    std::string pauseStyle;
    uint32_t pauseQuanta = 0;
    uint64_t switchBuffer = 0;
    uint64_t switchPool = 0;
    uint64_t txQueue = 0;
    bool blocking = false;
    std::string host; //!< ideal, or the preset (NIC family) of HostValues
    HostValues hostValues;
    uint32_t readers = 0;
    bool reusePort = false; //!< a socket per reader (SO_REUSEPORT group), else one shared
    uint32_t recvCpu = 0;   //!< readers' CPU quota, % of one CPU (0 = none)
    ns3::Time recvWork;     //!< the application's work per datagram
    bool echo = false;      //!< seed 003's echo of each message and its round-trip timing
    ns3::Time echoCost;     //!< the receiver's echo thread, per echo
    ns3::Time echoRecvCost; //!< the sender's timing thread, per echo
    /** A guest clock's emulator (qemu-e1000): real s per busy guest s; < 0: the preset's */
    double guestEmulationShare = -1;
    /** and its real time per interrupt with the guest's clock still; < 0: the preset's */
    ns3::Time guestInterruptStall = ns3::Seconds(-1);
    double frameLoss = 0;
    std::string out;        //!< JSON result file ("" = stdout)
    std::string pcap;       //!< pcap prefix ("" = none)
    bool printSpec = false; //!< print the LAN in the spec line format and exit
    bool checkOnly = false; //!< check the flags against the LAN, then exit
    bool udpFastPath = true; //!< UDP sources and sinks take the UdpFastPath (same record)
};

/** Parse argv with ns-3's CommandLine; on a bad value print one line naming it and exit 2. */
ScenarioOptions ParseOptions(int argc, char* argv[]);

/** What the flags must satisfy on this LAN (the PAUSE headroom of every switch port);
 *  like ParseOptions, a violation prints one line naming the flag and exits 2. */
void CheckOptionsAgainstLan(const ScenarioOptions& o, const ns3::LanSpec& spec);

} // namespace lanloss

#endif
