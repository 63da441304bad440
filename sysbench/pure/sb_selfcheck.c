/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The run's check of itself; see sb_selfcheck.h.
 */
#include "pure/sb_selfcheck.h"
#include "pure/sb_ci.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

double sb_selfcheck_t95(unsigned df)
{
    return df == 0 ? INFINITY : sb_ci_t_quantile(0.975, (double)df);
}

void sb_selfcheck_trend(const double *y, size_t n, double dt, struct sb_trend *out)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0, sse = 0, xm, ym, b, a, se;

    memset(out, 0, sizeof(*out));
    out->n = n;
    out->t_crit = n > 2 ? sb_selfcheck_t95((unsigned)(n - 2)) : INFINITY;
    if (n == 0)
        return;
    for (size_t i = 0; i < n; i++) {
        sx += (double)i;
        sy += y[i];
    }
    xm = sx / (double)n;
    ym = sy / (double)n;
    out->mean = ym;
    if (n < 3)
        return;
    for (size_t i = 0; i < n; i++) {
        double dx = (double)i - xm;
        sxx += dx * dx;
        sxy += dx * (y[i] - ym);
    }
    b = sxy / sxx;
    a = ym - b * xm;
    for (size_t i = 0; i < n; i++) {
        double r = y[i] - (a + b * (double)i);
        sse += r * r;
    }
    se = sqrt(sse / (double)(n - 2) / sxx);
    out->slope = dt > 0 ? b / dt : b;
    /* A perfectly straight series has no error: its trend is certain. */
    out->t = se > 0 ? b / se : b != 0 ? copysign(INFINITY, b) : 0;
    out->change_pct = ym != 0 ? 100.0 * b * (double)(n - 1) / ym : 0;
    out->significant = fabs(out->t) > out->t_crit;
    out->tested = n >= SB_SELFCHECK_MIN_INTERVALS;
    out->flagged = out->tested && out->significant &&
                   fabs(out->change_pct) >= 100.0 * SB_SELFCHECK_MIN_CHANGE;
    /* A large change that is not significant is no evidence of
     * stationarity: the series is too noisy or too short to tell. */
    out->verdict = !out->tested ? SB_TREND_TOO_FEW
                   : fabs(out->change_pct) < 100.0 * SB_SELFCHECK_MIN_CHANGE ? SB_TREND_STATIONARY
                   : out->significant ? SB_TREND_DRIFT : SB_TREND_UNDECIDED;
}

bool sb_selfcheck_error_dominated(uint64_t errors, uint64_t events)
{
    return errors > 0 && (double)errors > SB_SELFCHECK_ERROR_SHARE * (double)events;
}

/* The worker threads' CPU and run-queue figures. */
static void check_workers(const struct sb_selfcheck_in *in, unsigned nos, unsigned cores,
                          struct sb_selfcheck *out)
{
    out->worker_cpu_pct = out->worker_busy_pct = out->worker_wait_pct = NAN;
    if (in->worker_cpu_s < 0 || in->wall_s <= 0 || cores == 0)
        return;
    out->worker_cpu_pct = 100.0 * in->worker_cpu_s / (in->wall_s * cores);
    out->cpu_bound = out->worker_cpu_pct >= 100.0 * SB_SELFCHECK_CPU_SHARE;
    /* A thread kept off the CPU by other work is as busy as one on it:
     * on a shared machine CPU time alone would miss it. */
    if (in->worker_wait_s >= 0) {
        out->worker_busy_pct = 100.0 * (in->worker_cpu_s + in->worker_wait_s) /
                               (in->wall_s * nos);
        out->worker_wait_pct = 100.0 * in->worker_wait_s / (in->wall_s * nos);
        out->cpu_bound = out->worker_busy_pct >= 100.0 * SB_SELFCHECK_CPU_SHARE;
    }
    /* Closed loop has no target: the client's own CPU alone at the share
     * is its demand (it would use more). */
    if (in->rate_mode == SB_PACE_NONE)
        out->demand_bound = out->worker_cpu_pct >= 100.0 * SB_SELFCHECK_CPU_SHARE;
}

/* The wake-up delay against the machine's normal tail and the figures it
 * would move (rate modes, events > 0; the lag figures are set). */
static void check_wake(const struct sb_selfcheck_in *in, struct sb_selfcheck *out)
{
    out->response_p99_ms = in->response_p99_s * 1000.0;
    if (in->wakeups == 0)
        return;
    out->wake_p99_ms = in->wake_p99_s * 1000.0;
    out->wake_late_pct = 100.0 * (double)in->wake_late / (double)in->wakeups;
    out->wake_high = out->wake_p99_ms > SB_SELFCHECK_WAKE_P99_MS &&
                     in->wake_late >= SB_SELFCHECK_MIN_LATE;
    if (out->response_p99_ms > 0)
        out->wake_of_response_pct = 100.0 * out->wake_p99_ms / out->response_p99_ms;
    if (out->lag_p99_ms > 0)
        out->wake_of_lag_pct = 100.0 * out->wake_p99_ms / out->lag_p99_ms;
    /* The response time includes the lag: a wake-up tail that is a tenth
     * of it shows in the percentiles a user reads. A lag p99 under a
     * tenth of the period is no figure anyone acts on. */
    out->wake_moves = out->wake_of_response_pct >= 100.0 * SB_SELFCHECK_WAKE_RESPONSE ||
                      (out->lag_bound &&
                       out->wake_of_lag_pct >= 100.0 * SB_SELFCHECK_WAKE_LAG);
}

/* The rate modes' figures: schedule, service, the client's own delay. */
static void check_rate(const struct sb_selfcheck_in *in, unsigned cores, struct sb_selfcheck *out)
{
    double ev = (double)in->events;
    uint64_t late;

    out->period_ms = out->lag_p99_ms = out->lag_pct_of_period = out->achieved_pct = NAN;
    out->service_mean_ms = out->utilisation_pct = out->client_tx_pct = NAN;
    out->client_delay_mean_ms = out->client_late_pct = out->client_demand_pct = NAN;
    out->wake_p99_ms = out->wake_late_pct = out->response_p99_ms = NAN;
    out->wake_of_response_pct = out->wake_of_lag_pct = NAN;
    if (in->rate_mode == SB_PACE_NONE || in->target_tps <= 0 || in->threads == 0)
        return;
    out->period_ms = 1000.0 * in->threads / in->target_tps;
    out->lag_p99_ms = in->lag_p99_s * 1000.0;
    out->lag_pct_of_period = 100.0 * out->lag_p99_ms / out->period_ms;
    out->lag_bound = out->lag_pct_of_period > 100.0 * SB_SELFCHECK_LAG_SHARE;
    out->achieved_pct = 100.0 * in->achieved_tps / in->target_tps;
    out->rate_short = out->achieved_pct < 100.0 * SB_SELFCHECK_RATE_SHARE;
    if (in->events == 0)
        return;
    out->service_mean_ms = in->service_mean_s * 1000.0;
    out->utilisation_pct = 100.0 * in->service_mean_s * in->target_tps / in->threads;
    out->client_delay_mean_ms = 1000.0 * in->client_delay_s / ev;
    /* An embedded engine's worker that is behind its schedule goes from
     * one transaction to the next: a gap between them is the engine's
     * thread preempted, or its own bookkeeping, not a start the client
     * failed to make. Only an idle worker's late start can be the
     * client's (a sanitizer's slower client turned a saturated SQLite
     * into client-bound). */
    late = in->in_process ? in->idle_late : in->client_late;
    out->client_late_pct = 100.0 * (double)late / ev;
    out->client_late = out->client_late_pct > 100.0 * SB_SELFCHECK_LATE_SHARE &&
                       late >= SB_SELFCHECK_MIN_LATE;
    check_wake(in, out);
    if (in->worker_cpu_s >= 0 && cores > 0) {
        out->client_demand_pct = 100.0 * in->worker_cpu_s / ev * in->target_tps / cores;
        out->demand_bound = out->client_demand_pct >= 100.0 * SB_SELFCHECK_CPU_SHARE;
        if (in->service_mean_s > 0)
            out->client_tx_pct = 100.0 * (in->worker_cpu_s + fmax(in->worker_wait_s, 0)) / ev /
                                 in->service_mean_s;
    }
}

/* Who else used the machine. */
static void check_machine(const struct sb_selfcheck_in *in, struct sb_selfcheck *out)
{
    out->client_cpu_pct = in->client_cpu_pct;
    out->server_cpu_pct = in->server_cpu_pct;
    out->machine_cpu_pct = in->machine_cpu_pct;
    out->other_cpu_pct = NAN;
    if (!isfinite(in->machine_cpu_pct))
        return;
    /* A server not measured (remote, embedded, not found) counts as
     * nothing: a local one not found is then counted among the others. */
    out->other_cpu_pct = fmax(0, in->machine_cpu_pct -
                                     (isfinite(in->client_cpu_pct) ? in->client_cpu_pct : 0) -
                                     (isfinite(in->server_cpu_pct) ? in->server_cpu_pct : 0));
    out->others_dominant = out->other_cpu_pct >= 100.0 * SB_SELFCHECK_OTHER_SHARE;
}

/* What would lift a server-bound run's limit, and how many connections
 * would keep each at SB_SELFCHECK_TARGET_UTIL. The server's CPU is scaled
 * from the rate achieved to the target: what the target would need. */
static void server_cause(const struct sb_selfcheck_in *in, unsigned cores,
                         struct sb_selfcheck *out)
{
    double scale = in->achieved_tps > 0 ? in->target_tps / in->achieved_tps : 1;
    double want;

    if (in->in_process)
        /* The engine works in the workers: their CPU per transaction at
         * the target, as a share of the whole machine. */
        out->cause = isfinite(out->client_demand_pct) && in->ncpus > 0 &&
                     out->client_demand_pct * cores / in->ncpus >= 100.0 * SB_SELFCHECK_SERVER_SAT
                     ? SB_SELFCHECK_CAUSE_SERVER : SB_SELFCHECK_CAUSE_CONNECTIONS;
    else if (isfinite(in->server_cpu_pct))
        out->cause = in->server_cpu_pct * scale >= 100.0 * SB_SELFCHECK_SERVER_SAT
                     ? SB_SELFCHECK_CAUSE_SERVER : SB_SELFCHECK_CAUSE_CONNECTIONS;
    else
        out->cause = SB_SELFCHECK_CAUSE_UNKNOWN;
    /* A measured server with CPU to spare on a machine the client and the server saturate
     * between them could not have used it: more connections would add
     * client CPU to the same CPUs. (When others took the machine, that is
     * contention, which the advice then names first.) */
    if (out->cause == SB_SELFCHECK_CAUSE_CONNECTIONS && !in->in_process &&
        isfinite(in->machine_cpu_pct) &&
        in->machine_cpu_pct >= 100.0 * SB_SELFCHECK_SERVER_SAT && !out->others_dominant)
        out->cause = SB_SELFCHECK_CAUSE_MACHINE;
    want = in->threads * out->utilisation_pct / (100.0 * SB_SELFCHECK_TARGET_UTIL);
    out->suggest_threads = out->cause == SB_SELFCHECK_CAUSE_SERVER ||
                           out->cause == SB_SELFCHECK_CAUSE_MACHINE ? 0
                           : isfinite(want) && want > in->threads ? (unsigned)ceil(want)
                           : in->threads + 1;
}

static void judge_load(const struct sb_selfcheck_in *in, struct sb_selfcheck *out)
{
    /* The OS threads that run the connections (fewer when multiplexed). */
    unsigned nos = in->os_threads > 0 ? in->os_threads : in->threads;
    unsigned cores = nos < in->ncpus ? nos : in->ncpus;
    bool rated = in->rate_mode != SB_PACE_NONE && in->target_tps > 0;
    bool util_high, contention, client, server, late_cpu;

    out->in_process = in->in_process;
    check_workers(in, nos, cores, out);
    check_rate(in, cores, out);
    check_machine(in, out);
    util_high = out->utilisation_pct >= 100.0 * SB_SELFCHECK_UTIL_SHARE;
    contention = out->others_dominant &&
                 (out->cpu_bound || out->client_late || out->demand_bound || out->lag_bound ||
                  out->rate_short || util_high ||
                  out->worker_wait_pct >= 100.0 * SB_SELFCHECK_WAIT_SHARE);
    /* Late starts are the client's when its workers waited for a CPU, or
     * when connections share loop threads (--client-threads): a loop
     * thread held by another connection is the client's too. Otherwise
     * they are the kernel's late wake-ups. */
    out->wait_high = out->worker_wait_pct >= 100.0 * SB_SELFCHECK_WAIT_SHARE;
    late_cpu = out->client_late && (out->wait_high || nos < in->threads);
    /* An embedded engine's work is in the workers' CPU: only a late start
     * of an idle worker that waited for a CPU is the client's. Under
     * contention, lateness and a run-queue wait are the others' doing;
     * the client's own demand for CPU is still its own. */
    if (in->in_process)
        client = late_cpu && !contention;
    else
        client = out->demand_bound || (!contention && (out->cpu_bound || late_cpu));
    server = rated && !client && (util_high || out->rate_short) &&
             (in->in_process ||
              !(out->client_tx_pct >= 100.0 * SB_SELFCHECK_CLIENT_TX_SHARE));
    if (client)
        out->flags |= SB_SELFCHECK_CLIENT_BOUND;
    if (server) {
        out->flags |= SB_SELFCHECK_SERVER_BOUND;
        server_cause(in, cores, out);
    }
    if (contention)
        out->flags |= SB_SELFCHECK_CONTENTION;
    if (rated && !client && !contention && out->wake_high && out->wake_moves)
        out->flags |= SB_SELFCHECK_LATE_WAKEUPS;
}

void sb_selfcheck_eval(const struct sb_selfcheck_in *in, struct sb_selfcheck *out)
{
    memset(out, 0, sizeof(*out));
    judge_load(in, out);
    sb_selfcheck_trend(in->tps, in->tps != NULL ? in->ntps : 0, in->sample_s, &out->trend);
    if (out->trend.flagged)
        out->flags |= SB_SELFCHECK_NOT_STATIONARY;
    out->error_pct = in->events > 0 ? 100.0 * (double)in->errors / (double)in->events
                     : in->errors > 0 ? 100.0 : 0;
    if (sb_selfcheck_error_dominated(in->errors, in->events))
        out->flags |= SB_SELFCHECK_ERROR_DOMINATED;
}

const char *sb_selfcheck_cause_name(enum sb_selfcheck_cause c)
{
    switch (c) {
    case SB_SELFCHECK_CAUSE_UNKNOWN:
        return "unknown";
    case SB_SELFCHECK_CAUSE_CONNECTIONS:
        return "connections";
    case SB_SELFCHECK_CAUSE_SERVER:
        return "server";
    case SB_SELFCHECK_CAUSE_MACHINE:
        return "machine";
    default:
        return "";
    }
}

const char *sb_selfcheck_trend_name(enum sb_trend_verdict v)
{
    switch (v) {
    case SB_TREND_STATIONARY:
        return "stationary";
    case SB_TREND_UNDECIDED:
        return "not-enough-evidence";
    case SB_TREND_DRIFT:
        return "not-stationary";
    default:
        return "too-few-samples";
    }
}

unsigned sb_selfcheck_spin_us(const struct sb_selfcheck *c)
{
    double us = isfinite(c->wake_p99_ms) ? c->wake_p99_ms * 1000.0 : 0;

    return (unsigned)(ceil(us / 50.0) * 50.0);
}

const char *sb_selfcheck_flag_names(unsigned flags, char *buf, size_t len)
{
    static const struct {
        unsigned bit;
        const char *name;
    } names[] = {{SB_SELFCHECK_CLIENT_BOUND, "client-bound"},
                 {SB_SELFCHECK_SERVER_BOUND, "server-bound"},
                 {SB_SELFCHECK_CONTENTION, "contention"},
                 {SB_SELFCHECK_LATE_WAKEUPS, "late wake-ups"},
                 {SB_SELFCHECK_NOT_STATIONARY, "not stationary"},
                 {SB_SELFCHECK_ERROR_DOMINATED, "error-dominated"}};
    size_t used = 0;

    if (len == 0)
        return buf;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        int n;
        if (!(flags & names[i].bit))
            continue;
        n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", names[i].name);
        if (n < 0 || (size_t)n >= len - used) {
            buf[used] = '\0'; /* only whole names */
            break;
        }
        used += (size_t)n;
    }
    return buf;
}
