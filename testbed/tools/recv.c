// SPDX-License-Identifier: GPL-2.0-only
/*
 * recv.c - lanloss-recv: counts, sequences and times the datagrams of
 * lanloss-send (wire.h) on one port, with one thread per reader socket, and
 * prints a JSON report (recv_report.c) when it stops: at --duration, after
 * --idle-timeout without traffic, at SIGINT/SIGTERM, or (TCP) when every
 * reader's connection has closed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "cpu_window.h"
#include "recv.h"
#include "wire.h"
#include "util.h"

atomic_bool ll_rx_stop;

static const char usage[] =
	"usage: lanloss-recv [options]\n"
	"  --bind ADDR           local address (0.0.0.0)\n"
	"  --port N              (" LL_STR(LANLOSS_PORT) ")\n"
	"  --proto udp|tcp       (udp)\n"
	"  --group ADDR          join this multicast group\n"
	"  --iface-addr ADDR     local interface address for the join\n"
	"  --rcvbuf BYTES        SO_RCVBUF\n"
	"  --rcvbuf-force        use SO_RCVBUFFORCE for --rcvbuf (root)\n"
	"  --readers N           N reading threads (1)\n"
	"  --sockets reuseport|shared\n"
	"                        reuseport: a SO_REUSEPORT socket per reader, the\n"
	"                        datagrams dealt out in turn by the IP ID (a BPF\n"
	"                        program; with --group every socket gets its own\n"
	"                        copy); shared: the readers share one socket\n"
	"                        (reuseport)\n"
	"  --batch N             recvmmsg vector 1..1024 (64)\n"
	"  --duration SEC        hard deadline\n"
	"  --idle-timeout SEC    after the first datagram, stop when none came\n"
	"                        for SEC (2; 0 = never)\n"
	"  --work-ns N           busy-spin N ns per datagram (a slow application)\n"
	"  --rxq-ovfl            ask for SO_RXQ_OVFL: each datagram read after the\n"
	"                        socket's first drop carries the drop count (a\n"
	"                        cmsg per datagram: it slows the reading)\n"
	"  --payload N           TCP: message size, to count and parse messages\n"
	"  --rx-time app|kernel  rx_ns: when recvmmsg returned (app), or the\n"
	"                        kernel's SO_TIMESTAMPNS receive stamp (app)\n"
	"  --stamp-clock monotonic|realtime\n"
	"                        clock the senders stamp with (monotonic); rx_ns\n"
	"                        in delays and the log is read on it too\n"
	"  --log FILE            per-packet log, 32-byte records (see wire.h)\n"
	"  --ready-file PATH     created once the sockets are bound and joined\n"
	"  --cpu-window SEC      report this host's busy and idle CPU time over SEC\n"
	"                        from the first receive call with datagrams\n"
	"                        (/proc/stat; read by the main thread)\n"
	"  --cpu-window-irq NAME and the interrupts of the /proc/interrupts\n"
	"                        lines naming device NAME over it\n"
	"  --json FILE           write the report to FILE instead of stdout\n";

enum {
	O_BIND = LL_O_OWN,
	O_GROUP,
	O_IFACE,
	O_RCVBUF,
	O_RCVBUF_FORCE,
	O_READERS,
	O_SOCKETS,
	O_DURATION,
	O_IDLE,
	O_WORK,
	O_RXQ_OVFL,
	O_PAYLOAD,
	O_RXTIME,
	O_LOG,
	O_READY,
	O_CPU_WINDOW,
	O_CPU_WINDOW_IRQ,
};

static const struct option options[] = {
	LL_COMMON_OPTIONS,
	{ "bind", required_argument, NULL, O_BIND },
	{ "group", required_argument, NULL, O_GROUP },
	{ "iface-addr", required_argument, NULL, O_IFACE },
	{ "rcvbuf", required_argument, NULL, O_RCVBUF },
	{ "rcvbuf-force", no_argument, NULL, O_RCVBUF_FORCE },
	{ "readers", required_argument, NULL, O_READERS },
	{ "sockets", required_argument, NULL, O_SOCKETS },
	{ "duration", required_argument, NULL, O_DURATION },
	{ "idle-timeout", required_argument, NULL, O_IDLE },
	{ "work-ns", required_argument, NULL, O_WORK },
	{ "rxq-ovfl", no_argument, NULL, O_RXQ_OVFL },
	{ "payload", required_argument, NULL, O_PAYLOAD },
	{ "rx-time", required_argument, NULL, O_RXTIME },
	{ "log", required_argument, NULL, O_LOG },
	{ "ready-file", required_argument, NULL, O_READY },
	{ "cpu-window", required_argument, NULL, O_CPU_WINDOW },
	{ "cpu-window-irq", required_argument, NULL, O_CPU_WINDOW_IRQ },
	{ NULL, 0, NULL, 0 },
};

struct paths {
	const char *log;
	const char *ready;
	const char *json;
};

static void parse_args(int argc, char **argv, struct recv_cfg *c,
		       struct paths *p)
{
	const struct ll_common_opts common = { &c->port, &c->proto, &c->batch,
					       &p->json };
	int o;

	while ((o = ll_opt_next(argc, argv, options, usage)) != -1) {
		if (ll_opt_common(o, optarg, &common))
			continue;
		switch (o) {
		case O_BIND:
			c->bind = ll_opt_ipv4("bind", optarg);
			break;
		case O_GROUP:
			c->group = ll_opt_ipv4("group", optarg);
			if (!ll_is_multicast(c->group))
				ll_usage_error(
					"--group: invalid value '%s' (expected a multicast address)",
					optarg);
			c->has_group = true;
			break;
		case O_IFACE:
			c->iface = ll_opt_ipv4("iface-addr", optarg);
			break;
		case O_RCVBUF:
			c->rcvbuf = ll_opt_sockbuf("rcvbuf", optarg);
			break;
		case O_RCVBUF_FORCE:
			c->rcvbuf_force = true;
			break;
		case O_READERS:
			c->readers =
				(unsigned)ll_opt_u64("readers", optarg, 1, 64);
			break;
		case O_SOCKETS:
			if (!strcmp(optarg, "shared"))
				c->shared = true;
			else if (strcmp(optarg, "reuseport"))
				ll_usage_error(
					"--sockets: invalid value '%s' (expected reuseport or shared)",
					optarg);
			break;
		case O_DURATION:
			c->duration = ll_opt_dbl("duration", optarg, 1e-3, 1e7);
			break;
		case O_IDLE:
			c->idle = ll_opt_dbl("idle-timeout", optarg, 0, 1e7);
			break;
		case O_WORK:
			c->work_ns =
				ll_opt_u64("work-ns", optarg, 0, 1000000000);
			break;
		case O_RXQ_OVFL:
			c->rxq_ovfl = true;
			break;
		case O_PAYLOAD:
			c->payload = (uint32_t)ll_opt_u64("payload", optarg, 1,
							  1048576);
			break;
		case O_RXTIME:
			if (!strcmp(optarg, "kernel"))
				c->kernel_ts = true;
			else if (strcmp(optarg, "app"))
				ll_usage_error(
					"--rx-time: invalid value '%s' (expected app or kernel)",
					optarg);
			break;
		case O_LOG:
			p->log = optarg;
			break;
		case O_READY:
			p->ready = optarg;
			break;
		case O_CPU_WINDOW:
			c->cpu_window_s =
				ll_opt_dbl("cpu-window", optarg, 1e-3, 1e7);
			break;
		case O_CPU_WINDOW_IRQ:
			if (!*optarg || strchr(optarg, ' '))
				ll_usage_error(
					"--cpu-window-irq: invalid value '%s' (expected a device name)",
					optarg);
			c->cpu_window_irq = optarg;
			break;
		}
	}
	if (c->cpu_window_irq && c->cpu_window_s <= 0)
		ll_usage_error("--cpu-window-irq: needs --cpu-window SEC");
	if (c->rcvbuf_force && c->rcvbuf < 0)
		ll_usage_error("--rcvbuf-force: needs --rcvbuf BYTES");
	if (c->proto == LL_TCP && c->has_group)
		ll_usage_error("--group: not with --proto tcp");
	if (c->proto == LL_TCP && c->rxq_ovfl)
		ll_usage_error("--rxq-ovfl: UDP only");
	if (c->proto == LL_TCP && c->shared)
		ll_usage_error("--sockets shared: UDP only (TCP readers accept a connection each)");
}

/* Written under a temporary name and renamed: it appears complete. */
static void write_ready(const char *path)
{
	char tmp[PATH_MAX];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) != 0 ||
	    rename(tmp, path) < 0)
		ll_fail("--ready-file %s: %m", path);
}

/* Wait for a reason to stop; signals arrive here only (blocked in threads). */
static const char *supervise(const struct recv_cfg *c, struct reader *rds,
			     const sigset_t *sigs, struct ll_cpu_window *w)
{
	uint64_t start = ll_mono_ns(), now, last, a;
	struct timespec poll = { .tv_nsec = 20000000 };
	unsigned i, done;

	for (;;) {
		if (sigtimedwait(sigs, NULL, &poll) > 0)
			return "signal";
		now = ll_mono_ns();
		ll_cpu_window_poll(w, now);
		if (c->duration > 0 && now - start >= c->duration * 1e9)
			return "deadline";
		last = 0;
		done = 0;
		for (i = 0; i < c->readers; i++) {
			a = atomic_load_explicit(&rds[i].last_act_ns,
						 memory_order_relaxed);
			if (a > last)
				last = a;
			done += atomic_load(&rds[i].done);
		}
		if (c->idle > 0 && last && now > last &&
		    now - last >= c->idle * 1e9)
			return "idle";
		if (done == c->readers)
			return c->proto == LL_TCP ? "eof" : "error";
	}
}

/* Sum of our sockets' /proc/net/udp drops; stays -1 if none is found. */
static void add_drops(struct recv_summary *s, int fd, uint16_t port)
{
	int64_t d = ll_udp_socket_drops(fd, port);

	if (d < 0)
		return;
	if (s->socket_drops < 0)
		s->socket_drops = 0;
	s->socket_drops += d;
}

int main(int argc, char **argv)
{
	struct recv_cfg c = {
		.port = LANLOSS_PORT,
		.proto = LL_UDP,
		.rcvbuf = -1,
		.readers = 1,
		.batch = 64,
		.idle = 2.0,
		.log_fd = -1,
	};
	struct recv_summary s = { .socket_drops = -1 };
	struct ll_cpu_window window = { 0 };
	struct paths p = { 0 };
	FILE *out = stdout;
	struct reader *rds;
	sigset_t sigs;
	int listener = -1, rc = 0;
	unsigned i;

	ll_prog = "lanloss-recv";
	parse_args(argc, argv, &c, &p);
	if (p.json && !(out = fopen(p.json, "w")))
		ll_fail("--json %s: cannot open: %m", p.json);
	if (p.log) {
		c.log_fd = open(p.log, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND,
				0644);
		if (c.log_fd < 0)
			ll_fail("--log %s: cannot open: %m", p.log);
	}
	/* Block the stop signals before any thread exists: all threads
	 * inherit the mask and only supervise() receives them. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	ll_die_with_parent(); /* SIGTERM when the harness dies: supervise() stops */

	rds = calloc(c.readers, sizeof(*rds));
	if (!rds)
		ll_fail("out of memory");
	if (c.proto == LL_TCP)
		listener = ll_rx_tcp_listener(&c);
	for (i = 0; i < c.readers; i++) {
		struct reader *rd = &rds[i];

		rd->idx = i;
		rd->c = &c;
		rd->conn = -1;
		if (c.proto == LL_TCP)
			rd->fd = listener;
		else if (c.shared && i > 0)
			rd->fd = rds[0].fd;
		else
			rd->fd = ll_rx_udp_socket(&c);
		rd->real_minus_mono = ll_real_minus_mono_ns();
		if (c.log_fd >= 0 &&
		    !(rd->logbuf = malloc(LL_LOG_BUF_RECS * LL_LOG_REC)))
			ll_fail("out of memory");
	}
	if (c.proto == LL_UDP && !c.shared && c.readers > 1)
		ll_rx_reuseport_round_robin(rds[0].fd, c.readers);
	for (i = 0; i < c.readers; i++) {
		if (pthread_create(&rds[i].thread, NULL,
				   c.proto == LL_TCP ? ll_rx_tcp : ll_rx_udp,
				   &rds[i]))
			ll_fail("pthread_create failed");
	}
	if (p.ready)
		write_ready(p.ready);

	window.seconds = c.cpu_window_s;
	window.irq_name = c.cpu_window_irq;
	s.window = &window;
	s.stop_reason = supervise(&c, rds, &sigs, &window);
	atomic_store(&ll_rx_stop, true);
	for (i = 0; i < c.readers; i++)
		pthread_join(rds[i].thread, NULL);

	for (i = 0; i < c.readers; i++) {
		struct reader *rd = &rds[i];
		socklen_t len = sizeof(s.rcvbuf_actual);

		if (rd->err) {
			ll_warn("reader %u: %s", i, strerror(rd->err));
			rc = LL_EXIT_FAIL;
		}
		if (i == 0)
			getsockopt(rd->conn >= 0 ? rd->conn : rd->fd,
				   SOL_SOCKET, SO_RCVBUF, &s.rcvbuf_actual,
				   &len);
		if (c.proto == LL_UDP && (i == 0 || !c.shared))
			add_drops(&s, rd->fd, c.port); /* each socket once */
		ll_flows_merge(&s.flows, &rd->flows);
	}
	ll_flows_finish(&s.flows);
	ll_recv_report(out, &c, rds, &s);
	if (out != stdout && fclose(out) != 0)
		ll_fail("--json %s: write failed", p.json);
	return rc;
}
