/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cpu_window.h - lanloss-recv --cpu-window: the receiving kernel's CPU time and
 * a NIC's interrupts over a window of the traffic, read from /proc by the
 * receiver itself (an emulated guest's own accounting of what it did while the
 * harness measures the emulator from outside over the same window).
 */
#ifndef LL_CPU_WINDOW_H
#define LL_CPU_WINDOW_H

#include <stdbool.h>
#include <stdint.h>

#include "json.h"

/* One reading of /proc/stat's "cpu" line and of the interrupts of the
 * /proc/interrupts lines that name the window's NIC. */
struct ll_cpu_sample {
	bool ok;
	uint64_t mono_ns; /* CLOCK_MONOTONIC when read */
	uint64_t busy; /* user nice system irq softirq steal, USER_HZ ticks */
	uint64_t idle; /* idle iowait */
	uint64_t irqs; /* -1 (all ones) when no line names the NIC */
};

struct ll_cpu_window {
	double seconds; /* 0: no window asked */
	const char *irq_name; /* a /proc/interrupts line's device name */
	struct ll_cpu_sample start, end;
};

/* A receive call returned datagrams at now (CLOCK_MONOTONIC): the first one
 * marks the traffic's start (any reader thread; lock-free). */
void ll_cpu_window_mark(uint64_t now);
/* Called by the supervising thread at each of its polls: reads the start once
 * the traffic has started and the end once the window has passed. */
void ll_cpu_window_poll(struct ll_cpu_window *w, uint64_t now);
/* The report's "cpu_window": null without a window; "complete" false when
 * the traffic did not start or the window did not pass before the stop. */
void ll_cpu_window_report(struct ll_json *j, const struct ll_cpu_window *w);

#endif /* LL_CPU_WINDOW_H */
