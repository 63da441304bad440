/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Deterministic pseudo-random numbers for the unit tests: the same inputs
 * on every run and every machine, so a statistical check (a CI's coverage,
 * a fit on noisy points) is repeatable. Each test keeps its own state (a
 * uint64_t, never 0). Test-only: the program's generators are in
 * pure/sb_rand.h. */
#ifndef SB_TEST_RNG_H
#define SB_TEST_RNG_H

#include <math.h>
#include <stdint.h>

/* The seed the tests used first (Marsaglia's example state). */
#define SB_TEST_RNG_SEED 88172645463325252ULL

/* One xorshift64 step (shifts 13, 7, 17); returns the new state. */
static inline uint64_t sb_test_xorshift64(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Uniform in (0, 1), never 0 (a log of it is finite). */
static inline double sb_test_uniform01(uint64_t *s)
{
    return ((double)(sb_test_xorshift64(s) >> 11) + 0.5) / 9007199254740992.0;
}

/* Standard normal (Box-Muller). */
static inline double sb_test_normal(uint64_t *s)
{
    double u = sb_test_uniform01(s);

    return sqrt(-2 * log(u)) * cos(2 * M_PI * sb_test_uniform01(s));
}

/* Uniform in [-1, 1) from one xorshift64* step (shifts 12, 25, 27). */
static inline double sb_test_noise(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (double)((*s * 0x2545F4914F6CDD1DULL) >> 11) / 9007199254740992.0 * 2 - 1;
}

#endif /* SB_TEST_RNG_H */
