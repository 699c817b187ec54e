// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
 * The receiving host's kernel receive path: NET_RX softirq and NAPI, ksoftirqd, RPS and
 * the per-CPU backlog, IPv4 reassembly, UDP delivery to the sockets.
 */
#ifndef LANLOSS_HOST_RX_KERNEL_H
#define LANLOSS_HOST_RX_KERNEL_H

#include "host-datagram.h"
#include "host-ipv4-defrag.h"

#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <deque>
#include <map>
#include <vector>

namespace ns3
{

class EthernetNetDevice;
class HostCpu;
class HostRxNic;
class HostSocket;

/**
 * @ingroup lanloss
 * The kernel half of a HostRxPath, after Linux's NAPI receive path (net/core/dev.c):
 *
 *   NIC interrupt -> NAPI poll in the NET_RX softirq (NapiWeight per poll,
 *       NetdevBudget per run, then ksoftirqd), DriverCost per frame
 *       -> [RPS: per-CPU backlog, BacklogSize, on the core RpsCpus picks]
 *       -> IP + UDP (StackCost per frame; IPv4 reassembly)
 *       -> HostSocket of the UDP port (truesize-charged queue) -> HostReader
 *       -> EthernetNetDevice::DeliverUp (ns-3 IPv4, UDP, the ns-3 socket)
 *
 * Softirq: net_rx_action polls the NAPI instances on a core's poll list, each up to
 * its weight, until the list is empty or the budget (NetdevBudget packets,
 * decremented after each poll, so a run can take 5 * 64 = 320) or NetdevBudgetUsecs
 * is used up: then time_squeeze is counted and NET_RX re-raised. __do_softirq
 * restarts it up to MaxSoftirqRestart runs within MaxSoftirqTime; after that
 * ksoftirqd (a task on that core, competing with the application round robin)
 * carries on. While ksoftirqd has the work, new NET_RX work on that core waits for it
 * (kernels with "softirq: Let ksoftirqd do its job"). need_resched() is not modelled.
 *
 * Backlog: e1000/e1000e/igb are NAPI drivers that call netif_receive_skb, so without
 * RPS (RpsCpus = 0, the default) frames go from the poll straight to IP and the
 * per-CPU backlog is not used; BacklogDrop never fires. With RPS, the poll
 * (DriverCost) queues each frame to the backlog of the core RpsCpus and the flow hash
 * pick (enqueue_to_backlog: dropped when the input queue already holds more than
 * BacklogSize = netdev_max_backlog, softnet_stat column 2; drop point `backlog`), and
 * that core's process_backlog (weight DevWeight) does IP and UDP (StackCost).
 *
 * Sockets: IPv4 fragments are reassembled here (HostIpv4Defrag, the
 * ReassemblyTimeout timer drops with ReassemblyDrop: drop point `reassembly`); a
 * complete UDP datagram for a port with a HostSocket is charged the sum of its
 * frames' truesize and queued (or dropped: HostSocket's SocketDrop,
 * `socket_rcvbuf`). Frames that are not IPv4, and datagrams for ports without a
 * HostSocket, go up as soon as the stack has processed them (StackCost), as to an
 * ideal application.
 *
 * Attributes are read as frames flow, except RpsCpus and ReassemblyTimeout, read by
 * Attach.
 */
class HostRxKernel : public Object
{
  public:
    /** A NIC poll of this many frames or more counts as a burst's (Stats::burstPolls). */
    static constexpr uint32_t BURST_POLL_FRAMES = 9;

    /** The kernel's counters (all since the start). */
    struct Stats
    {
        uint64_t backlogDrops = 0;       //!< softnet_stat dropped, all cores
        uint64_t reassemblyTimeouts = 0; //!< datagrams (Ip ReasmTimeout)
        uint64_t reassemblyDrops = 0;    //!< fragments those datagrams held
        uint64_t polls = 0;              //!< NIC NAPI polls
        uint64_t emptyPolls = 0;         //!< NIC NAPI polls that found the ring empty
        uint64_t singlePolls = 0;        //!< NIC NAPI polls that took one frame
        uint64_t burstPolls = 0;         //!< NIC NAPI polls that took BURST_POLL_FRAMES or more
        uint64_t burstPollFrames = 0;    //!< the frames those took
        uint64_t backlogPolls = 0;       //!< RPS: process_backlog polls, all cores
        uint64_t softirqRuns = 0;        //!< net_rx_action runs, all cores
        uint64_t timeSqueeze = 0;        //!< softnet_stat time_squeeze, all cores
        uint64_t ksoftirqdWakeups = 0;   //!< NET_RX work handed to ksoftirqd
        uint64_t framesToStack = 0;      //!< frames IP and UDP processed
        uint64_t datagramsToSockets = 0; //!< complete datagrams offered to a HostSocket
        uint64_t framesDelivered = 0;    //!< frames handed to ns-3 (DeliverUp)
    };

    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    /** A kernel with Linux's defaults (NapiWeight 64, NetdevBudget 300, no RPS). */
    HostRxKernel();
    ~HostRxKernel() override;

    /**
     * Deliver UDP datagrams for the socket's port through @p socket and its readers. A
     * second socket on a port makes a SO_REUSEPORT group (every socket of it must have
     * ReusePort set): datagrams go to its sockets in turn, one each, as the testbed's
     * reuseport BPF program spreads them (docs/physics.md §4).
     * @param socket the socket, its Port set
     */
    void AddSocket(Ptr<HostSocket> socket);
    /**
     * @param port a UDP port
     * @return the (first) socket bound to UDP @p port, or null
     */
    Ptr<HostSocket> GetSocket(uint16_t port) const;
    /**
     * @param port a UDP port
     * @return every socket bound to UDP @p port (a SO_REUSEPORT group), in the order added
     */
    std::vector<Ptr<HostSocket>> GetSockets(uint16_t port) const;

    /**
     * Start: a softirq context and a ksoftirqd thread per core of @p cpu, the RPS cores,
     * the reassembly timer, the sockets. Frames come from @p nic's ring; what reaches the
     * stack goes up through @p device.
     * @param device the host's NIC device (DeliverUp)
     * @param cpu the host's CPU
     * @param nic the NIC whose ring the NAPI poll empties
     */
    void Attach(Ptr<EthernetNetDevice> device, Ptr<HostCpu> cpu, Ptr<HostRxNic> nic);
    /** napi_schedule of the NIC's NAPI instance, on the interrupt's core (irq_exit). */
    void ScheduleNicPoll();

    /** @return the kernel's counters since the start */
    Stats GetStats() const;
    /** @return frames between the ring and a socket (poll, backlog, reassembly) */
    uint32_t GetFramesInFlight() const;
    /** @return fragments waiting in IPv4 reassembly (part of GetFramesInFlight) */
    uint32_t GetFramesReassembling() const;

  protected:
    /** Drop what reassembly holds, dispose of the sockets, release device, CPU and NIC. */
    void DoDispose() override;

  private:
    enum Napi : uint8_t
    {
        NAPI_NIC,
        NAPI_BACKLOG,
    };

    /** Per-core softnet_data and NET_RX softirq state. */
    struct Softnet
    {
        std::deque<uint8_t> pollList;
        bool nicScheduled = false;
        bool backlogScheduled = false;
        std::deque<HostRxFrame> input;   //!< backlog input_pkt_queue
        std::deque<HostRxFrame> process; //!< backlog process_queue
        bool active = false;             //!< NET_RX being handled (softirq or ksoftirqd)
        bool inKsoftirqd = false;
        int64_t budget = 0;
        Time runStart; //!< start of this net_rx_action
        Time doStart;  //!< start of this __do_softirq
        uint32_t runs = 0;
        uint8_t current = NAPI_NIC;
        uint32_t work = 0; //!< packets of the current poll
        HostRxFrame inflight;
        bool inflightToBacklog = false;
        uint32_t inflightTarget = 0;
        uint32_t ksoftirqd = 0; //!< HostCpu thread
        Callback<void> jobDone;
    };

    /** The sockets bound to one port: one, or a SO_REUSEPORT group taking turns. */
    struct PortSockets
    {
        std::vector<Ptr<HostSocket>> sockets;
        uint32_t next = 0;

        /** The socket the next datagram goes to. */
        HostSocket* Pick();
    };

    void NapiSchedule(uint32_t core, Napi napi);
    void RaiseSoftirq(uint32_t core);
    void NetRxAction(uint32_t core);
    void NextPoll(uint32_t core);
    void Step(uint32_t core);
    /** The NIC's poll takes one frame from the ring (e1000_clean_rx_irq). */
    void StepNicPoll(uint32_t core);
    void JobDone(uint32_t core);
    void PollEnd(uint32_t core, bool complete);
    /** The poll's end for a NAPI instance: done (unscheduled) or polled again. */
    void EndNapi(Softnet& sd, bool complete);
    uint32_t SoftirqContext(uint32_t core) const;
    uint32_t NodeId() const;

    /** -1 if RPS does not steer @p frame, else the target core. */
    int32_t RpsTarget(const HostRxFrame& frame) const;
    void EnqueueBacklog(uint32_t core, HostRxFrame frame);
    void StackReceive(HostRxFrame frame);
    void DatagramReady(HostDatagram datagram);
    void DeliverDatagram(const HostDatagram& datagram);
    void DeliverFrame(const HostRxFrame& frame);
    void ReassemblyTimeout(const HostRxFrame& frame);
    void AttachSocket(const Ptr<HostSocket>& socket);

    // Attributes
    uint32_t m_napiWeight;
    uint32_t m_netdevBudget;
    Time m_netdevBudgetTime;
    uint32_t m_maxSoftirqRestart;
    Time m_maxSoftirqTime;
    Time m_driverCost;
    Time m_stackCost;
    uint64_t m_rpsCpus;
    uint32_t m_backlogSize;
    uint32_t m_devWeight;
    Time m_reassemblyTimeout;

    Ptr<EthernetNetDevice> m_device;
    Ptr<HostCpu> m_cpu;
    Ptr<HostRxNic> m_nic;
    std::map<uint16_t, PortSockets> m_sockets;
    bool m_attached;

    std::vector<Softnet> m_softnet;
    std::vector<uint32_t> m_rpsList; //!< cores in RpsCpus
    uint32_t m_stackCore = 0;        //!< core of the frame in IP and UDP now
    HostIpv4Defrag m_defrag;

    Stats m_stats;

    TracedCallback<Ptr<const Packet>> m_backlogDropTrace;
    TracedCallback<Ptr<const Packet>> m_reassemblyDropTrace;
};

} // namespace ns3

#endif /* LANLOSS_HOST_RX_KERNEL_H */
