// SPDX-License-Identifier: GPL-2.0-only
/* rx_account.c - lanloss-recv: what happens to every datagram received. */
#define _GNU_SOURCE
#include <errno.h>
#include <unistd.h>

#include "clock.h"
#include "recv.h"
#include "util.h"

void ll_rx_log_flush(struct reader *rd)
{
	size_t len = (size_t)rd->logn * LL_LOG_REC, off = 0;

	/* O_APPEND: each write lands whole at the end, so readers' records
	 * never interleave inside a record (write(2) on regular files). */
	while (off < len) {
		ssize_t n = write(rd->c->log_fd, rd->logbuf + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ll_warn("--log: write failed: %m");
			break;
		}
		off += (size_t)n;
	}
	rd->logn = 0;
}

void ll_rx_account(struct reader *rd, const struct ll_hdr *h, uint64_t rx_ns,
		   uint32_t len)
{
	rd->received++;
	if (!rd->first_rx_ns || rx_ns < rd->first_rx_ns)
		rd->first_rx_ns = rx_ns;
	if (rx_ns > rd->last_rx_ns)
		rd->last_rx_ns = rx_ns;
	/* Delays and the log are read on the clock the senders stamp with. */
	ll_flows_add(&rd->flows, h, ll_stamp_of(rx_ns), len);
	if (rd->c->log_fd >= 0) {
		ll_logrec_put(rd->logbuf + (size_t)rd->logn * LL_LOG_REC, h,
			      ll_stamp_of(rx_ns), len);
		if (++rd->logn == LL_LOG_BUF_RECS)
			ll_rx_log_flush(rd);
	}
	if (rd->c->work_ns) {
		/* A slow application: the socket queue fills while we spin. */
		uint64_t until = ll_mono_ns() + rd->c->work_ns, now;

		do
			now = ll_mono_ns();
		while (now < until);
		atomic_store_explicit(&rd->last_act_ns, now,
				      memory_order_relaxed);
	}
}
