/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_SELFCHECK_H
#define SB_SELFCHECK_H

/*
 * The run's check of itself (pure module: no threads, no I/O). After a
 * point the run asks its own figures whether they measure the server
 * under the intended load, and flags the point when they say otherwise.
 * Each verdict names its cause, so a flag never blames the client for
 * what the server did:
 *
 *  client-bound     the client was short of CPU (or of loop threads): (a)
 *                   the worker threads
 *                   were on a CPU or waiting for one (run-queue wait) at
 *                   least SB_SELFCHECK_CPU_SHARE of their time (without the
 *                   wait: their CPU time against min(threads, CPUs) cores),
 *                   or, in a rate mode, their CPU per transaction times the
 *                   target needs that share of the cores they can use; or
 *                   (b) in a rate mode, more than SB_SELFCHECK_LATE_SHARE
 *                   of the starts came later than SB_SELFCHECK_LAG_SHARE
 *                   of a connection's period (threads / rate) after the
 *                   connection was free, i.e. after max(due time, end of
 *                   its previous transaction), while the workers waited
 *                   for a CPU at least SB_SELFCHECK_WAIT_SHARE of their
 *                   time, or the connections share fewer OS threads
 *                   (--client-threads: a loop thread held by another
 *                   connection is the client's). Late starts without
 *                   either are the kernel's late wake-ups (below), not a
 *                   client short of CPU.
 *                   When others' CPU dominates the machine (contention,
 *                   below), (b) and a busy figure made of run-queue wait
 *                   are laid to the contention instead; only the client's
 *                   own CPU demand still makes it client-bound. With an
 *                   embedded engine (SQLite) the workers' CPU is the
 *                   database's too, so (a) is not judged.
 *  late wake-ups    rate modes: the kernel woke idle workers late (timer
 *                   and scheduler latency: a virtual machine's jitter), by
 *                   more than the machine's normal tail: the wake-up
 *                   delay (start - due time of a start whose connection
 *                   was idle at its due time) has a p99 above
 *                   SB_SELFCHECK_WAKE_P99_MS, at least SB_SELFCHECK_MIN_LATE
 *                   wake-ups were that late, and the delay moves the
 *                   figures: its p99 is at least SB_SELFCHECK_WAKE_RESPONSE
 *                   of the response time's p99, or the start lag's p99 is
 *                   evidence (above SB_SELFCHECK_LAG_SHARE of the period)
 *                   and the wake-up p99 at least SB_SELFCHECK_WAKE_LAG of
 *                   it. Not judged when the client is short of CPU or
 *                   under contention: those flags explain the delay.
 *  server-bound     rate modes: the schedule slipped because transactions
 *                   took longer than the period allows: the utilisation
 *                   of a connection, mean service time x target / threads,
 *                   is at least SB_SELFCHECK_UTIL_SHARE, or the achieved
 *                   rate is below SB_SELFCHECK_RATE_SHARE of the target,
 *                   while the client is not to blame (not client-bound, and
 *                   the client's own busy time is under
 *                   SB_SELFCHECK_CLIENT_TX_SHARE of the service time). The
 *                   cause says what would help: too few connections (the
 *                   server's CPU, scaled from the achieved rate to the
 *                   target, stays below SB_SELFCHECK_SERVER_SAT of the
 *                   machine), the server (at or above it; for an embedded
 *                   engine, the workers' CPU per transaction at the target
 *                   against the machine), or unknown (server not
 *                   measured).
 *  contention       processes that are neither the client nor the server
 *                   used at least SB_SELFCHECK_OTHER_SHARE of the machine's
 *                   CPU capacity, and the run shows an effect: client-
 *                   bound evidence, lag p99 above SB_SELFCHECK_LAG_SHARE of
 *                   the period, a shortfall, utilisation at the threshold,
 *                   or workers waiting for a CPU SB_SELFCHECK_WAIT_SHARE of
 *                   their time.
 *  not stationary   the per-second throughput after warmup has a trend:
 *                   the least-squares slope is significant at 95%
 *                   (two-sided Student t test, n - 2 degrees of freedom)
 *                   and the fitted change over the run is at least
 *                   SB_SELFCHECK_MIN_CHANGE of the mean (a significant
 *                   but tiny drift is not worth a flag). With fewer than
 *                   SB_SELFCHECK_MIN_INTERVALS samples, or a change of that
 *                   size that is not significant, there is not enough
 *                   evidence either way and the check says so (no flag).
 *  error-dominated  ignored errors exceed SB_SELFCHECK_ERROR_SHARE of the
 *                   transactions.
 *
 * A clean run (the server kept up, the client was free, the machine was
 * not taken by others) gets no flag even when the server stalled now and
 * then: the lag and response times then measure the server, as intended.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "pure/sb_pacer.h"

#define SB_SELFCHECK_CPU_SHARE 0.90
#define SB_SELFCHECK_LAG_SHARE 0.10
#define SB_SELFCHECK_LATE_SHARE 0.01
/* Fewer late starts than this are accidents, not a limit (a short run's
 * one late wake-up is more than 1% of its starts). */
#define SB_SELFCHECK_MIN_LATE 3
#define SB_SELFCHECK_RATE_SHARE 0.99
#define SB_SELFCHECK_UTIL_SHARE 0.90
#define SB_SELFCHECK_CLIENT_TX_SHARE 0.50
#define SB_SELFCHECK_SERVER_SAT 0.80
#define SB_SELFCHECK_OTHER_SHARE 0.50
#define SB_SELFCHECK_WAIT_SHARE 0.10
#define SB_SELFCHECK_ERROR_SHARE 0.05
#define SB_SELFCHECK_MIN_INTERVALS 10
/* Late wake-ups: a wake-up delay p99 above this is beyond the normal tail
 * of a virtual machine's timer wake-ups (bench/wakeup.sh measured this
 * 2-CPU VM at p99 0.17 ms, p99.9 1.45 ms when quiet; bench/README.md
 * "wakeup.sh"): about 6x the quiet p99, the quiet p99.9 rounded down. */
#define SB_SELFCHECK_WAKE_P99_MS 1.0
/* ... and it moves the figures: this share of the response p99, or this
 * share of a lag p99 that is evidence. */
#define SB_SELFCHECK_WAKE_RESPONSE 0.10
#define SB_SELFCHECK_WAKE_LAG 0.50
#define SB_SELFCHECK_MIN_CHANGE 0.10
/* Connections suggested for a server-bound run keep each one busy at most
 * this share of its time. */
#define SB_SELFCHECK_TARGET_UTIL 0.70

/* Flag bits of struct sb_selfcheck.flags. */
enum sb_selfcheck_flag {
    SB_SELFCHECK_CLIENT_BOUND = 1,
    SB_SELFCHECK_NOT_STATIONARY = 2,
    SB_SELFCHECK_ERROR_DOMINATED = 4,
    SB_SELFCHECK_SERVER_BOUND = 8,
    SB_SELFCHECK_CONTENTION = 16,
    SB_SELFCHECK_LATE_WAKEUPS = 32
};

/* What would lift a server-bound run's limit. */
enum sb_selfcheck_cause {
    SB_SELFCHECK_CAUSE_NONE = 0,        /* not server-bound */
    SB_SELFCHECK_CAUSE_UNKNOWN = 1,     /* server CPU not measured */
    SB_SELFCHECK_CAUSE_CONNECTIONS = 2, /* the server had CPU to spare */
    SB_SELFCHECK_CAUSE_SERVER = 3,      /* the server's CPU was saturated */
    SB_SELFCHECK_CAUSE_MACHINE = 4      /* the server (measured on this
                                           machine) had CPU to spare
                                           but the machine had none (at
                                           least SB_SELFCHECK_SERVER_SAT busy,
                                           others not dominant: the client
                                           and the server took it) */
};

/* The stationarity answer. */
enum sb_trend_verdict {
    SB_TREND_TOO_FEW = 0,     /* fewer than SB_SELFCHECK_MIN_INTERVALS samples */
    SB_TREND_STATIONARY = 1,  /* no change of SB_SELFCHECK_MIN_CHANGE or more */
    SB_TREND_UNDECIDED = 2,   /* such a change, not significant */
    SB_TREND_DRIFT = 3        /* such a change, significant: flagged */
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
    enum sb_trend_verdict verdict;
};

/* Everything the check needs, as the run measured it. */
struct sb_selfcheck_in {
    unsigned threads;        /* connections */
    unsigned os_threads;     /* threads running them (0: threads) */
    unsigned ncpus;
    double wall_s;           /* measured time */
    double worker_cpu_s;     /* CPU of the worker threads in it; < 0: unknown */
    double worker_wait_s;    /* their run-queue wait (runnable, no CPU); < 0: unknown */
    bool in_process;         /* the database engine runs in the workers (SQLite) */
    enum sb_pace_mode rate_mode;
    double target_tps;       /* rate modes */
    double achieved_tps;
    double lag_p99_s;        /* rate modes: start lag at the 99th percentile */
    double service_mean_s;   /* rate modes: mean service time (start to end) */
    double client_delay_s;   /* rate modes: sum of the client's own delays */
    uint64_t client_late;    /* rate modes: starts the client delayed by more
                                than SB_SELFCHECK_LAG_SHARE of the period */
    uint64_t idle_late;      /* rate modes: of them, starts of a connection
                                idle at its due time (at least; from the
                                wake-up histogram): the ones that count
                                when in_process */
    double response_p99_s;   /* rate modes: response time's 99th percentile */
    double wake_p99_s;       /* rate modes: wake-up delay's p99 (sb_dhist) */
    uint64_t wakeups;        /* rate modes: starts of an idle connection */
    uint64_t wake_late;      /* of them, later than SB_SELFCHECK_WAKE_P99_MS */
    /* CPU of the machine, as shares (%) of all its CPUs over the run; a
     * part not measured is NAN. */
    double client_cpu_pct;
    double server_cpu_pct;
    double machine_cpu_pct;
    uint64_t events;
    uint64_t errors;         /* ignored errors */
    const double *tps;       /* throughput per sample (borrowed) */
    size_t ntps;
    double sample_s;         /* length of a sample */
};

struct sb_selfcheck {
    unsigned flags;          /* enum sb_selfcheck_flag bits */
    /* client-bound */
    bool in_process;
    double worker_cpu_pct;   /* % of min(threads, CPUs) cores; NAN unknown */
    double worker_busy_pct;  /* % of threads x time on or waiting for a CPU;
                                NAN when the wait is unknown */
    double worker_wait_pct;  /* % of threads x time waiting for a CPU; NAN */
    bool cpu_bound;          /* busy (or CPU) at SB_SELFCHECK_CPU_SHARE */
    double client_demand_pct;/* rate modes: CPU per transaction x target, %
                                of the cores the workers can use; NAN */
    bool demand_bound;
    double client_delay_mean_ms; /* rate modes: mean client delay per start */
    double client_late_pct;  /* rate modes: % of starts the client delayed */
    bool client_late;        /* client_late_pct above SB_SELFCHECK_LATE_SHARE */
    bool wait_high;          /* worker_wait_pct at SB_SELFCHECK_WAIT_SHARE */
    /* late wake-ups (rate modes; NAN or 0 otherwise) */
    double wake_p99_ms;      /* wake-up delay p99 */
    double wake_late_pct;    /* % of wake-ups later than the threshold */
    double response_p99_ms;
    double wake_of_response_pct; /* wake p99, % of the response p99 */
    double wake_of_lag_pct;  /* wake p99, % of the lag p99 */
    bool wake_high;          /* p99 above the threshold, enough of them */
    bool wake_moves;         /* it moves the response or lag percentiles */
    /* server-bound and the rate figures */
    double period_ms;        /* rate modes: threads / rate */
    double lag_p99_ms;
    double lag_pct_of_period;
    bool lag_bound;          /* lag p99 above SB_SELFCHECK_LAG_SHARE: evidence */
    double achieved_pct;     /* rate modes: achieved / target */
    bool rate_short;
    double service_mean_ms;  /* rate modes */
    double utilisation_pct;  /* service mean x target / threads, % */
    double client_tx_pct;    /* client busy per transaction, % of service */
    enum sb_selfcheck_cause cause;
    unsigned suggest_threads;/* CAUSE_CONNECTIONS/UNKNOWN: connections that
                                keep each at SB_SELFCHECK_TARGET_UTIL */
    /* contention */
    double client_cpu_pct, server_cpu_pct, machine_cpu_pct; /* NAN unknown */
    double other_cpu_pct;    /* machine - client - server; NAN unknown */
    bool others_dominant;    /* other_cpu_pct >= SB_SELFCHECK_OTHER_SHARE */
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

/* Runs the checks. */
void sb_selfcheck_eval(const struct sb_selfcheck_in *in, struct sb_selfcheck *out);

/* The suggested --tx-spin for late wake-ups: the wake-up p99 in
 * microseconds, rounded up to a multiple of 50 (c from sb_selfcheck_eval). */
unsigned sb_selfcheck_spin_us(const struct sb_selfcheck *c);

/* The flag names, comma-separated ("client-bound, not stationary"), or
 * "" for none, into buf (len bytes). Returns buf. */
const char *sb_selfcheck_flag_names(unsigned flags, char *buf, size_t len);

/* The cause's name in result files: "connections", "server", "machine",
 * "unknown", or "" for none. */
const char *sb_selfcheck_cause_name(enum sb_selfcheck_cause c);

/* The stationarity verdict's name in result files: "stationary",
 * "not-stationary", "not-enough-evidence" (a large change, not
 * significant) or "too-few-samples". */
const char *sb_selfcheck_trend_name(enum sb_trend_verdict v);

#endif /* SB_SELFCHECK_H */
