// SPDX-License-Identifier: GPL-2.0-only
/* clock.c - waiting for absolute deadlines: sleep, then spin. */
#define _GNU_SOURCE
#include "clock.h"

#include <errno.h>
#include <string.h>
#include <sys/prctl.h>

#include "util.h"

/*
 * Why sleep-then-spin, and why lower the timer slack: a thread's hrtimers
 * may fire up to its timer slack late (default 50 us, kernel/sys.c
 * PR_SET_TIMERSLACK, so wakeups can be merged). An absolute clock_nanosleep
 * oversleeps by about the slack (a 2-vCPU VM, kernel 6.18, 5000 sleeps):
 *   default slack 50 us: p1 47.5, p50 61, p99 74, max 700 us
 *   slack 1 ns:          p1  4.7, p50  5, p99 13, max 770 us
 * With the default slack, waking 50 us early would still be late half of
 * the time; so the slack is 1 ns, and the 50 us spin window (ll_spin_ns)
 * covers p99.9 of the oversleep (39 us).
 * The rare ~0.7 ms outliers are vCPU preemption; no userspace fix exists.
 */
static uint64_t ll_spin_ns = 50000ull;

void ll_clock_set_spin(uint64_t ns)
{
	ll_spin_ns = ns;
}

void ll_clock_tight_slack(void)
{
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
}

int64_t ll_real_minus_mono_ns(void)
{
	struct timespec r, m1, m2;
	uint64_t mid;

	/* Bracket the realtime read so the offset is good to ~20 ns. */
	clock_gettime(CLOCK_MONOTONIC, &m1);
	clock_gettime(CLOCK_REALTIME, &r);
	clock_gettime(CLOCK_MONOTONIC, &m2);
	mid = (ll_ts_ns(&m1) + ll_ts_ns(&m2)) / 2;
	return (int64_t)(ll_ts_ns(&r) - mid);
}

int64_t ll_stamp_off_ns;
static enum ll_stamp_clock ll_stamp_which = LL_STAMP_MONO;

void ll_clock_set_stamp(enum ll_stamp_clock which)
{
	ll_stamp_which = which;
	ll_stamp_off_ns = which == LL_STAMP_REALTIME ? ll_real_minus_mono_ns() : 0;
}

enum ll_stamp_clock ll_opt_stamp_clock(const char *v)
{
	if (!strcmp(v, "monotonic"))
		return LL_STAMP_MONO;
	if (!strcmp(v, "realtime"))
		return LL_STAMP_REALTIME;
	ll_usage_error(
		"--stamp-clock: invalid value '%s' (expected monotonic or realtime)",
		v);
}

const char *ll_stamp_clock_name(void)
{
	return ll_stamp_which == LL_STAMP_REALTIME ? "realtime" : "monotonic";
}

bool ll_wait_until(uint64_t t)
{
	uint64_t now = ll_mono_ns();

	while (now + ll_spin_ns < t) {
		uint64_t wake = t - ll_spin_ns;
		struct timespec ts = { .tv_sec = wake / LL_NSEC,
				       .tv_nsec = wake % LL_NSEC };

		/* EINTR: a stop signal, or a harmless one; re-check. */
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		if (ll_stop)
			return false;
		now = ll_mono_ns();
	}
	while (now < t) {
		if (ll_stop)
			return false;
		now = ll_mono_ns();
	}
	return !ll_stop;
}
