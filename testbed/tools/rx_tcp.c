// SPDX-License-Identifier: GPL-2.0-only
/*
 * rx_tcp.c - a lanloss-recv TCP reader thread: accept one connection, read
 * until EOF. With --payload the byte stream is cut into messages of that
 * size and each message's header is accounted like a datagram's, at the
 * time its last byte was read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "recv.h"
#include "util.h"

#define LL_TCP_READ (256u << 10)

struct msgcut {
	uint32_t off; /* bytes of the current message seen so far */
	uint32_t hdr_len;
	uint8_t hdr[LL_HDR_FULL];
};

static void cut_messages(struct reader *rd, struct msgcut *m, const uint8_t *p,
			 size_t n, uint64_t rx)
{
	uint32_t payload = rd->c->payload, take;

	while (n) {
		if (m->off < m->hdr_len) {
			take = m->hdr_len - m->off;
			if (take > n)
				take = (uint32_t)n;
			memcpy(m->hdr + m->off, p, take);
		} else {
			take = payload - m->off;
			if (take > n)
				take = (uint32_t)n;
		}
		m->off += take;
		p += take;
		n -= take;
		if (m->off == payload) {
			struct ll_hdr h = ll_hdr_get(m->hdr, m->hdr_len);

			ll_rx_account(rd, &h, rx, payload);
			m->off = 0;
		}
	}
}

static int accept_one(struct reader *rd)
{
	int fd;

	while (!atomic_load(&ll_rx_stop)) {
		fd = accept(rd->fd, NULL, NULL);
		if (fd >= 0) {
			ll_rx_set_timeout(fd);
			return fd;
		}
		if (errno != EAGAIN && errno != EINTR) {
			rd->err = errno;
			break;
		}
	}
	return -1;
}

void *ll_rx_tcp(void *arg)
{
	struct reader *rd = arg;
	struct msgcut m = { .hdr_len = ll_hdr_bytes(rd->c->payload) };
	uint8_t *buf = malloc(LL_TCP_READ);
	uint64_t now;
	ssize_t n;

	if (!buf)
		ll_fail("out of memory");
	ll_rx_sched_begin(&rd->sched); /* no stamps: switches and delay only */
	rd->conn = accept_one(rd);
	while (rd->conn >= 0 && !atomic_load(&ll_rx_stop)) {
		n = recv(rd->conn, buf, LL_TCP_READ, 0);
		if (n == 0)
			break; /* EOF */
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			rd->err = errno;
			break;
		}
		now = ll_mono_ns();
		atomic_store_explicit(&rd->last_act_ns, now,
				      memory_order_relaxed);
		rd->bytes += (uint64_t)n;
		if (!rd->first_rx_ns)
			rd->first_rx_ns = now;
		rd->last_rx_ns = now;
		if (rd->c->payload)
			cut_messages(rd, &m, buf, (size_t)n, now);
	}
	ll_rx_sched_end(&rd->sched);
	if (rd->c->log_fd >= 0)
		ll_rx_log_flush(rd);
	free(buf);
	atomic_store(&rd->done, true);
	return NULL;
}
