// SPDX-License-Identifier: GPL-2.0-only
/*
 * tx_tcp.c - lanloss-send over TCP: one connection, messages of --payload
 * bytes each starting with the header (wire.h), paced like UDP but written
 * with blocking sends. TCP does not lose messages; what it shows is how the
 * achieved rate and the lateness grow when the path cannot keep up.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "send.h"
#include "sockbuf.h"
#include "wire.h"

/* Bytes handed to one send(): batch messages, but not more than this. */
#define LL_TCP_CHUNK (4u << 20)

static int open_socket(const struct send_cfg *c, struct send_res *r)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(c->port),
				  .sin_addr = c->dst };
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	if (fd < 0)
		ll_fail_errno("socket");
	r->sndbuf_actual = ll_sockbuf(fd, false, c->sndbuf, c->sndbuf_force);
	if (c->ttl >= 0 &&
	    setsockopt(fd, IPPROTO_IP, IP_TTL, &c->ttl, sizeof(c->ttl)) < 0)
		ll_fail("--ttl: %m");
	/* Nagle would hold small paced messages back for an ACK. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	while (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		if (errno != EINTR || ll_stop)
			ll_fail("connect to the destination: %m");
	}
	return fd;
}

/*
 * Write n whole messages from buf. Counts whole messages in sent and every
 * accepted byte in bytes; an error ends the run (the connection is gone).
 */
static bool write_msgs(int fd, const struct send_cfg *c, struct send_res *r,
		       const uint8_t *buf, unsigned n, uint64_t start)
{
	size_t len = (size_t)n * c->payload, off = 0;

	while (off < len) {
		ssize_t got = send(fd, buf + off, len - off, MSG_NOSIGNAL);

		if (got > 0) {
			off += (size_t)got;
			continue;
		}
		if (got < 0 && errno == EINTR && !ll_stop)
			continue;
		if (got < 0 && errno != EINTR) {
			ll_errcount_add(&r->errors, errno, 1);
			r->fatal = errno;
		}
		break;
	}
	if (off) {
		if (!r->bytes)
			r->start_ns = start;
		r->bytes += off;
		r->sent += off / c->payload;
		r->end_ns = ll_mono_ns();
	}
	return off == len;
}

void ll_tx_tcp(const struct send_cfg *c, struct send_res *r)
{
	unsigned cap = LL_TCP_CHUNK / c->payload, n, i;
	uint64_t t0, t_end = 0, now, seq = 0;
	uint64_t *deadline;
	struct ll_sched s;
	uint8_t *buf;
	int fd;

	if (cap > c->batch)
		cap = c->batch;
	if (!cap)
		cap = 1;
	buf = calloc(cap, c->payload);
	deadline = calloc(cap, sizeof(*deadline));
	if (!buf || !deadline)
		ll_fail("out of memory");
	fd = open_socket(c, r);
	t0 = ll_tx_start(c);
	if (!t0)
		goto out;
	if (c->duration > 0)
		t_end = t0 + (uint64_t)(c->duration * 1e9);
	if (c->rate)
		ll_sched_init(&s, c->pat, c->burst, c->payload, c->rate,
			      c->seed, c->flow, t0);

	while (!ll_stop) {
		n = cap;
		if (c->count) {
			if (r->sent >= c->count)
				break;
			if (c->count - r->sent < n)
				n = (unsigned)(c->count - r->sent);
		}
		if (c->rate) {
			n = ll_sched_take_due(&s, t_end, n, deadline);
			if (!n)
				break;
		} else if (t_end && ll_mono_ns() >= t_end) {
			break;
		}
		now = ll_mono_ns();
		for (i = 0; i < n; i++)
			ll_hdr_put(buf + (size_t)i * c->payload, c->payload,
				   seq + i, ll_stamp_of(now), c->flow);
		if (!write_msgs(fd, c, r, buf, n, now))
			break;
		for (i = 0; c->rate && i < n; i++)
			ll_hist_add(&r->late, now - deadline[i]);
		seq += n;
	}
out:
	close(fd);
	free(buf);
	free(deadline);
}
