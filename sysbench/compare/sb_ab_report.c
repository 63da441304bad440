/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the ab command prints and writes: the progress line of each round,
 * the final table and verdict, and the --json document; see sb_ab_int.h.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compare/sb_ab_int.h"
#include "core/sb_json_write.h"
#include "core/sb_safefile.h"
#include "pure/sb_ci.h"

/* An interval's level, "99.61%", or "99.9999+%" for the strict early
 * looks, whose level rounds to 100. */
static void fmt_level(double nominal, char *buf, size_t len)
{
    if (!(nominal > 0))
        snprintf(buf, len, "-");
    else if (nominal < 1e-6)
        snprintf(buf, len, "99.9999+%%");
    else
        snprintf(buf, len, "%.*f%%", nominal < 1e-3 ? 4 : 2, 100 * (1 - nominal));
}

static void fmt_duration(double s, char *buf, size_t len)
{
    if (s < 0)
        s = 0;
    if (s >= 60)
        snprintf(buf, len, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
    else
        snprintf(buf, len, "%.0fs", s);
}

/* A figure with four significant digits (49120, 4.251, 0.008123). */
static void fmt_value(double v, char *buf, size_t len)
{
    int decimals = v != 0 && isfinite(v) ? 3 - (int)floor(log10(fabs(v))) : 2;

    if (isnan(v))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.*f", decimals < 0 ? 0 : decimals > 6 ? 6 : decimals, v);
}

/* An interval, its bounds cut to "<0.001" and ">999" (the early looks'
 * intervals are that wide). */
static void fmt_interval(double lo, double hi, char *buf, size_t len)
{
    char l[16], h[16];

    if (lo < 0.001)
        snprintf(l, sizeof(l), "<0.001");
    else
        snprintf(l, sizeof(l), "%.3f", lo);
    if (hi > 999)
        snprintf(h, sizeof(h), ">999");
    else
        snprintf(h, sizeof(h), "%.3f", hi);
    snprintf(buf, len, "[%s, %s]", l, h);
}

void sb_ab_print_progress(const struct sb_ab *ab, FILE *out)
{
    const struct sb_ab_round *r = &ab->rounds[ab->nrounds - 1];
    const struct sb_ab_figure *fig = &ab->figs[ab->primary];
    char va[32], vb[32], left[32], level[32], ci[48];
    double ratio = exp(sb_ab_log_ratio(r, ab->primary));

    fmt_value(r->side[0].fig[ab->primary], va, sizeof(va));
    fmt_value(r->side[1].fig[ab->primary], vb, sizeof(vb));
    fmt_duration(ab->args->budget_s - (sb_ab_now() - ab->started_unix_s), left, sizeof(left));
    fprintf(out, "round %3u/%zu  %s first  %s %s %s %s  b/a %.3f", r->index, ab->planned,
            r->a_first ? ab->args->label[0] : ab->args->label[1], ab->args->label[0], va,
            ab->args->label[1], vb, ratio);
    if (ab->last_look == ab->nrounds && !isnan(fig->dec.lo)) {
        fmt_level(ab->nominal, level, sizeof(level));
        fmt_interval(fig->dec.lo, fig->dec.hi, ci, sizeof(ci));
        fprintf(out, "  | look: %.3f %s at %s: %s", fig->dec.ratio, ci, level,
                fig->dec.v == SB_SEQ_CONTINUE ? "continue" : fig->verdict);
    } else if (!isnan(fig->est.d)) {
        fprintf(out, "  | so far %.3f", exp(fig->est.d));
    }
    fprintf(out, "  | %s left", left);
    for (int t = 0; t < 2; t++)
        if (r->side[t].flagged)
            fprintf(out, "  [%s: %s]", ab->args->label[t], r->side[t].flags);
    fputc('\n', out);
    fflush(out);
}

/* One row of the table. */
static void print_row(const struct sb_ab *ab, int f, FILE *out)
{
    const struct sb_ab_figure *fig = &ab->figs[f];
    const struct sb_ab_fig_def *def = &sb_ab_figs[f];
    char va[32], vb[32], ci[48], level[32], det[32];

    fmt_value(fig->value[0], va, sizeof(va));
    fmt_value(fig->value[1], vb, sizeof(vb));
    if (isnan(fig->dec.lo))
        snprintf(ci, sizeof(ci), "-");
    else
        fmt_interval(fig->dec.lo, fig->dec.hi, ci, sizeof(ci));
    fmt_level(1 - fig->dec.level, level, sizeof(level));
    if (isnan(fig->dec.detectable))
        snprintf(det, sizeof(det), "-");
    else
        snprintf(det, sizeof(det), "%.1f%%", 100 * fig->dec.detectable);
    fprintf(out, "%c %-20s %12s %12s %7.3fx  %-17s %-10s %-13s %s\n", f == ab->primary ? '*' : ' ',
            def->name, va, vb, fig->dec.ratio, ci, level, fig->verdict, det);
}

static void print_table(const struct sb_ab *ab, FILE *out)
{
    fprintf(out, "  %-20s %12s %12s %8s  %-17s %-10s %-13s %s\n", "figure", ab->args->label[0],
            ab->args->label[1], "b/a", "interval", "level", "verdict", "detectable");
    print_row(ab, ab->primary, out);
    for (int f = 0; f < SB_AB_NFIGS; f++)
        if (f != ab->primary && ab->figs[f].present)
            print_row(ab, f, out);
}

/* The position effect: how much higher b/a was with a first than with
 * b first (twice the model's half-difference), with its 95% interval. */
static void print_position(const struct sb_ab *ab, FILE *out)
{
    const struct sb_seq_est *e = &ab->figs[ab->primary].est;
    double t, lo, hi;

    if (!isfinite(e->bias_se) || !(e->df > 0))
        return;
    t = sb_ci_t_quantile(0.975, e->df);
    lo = exp(2 * (e->bias - t * e->bias_se)) - 1;
    hi = exp(2 * (e->bias + t * e->bias_se)) - 1;
    fprintf(out, "Position: b/a of %s was %+.1f%% [%+.1f%%, %+.1f%%] higher with %s going first "
            "than with %s (%zu and %zu rounds);\n  b/a above averages both orders, which "
            "cancels it.\n", sb_ab_figs[ab->primary].key, 100 * (exp(2 * e->bias) - 1), 100 * lo,
            100 * hi, ab->args->label[0], ab->args->label[1], e->n_first, e->n - e->n_first);
}

static void print_flagged(const struct sb_ab *ab, FILE *out)
{
    size_t flagged = 0, shown = 0;

    for (size_t i = 0; i < ab->nrounds; i++)
        flagged += ab->rounds[i].side[0].flagged + ab->rounds[i].side[1].flagged;
    if (flagged == 0)
        return;
    fprintf(out, "Self-check: %zu of %zu runs flagged:", flagged, 2 * ab->nrounds);
    for (size_t i = 0; i < ab->nrounds && shown < 6; i++)
        for (int t = 0; t < 2; t++)
            if (ab->rounds[i].side[t].flagged && shown++ < 6)
                fprintf(out, " round %u %s [%s]", ab->rounds[i].index, ab->args->label[t],
                        ab->rounds[i].side[t].flags);
    fprintf(out, "%s\n", flagged > shown ? " ..." : "");
}

static void print_notes(const struct sb_ab *ab, FILE *out)
{
    char level[32];

    fmt_level(ab->nominal, level, sizeof(level));
    fprintf(out, "* the primary figure, judged at 5%% over all %zu looks (O'Brien-Fleming-type "
            "spending of %.2f%%, which keeps\n  5%% for t statistics by simulation; this "
            "look's interval is at %s).\n", ab->nlooks, 100 * ab->spend, level);
    if (ab->nsecondary > 0)
        fprintf(out, "  The other %zu figure%s: each interval at %.2f%% so that all hold "
                "together at 95%% (Bonferroni).\n", ab->nsecondary,
                ab->nsecondary == 1 ? "" : "s", 100 * (1 - 0.05 / (double)ab->nsecondary));
    fprintf(out, "Values: each target's geometric mean over the rounds; b/a their ratio. "
            "Verdicts: better or worse\n  (the interval excludes 1), equivalent (within "
            "+-%g%%: --margin), inconclusive. Detectable: the\n  smallest change the figure "
            "had an 80%% chance to show at its measured variation.\n",
            100 * ab->args->margin);
    print_position(ab, out);
    print_flagged(ab, out);
}

static void print_verdict(const struct sb_ab *ab, FILE *out)
{
    const struct sb_ab_figure *fig = &ab->figs[ab->primary];
    const char *name = sb_ab_figs[ab->primary].name;
    const char *la = ab->args->label[0], *lb = ab->args->label[1];

    fputc('\n', out);
    if (ab->signal != 0 && !ab->final && !ab->decided) {
        fprintf(out, "Interrupted (signal %d) before a verdict: %s %.3fx [%.3f, %.3f] at the "
                "last look.\n", ab->signal, name, fig->dec.ratio, fig->dec.lo, fig->dec.hi);
        return;
    }
    switch (fig->dec.v) {
    case SB_SEQ_DIFFERENT:
        fprintf(out, "Verdict: '%s' is %s than '%s': %s %.3fx [%.3f, %.3f]. (It could see "
                "changes of %.1f%%.)\n", lb, strcmp(fig->verdict, "better") == 0 ? "BETTER" : "WORSE",
                la, name, fig->dec.ratio, fig->dec.lo, fig->dec.hi, 100 * fig->dec.detectable);
        break;
    case SB_SEQ_EQUIVALENT:
        fprintf(out, "Verdict: EQUIVALENT within +-%g%%: %s %.3fx [%.3f, %.3f]. (It could see "
                "changes of %.1f%%.)\n", 100 * ab->args->margin, name, fig->dec.ratio,
                fig->dec.lo, fig->dec.hi, 100 * fig->dec.detectable);
        break;
    default:
        fprintf(out, "Verdict: INCONCLUSIVE: %s %.3fx [%.3f, %.3f]; this comparison could not "
                "see changes smaller than %.1f%%\n  (80%% power at its variation and %zu "
                "rounds): a longer --budget, longer rounds or a quieter machine would.\n",
                name, fig->dec.ratio, fig->dec.lo, fig->dec.hi, 100 * fig->dec.detectable,
                ab->nrounds);
        break;
    }
}

void sb_ab_print_report(const struct sb_ab *ab, FILE *out)
{
    size_t first = 0;
    char took[32];
    const char *why = ab->decided ? "the primary figure decided"
                      : ab->signal != 0 ? "interrupted"
                      : ab->nrounds >= ab->planned ? "the planned rounds were run"
                                                    : "the budget was spent";

    for (size_t i = 0; i < ab->nrounds; i++)
        first += ab->rounds[i].a_first;
    fmt_duration(sb_ab_now() - ab->started_unix_s, took, sizeof(took));
    fprintf(out, "\nResult after %zu rounds (%s; %zu with %s first, %zu with %s first); stopped "
            "at round %zu: %s.\n\n", ab->nrounds, took, first, ab->args->label[0],
            ab->nrounds - first, ab->args->label[1], ab->nrounds, why);
    print_table(ab, out);
    fputc('\n', out);
    print_notes(ab, out);
    print_verdict(ab, out);
    fflush(out);
}

/* ------------------------------------------------------------------ JSON */

static bool is_ab_json(const char *head, size_t len)
{
    static const char tag[] = "\"sysbench-ab\"";

    for (size_t i = 0; i + sizeof(tag) - 1 <= len && i < 256; i++)
        if (memcmp(head + i, tag, sizeof(tag) - 1) == 0)
            return true;
    return false;
}

/* Whether an argument gives a secret's value (a password, a token). */
static bool secret_arg(const char *s)
{
    const char *eq = strchr(s, '=');

    return strncmp(s, "--", 2) == 0 && eq != NULL &&
           (memmem(s, (size_t)(eq - s), "password", 8) != NULL ||
            memmem(s, (size_t)(eq - s), "token", 5) != NULL);
}

static void json_words(struct sb_json *j, const char *key, char **words, size_t n)
{
    sb_json_key(j, key);
    sb_json_begin_array_inline(j);
    for (size_t i = 0; i < n; i++) {
        if (secret_arg(words[i])) {
            char red[160];
            snprintf(red, sizeof(red), "%.*s=<redacted>",
                     (int)(strchr(words[i], '=') - words[i]), words[i]);
            sb_json_string(j, red);
        } else {
            sb_json_string(j, words[i]);
        }
    }
    sb_json_end_array(j);
}

static void json_side(struct sb_json *j, const char *key, const struct sb_ab_side *s)
{
    sb_json_key(j, key);
    sb_json_begin_object(j);
    for (int f = 0; f < SB_AB_NFIGS; f++)
        sb_json_kv_double(j, sb_ab_figs[f].key, s->fig[f]);
    sb_json_kv_double(j, "start_unix_s", s->start_unix_s);
    sb_json_kv_bool(j, "selfcheck_ok", !s->flagged);
    sb_json_kv_string(j, "selfcheck_flags", s->flagged ? s->flags : NULL);
    sb_json_kv_string(j, "server", s->server[0] ? s->server : NULL);
    sb_json_end_object(j);
}

static void json_rounds(struct sb_json *j, const struct sb_ab *ab)
{
    sb_json_key(j, "rounds");
    sb_json_begin_array(j);
    for (size_t i = 0; i < ab->nrounds; i++) {
        const struct sb_ab_round *r = &ab->rounds[i];
        sb_json_begin_object(j);
        sb_json_kv_uint(j, "index", r->index);
        sb_json_kv_string(j, "first", r->a_first ? "a" : "b");
        sb_json_kv_uint(j, "rand_seed", r->seed);
        sb_json_kv_double(j, "started_unix_s", r->started_unix_s);
        sb_json_kv_double(j, "wall_s", r->wall_s);
        sb_json_kv_double(j, "ratio", exp(sb_ab_log_ratio(r, ab->primary)));
        json_side(j, "a", &r->side[0]);
        json_side(j, "b", &r->side[1]);
        sb_json_end_object(j);
    }
    sb_json_end_array(j);
}

static void json_figures(struct sb_json *j, const struct sb_ab *ab)
{
    sb_json_key(j, "figures");
    sb_json_begin_array(j);
    for (int f = 0; f < SB_AB_NFIGS; f++) {
        const struct sb_ab_figure *fig = &ab->figs[f];
        if (!fig->present)
            continue;
        sb_json_begin_object(j);
        sb_json_kv_string(j, "figure", sb_ab_figs[f].key);
        sb_json_kv_bool(j, "primary", f == ab->primary);
        sb_json_kv_bool(j, "higher_is_better", sb_ab_figs[f].higher_is_better);
        sb_json_kv_double(j, "a", fig->value[0]);
        sb_json_kv_double(j, "b", fig->value[1]);
        sb_json_kv_double(j, "ratio", fig->dec.ratio);
        sb_json_kv_double(j, "lo", fig->dec.lo);
        sb_json_kv_double(j, "hi", fig->dec.hi);
        sb_json_kv_double(j, "level", fig->dec.level);
        sb_json_kv_string(j, "verdict", fig->verdict);
        sb_json_kv_double(j, "detectable", fig->dec.detectable);
        sb_json_kv_double(j, "position_bias", exp(2 * fig->est.bias) - 1);
        sb_json_kv_uint(j, "rounds", fig->est.n);
        sb_json_end_object(j);
    }
    sb_json_end_array(j);
}

static void json_looks(struct sb_json *j, const struct sb_ab *ab)
{
    sb_json_key(j, "looks");
    sb_json_begin_array(j);
    for (size_t i = 0; i < ab->nlooks; i++) {
        sb_json_begin_object(j);
        sb_json_kv_uint(j, "round", ab->looks[i].round);
        sb_json_kv_double(j, "level", 1 - ab->looks[i].nominal);
        sb_json_kv_double(j, "ratio", ab->looks[i].ratio);
        sb_json_kv_double(j, "lo", ab->looks[i].lo);
        sb_json_kv_double(j, "hi", ab->looks[i].hi);
        sb_json_end_object(j);
    }
    sb_json_end_array(j);
}

static void json_settings(struct sb_json *j, const struct sb_ab *ab)
{
    const struct sb_ab_args *a = ab->args;

    sb_json_kv_string(j, "mode", a->mode == SB_AB_DUET ? "duet" : "interleaved");
    sb_json_kv_string(j, "script", a->script);
    sb_json_key(j, "labels");
    sb_json_begin_array_inline(j);
    sb_json_string(j, a->label[0]);
    sb_json_string(j, a->label[1]);
    sb_json_end_array(j);
    json_words(j, "a", a->opts[0], a->nopts[0]);
    json_words(j, "b", a->opts[1], a->nopts[1]);
    json_words(j, "common", a->common, a->ncommon);
    sb_json_kv_bool(j, "aa", a->aa);
    sb_json_kv_double(j, "budget_s", a->budget_s);
    sb_json_kv_double(j, "round_time_s", a->time_s);
    sb_json_kv_double(j, "margin", a->margin);
    sb_json_kv_double(j, "alpha", 0.05);
    sb_json_kv_double(j, "alpha_spent", ab->spend);
    sb_json_kv_double(j, "power", SB_SEQ_POWER);
    sb_json_kv_uint(j, "rand_seed", a->seed);
    sb_json_kv_string(j, "primary", sb_ab_figs[ab->primary].key);
    sb_json_kv_string(j, "primary_reason", ab->primary_why);
}

static void json_outcome(struct sb_json *j, const struct sb_ab *ab)
{
    const struct sb_ab_figure *p = &ab->figs[ab->primary];

    sb_json_kv_uint(j, "planned_rounds", ab->planned);
    sb_json_kv_uint(j, "rounds_run", ab->nrounds);
    sb_json_kv_string(j, "ended", ab->decided ? "decided"
                                 : ab->signal != 0 ? "interrupted"
                                 : ab->nrounds >= ab->planned ? "rounds" : "budget");
    sb_json_kv_bool(j, "same_server", ab->same_server);
    sb_json_key(j, "verdict");
    sb_json_begin_object(j);
    sb_json_kv_string(j, "figure", sb_ab_figs[ab->primary].key);
    sb_json_kv_string(j, "verdict", ab->signal != 0 && !ab->final && !ab->decided ? "interrupted"
                                                                                 : p->verdict);
    sb_json_kv_double(j, "ratio", p->dec.ratio);
    sb_json_kv_double(j, "lo", p->dec.lo);
    sb_json_kv_double(j, "hi", p->dec.hi);
    sb_json_kv_double(j, "level", p->dec.level);
    sb_json_kv_double(j, "detectable", p->dec.detectable);
    sb_json_end_object(j);
}

int sb_ab_write_json(const struct sb_ab *ab, int argc, char **argv, char *err, size_t errlen)
{
    struct sb_safefile f;
    struct sb_json j;
    char when[32];
    time_t t = (time_t)ab->started_unix_s;
    struct tm tm;

    if (sb_safefile_open(&f, ab->args->json, "--json", is_ab_json, err, errlen) != 0)
        return -1;
    gmtime_r(&t, &tm);
    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
    sb_json_init(&j, f.fp, true);
    sb_json_begin_object(&j);
    sb_json_kv_string(&j, "format", "sysbench-ab");
    sb_json_kv_int(&j, "format_version", 1);
    sb_json_kv_string(&j, "tool", PACKAGE_NAME " " PACKAGE_VERSION);
    sb_json_kv_string(&j, "started_at", when);
    json_words(&j, "command_line", argv, (size_t)argc);
    json_settings(&j, ab);
    json_outcome(&j, ab);
    json_figures(&j, ab);
    json_looks(&j, ab);
    json_rounds(&j, ab);
    sb_json_end_object(&j);
    if (sb_json_finish(&j) != 0) {
        snprintf(err, errlen, "--json=%s: write failed", ab->args->json);
        sb_safefile_abandon(&f);
        return -1;
    }
    return sb_safefile_commit(&f, err, errlen);
}
