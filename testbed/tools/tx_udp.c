// SPDX-License-Identifier: GPL-2.0-only
/*
 * tx_udp.c - lanloss-send over UDP: socket set-up, the paced loop (absolute
 * deadlines, one send call for whatever is due) and the --rate max loop
 * (blocking socket, full batches), each with sendmmsg or, with --gso, UDP GSO
 * super-datagrams.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "send.h"
#include "sockbuf.h"
#include "wire.h"

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif

/* UDP_MAX_SEGMENTS was 64 until Linux 6.11 (then 128): stay portable. */
#define LL_GSO_MAX_SEGS 64u

struct tx {
	int fd;
	const struct send_cfg *c;
	struct send_res *r;
	unsigned cap; /* message slots per sendmmsg */
	size_t slot; /* bytes per slot */
	unsigned gso_segs; /* max segments per GSO super-datagram; 0 = off */
	bool gso_ok; /* a GSO send has succeeded: errors are real errors */
	uint8_t *buf;
	struct mmsghdr *msgs;
	struct iovec *iov;
	unsigned *segs; /* GSO: segments in each slot */
	uint64_t seq;
};

static void set_int(int fd, int level, int opt, int v, const char *what)
{
	if (setsockopt(fd, level, opt, &v, sizeof(v)) < 0)
		ll_fail("%s %d: %m", what, v);
}

static int open_socket(const struct send_cfg *c, struct send_res *r)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(c->port),
				  .sin_addr = c->dst };
	bool mcast = ll_is_multicast(c->dst);
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0)
		ll_fail_errno("socket");
	r->sndbuf_actual = ll_sockbuf(fd, false, c->sndbuf, c->sndbuf_force);
	if (c->ttl >= 0)
		set_int(fd, IPPROTO_IP, mcast ? IP_MULTICAST_TTL : IP_TTL,
			c->ttl, "--ttl");
	if (c->mcast_loop >= 0)
		set_int(fd, IPPROTO_IP, IP_MULTICAST_LOOP, c->mcast_loop,
			"--mcast-loop");
	if (c->has_mcast_if &&
	    setsockopt(fd, IPPROTO_IP, IP_MULTICAST_IF, &c->mcast_if,
		       sizeof(c->mcast_if)) < 0)
		ll_fail("--mcast-if: %m");
	/*
	 * connect(): the route is looked up once (ip4_datagram_connect caches
	 * the dst) instead of per datagram, and ICMP port unreachable comes
	 * back as ECONNREFUSED on a later send instead of vanishing.
	 */
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		ll_fail("connect to the destination: %m");
	return fd;
}

/*
 * Segments per GSO send, or 0 when GSO is off or unusable: the segments must
 * be equal and each fit the path MTU (else EINVAL, udp_send_skb), and the
 * total must fit one IPv4 datagram. GSO pays the route, IP and UDP send work
 * once per super-datagram; on veth the super-skb even crosses to the peer
 * whole and is cut up at the receiving socket (udp_rcv_segment). Caveat for
 * loss studies: bridges and qdiscs (tbf segments only skbs above its burst)
 * then see one packet per super-datagram, so a drop takes all its segments.
 */
static unsigned gso_setup(int fd, const struct send_cfg *c)
{
	unsigned segs = LL_UDP_MAX_PAYLOAD / c->payload;
	int mtu, seg = (int)c->payload;
	socklen_t len = sizeof(mtu);

	if (segs > LL_GSO_MAX_SEGS)
		segs = LL_GSO_MAX_SEGS;
	if (!c->gso || segs < 2)
		return 0;
	if (getsockopt(fd, IPPROTO_IP, IP_MTU, &mtu, &len) < 0 ||
	    c->payload + 28 > (unsigned)mtu)
		return 0;
	if (setsockopt(fd, SOL_UDP, UDP_SEGMENT, &seg, sizeof(seg)) < 0)
		return 0;
	return segs;
}

static void tx_init(struct tx *t, unsigned gso_segs)
{
	const struct send_cfg *c = t->c;
	unsigned i;

	t->gso_segs = gso_segs;
	t->cap = gso_segs ? c->batch / gso_segs : c->batch;
	if (!t->cap)
		t->cap = 1;
	t->slot = (size_t)c->payload * (gso_segs ? gso_segs : 1);
	t->buf = calloc(t->cap, t->slot);
	t->msgs = calloc(t->cap, sizeof(*t->msgs));
	t->iov = calloc(t->cap, sizeof(*t->iov));
	t->segs = calloc(t->cap, sizeof(*t->segs));
	if (!t->buf || !t->msgs || !t->iov || !t->segs)
		ll_fail("out of memory for %u x %zu send buffers", t->cap,
			t->slot);
	for (i = 0; i < t->cap; i++) {
		t->iov[i].iov_base = t->buf + i * t->slot;
		t->iov[i].iov_len = c->payload;
		t->msgs[i].msg_hdr.msg_iov = &t->iov[i];
		t->msgs[i].msg_hdr.msg_iovlen = 1;
	}
}

static void tx_free(struct tx *t)
{
	free(t->buf);
	free(t->msgs);
	free(t->iov);
	free(t->segs);
}

/* Datagrams one send call can carry. */
static unsigned tx_per_call(const struct tx *t)
{
	return t->cap * (t->gso_segs ? t->gso_segs : 1);
}

/* Errors that will not go away by sending again end the run. */
static bool transient(int err)
{
	return err == EAGAIN || err == ENOBUFS || err == ECONNREFUSED ||
	       err == EINTR;
}

static void account(struct tx *t, uint64_t start, uint64_t end, uint64_t n,
		    const uint64_t *dl)
{
	struct send_res *r = t->r;
	uint64_t i;

	for (i = 0; dl && i < n; i++)
		ll_hist_add(&r->late, start > dl[i] ? start - dl[i] : 0);
	if (!r->sent)
		r->start_ns = start;
	r->sent += n;
	r->bytes += n * t->c->payload;
	r->end_ns = end;
	t->seq += n;
}

/* A failed datagram: counted by errno, not retried, its seq not consumed. */
static void failed(struct tx *t, int err, uint64_t n)
{
	ll_errcount_add(&t->r->errors, err, n);
	if (!transient(err) && !t->r->fatal) {
		t->r->fatal = err;
		ll_warn("send: %s; stopping", ll_errno_name(err));
	}
}

/*
 * Send n <= cap payload-size datagrams, the headers written just before each
 * call so tx_ns is the call time. dl: their deadlines (paced), or NULL.
 */
static void send_plain(struct tx *t, unsigned n, const uint64_t *dl, int flags)
{
	const struct send_cfg *c = t->c;
	unsigned i = 0, j;

	while (i < n && !t->r->fatal) {
		uint64_t now = ll_mono_ns(), end;
		int got;

		for (j = i; j < n; j++)
			ll_hdr_put(t->iov[j].iov_base, c->payload,
				   t->seq + (j - i), ll_stamp_of(now),
				   c->flow);
		got = sendmmsg(t->fd, t->msgs + i, n - i, flags);
		end = ll_mono_ns();
		if (got > 0) {
			account(t, now, end, (uint64_t)got, dl ? dl + i : NULL);
			i += (unsigned)got;
		} else if (errno == EINTR) {
			if (ll_stop)
				return;
		} else {
			failed(t, errno, 1);
			i++;
		}
	}
}

/* GSO errors meaning "not here" (no checksum offload, old kernel, ...). */
static bool gso_refused(int err)
{
	return err == EINVAL || err == EIO || err == EMSGSIZE ||
	       err == EOPNOTSUPP || err == ENOPROTOOPT || err == 524;
}

/*
 * Send n datagrams as GSO super-datagrams of up to gso_segs segments, each
 * segment with its own header. Returns false if the kernel refuses GSO
 * before it ever worked: nothing was sent or counted, the caller falls back.
 */
static bool send_gso(struct tx *t, unsigned n, const uint64_t *dl, int flags)
{
	const struct send_cfg *c = t->c;
	unsigned v = 0, i = 0, j, k, base = 0; /* base: first datagram of i */

	for (; n && v < t->cap; v++) {
		t->segs[v] = n < t->gso_segs ? n : t->gso_segs;
		t->iov[v].iov_len = (size_t)t->segs[v] * c->payload;
		n -= t->segs[v];
	}
	while (i < v && !t->r->fatal) {
		uint64_t now = ll_mono_ns(), seq = t->seq, end, sent = 0;
		int got;

		for (j = i; j < v; j++)
			for (k = 0; k < t->segs[j]; k++)
				ll_hdr_put((uint8_t *)t->iov[j].iov_base +
						   (size_t)k * c->payload,
					   c->payload, seq++, ll_stamp_of(now),
					   c->flow);
		got = sendmmsg(t->fd, t->msgs + i, v - i, flags);
		end = ll_mono_ns();
		if (got > 0) {
			for (j = i; j < i + (unsigned)got; j++) {
				sent += t->segs[j];
				if (t->segs[j] > 1)
					t->r->gso_used = true;
			}
			account(t, now, end, sent, dl ? dl + base : NULL);
			t->gso_ok = true;
			base += (unsigned)sent;
			i += (unsigned)got;
		} else if (errno == EINTR) {
			if (ll_stop)
				return true;
		} else if (!t->gso_ok && gso_refused(errno)) {
			return false;
		} else {
			failed(t, errno, t->segs[i]);
			base += t->segs[i];
			i++;
		}
	}
	return true;
}

/* n <= tx_per_call(t) datagrams, by GSO if on, else by sendmmsg. */
static void send_due(struct tx *t, unsigned n, const uint64_t *dl, int flags)
{
	unsigned i, chunk;
	int zero = 0;

	if (t->gso_segs) {
		if (send_gso(t, n, dl, flags))
			return;
		/* Refused: plain sends from now on, these n included. */
		setsockopt(t->fd, SOL_UDP, UDP_SEGMENT, &zero, sizeof(zero));
		tx_free(t);
		tx_init(t, 0);
	}
	for (i = 0; i < n && !ll_stop && !t->r->fatal; i += chunk) {
		chunk = n - i < t->cap ? n - i : t->cap;
		send_plain(t, chunk, dl ? dl + i : NULL, flags);
	}
}

static uint64_t end_time(const struct send_cfg *c, uint64_t t0)
{
	return c->duration > 0 ? t0 + (uint64_t)(c->duration * 1e9) : 0;
}

/* --rate max: a blocking socket, full batches back to back. */
static void run_max(struct tx *t, uint64_t t0)
{
	const struct send_cfg *c = t->c;
	struct send_res *r = t->r;
	uint64_t t_end = end_time(c, t0), want;

	while (!ll_stop && !r->fatal) {
		want = tx_per_call(t);
		if (c->count) {
			if (r->sent >= c->count)
				break;
			if (c->count - r->sent < want)
				want = c->count - r->sent;
		}
		if (t_end && ll_mono_ns() >= t_end)
			break;
		send_due(t, (unsigned)want, NULL, 0);
	}
}

/*
 * Paced: wait for the next deadline, then send every datagram already due
 * (up to one call's worth) in one call. When the gap is shorter than a send
 * call (a few us on veth, where the receive softirq runs in the sender's
 * context), several are due at once and batching follows by itself, without
 * sending anything early. MSG_DONTWAIT: a full socket buffer is reported as
 * EAGAIN and the datagram skipped, so the offered schedule is kept.
 */
static void run_paced(struct tx *t, uint64_t t0, uint64_t *deadline)
{
	const struct send_cfg *c = t->c;
	struct send_res *r = t->r;
	uint64_t t_end = end_time(c, t0);
	struct ll_sched s;
	unsigned n, max;

	ll_sched_init(&s, c->pat, c->burst, c->payload, c->rate, c->seed,
		      c->flow, t0);
	while (!ll_stop && !r->fatal) {
		if (c->count && r->sent >= c->count)
			break;
		max = tx_per_call(t);
		if (c->count && c->count - r->sent < max)
			max = (unsigned)(c->count - r->sent);
		n = ll_sched_take_due(&s, t_end, max, deadline);
		if (!n)
			break;
		send_due(t, n, deadline, MSG_DONTWAIT);
	}
}

/*
 * --start-burst N: N datagrams due at t0, sent back to back (blocking: a full
 * socket buffer slows the burst rather than skipping part of it), before the
 * pattern's own schedule, which then starts at t0 as without them.
 */
static void run_start_burst(struct tx *t, uint64_t t0, uint64_t *deadline)
{
	const struct send_cfg *c = t->c;
	uint64_t left = c->start_burst;
	unsigned n, i;

	if (c->count && c->count < left)
		left = c->count;
	while (left && !ll_stop && !t->r->fatal) {
		n = tx_per_call(t) < left ? tx_per_call(t) : (unsigned)left;
		for (i = 0; i < n; i++)
			deadline[i] = t0;
		send_due(t, n, deadline, 0);
		left -= n;
	}
}

void ll_tx_udp(const struct send_cfg *c, struct send_res *r)
{
	struct tx t = { .c = c, .r = r };
	uint64_t *deadline, t0;
	unsigned max;

	t.fd = open_socket(c, r);
	tx_init(&t, gso_setup(t.fd, c));
	/* Sized for the larger of GSO and plain calls: survives a fallback. */
	max = tx_per_call(&t) > c->batch ? tx_per_call(&t) : c->batch;
	deadline = calloc(max, sizeof(*deadline));
	if (!deadline)
		ll_fail("out of memory");
	t0 = ll_tx_start(c);
	if (t0) {
		run_start_burst(&t, t0, deadline);
		if (c->rate)
			run_paced(&t, t0, deadline);
		else
			run_max(&t, t0);
	}
	free(deadline);
	tx_free(&t);
	close(t.fd);
}
