// SPDX-License-Identifier: GPL-2.0-only
/* rx_sock.c - lanloss-recv's sockets: bind, join, buffer and options. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
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
	/* Only with several sockets: otherwise another process could bind
	 * the port too and silently take part of our traffic. */
	if (c->readers > 1 && !c->shared)
		on(fd, SOL_SOCKET, SO_REUSEPORT, "SO_REUSEPORT");
	ll_sockbuf(fd, true, c->rcvbuf, c->rcvbuf_force);
	/* Each datagram then carries the socket's cumulative sk_drops as
	 * counted when it was queued (sock_skb_set_dropcount, 3b885787). Only
	 * on request: from the socket's first drop on, every datagram read
	 * carries one more cmsg, which the kernel writes and we parse, so the
	 * reader slows exactly when the socket overflows (a one-vCPU guest
	 * read 12 % fewer datagrams past its capacity: docs/testbed-vm.md
	 * §17). The socket's drops are read from /proc/net/udp instead. */
	if (c->rxq_ovfl)
		on(fd, SOL_SOCKET, SO_RXQ_OVFL, "SO_RXQ_OVFL");
	/* Every datagram's kernel receive stamp: the reader's stalls are timed
	 * from it (rx_sched.c), and --rx-time kernel reports it. */
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

/*
 * The kernel's own choice in a SO_REUSEPORT group is a hash of the 4-tuple:
 * one sender's flow would always land on one socket. A classic BPF program
 * (SO_ATTACH_REUSEPORT_CBPF, Linux 4.5) picks socket (IP ID mod n) instead:
 * a connected sender's IDs count up by one per datagram (ip_select_ident),
 * so its datagrams are dealt out in turn, as the simulator's HostRxPath
 * deals them, and as n processes on n ports each get 1/n of the traffic.
 */
void ll_rx_reuseport_round_robin(int fd, unsigned n)
{
	struct sock_filter code[] = {
		{ BPF_LD | BPF_H | BPF_ABS, 0, 0, (uint32_t)(SKF_NET_OFF + 4) },
		{ BPF_ALU | BPF_MOD | BPF_K, 0, 0, n },
		{ BPF_RET | BPF_A, 0, 0, 0 },
	};
	struct sock_fprog prog = { .len = 3, .filter = code };

	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, &prog,
		       sizeof(prog)) < 0)
		ll_fail("SO_ATTACH_REUSEPORT_CBPF: %m");
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
