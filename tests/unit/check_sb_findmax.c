/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the --find-max search (sb_findmax) with a fake server
 * in place of the run: a server of known open-loop capacity whose run
 * either holds (achieved = target, 2 ms) or misses (achieved = capacity,
 * 200 ms), with noise on the capacity per run and scripted one-off stalls
 * or lucky runs. The answer must be within the bisection bracket of the
 * true capacity, both ends of the final bracket measured three times, no
 * rate held above a miss, and a failed run must end the search.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pure/sb_findmax.h"
#include "core/sb_json_write.h"
#include "core/sb_json_read.h"
#include "sb_test_rng.h"

#define MAX_CALLS 256

struct fake {
    double cap;              /* open-loop capacity, tx/s (INFINITY: never misses) */
    double closed;           /* what the closed loop reports */
    double noise;            /* capacity per run: cap * (1 + noise * u), u in [-1, 1] */
    double latency_ms;       /* latency of a run that holds */
    uint64_t rng;
    /* The first run at a rate in [once_lo, once_hi] misses (once_miss) or
     * holds (!once_miss), whatever the capacity says: a stall, or luck. */
    double once_lo, once_hi;
    bool once_miss, once_done;
    unsigned fail_call;      /* 1-based call that fails with fail_rc; 0 never */
    int fail_rc;
    unsigned calls;
    double rate[MAX_CALLS];
    bool again[MAX_CALLS];
};

static double uniform(struct fake *f)
{
    /* Deterministic per seed (tests/unit/sb_test_rng.h). */
    return sb_test_noise(&f->rng);
}

static int fake_run(void *ctx, double rate, bool again, struct sb_findmax_fig *fig)
{
    struct fake *f = ctx;
    double cap = f->cap * (1 + f->noise * uniform(f));
    bool holds = rate <= cap;

    ck_assert_uint_lt(f->calls, MAX_CALLS);
    f->rate[f->calls] = rate;
    f->again[f->calls] = again;
    f->calls++;
    if (f->fail_call == f->calls)
        return f->fail_rc;
    if (rate == 0) {
        fig->tps = f->closed;
        fig->latency_ms = f->latency_ms;
        return 0;
    }
    if (!f->once_done && rate >= f->once_lo && rate <= f->once_hi) {
        f->once_done = true;
        holds = !f->once_miss;
    }
    fig->tps = holds ? rate : fmin(rate, f->cap) * 0.9;
    fig->latency_ms = holds ? f->latency_ms : 200;
    return 0;
}

static void fake_init(struct fake *f, double cap)
{
    memset(f, 0, sizeof(*f));
    f->cap = cap;
    f->closed = cap;
    f->latency_ms = 2;
    f->rng = 0x9e3779b97f4a7c15ULL;
    f->once_lo = f->once_hi = -1;
}

/* Runs the search on f with SLA p99 <= 50 ms; the text goes to *text
 * (the caller frees it) when text is not NULL. */
static int search(struct fake *f, struct sb_findmax_result *res, bool progress, char **text)
{
    struct sb_findmax_params par = {.pct = 99, .ms = 50, .repeat = 1, .run_s = 1,
                                    .progress = progress, .now_s = NULL};
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    int rc;

    ck_assert_ptr_nonnull(out);
    rc = sb_findmax_search(fake_run, f, &par, res, out);
    fclose(out);
    if (text != NULL)
        *text = buf;
    else
        free(buf);
    return rc;
}

static const struct sb_findmax_rate *rate_at(const struct sb_findmax_result *res, double t)
{
    for (size_t i = 0; i < res->nrates; i++)
        if (res->rates[i].target == t)
            return &res->rates[i];
    return NULL;
}

/* What every finished search must satisfy: the rates sorted, no rate held
 * above a miss, the answer the highest rate held with the lowest miss
 * within 2% above it, both ends measured three times, the budget kept. */
static void check_invariants(const struct sb_findmax_result *res, const struct fake *f)
{
    double lowest_miss = INFINITY;

    ck_assert(res->complete);
    ck_assert_uint_le(res->probes, SB_FINDMAX_MAX_PROBES);
    ck_assert_uint_eq(res->runs, f->calls);
    for (size_t i = 0; i < res->nrates; i++) {
        const struct sb_findmax_rate *r = &res->rates[i];
        if (i > 0)
            ck_assert(r->target > res->rates[i - 1].target);
        if (!r->holds && r->target < lowest_miss)
            lowest_miss = r->target;
        if (r->holds)
            ck_assert_msg(r->target < lowest_miss, "%.2f held above the miss at %.2f",
                          r->target, lowest_miss);
    }
    ck_assert(res->monotone);
    if (res->max_rate > 0 && res->fail_rate > 0 && !res->out_of_probes) {
        ck_assert_double_eq(res->fail_rate, lowest_miss);
        ck_assert(res->fail_rate / res->max_rate - 1 <= 0.02 + 1e-9 ||
                  res->fail_rate - res->max_rate <= 0.5);
        ck_assert_uint_ge(rate_at(res, res->max_rate)->runs, 3);
        ck_assert_uint_ge(rate_at(res, res->fail_rate)->runs, 3);
    }
}

START_TEST(test_clean_server)
{
    struct fake f;
    struct sb_findmax_result res;

    fake_init(&f, 1000);
    ck_assert_int_eq(search(&f, &res, false, NULL), 0);
    check_invariants(&res, &f);
    ck_assert_double_eq(f.rate[0], 0); /* the closed loop first */
    ck_assert_double_eq(res.capacity_tps, 1000);
    ck_assert(res.max_rate >= 980 && res.max_rate <= 1000);
    ck_assert(res.fail_rate > 1000);
    for (size_t i = 0; i < res.nrates; i++)
        ck_assert(res.rates[i].holds == (res.rates[i].target <= 1000));
    /* Runs of one rate in a row are flagged as such (grouped as repeats). */
    for (unsigned i = 1; i < f.calls; i++)
        ck_assert(f.again[i] == (f.rate[i] == f.rate[i - 1]));
    ck_assert(!f.again[0]);
}
END_TEST

/* A stall makes the first run at 0.8 x capacity miss: without confirming
 * the lowest miss the answer would be about 790 tx/s. */
START_TEST(test_spurious_miss)
{
    struct fake f;
    struct sb_findmax_result res;

    fake_init(&f, 1000);
    f.once_lo = 790, f.once_hi = 810, f.once_miss = true;
    f.closed = 1000;
    f.cap = 1000;
    /* The closed loop says 1000, 1050 misses, 800 stalls. */
    ck_assert_int_eq(search(&f, &res, false, NULL), 0);
    ck_assert(f.once_done);
    ck_assert_msg(res.max_rate >= 980 && res.max_rate <= 1000, "found %.2f", res.max_rate);
    ck_assert(rate_at(&res, 800) != NULL && rate_at(&res, 800)->holds);
    ck_assert(rate_at(&res, 800)->remeasured);
    check_invariants(&res, &f);
}
END_TEST

/* A lucky run holds 1.05 x capacity once: confirming the highest rate
 * held takes it back. */
START_TEST(test_spurious_pass)
{
    struct fake f;
    struct sb_findmax_result res;

    fake_init(&f, 1000);
    f.closed = 1000;
    f.once_lo = 1040, f.once_hi = 1060, f.once_miss = false;
    ck_assert_int_eq(search(&f, &res, false, NULL), 0);
    ck_assert(f.once_done);
    ck_assert_msg(res.max_rate >= 980 && res.max_rate <= 1000, "found %.2f", res.max_rate);
    ck_assert(!rate_at(&res, 1050)->holds);
    check_invariants(&res, &f);
}
END_TEST

/* The issue's case: a slower rate missed (a stall) while a faster one
 * held. Whatever the order, the answer may not lie above a miss. */
START_TEST(test_issue_sequence)
{
    struct fake f;
    struct sb_findmax_result res;

    /* Closed loop 147.3: tries 154.7 (misses), 117.8, then bisects; the
     * first run between 140 and 142 stalls. */
    fake_init(&f, 152.8);
    f.closed = 147.3;
    f.once_lo = 140, f.once_hi = 150, f.once_miss = true;
    ck_assert_int_eq(search(&f, &res, false, NULL), 0);
    ck_assert(f.once_done);
    ck_assert_msg(res.max_rate >= 152.8 * 0.98 && res.max_rate <= 152.8, "found %.2f",
                  res.max_rate);
    check_invariants(&res, &f);
}
END_TEST

/* Noisy capacity (+-3% per run) over 300 seeds: every answer within 5% of
 * the true capacity, no rate held above a miss, within the budget. */
START_TEST(test_noisy_property)
{
    unsigned out_of_probes = 0;

    for (uint64_t seed = 1; seed <= 300; seed++) {
        struct fake f;
        struct sb_findmax_result res;

        fake_init(&f, 1000);
        f.noise = 0.03;
        f.closed = 900 + (double)(seed % 7) * 50; /* closed loop 900 .. 1200 */
        f.rng = seed * 0x9e3779b97f4a7c15ULL;
        ck_assert_int_eq(search(&f, &res, false, NULL), 0);
        check_invariants(&res, &f);
        ck_assert_msg(fabs(res.max_rate / 1000 - 1) <= 0.05, "seed %llu: found %.2f",
                      (unsigned long long)seed, res.max_rate);
        out_of_probes += res.out_of_probes;
    }
    ck_assert_uint_le(out_of_probes, 3);
}
END_TEST

/* Open-loop capacity far below the closed loop's: the search bisects
 * down from the rates that missed. */
START_TEST(test_open_far_below_closed)
{
    struct fake f;
    struct sb_findmax_result res;

    fake_init(&f, 300);
    f.closed = 1000;
    ck_assert_int_eq(search(&f, &res, false, NULL), 0);
    check_invariants(&res, &f);
    ck_assert_msg(res.max_rate >= 294 && res.max_rate <= 300, "found %.2f", res.max_rate);
}
END_TEST

START_TEST(test_nothing_holds)
{
    struct fake f;
    struct sb_findmax_result res;
    char *text;

    fake_init(&f, 1000);
    f.latency_ms = 80; /* above the 50 ms SLA at any rate */
    ck_assert_int_eq(search(&f, &res, false, &text), 0);
    ck_assert(res.complete);
    ck_assert_double_eq(res.max_rate, 0);
    ck_assert_ptr_nonnull(strstr(text, "Highest rate held: none"));
    free(text);
}
END_TEST

START_TEST(test_everything_holds)
{
    struct fake f;
    struct sb_findmax_result res;
    char *text;

    fake_init(&f, INFINITY);
    f.closed = 1000;
    ck_assert_int_eq(search(&f, &res, false, &text), 0);
    check_invariants(&res, &f);
    ck_assert_double_eq_tol(res.max_rate, 1050 * 1.5 * 1.5 * 1.5, 1e-6);
    ck_assert_double_eq(res.fail_rate, 0);
    ck_assert_ptr_nonnull(strstr(text, "capacity at least that"));
    free(text);
}
END_TEST

START_TEST(test_no_closed_loop_throughput)
{
    struct fake f;
    struct sb_findmax_result res;

    fake_init(&f, 1000);
    f.closed = 0;
    ck_assert_int_eq(search(&f, &res, false, NULL), 0);
    ck_assert_uint_eq(f.calls, 1);
    ck_assert_double_eq(res.max_rate, 0);
}
END_TEST

/* A failed or interrupted run ends the search with its status; what was
 * measured stays in the result. */
START_TEST(test_run_error)
{
    struct fake f;
    struct sb_findmax_result res;

    fake_init(&f, 1000);
    f.fail_call = 4;
    f.fail_rc = 130;
    ck_assert_int_eq(search(&f, &res, false, NULL), 130);
    ck_assert_uint_eq(f.calls, 4);
    ck_assert_uint_eq(res.runs, 4);
    ck_assert(!res.complete);
    ck_assert_uint_ge(res.nrates, 1);
}
END_TEST

/* One line per probe; a progress line only on a terminal. */
START_TEST(test_output)
{
    struct fake f;
    struct sb_findmax_result res;
    char *text, prefix[16], *line;
    unsigned lines = 0;

    fake_init(&f, 1000);
    ck_assert_int_eq(search(&f, &res, false, &text), 0);
    ck_assert_ptr_null(strchr(text, '\r'));
    for (unsigned k = 1; k <= res.probes; k++) {
        snprintf(prefix, sizeof(prefix), "\n%2u/%-2u ", k, SB_FINDMAX_MAX_PROBES);
        ck_assert_msg(strstr(text, prefix) != NULL, "no line for probe %u", k);
    }
    for (line = text; (line = strchr(line, '\n')) != NULL; line++)
        lines += line[1] != '\0' && line[2] != '\0' && line[3] == '/';
    ck_assert_uint_eq(lines, res.probes);
    ck_assert_ptr_nonnull(strstr(text, "Highest rate held: "));
    ck_assert_ptr_nonnull(strstr(text, "(capacity between "));
    free(text);

    fake_init(&f, 1000);
    ck_assert_int_eq(search(&f, &res, true, &text), 0);
    ck_assert_ptr_nonnull(strstr(text, "\r\033[K--find-max: probe 1 of at most 24: closed loop, "
                                       "run 1 of 1, about "));
    ck_assert_ptr_nonnull(strstr(text, "s left"));
    free(text);
}
END_TEST

START_TEST(test_json)
{
    struct fake f;
    struct sb_findmax_result res;
    struct sb_json j;
    struct sb_jv *doc;
    char *buf = NULL, err[256];
    size_t len = 0;
    FILE *out;

    fake_init(&f, 1000);
    ck_assert_int_eq(search(&f, &res, false, NULL), 0);
    out = open_memstream(&buf, &len);
    sb_json_init(&j, out, true);
    sb_json_begin_object(&j);
    sb_findmax_json(&j, &res);
    sb_json_end_object(&j);
    ck_assert_int_eq(sb_json_finish(&j), 0);
    fclose(out);
    doc = sb_jv_parse(buf, len, err, sizeof(err));
    ck_assert_msg(doc != NULL, "%s", err);
    ck_assert_double_eq(sb_jv_num(sb_jv_path(doc, "find_max.rate_held")), res.max_rate);
    ck_assert_double_eq(sb_jv_num(sb_jv_path(doc, "find_max.lowest_rate_missed")),
                        res.fail_rate);
    ck_assert_double_eq(sb_jv_num(sb_jv_path(doc, "find_max.sla.percentile")), 99);
    ck_assert_double_eq(sb_jv_num(sb_jv_path(doc, "find_max.closed_loop_tps")), 1000);
    ck_assert_double_eq(sb_jv_num(sb_jv_path(doc, "find_max.runs")), f.calls);
    ck_assert_double_eq(sb_jv_num(sb_jv_path(doc, "find_max.rates.0.target_tps")),
                        res.rates[0].target);
    ck_assert_double_eq(sb_jv_num(sb_jv_path(doc, "find_max.rates.0.achieved_tps.0")),
                        res.rates[0].tps[0]);
    sb_jv_free(doc);
    free(buf);
}
END_TEST

START_TEST(test_parse_sla)
{
    double pct, ms;
    char err[256];

    ck_assert_int_eq(sb_findmax_parse_sla("p99:20ms", true, &pct, &ms, err, sizeof(err)), 0);
    ck_assert_double_eq(pct, 99);
    ck_assert_double_eq(ms, 20);
    ck_assert_int_eq(sb_findmax_parse_sla("p99.9:500us", true, &pct, &ms, err, sizeof(err)), 0);
    ck_assert_double_eq_tol(ms, 0.5, 1e-12);
    ck_assert_int_eq(sb_findmax_parse_sla("p50:1.5s", true, &pct, &ms, err, sizeof(err)), 0);
    ck_assert_double_eq(ms, 1500);
    ck_assert_int_eq(sb_findmax_parse_sla("p0:1ms", true, &pct, &ms, err, sizeof(err)), -1);
    ck_assert_int_eq(sb_findmax_parse_sla("p99:1", true, &pct, &ms, err, sizeof(err)), -1);
    ck_assert_int_eq(sb_findmax_parse_sla("", true, &pct, &ms, err, sizeof(err)), -1);
    ck_assert_int_eq(sb_findmax_parse_sla("p99:1ms", false, &pct, &ms, err, sizeof(err)), -1);
    ck_assert_int_eq(sb_findmax_parse_sla(NULL, false, &pct, &ms, err, sizeof(err)), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sb_findmax");
    TCase *tc = tcase_create("core");
    SRunner *sr;
    int failed;

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_clean_server);
    tcase_add_test(tc, test_spurious_miss);
    tcase_add_test(tc, test_spurious_pass);
    tcase_add_test(tc, test_issue_sequence);
    tcase_add_test(tc, test_noisy_property);
    tcase_add_test(tc, test_open_far_below_closed);
    tcase_add_test(tc, test_nothing_holds);
    tcase_add_test(tc, test_everything_holds);
    tcase_add_test(tc, test_no_closed_loop_throughput);
    tcase_add_test(tc, test_run_error);
    tcase_add_test(tc, test_output);
    tcase_add_test(tc, test_json);
    tcase_add_test(tc, test_parse_sla);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
