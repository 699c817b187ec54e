// SPDX-License-Identifier: GPL-2.0-only
/*
 * rx_sched.c - how a lanloss-recv reader thread was scheduled: whether it was
 * kept off the CPU while datagrams waited in its socket (another job took
 * the CPU, a stop signal), which a host model does not describe.
 *
 * Stall of one receive call k (UDP; every datagram carries its kernel receive
 * stamp, SO_TIMESTAMPNS): datagrams have waited since
 *     w_k = max(a_k, t_(k-1))
 * where a_k is the arrival of the call's oldest datagram (its first: the
 * socket queue is FIFO) and t_(k-1) the return of the previous call (before
 * it the reader was busy with the previous datagrams, not waiting for these).
 * Of the wall time t_k - w_k the thread ran for at most c_k - c_(k-1), its CPU
 * time between the two returns (CLOCK_THREAD_CPUTIME_ID), so
 *     stall_k = (t_k - w_k) - (c_k - c_(k-1))
 * is a lower bound on the time it was not running while datagrams waited.
 * Blocking for a datagram that has not yet arrived is not a stall (w_k is
 * after it); --work-ns spinning is CPU time, so a slow application is not a
 * stall either. A reader throttled by a CPU quota (recv_cpu) is: the harness
 * knows the quota and judges the stall against it.
 *
 * Also, over the thread's life: its receive calls that returned datagrams
 * (UDP: one or a batch each), its run-queue delay (/proc/thread-self/
 * schedstat, 2nd field: ns runnable but waiting for a CPU; -1 without
 * CONFIG_SCHED_INFO) and its context switches (getrusage RUSAGE_THREAD).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/resource.h>

#include "clock.h"
#include "recv.h"

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ll_ts_ns(&ts);
}

/* ns this thread has waited on a run queue; -1 when the kernel does not say. */
static int64_t run_delay_ns(void)
{
	unsigned long long run, wait;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "%llu %llu", &run, &wait);
	fclose(f);
	return n == 2 ? (int64_t)wait : -1;
}

static void switches(int64_t *involuntary, int64_t *voluntary)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru) < 0) {
		*involuntary = *voluntary = -1;
		return;
	}
	*involuntary = ru.ru_nivcsw;
	*voluntary = ru.ru_nvcsw;
}

void ll_rx_sched_begin(struct ll_rx_sched *s)
{
	s->last_ns = ll_mono_ns();
	s->last_cpu_ns = thread_cpu_ns();
	s->run_delay_ns = run_delay_ns();
	switches(&s->nivcsw, &s->nvcsw);
}

void ll_rx_sched_returned(struct ll_rx_sched *s, uint64_t now,
			  uint64_t oldest_arrival)
{
	uint64_t cpu = thread_cpu_ns(), from, ran;

	/* No stamp: the datagrams' wait is unknown, taken as none. */
	if (!oldest_arrival)
		oldest_arrival = now;
	from = oldest_arrival > s->last_ns ? oldest_arrival : s->last_ns;
	ran = cpu - s->last_cpu_ns;
	if (now > from && now - from > ran &&
	    now - from - ran > s->max_stall_ns) {
		s->max_stall_ns = now - from - ran;
		s->max_stall_at_ns = now;
	}
	s->last_ns = now;
	s->last_cpu_ns = cpu;
	s->calls++;
}

void ll_rx_sched_end(struct ll_rx_sched *s)
{
	int64_t delay = run_delay_ns(), inv, vol;

	s->run_delay_ns = delay >= 0 && s->run_delay_ns >= 0
				  ? delay - s->run_delay_ns
				  : -1;
	switches(&inv, &vol);
	s->nivcsw = inv >= 0 && s->nivcsw >= 0 ? inv - s->nivcsw : -1;
	s->nvcsw = vol >= 0 && s->nvcsw >= 0 ? vol - s->nvcsw : -1;
}
