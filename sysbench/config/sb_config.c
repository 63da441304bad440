/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * General options and their checks; see sb_config.h.
 */
#include "config/sb_config.h"
#include "cpu/sb_cpu.h"
#include "pure/sb_findmax.h"
#include "config/sb_instance.h"
#include "core/sb_log.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Written only by sb_config_load; everyone else reads it through sb_cfg. */
static struct sb_config config;
const struct sb_config *const sb_cfg = &config;

const struct sb_opt_def sb_general_options[] = {
    {"threads", "number of threads to use, or a comma-separated list for a thread sweep, or auto[:MAX] to search the count of the highest throughput (1 to MAX, default 256)", "1", SB_ARG_LIST},
    {"events", "limit for total number of events", "0", SB_ARG_INT},
    {"time", "limit for total execution time in seconds", "10", SB_ARG_DOUBLE},
    {"warmup-time", "execute events for this many seconds with statistics disabled before the actual benchmark run with statistics enabled", "0", SB_ARG_DOUBLE},
    {"deadline-grace", "seconds a statement still in flight when --time runs out may take to finish before it is cancelled (MariaDB KILL QUERY, PostgreSQL cancel request, SQLite interrupt) and counted as cut", "2", SB_ARG_DOUBLE},
    {"forced-shutdown", "number of seconds to wait after the --time limit before forcing shutdown, or 'off' to disable", "off", SB_ARG_STRING},
    {"thread-stack-size", "size of stack per thread (0 = the system default)", "0", SB_ARG_SIZE},
    {"client-threads", "OS threads that drive the --threads connections of a MySQL or PostgreSQL run, each serving several connections without blocking; 0 gives every connection a thread of its own (as sysbench 1.0); auto: a thread per connection below 256 connections, else one thread per 256 connections, at most one per CPU", "auto", SB_ARG_STRING},
    {"rate", "average transactions rate (Poisson arrivals over all threads); 0 for unlimited rate", "0", SB_ARG_DOUBLE},
    {"tx-rate", "steady transaction rate over all threads, each thread on its own fixed schedule (list for a rate sweep); 0 for unlimited", "0", SB_ARG_LIST},
    {"tx-rate-per-type", "a transaction mix in a rate mode: each script's own rate, NAME:RATE,... (every script of the mix once, summing to --tx-rate or --rate); default: shares by the mix's weights", NULL, SB_ARG_STRING},
    {"tx-jitter", "random variation of each scheduled start, in microseconds (0 = 10% of the per-thread period)", "0", SB_ARG_DOUBLE},
    {"tx-late", "what a late thread does: catchup (start missed transactions at once) or skip (drop and count them)", "catchup", SB_ARG_STRING},
    {"tx-spin", "busy-wait the last N microseconds before a scheduled start instead of sleeping (costs client CPU)", "0", SB_ARG_DOUBLE},
    {"report-interval", "periodically report intermediate statistics with a specified interval in seconds. 0 disables intermediate reports", "0", SB_ARG_DOUBLE},
    {"report-checkpoints", "dump full statistics and reset all counters at the given points in time (a list of seconds from the start); empty means no checkpoints", "", SB_ARG_LIST},
    {"percentile", "percentiles to calculate in latency statistics (list, each in (0,100]); 0 disables them", "95", SB_ARG_LIST},
    {"histogram", "print latency histogram in report", "off", SB_ARG_BOOL},
    {"report-per-statement", "keep figures per SQL statement (each prepared statement and each query text with its literals as ?): executions, errors by code, rows, latency; in the JSON, and in the report at --verbosity=4", "off", SB_ARG_BOOL},
    {"rand-type", "random numbers distribution {uniform, gaussian, special, pareto, zipfian} to use by default", "special", SB_ARG_STRING},
    {"rand-seed", "seed for random number generator. When 0, the current time is used as a RNG seed", "0", SB_ARG_INT},
    {"rand-spec-iter", "number of iterations for the special distribution", "12", SB_ARG_INT},
    {"rand-spec-pct", "percentage of the entire range where 'special' values will fall in the special distribution", "1", SB_ARG_DOUBLE},
    {"rand-spec-res", "percentage of 'special' values to use for the special distribution", "75", SB_ARG_DOUBLE},
    {"rand-pareto-h", "shape parameter for the Pareto distribution", "0.2", SB_ARG_DOUBLE},
    {"rand-zipfian-exp", "shape parameter (exponent, theta) for the Zipfian distribution", "0.8", SB_ARG_DOUBLE},
    {"json", "write the results (options, environment, every interval, the final figures and the latency histogram of each point) as one JSON document to FILE", NULL, SB_ARG_FILE},
    {"csv", "write the interval series (one row per --report-interval) as CSV to FILE", NULL, SB_ARG_FILE},
    {"plot", "after the run, draw charts (throughput, relative throughput, CPU per transaction, latency percentiles) with gnuplot to FILE-throughput.png etc.; FILE ends in .png or .svg", NULL, SB_ARG_FILE},
    {"hgrm", "after the run, write the response-time histogram in HdrHistogram's percentile distribution text format (values in ms) to FILE (FILE-N for point N of a sweep)", NULL, SB_ARG_FILE},
    {"metrics-listen", "serve the latest interval's figures to Prometheus over HTTP at HOST:PORT (GET /metrics) while the run lasts; implies --report-interval=1 when none is given", NULL, SB_ARG_STRING},
    {"metrics-linger", "with --metrics-listen, keep serving the last interval's figures this many seconds after the run, so a scrape after the end still sees them", "0", SB_ARG_DOUBLE},
    {"metrics-token", "with --metrics-listen, answer only requests carrying 'Authorization: Bearer TOKEN', TOKEN read from this file (Prometheus: authorization: {credentials_file: FILE}); for an address beyond loopback", NULL, SB_ARG_FILE},
    {"metrics-file", "write every interval as OpenMetrics text with timestamps to FILE (for promtool tsdb create-blocks-from openmetrics); implies --report-interval=1 when none is given", NULL, SB_ARG_FILE},
    {"log", "write one line per transaction in pgbench's per-transaction log format (client_id transaction_no time script_no time_epoch time_us [schedule_lag]) to FILE", NULL, SB_ARG_FILE},
    {"log-aggregate-interval", "with --log, write one line per interval of this many seconds (all threads) in pgbench 15's aggregate log format instead (0 = one line per transaction)", "0", SB_ARG_DOUBLE},
    {"sweep-cooldown", "seconds to pause between the points of a --threads or --tx-rate sweep", "0", SB_ARG_DOUBLE},
    {"repeat", "run every point N times with the same options and seed, and report the geometric mean, spread (min/max) and 95% confidence interval of its figures", "1", SB_ARG_INT},
    {"repeat-cooldown", "seconds to pause between the repeats of a point (--repeat)", "0", SB_ARG_DOUBLE},
    {"find-max", "search the highest --tx-rate the server holds: achieved rate at least 99.5% of the target and the --sla met", "off", SB_ARG_BOOL},
    {"sla", "latency limit for --find-max or --threads=auto: pP:LIMIT with LIMIT in us, ms or s, e.g. p99:20ms", "", SB_ARG_STRING},
    {"budget", "with --threads=auto, stop the search before a run that would end past this time: seconds, or 90s, 10m, 1h; empty for none", "", SB_ARG_STRING},
    {"server-pid", "PIDs of the database server processes for CPU accounting (default: found through the connection's socket or port)", "", SB_ARG_LIST},
    {"verbosity", "verbosity level {5 - debug, 0 - only critical messages}", "3", SB_ARG_INT},
    {"config-file", "file containing command line options", NULL, SB_ARG_FILE},
    {"debug", "print more debugging info (same as --verbosity=5)", "off", SB_ARG_BOOL},
    {"validate", "perform validation checks where possible (accepted for compatibility)", "off", SB_ARG_BOOL},
    {"help", "print help and exit", "off", SB_ARG_BOOL},
    {"version", "print version and exit", "off", SB_ARG_BOOL},
    {NULL, NULL, NULL, 0}
};

static int fail(char *err, size_t errlen, const char *fmt, const char *opt,
                const char *what)
{
    snprintf(err, errlen, fmt, opt, what);
    return -1;
}

/* A user's value as an error quotes it: short and without control bytes. */
#define Q(v) sb_opt_quote((v), (char[SB_OPT_QUOTE_LEN]){0}, SB_OPT_QUOTE_LEN)

/* The largest MAX of --threads=auto:MAX, and MAX without one. */
#define AUTO_MAX_LIMIT 100000
#define AUTO_MAX_DEFAULT 256

/* --threads=auto or auto:MAX (alone, not in a list). Returns 1 when it
 * is auto (c filled), 0 when it is not, -1 with err. */
static int load_threads_auto(const struct sb_optset *set, struct sb_config *c, char *err,
                             size_t errlen)
{
    size_t count;
    char *const *items = sb_optset_list(set, "threads", &count);
    int64_t v;

    for (size_t i = 0; i < count; i++)
        if (strncmp(items[i], "auto", 4) == 0 && count > 1)
            return fail(err, errlen, "%s %s", "--threads=auto",
                        "searches the thread counts itself: give it alone, not in a list");
    if (count != 1 || strncmp(items[0], "auto", 4) != 0)
        return 0;
    if (items[0][4] == '\0') {
        v = AUTO_MAX_DEFAULT;
    } else if (items[0][4] != ':' || sb_parse_int(items[0] + 5, &v) != 0 || v < 1 ||
               v > AUTO_MAX_LIMIT) {
        snprintf(err, errlen,
                 "invalid value '%s' for --threads: expected auto or auto:MAX, MAX an integer "
                 "from 1 to %u", Q(items[0]), AUTO_MAX_LIMIT);
        return -1;
    }
    c->threads_auto = true;
    c->threads_auto_max = (unsigned)v;
    c->thread_list[0] = 1;
    c->nthread_list = 1;
    return 1;
}

/* --budget: seconds, or a number with s, m (min) or h; empty for none. */
static int load_budget(const struct sb_optset *set, struct sb_config *c, char *err,
                       size_t errlen)
{
    const char *v = sb_optset_str(set, "budget");
    double x, mul = 1;
    char *end;

    c->budget_s = 0;
    if (v == NULL || *v == '\0')
        return 0;
    if (!c->threads_auto)
        return fail(err, errlen, "%s %s", "--budget",
                    "applies only with --threads=auto (and to sysbench ab)");
    x = strtod(v, &end);
    if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
        mul = 60;
    else if (strcmp(end, "h") == 0)
        mul = 3600;
    else if (strcmp(end, "s") != 0 && *end != '\0')
        end = (char *)v;
    if (end == v || !isfinite(x) || !(x > 0) || x * mul > SB_OPT_MAX_SECONDS)
        return fail(err, errlen, "invalid value '%s' for --%s: expected a time such as 600, "
                    "90s, 10m or 1h", Q(v), "budget");
    c->budget_s = x * mul;
    return 0;
}

/* --sla: required by --find-max, optional with --threads=auto. */
static int load_sla(const struct sb_optset *set, struct sb_config *c, char *err, size_t errlen)
{
    const char *v = sb_optset_str(set, "sla");

    if (c->threads_auto && !c->find_max && (v == NULL || *v == '\0')) {
        c->sla_pct = c->sla_ms = 0;
        return 0;
    }
    if (sb_findmax_parse_sla(v, c->find_max || c->threads_auto, &c->sla_pct, &c->sla_ms, err,
                             errlen) != 0) {
        if (!c->find_max && !c->threads_auto)
            snprintf(err, errlen, "--sla applies only with --find-max or --threads=auto");
        return -1;
    }
    return 0;
}

/* Parses a list of positive integers (thread counts). */
static int load_uint_list(const struct sb_optset *set, const char *name,
                          unsigned *out, size_t *n, unsigned max_value,
                          char *err, size_t errlen)
{
    size_t count, i;
    char *const *items = sb_optset_list(set, name, &count);

    if (count == 0)
        return fail(err, errlen, "invalid value for --%s: %s", name, "expected a number");
    if (count > SB_MAX_SWEEP)
        return fail(err, errlen, "too many values for --%s: %s", name, "at most 64");
    for (i = 0; i < count; i++) {
        int64_t v;
        if (sb_parse_int(items[i], &v) != 0 || v < 1 || v > (int64_t)max_value) {
            snprintf(err, errlen,
                     "invalid value '%s' for --%s: expected an integer from 1 to %u",
                     Q(items[i]), name, max_value);
            return -1;
        }
        out[i] = (unsigned)v;
    }
    *n = count;
    return 0;
}

static int load_rates(const struct sb_optset *set, char *err, size_t errlen)
{
    size_t count, i;
    char *const *items = sb_optset_list(set, "tx-rate", &count);

    if (count > SB_MAX_SWEEP)
        return fail(err, errlen, "too many values for --%s: %s", "tx-rate", "at most 64");
    for (i = 0; i < count; i++) {
        double v;
        if (sb_parse_double(items[i], &v) != 0 || !isfinite(v) || v < 0) {
            snprintf(err, errlen,
                     "invalid value '%s' for --tx-rate: expected a non-negative number of transactions per second",
                     Q(items[i]));
            return -1;
        }
        if (v > SB_OPT_MAX_RATE) {
            snprintf(err, errlen,
                     "invalid value '%s' for --tx-rate: expected at most %.0f transactions per second",
                     Q(items[i]), SB_OPT_MAX_RATE);
            return -1;
        }
        config.tx_rate_list[i] = v;
    }
    config.ntx_rate_list = count;
    return 0;
}

static int load_percentiles(const struct sb_optset *set, char *err, size_t errlen)
{
    size_t count, i;
    char *const *items = sb_optset_list(set, "percentile", &count);

    config.npercentiles = 0;
    if (count > SB_MAX_PERCENTILES)
        return fail(err, errlen, "too many values for --%s: %s", "percentile", "at most 16");
    for (i = 0; i < count; i++) {
        double v;
        if (sb_parse_double(items[i], &v) != 0 || !(v >= 0 && v <= 100)) {
            snprintf(err, errlen,
                     "invalid value '%s' for --percentile: expected a number from 0 to 100",
                     Q(items[i]));
            return -1;
        }
        /* sysbench 1.0: 0 disables percentile calculations. */
        if (v == 0) {
            if (count != 1)
                return fail(err, errlen, "invalid value for --%s: %s", "percentile",
                            "0 (disable) cannot be combined with other percentiles");
            return 0;
        }
        config.percentiles[config.npercentiles++] = v;
    }
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int load_checkpoints(const struct sb_optset *set, char *err, size_t errlen)
{
    size_t count;
    char *const *items = sb_optset_list(set, "report-checkpoints", &count);

    config.ncheckpoints = 0;
    if (count > SB_MAX_CHECKPOINTS)
        return fail(err, errlen, "too many values for --%s: %s", "report-checkpoints",
                    "at most 64");
    for (size_t i = 0; i < count; i++) {
        double v;
        if (sb_parse_double(items[i], &v) != 0 || !isfinite(v) || !(v > 0))
            return fail(err, errlen, "invalid value '%s' for --%s: expected seconds > 0",
                        Q(items[i]), "report-checkpoints");
        if (v > SB_OPT_MAX_SECONDS)
            return fail(err, errlen, "invalid value '%s' for --%s: expected at most 1000000000 seconds",
                        Q(items[i]), "report-checkpoints");
        config.checkpoints[config.ncheckpoints++] = v;
    }
    qsort(config.checkpoints, config.ncheckpoints, sizeof(double), cmp_double);
    return 0;
}

static int nonneg(const struct sb_optset *set, const char *name, double *out,
                  char *err, size_t errlen)
{
    double v = sb_optset_double(set, name);
    if (!isfinite(v) || v < 0)
        return fail(err, errlen, "invalid value for --%s: %s", name,
                    "expected a non-negative number");
    *out = v;
    return 0;
}

int sb_config_declare(struct sb_optset *set, char *err, size_t errlen)
{
    if (sb_optset_add_defs(set, sb_general_options, err, errlen) != 0 ||
        sb_optset_add_defs(set, sb_instance_options, err, errlen) != 0)
        return -1;
    /* sysbench 0.4/0.5 names, still found in old scripts and wrappers. */
    if (sb_optset_add_alias(set, "num-threads", "threads", err, errlen) != 0 ||
        sb_optset_add_alias(set, "max-time", "time", err, errlen) != 0 ||
        sb_optset_add_alias(set, "max-requests", "events", err, errlen) != 0)
        return -1;
    return 0;
}

/* --client-threads: a count, or auto (-1). */
static int load_client_threads(const struct sb_optset *set, struct sb_config *c, char *err,
                               size_t errlen)
{
    const char *v = sb_optset_str(set, "client-threads");
    char *end;
    unsigned long n;

    if (v == NULL || strcmp(v, "auto") == 0) {
        c->client_threads = -1;
        return 0;
    }
    errno = 0;
    n = strtoul(v, &end, 10);
    if (v[0] < '0' || v[0] > '9' || *end != '\0' || errno != 0 || n > 100000)
        return fail(err, errlen, "invalid value for --%s: %s", "client-threads",
                    "expected auto or a number of threads (0: one per connection)");
    c->client_threads = (int)n;
    return 0;
}

/* The run's extent: thread counts, limits, durations, repeats, rates,
 * percentiles and checkpoints, and what --find-max allows with them. */
static int load_limits(const struct sb_optset *set, struct sb_config *c, char *err,
                       size_t errlen)
{
    int64_t v;
    int autot = load_threads_auto(set, c, err, errlen);

    if (autot < 0 || (autot == 0 && load_uint_list(set, "threads", c->thread_list,
                                                  &c->nthread_list, 100000, err, errlen) != 0))
        return -1;
    v = sb_optset_int(set, "events");
    if (v < 0)
        return fail(err, errlen, "invalid value for --%s: %s", "events", "expected a non-negative integer");
    c->events_limit = (uint64_t)v;
    if (nonneg(set, "time", &c->time_limit, err, errlen) != 0 ||
        nonneg(set, "warmup-time", &c->warmup_time, err, errlen) != 0 ||
        nonneg(set, "report-interval", &c->report_interval, err, errlen) != 0 ||
        nonneg(set, "rate", &c->poisson_rate, err, errlen) != 0 ||
        nonneg(set, "tx-jitter", &c->tx_jitter_us, err, errlen) != 0 ||
        nonneg(set, "tx-spin", &c->tx_spin_us, err, errlen) != 0 ||
        nonneg(set, "sweep-cooldown", &c->sweep_cooldown, err, errlen) != 0 ||
        nonneg(set, "repeat-cooldown", &c->repeat_cooldown, err, errlen) != 0)
        return -1;
    v = sb_optset_int(set, "repeat");
    if (v < 1 || v > 1000)
        return fail(err, errlen, "invalid value for --%s: %s", "repeat",
                    "expected a whole number from 1 to 1000");
    c->repeat = (unsigned)v;
    c->find_max = sb_optset_bool(set, "find-max");
    if (load_sla(set, c, err, errlen) != 0 || load_budget(set, c, err, errlen) != 0)
        return -1;
    if (load_rates(set, err, errlen) != 0 || load_percentiles(set, err, errlen) != 0 ||
        load_checkpoints(set, err, errlen) != 0)
        return -1;
    /* SB_COMPAT=1.0: --tx-rate=N is 1.0.20's deprecated alias of --rate.
     * The list is emptied, not left holding a 0: a non-empty list means
     * fixed-rate points. */
    if (sb_compat10() && c->poisson_rate == 0 && c->ntx_rate_list == 1 && c->tx_rate_list[0] > 0) {
        c->poisson_rate = c->tx_rate_list[0];
        c->tx_rate_list[0] = 0;
        c->ntx_rate_list = 0;
    }
    /* --find-max chooses the rates itself, on one thread count. */
    if (c->find_max && (c->poisson_rate > 0 || c->ntx_rate_list > 1 ||
                        (c->ntx_rate_list == 1 && c->tx_rate_list[0] > 0) ||
                        c->nthread_list > 1))
        return fail(err, errlen, "%s %s", "--find-max",
                    "chooses the --tx-rate itself: give one --threads value and no --rate or --tx-rate");
    /* --threads=auto measures the closed loop's throughput. */
    if (c->threads_auto && (c->find_max || c->poisson_rate > 0 || c->ntx_rate_list > 1 ||
                            (c->ntx_rate_list == 1 && c->tx_rate_list[0] > 0)))
        return fail(err, errlen, "%s %s", "--threads=auto",
                    "searches the closed loop's peak: it takes no --rate, --tx-rate or --find-max");
    /* Intervals are labelled in whole seconds, and sysbench 1.0 takes an
     * integer here: a fraction would give labels like [ 2s ] [ 2s ]. */
    if (c->report_interval != floor(c->report_interval))
        return fail(err, errlen, "invalid value for --%s: %s", "report-interval",
                    "expected a whole number of seconds");
    return 0;
}

/* How the threads run: the late policy, the limits' consistency, stack
 * size, client threads, histogram and verbosity. */
static int load_threading(const struct sb_optset *set, struct sb_config *c,
                          bool allow_no_limit, char *err, size_t errlen)
{
    int64_t v;
    const char *s = sb_optset_str(set, "tx-late");

    if (s && strcmp(s, "catchup") == 0)
        c->late_policy = SB_LATE_CATCHUP;
    else if (s && strcmp(s, "skip") == 0)
        c->late_policy = SB_LATE_SKIP;
    else
        return fail(err, errlen, "invalid value '%s' for --%s: expected catchup or skip",
                    Q(s), "tx-late");
    if (c->poisson_rate > 0 && c->ntx_rate_list > 0 && c->tx_rate_list[0] > 0)
        return fail(err, errlen, "%s and %s cannot be used together", "--rate", "--tx-rate");
    if (c->time_limit == 0 && c->events_limit == 0 && !allow_no_limit)
        return fail(err, errlen, "%s%s", "--time=0 and --events=0 would run forever: set a limit",
                    "");

    v = sb_optset_int(set, "thread-stack-size");
    if (v != 0 && v < 65536)
        return fail(err, errlen, "invalid value for --%s: %s", "thread-stack-size",
                    "expected 0 or at least 64K");
    c->thread_stack_size = (size_t)v;
    /* SB_COMPAT=1.0: 1.0.20's default, 64K (its --help shows it). */
    if (sb_compat10() && !sb_optset_find(set, "thread-stack-size")->set)
        c->thread_stack_size = 65536;
    if (load_client_threads(set, c, err, errlen) != 0)
        return -1;
    c->histogram = sb_optset_bool(set, "histogram");
    c->per_statement = sb_optset_bool(set, "report-per-statement");
    v = sb_optset_int(set, "verbosity");
    if (v < 0 || v > 5)
        return fail(err, errlen, "invalid value for --%s: %s", "verbosity", "expected 0 to 5");
    c->verbosity = sb_optset_bool(set, "debug") ? 5 : (int)v;
    return 0;
}

/* The random distribution's parameters. */
static int load_rand(const struct sb_optset *set, struct sb_config *c, char *err,
                     size_t errlen)
{
    int64_t v;
    const char *s = sb_optset_str(set, "rand-type");

    sb_rand_params_default(&c->rand);
    if (!s || sb_rand_dist_parse(s, &c->rand.dist) != 0)
        return fail(err, errlen, "invalid value '%s' for --%s: expected uniform, gaussian, special, pareto or zipfian",
                    Q(s), "rand-type");
    v = sb_optset_int(set, "rand-spec-iter");
    if (v < 1 || v > 1000)
        return fail(err, errlen, "invalid value for --%s: %s", "rand-spec-iter", "expected 1 to 1000");
    c->rand.spec_iter = (int)v;
    c->rand.spec_pct = sb_optset_double(set, "rand-spec-pct");
    c->rand.spec_res = sb_optset_double(set, "rand-spec-res");
    if (!(c->rand.spec_pct >= 0 && c->rand.spec_pct <= 100))
        return fail(err, errlen, "invalid value for --%s: %s", "rand-spec-pct", "expected 0 to 100");
    if (!(c->rand.spec_res >= 0 && c->rand.spec_res <= 100))
        return fail(err, errlen, "invalid value for --%s: %s", "rand-spec-res", "expected 0 to 100");
    c->rand.pareto_h = sb_optset_double(set, "rand-pareto-h");
    if (!(c->rand.pareto_h > 0 && c->rand.pareto_h < 1))
        return fail(err, errlen, "invalid value for --%s: %s", "rand-pareto-h", "expected a number in (0, 1)");
    c->rand.zipf_exp = sb_optset_double(set, "rand-zipfian-exp");
    if (!(c->rand.zipf_exp >= 0))
        return fail(err, errlen, "invalid value for --%s: %s", "rand-zipfian-exp", "expected a non-negative number");
    return 0;
}

/* The seed and the instance settings, which the seed's origin affects,
 * then the pacing checks, which need the instance count. */
static int load_seed_and_instances(const struct sb_optset *set, struct sb_config *c,
                                   char *err, size_t errlen)
{
    int64_t v = sb_optset_int(set, "rand-seed");

    c->rand_seed_given = v != 0;
    /* sysbench 1.0: seed 0 means "from the current time". */
    c->rand_seed = v != 0 ? (uint64_t)v : (uint64_t)time(NULL);
    if (sb_instance_load(&c->instance, set, c->rand_seed_given, (double)time(NULL), err,
                         errlen) != 0)
        return -1;
    /* Each thread's period spans the connections of all instances. */
    for (size_t i = 0; i < c->ntx_rate_list; i++)
        for (size_t t = 0; t < c->nthread_list; t++) {
            if (c->tx_rate_list[i] > 0 &&
                sb_pacer_check(c->tx_rate_list[i], c->thread_list[t] * c->instance.count,
                               c->tx_jitter_us, err, errlen) != 0)
                return -1;
        }
    return 0;
}

/* The result and log files; an empty name means none. */
static int load_output_files(const struct sb_optset *set, struct sb_config *c, char *err,
                             size_t errlen)
{
    c->json_file = sb_optset_str(set, "json");
    c->csv_file = sb_optset_str(set, "csv");
    if (c->json_file != NULL && c->csv_file != NULL && *c->json_file &&
        strcmp(c->json_file, c->csv_file) == 0)
        return fail(err, errlen, "%s and %s name the same file", "--json", "--csv");

    c->hgrm_file = sb_optset_str(set, "hgrm");
    if (c->hgrm_file != NULL && *c->hgrm_file == '\0')
        c->hgrm_file = NULL;
    c->log_file = sb_optset_str(set, "log");
    if (c->log_file != NULL && *c->log_file == '\0')
        c->log_file = NULL;
    c->log_agg_s = sb_optset_double(set, "log-aggregate-interval");
    if (!(c->log_agg_s >= 0) || (c->log_agg_s > 0 && c->log_agg_s != floor(c->log_agg_s)))
        return fail(err, errlen, "invalid value for --%s: %s", "log-aggregate-interval",
                    "expected a whole number of seconds");
    if (c->log_agg_s > 0 && c->log_file == NULL)
        return fail(err, errlen, "--%s needs %s", "log-aggregate-interval", "--log=FILE");
    c->plot_file = sb_optset_str(set, "plot");
    if (c->plot_file != NULL && *c->plot_file == '\0')
        c->plot_file = NULL;
    c->metrics_listen = sb_optset_str(set, "metrics-listen");
    if (c->metrics_listen != NULL && *c->metrics_listen == '\0')
        c->metrics_listen = NULL;
    c->metrics_file = sb_optset_str(set, "metrics-file");
    if (c->metrics_file != NULL && *c->metrics_file == '\0')
        c->metrics_file = NULL;
    c->metrics_token = sb_optset_str(set, "metrics-token");
    if (c->metrics_token != NULL && *c->metrics_token == '\0')
        c->metrics_token = NULL;
    if (c->metrics_token != NULL && c->metrics_listen == NULL)
        return fail(err, errlen, "--%s needs %s", "metrics-token", "--metrics-listen=HOST:PORT");
    c->metrics_linger = sb_optset_double(set, "metrics-linger");
    if (!(c->metrics_linger >= 0 && c->metrics_linger <= 3600))
        return fail(err, errlen, "invalid value for --%s: %s", "metrics-linger",
                    "expected seconds from 0 to 3600");
    /* The metrics are the interval reports' figures. */
    if ((c->metrics_listen != NULL || c->metrics_file != NULL) && c->report_interval == 0)
        c->report_interval = 1;
    return 0;
}

/* --forced-shutdown, and a syntax check of --server-pid. */
static int load_shutdown_and_pids(const struct sb_optset *set, struct sb_config *c,
                                  char *err, size_t errlen)
{
    const char *s = sb_optset_str(set, "forced-shutdown");

    c->deadline_grace = sb_optset_double(set, "deadline-grace");
    if (!(c->deadline_grace >= 0 && c->deadline_grace <= 86400))
        return fail(err, errlen, "invalid value for --%s: %s", "deadline-grace",
                    "expected seconds from 0 to 86400");
    if (s == NULL || strcmp(s, "off") == 0) {
        c->forced_shutdown = 0;
    } else {
        double d;
        if (sb_parse_double(s, &d) != 0 || d < 0)
            return fail(err, errlen, "invalid value '%s' for --%s: expected seconds or off", Q(s),
                        "forced-shutdown");
        if (d > SB_OPT_MAX_SECONDS)
            return fail(err, errlen, "invalid value '%s' for --%s: expected at most 1000000000 seconds",
                        Q(s), "forced-shutdown");
        c->forced_shutdown = d;
    }
    /* A mistyped --server-pid must stop the run here, not turn into a
     * "server: not measured" line at the end of it. */
    s = sb_optset_str(set, "server-pid");
    if (s != NULL && *s != '\0') {
        pid_t pids[SB_CPU_MAX_SERVER_PIDS];
        char why[256];
        if (sb_cpu_parse_pid_list(s, pids, SB_CPU_MAX_SERVER_PIDS, why, sizeof(why)) < 0) {
            snprintf(err, errlen, "%s", why);
            return -1;
        }
    }
    return 0;
}

/* The groups load in this order, which decides which error a command
 * line with several mistakes reports. */
int sb_config_load(const struct sb_optset *set, bool allow_no_limit, char *err, size_t errlen)
{
    struct sb_config *c = &config;

    memset(c, 0, sizeof(*c));
    if (load_limits(set, c, err, errlen) != 0 ||
        load_threading(set, c, allow_no_limit, err, errlen) != 0 ||
        load_rand(set, c, err, errlen) != 0 ||
        load_seed_and_instances(set, c, err, errlen) != 0 ||
        load_output_files(set, c, err, errlen) != 0 ||
        load_shutdown_and_pids(set, c, err, errlen) != 0)
        return -1;
    return 0;
}
