/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_INSTANCE_H
#define SB_INSTANCE_H

/*
 * Scale-out: this process as instance I of N generator processes started
 * by an orchestrator (pdsh, ssh, a Kubernetes Indexed Job), and the
 * wall-clock instant (--start-at) at which all of them start their
 * schedules. See doc/scale-out.md.
 *
 * The split is done by treating the N processes as one process with
 * N x threads connections: connection g = I * threads + tid takes the
 * schedule phase and random stream that thread g of that one process
 * would have, so the instances' schedules interleave evenly and their
 * streams differ yet are reproducible from --rand-seed.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/sb_options.h"

/* The general options of this module, {NULL}-ended (added by
 * sb_config_declare after the others). */
extern const struct sb_opt_def sb_instance_options[];

/* What the options say; part of the run configuration (sb_config). */
struct sb_instance {
    unsigned index;           /* I, from 0 */
    unsigned count;           /* N, 1 without scale-out */
    const char *source;       /* "--instance", "JOB_COMPLETION_INDEX", NULL */
    double start_at;          /* --start-at, seconds since the epoch; 0 = none */
    double clock_offset_s;    /* --clock-offset, as given */
    bool clock_offset_given;
};

/* Largest N accepted. */
#define SB_INSTANCE_MAX 65536

/*
 * Fills inst from --instance, --instances, --start-at and --clock-offset,
 * reading JOB_COMPLETION_INDEX from the environment when --instances is
 * given without --instance. now_s is the current wall-clock time, used to
 * refuse a --start-at more than SB_INSTANCE_PAST_S in the past.
 * rand_seed_given says whether --rand-seed was set (N > 1 needs it).
 * Returns 0, or -1 with one line naming the option in err.
 */
int sb_instance_load(struct sb_instance *inst, const struct sb_optset *set,
                     bool rand_seed_given, double now_s, char *err, size_t errlen);

/* How far in the past --start-at may be (process start-up, connecting). */
#define SB_INSTANCE_PAST_S 1.0
/* Threads ready later than --start-at by more than this get a notice. */
#define SB_INSTANCE_LATE_S 0.01
/* ... and one more than this many seconds ahead (a wait that long is a
 * mistake, and the wait is counted in int64 nanoseconds). */
#define SB_INSTANCE_AHEAD_S 604800

/*
 * Parses a --start-at value: seconds since the epoch (a fraction allowed)
 * or ISO 8601 UTC "YYYY-MM-DDTHH:MM:SS[.fff][Z|+00:00]" (a space may
 * replace the T). Returns 0 and sets *out, or -1.
 */
int sb_instance_parse_time(const char *s, double *out);

/* The global connection index of thread tid among all instances. */
static inline uint64_t sb_instance_gtid(const struct sb_instance *inst,
                                        unsigned threads, unsigned tid)
{
    return (uint64_t)inst->index * threads + tid;
}

/*
 * Waits until --start-at, if set: returns the CLOCK_MONOTONIC time (ns)
 * that corresponds to it, having slept until shortly before it (the
 * caller starts its schedule at the returned time). Returns 0 at once
 * without --start-at, or when stop() turns true while waiting (polled
 * every 50 ms). A start-at up to SB_INSTANCE_PAST_S past returns the
 * time it maps to (with a notice when more than SB_INSTANCE_LATE_S past);
 * one further past (the later points of a sweep) returns 0 with a
 * warning.
 */
uint64_t sb_instance_wait_start(const struct sb_instance *inst, bool (*stop)(void));

struct sb_json;

/* Writes the member "instance": {index, count, source, start_at,
 * clock_offset_s} of a result document (doc/results.md). */
void sb_instance_write_json(struct sb_json *j, const struct sb_instance *inst);

/* The wall-clock time (seconds since the epoch) of CLOCK_MONOTONIC
 * instant mono_ns, through one pair of clock readings. */
double sb_instance_unix_of(uint64_t mono_ns);

#endif /* SB_INSTANCE_H */
