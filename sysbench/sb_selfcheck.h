#ifndef SB_SELFCHECK_H
#define SB_SELFCHECK_H

/*
 * The run's check of itself (pure module: no threads, no I/O). After a
 * point the run asks three questions of its own figures and flags the
 * point when the answer says its figures measure something else than the
 * server under the intended load:
 *
 *  generator-bound  the client, not the server, limited the run: the
 *                   worker threads were on a CPU or waiting for one (the
 *                   scheduler's run-queue wait) for at least
 *                   SB_SELFCHECK_CPU_SHARE of their time, i.e. they never
 *                   waited for the server (without the run-queue figure:
 *                   their CPU time against min(threads, CPUs) full cores
 *                   over the measured time), or, in a rate mode, the
 *                   start lag's 99th percentile exceeds
 *                   SB_SELFCHECK_LAG_SHARE of a thread's period
 *                   (threads / rate), or the achieved rate is below
 *                   SB_SELFCHECK_RATE_SHARE of the target;
 *  not stationary   the per-second throughput after warmup has a trend:
 *                   the least-squares slope is significant at 95%
 *                   (two-sided Student t test, n - 2 degrees of freedom)
 *                   and the fitted change over the run is at least
 *                   SB_SELFCHECK_MIN_CHANGE of the mean (a significant
 *                   but tiny drift is not worth a flag); with fewer than
 *                   SB_SELFCHECK_MIN_INTERVALS one-second samples the test
 *                   is not made and the check says so;
 *  error-dominated  ignored errors exceed SB_SELFCHECK_ERROR_SHARE of the
 *                   transactions.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "sb_point.h"

#define SB_SELFCHECK_CPU_SHARE 0.90
#define SB_SELFCHECK_LAG_SHARE 0.10
#define SB_SELFCHECK_RATE_SHARE 0.99
#define SB_SELFCHECK_ERROR_SHARE 0.05
#define SB_SELFCHECK_MIN_INTERVALS 5
#define SB_SELFCHECK_MIN_CHANGE 0.10

/* Flag bits of struct sb_selfcheck.flags. */
enum sb_selfcheck_flag {
    SB_SELFCHECK_GENERATOR_BOUND = 1,
    SB_SELFCHECK_NOT_STATIONARY = 2,
    SB_SELFCHECK_ERROR_DOMINATED = 4
};

/* A linear trend fitted to equally spaced samples. */
struct sb_trend {
    size_t n;             /* samples used */
    bool tested;          /* n >= SB_SELFCHECK_MIN_INTERVALS */
    double mean;          /* mean of the samples */
    double slope;         /* change per second */
    double t;             /* slope / its standard error (0 when n < 3) */
    double t_crit;        /* two-sided 95% critical value for n - 2 df */
    double change_pct;    /* fitted change from first to last sample, % of mean */
    bool significant;     /* |t| > t_crit */
    bool flagged;         /* tested, significant and |change| >= MIN_CHANGE */
};

/* Everything the check needs, as the run measured it. */
struct sb_selfcheck_in {
    unsigned threads;        /* connections */
    unsigned os_threads;     /* threads running them (0: threads) */
    unsigned ncpus;
    double wall_s;           /* measured time */
    double worker_cpu_s;     /* CPU of the worker threads in it; < 0: unknown */
    double worker_wait_s;    /* their run-queue wait (runnable, no CPU); < 0: unknown */
    enum sb_pace_mode rate_mode;
    double target_tps;       /* rate modes */
    double achieved_tps;
    double lag_p99_s;        /* rate modes: start lag at the 99th percentile */
    uint64_t events;
    uint64_t errors;         /* ignored errors */
    const double *tps;       /* throughput per sample (borrowed) */
    size_t ntps;
    double sample_s;         /* length of a sample */
};

struct sb_selfcheck {
    unsigned flags;          /* enum sb_selfcheck_flag bits */
    /* generator-bound */
    double worker_cpu_pct;   /* % of min(threads, CPUs) cores; NAN unknown */
    double worker_busy_pct;  /* % of threads x time on or waiting for a CPU;
                                NAN when the wait is unknown */
    bool cpu_bound;
    double period_ms;        /* rate modes: threads / rate */
    double lag_p99_ms;
    double lag_pct_of_period;
    bool lag_bound;
    double achieved_pct;     /* rate modes: achieved / target */
    bool rate_short;
    /* not stationary */
    struct sb_trend trend;
    /* error-dominated */
    double error_pct;        /* ignored errors, % of transactions */
};

/* Two-sided 95% critical value of Student's t with df degrees of freedom
 * (df >= 1; exact table to 30, a Cornish-Fisher expansion above). */
double sb_selfcheck_t95(unsigned df);

/* Fits y[0..n) sampled every dt seconds; fills *out (never fails). */
void sb_selfcheck_trend(const double *y, size_t n, double dt, struct sb_trend *out);

/* Whether errors ignored over events transactions dominate them. */
bool sb_selfcheck_error_dominated(uint64_t errors, uint64_t events);

/* Runs the three checks. */
void sb_selfcheck_eval(const struct sb_selfcheck_in *in, struct sb_selfcheck *out);

/* The flag names, comma-separated ("generator-bound, not stationary"), or
 * "" for none, into buf (len bytes). Returns buf. */
const char *sb_selfcheck_flag_names(unsigned flags, char *buf, size_t len);

#endif /* SB_SELFCHECK_H */
