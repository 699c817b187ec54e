// SPDX-License-Identifier: GPL-2.0-only
/* flows.c - per-flow sequence accounting (see flows.h). */
#include "flows.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

static struct ll_flow *flow_get(struct ll_flows *ft, uint32_t id, bool foreign)
{
	struct ll_flow *f;
	size_t i;

	if (ft->hint < ft->n) {
		f = &ft->v[ft->hint];
		if (f->id == id && f->foreign == foreign)
			return f;
	}
	for (i = 0; i < ft->n; i++) {
		f = &ft->v[i];
		if (f->id == id && f->foreign == foreign) {
			ft->hint = i;
			return f;
		}
	}
	if (ft->n == ft->cap) {
		ft->cap = ft->cap ? 2 * ft->cap : 8;
		ft->v = realloc(ft->v, ft->cap * sizeof(*ft->v));
		if (!ft->v)
			ll_fail("out of memory (flow table)");
	}
	f = &ft->v[ft->n];
	memset(f, 0, sizeof(*f));
	f->id = id;
	f->foreign = foreign;
	ft->hint = ft->n++;
	return f;
}

/* Make room for bit seq (words double, so growth is amortised O(1)). */
static void seen_grow(struct ll_flow *f, uint64_t seq)
{
	uint64_t need = seq / 64 + 1, words = f->seen_words * 2;

	if (words < need)
		words = need;
	if (words < 1024)
		words = 1024;
	if (words > LL_SEQ_CAP / 64)
		words = LL_SEQ_CAP / 64;
	f->seen = realloc(f->seen, words * sizeof(uint64_t));
	if (!f->seen)
		ll_fail("out of memory (seq bitmap for seq %llu)",
			(unsigned long long)seq);
	memset(f->seen + f->seen_words, 0,
	       (words - f->seen_words) * sizeof(uint64_t));
	f->seen_words = words;
}

static void track_seq(struct ll_flow *f, uint64_t seq)
{
	uint64_t bit = 1ull << (seq & 63);

	if (seq / 64 >= f->seen_words)
		seen_grow(f, seq);
	if (f->seen[seq / 64] & bit) {
		f->duplicated++;
		return;
	}
	f->seen[seq / 64] |= bit;
	if (!f->any_seq || seq > f->max_seq) {
		f->max_seq = seq;
		f->any_seq = true;
	} else {
		f->reordered++;
	}
}

void ll_flows_add(struct ll_flows *ft, const struct ll_hdr *h, uint64_t rx_ns,
		  uint32_t len)
{
	bool seq_ok = h->has_seq && h->seq < LL_SEQ_CAP;
	struct ll_flow *f =
		flow_get(ft, seq_ok ? h->flow : LL_NO_FLOW, !seq_ok);

	f->received++;
	f->bytes += len;
	if (!f->first_rx_ns || rx_ns < f->first_rx_ns)
		f->first_rx_ns = rx_ns;
	if (rx_ns > f->last_rx_ns)
		f->last_rx_ns = rx_ns;
	if (!seq_ok)
		return;
	track_seq(f, h->seq);
	if (h->has_ts) {
		if (!f->lat) {
			f->lat = malloc(sizeof(*f->lat));
			if (!f->lat)
				ll_fail("out of memory (latency histogram)");
			ll_hist_init(f->lat);
		}
		/* rx_ns and tx_ns are on one stamp clock (clock.h). A
		 * datagram received before it was sent says the two ends'
		 * clocks disagree by more than the delay: it is counted, not
		 * put in the histogram. */
		if (rx_ns >= h->tx_ns)
			ll_hist_add(f->lat, rx_ns - h->tx_ns);
		else
			f->lat_negative++;
	}
}

static void merge_one(struct ll_flow *d, struct ll_flow *s)
{
	uint64_t w;

	d->received += s->received;
	d->bytes += s->bytes;
	d->duplicated += s->duplicated;
	d->reordered += s->reordered;
	d->lat_negative += s->lat_negative;
	if (s->first_rx_ns &&
	    (!d->first_rx_ns || s->first_rx_ns < d->first_rx_ns))
		d->first_rx_ns = s->first_rx_ns;
	if (s->last_rx_ns > d->last_rx_ns)
		d->last_rx_ns = s->last_rx_ns;
	if (s->lat) {
		if (!d->lat) {
			d->lat = s->lat;
			s->lat = NULL;
		} else {
			ll_hist_merge(d->lat, s->lat);
		}
	}
	if (!s->any_seq)
		return;
	if (s->seen_words > d->seen_words)
		seen_grow(d, s->seen_words * 64 - 1);
	/* The same seq at two readers (two REUSEPORT sockets): a duplicate. */
	for (w = 0; w < s->seen_words; w++) {
		d->duplicated +=
			(uint64_t)__builtin_popcountll(d->seen[w] & s->seen[w]);
		d->seen[w] |= s->seen[w];
	}
	if (!d->any_seq || s->max_seq > d->max_seq)
		d->max_seq = s->max_seq;
	d->any_seq = true;
}

void ll_flows_merge(struct ll_flows *dst, struct ll_flows *src)
{
	size_t i;

	for (i = 0; i < src->n; i++) {
		struct ll_flow *s = &src->v[i];
		struct ll_flow *d = flow_get(dst, s->id, s->foreign);

		merge_one(d, s);
	}
	ll_flows_free(src);
}

static void close_run(struct ll_flow *f, uint64_t *run)
{
	if (!*run)
		return;
	f->runs++;
	if (*run > f->run_max)
		f->run_max = *run;
	f->lost += *run;
	*run = 0;
}

/* Runs of zero bits in [0, max_seq]; their total is the loss. */
static void count_runs(struct ll_flow *f)
{
	uint64_t last = f->max_seq / 64, run = 0, w, x;
	unsigned b, nbits;

	for (w = 0; w <= last; w++) {
		x = f->seen[w];
		nbits = w == last ? (unsigned)(f->max_seq % 64) + 1 : 64;
		if (nbits == 64 && x == ~0ull) {
			close_run(f, &run);
			continue;
		}
		if (nbits == 64 && x == 0) {
			run += 64;
			continue;
		}
		for (b = 0; b < nbits; b++) {
			if (x >> b & 1)
				close_run(f, &run);
			else
				run++;
		}
	}
	close_run(f, &run);
}

static int cmp_flow(const void *a, const void *b)
{
	const struct ll_flow *x = a, *y = b;

	if (x->foreign != y->foreign)
		return x->foreign ? 1 : -1;
	return x->id < y->id ? -1 : x->id > y->id;
}

void ll_flows_finish(struct ll_flows *ft)
{
	size_t i;

	for (i = 0; i < ft->n; i++) {
		struct ll_flow *f = &ft->v[i];

		f->lost = f->runs = f->run_max = 0;
		if (f->any_seq)
			count_runs(f);
	}
	qsort(ft->v, ft->n, sizeof(*ft->v), cmp_flow);
	ft->hint = 0;
}

void ll_flows_free(struct ll_flows *ft)
{
	size_t i;

	for (i = 0; i < ft->n; i++) {
		free(ft->v[i].seen);
		free(ft->v[i].lat);
	}
	free(ft->v);
	memset(ft, 0, sizeof(*ft));
}
