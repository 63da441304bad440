/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cpu: one event checks every number from 3 to below --cpu-max-prime for
 * primality by trial division up to its square root, as sysbench 1.0's
 * cpu test defines its event (`sysbench cpu help`; 1.0.20's
 * src/tests/cpu/sb_cpu.c stops below the limit), so that events/s compare
 * across the two tools: the same divisions, event for event.
 */
#include <math.h>
#include <stdlib.h>

#include "builtin/sb_bi_cpu.h"
#include "results/sb_point_result.h"
#include "measure/sb_stats.h"

static const struct sb_opt_def cpu_options[] = {
    { "cpu-max-prime", "upper limit for primes generator", "10000", SB_ARG_INT },
    { NULL, NULL, NULL, 0 }
};

/* The test's context (configure() to finish()). */
struct cpu_config {
    uint64_t max_prime;
};

/* Where each event's count goes, so that the work cannot be optimised
 * away; one per thread (a shared one would bounce between CPUs). */
struct cpu_thread {
    uint64_t max_prime;
    volatile uint64_t primes;
};

static void *cpu_configure(const struct sb_optset *opts, char *err, size_t errlen)
{
    int64_t v = sb_optset_int(opts, "cpu-max-prime");
    struct cpu_config *c;

    if (v < 3) {
        sb_bi_bad_option(err, errlen, "cpu-max-prime", sb_optset_str(opts, "cpu-max-prime"),
                         "a whole number of at least 3");
        return NULL;
    }
    c = calloc(1, sizeof(*c));
    if (c == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    c->max_prime = (uint64_t)v;
    return c;
}

static void cpu_finish(void *cfg)
{
    free(cfg);
}

static void cpu_header(const void *cfg, FILE *out)
{
    const struct cpu_config *c = cfg;

    fprintf(out, "Prime numbers limit: %llu\n\n", (unsigned long long)c->max_prime);
}

static int cpu_thread_init(void **ctx, const struct sb_bi_thread *t)
{
    const struct cpu_config *cfg = t->cfg;
    struct cpu_thread *c = calloc(1, sizeof(*c));

    *ctx = c;
    if (c == NULL)
        return SB_BI_ERROR;
    c->max_prime = cfg->max_prime;
    return 0;
}

/* 64-bit division, as 1.0 does it: the cost of the work stays the same. */
static int cpu_event(void *ctx)
{
    struct cpu_thread *c = ctx;
    uint64_t n = 0, max_prime = c->max_prime;

    for (uint64_t v = 3; v < max_prime; v++) {
        uint64_t limit = (uint64_t)sqrt((double)v), d;

        for (d = 2; d <= limit; d++)
            if (v % d == 0)
                break;
        if (d > limit)
            n++;
    }
    c->primes = n;
    return SB_BI_OK;
}

static int cpu_thread_done(void *ctx)
{
    free(ctx);
    return 0;
}

static void cpu_report(const void *cfg, const struct sb_point_result *p, FILE *out)
{
    double secs = p->time_s > 0 ? p->time_s : 1;

    (void)cfg;
    fprintf(out, "CPU speed:\n    events per second: %8.2f\n",
            (double)p->total->c[SB_STAT_EVENTS] / secs);
}

const struct sb_builtin sb_bi_cpu = {
    .name = "cpu",
    .description = "CPU performance test",
    .options = cpu_options,
    .configure = cpu_configure,
    .print_header = cpu_header,
    .thread_init = cpu_thread_init,
    .event = cpu_event,
    .thread_done = cpu_thread_done,
    .report = cpu_report,
    .finish = cpu_finish,
};
