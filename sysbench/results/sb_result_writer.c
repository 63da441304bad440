/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Result collection, the JSON and CSV result files and the sweep table;
 * see sb_result_writer.h and doc/results.md (the schema).
 */
#include "config.h"

#include "results/sb_result_writer.h"
#include "results/sb_repeat.h"
#include "pure/sb_findmax.h"
#include "results/sb_usl_report.h"

#include <errno.h>
#include <luajit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "drivers/sb_driver.h"
#include "pure/sb_histogram.h"
#include "config/sb_instance.h"
#include "core/sb_json_write.h"
#include "core/sb_log.h"
#include "core/sb_safefile.h"
#include "results/sb_selfcheck_write.h"
#include "results/sb_hist_json.h"
#include "results/sb_result_fields.h"
#include "results/sb_stmt_result.h"
#include "results/sb_run_context.h"

/* Bump when a field changes meaning or goes away; adding fields does not
 * change it, so readers must ignore fields they do not know. */
#define SB_RESULT_WRITER_FORMAT_VERSION 1

static double per_sec(double n, double t)
{
    return t > 0 ? n / t : 0;
}

static double ns_to_ms(uint64_t ns)
{
    return (double)ns / 1e6;
}

/* "95", "99.9": the percentile as a JSON key and CSV column suffix. */
static void pct_name(char *buf, size_t len, double pct)
{
    snprintf(buf, len, "%g", pct);
}

/* Writes text as one RFC 4180 field: quoted, with quotes doubled, when
 * it holds a comma, a quote or a line break. */
static void csv_text(FILE *out, const char *text)
{
    if (strpbrk(text, ",\"\r\n") == NULL) {
        fputs(text, out);
        return;
    }
    fputc('"', out);
    for (const char *c = text; *c; c++) {
        if (*c == '"')
            fputc('"', out);
        fputc(*c, out);
    }
    fputc('"', out);
}

/* ------------------------------------------------------------- collecting */

static void write_csv_header(struct sb_result_writer *o)
{
    char p[32];

    pct_name(p, sizeof(p), o->pcts[0]);
    fprintf(o->csv, "point,threads,target_tps,time_s,tps,qps,reads_ps,writes_ps,other_ps,"
                    "latency_p%s_ms,errors_ps,reconnects_ps,lag_p%s_ms,backlog,"
                    "cpu_client_pct,cpu_server_pct,epoch_s,ended,deadline,cancelled", p, p);
    /* A mix: each type's columns after the common ones, so a reader that
     * takes columns by position reads the common ones as without a mix. */
    for (unsigned k = 0; k < o->ntypes; k++) {
        char name[128];

        snprintf(name, sizeof(name), "tps[%s]", o->type_names[k]);
        fputc(',', o->csv);
        csv_text(o->csv, name);
        snprintf(name, sizeof(name), "latency_p%s_ms[%s]", p, o->type_names[k]);
        fputc(',', o->csv);
        csv_text(o->csv, name);
        snprintf(name, sizeof(name), "errors_ps[%s]", o->type_names[k]);
        fputc(',', o->csv);
        csv_text(o->csv, name);
    }
    fputc('\n', o->csv);
    fflush(o->csv);
}

int sb_result_writer_open(struct sb_result_writer *o, const struct sb_config *cfg,
                   char *err, size_t errlen)
{
    return sb_result_writer_open_mix(o, cfg, NULL, err, errlen);
}

int sb_result_writer_open_mix(struct sb_result_writer *o, const struct sb_config *cfg,
                              const struct sb_mix *mix, char *err, size_t errlen)
{
    memset(o, 0, sizeof(*o));
    for (unsigned k = 0; mix != NULL && k < mix->n && k < SB_MIX_MAX; k++) {
        snprintf(o->type_names[k], sizeof(o->type_names[k]), "%s", mix->t[k].name);
        o->ntypes = k + 1;
    }
    o->started = time(NULL);
    o->npcts = cfg->npercentiles;
    memcpy(o->pcts, cfg->percentiles, sizeof(o->pcts));
    if (o->npcts == 0) {
        o->pcts[0] = 95;
        o->npcts = 1;
    }
    o->json_path = cfg->json_file;
    o->csv_path = cfg->csv_file;
    if (o->json_path != NULL && *o->json_path && o->csv_path != NULL &&
        strcmp(o->json_path, o->csv_path) == 0) {
        snprintf(err, errlen, "--json and --csv name the same file '%s'", o->json_path);
        return -1;
    }
    /* Temporary files renamed by sb_result_writer_close: an earlier result is
     * never truncated before the run, nor anything not ours replaced. */
    if (o->json_path != NULL && *o->json_path) {
        if (sb_safefile_open(&o->json_file, o->json_path, "--json",
                             sb_safefile_is_result_json, err, errlen) != 0)
            return -1;
        o->json = o->json_file.fp;
    }
    if (o->csv_path != NULL && *o->csv_path) {
        if (sb_safefile_open(&o->csv_file, o->csv_path, "--csv",
                             sb_safefile_is_result_csv, err, errlen) != 0) {
            sb_safefile_abandon(&o->json_file);
            o->json = NULL;
            return -1;
        }
        o->csv = o->csv_file.fp;
        write_csv_header(o);
    }
    return 0;
}

struct sb_point_result *sb_result_writer_begin_point(struct sb_result_writer *o, const struct sb_point_config *pc)
{
    struct sb_point_result *p;
    long online;

    if (o->npoints == o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 4;
        struct sb_point_result *np = realloc(o->points, cap * sizeof(*np));
        if (np == NULL)
            return NULL;
        o->points = np;
        o->cap = cap;
    }
    p = &o->points[o->npoints++];
    memset(p, 0, sizeof(*p));
    p->cfg = *pc;
    if (p->cfg.repeat == 0)
        p->cfg.repeat = 1;
    if (p->cfg.nrepeat == 0)
        p->cfg.nrepeat = 1;
    if (p->cfg.mode == SB_PACE_NONE)
        p->cfg.target_tps = 0;
    if (p->cfg.mode != SB_PACE_FIXED)
        p->cfg.jitter_us = 0;
    p->start_unix_s = NAN;
    p->first_dispatch_unix_s = p->first_due_unix_s = NAN;
    memcpy(p->pcts, o->pcts, sizeof(p->pcts));
    p->npcts = o->npcts;
    online = sysconf(_SC_NPROCESSORS_ONLN);
    p->ncpus = online > 0 ? (unsigned)online : 1;
    return p;
}

/* An empty CSV field stands for "not measured". */
static void csv_num(FILE *out, double v, bool last)
{
    if (isfinite(v))
        fprintf(out, "%.2f", v);
    fputc(last ? '\n' : ',', out);
}

static void write_csv_row(struct sb_result_writer *o, const struct sb_point_result *p,
                          const struct sb_interval *iv)
{
    FILE *f = o->csv;
    /* A closed loop has no schedule: its lag and backlog are not zero,
     * they do not exist, so their fields stay empty. */
    bool paced = p->cfg.mode != SB_PACE_NONE;

    fprintf(f, "%zu,%u,", o->npoints, p->cfg.threads);
    csv_num(f, paced ? p->cfg.target_tps : NAN, false);
    fprintf(f, "%g,", iv->time_s);
    csv_num(f, iv->tps, false);
    csv_num(f, iv->qps, false);
    csv_num(f, iv->reads_ps, false);
    csv_num(f, iv->writes_ps, false);
    csv_num(f, iv->other_ps, false);
    csv_num(f, iv->latency_ms[0], false);
    csv_num(f, iv->errors_ps, false);
    csv_num(f, iv->reconnects_ps, false);
    csv_num(f, paced ? iv->lag_ms[0] : NAN, false);
    if (paced)
        fprintf(f, "%llu", (unsigned long long)iv->backlog);
    fputc(',', f);
    csv_num(f, iv->cpu_client_pct, false);
    csv_num(f, iv->cpu_server_pct, false);
    /* ended, deadline, cancelled: empty on an interval row. */
    fprintf(f, "%.3f,,,", iv->epoch_s);
    for (unsigned k = 0; k < o->ntypes; k++) {
        fputc(',', f);
        csv_num(f, o->type_iv[k].tps, false);
        csv_num(f, o->type_iv[k].latency_ms[0], false);
        if (isfinite(o->type_iv[k].errors_ps))
            fprintf(f, "%.2f", o->type_iv[k].errors_ps);
    }
    fputc('\n', f);
    /* Flushed per row so a long run's series can be watched (and survives
     * a crash) while it is being written. */
    if (fflush(f) != 0)
        o->write_failed = true;
}

int sb_result_writer_add_interval(struct sb_result_writer *o, const struct sb_interval *iv)
{
    struct sb_point_result *p;

    if (o->npoints == 0)
        return -1;
    p = &o->points[o->npoints - 1];
    if (p->nintervals == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 64;
        struct sb_interval *n = realloc(p->intervals, cap * sizeof(*n));
        if (n == NULL)
            return -1;
        p->intervals = n;
        p->cap = cap;
    }
    p->intervals[p->nintervals++] = *iv;
    if (o->csv != NULL)
        write_csv_row(o, p, iv);
    return 0;
}

int sb_result_writer_end_point(struct sb_result_writer *o, struct sb_point_result *p)
{
    if (o->npoints == 0)
        return -1;
    sb_point_result_move_final(&o->points[o->npoints - 1], p);
    return 0;
}

void sb_result_writer_set_start(struct sb_result_writer *o, double unix_s)
{
    if (o->npoints > 0)
        o->points[o->npoints - 1].start_unix_s = unix_s;
}

void sb_result_writer_set_first_dispatch(struct sb_result_writer *o, double unix_s,
                                         double due_unix_s)
{
    if (o->npoints > 0) {
        o->points[o->npoints - 1].first_dispatch_unix_s = unix_s;
        o->points[o->npoints - 1].first_due_unix_s = due_unix_s;
    }
}

void sb_result_writer_set_server(struct sb_result_writer *o, const char *driver, const char *version)
{
    if (driver != NULL && o->driver_name[0] == '\0')
        snprintf(o->driver_name, sizeof(o->driver_name), "%s", driver);
    if (version != NULL && *version && o->server_version[0] == '\0')
        snprintf(o->server_version, sizeof(o->server_version), "%s", version);
}

void sb_result_writer_set_server_info(struct sb_result_writer *o, struct sb_server_info *si)
{
    char diff[512];

    if (!sb_server_info_known(&o->server_info) && sb_server_info_known(si))
        sb_server_info_move(&o->server_info, si);
    else if (sb_server_info_first_diff(&o->server_info, si, diff, sizeof(diff)))
        sb_warn("the server changed since the first point: %s; the result files record the "
                "first point's server", diff);
}

void sb_result_writer_set_end(struct sb_result_writer *o, const char *status, int signal,
                       const char *error)
{
    o->end_status = status;
    o->end_signal = signal;
    snprintf(o->end_error, sizeof(o->end_error), "%s", error ? error : "");
}

void sb_result_writer_note_cancelled(struct sb_result_writer *o, uint64_t n, bool at_deadline)
{
    o->cancelled += n;
    if (at_deadline && n > 0)
        o->deadline_cut = true;
}

/* The CSV's last row says how the run ended, in the columns ended,
 * deadline and cancelled (the JSON's "ended" object), every other field
 * empty: a plain CSV reader reads it as one more row, which the
 * non-empty "ended" field tells apart from the interval rows. */
static void write_csv_end(struct sb_result_writer *o)
{
    char ended[sizeof(o->end_error) + 32];
    const char *deadline = "";

    if (o->end_status == NULL)
        return;
    if (strcmp(o->end_status, "interrupted") == 0)
        snprintf(ended, sizeof(ended), "interrupted by signal %d", o->end_signal);
    else if (strcmp(o->end_status, "failed") == 0)
        snprintf(ended, sizeof(ended), "failed: %s", o->end_error);
    else
        snprintf(ended, sizeof(ended), "%s", o->end_status);
    if (o->deadline_cut)
        deadline = "cut";
    else if (strcmp(o->end_status, "completed") == 0)
        deadline = "met";
    fputs(",,,,,,,,,,,,,,,,,", o->csv);
    csv_text(o->csv, ended);
    fprintf(o->csv, ",%s,%llu", deadline, (unsigned long long)o->cancelled);
    for (unsigned k = 0; k < o->ntypes; k++)
        fputs(",,,", o->csv);
    fputc('\n', o->csv);
    if (fflush(o->csv) != 0)
        o->write_failed = true;
}

static void json_end(struct sb_json *j, const struct sb_result_writer *o)
{
    sb_json_key(j, "ended");
    if (o->end_status == NULL) {
        sb_json_null(j);
        return;
    }
    sb_json_begin_object(j);
    sb_json_kv_string(j, "status", o->end_status);
    if (o->end_signal > 0)
        sb_json_kv_int(j, "signal", o->end_signal);
    else
        sb_json_kv_null(j, "signal");
    sb_json_kv_string(j, "error", o->end_error[0] ? o->end_error : NULL);
    /* "cut": statements still running --deadline-grace after --time were
     * cancelled; "met": a completed run needed no cancel; null: the run
     * did not end at its limits (interrupted, failed). */
    sb_json_kv_string(j, "deadline", o->deadline_cut ? "cut"
                                     : strcmp(o->end_status, "completed") == 0 ? "met" : NULL);
    sb_json_kv_int(j, "cancelled", (long long)o->cancelled);
    sb_json_end_object(j);
}

/* Whether some point holds a measurement (final figures or an interval):
 * a run that failed before measuring (connection refused, a wrong
 * password, an error in init()) has only a "failed" record to write. */
static bool measured(const struct sb_result_writer *o)
{
    for (size_t i = 0; i < o->npoints; i++)
        if (o->points[i].total != NULL || o->points[i].nintervals > 0)
            return true;
    return false;
}

/* An earlier result file is replaced only by something measured: a run
 * that measured nothing keeps it byte for byte (and says so), and writes
 * its "failed" record only where there was no file. */
static bool keeps_earlier(const struct sb_result_writer *o, const struct sb_safefile *f)
{
    struct stat st;

    if (measured(o) || lstat(f->final, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
        return false;
    sb_warn("this run measured nothing: the earlier %s file '%s' is kept", f->what, f->final);
    return true;
}

int sb_result_writer_close(struct sb_result_writer *o, char *err, size_t errlen)
{
    int rc = 0;

    /* Results are published only once the run wrote its JSON document
     * (sb_result_writer_write_json); an aborted start leaves no file behind. */
    if (o->csv != NULL) {
        if (!o->finished || keeps_earlier(o, &o->csv_file)) {
            sb_safefile_abandon(&o->csv_file);
        } else if (o->write_failed) {
            errno = 0;
            snprintf(err, errlen, "cannot write the --csv file '%s': %s", o->csv_path,
                     strerror(sb_safefile_errno(&o->csv_file)));
            sb_safefile_abandon(&o->csv_file);
            rc = -1;
        } else if (sb_safefile_commit(&o->csv_file, err, errlen) != 0) {
            rc = -1;
        }
        o->csv = NULL;
    }
    if (o->json != NULL) {
        if (!o->finished || keeps_earlier(o, &o->json_file)) {
            sb_safefile_abandon(&o->json_file);
        } else if (rc == 0) {
            rc = sb_safefile_commit(&o->json_file, err, errlen);
        } else {
            char ignored[256];
            if (sb_safefile_commit(&o->json_file, ignored, sizeof(ignored)) != 0)
                rc = -1;
        }
        o->json = NULL;
    }
    for (size_t i = 0; i < o->npoints; i++)
        sb_point_result_free(&o->points[i]);
    free(o->points);
    o->points = NULL;
    o->npoints = o->cap = 0;
    sb_server_info_free(&o->server_info);
    return rc;
}

/* ------------------------------------------------------------ sweep table */

/* A per-transaction CPU figure, "n/a" when not measured. */
static void cpu_cell(char *buf, size_t len, bool measured, double us)
{
    if (measured && isfinite(us))
        snprintf(buf, len, "%.1f", us);
    else
        snprintf(buf, len, "n/a");
}

void sb_result_writer_print_sweep(const struct sb_result_writer *o, FILE *out)
{
    const struct sb_point_result *first = NULL;
    double base;
    bool show_rate = false;
    size_t done = 0;

    for (size_t i = 0; i < o->npoints; i++) {
        if (!sb_point_result_complete(&o->points[i]))
            continue;
        if (first == NULL)
            first = &o->points[i];
        if (o->points[i].cfg.mode != SB_PACE_NONE)
            show_rate = true;
        done++;
    }
    if (first == NULL)
        return;
    base = sb_point_result_tps(first);
    /* A full report ends in a blank line; a point's line does not. */
    fprintf(out, "%sSweep summary (%zu point%s; latency in ms, CPU in us per transaction):\n",
            o->brief && o->points[o->npoints - 1].cfg.nrepeat <= 1 ? "\n" : "", done,
            done == 1 ? "" : "s");
    fprintf(out, "%8s", "threads");
    if (show_rate)
        fprintf(out, " %10s", "target");
    fprintf(out, " %11s %12s %9s %9s %10s %10s %10s %9s  %s\n", "tps", "qps", "p95", "p99",
            "cpu client", "cpu server", "cpu mach.", "relative", "self-check");
    for (size_t i = 0; i < o->npoints; i++) {
        const struct sb_point_result *p = &o->points[i];
        const struct sb_stats *t = p->total;
        double tps, qps;
        char cl[32], sv[32], mc[32], rel[32], flags[128];

        if (!sb_point_result_complete(p))
            continue;
        tps = sb_point_result_tps(p);
        qps = sb_point_result_qps(p);
        cpu_cell(cl, sizeof(cl), p->cpu.client.measured, p->cpu.client.total_us_per_tx);
        cpu_cell(sv, sizeof(sv), p->cpu.server.measured, p->cpu.server.total_us_per_tx);
        cpu_cell(mc, sizeof(mc), p->cpu.machine.measured, p->cpu.machine.busy_us_per_tx);
        if (base > 0)
            snprintf(rel, sizeof(rel), "%.2fx", tps / base);
        else
            snprintf(rel, sizeof(rel), "n/a");
        fprintf(out, "%8u", p->cfg.threads);
        if (show_rate) {
            if (p->cfg.mode != SB_PACE_NONE)
                fprintf(out, " %10.2f", p->cfg.target_tps);
            else
                fprintf(out, " %10s", "-");
        }
        fprintf(out, " %11.2f %12.2f %9.2f %9.2f %10s %10s %10s %9s  %s\n", tps, qps,
                ns_to_ms(sb_hist_percentile(&t->response, 95)),
                ns_to_ms(sb_hist_percentile(&t->response, 99)), cl, sv, mc, rel,
                !p->has_selfcheck ? "-" : p->selfcheck.flags == 0 ? "ok"
                : sb_selfcheck_flag_names(p->selfcheck.flags, flags, sizeof(flags)));
    }
    fputc('\n', out);
    fflush(out);
}

/* ---------------------------------------------------------- JSON: points */

/* A percentile map at the point's percentiles: field f of obj, stored
 * (an interval's map) or computed (the final figures' maps). */
static void json_pct_map(struct sb_json *j, const char *key, const struct sb_result_writer *o,
                         const struct sb_result_field *f, const void *obj)
{
    const double *stored = (const double *)((const char *)obj + f->offset);
    char p[32];

    sb_json_key(j, key);
    sb_json_begin_object(j);
    for (size_t i = 0; i < o->npcts; i++) {
        pct_name(p, sizeof(p), o->pcts[i]);
        sb_json_kv_double(j, p, f->calc == SB_RF_STORED ? stored[i]
                                                        : sb_rf_value(obj, f, o->pcts[i]));
    }
    sb_json_end_object(j);
}

/* final.errors.by_code: the codes that occurred. */
static void json_codes(struct sb_json *j, const char *key, const struct sb_stats *t)
{
    sb_json_key(j, key);
    sb_json_begin_array(j);
    for (unsigned i = 0; i < t->ncodes; i++) {
        if (t->codes[i].count == 0)
            continue;
        sb_json_begin_object(j);
        sb_json_kv_string(j, "code", t->codes[i].code);
        sb_json_kv_string(j, "kind", t->codes[i].reconnect ? "reconnect" : "ignored");
        sb_json_kv_uint(j, "count", t->codes[i].count);
        sb_json_end_object(j);
    }
    sb_json_end_array(j);
}

/* final.cpu.threads: each worker thread's CPU. */
static void json_threads(struct sb_json *j, const char *key, const struct sb_point_result *p)
{
    sb_json_key(j, key);
    sb_json_begin_array(j);
    for (unsigned i = 0; i < p->nthread_cpu; i++) {
        sb_json_begin_object(j);
        sb_json_kv_uint(j, "thread", i);
        sb_json_kv_double(j, "user_s", p->thread_cpu[i].user_s);
        sb_json_kv_double(j, "system_s", p->thread_cpu[i].system_s);
        sb_json_kv_uint(j, "events", p->thread_cpu[i].events);
        sb_json_end_object(j);
    }
    sb_json_end_array(j);
}

/* One member, field f of obj, under its last path name. */
static void json_member(struct sb_json *j, const struct sb_result_writer *o,
                        const struct sb_result_field *f, const void *obj)
{
    const char *key = sb_rf_leaf(f), *at = (const char *)obj + f->offset;

    switch (f->type) {
    case SB_RF_FLAG:
        sb_json_kv_bool(j, key, *(const bool *)at);
        break;
    case SB_RF_TEXT:
        sb_json_kv_string(j, key, f->ctype == SB_RF_MODE
                                      ? sb_pace_mode_name(*(const enum sb_pace_mode *)at) : at);
        break;
    case SB_RF_LIST:
        if (f->ctype == SB_RF_CODES)
            json_codes(j, key, ((const struct sb_point_result *)obj)->total);
        else
            json_threads(j, key, obj);
        break;
    case SB_RF_PCTS:
        json_pct_map(j, key, o, f, obj);
        break;
    case SB_RF_COUNT:
        sb_json_kv_uint(j, key, sb_rf_count(obj, f));
        break;
    default:
        sb_json_kv_double(j, key, sb_rf_value(obj, f, 0)); /* NaN -> null */
        break;
    }
}

/* Length of prefix "a.b." of a path with its last object name dropped
 * ("a."; "" from "a."). */
static size_t up_one(const char *path, size_t len)
{
    while (len > 0 && path[len - 1] == '.')
        len--;
    while (len > 0 && path[len - 1] != '.')
        len--;
    return len;
}

/* The members of model object obj that table t lists, in the table's
 * order; consecutive fields of one dotted prefix ("qps.total",
 * "qps.reads") make one nested object, at any depth. Without a rate
 * (paced false) an object that opens with a paced field is null. */
static void json_fields(struct sb_json *j, const struct sb_result_writer *o,
                        const struct sb_result_field *t, const void *obj, bool paced)
{
    const char *open = "";  /* a path whose first olen bytes are the open objects */
    size_t olen = 0;
    char key[64];

    for (; t->path != NULL; t++) {
        size_t g = sb_rf_group_len(t);
        bool skip = false;
        while (olen > 0 && (olen > g || strncmp(t->path, open, olen) != 0)) {
            sb_json_end_object(j);
            olen = up_one(open, olen);
        }
        while (olen < g && !skip) {
            size_t n = (size_t)(strchr(t->path + olen, '.') - t->path);
            snprintf(key, sizeof(key), "%.*s", (int)(n - olen), t->path + olen);
            if (t->paced && !paced) {
                sb_json_kv_null(j, key);
                while (t[1].path != NULL && strncmp(t[1].path, t->path, n + 1) == 0)
                    t++;
                skip = true;
                continue;
            }
            sb_json_key(j, key);
            sb_json_begin_object(j);
            open = t->path;
            olen = n + 1;
        }
        if (!skip)
            json_member(j, o, t, obj);
    }
    for (; olen > 0; olen = up_one(open, olen))
        sb_json_end_object(j);
}

static void json_interval(struct sb_json *j, const struct sb_result_writer *o,
                          const struct sb_interval *iv)
{
    sb_json_begin_object(j);
    json_fields(j, o, sb_rf_interval, iv, true);
    sb_json_end_object(j);
}

/* A latency object of histogram h laid out as final.latency_ms.response
 * (a mix's types have the final figures' objects). */
static void json_latency(struct sb_json *j, const char *key, const struct sb_result_writer *o,
                         const struct sb_hist *h)
{
    static const char prefix[] = "latency_ms.response.";
    char p[32];

    sb_json_key(j, key);
    sb_json_begin_object(j);
    for (const struct sb_result_field *f = sb_rf_final; f->path != NULL; f++) {
        if (strncmp(f->path, prefix, sizeof(prefix) - 1) != 0)
            continue;
        if (f->type != SB_RF_PCTS) {
            double x = sb_rf_latency(h, f->calc, 0);
            /* A count is exact as a double up to 2^53 events. */
            if (f->type == SB_RF_COUNT)
                sb_json_kv_uint(j, sb_rf_leaf(f), (uint64_t)x);
            else
                sb_json_kv_double(j, sb_rf_leaf(f), x);
            continue;
        }
        sb_json_key(j, sb_rf_leaf(f));
        sb_json_begin_object(j);
        for (size_t i = 0; i < o->npcts; i++) {
            pct_name(p, sizeof(p), o->pcts[i]);
            sb_json_kv_double(j, p, sb_rf_latency(h, f->calc, o->pcts[i]));
        }
        sb_json_end_object(j);
    }
    sb_json_end_object(j);
}

/* The final figures: every member as sb_rf_final lays it out. */
static void json_final(struct sb_json *j, const struct sb_result_writer *o,
                       const struct sb_point_result *p)
{
    sb_json_key(j, "final");
    sb_json_begin_object(j);
    json_fields(j, o, sb_rf_final, p, p->cfg.mode != SB_PACE_NONE);
    sb_json_end_object(j);
}

/* A mix: "types", each type's figures as "final" has them, and its
 * histograms in the layout of the point's, so that they merge the same
 * way (doc/results.md). */
static void json_types(struct sb_json *j, const struct sb_result_writer *o,
                       const struct sb_point_result *p)
{
    sb_json_key(j, "types");
    sb_json_begin_array(j);
    for (unsigned k = 0; k < p->ntypes; k++) {
        const struct sb_stats *t = p->types[k].stats;
        uint64_t all = p->total->c[SB_STAT_EVENTS];

        sb_json_begin_object(j);
        sb_json_kv_string(j, "name", p->types[k].name);
        sb_json_kv_uint(j, "weight", p->types[k].weight);
        sb_json_kv_uint(j, "events", t->c[SB_STAT_EVENTS]);
        sb_json_kv_double(j, "share_pct",
                          all > 0 ? 100.0 * (double)t->c[SB_STAT_EVENTS] / (double)all : NAN);
        sb_json_kv_double(j, "tps", per_sec((double)t->c[SB_STAT_EVENTS], p->time_s));
        sb_json_kv_uint(j, "errors", t->c[SB_STAT_ERRORS]);
        sb_json_key(j, "latency_ms");
        sb_json_begin_object(j);
        json_latency(j, "response", o, &t->response);
        json_latency(j, "service", o, &t->service);
        sb_json_end_object(j);
        sb_hist_json_write(j, "histogram", "response", &t->response);
        sb_json_key(j, "histograms");
        sb_json_begin_object(j);
        if (p->cfg.mode != SB_PACE_NONE) {
            sb_hist_json_write(j, "service", "service", &t->service);
            sb_hist_json_write(j, "lag", "lag", &t->lag);
        }
        sb_json_end_object(j);
        sb_json_end_object(j);
    }
    sb_json_end_array(j);
}

static void json_point(struct sb_json *j, const struct sb_result_writer *o, const struct sb_point_result *p,
                       size_t index)
{
    sb_json_begin_object(j);
    sb_json_kv_uint(j, "index", index);
    sb_json_kv_uint(j, "threads", p->cfg.threads);
    sb_json_kv_uint(j, "repeat", p->cfg.repeat);
    sb_json_kv_uint(j, "repeats", p->cfg.nrepeat);
    sb_json_kv_string(j, "rate_mode", sb_pace_mode_name(p->cfg.mode));
    sb_json_kv_double(j, "target_tps", p->cfg.mode != SB_PACE_NONE ? p->cfg.target_tps : NAN);
    sb_json_kv_bool(j, "complete", sb_point_result_complete(p));
    sb_json_kv_bool(j, "interrupted", p->interrupted);
    /* Absolute time of the measurement start: intervals of several
     * instances are aligned on it by `sysbench merge`. */
    sb_json_kv_double(j, "start_unix_s", p->start_unix_s);
    /* Measured, not requested: how close to --start-at this instance
     * really began (merge reports the spread over instances). */
    sb_json_kv_double(j, "first_dispatch_unix_s", p->first_dispatch_unix_s);
    sb_json_kv_double(j, "first_due_unix_s", p->first_due_unix_s);
    sb_json_key(j, "intervals");
    sb_json_begin_array(j);
    for (size_t i = 0; i < p->nintervals; i++)
        json_interval(j, o, &p->intervals[i]);
    sb_json_end_array(j);
    if (sb_point_result_complete(p)) {
        json_final(j, o, p);
        sb_hist_json_write(j, "histogram", "response", &p->total->response);
        /* Service time and lag are recorded in rate modes only (closed
         * loop: both equal the response time, already above). */
        sb_json_key(j, "histograms");
        sb_json_begin_object(j);
        if (p->cfg.mode != SB_PACE_NONE) {
            sb_hist_json_write(j, "service", "service", &p->total->service);
            sb_hist_json_write(j, "lag", "lag", &p->total->lag);
        }
        sb_json_end_object(j);
        if (p->ntypes > 0)
            json_types(j, o, p);
        sb_stmt_result_json(j, p->stmts);
        if (p->has_selfcheck)
            sb_selfcheck_json(j, &p->selfcheck, p->check_tps, p->ncheck_tps,
                              p->check_sample_s);
    } else {
        sb_json_kv_null(j, "final");
        sb_json_kv_null(j, "histogram");
    }
    sb_json_end_object(j);
}

int sb_result_writer_write_json(struct sb_result_writer *o, const struct sb_lua_env *env,
                         char *err, size_t errlen)
{
    o->finished = true;
    if (o->csv != NULL)
        write_csv_end(o);
    if (o->json == NULL)
        return 0;
    if (sb_result_writer_write_json_to(o, env, o->json, o->json_path, err, errlen) != 0) {
        /* Said once: committing it at close would report the same
         * failure again (a full disk gave two FATAL lines). */
        sb_safefile_abandon(&o->json_file);
        o->json = NULL;
        return -1;
    }
    return 0;
}

/* "usl": the fit of a closed-loop thread sweep of 4 counts or more. */
static void write_usl(struct sb_json *j, const struct sb_result_writer *o)
{
    struct sb_usl_fit fit;

    if (sb_usl_report_fit(o, &fit))
        sb_usl_report_json(j, &fit);
}

int sb_result_writer_write_json_to(const struct sb_result_writer *o, const struct sb_lua_env *env, FILE *fp,
                            const char *name, char *err, size_t errlen)
{
    struct sb_json j;

    sb_json_init(&j, fp, true);
    sb_json_begin_object(&j);
    sb_json_kv_string(&j, "format", "sysbench-result");
    sb_json_kv_int(&j, "format_version", SB_RESULT_WRITER_FORMAT_VERSION);
    sb_run_context_tool(&j);
    sb_run_context_time(&j, "started_at", o->started);
    sb_run_context_time(&j, "finished_at", time(NULL));
    sb_run_context_command_line(&j, env);
    sb_json_kv_string(&j, "script", env->script_path ? env->script_path : "-");
    sb_json_kv_string(&j, "command", env->command);
    json_end(&j, o);
    sb_run_context_options(&j, env);
    sb_run_context_environment(&j, o->driver_name, o->server_version, &o->server_info);
    sb_instance_write_json(&j, &sb_cfg->instance);
    /* The seed used: options.general.rand-seed stays as given (0 when the
     * clock chose it), so that compare does not flag two clock seeds. */
    sb_json_key(&j, "rand_seed");
    sb_json_begin_object(&j);
    sb_json_kv_uint(&j, "value", sb_cfg->rand_seed);
    sb_json_kv_string(&j, "from", sb_cfg->rand_seed_given ? "option" : "clock");
    sb_json_end_object(&j);
    sb_json_key(&j, "percentiles");
    sb_json_begin_array_inline(&j);
    for (size_t i = 0; i < o->npcts; i++)
        sb_json_double(&j, o->pcts[i]);
    sb_json_end_array(&j);
    sb_json_key(&j, "points");
    sb_json_begin_array(&j);
    for (size_t i = 0; i < o->npoints; i++)
        json_point(&j, o, &o->points[i], i + 1);
    sb_json_end_array(&j);
    sb_repeat_json(&j, o);
    if (o->find_max != NULL)
        sb_findmax_json(&j, o->find_max);
    if (o->threads_auto != NULL)
        sb_peak_report_json(&j, o->threads_auto);
    write_usl(&j, o);
    sb_json_end_object(&j);
    errno = 0;
    if (sb_json_finish(&j) != 0) {
        snprintf(err, errlen, "cannot write the --json file '%s': %s", name,
                 errno ? strerror(errno) : "internal error in the JSON writer");
        return -1;
    }
    return 0;
}
