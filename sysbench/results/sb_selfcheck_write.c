/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Text and JSON forms of the self-check; see sb_selfcheck_write.h.
 */
#include "results/sb_selfcheck_write.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "measure/sb_stats.h"

static const char *yes_no(bool b)
{
    return b ? "YES" : "no";
}

/* Prints a figure line: the label padded to the figures' column. */
#define FIG "        %-33s"

static void print_workers(const struct sb_selfcheck *c, FILE *out)
{
    if (isfinite(c->worker_busy_pct))
        fprintf(out, FIG "%.1f%% of their time on a CPU or waiting for one%s (flag at %.0f%%; "
                "CPU alone %.1f%% of the cores they could use, run-queue wait %.1f%%)\n",
                "client workers busy:", c->worker_busy_pct, c->cpu_bound ? " [high]" : "",
                100 * SB_SELFCHECK_CPU_SHARE, c->worker_cpu_pct, c->worker_wait_pct);
    else if (isfinite(c->worker_cpu_pct))
        fprintf(out, FIG "%.1f%% of the cores they could use%s (flag at %.0f%%)\n",
                "client workers' CPU:", c->worker_cpu_pct, c->cpu_bound ? " [high]" : "",
                100 * SB_SELFCHECK_CPU_SHARE);
    else
        fprintf(out, FIG "not measured\n", "client workers' CPU:");
}

/* Advice lines name the finding they belong to, as the flag list spells
 * it, so that each can be read against the verdict above it. */
#define ADVICE "        => "

static void print_client_advice(FILE *out)
{
    fprintf(out, ADVICE "client-bound: the client was short of CPU (or of loop threads) and could "
            "not start work it was free to start, so the figures measure the load generator as "
            "much as the server (lighter events, more CPUs or --client-threads for the client, "
            "or a faster client machine)\n");
}

static void print_client(const struct sb_selfcheck *c, FILE *out)
{
    fprintf(out, "    client-bound:                        %s\n",
            yes_no(c->flags & SB_SELFCHECK_CLIENT_BOUND));
    if (isfinite(c->client_late_pct))
        fprintf(out, FIG "%.3f ms mean after the connection was free (due and its previous "
                "transaction done); %.2f%% of starts later than %.3f ms (%.0f%% of the period)%s "
                "(flag above %.0f%% and %d starts, with the workers waiting for a CPU %.0f%% of "
                "their time or sharing loop threads)\n", "client's own start delay:",
                c->client_delay_mean_ms, c->client_late_pct,
                c->period_ms * SB_SELFCHECK_LAG_SHARE, 100 * SB_SELFCHECK_LAG_SHARE,
                c->client_late ? " [high]" : "", 100 * SB_SELFCHECK_LATE_SHARE,
                SB_SELFCHECK_MIN_LATE, 100 * SB_SELFCHECK_WAIT_SHARE);
    print_workers(c, out);
    if (isfinite(c->client_demand_pct))
        fprintf(out, FIG "%.1f%% of the cores the workers could use at the target rate%s "
                "(flag at %.0f%%)\n", "worker CPU needed:", c->client_demand_pct,
                c->demand_bound ? " [high]" : "", 100 * SB_SELFCHECK_CPU_SHARE);
    if (c->in_process)
        fprintf(out, FIG "the workload runs in the client's threads (an embedded database "
                "engine or a compiled-in test): their CPU is the workload's, so only a late "
                "start of a worker waiting for a CPU is the client's\n", "in-process workload:");
    if (c->flags & SB_SELFCHECK_CLIENT_BOUND)
        print_client_advice(out);
}

static void print_server_advice(const struct sb_selfcheck *c, FILE *out)
{
    switch (c->cause) {
    case SB_SELFCHECK_CAUSE_CONNECTIONS:
        if (c->flags & SB_SELFCHECK_CONTENTION)
            /* The machine was not the server's: what it would do alone is
             * not known yet, and the contention advice comes first. */
            fprintf(out, ADVICE "server-bound (too few connections): each was busy %.0f%% of its "
                    "time while the %s used little CPU, but others took the machine "
                    "(contention): rerun where nothing else competes; if it is still "
                    "server-bound there, run more connections (about --threads=%u) or lower "
                    "the rate\n", c->utilisation_pct,
                    c->in_process ? "in-process workload" : "server", c->suggest_threads);
        else
            fprintf(out, ADVICE "server-bound (too few connections): each was busy %.0f%% of its "
                    "time while the %s and the machine had CPU to spare at the target: run "
                    "more, about --threads=%u, or lower the rate\n", c->utilisation_pct,
                    c->in_process ? "in-process workload" : "server", c->suggest_threads);
        break;
    case SB_SELFCHECK_CAUSE_SERVER:
        fprintf(out, ADVICE "server-bound (the server): the server is the limit at this rate: "
                "%s; more connections will not carry this rate\n", c->in_process
                ? "the in-process workload's CPU per transaction at the target needs 80% or "
                  "more of the machine"
                : "its CPU, scaled to the target rate, needs 80% or more of the machine");
        break;
    case SB_SELFCHECK_CAUSE_MACHINE:
        fprintf(out, ADVICE "server-bound (the machine): each connection was busy %.0f%% of its "
                "time; the %s alone would have had CPU to spare, but with the client the "
                "machine was %.1f%% busy (client %.1f%%): more connections would add client "
                "CPU to a saturated machine: run the client on another host, or lower the "
                "rate\n", c->utilisation_pct,
                c->in_process ? "in-process workload" : "server", c->machine_cpu_pct,
                isfinite(c->client_cpu_pct) ? c->client_cpu_pct : 0);
        break;
    default:
        fprintf(out, ADVICE "server-bound (cause unknown): each connection was busy %.0f%% of "
                "its time; the server's CPU was not measured: if it is not saturated, run more "
                "connections (about --threads=%u), otherwise the server is the limit\n",
                c->utilisation_pct, c->suggest_threads);
    }
}

static void print_server(const struct sb_selfcheck *c, FILE *out)
{
    if (!isfinite(c->period_ms)) {
        fprintf(out, "    server-bound:                        not judged (closed loop: no "
                "target rate)\n");
        return;
    }
    fprintf(out, "    server-bound:                        %s\n",
            yes_no(c->flags & SB_SELFCHECK_SERVER_BOUND));
    fprintf(out, FIG "%.3f ms mean x %.2f tx/s per connection = %.1f%% busy%s (flag at "
            "%.0f%%)\n", "connection utilisation:", c->service_mean_ms, 1000.0 / c->period_ms,
            c->utilisation_pct, c->utilisation_pct >= 100 * SB_SELFCHECK_UTIL_SHARE ? " [high]"
            : "", 100 * SB_SELFCHECK_UTIL_SHARE);
    fprintf(out, FIG "%.2f%% of target%s (flag below %.0f%%)\n", "achieved rate:",
            c->achieved_pct, c->rate_short ? " [short]" : "", 100 * SB_SELFCHECK_RATE_SHARE);
    fprintf(out, FIG "%.3f ms, %.1f%% of the %.3f ms period (waiting behind slow "
            "transactions included; evidence, not a flag by itself)\n", "start lag p99:",
            c->lag_p99_ms, c->lag_pct_of_period, c->period_ms);
    if (isfinite(c->client_tx_pct))
        fprintf(out, FIG "%.1f%% of the service time (the server's part is the rest; "
                "server-bound needs under %.0f%%%s)\n", "client busy per transaction:",
                c->client_tx_pct, 100 * SB_SELFCHECK_CLIENT_TX_SHARE,
                c->in_process ? ", not applied to an in-process workload" : "");
    if (c->flags & SB_SELFCHECK_SERVER_BOUND)
        print_server_advice(c, out);
}

static void print_contention_advice(const struct sb_selfcheck *c, FILE *out)
{
    fprintf(out, ADVICE "contention: other processes took most of the machine's CPU and the run "
            "was held up (%s): its figures measure the shared machine; run where nothing "
            "else competes\n", isfinite(c->worker_wait_pct) &&
            c->worker_wait_pct >= 100 * SB_SELFCHECK_WAIT_SHARE
            ? "its workers waited for a CPU" : "it fell behind its schedule");
}

static void print_contention(const struct sb_selfcheck *c, FILE *out)
{
    char server[32];

    fprintf(out, "    contention:                          %s\n",
            yes_no(c->flags & SB_SELFCHECK_CONTENTION));
    if (!isfinite(c->other_cpu_pct)) {
        fprintf(out, FIG "not measured\n", "machine CPU:");
        return;
    }
    if (isfinite(c->server_cpu_pct))
        snprintf(server, sizeof(server), "%.1f%%", c->server_cpu_pct);
    else
        snprintf(server, sizeof(server), "not measured");
    fprintf(out, FIG "%.1f%% busy: client %.1f%%, server %s, others %.1f%%%s (flag when others "
            "use %.0f%% or more and the run shows an effect)\n", "machine CPU:",
            c->machine_cpu_pct, isfinite(c->client_cpu_pct) ? c->client_cpu_pct : 0, server,
            c->other_cpu_pct, c->others_dominant ? " [high]" : "", 100 * SB_SELFCHECK_OTHER_SHARE);
    if (c->flags & SB_SELFCHECK_CONTENTION)
        print_contention_advice(c, out);
}

static void print_wake_advice(const struct sb_selfcheck *c, FILE *out)
{
    fprintf(out, ADVICE "late wake-ups: the kernel woke idle workers late (wake-up delay p99 "
            "%.3f ms, %.0f%% of the response p99): the figures include this machine's timer "
            "and scheduler latency, not the server's; --tx-spin=%u busy-waits the last %u us "
            "before each start instead (costs client CPU), or run the client where wake-ups "
            "are prompt (an idle or bare-metal host)\n", c->wake_p99_ms,
            isfinite(c->wake_of_response_pct) ? c->wake_of_response_pct : 0,
            sb_selfcheck_spin_us(c), sb_selfcheck_spin_us(c));
}

static void print_wake(const struct sb_selfcheck *c, FILE *out)
{
    if (!isfinite(c->period_ms)) {
        fprintf(out, "    late wake-ups:                       not judged (closed loop: no "
                "schedule)\n");
        return;
    }
    fprintf(out, "    late wake-ups:                       %s\n",
            yes_no(c->flags & SB_SELFCHECK_LATE_WAKEUPS));
    if (!isfinite(c->wake_p99_ms)) {
        fprintf(out, FIG "none measured (no start found its connection idle)\n",
                "wake-up delay:");
        return;
    }
    fprintf(out, FIG "p99 %.3f ms after the due time of an idle connection; %.2f%% of its "
            "starts later than %.1f ms%s (flag above %.1f ms, this machine type's normal tail, "
            "and %d starts)\n", "wake-up delay:", c->wake_p99_ms, c->wake_late_pct,
            SB_SELFCHECK_WAKE_P99_MS, c->wake_high ? " [high]" : "", SB_SELFCHECK_WAKE_P99_MS,
            SB_SELFCHECK_MIN_LATE);
    fprintf(out, FIG "%.1f%% of the response p99 (%.3f ms), %.1f%% of the start lag p99%s "
            "(flag at %.0f%% of the response p99, or %.0f%% of a lag p99 above %.0f%% of the "
            "period)\n", "its share of the figures:",
            isfinite(c->wake_of_response_pct) ? c->wake_of_response_pct : 0, c->response_p99_ms,
            isfinite(c->wake_of_lag_pct) ? c->wake_of_lag_pct : 0,
            c->wake_moves ? " [moves them]" : "", 100 * SB_SELFCHECK_WAKE_RESPONSE,
            100 * SB_SELFCHECK_WAKE_LAG, 100 * SB_SELFCHECK_LAG_SHARE);
    if (c->flags & SB_SELFCHECK_LATE_WAKEUPS)
        print_wake_advice(c, out);
}

static void print_trend_advice(const struct sb_trend *t, FILE *out)
{
    if (t->verdict == SB_TREND_UNDECIDED)
        fprintf(out, ADVICE "stationarity undecided (not a flag): the throughput changed "
                "%+.1f%% over the run but not significantly: the series is too noisy or short "
                "to tell; run longer to know\n", t->change_pct);
    if (t->flagged)
        fprintf(out, ADVICE "not stationary: throughput drifted during the run: lengthen "
                "--warmup-time (the server may still be warming caches) or the run\n");
}

static void print_trend(const struct sb_trend *t, FILE *out)
{
    if (t->verdict == SB_TREND_TOO_FEW) {
        fprintf(out, "    stationary:                          not enough evidence (%zu sample%s "
                "of 1 s after warmup; %d needed: run at least %d s)\n", t->n,
                t->n == 1 ? "" : "s", SB_SELFCHECK_MIN_INTERVALS, SB_SELFCHECK_MIN_INTERVALS);
        return;
    }
    fprintf(out, "    stationary:                          %s (fitted throughput change %+.1f%% "
            "of the mean over %zu samples of 1 s, t = %.2f, significant at 95%% beyond +-%.2f; "
            "flagged when significant and %.0f%% or more)\n",
            t->verdict == SB_TREND_DRIFT ? "NO" : t->verdict == SB_TREND_UNDECIDED
            ? "not enough evidence" : "yes", t->change_pct, t->n,
            isfinite(t->t) ? t->t : copysign(999.99, t->t), t->t_crit,
            100 * SB_SELFCHECK_MIN_CHANGE);
    print_trend_advice(t, out);
}

static void print_error_advice(const struct sb_selfcheck *c, FILE *out)
{
    fprintf(out, ADVICE "error-dominated: ignored errors were %.2f%% of transactions (flag above "
            "%.0f%%): the figures measure retries as much as the workload\n", c->error_pct,
            100 * SB_SELFCHECK_ERROR_SHARE);
}

void sb_selfcheck_print(const struct sb_selfcheck *c, const struct sb_selfcheck_figures *f,
                        FILE *out)
{
    char flags[128];

    fprintf(out, "Self-check:\n");
    print_client(c, out);
    print_server(c, out);
    print_contention(c, out);
    print_wake(c, out);
    print_trend(&c->trend, out);
    fprintf(out, "    error-dominated:                     %s (ignored errors %.2f%% of "
            "transactions; flag above %.0f%%)\n", yes_no(c->flags & SB_SELFCHECK_ERROR_DOMINATED),
            c->error_pct, 100 * SB_SELFCHECK_ERROR_SHARE);
    if (c->flags & SB_SELFCHECK_ERROR_DOMINATED)
        print_error_advice(c, out);
    if (c->flags == 0) {
        fprintf(out, "    result:                              OK\n\n");
        fflush(out);
        return;
    }
    sb_selfcheck_flag_names(c->flags, flags, sizeof(flags));
    fprintf(out, "    result:                              FLAGGED [%s]\n", flags);
    fprintf(out, "        throughput:                      %.2f per sec. [%s]\n", f->tps, flags);
    fprintf(out, "        latency p95/p99 (ms):            %.2f/%.2f [%s]\n\n", f->p95_ms,
            f->p99_ms, flags);
    fflush(out);
}

void sb_selfcheck_print_brief(const struct sb_selfcheck *c, FILE *out)
{
    char flags[128];

    if (c->flags == 0) {
        /* OK on too little evidence says so: the trend was not tested. */
        if (c->trend.verdict == SB_TREND_TOO_FEW)
            fprintf(out, "    self-check:                          OK (stationarity not tested: "
                    "%zu of %d samples of 1 s; run at least %d s)\n", c->trend.n,
                    SB_SELFCHECK_MIN_INTERVALS, SB_SELFCHECK_MIN_INTERVALS);
        else
            fprintf(out, "    self-check:                          OK\n");
        print_trend_advice(&c->trend, out);
        return;
    }
    sb_selfcheck_flag_names(c->flags, flags, sizeof(flags));
    fprintf(out, "    self-check:                          FLAGGED [%s]\n", flags);
    if (c->flags & SB_SELFCHECK_CLIENT_BOUND)
        print_client_advice(out);
    if (c->flags & SB_SELFCHECK_SERVER_BOUND)
        print_server_advice(c, out);
    if (c->flags & SB_SELFCHECK_CONTENTION)
        print_contention_advice(c, out);
    if (c->flags & SB_SELFCHECK_LATE_WAKEUPS)
        print_wake_advice(c, out);
    print_trend_advice(&c->trend, out);
    if (c->flags & SB_SELFCHECK_ERROR_DOMINATED)
        print_error_advice(c, out);
}

void sb_selfcheck_print_run(const struct sb_selfcheck *c, const struct sb_stats *total, double t,
                            FILE *out)
{
    struct sb_selfcheck_figures f;

    f.tps = t > 0 ? (double)total->c[SB_STAT_EVENTS] / t : 0;
    f.p95_ms = (double)sb_hist_percentile(&total->response, 95) / 1e6;
    f.p99_ms = (double)sb_hist_percentile(&total->response, 99) / 1e6;
    sb_selfcheck_print(c, &f, out);
}

static void json_flags(struct sb_json *j, unsigned flags)
{
    sb_json_key(j, "flags");
    sb_json_begin_array_inline(j);
    if (flags & SB_SELFCHECK_CLIENT_BOUND)
        sb_json_string(j, "client-bound");
    if (flags & SB_SELFCHECK_SERVER_BOUND)
        sb_json_string(j, "server-bound");
    if (flags & SB_SELFCHECK_CONTENTION)
        sb_json_string(j, "contention");
    if (flags & SB_SELFCHECK_LATE_WAKEUPS)
        sb_json_string(j, "late-wakeups");
    if (flags & SB_SELFCHECK_NOT_STATIONARY)
        sb_json_string(j, "not-stationary");
    if (flags & SB_SELFCHECK_ERROR_DOMINATED)
        sb_json_string(j, "error-dominated");
    sb_json_end_array(j);
}

static void json_trend(struct sb_json *j, const struct sb_trend *t, const double *tps,
                       size_t ntps, double sample_s)
{
    sb_json_key(j, "stationarity");
    sb_json_begin_object(j);
    sb_json_kv_bool(j, "flagged", t->flagged);
    sb_json_kv_string(j, "verdict", sb_selfcheck_trend_name(t->verdict));
    sb_json_kv_bool(j, "tested", t->tested);
    sb_json_kv_uint(j, "samples", t->n);
    sb_json_kv_double(j, "sample_s", sample_s);
    sb_json_kv_double(j, "mean_tps", t->n ? t->mean : NAN);
    sb_json_kv_double(j, "slope_tps_per_s", t->n > 2 ? t->slope : NAN);
    sb_json_kv_double(j, "change_pct", t->n > 2 ? t->change_pct : NAN);
    sb_json_kv_double(j, "t", t->n > 2 && isfinite(t->t) ? t->t : NAN);
    sb_json_kv_double(j, "t_crit", isfinite(t->t_crit) ? t->t_crit : NAN);
    sb_json_kv_bool(j, "significant", t->significant);
    sb_json_key(j, "tps");
    sb_json_begin_array_inline(j);
    for (size_t i = 0; tps != NULL && i < ntps; i++)
        sb_json_double(j, tps[i]);
    sb_json_end_array(j);
    sb_json_end_object(j);
}

/* A figure of struct sb_selfcheck written under its member's name: the
 * sections below are lists of these, in the order the file shows them. */
struct sc_field {
    const char *key;
    size_t off;   /* of the member in struct sb_selfcheck */
    bool is_bool; /* a bool member, else a double */
};

#define SC_DOUBLE(m) { #m, offsetof(struct sb_selfcheck, m), false }
#define SC_BOOL(m) { #m, offsetof(struct sb_selfcheck, m), true }

static const struct sc_field client_fields[] = {
    SC_BOOL(in_process), SC_DOUBLE(client_delay_mean_ms), SC_DOUBLE(client_late_pct),
    SC_BOOL(client_late), SC_BOOL(wait_high), SC_DOUBLE(worker_cpu_pct), SC_DOUBLE(worker_busy_pct),
    SC_DOUBLE(worker_wait_pct), SC_BOOL(cpu_bound), SC_DOUBLE(client_demand_pct),
    SC_BOOL(demand_bound), { NULL, 0, false }
};

static const struct sc_field server_fields[] = {
    SC_DOUBLE(period_ms), SC_DOUBLE(service_mean_ms), SC_DOUBLE(utilisation_pct),
    SC_DOUBLE(client_tx_pct), SC_DOUBLE(lag_p99_ms), SC_DOUBLE(lag_pct_of_period),
    SC_BOOL(lag_bound), SC_DOUBLE(achieved_pct), SC_BOOL(rate_short), { NULL, 0, false }
};

static const struct sc_field wake_fields[] = {
    SC_DOUBLE(wake_p99_ms), SC_DOUBLE(wake_late_pct), SC_BOOL(wake_high),
    SC_DOUBLE(response_p99_ms), SC_DOUBLE(wake_of_response_pct), SC_DOUBLE(wake_of_lag_pct),
    SC_BOOL(wake_moves), { NULL, 0, false }
};

static const struct sc_field contention_fields[] = {
    SC_DOUBLE(machine_cpu_pct), SC_DOUBLE(client_cpu_pct), SC_DOUBLE(server_cpu_pct),
    SC_DOUBLE(other_cpu_pct), SC_BOOL(others_dominant), { NULL, 0, false }
};

/* Opens the object of a section: its key, then whether it is flagged. */
static void json_section(struct sb_json *j, const char *key, const struct sb_selfcheck *c,
                         unsigned flag)
{
    sb_json_key(j, key);
    sb_json_begin_object(j);
    sb_json_kv_bool(j, "flagged", (c->flags & flag) != 0);
}

/* The members of c that f lists (up to its NULL key). */
static void json_fields(struct sb_json *j, const struct sb_selfcheck *c,
                        const struct sc_field *f)
{
    for (; f->key != NULL; f++) {
        const char *m = (const char *)c + f->off;
        if (f->is_bool)
            sb_json_kv_bool(j, f->key, *(const bool *)m);
        else
            sb_json_kv_double(j, f->key, *(const double *)m);
    }
}

static void json_server(struct sb_json *j, const struct sb_selfcheck *c)
{
    json_section(j, "server_bound", c, SB_SELFCHECK_SERVER_BOUND);
    if (c->flags & SB_SELFCHECK_SERVER_BOUND)
        sb_json_kv_string(j, "cause", sb_selfcheck_cause_name(c->cause));
    else
        sb_json_kv_null(j, "cause");
    if (c->suggest_threads > 0)
        sb_json_kv_uint(j, "suggest_threads", c->suggest_threads);
    else
        sb_json_kv_null(j, "suggest_threads");
    json_fields(j, c, server_fields);
    sb_json_end_object(j);
}

static void json_thresholds(struct sb_json *j)
{
    /* count: written as an integer, as the constant is one. */
    const struct {
        const char *key;
        double v;
        bool count;
    } t[] = {
        { "worker_busy_pct", 100 * SB_SELFCHECK_CPU_SHARE, false },
        { "client_demand_pct", 100 * SB_SELFCHECK_CPU_SHARE, false },
        { "client_late_of_period_pct", 100 * SB_SELFCHECK_LAG_SHARE, false },
        { "client_late_pct", 100 * SB_SELFCHECK_LATE_SHARE, false },
        { "min_late_starts", SB_SELFCHECK_MIN_LATE, true },
        { "lag_pct_of_period", 100 * SB_SELFCHECK_LAG_SHARE, false },
        { "achieved_pct", 100 * SB_SELFCHECK_RATE_SHARE, false },
        { "utilisation_pct", 100 * SB_SELFCHECK_UTIL_SHARE, false },
        { "client_tx_pct", 100 * SB_SELFCHECK_CLIENT_TX_SHARE, false },
        { "server_saturated_pct", 100 * SB_SELFCHECK_SERVER_SAT, false },
        { "other_cpu_pct", 100 * SB_SELFCHECK_OTHER_SHARE, false },
        { "worker_wait_pct", 100 * SB_SELFCHECK_WAIT_SHARE, false },
        { "wake_p99_ms", SB_SELFCHECK_WAKE_P99_MS, false },
        { "wake_of_response_pct", 100 * SB_SELFCHECK_WAKE_RESPONSE, false },
        { "wake_of_lag_pct", 100 * SB_SELFCHECK_WAKE_LAG, false },
        { "change_pct", 100 * SB_SELFCHECK_MIN_CHANGE, false },
        { "min_samples", SB_SELFCHECK_MIN_INTERVALS, true },
        { "ignored_pct", 100 * SB_SELFCHECK_ERROR_SHARE, false },
    };

    sb_json_key(j, "thresholds");
    sb_json_begin_object(j);
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        if (t[i].count)
            sb_json_kv_uint(j, t[i].key, (uint64_t)t[i].v);
        else
            sb_json_kv_double(j, t[i].key, t[i].v);
    }
    sb_json_end_object(j);
}

void sb_selfcheck_json(struct sb_json *j, const struct sb_selfcheck *c, const double *tps,
                       size_t ntps, double sample_s)
{
    sb_json_key(j, "selfcheck");
    sb_json_begin_object(j);
    sb_json_kv_bool(j, "ok", c->flags == 0);
    json_flags(j, c->flags);
    json_section(j, "client_bound", c, SB_SELFCHECK_CLIENT_BOUND);
    json_fields(j, c, client_fields);
    sb_json_end_object(j);
    json_server(j, c);
    json_section(j, "contention", c, SB_SELFCHECK_CONTENTION);
    json_fields(j, c, contention_fields);
    sb_json_end_object(j);
    json_section(j, "late_wakeups", c, SB_SELFCHECK_LATE_WAKEUPS);
    if (c->flags & SB_SELFCHECK_LATE_WAKEUPS)
        sb_json_kv_uint(j, "suggest_tx_spin_us", sb_selfcheck_spin_us(c));
    else
        sb_json_kv_null(j, "suggest_tx_spin_us");
    json_fields(j, c, wake_fields);
    sb_json_end_object(j);
    json_trend(j, &c->trend, tps, ntps, sample_s);
    json_section(j, "errors", c, SB_SELFCHECK_ERROR_DOMINATED);
    sb_json_kv_double(j, "ignored_pct", c->error_pct);
    sb_json_end_object(j);
    json_thresholds(j);
    sb_json_end_object(j);
}
