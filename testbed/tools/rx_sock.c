// SPDX-License-Identifier: GPL-2.0-only
/* rx_sock.c - lanloss-recv's sockets: bind, join, buffer and options. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "recv.h"
#include "sockbuf.h"
#include "util.h"

static void on(int fd, int level, int opt, const char *name)
{
	int one = 1;

	if (setsockopt(fd, level, opt, &one, sizeof(one)) < 0)
		ll_fail("%s: %m", name);
}

void ll_rx_set_timeout(int fd)
{
	struct timeval tv = { .tv_sec = 0, .tv_usec = LL_POLL_NS / 1000 };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

static void do_bind(int fd, const struct recv_cfg *c)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(c->port),
				  .sin_addr = c->bind };
	char a[INET_ADDRSTRLEN];

	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		inet_ntop(AF_INET, &c->bind, a, sizeof(a));
		ll_fail("bind %s:%u: %m", a, c->port);
	}
}

int ll_rx_udp_socket(const struct recv_cfg *c)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0), zero = 0;

	if (fd < 0)
		ll_fail_errno("socket");
	/* Only with several readers: otherwise another process could bind
	 * the port too and silently take part of our traffic. */
	if (c->readers > 1)
		on(fd, SOL_SOCKET, SO_REUSEPORT, "SO_REUSEPORT");
	ll_sockbuf(fd, true, c->rcvbuf, c->rcvbuf_force);
	/* Each datagram then carries the socket's cumulative sk_drops as
	 * counted when it was queued (sock_skb_set_dropcount, 3b885787). */
	on(fd, SOL_SOCKET, SO_RXQ_OVFL, "SO_RXQ_OVFL");
	if (c->kernel_ts)
		on(fd, SOL_SOCKET, SO_TIMESTAMPNS, "SO_TIMESTAMPNS");
	ll_rx_set_timeout(fd);
	do_bind(fd, c);
	if (c->has_group) {
		struct ip_mreqn mr = { .imr_multiaddr = c->group,
				       .imr_address = c->iface };

		/* Deliver only the groups this socket joined, not every group
		 * joined by anyone on the host (the IP_MULTICAST_ALL default).
		 */
		setsockopt(fd, IPPROTO_IP, IP_MULTICAST_ALL, &zero,
			   sizeof(zero));
		if (setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mr,
			       sizeof(mr)) < 0)
			ll_fail("--group: IP_ADD_MEMBERSHIP: %m");
	}
	return fd;
}

int ll_rx_tcp_listener(const struct recv_cfg *c)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		ll_fail_errno("socket");
	on(fd, SOL_SOCKET, SO_REUSEADDR, "SO_REUSEADDR");
	/* Set before listen(): accepted sockets inherit it, and the window
	 * scale offered in the SYN-ACK is chosen from it. */
	ll_sockbuf(fd, true, c->rcvbuf, c->rcvbuf_force);
	ll_rx_set_timeout(fd); /* accept() wakes up to check for the stop */
	do_bind(fd, c);
	if (listen(fd, (int)c->readers + 8) < 0)
		ll_fail_errno("listen");
	return fd;
}
