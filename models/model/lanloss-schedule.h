// SPDX-License-Identifier: GPL-2.0-only
/**
 * @file
 * @ingroup lanloss
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

/** Streams per run seed: flows 0 .. 4095 of one seed draw from distinct streams. */
#define LANLOSS_STREAMS_PER_SEED 4096u

/**
 * @ingroup lanloss
 * The generator's state (xoshiro256**).
 */
struct lanloss_rng
{
    uint64_t s[4]; /**< the four 64-bit state words */
};

/**
 * The stream seed of a flow: independent streams per flow, reproducible per run seed.
 * @param seed the run seed (>= 1)
 * @param flow the flow id (below LANLOSS_STREAMS_PER_SEED)
 * @return (seed - 1) * LANLOSS_STREAMS_PER_SEED + flow + 1
 */
static inline uint64_t
lanloss_stream_seed(uint64_t seed, uint32_t flow)
{
    return (seed - 1) * LANLOSS_STREAMS_PER_SEED + flow + 1;
}

/**
 * splitmix64: advance @p x by the golden-ratio increment and return its mix.
 * @param x the splitmix64 state, advanced
 * @return the next 64-bit output
 */
static inline uint64_t
lanloss_splitmix64(uint64_t* x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/**
 * Fill the generator's state from @p stream_seed by four splitmix64 steps.
 * @param r the generator
 * @param stream_seed the flow's stream seed (lanloss_stream_seed)
 */
static inline void
lanloss_rng_init(struct lanloss_rng* r, uint64_t stream_seed)
{
    uint64_t x = stream_seed;
    for (int i = 0; i < 4; i++)
    {
        r->s[i] = lanloss_splitmix64(&x);
    }
}

/**
 * Rotate left.
 * @param x the word
 * @param k the bits to rotate by, 1 .. 63
 * @return @p x rotated left by @p k bits
 */
static inline uint64_t
lanloss_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/**
 * The next output of xoshiro256**.
 * @param r the generator, advanced
 * @return 64 random bits
 */
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

/**
 * An exponential gap of mean @p mean (any unit): -mean log(1 - u), u in [0, 1) from the
 * top 53 bits of the next output.
 * @param r the generator, advanced
 * @param mean the mean gap
 * @return the gap, in the unit of @p mean
 */
static inline double
lanloss_exp_gap(struct lanloss_rng* r, double mean)
{
    double u = (double)(lanloss_rng_next(r) >> 11) * 0x1.0p-53;
    return -log1p(-u) * mean;
}

#endif /* LANLOSS_SCHEDULE_H */
