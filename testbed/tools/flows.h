/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * flows.h - lanloss-recv's per-flow accounting from the datagram header.
 *
 * Each reader thread keeps its own table (no locking on the hot path); the
 * tables are merged after the run. Sequence numbers go into a seen-bitmap
 * that grows with the highest seq (1 bit per datagram: 12.5 MB for 10^8), so
 * duplicates are exact and, at the end, lost = max_seq + 1 - distinct and
 * the loss runs are the runs of zero bits. Seqs from LL_SEQ_CAP up are
 * implausible (a 256 MB bitmap) and are counted as foreign datagrams.
 */
#ifndef LL_FLOWS_H
#define LL_FLOWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"
#include "wire.h"

#define LL_SEQ_CAP (1ull << 31)

struct ll_flow {
	uint32_t id;
	bool foreign; /* datagrams without a usable header */
	uint64_t received;
	uint64_t bytes;
	uint64_t duplicated;
	uint64_t reordered; /* below the highest seq seen, not a duplicate */
	bool any_seq;
	uint64_t max_seq;
	uint64_t *seen; /* bitmap of seqs received */
	uint64_t seen_words;
	struct ll_hist *lat; /* rx_ns - tx_ns; NULL without timestamps */
	uint64_t lat_negative; /* datagrams with rx_ns < tx_ns */
	uint64_t first_rx_ns;
	uint64_t last_rx_ns;
	/* filled by ll_flows_finish */
	uint64_t lost;
	uint64_t runs;
	uint64_t run_max;
};

struct ll_flows {
	struct ll_flow *v;
	size_t n;
	size_t cap;
	size_t hint; /* index of the last flow used: traffic comes in flows */
};

void ll_flows_add(struct ll_flows *ft, const struct ll_hdr *h, uint64_t rx_ns,
		  uint32_t len);
/* Move src's flows into dst; bits set in both count as duplicates. */
void ll_flows_merge(struct ll_flows *dst, struct ll_flows *src);
/* Compute lost and loss runs; sort by flow id (foreign last). */
void ll_flows_finish(struct ll_flows *ft);
void ll_flows_free(struct ll_flows *ft);

#endif /* LL_FLOWS_H */
