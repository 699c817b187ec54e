/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sched.h - the sender's schedule: absolute deadlines t0 + k * gap on
 * CLOCK_MONOTONIC, so lateness never accumulates into rate error.
 *   cbr      deadline(k) = t0 + k * gap
 *   burst:N  N datagrams share deadline t0 + floor(k / N) * N * gap
 *   poisson  exponential gaps of mean gap, drawn from the flow's stream of the
 *            run seed (models/model/lanloss-schedule.h, shared with the
 *            simulator: both offer the same departures)
 * gap = payload * 8 / rate seconds. Deadlines are exact integer ns,
 * floor(slot * step / rate), advanced by quotient and remainder (no division
 * per datagram: a 128-bit division costs ~40 ns, 4 % of the budget at 1 Mpps).
 */
#ifndef LL_SCHED_H
#define LL_SCHED_H

#include <stdint.h>

#include "../../models/model/lanloss-schedule.h"

enum ll_pattern { LL_CBR, LL_POISSON, LL_BURST };

struct ll_sched {
	enum ll_pattern pat;
	uint32_t burst; /* datagrams per deadline (1 but for burst:N) */
	uint32_t left; /* datagrams still due at the current deadline */
	uint64_t rate; /* bit/s */
	uint64_t next; /* current deadline, ns */
	uint64_t step_q; /* deadline step: step_q + step_r / rate ns */
	uint64_t step_r;
	uint64_t acc_r; /* accumulated remainder, < rate */
	uint64_t t0; /* the first deadline */
	double t_poisson; /* poisson: the exact offset from t0, ns */
	double mean_gap_ns;
	struct lanloss_rng rng;
};

void ll_sched_init(struct ll_sched *s, enum ll_pattern pat, uint32_t burst,
		   uint64_t payload, uint64_t rate, uint64_t seed, uint32_t flow,
		   uint64_t t0);
/* Deadline of the next datagram; ll_sched_pop moves on to the one after. */
uint64_t ll_sched_peek(const struct ll_sched *s);
void ll_sched_pop(struct ll_sched *s);
/*
 * Wait for the next deadline, then take every deadline due by then, in order,
 * into deadline[] (at most max; none at or after t_end, when t_end is set).
 * Returns how many were taken: 0 once the schedule reaches t_end or the wait
 * is cut short (ll_stop).
 */
unsigned ll_sched_take_due(struct ll_sched *s, uint64_t t_end, unsigned max,
			   uint64_t *deadline);

#endif /* LL_SCHED_H */
