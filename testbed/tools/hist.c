// SPDX-License-Identifier: GPL-2.0-only
/* hist.c - log-linear histogram (see hist.h). */
#include "hist.h"

#include <math.h>
#include <string.h>

void ll_hist_init(struct ll_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

static unsigned bucket_of(uint64_t v)
{
	unsigned e;

	if (v < LL_HIST_LINEAR)
		return (unsigned)v;
	e = 63 - (unsigned)__builtin_clzll(v); /* >= SUB_BITS + 1 */
	return LL_HIST_LINEAR + (e - LL_HIST_SUB_BITS - 1) * 64 +
	       (unsigned)((v >> (e - LL_HIST_SUB_BITS)) & 63);
}

/* Midpoint of bucket i. */
static uint64_t value_of(unsigned i)
{
	unsigned e, sub;
	uint64_t lo, width;

	if (i < LL_HIST_LINEAR)
		return i;
	e = LL_HIST_SUB_BITS + 1 + (i - LL_HIST_LINEAR) / 64;
	sub = (i - LL_HIST_LINEAR) % 64;
	width = 1ull << (e - LL_HIST_SUB_BITS);
	lo = (64ull + sub) << (e - LL_HIST_SUB_BITS);
	return lo + width / 2;
}

void ll_hist_add(struct ll_hist *h, uint64_t v)
{
	h->b[bucket_of(v)]++;
	h->n++;
	h->sum += (double)v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

void ll_hist_merge(struct ll_hist *dst, const struct ll_hist *src)
{
	unsigned i;

	if (!src->n)
		return;
	for (i = 0; i < LL_HIST_NB; i++)
		dst->b[i] += src->b[i];
	dst->n += src->n;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

uint64_t ll_hist_quantile(const struct ll_hist *h, double q)
{
	uint64_t rank, seen = 0, v;
	unsigned i;

	if (!h->n)
		return 0;
	rank = (uint64_t)ceil(q * (double)h->n);
	if (rank < 1)
		rank = 1;
	for (i = 0; i < LL_HIST_NB; i++) {
		seen += h->b[i];
		if (seen >= rank)
			break;
	}
	v = value_of(i < LL_HIST_NB ? i : LL_HIST_NB - 1);
	if (v < h->min)
		v = h->min;
	if (v > h->max)
		v = h->max;
	return v;
}

double ll_hist_mean(const struct ll_hist *h)
{
	return h->n ? h->sum / (double)h->n : 0.0;
}
