// SPDX-License-Identifier: GPL-2.0-only
/*
 * The scenario's flags: the shared vocabulary (lanloss/options.py), same names.
 */
#ifndef LANLOSS_SCENARIO_OPTIONS_H
#define LANLOSS_SCENARIO_OPTIONS_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <string>

namespace ns3
{
struct LanSpec;
}

namespace lanloss
{

/**
 * The receiving host's values (lanloss/hosts.py resolves them from a preset, a
 * host file and explicit options; the program takes them as flags).
 */
struct HostValues
{
    uint32_t cores = 1;
    ns3::Time irqCost;
    ns3::Time packetCost; //!< driver + stack per frame, split in the preset's ratio
    ns3::Time readCost;
    double readByteCost = 0; //!< seconds per payload byte read (below 1 ns)
    ns3::Time wakeupCost;    //!< a reader handed a shared socket's lock
    bool readersOnEveryCore = false; //!< reader_cores all (else others)
    uint32_t truesize = 0; //!< 0 = the driver's rule
    uint32_t rxFifo = 0;
    uint32_t rxRing = 0;
    uint32_t itr = 0;
    uint32_t backlog = 0;
    uint64_t rcvbuf = 0;
    ns3::Time stallPeriod;
    ns3::Time stallLength;
    bool rps = false;
};

/** Parsed and validated run options (canonical units). */
struct ScenarioOptions
{
    std::string topology = "star";
    ns3::DataRate edgeRate{"100Mbps"};
    ns3::DataRate backboneRate{"1Gbps"};
    ns3::DataRate senderRate{"0bps"}; //!< 0 = edgeRate
    ns3::Time linkDelay = ns3::MicroSeconds(1);
    ns3::Time wanDelay = ns3::MicroSeconds(1600);
    uint32_t edgeSwitches = 2;
    uint32_t senders = 1;
    uint32_t receivers = 1;
    bool multicast = false;
    bool tcp = false;
    uint64_t tcpWindow = 0; //!< 0 = ns-3's TcpSocket default buffers
    uint32_t payload = 1472;
    bool maxRate = true;
    ns3::DataRate rate{"0bps"};
    std::string pattern = "cbr";
    ns3::Time duration = ns3::Seconds(1);
    ns3::Time warmup = ns3::MilliSeconds(100);
    uint32_t seed = 1;
    uint32_t mtu = 1500;
    bool pause = false;
    ns3::Time sendCost;       //!< the sender's CPU per send() call
    double sendByteCost = 0;   //!< and per payload byte, seconds (below 1 ns)
    double sendPacketCost = 0; //!< and per frame (TCP: segment, with its ACK), seconds
    std::string pauseStyle = "xon";
    uint32_t pauseQuanta = 0xFFFF;
    uint64_t switchBuffer = 128 * 1024;
    uint64_t switchPool = 0;
    uint64_t txQueue = 1024 * 1024;
    bool blocking = false;
    std::string host = "ideal"; //!< ideal, or the preset (NIC family) of HostValues
    HostValues hostValues;
    uint32_t readers = 1;
    bool reusePort = false; //!< a socket per reader (SO_REUSEPORT group), else one shared
    uint32_t recvCpu = 0;  //!< readers' CPU quota, % of one CPU (0 = none)
    ns3::Time recvWork;    //!< the application's work per datagram
    double frameLoss = 0;
    std::string out;  //!< JSON result file ("" = stdout)
    std::string pcap; //!< pcap prefix ("" = none)
    bool printSpec = false; //!< print the LAN in the spec line format and exit
    bool checkOnly = false; //!< check the flags against the LAN, then exit
};

/** Parse argv with ns-3's CommandLine; on a bad value print one line naming it and exit 2. */
ScenarioOptions ParseOptions(int argc, char* argv[]);

/** What the flags must satisfy on this LAN (the PAUSE headroom of every switch port);
 *  like ParseOptions, a violation prints one line naming the flag and exits 2. */
void CheckOptionsAgainstLan(const ScenarioOptions& o, const ns3::LanSpec& spec);

} // namespace lanloss

#endif
