// SPDX-License-Identifier: GPL-2.0-only
/* sched.c - the sender's deadline schedule (see sched.h). */
#include "sched.h"

#include <math.h>

#include "clock.h"

static double exp_gap(struct ll_sched *s)
{
	return lanloss_exp_gap(&s->rng, s->mean_gap_ns);
}

void ll_sched_init(struct ll_sched *s, enum ll_pattern pat, uint32_t burst,
		   uint64_t payload, uint64_t rate, uint64_t seed, uint32_t flow,
		   uint64_t t0)
{
	unsigned __int128 step;

	s->pat = pat;
	s->burst = pat == LL_BURST && burst ? burst : 1;
	s->left = s->burst;
	s->rate = rate;
	s->next = t0;
	/* A burst of N keeps the mean rate: its deadlines are N gaps apart. */
	step = (unsigned __int128)payload * 8 * LL_NSEC * s->burst;
	s->step_q = step / rate > UINT64_MAX / 4 ? UINT64_MAX / 4
						 : (uint64_t)(step / rate);
	s->step_r = (uint64_t)(step % rate);
	s->acc_r = 0;
	s->mean_gap_ns = (double)payload * 8 * 1e9 / (double)rate;
	lanloss_rng_init(&s->rng, lanloss_stream_seed(seed, flow));
	s->t0 = t0;
	s->t_poisson = 0.0;
}

uint64_t ll_sched_peek(const struct ll_sched *s)
{
	return s->next;
}

void ll_sched_pop(struct ll_sched *s)
{
	if (s->pat == LL_POISSON) {
		/* Offsets from t0, truncated to ns, as UdpFlowSource's. */
		s->t_poisson += exp_gap(s);
		s->next = s->t0 + (uint64_t)s->t_poisson;
		return;
	}
	if (--s->left)
		return;
	s->left = s->burst;
	s->next += s->step_q;
	s->acc_r += s->step_r;
	if (s->acc_r >= s->rate) {
		s->acc_r -= s->rate;
		s->next++;
	}
}

unsigned ll_sched_take_due(struct ll_sched *s, uint64_t t_end, unsigned max,
			   uint64_t *deadline)
{
	uint64_t d = ll_sched_peek(s), now;
	unsigned n;

	if (t_end && d >= t_end)
		return 0;
	if (!ll_wait_until(d))
		return 0;
	now = ll_mono_ns();
	for (n = 0; n < max; n++) {
		d = ll_sched_peek(s);
		if (d > now || (t_end && d >= t_end))
			break;
		deadline[n] = d;
		ll_sched_pop(s);
	}
	return n;
}
