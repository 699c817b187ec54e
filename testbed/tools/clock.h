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

/*
 * The clock the datagram header's tx_ns and the receiver's delays are read on
 * (--stamp-clock): CLOCK_MONOTONIC (the default) is one clock for every network
 * namespace of a kernel but means nothing to another kernel; CLOCK_REALTIME is
 * what NTP/PTP synchronize across machines. A stamp is CLOCK_MONOTONIC plus
 * (realtime - monotonic) read once at start: one vDSO read per batch as before,
 * and it follows the synchronization service's frequency corrections (which
 * CLOCK_MONOTONIC shares); a step of the realtime clock during a run is not
 * followed.
 */
enum ll_stamp_clock { LL_STAMP_MONO, LL_STAMP_REALTIME };
extern int64_t ll_stamp_off_ns; /* stamp clock - CLOCK_MONOTONIC */
void ll_clock_set_stamp(enum ll_stamp_clock which);
/* Parse --stamp-clock's value (monotonic | realtime); exit 2 on anything else. */
enum ll_stamp_clock ll_opt_stamp_clock(const char *v);
const char *ll_stamp_clock_name(void);

/* A CLOCK_MONOTONIC time on the stamp clock. */
static inline uint64_t ll_stamp_of(uint64_t mono_ns)
{
	return mono_ns + (uint64_t)ll_stamp_off_ns;
}

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
