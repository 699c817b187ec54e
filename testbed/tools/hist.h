/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hist.h - a log-linear histogram of nanosecond values (pacing lateness,
 * latency). Storing every sample would cost 8 bytes per packet (GBs over a
 * long run at 1 Mpps); buckets of 1/64 octave keep quantiles within 0.8 %
 * in 30 KiB. Values below 128 ns are exact; min, max and mean are exact.
 */
#ifndef LL_HIST_H
#define LL_HIST_H

#include <stdint.h>

#define LL_HIST_SUB_BITS 6
#define LL_HIST_LINEAR (2u << LL_HIST_SUB_BITS) /* 128 exact buckets */
#define LL_HIST_NB (LL_HIST_LINEAR + (64 - LL_HIST_SUB_BITS - 1) * 64)

struct ll_hist {
	uint64_t n;
	uint64_t min;
	uint64_t max;
	double sum;
	uint64_t b[LL_HIST_NB];
};

void ll_hist_init(struct ll_hist *h);
void ll_hist_add(struct ll_hist *h, uint64_t v);
void ll_hist_merge(struct ll_hist *dst, const struct ll_hist *src);
/* q in [0, 1]; the bucket midpoint, clamped to [min, max]; 0 when empty. */
uint64_t ll_hist_quantile(const struct ll_hist *h, double q);
double ll_hist_mean(const struct ll_hist *h);

#endif /* LL_HIST_H */
