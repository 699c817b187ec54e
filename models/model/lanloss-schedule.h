// SPDX-License-Identifier: GPL-2.0-only
/*
 * The random part of a sender's schedule, shared by the simulator (UdpFlowSource) and the
 * testbed's lanloss-send (testbed/tools/sched.c): one generator, one seed per flow, so a
 * Poisson flow of the same run seed and flow id departs at the same offsets from its start
 * in both, and a point's simulator and testbed runs are offered the same arrivals (near a
 * knee the loss follows the realised arrivals, not only their rate). Plain C, header only,
 * so that the C tools include it as well as the ns-3 module.
 *
 * Generator: xoshiro256** (Blackman and Vigna, 2018), its state filled by splitmix64 from
 * the flow's stream seed; a gap of mean m is -m log(1 - u), u in [0, 1) from the top 53 bits.
 */
#ifndef LANLOSS_SCHEDULE_H
#define LANLOSS_SCHEDULE_H

#include <math.h>
#include <stdint.h>

/* Independent streams per flow, reproducible per run seed (seed >= 1). */
#define LANLOSS_STREAMS_PER_SEED 4096u

struct lanloss_rng
{
    uint64_t s[4];
};

static inline uint64_t
lanloss_stream_seed(uint64_t seed, uint32_t flow)
{
    return (seed - 1) * LANLOSS_STREAMS_PER_SEED + flow + 1;
}

static inline uint64_t
lanloss_splitmix64(uint64_t* x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline void
lanloss_rng_init(struct lanloss_rng* r, uint64_t stream_seed)
{
    uint64_t x = stream_seed;
    for (int i = 0; i < 4; i++)
    {
        r->s[i] = lanloss_splitmix64(&x);
    }
}

static inline uint64_t
lanloss_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static inline uint64_t
lanloss_rng_next(struct lanloss_rng* r)
{
    uint64_t* s = r->s;
    uint64_t result = lanloss_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = lanloss_rotl(s[3], 45);
    return result;
}

/* An exponential gap of mean @p mean (any unit). */
static inline double
lanloss_exp_gap(struct lanloss_rng* r, double mean)
{
    double u = (double)(lanloss_rng_next(r) >> 11) * 0x1.0p-53;
    return -log1p(-u) * mean;
}

#endif /* LANLOSS_SCHEDULE_H */
