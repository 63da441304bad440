/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_FINDMAX_H
#define SB_FINDMAX_H

/*
 * --find-max: the search for the highest --tx-rate a server holds. A rate
 * "holds" when the achieved rate is at least 99.5% of the target and the
 * --sla percentile of the response time is within its limit. The search
 * first measures the closed-loop capacity, then bisects between a rate
 * that holds and one that does not down to 2%. A verdict within 10% of a
 * limit is measured three times in all and decided by the medians. The
 * bracket is always the highest rate held below the lowest rate missed,
 * and both its ends are measured three times before the answer is given
 * (a single run's stall cannot decide it); should a rate held still lie
 * above a miss, the answer says so and stays below every miss.
 *
 * The search itself is pure: it measures through a callback (one run per
 * call), prints one line per probe and the curve to a FILE, and keeps
 * every run's figures in struct sb_findmax_result, which the --json
 * document records ("find_max", doc/results.md).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct sb_json;

/*
 * Parses --sla ("p99:20ms", "p99.9:500us", "p50:1.5s"). An empty or NULL
 * text is no SLA (*pct = *ms = 0), which is an error when required (with
 * --find-max); a non-empty one is an error when not required (an SLA
 * without --find-max would be ignored). Returns 0, or -1 with one line in err.
 */
int sb_findmax_parse_sla(const char *text, bool required, double *pct, double *ms,
                         char *err, size_t errlen);

/* Most probes (lines: a rate measured, or measured again) of one search. */
#define SB_FINDMAX_MAX_PROBES 24
/* Most runs kept per rate. */
#define SB_FINDMAX_MAX_RUNS 8

/* What one run measured: achieved throughput and the SLA percentile of the
 * response time; NaN when the run measured nothing. */
struct sb_findmax_fig {
    double tps;
    double latency_ms;
};

/*
 * Runs one measurement at target rate `rate` (0: closed loop) and fills
 * fig. `again` is true when the previous call measured the same rate just
 * before (the caller may group such runs as repeats). Returns 0, or the
 * run's non-zero exit status, which ends the search.
 */
typedef int (*sb_findmax_run_fn)(void *ctx, double rate, bool again,
                                 struct sb_findmax_fig *fig);

/* How to search. */
struct sb_findmax_params {
    double pct, ms;           /* the SLA: percentile and limit */
    unsigned repeat;          /* runs of each new rate (--repeat; 0 counts as 1) */
    double run_s;             /* expected seconds per run, for the time left; 0 unknown */
    bool progress;            /* out is a terminal: a progress line rewritten in place */
    double (*now_s)(void);    /* a monotonic clock to time the runs, or NULL */
};

/* One rate measured: every run, their medians and the verdict. */
struct sb_findmax_rate {
    double target;            /* tx/s; 0 for the closed loop */
    double tps[SB_FINDMAX_MAX_RUNS], latency_ms[SB_FINDMAX_MAX_RUNS];
    unsigned runs;
    double achieved, latency; /* medians of the runs */
    bool holds;
    bool remeasured;          /* measured again as an end of the bracket */
};

/* What the search found; filled as it goes, so also after an interruption. */
struct sb_findmax_result {
    double pct, ms;           /* the SLA */
    struct sb_findmax_rate closed;  /* the closed-loop run(s) */
    struct sb_findmax_rate rates[SB_FINDMAX_MAX_PROBES]; /* by target, ascending */
    size_t nrates;
    unsigned probes, runs;    /* probes (lines) and runs made, closed loop included */
    unsigned max_probes;      /* the budget: SB_FINDMAX_MAX_PROBES */
    double capacity_tps;      /* closed-loop throughput */
    double max_rate;          /* highest target held below every miss; 0 if none */
    double max_achieved_tps;  /* its achieved throughput */
    double max_latency_ms;    /* its SLA percentile */
    double fail_rate;         /* lowest target missed above max_rate; 0 if none */
    bool monotone;            /* no held rate above a missed one at the end */
    bool complete;            /* the search ended by itself (not a failed run) */
    bool out_of_probes;       /* it stopped at the budget, bracket still wide */
};

/*
 * Searches with run(ctx, ...), printing a header, one line per probe (and
 * on a terminal a progress line with the probe number, the budget and the
 * time left), then the curve and the answer with its bracket, to out.
 * res is reset first and filled as the search goes. Returns 0, or the
 * first non-zero status of run.
 */
int sb_findmax_search(sb_findmax_run_fn run, void *ctx, const struct sb_findmax_params *par,
                      struct sb_findmax_result *res, FILE *out);

/* Writes "find_max": {...} (doc/results.md) into the open object of j. */
void sb_findmax_json(struct sb_json *j, const struct sb_findmax_result *res);

#endif /* SB_FINDMAX_H */
