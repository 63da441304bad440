#ifndef SB_FINDMAX_H
#define SB_FINDMAX_H

/*
 * --find-max: the search for the highest --tx-rate a server holds. A rate
 * "holds" when the achieved rate is at least 99.5% of the target and the
 * --sla percentile of the response time is within its limit. The search
 * first measures the closed-loop capacity, then bisects between a rate
 * that holds and one that does not; a verdict within 10% of a limit is
 * run again (the --repeat count, at least 3 times) and decided by the
 * median. Every probe is a point of the output (JSON, CSV), the curve is
 * printed at the end and drawn as latency against throughput.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct sb_output;

/*
 * Parses --sla ("p99:20ms", "p99.9:500us", "p50:1.5s"). An empty or NULL
 * text is no SLA (*pct = *ms = 0), which is an error when required (with
 * --find-max); a non-empty one is an error when not required (an SLA
 * without --find-max would be ignored). Returns 0, or -1 with one line in err.
 */
int sb_findmax_parse_sla(const char *text, bool required, double *pct, double *ms,
                         char *err, size_t errlen);

/*
 * Runs `repeats` measurements at target rate `rate` (0: closed loop) with
 * the configured threads and returns their status (0 on success); the
 * caller's run function adds one point per measurement to the output.
 */
typedef int (*sb_findmax_run_fn)(void *ctx, double rate, unsigned repeats);

/* What the search found. */
struct sb_findmax_result {
    double capacity_tps;      /* closed-loop throughput */
    double max_rate;          /* highest target that held; 0 if none */
    double max_achieved_tps;  /* its achieved throughput */
    double max_latency_ms;    /* its SLA percentile */
    size_t probes;            /* measurements made */
};

/*
 * Searches with run(ctx, rate), reading each probe's figures from the
 * last points of o. pct/ms is the SLA. Prints the progress and the curve
 * to out. Returns 0, or the first non-zero status of run.
 */
int sb_findmax_search(struct sb_output *o, sb_findmax_run_fn run, void *ctx, double pct,
                      double ms, unsigned repeat, struct sb_findmax_result *res, FILE *out);

#endif /* SB_FINDMAX_H */
