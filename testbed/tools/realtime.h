/* SPDX-License-Identifier: GPL-2.0-only */
/* realtime.h - lanloss-send's optional SCHED_FIFO pacing thread. */
#ifndef LL_REALTIME_H
#define LL_REALTIME_H

#include <stdint.h>

/*
 * At most this many datagrams/s are paced under SCHED_FIFO. Above it the
 * pacing loop spins most of the time, and the kernel's RT throttling
 * (sched_rt_runtime_us, 95 % of each second by default) would stop the
 * sender for 50 ms every second: far worse than CFS's occasional delay.
 */
#define LL_RT_MAX_PPS 25000.0

struct ll_rt {
	int prio; /* requested; 0 = not asked for */
	const char *sched; /* "fifo" or "other": what the sender ran under */
	const char *note; /* why not fifo, or NULL */
};

/*
 * Run the calling thread under SCHED_FIFO at rt->prio (and lock its memory)
 * when asked and the paced rate allows it; fill rt->sched and rt->note. A
 * refusal (no CAP_SYS_NICE, an RT group without runtime) is not an error:
 * the sender runs under CFS and the report says so.
 */
void ll_rt_enter(struct ll_rt *rt, double datagrams_per_s);

#endif /* LL_REALTIME_H */
