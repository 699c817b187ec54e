// SPDX-License-Identifier: GPL-2.0-only
/*
 * The receive path of a Linux host: NIC FIFO, RX ring, interrupts, NAPI, backlog, IP, sockets.
 */
#ifndef LANLOSS_HOST_RX_PATH_H
#define LANLOSS_HOST_RX_PATH_H

#include "ethernet-rx-path.h"
#include "host-datagram.h"
#include "host-ipv4-defrag.h"

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <deque>
#include <map>
#include <vector>

namespace ns3
{

class EthernetNetDevice;
class HostCpu;
class HostSocket;

/**
 * @ingroup lanloss
 * A receiving host between its NIC's MAC and ns-3's IPv4, after an Intel
 * e1000/e1000e NIC and the Linux NAPI receive path:
 *
 *   MAC -> RX FIFO (RxFifoBytes) -> DMA -> RX ring (RxRingSize descriptors)
 *       -> interrupt (InterruptThrottleRate) -> hard IRQ (IrqCost, core 0)
 *       -> NAPI poll in the NET_RX softirq (NapiWeight per poll, NetdevBudget
 *          per run, then ksoftirqd), DriverCost per frame
 *       -> [RPS: per-CPU backlog, BacklogSize, on the core RpsCpus picks]
 *       -> IP + UDP (StackCost per frame; IPv4 reassembly)
 *       -> HostSocket of the UDP port (truesize-charged queue) -> HostReader
 *       -> EthernetNetDevice::DeliverUp (ns-3 IPv4, UDP, the ns-3 socket)
 *
 * All CPU work runs on the node's HostCpu (aggregated to the node; created
 * with one core if there is none), so hard IRQ pre-empts softirq pre-empts
 * the application, and receive livelock emerges. Frames that are not IPv4,
 * and datagrams for ports without a HostSocket, go up as soon as the stack
 * has processed them (StackCost), as to an ideal application.
 *
 * NIC (8254x/8257x behaviour; the frame sizes are MAC header to FCS):
 * - A frame that does not fit in the FIFO is dropped: rx_missed_errors (the
 *   MPC register), trace RxFifoDrop, drop point `rx_fifo`.
 * - The frame at the head of the FIFO is DMA'd (DmaRate; it keeps its FIFO
 *   space until the DMA ends) only into a free descriptor. With no free
 *   descriptor it waits, so the FIFO fills: an exhausted ring shows up as
 *   `rx_fifo` drops, as on e1000/e1000e. Every frame that arrives while no
 *   descriptor is free counts in rx_no_buffer_count (RNBC), which is not a
 *   drop. With DropWhenNoDescriptor (igb/ixgbe SRRCTL.DROP_EN, set by igb
 *   when flow control is off and there are several queues) the frame at the
 *   head is dropped instead: trace RxRingDrop, drop point `rx_ring`. (igb
 *   counts these in RQDPC and reports them as rx_fifo_errors, the "fifo"
 *   column of /proc/net/dev, which testbed/attribution.py files under
 *   `rx_fifo`; rx_no_buffer_count counts them too.)
 * - A ring of N descriptors holds N - 1 frames (head == tail means empty).
 *   The driver gives cleaned descriptors back every RxBufferWrite frames
 *   (E1000_RX_BUFFER_WRITE = 16) and at the end of each poll.
 * - Interrupt: raised when frames are in the ring and the interrupt is
 *   enabled, no sooner than the ITR interval after the previous one. The
 *   interval is e1000's register value: floor(1e9 / (256 * ITR)) units of
 *   256 ns (399.872 us for 2500); ITR 0 = no moderation. The interrupt is
 *   masked from the moment it is raised until the NAPI poll completes
 *   (napi_complete_done, then e1000_irq_enable).
 * - 802.3x (FlowControl): XOFF with PauseTime quanta when the FIFO reaches
 *   the high-water mark, hwm = min(0.9 * FIFO, FIFO - max_frame) rounded down
 *   to 8 bytes, max_frame = MTU + 18 (e1000_reset, e1000e_reset); refreshed
 *   every PauseRefreshQuanta while the FIFO stays at or above the low-water
 *   mark hwm - 8; XON (pause_time 0) when it falls below it (SendXon,
 *   e1000 fc.send_xon). Only the FIFO pauses: the FIFO fills only when DMA
 *   stalls on an exhausted ring (or a slow bus); a full socket buffer drops.
 *
 * Softirq (net/core/dev.c): net_rx_action polls the NAPI instances on a
 * core's poll list, each up to its weight, until the list is empty or the
 * budget (NetdevBudget packets, decremented after each poll, so a run can
 * take 5 * 64 = 320) or NetdevBudgetUsecs is used up: then time_squeeze is
 * counted and NET_RX re-raised. __do_softirq restarts it up to
 * MaxSoftirqRestart runs within MaxSoftirqTime; after that ksoftirqd (a task
 * on that core, competing with the application round robin) carries on.
 * While ksoftirqd has the work, new NET_RX work on that core waits for it
 * (kernels with "softirq: Let ksoftirqd do its job"). need_resched() is not
 * modelled.
 *
 * Backlog: e1000/e1000e/igb are NAPI drivers that call netif_receive_skb, so
 * without RPS (RpsCpus = 0, the default) frames go from the poll straight to
 * IP and the per-CPU backlog is not used; BacklogDrop never fires. With RPS,
 * the poll (DriverCost) queues each frame to the backlog of the core RpsCpus
 * and the flow hash pick (enqueue_to_backlog: dropped when the input queue
 * already holds more than BacklogSize = netdev_max_backlog, softnet_stat
 * column 2; drop point `backlog`), and that core's process_backlog (weight
 * DevWeight) does IP and UDP (StackCost).
 *
 * Sockets: IPv4 fragments are reassembled here (HostIpv4Defrag, the
 * ReassemblyTimeout timer drops with ReassemblyDrop: drop point
 * `reassembly`); a complete UDP datagram for a port with a HostSocket is
 * charged the sum of its frames' truesize and queued (or dropped:
 * HostSocket's SocketDrop, `socket_rcvbuf`). Frame truesize: Truesize if
 * set, else the e1000 copybreak rule: a frame of at most CopyBreak bytes
 * (without FCS) is copied into a fitting skb, SKB_TRUESIZE(SKB_DATA_ALIGN(
 * len + NET_SKB_PAD)) = align64(len + 64) + 576 on x86-64 (768 for a
 * 106-byte frame); a larger one keeps its receive buffer, RxBufferTruesize
 * (2304 for e1000's 2 KiB buffers at MTU 1500).
 *
 * Attributes are read as frames flow, except RpsCpus and ReassemblyTimeout,
 * which are read by Attach (EthernetNetDevice::SetRxPath): set them, and the
 * HostCpu's Cores, before.
 *
 * Every frame handed to Receive ends in exactly one place: DeliverUp (directly
 * or after a read), or one of RxFifoDrop, RxRingDrop, BacklogDrop,
 * ReassemblyDrop, SocketDrop; or it is still inside the host. So for tagged
 * datagrams sent == received + drops once the host is drained.
 */
class HostRxPath : public EthernetRxPath
{
  public:
    /** Counters for the run record (all since the start). */
    struct Stats
    {
        uint64_t framesReceived = 0;     //!< data frames the MAC handed over
        uint64_t rxFifoDrops = 0;        //!< rx_missed_errors: no room in the FIFO
        uint64_t rxRingDrops = 0;        //!< no free descriptor with DropWhenNoDescriptor
        uint64_t rxNoBuffer = 0;         //!< rx_no_buffer_count: arrivals with no free descriptor
        uint64_t backlogDrops = 0;       //!< softnet_stat dropped, all cores
        uint64_t reassemblyTimeouts = 0; //!< datagrams (Ip ReasmTimeout)
        uint64_t reassemblyDrops = 0;    //!< fragments those datagrams held
        uint64_t interrupts = 0;         //!< NIC interrupts raised
        uint64_t polls = 0;              //!< NIC NAPI polls
        uint64_t backlogPolls = 0;       //!< RPS: process_backlog polls, all cores
        uint64_t softirqRuns = 0;        //!< net_rx_action runs, all cores
        uint64_t timeSqueeze = 0;        //!< softnet_stat time_squeeze, all cores
        uint64_t ksoftirqdWakeups = 0;   //!< NET_RX work handed to ksoftirqd
        uint64_t framesToStack = 0;      //!< frames IP and UDP processed
        uint64_t datagramsToSockets = 0; //!< complete datagrams offered to a HostSocket
        uint64_t framesDelivered = 0;    //!< frames handed to ns-3 (DeliverUp)
        uint64_t xoffSent = 0;           //!< PAUSE frames with PauseTime (refreshes included)
        uint64_t xonSent = 0;            //!< PAUSE frames with 0
        uint32_t peakFifoBytes = 0;
        uint32_t peakRingFrames = 0; //!< most frames waiting in the ring for the driver
    };

    /** Interrupt raised; @p ringFrames = frames waiting in the ring. */
    typedef void (*InterruptTracedCallback)(uint32_t ringFrames);

    static constexpr uint32_t IRQ_CORE = 0; //!< the core the NIC interrupt is affine to

    static TypeId GetTypeId();

    HostRxPath();
    ~HostRxPath() override;

    /** Use @p cpu (otherwise the node's HostCpu, created if missing). Before Attach. */
    void SetCpu(Ptr<HostCpu> cpu);
    Ptr<HostCpu> GetCpu() const;

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
     * @return the (first) socket bound to @p port, or null
     */
    Ptr<HostSocket> GetSocket(uint16_t port) const;
    /**
     * @param port a UDP port
     * @return every socket bound to @p port (a SO_REUSEPORT group), in the order added
     */
    std::vector<Ptr<HostSocket>> GetSockets(uint16_t port) const;

    // EthernetRxPath
    void Attach(Ptr<EthernetNetDevice> device) override;
    void Receive(Ptr<Packet> packet,
                 uint16_t protocol,
                 Mac48Address source,
                 Mac48Address destination,
                 NetDevice::PacketType type) override;

    /** skb truesize of a received frame of @p frameBytes (MAC header on, no FCS). */
    uint32_t TruesizeOf(uint32_t frameBytes) const;
    /** High-water mark of the FIFO in bytes (XOFF at or above it). */
    uint32_t GetHighWater() const;
    /** Low-water mark in bytes (XON below it). */
    uint32_t GetLowWater() const;
    /** ITR interval between interrupts (zero without moderation). */
    Time GetInterruptInterval() const;

    Stats GetStats() const;
    uint32_t GetFifoBytes() const;
    /** Descriptors the NIC may DMA into now. */
    uint32_t GetFreeDescriptors() const;
    /** Frames in the ring waiting for the driver. */
    uint32_t GetRingFrames() const;
    /** Frames anywhere between the FIFO and a socket (FIFO, ring, poll, backlog, reassembly). */
    uint32_t GetFramesInFlight() const;
    /** Fragments waiting in IPv4 reassembly (part of GetFramesInFlight). */
    uint32_t GetFramesReassembling() const;
    bool IsInterruptEnabled() const;

  protected:
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

    void TryDma();
    void DmaDone();
    void FinishDma();
    void CheckPause();
    void PauseRefresh();
    void MaybeInterrupt();
    void RaiseInterrupt();
    void IrqDone();

    void NapiSchedule(uint32_t core, Napi napi);
    void RaiseSoftirq(uint32_t core);
    void NetRxAction(uint32_t core);
    void NextPoll(uint32_t core);
    void Step(uint32_t core);
    void JobDone(uint32_t core);
    void PollEnd(uint32_t core, bool complete);
    void ReturnDescriptors();
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

    // Attributes
    uint32_t m_fifoSize;
    uint32_t m_ringSize;
    DataRate m_dmaRate;
    uint32_t m_rxBufferWrite;
    bool m_dropNoDescriptor;
    uint32_t m_itr;
    uint32_t m_napiWeight;
    uint32_t m_netdevBudget;
    Time m_netdevBudgetTime;
    uint32_t m_maxSoftirqRestart;
    Time m_maxSoftirqTime;
    Time m_irqCost;
    Time m_driverCost;
    Time m_stackCost;
    uint64_t m_rpsCpus;
    uint32_t m_backlogSize;
    uint32_t m_devWeight;
    uint32_t m_truesize;
    uint32_t m_copyBreak;
    uint32_t m_rxBufferTruesize;
    Time m_reassemblyTimeout;
    bool m_flowControl;
    uint16_t m_pauseTime;
    uint16_t m_pauseRefreshQuanta;
    bool m_sendXon;

    Ptr<EthernetNetDevice> m_device;
    Ptr<HostCpu> m_cpu;
    /** The sockets bound to one port: one, or a SO_REUSEPORT group taking turns. */
    struct PortSockets
    {
        std::vector<Ptr<HostSocket>> sockets;
        uint32_t next = 0;

        /** The socket the next datagram goes to. */
        HostSocket* Pick();
    };

    std::map<uint16_t, PortSockets> m_sockets;
    bool m_attached;

    // NIC
    std::deque<HostRxFrame> m_fifo;
    uint32_t m_fifoBytes;
    bool m_dmaBusy;
    EventId m_dmaEvent;
    uint32_t m_hwFree;  //!< descriptors owned by the NIC
    uint32_t m_cleaned; //!< descriptors cleaned, not yet given back
    std::deque<HostRxFrame> m_ring;
    bool m_irqEnabled;
    bool m_anyIrq;
    Time m_lastIrq;
    EventId m_irqEvent;
    bool m_xoff;
    EventId m_refreshEvent;

    // Kernel
    std::vector<Softnet> m_softnet;
    std::vector<uint32_t> m_rpsList; //!< cores in RpsCpus
    HostIpv4Defrag m_defrag;

    Stats m_stats;

    TracedCallback<Ptr<const Packet>> m_rxFifoDropTrace;
    TracedCallback<Ptr<const Packet>> m_rxRingDropTrace;
    TracedCallback<Ptr<const Packet>> m_backlogDropTrace;
    TracedCallback<Ptr<const Packet>> m_reassemblyDropTrace;
    TracedCallback<uint32_t> m_interruptTrace;
};

} // namespace ns3

#endif /* LANLOSS_HOST_RX_PATH_H */
