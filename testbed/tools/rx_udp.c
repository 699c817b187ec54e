// SPDX-License-Identifier: GPL-2.0-only
/*
 * rx_udp.c - a lanloss-recv UDP reader thread: recvmmsg with MSG_WAITFORONE
 * (block for the first datagram, then take whatever else is queued, up to
 * --batch, without blocking again), per-datagram SO_RXQ_OVFL and the
 * SO_TIMESTAMPNS receive stamp: the batch's oldest stamp times the reader's
 * stalls (rx_sched.c); with --rx-time kernel every stamp is the rx_ns.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "clock.h"
#include "recv.h"
#include "util.h"

#define LL_MAX_DGRAM 65536u
#define LL_CTRL                                                                \
	(CMSG_SPACE(sizeof(uint32_t)) + CMSG_SPACE(sizeof(struct timespec)))

struct rxbufs {
	size_t slot;
	uint8_t *data;
	uint8_t *ctrl;
	struct mmsghdr *msgs;
	struct iovec *iov;
};

static void bufs_init(struct rxbufs *b, const struct recv_cfg *c)
{
	unsigned i;

	/* A known payload bounds the copy; longer datagrams are truncated
	 * (MSG_TRUNC still reports their length) but still counted. */
	b->slot = c->payload >= LL_HDR_FULL && c->payload < LL_MAX_DGRAM
			  ? c->payload
			  : LL_MAX_DGRAM;
	b->data = malloc(c->batch * b->slot);
	b->ctrl = calloc(c->batch, LL_CTRL);
	b->msgs = calloc(c->batch, sizeof(*b->msgs));
	b->iov = calloc(c->batch, sizeof(*b->iov));
	if (!b->data || !b->ctrl || !b->msgs || !b->iov)
		ll_fail("out of memory for receive buffers");
	for (i = 0; i < c->batch; i++) {
		b->iov[i].iov_base = b->data + i * b->slot;
		b->iov[i].iov_len = b->slot;
		b->msgs[i].msg_hdr.msg_iov = &b->iov[i];
		b->msgs[i].msg_hdr.msg_iovlen = 1;
	}
}

static void bufs_free(struct rxbufs *b)
{
	free(b->data);
	free(b->ctrl);
	free(b->msgs);
	free(b->iov);
}

/*
 * The cmsgs of one datagram. SO_RXQ_OVFL is only attached once sk_drops is
 * non-zero (sock_recv_drops), so its absence means 0.
 */
static void parse_cmsgs(struct msghdr *mh, uint32_t *ovfl, uint64_t *kts)
{
	struct cmsghdr *cm;

	*ovfl = 0;
	*kts = 0;
	for (cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm)) {
		if (cm->cmsg_level != SOL_SOCKET)
			continue;
		if (cm->cmsg_type == SO_RXQ_OVFL) {
			memcpy(ovfl, CMSG_DATA(cm), sizeof(*ovfl));
		} else if (cm->cmsg_type == SCM_TIMESTAMPNS) {
			struct timespec ts;

			memcpy(&ts, CMSG_DATA(cm), sizeof(ts));
			*kts = ll_ts_ns(&ts);
		}
	}
}

/* The kernel receive stamp of a batch's first (oldest) datagram on
 * CLOCK_MONOTONIC; 0 without one. */
static uint64_t oldest_stamp(const struct reader *rd, struct rxbufs *b)
{
	uint64_t kts;
	uint32_t ovfl;

	parse_cmsgs(&b->msgs[0].msg_hdr, &ovfl, &kts);
	return kts ? kts - (uint64_t)rd->real_minus_mono : 0;
}

void *ll_rx_udp(void *arg)
{
	struct reader *rd = arg;
	const struct recv_cfg *c = rd->c;
	struct rxbufs b;
	unsigned i;
	int got;

	bufs_init(&b, c);
	ll_rx_sched_begin(&rd->sched);
	while (!atomic_load_explicit(&ll_rx_stop, memory_order_relaxed)) {
		uint64_t now;

		/* recvmmsg overwrites msg_controllen: reset it every call. */
		for (i = 0; i < c->batch; i++) {
			b.msgs[i].msg_hdr.msg_control = b.ctrl + i * LL_CTRL;
			b.msgs[i].msg_hdr.msg_controllen = LL_CTRL;
		}
		got = recvmmsg(rd->fd, b.msgs, c->batch,
			       MSG_WAITFORONE | MSG_TRUNC, NULL);
		if (got < 0) {
			/* Not a return with datagrams: the stall clock runs on
			 * (a stop signal ends a blocked call with EINTR). */
			if (errno == EAGAIN || errno == EINTR)
				continue; /* SO_RCVTIMEO: check the stop */
			rd->err = errno;
			break;
		}
		now = ll_mono_ns();
		ll_cpu_window_mark(now);
		ll_rx_sched_returned(&rd->sched, now, oldest_stamp(rd, &b));
		atomic_store_explicit(&rd->last_act_ns, now,
				      memory_order_relaxed);
		for (i = 0; i < (unsigned)got; i++) {
			struct msghdr *mh = &b.msgs[i].msg_hdr;
			uint32_t len = b.msgs[i].msg_len, ovfl;
			uint64_t kts, rx = now;
			struct ll_hdr h;

			parse_cmsgs(mh, &ovfl, &kts);
			if (!rd->ovfl_seen) {
				rd->ovfl_first = ovfl;
				rd->ovfl_seen = true;
			}
			rd->ovfl_last = ovfl;
			if (c->kernel_ts && kts)
				rx = kts - (uint64_t)rd->real_minus_mono;
			h = ll_hdr_get(mh->msg_iov->iov_base,
				       len < b.slot ? len : (uint32_t)b.slot);
			rd->bytes += len;
			ll_rx_account(rd, &h, rx, len);
		}
	}
	ll_rx_sched_end(&rd->sched);
	if (rd->c->log_fd >= 0)
		ll_rx_log_flush(rd);
	bufs_free(&b);
	atomic_store(&rd->done, true);
	return NULL;
}
