/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_RAND_H
#define SB_RAND_H

/*
 * Per-thread pseudo-random numbers (pure module: no threads, no I/O).
 *
 * Each worker owns one struct sb_rand; nothing is shared and nothing is
 * locked. The generator is xoshiro256** seeded through splitmix64 from
 * (seed, stream), so --rand-seed=S gives thread t the same sequence on every
 * run and different threads independent sequences.
 *
 * The distributions and their tuning follow sysbench 1.0's documented
 * options (--rand-type, --rand-spec-iter, --rand-spec-pct, --rand-spec-res,
 * --rand-pareto-h, --rand-zipfian-exp); see doc/lua-api.md "sysbench.rand".
 */

#include <stdint.h>
#include <stddef.h>

enum sb_rand_dist {
    SB_RAND_UNIFORM,
    SB_RAND_GAUSSIAN,
    SB_RAND_SPECIAL,
    SB_RAND_PARETO,
    SB_RAND_ZIPFIAN
};

/* Tuning shared by all threads; read-only once threads start. */
struct sb_rand_params {
    enum sb_rand_dist dist;   /* used by sb_rand_next_default() */
    int spec_iter;            /* gaussian/special: uniform draws summed (12) */
    double spec_pct;          /* special: % of values that are "special" (1) */
    double spec_res;          /* special: % of draws that hit them (75) */
    double pareto_h;          /* pareto: h parameter (0.2) */
    double zipf_exp;          /* zipfian: exponent theta (0.8) */
};

/* The generator state of one thread; plain data, copyable. */
struct sb_rand {
    uint64_t s[4];
    const struct sb_rand_params *params; /* not owned */
    /* unique(): a permutation of 32-bit values (see sb_rand_next_unique). */
    uint32_t unique_index;
    uint32_t unique_offset;
    /* zipfian(): cached constants for the last (n, theta) asked for. */
    uint64_t zipf_n;
    double zipf_theta, zipf_zetan, zipf_alpha, zipf_eta, zipf_zeta2;
};

/* Fills p with sysbench 1.0's defaults (special, 12, 1, 75, 0.2, 0.8). */
void sb_rand_params_default(struct sb_rand_params *p);

/* Parses a --rand-type name ("uniform", "gaussian", "special", "pareto",
 * "zipfian"). Returns 0 and sets *out, or -1 for an unknown name. */
int sb_rand_dist_parse(const char *name, enum sb_rand_dist *out);
const char *sb_rand_dist_name(enum sb_rand_dist d);

/*
 * Seeds r for stream `stream` (the thread id) from `seed` through a mixing
 * function: equal (seed, stream) give equal sequences, different streams
 * give unrelated ones. params is borrowed and must outlive r. (Not named
 * sb_rand_seed: that is an exported variable in sysbench 1.0, and no symbol
 * here may take a 1.0 name with another meaning; see sb_ffi.c.)
 */
void sb_rand_seed_stream(struct sb_rand *r, uint64_t seed, uint64_t stream,
                         const struct sb_rand_params *params);

/*
 * The streams of one seed: worker thread g (global connection number) is
 * stream g, the main Lua state 2^32 + instance, unique() 2^33; the pacers'
 * jitter SB_RAND_STREAM_PACER + g and threads a script starts itself
 * SB_RAND_STREAM_FOREIGN + n, so that a rerun with the same --rand-seed
 * draws every value again.
 */
#define SB_RAND_STREAM_PACER 0x300000000ULL
#define SB_RAND_STREAM_FOREIGN 0x400000000ULL

/* 64 uniformly random bits. */
uint64_t sb_rand_next_u64(struct sb_rand *r);

/* A double uniform in [0, 1). */
double sb_rand_next_double(struct sb_rand *r);

/*
 * Integers in the closed range [a, b] (a <= b; when a > b the two are
 * swapped). All return values within [a, b] for every input. special()
 * returns, with probability spec_res%, one of the spec_pct% of the values in
 * the middle of the range (uniformly), otherwise a gaussian draw.
 */
int64_t sb_rand_next_uniform(struct sb_rand *r, int64_t a, int64_t b);
int64_t sb_rand_next_gaussian(struct sb_rand *r, int64_t a, int64_t b);
int64_t sb_rand_next_special(struct sb_rand *r, int64_t a, int64_t b);
int64_t sb_rand_next_pareto(struct sb_rand *r, int64_t a, int64_t b);
int64_t sb_rand_next_zipfian(struct sb_rand *r, int64_t a, int64_t b);
/* The distribution chosen by params->dist. */
int64_t sb_rand_next_default(struct sb_rand *r, int64_t a, int64_t b);

/*
 * sysbench 1.0's 32-bit draws, which scripts reach through sysbench.rand and
 * the exported sb_rand_uniform(uint32_t, uint32_t) family: the result is
 * a + k modulo 2^32 with k in [0, n), n = b - a + 1 modulo 2^32 (a > b
 * wraps; n = 0 always gives a). For SB_RAND_SPECIAL k is in [0, b - a].
 * Arguments are whatever the caller converted to uint32_t (LuaJIT truncates
 * toward zero, then reduces modulo 2^32).
 */
uint32_t sb_rand_next_wrapped(struct sb_rand *r, enum sb_rand_dist d,
                              uint32_t a, uint32_t b);
/* The same with the distribution chosen by params->dist. */
uint32_t sb_rand_next_wrapped_default(struct sb_rand *r, uint32_t a, uint32_t b);

/*
 * Distinct 32-bit values in a pseudo-random order: the first 2^32 calls on
 * one generator never repeat a value. The order depends on the seed.
 */
uint32_t sb_rand_next_unique(struct sb_rand *r);

/*
 * The same sequence for a generator shared by several threads (sysbench
 * 1.0's unique() is one sequence for the whole process, so values never
 * repeat across threads): the index advances atomically, nothing else of r
 * is touched. Which thread gets which value depends on timing.
 */
uint32_t sb_rand_next_unique_shared(struct sb_rand *r);

/*
 * Writes into buf (capacity cap, including the terminating NUL) the
 * template fmt with each '#' replaced by a random digit and each '@' by a
 * random lowercase letter; other characters are copied. Output longer than
 * cap-1 is truncated. Returns the length written (without the NUL).
 */
size_t sb_rand_next_string(struct sb_rand *r, const char *fmt, size_t fmt_len,
                      char *buf, size_t cap);

/*
 * Writes a random alphanumeric string ([0-9a-z]) of a uniformly random
 * length in [min, max] into buf (capacity cap > max). Returns its length.
 */
size_t sb_rand_next_varstring(struct sb_rand *r, size_t min, size_t max,
                         char *buf, size_t cap);

#endif /* SB_RAND_H */
