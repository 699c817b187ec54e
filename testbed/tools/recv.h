/* SPDX-License-Identifier: GPL-2.0-only */
/* recv.h - lanloss-recv: configuration and reader state shared by its files. */
#ifndef LL_RECV_H
#define LL_RECV_H

#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cpu_window.h"
#include "flows.h"
#include "opts.h"
#include "wire.h"

/* How often blocked readers wake to check for the stop (SO_RCVTIMEO): the harness
 * waits for them after its SIGINT, once per point. */
#define LL_POLL_NS 10000000ull

struct recv_cfg {
	struct in_addr bind;
	uint16_t port;
	enum ll_proto proto;
	bool has_group;
	struct in_addr group;
	struct in_addr iface; /* INADDR_ANY: the kernel picks by route */
	int64_t rcvbuf; /* -1 = kernel default */
	bool rcvbuf_force;
	unsigned readers;
	bool shared; /* --sockets shared: the readers share one UDP socket */
	unsigned batch;
	double duration; /* s; 0 = none */
	double idle; /* s; 0 = none */
	uint64_t work_ns;
	uint32_t payload; /* TCP message size; 0 = unknown */
	bool kernel_ts; /* --rx-time kernel */
	bool rxq_ovfl; /* --rxq-ovfl: SO_RXQ_OVFL on every reader's socket */
	int log_fd; /* -1 = no per-packet log */
	double cpu_window_s; /* --cpu-window; 0 = none */
	const char *cpu_window_irq; /* --cpu-window-irq; NULL = none */
};

#define LL_LOG_BUF_RECS 4096

/* A reader thread's own scheduling (rx_sched.c). */
struct ll_rx_sched {
	uint64_t last_ns; /* CLOCK_MONOTONIC: last return with datagrams */
	uint64_t last_cpu_ns; /* the thread's CPU time then */
	uint64_t max_stall_ns; /* longest off the CPU while datagrams waited */
	uint64_t max_stall_at_ns; /* CLOCK_MONOTONIC when that stall ended */
	int64_t run_delay_ns; /* run-queue delay over its life; -1 = unknown */
	int64_t nivcsw; /* involuntary context switches; -1 = unknown */
	int64_t nvcsw; /* voluntary ones */
	uint64_t calls; /* UDP receive calls that returned datagrams */
};

void ll_rx_sched_begin(struct ll_rx_sched *s);
/* A receive call returned at now (CLOCK_MONOTONIC) with its oldest datagram
 * received at oldest_arrival (same clock; 0 = no datagram or no stamp). */
void ll_rx_sched_returned(struct ll_rx_sched *s, uint64_t now,
			  uint64_t oldest_arrival);
void ll_rx_sched_end(struct ll_rx_sched *s);

struct reader {
	unsigned idx;
	const struct recv_cfg *c;
	pthread_t thread;
	int fd; /* UDP socket, or the shared TCP listener */
	int conn; /* TCP: the accepted connection, or -1 */
	int64_t real_minus_mono; /* for --rx-time kernel */

	uint64_t received; /* datagrams, or whole TCP messages */
	uint64_t bytes;
	uint64_t first_rx_ns;
	uint64_t last_rx_ns;
	bool ovfl_seen; /* SO_RXQ_OVFL: first and last cumulative value */
	uint32_t ovfl_first;
	uint32_t ovfl_last;
	struct ll_flows flows;
	struct ll_rx_sched sched;

	uint8_t *logbuf; /* LL_LOG_BUF_RECS records */
	unsigned logn;

	_Atomic uint64_t last_act_ns; /* for --idle-timeout */
	atomic_bool done; /* the thread has finished (TCP EOF, error) */
	int err; /* errno that ended the thread, 0 if none */
};

extern atomic_bool ll_rx_stop;

/* What the report needs beyond the readers. */
struct recv_summary {
	const char *stop_reason; /* deadline | idle | signal | eof */
	int64_t socket_drops; /* /proc/net/udp; -1 = unknown (TCP) */
	int rcvbuf_actual;
	struct ll_flows flows; /* all readers merged */
	const struct ll_cpu_window *window; /* --cpu-window */
};

void ll_recv_report(FILE *f, const struct recv_cfg *c, struct reader *rds,
		    const struct recv_summary *s);

void *ll_rx_udp(void *arg);
void *ll_rx_tcp(void *arg);

/* Per datagram/message: counts, flows, log, then --work-ns of spinning. */
void ll_rx_account(struct reader *rd, const struct ll_hdr *h, uint64_t rx_ns,
		   uint32_t len);
void ll_rx_log_flush(struct reader *rd);

/* Sockets: one UDP socket per reader, or one TCP listener. Fatal on error. */
int ll_rx_udp_socket(const struct recv_cfg *c);
/* Deal the datagrams of fd's SO_REUSEPORT group of n sockets out in turn. */
void ll_rx_reuseport_round_robin(int fd, unsigned n);
int ll_rx_tcp_listener(const struct recv_cfg *c);
void ll_rx_set_timeout(int fd);

/* /proc/net/udp "drops" of the socket with this local port and inode;
 * -1 when not found. Read in the caller's network namespace. */
int64_t ll_udp_socket_drops(int fd, uint16_t port);

#endif /* LL_RECV_H */
