/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wire.h - what lanloss-send puts on the wire and what lanloss-recv logs.
 *
 * Datagram header: little-endian, at offset 0 of every UDP payload and of
 * every TCP message:
 *
 *   offset  0  u64  seq    0, 1, 2, ... per sender; a failed send does not
 *                          consume a number, so receiver gaps are network loss
 *   offset  8  u64  tx_ns  the stamp clock just before the send call: by
 *                          default CLOCK_MONOTONIC (shared by all network
 *                          namespaces of a kernel), with --stamp-clock realtime
 *                          CLOCK_REALTIME (across kernels: clock.h)
 *   offset 16  u32  flow   --flow
 *   offset 20  u32  magic  LANLOSS_MAGIC (models/model/lanloss-wire-format.h)
 *
 * A payload shorter than 24 bytes carries a truncated header: from 8 to 23
 * bytes, seq only (flow 0, no timestamp, no magic to check); under 8 bytes,
 * nothing, and the receiver only counts datagrams and bytes. The rest of the
 * payload is zeros. The sender reports how much it wrote as "header_bytes".
 *
 * Per-packet log (lanloss-recv --log): a flat file of 32-byte little-endian
 * records, no file header, one per datagram (UDP) or complete message (TCP):
 *
 *   offset  0  u64  seq    UINT64_MAX when the datagram had no seq
 *   offset  8  u64  tx_ns  0 when the datagram had no timestamp
 *   offset 16  u64  rx_ns  the stamp clock at receipt (see --rx-time)
 *   offset 24  u32  flow   UINT32_MAX when the datagram had no lanloss header
 *   offset 28  u32  len    payload bytes
 *
 * This table is the record's one definition: lanloss.testbed.traffic reads
 * it (LOG_RECORD) and checks that it fills LL_LOG_REC bytes.
 */
#ifndef LL_WIRE_H
#define LL_WIRE_H

#include <endian.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "../../models/model/lanloss-wire-format.h"

#define LL_MAGIC LANLOSS_MAGIC
#define LL_HDR_FULL LANLOSS_HDR_FULL /* seq + tx_ns + flow + magic */
#define LL_HDR_SEQ LANLOSS_HDR_SEQ /* seq only */
#define LL_STR_(x) #x
#define LL_STR(x) LL_STR_(x)
#define LL_LOG_REC 32u

#define LL_NO_SEQ UINT64_MAX
#define LL_NO_FLOW UINT32_MAX

struct ll_hdr {
	uint64_t seq;
	uint64_t tx_ns;
	uint32_t flow;
	bool has_seq;
	bool has_ts; /* full header with a valid magic */
};

/* Header bytes that fit in a payload of len bytes. */
static inline uint32_t ll_hdr_bytes(uint32_t len)
{
	if (len >= LL_HDR_FULL)
		return LL_HDR_FULL;
	return len >= LL_HDR_SEQ ? LL_HDR_SEQ : 0;
}

static inline void ll_put64(uint8_t *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, sizeof(v));
}

static inline void ll_put32(uint8_t *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, sizeof(v));
}

static inline uint64_t ll_get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static inline uint32_t ll_get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

/* Write the (possibly truncated) header at the start of a payload. */
static inline void ll_hdr_put(uint8_t *p, uint32_t len, uint64_t seq,
			      uint64_t tx_ns, uint32_t flow)
{
	if (len < LL_HDR_SEQ)
		return;
	ll_put64(p, seq);
	if (len < LL_HDR_FULL)
		return;
	ll_put64(p + 8, tx_ns);
	ll_put32(p + 16, flow);
	ll_put32(p + 20, LL_MAGIC);
}

/*
 * Parse what a payload of len bytes carries. A full-size payload without the
 * magic is foreign traffic (iperf3, say): it is counted but has no seq.
 */
static inline struct ll_hdr ll_hdr_get(const uint8_t *p, uint32_t len)
{
	struct ll_hdr h = { .seq = LL_NO_SEQ, .flow = LL_NO_FLOW };

	if (len >= LL_HDR_FULL) {
		if (ll_get32(p + 20) != LL_MAGIC)
			return h;
		h.seq = ll_get64(p);
		h.tx_ns = ll_get64(p + 8);
		h.flow = ll_get32(p + 16);
		h.has_seq = h.has_ts = true;
	} else if (len >= LL_HDR_SEQ) {
		h.seq = ll_get64(p);
		h.flow = 0;
		h.has_seq = true;
	}
	return h;
}

/* One per-packet log record, encoded little-endian into out[32]. */
static inline void ll_logrec_put(uint8_t *out, const struct ll_hdr *h,
				 uint64_t rx_ns, uint32_t len)
{
	ll_put64(out, h->has_seq ? h->seq : LL_NO_SEQ);
	ll_put64(out + 8, h->has_ts ? h->tx_ns : 0);
	ll_put64(out + 16, rx_ns);
	ll_put32(out + 24, h->has_seq ? h->flow : LL_NO_FLOW);
	ll_put32(out + 28, len);
}

#endif /* LL_WIRE_H */
