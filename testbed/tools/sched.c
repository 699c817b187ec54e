// SPDX-License-Identifier: GPL-2.0-only
/* sched.c - the sender's deadline schedule (see sched.h). */
#include "sched.h"

#include <math.h>

#include "clock.h"

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* xoshiro256** (Blackman and Vigna, 2018): fast, and seedable portably. */
static uint64_t next_u64(uint64_t *s)
{
	uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double exp_gap(struct ll_sched *s)
{
	/* u in [0, 1): 53 random bits; -log(1 - u) is finite. */
	double u = (double)(next_u64(s->rng) >> 11) * 0x1.0p-53;

	return -log1p(-u) * s->mean_gap_ns;
}

void ll_sched_init(struct ll_sched *s, enum ll_pattern pat, uint32_t burst,
		   uint64_t payload, uint64_t rate, uint64_t seed, uint64_t t0)
{
	unsigned __int128 step;
	uint64_t x = seed;
	int i;

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
	for (i = 0; i < 4; i++)
		s->rng[i] = splitmix64(&x);
	s->t_poisson = (double)t0;
}

uint64_t ll_sched_peek(const struct ll_sched *s)
{
	return s->next;
}

void ll_sched_pop(struct ll_sched *s)
{
	if (s->pat == LL_POISSON) {
		s->t_poisson += exp_gap(s);
		s->next = (uint64_t)s->t_poisson;
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
