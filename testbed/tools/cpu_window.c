// SPDX-License-Identifier: GPL-2.0-only
/*
 * cpu_window.c - lanloss-recv --cpu-window SEC [--cpu-window-irq NAME].
 *
 * The window starts at the supervising thread's first poll after a reader's
 * first receive call returned datagrams and ends at its first poll SEC later
 * (polls are 20 ms apart: both ends are read from the main thread, so no
 * reader pays for them). At each end the thread reads /proc/stat's first line
 * (busy = user + nice + system + irq + softirq + steal; idle = idle + iowait;
 * USER_HZ ticks, exact for idle under NOHZ) and sums the per-CPU counts of the
 * /proc/interrupts lines whose device name is NAME. Busy time is counted by
 * ticks that a CPU which idles often (NOHZ stops its tick) mostly misses; its
 * idle time is measured, so a CPU's busy time over the window is the window's
 * length less its idle time (the report gives both, and the CPUs online).
 * The report gives both
 * ends' CLOCK_MONOTONIC times and the first return's, so that a harness can
 * place the window on its own clock from the sender's first datagram.
 */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu_window.h"

static _Atomic uint64_t first_return_ns;

void ll_cpu_window_mark(uint64_t now)
{
	uint64_t none = 0;

	if (atomic_load_explicit(&first_return_ns, memory_order_relaxed))
		return;
	atomic_compare_exchange_strong(&first_return_ns, &none, now);
}

static bool read_stat(struct ll_cpu_sample *s)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	int n;

	if (!f)
		return false;
	/* cpu  user nice system idle iowait irq softirq steal ... */
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n < 7)
		return false;
	s->busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	s->idle = v[3] + v[4];
	return true;
}

/* The device names of a /proc/interrupts line follow its counts and its chip
 * and type words: it names NAME when a word of it is NAME. */
static bool names(const char *rest, const char *name)
{
	size_t len = strlen(name);
	const char *p = rest;

	while ((p = strstr(p, name))) {
		bool start = p == rest || p[-1] == ' ' || p[-1] == ',';
		char after = p[len];

		if (start && (after == '\0' || after == '\n' || after == ' ' ||
			      after == ','))
			return true;
		p += len;
	}
	return false;
}

static uint64_t read_irqs(const char *name)
{
	char line[4096];
	uint64_t total = 0;
	bool found = false;
	FILE *f = fopen("/proc/interrupts", "r");

	if (!f)
		return UINT64_MAX;
	while (fgets(line, sizeof(line), f)) {
		char *p = strchr(line, ':'), *end;
		uint64_t sum = 0;

		if (!p)
			continue;
		p++;
		for (;;) {
			unsigned long long c = strtoull(p, &end, 10);

			if (end == p)
				break;
			sum += c;
			p = end;
		}
		if (names(p, name)) {
			total += sum;
			found = true;
		}
	}
	fclose(f);
	return found ? total : UINT64_MAX;
}

static void sample(const struct ll_cpu_window *w, struct ll_cpu_sample *s,
		   uint64_t now)
{
	s->mono_ns = now;
	s->ok = read_stat(s);
	s->irqs = w->irq_name ? read_irqs(w->irq_name) : UINT64_MAX;
}

void ll_cpu_window_poll(struct ll_cpu_window *w, uint64_t now)
{
	uint64_t first;

	if (w->seconds <= 0 || w->end.mono_ns)
		return;
	first = atomic_load_explicit(&first_return_ns, memory_order_relaxed);
	if (!first)
		return;
	if (!w->start.mono_ns) {
		sample(w, &w->start, now);
		return;
	}
	if (now - w->start.mono_ns >= (uint64_t)(w->seconds * 1e9))
		sample(w, &w->end, now);
}

void ll_cpu_window_report(struct ll_json *j, const struct ll_cpu_window *w)
{
	bool complete = w->start.ok && w->end.ok;

	if (w->seconds <= 0) {
		ll_json_null(j, "cpu_window");
		return;
	}
	ll_json_obj(j, "cpu_window");
	ll_json_dbl(j, "seconds", w->seconds);
	ll_json_bool(j, "complete", complete);
	ll_json_u64(j, "first_return_ns",
		    atomic_load_explicit(&first_return_ns,
					 memory_order_relaxed));
	if (complete) {
		ll_json_u64(j, "start_ns", w->start.mono_ns);
		ll_json_u64(j, "end_ns", w->end.mono_ns);
		ll_json_u64(j, "user_hz", (uint64_t)sysconf(_SC_CLK_TCK));
		ll_json_u64(j, "cpus", (uint64_t)sysconf(_SC_NPROCESSORS_ONLN));
		ll_json_u64(j, "busy_ticks", w->end.busy - w->start.busy);
		ll_json_u64(j, "idle_ticks", w->end.idle - w->start.idle);
	}
	if (complete && w->irq_name && w->start.irqs != UINT64_MAX &&
	    w->end.irqs != UINT64_MAX) {
		ll_json_str(j, "irq_name", w->irq_name);
		ll_json_u64(j, "irqs", w->end.irqs - w->start.irqs);
	} else {
		ll_json_null(j, "irqs");
	}
	ll_json_obj_end(j);
}
