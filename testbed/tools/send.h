/* SPDX-License-Identifier: GPL-2.0-only */
/* send.h - lanloss-send: configuration and results shared by its files. */
#ifndef LL_SEND_H
#define LL_SEND_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../../models/model/lanloss-linux-rx.h"
#include "hist.h"
#include "opts.h"
#include "realtime.h"
#include "sched.h"
#include "util.h"

#define LL_UDP_MAX_PAYLOAD LANLOSS_UDP_MAX_PAYLOAD /* the model's one definition */
#define LL_TCP_MAX_MESSAGE 1048576u

struct send_cfg {
	struct in_addr dst;
	uint16_t port;
	enum ll_proto proto;
	uint32_t payload;
	uint64_t rate; /* bit/s; 0 = max */
	enum ll_pattern pat;
	uint32_t burst;
	char pattern[32]; /* as given, for the report */
	uint64_t seed;
	double duration; /* s; 0 = none */
	uint64_t count; /* 0 = none */
	int ttl; /* -1 = kernel default */
	int mcast_loop; /* -1 = kernel default */
	bool has_mcast_if;
	struct in_addr mcast_if;
	int64_t sndbuf; /* -1 = kernel default */
	bool sndbuf_force;
	unsigned batch;
	bool gso;
	uint32_t flow;
	uint64_t start_at; /* CLOCK_MONOTONIC ns; 0 = now */
	uint64_t start_burst; /* UDP datagrams back to back at the start; 0 = none */
	int realtime; /* SCHED_FIFO priority for a paced UDP sender; 0 = off */
};

struct send_res {
	uint64_t sent; /* datagrams (UDP) or whole messages (TCP) */
	uint64_t bytes; /* payload bytes accepted by the kernel */
	struct ll_errcount errors;
	uint64_t start_ns; /* before the first successful send call */
	uint64_t end_ns; /* after the last successful send call */
	struct ll_hist late; /* send-call time - deadline, ns */
	bool gso_used;
	int sndbuf_actual;
	int fatal; /* errno that ended the run early (e.g. ENETUNREACH) */
	struct ll_rt rt; /* the scheduling class it ran under */
};

/* Open, run until count/duration/signal, fill r. Fatal errors exit 1. */
void ll_tx_udp(const struct send_cfg *c, struct send_res *r);
void ll_tx_tcp(const struct send_cfg *c, struct send_res *r);

/* First deadline: --start-at (waited for) or now. 0 if stopped meanwhile. */
uint64_t ll_tx_start(const struct send_cfg *c);

void ll_send_report(FILE *f, const struct send_cfg *c,
		    const struct send_res *r);

#endif /* LL_SEND_H */
