/* SPDX-License-Identifier: GPL-2.0-only */
/* clock.h - CLOCK_MONOTONIC in ns and waiting for absolute deadlines. */
#ifndef LL_CLOCK_H
#define LL_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define LL_NSEC 1000000000ull

static inline uint64_t ll_ts_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * LL_NSEC + (uint64_t)ts->tv_nsec;
}

/* CLOCK_MONOTONIC through the vDSO (~20 ns): cheap enough per batch. */
static inline uint64_t ll_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ll_ts_ns(&ts);
}

/* CLOCK_REALTIME - CLOCK_MONOTONIC, to map kernel receive stamps (realtime)
 * onto the monotonic clock the sender stamps with. */
int64_t ll_real_minus_mono_ns(void);

/* Lower this thread's timer slack so clock_nanosleep wakes on time. */
void ll_clock_tight_slack(void);

/* How long before a deadline ll_wait_until stops sleeping and spins (50 us). */
void ll_clock_set_spin(uint64_t ns);

/*
 * Wait until CLOCK_MONOTONIC >= t: sleep to the spin window before t, then spin.
 * Returns false, early, when ll_stop is set.
 */
bool ll_wait_until(uint64_t t);

#endif /* LL_CLOCK_H */
