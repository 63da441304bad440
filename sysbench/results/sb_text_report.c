/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Text reports; see sb_text_report.h. Column positions copy sysbench 1.0's
 * output (values at column 41, latency values right-aligned at column 53)
 * because parsers written for it split on those layouts.
 */
#include "results/sb_text_report.h"
#include "results/sb_point_result.h"
#include "results/sb_selfcheck_write.h"
#include "pure/sb_selfcheck.h"
#include "core/sb_log.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

static double per_sec(double n, double t)
{
    return t > 0 ? n / t : 0;
}

void sb_text_report_stat_from(struct sb_text_report_stat *s, const struct sb_stats *st,
                         double interval, double total, unsigned threads,
                         double pct)
{
    memset(s, 0, sizeof(*s));
    s->threads_running = threads;
    s->time_interval = interval;
    s->time_total = total;
    s->latency_pct = pct > 0 ? (double)sb_hist_percentile(&st->response, pct) / 1e9 : 0;
    s->events = (double)st->c[SB_STAT_EVENTS];
    s->reads = (double)st->c[SB_STAT_READS];
    s->writes = (double)st->c[SB_STAT_WRITES];
    s->other = (double)st->c[SB_STAT_OTHER];
    s->errors = (double)st->c[SB_STAT_ERRORS];
    s->reconnects = (double)st->c[SB_STAT_RECONNECTS];
    if (st->response.total > 0) {
        s->latency_min = (double)st->response.min_ns / 1e9;
        s->latency_max = (double)st->response.max_ns / 1e9;
        s->latency_avg = sb_hist_mean(&st->response) / 1e9;
        s->latency_sum = (double)st->response.sum_ns / 1e9;
    }
}

static void pct_label(char *buf, size_t len, double pct)
{
    snprintf(buf, len, "%g", pct);
}

void sb_text_report_print_line(const struct sb_text_report_stat *s,
                          const struct sb_text_report_extra *x, FILE *out)
{
    double t = s->time_interval;
    double q = s->reads + s->writes + s->other;
    bool sql = x ? x->sql : q > 0;
    char pl[32];

    pct_label(pl, sizeof(pl), x && x->pct > 0 ? x->pct : 95);
    if (sql)
        fprintf(out,
                "[ %.0fs ] thds: %.0f tps: %.2f qps: %.2f (r/w/o: %.2f/%.2f/%.2f) "
                "lat (ms,%s%%): %.2f err/s: %.2f reconn/s: %.2f",
                s->time_total, s->threads_running, per_sec(s->events, t), per_sec(q, t),
                per_sec(s->reads, t), per_sec(s->writes, t), per_sec(s->other, t), pl,
                s->latency_pct * 1000, per_sec(s->errors, t), per_sec(s->reconnects, t));
    else
        fprintf(out, "[ %.0fs ] thds: %.0f eps: %.2f lat (ms,%s%%): %.2f", s->time_total,
                s->threads_running, per_sec(s->events, t), pl, s->latency_pct * 1000);
    if (x != NULL && x->rate_mode != SB_PACE_NONE)
        fprintf(out, " target: %.2f lag (ms,%s%%): %.2f backlog: %llu", x->target_tps, pl,
                x->lag_pct_ms, (unsigned long long)x->backlog);
    if (x != NULL && x->cpu) {
        char c[32], v[32];
        if (isfinite(x->cpu_client_pct))
            snprintf(c, sizeof(c), "%.2f", x->cpu_client_pct);
        else
            snprintf(c, sizeof(c), "n/a");
        if (isfinite(x->cpu_server_pct))
            snprintf(v, sizeof(v), "%.2f", x->cpu_server_pct);
        else
            snprintf(v, sizeof(v), "n/a");
        fprintf(out, " cpu (client/server %%): %s/%s", c, v);
    }
    fputc('\n', out);
    fflush(out);
}

void sb_text_report_print_line_v1(const struct sb_text_report_stat *s, double pct, FILE *out)
{
    double t = s->time_interval;
    char pl[32];

    pct_label(pl, sizeof(pl), pct);
    /* "err/s" without a colon: sysbench 1.0's own spelling in this line. */
    fprintf(out,
            "[ %.0fs ] thds: %.0f tps: %4.2f qps: %4.2f (r/w/o: %4.2f/%4.2f/%4.2f) "
            "lat (ms,%s%%): %4.2f err/s %4.2f reconn/s: %4.2f\n",
            s->time_total, s->threads_running, per_sec(s->events, t),
            per_sec(s->reads + s->writes + s->other, t), per_sec(s->reads, t),
            per_sec(s->writes, t), per_sec(s->other, t), pl, s->latency_pct * 1000,
            per_sec(s->errors, t), per_sec(s->reconnects, t));
    fflush(out);
}

void sb_text_report_print_csv(const struct sb_text_report_stat *s, FILE *out)
{
    double t = s->time_interval;
    fprintf(out, "%.0f,%.0f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f\n", s->time_total,
            s->threads_running, per_sec(s->events, t),
            per_sec(s->reads + s->writes + s->other, t), per_sec(s->reads, t),
            per_sec(s->writes, t), per_sec(s->other, t), s->latency_pct * 1000,
            per_sec(s->errors, t), per_sec(s->reconnects, t));
    fflush(out);
}

/* The JSON array report_json objects go into: which kind of report opened
 * it, 0 when none is open. Only the main thread reports. */
static enum sb_text_report_kind json_open;
static enum sb_text_report_kind report_kind = SB_TEXT_REPORT_INTERVAL;


void sb_text_report_json_close(FILE *out)
{
    if (json_open == 0)
        return;
    fputs("\n]\n", out);
    fflush(out);
    json_open = 0;
}

void sb_text_report_set_kind(enum sb_text_report_kind kind, FILE *out)
{
    if (json_open != 0 && json_open != kind)
        sb_text_report_json_close(out);
    report_kind = kind;
}

void sb_text_report_print_json(const struct sb_text_report_stat *s, FILE *out)
{
    double t = s->time_interval;

    if (json_open == 0) {
        fputs("[\n", out);
        json_open = report_kind;
    } else {
        fputs(",\n", out);
    }
    fprintf(out,
            "  {\n"
            "    \"time\": %4.0f,\n"
            "    \"threads\": %.0f,\n"
            "    \"tps\": %4.2f,\n"
            "    \"qps\": {\n"
            "      \"total\": %4.2f,\n"
            "      \"reads\": %4.2f,\n"
            "      \"writes\": %4.2f,\n"
            "      \"other\": %4.2f\n"
            "    },\n"
            "    \"latency\": %4.2f,\n"
            "    \"errors\": %4.2f,\n"
            "    \"reconnects\": %4.2f\n"
            "  }",
            s->time_total, s->threads_running, per_sec(s->events, t),
            per_sec(s->reads + s->writes + s->other, t), per_sec(s->reads, t),
            per_sec(s->writes, t), per_sec(s->other, t), s->latency_pct * 1000,
            per_sec(s->errors, t), per_sec(s->reconnects, t));
    fflush(out);
}

/* "    label:" padded so the value starts at column 41. */
static void field(FILE *out, int indent, const char *label, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void field(FILE *out, int indent, const char *label, const char *fmt, ...)
{
    va_list ap;
    int n = fprintf(out, "%*s%s", indent, "", label);
    fprintf(out, "%*s", n < 41 ? 41 - n : 1, "");
    va_start(ap, fmt);
    vfprintf(out, fmt, ap);
    va_end(ap);
    fputc('\n', out);
}

/* "         label:" with the value right-aligned at column 53. */
static void lat_field(FILE *out, const char *label, double ms)
{
    char v[64];
    int pad;
    snprintf(v, sizeof(v), "%.2f", ms);
    pad = 44 - (int)strlen(label) - (int)strlen(v);
    fprintf(out, "         %s%*s%s\n", label, pad > 1 ? pad : 1, "", v);
}

static void stddev(const double *v, unsigned n, double *avg, double *sd)
{
    double s = 0, ss = 0;
    for (unsigned i = 0; i < n; i++)
        s += v[i];
    *avg = n ? s / n : 0;
    for (unsigned i = 0; i < n; i++)
        ss += (v[i] - *avg) * (v[i] - *avg);
    *sd = n ? sqrt(ss / n) : 0;
}

static void print_percentiles(FILE *out, const struct sb_hist *h, const double *pcts,
                              size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char label[48];
        snprintf(label, sizeof(label), "%gth percentile:", pcts[i]);
        lat_field(out, label, (double)sb_hist_percentile(h, pcts[i]) / 1e6);
    }
}

/* "Errors by code", then the warning when too many events restarted. */
static void print_error_codes(const struct sb_stats *t, double secs, FILE *out)
{
    uint64_t ev = t->c[SB_STAT_EVENTS], errs = t->c[SB_STAT_ERRORS];
    bool any = false;

    for (unsigned i = 0; i < t->ncodes; i++)
        any = any || t->codes[i].count > 0;
    if (any) {
        fprintf(out, "Errors by code:\n");
        for (unsigned i = 0; i < t->ncodes; i++) {
            char label[64];
            if (t->codes[i].count == 0)
                continue;
            snprintf(label, sizeof(label), "%s %s:",
                     t->codes[i].reconnect ? "reconnect after" : "ignored", t->codes[i].code);
            field(out, 4, label, "%-6llu (%.2f per sec.)",
                  (unsigned long long)t->codes[i].count,
                  per_sec((double)t->codes[i].count, secs));
        }
        fputc('\n', out);
    }
    /* The self-check's error-dominated flag (sb_selfcheck.h): the figures
     * then measure retries as much as the workload. */
    if (sb_selfcheck_error_dominated(errs, ev)) {
        fprintf(out, "WARNING: %llu ignored errors for %llu transactions (%.1f%%, more than "
                "%.0f%%): the results measure retried transactions as much as the workload\n\n",
                (unsigned long long)errs, (unsigned long long)ev,
                ev ? 100.0 * (double)errs / (double)ev : 100.0, SB_SELFCHECK_ERROR_SHARE * 100);
    }
}

static void print_sql_stats(const struct sb_stats *t, double secs, FILE *out)
{
    uint64_t ev = t->c[SB_STAT_EVENTS];
    uint64_t q = sb_stats_queries(t);

    fprintf(out, "SQL statistics:\n    queries performed:\n");
    field(out, 8, "read:", "%llu", (unsigned long long)t->c[SB_STAT_READS]);
    field(out, 8, "write:", "%llu", (unsigned long long)t->c[SB_STAT_WRITES]);
    field(out, 8, "other:", "%llu", (unsigned long long)t->c[SB_STAT_OTHER]);
    field(out, 8, "total:", "%llu", (unsigned long long)q);
    field(out, 4, "transactions:", "%-6llu (%.2f per sec.)", (unsigned long long)ev,
          per_sec((double)ev, secs));
    field(out, 4, "queries:", "%-6llu (%.2f per sec.)", (unsigned long long)q,
          per_sec((double)q, secs));
    field(out, 4, "ignored errors:", "%-6llu (%.2f per sec.)",
          (unsigned long long)t->c[SB_STAT_ERRORS],
          per_sec((double)t->c[SB_STAT_ERRORS], secs));
    field(out, 4, "reconnects:", "%-6llu (%.2f per sec.)",
          (unsigned long long)t->c[SB_STAT_RECONNECTS],
          per_sec((double)t->c[SB_STAT_RECONNECTS], secs));
    fputc('\n', out);
}

static void print_latency(const struct sb_point_result *p, const struct sb_text_report_opts *o,
                          FILE *out)
{
    const struct sb_hist *h = &p->total->response;

    fprintf(out, "Latency (ms):\n");
    lat_field(out, "min:", h->total ? (double)h->min_ns / 1e6 : 0);
    lat_field(out, "avg:", sb_hist_mean(h) / 1e6);
    lat_field(out, "max:", (double)h->max_ns / 1e6);
    print_percentiles(out, h, o->percentiles, o->npercentiles);
    lat_field(out, "sum:", (double)h->sum_ns / 1e6);
    fputc('\n', out);
    if (o->histogram && !sb_compat10()) { /* 1.0's place: sb_monitor.c */
        fprintf(out, "Latency histogram (values are in milliseconds)\n");
        sb_hist_print(h, out);
        fputc('\n', out);
    }
}

static void print_fairness(const struct sb_point_result *p, FILE *out)
{
    const uint64_t *ev = p->thread_events;
    unsigned n = p->nthread_events;
    double s = 0, ss = 0, avg, sd;

    /* Over every connection, without a copy: 10,000 connections are
     * 10,000 entries, which a fixed array on the stack once cut off. */
    for (unsigned i = 0; i < n; i++)
        s += (double)ev[i];
    avg = n ? s / n : 0;
    for (unsigned i = 0; i < n; i++)
        ss += ((double)ev[i] - avg) * ((double)ev[i] - avg);
    sd = n ? sqrt(ss / n) : 0;
    fprintf(out, "Threads fairness:\n");
    fprintf(out, "    events (avg/stddev):           %.4f/%3.2f\n", avg, sd);
    stddev(p->thread_busy, n, &avg, &sd);
    fprintf(out, "    execution time (avg/stddev):   %.4f/%3.2f\n", avg, sd);
    fputc('\n', out);
}

/* The paced-run sections: how close the run came to its target rate, and
 * the service time and start lag that separate the client's queueing from
 * the server's. */
static void print_rate(const struct sb_point_result *p, const struct sb_text_report_opts *o,
                       double secs, FILE *out)
{
    const struct sb_stats *t = p->total;
    const struct sb_point_config *pc = &p->cfg;
    uint64_t ev = t->c[SB_STAT_EVENTS];
    double achieved = per_sec((double)ev, secs);

    fprintf(out, "Rate (%s):\n", pc->mode == SB_PACE_FIXED ? "--tx-rate, fixed schedule per thread"
                                                  : "--rate, Poisson arrivals");
    field(out, 4, "target:", "%.2f per sec.", pc->target_tps);
    field(out, 4, "achieved:", "%.2f per sec. (%.2f%% of target)", achieved,
          pc->target_tps > 0 ? 100.0 * achieved / pc->target_tps : 0);
    if (pc->mode == SB_PACE_FIXED)
        field(out, 4, "jitter:", "%.0f us", pc->jitter_us);
    field(out, 4, "late starts:", "%-6llu (%.2f%%)",
          (unsigned long long)t->c[SB_STAT_LATE],
          ev ? 100.0 * (double)t->c[SB_STAT_LATE] / (double)ev : 0);
    field(out, 4, "skipped:", "%llu", (unsigned long long)t->c[SB_STAT_SKIPPED]);
    field(out, 4, "max backlog:", "%llu", (unsigned long long)p->max_backlog);
    fputc('\n', out);
    fprintf(out, "Service time (ms, from actual start):\n");
    lat_field(out, "min:", t->service.total ? (double)t->service.min_ns / 1e6 : 0);
    lat_field(out, "avg:", sb_hist_mean(&t->service) / 1e6);
    lat_field(out, "max:", (double)t->service.max_ns / 1e6);
    print_percentiles(out, &t->service, o->percentiles, o->npercentiles);
    fputc('\n', out);
    fprintf(out, "Start lag (ms, actual start - due time):\n");
    lat_field(out, "avg:", sb_hist_mean(&t->lag) / 1e6);
    lat_field(out, "max:", (double)t->lag.max_ns / 1e6);
    print_percentiles(out, &t->lag, o->percentiles, o->npercentiles);
    fputc('\n', out);
}

void sb_text_report_print_point(const struct sb_point_result *p, const struct sb_text_report_opts *o,
                           FILE *out)
{
    const struct sb_stats *t = p->total;
    /* Rates over the span the counters cover (since the last checkpoint). */
    double secs = o->interval_s > 0 ? o->interval_s : p->time_s;

    if (o->sql)
        print_sql_stats(t, secs, out);
    fprintf(out, "General statistics:\n");
    field(out, 4, "total time:", "%.4fs", p->time_s);
    field(out, 4, "total number of events:", "%llu", (unsigned long long)t->c[SB_STAT_EVENTS]);
    fputc('\n', out);
    print_latency(p, o, out);
    print_fairness(p, out);
    print_error_codes(t, secs, out);
    if (p->cfg.mode != SB_PACE_NONE && !o->brief)
        print_rate(p, o, secs, out);
    fflush(out);
}

/* "0.13/0.18/4.21": mean, percentile pct and maximum of h in ms. */
static void avg_pct_max(char *buf, size_t len, const struct sb_hist *h, double pct)
{
    snprintf(buf, len, "%.2f/%.2f/%.2f", sb_hist_mean(h) / 1e6,
             (double)sb_hist_percentile(h, pct) / 1e6, (double)h->max_ns / 1e6);
}

/* The rate lines of the summary: print_rate's figures in four lines. */
static void summary_rate(const struct sb_point_result *p, double secs, double pct, FILE *out)
{
    const struct sb_stats *t = p->total;
    const struct sb_point_config *pc = &p->cfg;
    uint64_t ev = t->c[SB_STAT_EVENTS];
    double achieved = per_sec((double)ev, secs);
    char label[64], v[96];

    snprintf(label, sizeof(label), "rate (%s):",
             pc->mode == SB_PACE_FIXED ? "--tx-rate, fixed schedule" : "--rate, Poisson");
    field(out, 4, label, "target %.2f/s, achieved %.2f/s (%.2f%%)", pc->target_tps, achieved,
          pc->target_tps > 0 ? 100.0 * achieved / pc->target_tps : 0);
    field(out, 4, "late starts, skipped, max backlog:", "%llu (%.2f%%), %llu, %llu",
          (unsigned long long)t->c[SB_STAT_LATE],
          ev ? 100.0 * (double)t->c[SB_STAT_LATE] / (double)ev : 0,
          (unsigned long long)t->c[SB_STAT_SKIPPED], (unsigned long long)p->max_backlog);
    snprintf(label, sizeof(label), "service time avg/p%g/max (ms):", pct);
    avg_pct_max(v, sizeof(v), &t->service, pct);
    field(out, 4, label, "%s", v);
    snprintf(label, sizeof(label), "start lag avg/p%g/max (ms):", pct);
    avg_pct_max(v, sizeof(v), &t->lag, pct);
    field(out, 4, label, "%s", v);
}

/* "client 90.3, server n/a, machine 206.3" (without labels: "90.3, n/a,
 * 206.3") with fmt for each figure. */
static void cpu_sides(char *buf, size_t len, bool labels, const char *fmt, double c, double s,
                      double m)
{
    char f[3][32];
    const double v[3] = {c, s, m};

    for (int i = 0; i < 3; i++) {
        if (isfinite(v[i]))
            snprintf(f[i], sizeof(f[i]), fmt, v[i]);
        else
            snprintf(f[i], sizeof(f[i]), "n/a");
    }
    if (labels)
        snprintf(buf, len, "client %s, server %s, machine %s", f[0], f[1], f[2]);
    else
        snprintf(buf, len, "%s, %s, %s", f[0], f[1], f[2]);
}

void sb_text_report_print_summary(const struct sb_point_result *p, const struct sb_text_report_opts *o,
                             FILE *out)
{
    const struct sb_cpu_report *c = &p->cpu;
    double secs = o->interval_s > 0 ? o->interval_s : p->time_s;
    double pct = o->npercentiles > 0 ? o->percentiles[0] : 95;
    char v[160], u[160];

    fprintf(out, "Summary (the full sections: --verbosity=4; every figure: --json):\n");
    if (p->cfg.mode != SB_PACE_NONE)
        summary_rate(p, secs, pct, out);
    cpu_sides(v, sizeof(v), true, "%.1f", c->client.measured ? c->client.total_us_per_tx : NAN,
              c->server.measured ? c->server.total_us_per_tx : NAN,
              c->machine.measured ? c->machine.busy_us_per_tx : NAN);
    cpu_sides(u, sizeof(u), false, "%.1f%%", c->client.measured ? c->client.util_pct : NAN,
              c->server.measured ? c->server.util_pct : NAN,
              c->machine.measured ? c->machine.util_pct : NAN);
    field(out, 4, "CPU per transaction (us):", "%s (use of %u CPUs: %s)", v, c->ncpus, u);
    fprintf(out, "    server processes: %s\n", p->server_label);
    if (p->has_selfcheck)
        sb_selfcheck_print_brief(&p->selfcheck, out);
    fputc('\n', out);
    fflush(out);
}

static void cpu_row(FILE *out, const char *label, bool measured, double user,
                    double sys, double total, double util)
{
    if (!measured || isnan(total)) {
        fprintf(out, "    %-34s%10s %10s %10s %8s\n", label, "n/a", "n/a", "n/a", "n/a");
        return;
    }
    fprintf(out, "    %-34s%10.1f %10.1f %10.1f %7.2f%%\n", label, user, sys, total, util);
}

void sb_text_report_print_cpu(const struct sb_cpu_report *c, const char *server_label,
                         const struct sb_cpu_thread *threads, unsigned nthreads,
                         FILE *out)
{
    char label[64];

    fprintf(out, "CPU cost per transaction (us of CPU; utilisation of all %u CPUs):\n",
            c->ncpus);
    fprintf(out, "    %-34s%10s %10s %10s %8s\n", "", "user", "system", "total", "util");
    cpu_row(out, "client:", c->client.measured, c->client.user_us_per_tx,
            c->client.system_us_per_tx, c->client.total_us_per_tx, c->client.util_pct);
    if (threads != NULL && nthreads > 0) {
        /* The workers' own threads: the client's CPU less the reporter
         * and the Lua/connection set-up around the measured run. */
        double u = 0, sy = 0, tx = (double)c->transactions;
        for (unsigned i = 0; i < nthreads; i++) {
            u += threads[i].user_s;
            sy += threads[i].system_s;
        }
        cpu_row(out, "client workers:", tx > 0, u * 1e6 / tx, sy * 1e6 / tx,
                (u + sy) * 1e6 / tx,
                c->elapsed_s > 0 && c->ncpus > 0
                    ? fmin(100.0, 100.0 * (u + sy) / (c->elapsed_s * c->ncpus)) : 0);
    }
    cpu_row(out, "server:", c->server.measured, c->server.user_us_per_tx,
            c->server.system_us_per_tx, c->server.total_us_per_tx, c->server.util_pct);
    snprintf(label, sizeof(label), "machine:");
    cpu_row(out, label, c->machine.measured, c->machine.user_us_per_tx,
            c->machine.system_us_per_tx, c->machine.busy_us_per_tx, c->machine.util_pct);
    fprintf(out, "    server processes: %s\n", server_label);
    if (threads != NULL && nthreads > 0 && c->elapsed_s > 0) {
        double lo = 1e300, hi = 0, sum = 0;
        for (unsigned i = 0; i < nthreads; i++) {
            double t = threads[i].user_s + threads[i].system_s;
            lo = fmin(lo, t);
            hi = fmax(hi, t);
            sum += t;
        }
        fprintf(out, "    worker threads: %u, CPU per thread min/avg/max %.3f/%.3f/%.3f s "
                "(%.1f%%/%.1f%%/%.1f%% of one CPU)\n", nthreads, lo, sum / nthreads, hi,
                100.0 * lo / c->elapsed_s, 100.0 * sum / nthreads / c->elapsed_s,
                100.0 * hi / c->elapsed_s);
    }
    if (c->machine.measured)
        fprintf(out, "    machine: user %.2f%%, system %.2f%%, iowait %.2f%%, steal %.2f%%, idle %.2f%%\n",
                c->machine.user_pct, c->machine.system_pct, c->machine.iowait_pct,
                c->machine.steal_pct, c->machine.idle_pct);
    fputc('\n', out);
    fflush(out);
}

void sb_text_report_print_point_line(const struct sb_point_result *p, const struct sb_text_report_opts *o,
                                FILE *out)
{
    double secs = o->interval_s > 0 ? o->interval_s : p->time_s;
    double tps = per_sec((double)p->total->c[SB_STAT_EVENTS], secs);
    double pct = o->npercentiles > 0 ? o->percentiles[0] : 95;
    const struct sb_cpu_report *c = &p->cpu;
    char flags[128];

    fprintf(out, "    => tps %.2f", tps);
    if (p->cfg.mode != SB_PACE_NONE && p->cfg.target_tps > 0)
        fprintf(out, " (%.2f%% of %.2f)", 100.0 * tps / p->cfg.target_tps, p->cfg.target_tps);
    if (o->sql)
        fprintf(out, ", qps %.2f", per_sec((double)sb_stats_queries(p->total), secs));
    if (pct != 99)
        fprintf(out, ", p%g %.2f ms", pct,
                (double)sb_hist_percentile(&p->total->response, pct) / 1e6);
    fprintf(out, ", p99 %.2f ms", (double)sb_hist_percentile(&p->total->response, 99) / 1e6);
    if (p->cfg.mode != SB_PACE_NONE)
        fprintf(out, ", lag p99 %.2f ms", (double)sb_hist_percentile(&p->total->lag, 99) / 1e6);
    if (p->total->c[SB_STAT_ERRORS] > 0)
        fprintf(out, ", errors %llu", (unsigned long long)p->total->c[SB_STAT_ERRORS]);
    if (c->client.measured && isfinite(c->client.total_us_per_tx))
        fprintf(out, ", CPU us/tx client %.1f", c->client.total_us_per_tx);
    if (c->server.measured && isfinite(c->server.total_us_per_tx))
        fprintf(out, " server %.1f", c->server.total_us_per_tx);
    if (p->has_selfcheck && p->selfcheck.flags != 0)
        fprintf(out, ", self-check FLAGGED [%s]",
                sb_selfcheck_flag_names(p->selfcheck.flags, flags, sizeof(flags)));
    else if (p->has_selfcheck)
        fprintf(out, ", self-check OK");
    fputc('\n', out);
    fflush(out);
}
