// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
 * The receiving host's NIC: receive FIFO, DMA, RX descriptor ring, interrupts and their
 * moderation, 802.3x PAUSE from the FIFO.
 */
#ifndef LANLOSS_HOST_RX_NIC_H
#define LANLOSS_HOST_RX_NIC_H

#include "guest-clock.h"
#include "host-datagram.h"

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <deque>

namespace ns3
{

class EthernetNetDevice;
class HostCpu;

/**
 * @ingroup lanloss
 * The NIC half of a HostRxPath, after an Intel e1000/e1000e (8254x/8257x behaviour;
 * the frame sizes are MAC header to FCS), with the driver's side of the ring
 * (descriptor refill, the truesize its skb allocation charges):
 *
 *   MAC -> RX FIFO (RxFifoBytes) -> DMA (DmaRate) -> RX ring (RxRingSize)
 *       -> interrupt (InterruptThrottleRate) -> hard IRQ (IrqCost, core IRQ_CORE)
 *       -> the kernel's NAPI poll (HostRxKernel), which takes the ring's frames
 *
 * - A frame that does not fit in the FIFO is dropped: rx_missed_errors (the
 *   MPC register), trace RxFifoDrop, drop point `rx_fifo`.
 * - The frame at the head of the FIFO is DMA'd (it keeps its FIFO space until the
 *   DMA ends) only into a free descriptor. With no free descriptor it waits, so the
 *   FIFO fills: an exhausted ring shows up as `rx_fifo` drops, as on e1000/e1000e.
 *   Every frame that arrives while no descriptor is free counts in
 *   rx_no_buffer_count (RNBC), which is not a drop. With DropWhenNoDescriptor
 *   (igb/ixgbe SRRCTL.DROP_EN, set by igb when flow control is off and there are
 *   several queues) the frame at the head is dropped instead: trace RxRingDrop, drop
 *   point `rx_ring`. (igb counts these in RQDPC and reports them as rx_fifo_errors,
 *   the "fifo" column of /proc/net/dev, which testbed/attribution.py files under
 *   `rx_fifo`; rx_no_buffer_count counts them too.)
 * - A ring of N descriptors holds N - 1 frames (head == tail means empty). The
 *   driver gives cleaned descriptors back every RxBufferWrite frames
 *   (E1000_RX_BUFFER_WRITE = 16) and at the end of each poll.
 * - Interrupt: raised when frames are in the ring and the interrupt is enabled, no
 *   sooner than the ITR interval after the previous one. The interval is e1000's
 *   register value: floor(1e9 / (256 * ITR)) units of 256 ns (399.872 us for 2500);
 *   ITR 0 = no moderation. The interrupt is masked from the moment it is raised
 *   until the NAPI poll completes (napi_complete_done, then e1000_irq_enable:
 *   EnableInterrupt). With CauseLatch (QEMU's e1000, hw/net/e1000.c) a frame written
 *   to the ring while the interrupt is masked leaves its cause pending in ICR (read
 *   and cleared only by the interrupt handler), and unmasking raises the interrupt
 *   for it, no sooner than the ITR interval, even when the poll took that frame
 *   meanwhile: the poll it schedules may find the ring empty. The handler's ICR read
 *   clears the causes of the frames that had reached the NIC by then (with a
 *   GuestClock, those the first part of its interrupt stall lets in too).
 * - 802.3x (FlowControl): XOFF with PauseTime quanta when the FIFO reaches the
 *   high-water mark, hwm = min(0.9 * FIFO, FIFO - max_frame) rounded down to 8
 *   bytes, max_frame = MTU + 18 (e1000_reset, e1000e_reset); refreshed every
 *   PauseRefreshQuanta while the FIFO stays at or above the low-water mark hwm - 8;
 *   XON (pause_time 0) when it falls below it (SendXon, e1000 fc.send_xon). Only the
 *   FIFO pauses: the FIFO fills only when DMA stalls on an exhausted ring (or a slow
 *   bus); a full socket buffer drops.
 * - Frame truesize (the driver's skb): Truesize if set, else the e1000 copybreak
 *   rule of lanloss-linux-rx.h: a frame of at most CopyBreak bytes (without FCS) is
 *   copied into a new skb, CopiedTruesize if set (Linux 6.1: 1280 whatever the
 *   length), else one that fits it (2.6), SKB_TRUESIZE(SKB_DATA_ALIGN(len + NET_SKB_PAD))
 *   = align64(len + 64) + 576 on x86-64 (768 for a 106-byte frame); a larger one keeps
 *   its receive buffer, RxBufferTruesize (e1000's 2 KiB buffers at MTU 1500:
 *   LANLOSS_RX_BUFFER_TRUESIZE; Linux 6.1's fragments: LANLOSS_KEPT_TRUESIZE_6_1).
 *
 * - A QEMU guest (GuestClockAdvance above 0): frames from the wire reach the FIFO when
 *   the guest's clock lets them in (GuestClock: -icount align's lead and sleeps).
 * Attributes are read as frames flow, except RxRingSize and the GuestClock ones, read by
 * Attach.
 */
class HostRxNic : public Object
{
  public:
    /** The NIC's counters (all since the start). */
    struct Stats
    {
        uint64_t framesReceived = 0; //!< data frames the MAC handed over
        uint64_t rxFifoDrops = 0;    //!< rx_missed_errors: no room in the FIFO
        uint64_t rxRingDrops = 0;    //!< no free descriptor with DropWhenNoDescriptor
        uint64_t rxNoBuffer = 0;     //!< rx_no_buffer_count: arrivals with no free descriptor
        uint64_t interrupts = 0;     //!< NIC interrupts raised
        uint64_t interruptsAtUnmask = 0; //!< of them, raised as the poll's end unmasked it
        uint64_t xoffSent = 0;       //!< PAUSE frames with PauseTime (refreshes included)
        uint64_t xonSent = 0;        //!< PAUSE frames with 0
        uint32_t peakFifoBytes = 0;  //!< most bytes held in the FIFO at once
        uint32_t peakRingFrames = 0; //!< most frames waiting in the ring for the driver
        uint64_t clockSleeps = 0;    //!< a QEMU guest's: GuestClock sleeps
        uint64_t clockHeldFrames = 0; //!< frames its clock let in later than they came
    };

    /**
     * Interrupt raised (trace source Interrupt).
     * @param ringFrames frames waiting in the ring
     */
    typedef void (*InterruptTracedCallback)(uint32_t ringFrames);

    static constexpr uint32_t IRQ_CORE = 0; //!< the core the NIC interrupt is affine to

    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    /** An e1000 with a 48 KiB FIFO, no flow control, not yet attached. */
    HostRxNic();
    ~HostRxNic() override;

    /**
     * Start receiving on @p device: the ring's descriptors are given to the NIC, hard
     * interrupts run on @p cpu, and each interrupt ends in @p napiSchedule (the
     * kernel's napi_schedule for this NIC).
     * @param device the host's NIC device (its MTU sets the high-water mark)
     * @param cpu the host's CPU (hard IRQs on IRQ_CORE)
     * @param napiSchedule called at the end of each hard interrupt
     */
    void Attach(Ptr<EthernetNetDevice> device, Ptr<HostCpu> cpu, Callback<void> napiSchedule);

    /**
     * A data frame from the MAC (MAC header removed, padding kept): into the FIFO, or
     * dropped (RxFifoDrop) if it does not fit.
     * @param packet the MAC payload
     * @param protocol the EtherType
     * @param source the frame's source MAC address
     * @param destination the frame's destination MAC address
     * @param type host, broadcast or multicast
     */
    void Receive(Ptr<Packet> packet,
                 uint16_t protocol,
                 Mac48Address source,
                 Mac48Address destination,
                 NetDevice::PacketType type);

    // The driver's side of the ring, called by the kernel's NAPI poll.
    /** @return whether a frame waits in the ring for the driver */
    bool HasRingFrame() const;
    /**
     * Take the ring's next frame (there must be one: HasRingFrame); its descriptor is
     * now the driver's (not yet given back: CleanedDescriptor).
     * @return the frame, its truesize set
     */
    HostRxFrame TakeRingFrame();
    /** One descriptor cleaned; every RxBufferWrite of them are given back. */
    void CleanedDescriptor();
    /** Give the cleaned descriptors back to the NIC (e1000_alloc_rx_buffers). */
    void ReturnDescriptors();
    /** Unmask the interrupt (e1000_irq_enable): frames already in the ring raise one. */
    void EnableInterrupt();

    /**
     * skb truesize of a received frame: Truesize if set, else the copybreak rule (see the
     * class description).
     * @param frameBytes the frame's bytes, MAC header on, no FCS
     * @return the bytes a socket is charged for it
     */
    uint32_t TruesizeOf(uint32_t frameBytes) const;
    /** @return the high-water mark of the FIFO in bytes (XOFF at or above it; 0 if the FIFO
     *          holds no more than one largest frame) */
    uint32_t GetHighWater() const;
    /** @return the low-water mark in bytes, high-water - 8 (XON below it) */
    uint32_t GetLowWater() const;
    /** @return the ITR interval between interrupts (zero without moderation) */
    Time GetInterruptInterval() const;

    /** @return the NIC's counters since the start */
    Stats GetStats() const;
    /** @return bytes held in the FIFO now (frames MAC header to FCS) */
    uint32_t GetFifoBytes() const;
    /** @return descriptors the NIC may DMA into now */
    uint32_t GetFreeDescriptors() const;
    /** @return frames in the ring waiting for the driver */
    uint32_t GetRingFrames() const;
    /** @return frames in the FIFO and the ring */
    uint32_t GetFramesHeld() const;
    /** @return whether the interrupt is unmasked */
    bool IsInterruptEnabled() const;

  protected:
    /** Cancel DMA, interrupt and PAUSE refresh; drop the frames held; release the rest. */
    void DoDispose() override;

  private:
    // The attribute table of GetTypeId, a group of related attributes each.
    static void AddRingAttributes(TypeId& tid);
    static void AddInterruptAttributes(TypeId& tid);
    static void AddPauseAttributes(TypeId& tid);
    static void AddTruesizeAttributes(TypeId& tid);
    static void AddTraceSources(TypeId& tid);

    void TryDma();
    void DmaDone();
    void FinishDma();
    void CheckPause();
    /** XOFF with PauseTime, sent again every PauseRefreshQuanta until cancelled. */
    void SendXoff();
    /** Whether an enabled interrupt has a cause: frames in the ring, or with CauseLatch
     * a frame written to the ring since the last interrupt. */
    bool HasInterruptCause() const;
    void MaybeInterrupt();
    void RaiseInterrupt();
    void IrqDone();
    /** A frame the guest's clock lets in: into the FIFO, or dropped if it does not fit. */
    void Admit(HostRxFrame f);
    static void AddGuestClockAttributes(TypeId& tid);

    // Attributes
    uint32_t m_fifoSize;
    uint32_t m_ringSize;
    DataRate m_dmaRate;
    uint32_t m_rxBufferWrite;
    bool m_dropNoDescriptor;
    uint32_t m_itr;
    Time m_irqCost;
    bool m_causeLatch;
    bool m_flowControl;
    uint16_t m_pauseTime;
    uint16_t m_pauseRefreshQuanta;
    bool m_sendXon;
    uint32_t m_truesize;
    uint32_t m_copiedTruesize;
    uint32_t m_copyBreak;
    uint32_t m_rxBufferTruesize;
    Time m_clockAdvance;
    double m_clockSpeedup;
    Time m_clockInterruptStall;

    Ptr<EthernetNetDevice> m_device;
    Ptr<GuestClock> m_clock;
    Ptr<HostCpu> m_cpu;
    Callback<void> m_napiSchedule;

    std::deque<HostRxFrame> m_fifo;
    uint32_t m_fifoBytes;
    bool m_dmaBusy;
    EventId m_dmaEvent;
    uint32_t m_hwFree;  //!< descriptors owned by the NIC
    uint32_t m_cleaned; //!< descriptors cleaned, not yet given back
    std::deque<HostRxFrame> m_ring;
    bool m_irqEnabled;
    bool m_causePending;         //!< a frame's cause is in ICR (CauseLatch)
    uint64_t m_fifoIn;           //!< frames that entered the FIFO
    uint64_t m_fifoOut;          //!< frames that left it (into the ring or dropped)
    uint64_t m_fifoInAtIcrRead;  //!< m_fifoIn at the last interrupt handler's ICR read
    bool m_anyIrq;
    Time m_lastIrq;
    EventId m_irqEvent;
    bool m_xoff;
    EventId m_refreshEvent;

    Stats m_stats;

    TracedCallback<Ptr<const Packet>> m_rxFifoDropTrace;
    TracedCallback<Ptr<const Packet>> m_rxRingDropTrace;
    TracedCallback<uint32_t> m_interruptTrace;
};

} // namespace ns3

#endif /* LANLOSS_HOST_RX_NIC_H */
