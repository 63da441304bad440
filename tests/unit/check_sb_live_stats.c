/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the live statistics (measure/sb_live_stats.h) and their
 * histograms with pooled chunks (pure/sb_hist_live.h): what a worker
 * records into a live set must read back, through sb_live_accumulate, as
 * exactly the document (struct sb_stats) the same events make when
 * recorded there directly; a reading is a copy that later writes do not
 * change; and a set keeps only the chunks its values fell in.
 * Single-threaded: what is checked is the observable result of the
 * protocol, not the memory ordering (TSan runs of the engine do that).
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/sb_live_stats.h"
#include "sb_test_stats.h"

#define MS 1000000ULL
#define CHUNK_BYTES (SB_HLIVE_CHUNK * sizeof(uint64_t))

static struct sb_stats *new_doc(void)
{
    struct sb_stats *s = sb_stats_new();

    ck_assert_ptr_nonnull(s);
    return s;
}

/* One transaction as a worker records it, into live statistics and (the
 * reference) into a document directly. lag_ns is recorded only where the
 * set has the rate modes' figures. */
static void record_both(struct sb_live_stats *l, struct sb_stats *d, uint64_t response_ns,
                        uint64_t lag_ns)
{
    sb_live_add(l, SB_STAT_EVENTS, 1);
    sb_live_add(l, SB_STAT_READS, 3);
    sb_hist_live_record(&l->response, response_ns);
    sb_stats_add(d, SB_STAT_EVENTS, 1);
    sb_stats_add(d, SB_STAT_READS, 3);
    sb_hist_record(&d->response, response_ns);
    if (l->rate != NULL) {
        sb_hist_live_record(&l->rate->service, response_ns - lag_ns);
        sb_hist_live_record(&l->rate->lag, lag_ns);
        sb_dhist_record(&l->rate->wake, lag_ns);
        sb_hist_record(&d->service, response_ns - lag_ns);
        sb_hist_record(&d->lag, lag_ns);
        sb_dhist_record(&d->wake, lag_ns);
    }
}

/* a and b hold the same figures (codes in the same order). */
static void assert_same(const struct sb_stats *a, const struct sb_stats *b)
{
    for (int i = 0; i < SB_STAT_NCOUNTERS; i++)
        ck_assert_uint_eq(a->c[i], b->c[i]);
    ck_assert_int_eq(memcmp(&a->response, &b->response, sizeof(a->response)), 0);
    ck_assert_int_eq(memcmp(&a->service, &b->service, sizeof(a->service)), 0);
    ck_assert_int_eq(memcmp(&a->lag, &b->lag, sizeof(a->lag)), 0);
    ck_assert_int_eq(memcmp(&a->wake, &b->wake, sizeof(a->wake)), 0);
    ck_assert_uint_eq(a->ncodes, b->ncodes);
    for (unsigned i = 0; i < a->ncodes; i++) {
        ck_assert_str_eq(a->codes[i].code, b->codes[i].code);
        ck_assert_uint_eq(a->codes[i].count, b->codes[i].count);
    }
}

/* Values from 1 ns to past the histogram's range, recorded live and into
 * a document: the accumulated reading equals the document, with and
 * without the rate modes' figures. */
START_TEST(test_reads_back_as_recorded)
{
    for (int with_rate = 0; with_rate <= 1; with_rate++) {
        struct sb_live_set *set = sb_live_set_new(2, with_rate);
        struct sb_live_stats *l;
        struct sb_stats *ref = new_doc(), *got = new_doc();
        struct sb_db_error e = sb_test_db_error(1213, "40001"), gone = sb_test_db_error(2013, "");
        uint64_t v = 1;

        ck_assert_ptr_nonnull(set);
        l = sb_live_set_at(set, 1);
        ck_assert(with_rate ? l->rate != NULL : l->rate == NULL);
        for (int i = 0; i < 400; i++) {
            record_both(l, ref, v, v / 3);
            v = v * 11 / 10 + 1;       /* up to about 2^55 ns: clamped too */
        }
        sb_live_count_code(l, &e, false);
        sb_live_count_code(l, &gone, true);
        sb_stats_count_code(ref, &e, false);
        sb_stats_count_code(ref, &gone, true);
        sb_live_accumulate(got, l);
        ck_assert_uint_gt(got->response.clamped, 0);
        assert_same(got, ref);
        /* The untouched statistics 0 read as empty. */
        sb_stats_free(got);
        got = new_doc();
        sb_live_accumulate(got, sb_live_set_at(set, 0));
        ck_assert_uint_eq(got->response.total, 0);
        ck_assert_uint_eq(got->response.min_ns, UINT64_MAX);
        ck_assert_uint_eq(got->ncodes, 0);
        sb_stats_free(ref);
        sb_stats_free(got);
        sb_live_set_free(set);
    }
}
END_TEST

/* A reading is a copy: what the owner writes next does not change it,
 * and the next reading sees it. */
START_TEST(test_reading_while_writing)
{
    struct sb_live_set *set = sb_live_set_new(1, true);
    struct sb_live_stats *l = sb_live_set_at(set, 0);
    struct sb_stats *ref = new_doc(), *a = new_doc(), *b = new_doc();
    struct sb_db_error e = sb_test_db_error(1205, "");

    record_both(l, ref, 2 * MS, 0);
    sb_live_count_code(l, &e, false);
    sb_live_accumulate(a, l);
    record_both(l, ref, 8 * MS, 1 * MS);
    sb_live_add(l, SB_STAT_RECONNECTS, 1);
    sb_live_count_code(l, &e, false);
    sb_live_accumulate(b, l);

    ck_assert_uint_eq(a->c[SB_STAT_EVENTS], 1);
    ck_assert_uint_eq(a->c[SB_STAT_RECONNECTS], 0);
    ck_assert_uint_eq(a->response.total, 1);
    ck_assert_uint_eq(a->response.max_ns, 2 * MS);
    ck_assert_int_eq(sb_test_code_count(a, "1205", false), 1);
    ck_assert_uint_eq(b->c[SB_STAT_EVENTS], 2);
    ck_assert_uint_eq(b->c[SB_STAT_RECONNECTS], 1);
    ck_assert_uint_eq(b->response.max_ns, 8 * MS);
    ck_assert_uint_eq(b->lag.sum_ns, 1 * MS);
    ck_assert_int_eq(sb_test_code_count(b, "1205", false), 2);
    ck_assert_int_eq(memcmp(&b->response, &ref->response, sizeof(b->response)), 0);
    sb_stats_free(ref);
    sb_stats_free(a);
    sb_stats_free(b);
    sb_live_set_free(set);
}
END_TEST

/* The reporter's way: every writer accumulated into one total equals the
 * merge of their documents, and the difference of two totals is the
 * interval in between. */
START_TEST(test_total_and_interval)
{
    struct sb_live_set *set = sb_live_set_new(3, true);
    struct sb_stats *doc[3], *merged = new_doc(), *t1 = new_doc(), *t2 = new_doc(),
                    *delta = new_doc();
    struct sb_db_error deadlock = sb_test_db_error(1213, "");

    for (unsigned i = 0; i < 3; i++) {
        doc[i] = new_doc();
        for (unsigned k = 0; k <= i; k++)
            record_both(sb_live_set_at(set, i), doc[i], (i + 1) * 7 * MS, k * MS);
        sb_live_count_code(sb_live_set_at(set, i), &deadlock, false);
        sb_stats_count_code(doc[i], &deadlock, false);
        sb_stats_merge(merged, doc[i]);
        sb_live_accumulate(t1, sb_live_set_at(set, i));
    }
    assert_same(t1, merged);
    record_both(sb_live_set_at(set, 1), doc[1], 50 * MS, 0);
    record_both(sb_live_set_at(set, 1), doc[1], 60 * MS, 0);
    sb_live_count_code(sb_live_set_at(set, 1), &deadlock, false);
    for (unsigned i = 0; i < 3; i++)
        sb_live_accumulate(t2, sb_live_set_at(set, i));
    sb_stats_diff(delta, t2, t1);
    ck_assert_uint_eq(delta->c[SB_STAT_EVENTS], 2);
    ck_assert_uint_eq(delta->response.total, 2);
    ck_assert_uint_eq(delta->response.sum_ns, 110 * MS);
    ck_assert_int_eq(sb_test_code_count(delta, "1213", false), 1);
    for (unsigned i = 0; i < 3; i++)
        sb_stats_free(doc[i]);
    sb_stats_free(merged);
    sb_stats_free(t1);
    sb_stats_free(t2);
    sb_stats_free(delta);
    sb_live_set_free(set);
}
END_TEST

/* A reset empties the figures, keeps the codes known (with no count) and
 * the chunks taken, and what is recorded after reads back alone. */
START_TEST(test_reset)
{
    struct sb_live_set *set = sb_live_set_new(1, true);
    struct sb_live_stats *l = sb_live_set_at(set, 0);
    struct sb_stats *ref = new_doc(), *got = new_doc();
    struct sb_db_error e = sb_test_db_error(1213, "40001");
    size_t used;

    record_both(l, ref, 5 * MS, 1 * MS);
    record_both(l, ref, 900 * MS, 2 * MS);
    sb_live_count_code(l, &e, false);
    used = sb_live_set_chunk_bytes(set);
    sb_live_reset(l);
    sb_live_accumulate(got, l);
    for (int i = 0; i < SB_STAT_NCOUNTERS; i++)
        ck_assert_uint_eq(got->c[i], 0);
    ck_assert_uint_eq(got->response.total, 0);
    ck_assert_uint_eq(got->response.min_ns, UINT64_MAX);
    ck_assert_uint_eq(got->lag.total, 0);
    ck_assert_uint_eq(got->wake.total, 0);
    for (size_t b = 0; b < SB_HIST_BUCKETS; b++)
        ck_assert_uint_eq(got->response.counts[b], 0);
    ck_assert_int_eq(sb_test_code_count(got, "1213", false), 0);
    ck_assert_uint_eq(sb_live_set_chunk_bytes(set), used);

    sb_stats_reset(ref);
    sb_stats_free(got);
    got = new_doc();
    record_both(l, ref, 5 * MS, 1 * MS);   /* in chunks taken before */
    sb_live_count_code(l, &e, false);
    sb_stats_count_code(ref, &e, false);
    sb_live_accumulate(got, l);
    assert_same(got, ref);
    ck_assert_uint_eq(sb_live_set_chunk_bytes(set), used);
    sb_stats_free(ref);
    sb_stats_free(got);
    sb_live_set_free(set);
}
END_TEST

/* Chunks are taken where values fall and only there: a chunk's first
 * value takes one, values in a chunk already taken none, and 1,000
 * writers recording in the same three chunks take 3,000. */
START_TEST(test_chunks_only_where_used)
{
    struct sb_live_set *set = sb_live_set_new(1000, false);
    /* Three values in three different chunks, and a fourth in the first
     * value's chunk (its neighbour bucket). */
    uint64_t v[4] = { 200 * 1000, 3 * MS, 700 * MS, 200 * 1000 + 1600 };

    ck_assert_uint_eq(sb_hist_bucket_of(v[0]) / SB_HLIVE_CHUNK,
                      sb_hist_bucket_of(v[3]) / SB_HLIVE_CHUNK);
    ck_assert_uint_ne(sb_hist_bucket_of(v[0]), sb_hist_bucket_of(v[3]));
    ck_assert_uint_eq(sb_live_set_chunk_bytes(set), 0);
    sb_hist_live_record(&sb_live_set_at(set, 0)->response, v[0]);
    ck_assert_uint_eq(sb_live_set_chunk_bytes(set), CHUNK_BYTES);
    sb_hist_live_record(&sb_live_set_at(set, 0)->response, v[3]);
    ck_assert_uint_eq(sb_live_set_chunk_bytes(set), CHUNK_BYTES);
    for (unsigned i = 0; i < 1000; i++)
        for (int k = 0; k < 3; k++)
            sb_hist_live_record(&sb_live_set_at(set, i)->response, v[k]);
    ck_assert_uint_eq(sb_live_set_chunk_bytes(set), 3000 * CHUNK_BYTES);
    sb_live_set_free(set);
}
END_TEST

/* Every bucket of every histogram of a set used: the pool holds them all
 * (it is sized for the worst case), and the reading is still exact. */
START_TEST(test_every_bucket)
{
    struct sb_live_set *set = sb_live_set_new(2, true);
    struct sb_stats *ref = new_doc(), *got = new_doc();

    for (unsigned i = 0; i < 2; i++) {
        struct sb_live_stats *l = sb_live_set_at(set, i);
        for (size_t b = 0; b < SB_HIST_BUCKETS; b++) {
            uint64_t x = sb_hist_bucket_low(b);
            sb_hist_live_record(&l->response, x);
            sb_hist_live_record(&l->rate->service, x);
            sb_hist_live_record(&l->rate->lag, x);
            sb_hist_record(&ref->response, x);
            sb_hist_record(&ref->service, x);
            sb_hist_record(&ref->lag, x);
        }
        sb_live_accumulate(got, l);
    }
    ck_assert_uint_eq(sb_live_set_chunk_bytes(set), 2 * 3 * SB_HLIVE_CHUNKS * CHUNK_BYTES);
    ck_assert_int_eq(memcmp(&got->response, &ref->response, sizeof(ref->response)), 0);
    ck_assert_int_eq(memcmp(&got->service, &ref->service, sizeof(ref->service)), 0);
    ck_assert_int_eq(memcmp(&got->lag, &ref->lag, sizeof(ref->lag)), 0);
    sb_stats_free(ref);
    sb_stats_free(got);
    sb_live_set_free(set);
}
END_TEST

/* What every writer touches per event lies packed: one cache-line-aligned
 * block each, small enough that a thousand writers keep under a megabyte
 * resident. */
START_TEST(test_packed_and_aligned)
{
    struct sb_live_set *set = sb_live_set_new(3, false);

    ck_assert_uint_eq(sizeof(struct sb_live_stats) % 64, 0);
    ck_assert_uint_le(sizeof(struct sb_live_stats), 1024);
    for (unsigned i = 0; i < 3; i++)
        ck_assert_uint_eq((uintptr_t)sb_live_set_at(set, i) % 64, 0);
    ck_assert_ptr_eq(sb_live_set_at(set, 1), sb_live_set_at(set, 0) + 1);
    sb_live_set_free(set);
    sb_live_set_free(NULL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sb_live_stats");
    TCase *tc = tcase_create("live");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, test_reads_back_as_recorded);
    tcase_add_test(tc, test_reading_while_writing);
    tcase_add_test(tc, test_total_and_interval);
    tcase_add_test(tc, test_reset);
    tcase_add_test(tc, test_chunks_only_where_used);
    tcase_add_test(tc, test_every_bucket);
    tcase_add_test(tc, test_packed_and_aligned);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
