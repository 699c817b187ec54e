// SPDX-License-Identifier: GPL-2.0-only
/*
 * realtime.c - a paced sender under SCHED_FIFO.
 *
 * Why: on a shared 2-vCPU machine a CFS sender is sometimes kept off its
 * CPU for 1-3 ms (another task's slice), then sends what it owes back to
 * back: a burst the simulator's CBR source never makes, which a 16 KiB
 * switch port turns into loss. Under SCHED_FIFO it preempts every normal
 * task at once, which cuts a paced sender's largest lateness from
 * 0.35-2.5 ms under CFS to 0.07-0.4 ms (1472 B at 130 Mbit/s, a shared
 * 2-vCPU machine).
 * The timer slack is already 1 ns (clock.c), so the spin before each
 * deadline can be shorter: less CPU, further from the RT throttle.
 */
#define _GNU_SOURCE
#include "realtime.h"

#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>

#include "clock.h"

#define LL_RT_SPIN_NS 20000ull

void ll_rt_enter(struct ll_rt *rt, double datagrams_per_s)
{
	struct sched_param sp = { .sched_priority = rt->prio };

	rt->sched = "other";
	rt->note = NULL;
	if (!rt->prio)
		return;
	if (datagrams_per_s <= 0 || datagrams_per_s > LL_RT_MAX_PPS) {
		rt->note = "rate above what a FIFO sender may pace "
			   "(it would spin into RT throttling)";
		return;
	}
	if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0) {
		rt->note = errno == EPERM ? "sched_setscheduler: EPERM" :
					    "sched_setscheduler failed";
		return;
	}
	/* No page fault in the send loop (best effort: a limit may refuse). */
	mlockall(MCL_CURRENT | MCL_FUTURE);
	ll_clock_set_spin(LL_RT_SPIN_NS);
	rt->sched = "fifo";
}
