// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
 * The Linux (x86-64) receive-side constants the host model is built on, one definition:
 * the ns-3 module includes it (HostRxNic, HostSocket, UdpFlowSource), the scenario program
 * through the module, and lanloss/header_constants.py reads it for the Python side (the loss
 * model of lanloss.analysis, the option vocabulary). Plain C, each value a number or
 * arithmetic (+, -, *) on the names above it, so that the Python reader needs no C
 * parser; no other source of the module, the scenario program or the Python spells them
 * (tests/test_header_constants.py).
 *
 * The truesize rule (e1000_clean_rx_irq, e1000_copybreak): a received frame of at most
 * LANLOSS_COPYBREAK bytes (without FCS) is copied into a fitting skb, charged
 *   SKB_TRUESIZE(SKB_DATA_ALIGN(len + NET_SKB_PAD))
 *     = 64 * ceil((len + LANLOSS_NET_SKB_PAD) / 64) + LANLOSS_SKB_OVERHEAD
 * (768 bytes for a 106-byte frame); a larger frame keeps its receive buffer, charged the
 * buffer plus the sk_buff: LANLOSS_RX_BUFFER_TRUESIZE for the 2 KiB buffers of MTU 1500.
 * A UDP socket queues floor(sk_rcvbuf / truesize) + 1 datagrams (udp.c,
 * __udp_enqueue_schedule_skb); setsockopt(SO_RCVBUF, v) sets sk_rcvbuf = max(2 v,
 * LANLOSS_SOCK_MIN_RCVBUF), and without setsockopt sk_rcvbuf = LANLOSS_RMEM_DEFAULT.
 */
#ifndef LANLOSS_LINUX_RX_H
#define LANLOSS_LINUX_RX_H

/** The largest IPv4 packet in bytes: the 16-bit total length field's maximum. */
#define LANLOSS_IPV4_MAX_TOTAL_LENGTH 65535u
/** Bytes of an IPv4 header without options. */
#define LANLOSS_IPV4_HEADER 20u
/** Bytes of a UDP header. */
#define LANLOSS_UDP_HEADER 8u
/** The largest UDP payload: the 16-bit IPv4 total length less the IPv4 and UDP headers. */
#define LANLOSS_UDP_MAX_PAYLOAD (LANLOSS_IPV4_MAX_TOTAL_LENGTH - LANLOSS_IPV4_HEADER - LANLOSS_UDP_HEADER)

/** sizeof(struct sk_buff), cache-aligned, in bytes. */
#define LANLOSS_SKB_HEAD 256u
/** sizeof(struct skb_shared_info), cache-aligned, in bytes. */
#define LANLOSS_SKB_SHARED_INFO 320u
/** SKB_TRUESIZE(x) = x + LANLOSS_SKB_OVERHEAD (bytes). */
#define LANLOSS_SKB_OVERHEAD (LANLOSS_SKB_HEAD + LANLOSS_SKB_SHARED_INFO)
/** NET_SKB_PAD: max(32, L1_CACHE_BYTES), in bytes. */
#define LANLOSS_NET_SKB_PAD 64u

/** e1000's copybreak: frames up to this many bytes are copied into a fitting skb. */
#define LANLOSS_COPYBREAK 256u
/** e1000's receive buffer at MTU 1500, in bytes (2 KiB). */
#define LANLOSS_RX_BUFFER 2048u
/** e1000's 2 KiB receive buffer at MTU 1500 plus its sk_buff: SKB_TRUESIZE(2048 - 320). */
#define LANLOSS_RX_BUFFER_TRUESIZE (LANLOSS_RX_BUFFER + LANLOSS_SKB_HEAD)

/** Linux 6.1 (Debian's 6.1.0, the vm testbed's guest): a frame copied at copybreak gets its
 *  head from a 1 KiB allocation whatever its length, charged SKB_TRUESIZE(1024 - 320) =
 *  1280 bytes; measured there as 1280 per datagram of 64 and of 200 bytes (sk_rmem_alloc,
 *  /proc/net/udp's rx_queue, of a socket nobody reads). */
#define LANLOSS_COPIED_TRUESIZE_6_1 (1024u - LANLOSS_SKB_SHARED_INFO + LANLOSS_SKB_OVERHEAD)
/** Linux 6.1's e1000 at MTU 1500: a frame kept in its receive fragment (build_skb over
 *  rx_buffer_len 1522 + NET_SKB_PAD, cache-aligned to 1600) is charged SKB_TRUESIZE(1600) =
 *  2176 bytes; measured in the guest as 2176 per datagram of 512 and of 1472 bytes. */
#define LANLOSS_KEPT_TRUESIZE_6_1 (1600u + LANLOSS_SKB_OVERHEAD)
/** The smallest sk_rcvbuf, SOCK_MIN_RCVBUF: twice TCP_SKB_MIN_TRUESIZE, 2048 + the sk_buff
 *  (sock.h): 4608 bytes. */
#define LANLOSS_SOCK_MIN_RCVBUF (2u * (2048u + LANLOSS_SKB_HEAD))
/** net.core.rmem_default: 256 x SKB_TRUESIZE(256) = 212992 bytes (sock.c, SK_RMEM_MAX). */
#define LANLOSS_RMEM_DEFAULT (256u * (256u + LANLOSS_SKB_OVERHEAD))

#endif /* LANLOSS_LINUX_RX_H */
