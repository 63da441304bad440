/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_SAMPLER_H
#define SB_SAMPLER_H

/*
 * The throughput series the self-check's stationarity test needs, taken
 * by the reporter once a second after warmup whether or not
 * --report-interval is set. A sample costs one relaxed load of each
 * worker's event counter: no histogram is copied. Main thread only.
 */

#include <stddef.h>
#include <stdint.h>

#include "cpu/sb_cpu.h"
#include "pure/sb_selfcheck.h"
#include "measure/sb_stats.h"

struct sb_run;

struct sb_sampler {
    uint64_t step_ns;        /* sample length (1 s) */
    uint64_t last_ns;        /* end of the previous sample, 0 before start */
    uint64_t next_ns;        /* when the next sample is due, 0: none */
    unsigned nworkers;
    uint64_t *prev;          /* per worker: events at the previous sample */
    int *prev_epoch;         /* per worker: the epoch prev belongs to */
    double *tps;             /* owned: one value per sample */
    size_t ntps, cap;
};

/* Allocates the per-worker state. Returns 0 or -1 (out of memory). */
int sb_sampler_init(struct sb_sampler *s, unsigned nworkers, double step_s);

/* The measured run starts at start_ns (after warmup). */
void sb_sampler_start(struct sb_sampler *s, uint64_t start_ns);

/* Takes a sample when one is due at now (covering the time since the last
 * one when the caller woke late). A sample that cannot be stored is
 * dropped. */
void sb_sampler_tick(struct sb_sampler *s, struct sb_run *run, uint64_t now);

/*
 * The run's check of itself over the measured window (t seconds, total
 * merged over the workers, cr the CPU report, tcpu the worker threads' CPU
 * or NULL) with s's samples.
 */
void sb_sampler_check(const struct sb_sampler *s, const struct sb_run *run,
                      const struct sb_stats *total, double t, const struct sb_cpu_report *cr,
                      const struct sb_cpu_thread *tcpu, struct sb_selfcheck *chk);

/* The calling thread's run-queue wait so far in ns (the second field of
 * /proc/thread-self/schedstat), UINT64_MAX when unavailable. Not for a
 * hot path: it reads a file. */
uint64_t sb_sampler_thread_wait(void);

/* Frees what init allocated; s may be zeroed or partly initialised. */
void sb_sampler_free(struct sb_sampler *s);

#endif /* SB_SAMPLER_H */
