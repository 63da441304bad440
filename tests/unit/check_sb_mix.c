/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for sb_mix: mix members parsed or refused with one line,
 * types drawn in proportion to their weights (a chi-square bound, far
 * from its threshold), a seed reproducing the draws, and the chunk that
 * loads the scripts quoting every byte of a path safely; per-type rates
 * (--tx-rate-per-type) parsed, refused and drawn in their shares.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "pure/sb_mix.h"

START_TEST(test_parse)
{
    struct sb_mix m;
    char err[256];

    memset(&m, 0, sizeof(m));
    ck_assert(sb_mix_is_member("a@1"));
    ck_assert(!sb_mix_is_member("oltp_read_write"));
    ck_assert_int_eq(sb_mix_add(&m, "oltp_point_select@80", err, sizeof(err)), 0);
    ck_assert_int_eq(sb_mix_add(&m, "./dir@x/s.lua@20", err, sizeof(err)), 0);
    ck_assert_uint_eq(m.n, 2);
    ck_assert_str_eq(m.t[0].name, "oltp_point_select");
    ck_assert_str_eq(m.t[1].name, "./dir@x/s.lua");
    ck_assert_uint_eq(m.t[1].weight, 20);
    ck_assert_uint_eq(m.cum[1], 100);
}
END_TEST

START_TEST(test_refused)
{
    static const char *bad[] = { "a@", "a@0", "a@x", "a@-1", "a@+1", "a@ 1", "a@1.5",
                                 "a@99999999999999999999", "@3" };
    struct sb_mix m;
    char err[256];

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        memset(&m, 0, sizeof(m));
        err[0] = '\0';
        ck_assert_msg(sb_mix_add(&m, bad[i], err, sizeof(err)) == -1, "%s accepted", bad[i]);
        ck_assert_uint_eq(m.n, 0);
        ck_assert(strlen(err) > 0 && strchr(err, '\n') == NULL);
    }
    memset(&m, 0, sizeof(m));
    for (int i = 0; i < SB_MIX_MAX; i++)
        ck_assert_int_eq(sb_mix_add(&m, "s@1", err, sizeof(err)), 0);
    ck_assert_int_eq(sb_mix_add(&m, "s@1", err, sizeof(err)), -1);
}
END_TEST

START_TEST(test_pick_shares)
{
    struct sb_mix m;
    struct sb_rand r;
    struct sb_rand_params p;
    char err[256];
    uint64_t n[4] = {0, 0, 0, 0};
    const double w[3] = {0.7, 0.2, 0.1};
    const unsigned draws = 1000000;
    double chi2 = 0;

    memset(&m, 0, sizeof(m));
    sb_mix_add(&m, "a@70", err, sizeof(err));
    sb_mix_add(&m, "b@20", err, sizeof(err));
    sb_mix_add(&m, "c@10", err, sizeof(err));
    sb_rand_params_default(&p);
    sb_rand_seed_stream(&r, 12345, 0, &p);
    /* No assertion inside the loop: each is a write to Check's pipe. */
    for (unsigned i = 0; i < draws; i++) {
        unsigned k = sb_mix_pick(&m, &r);
        n[k < 3 ? k : 3]++;
    }
    ck_assert_uint_eq(n[3], 0);
    for (int k = 0; k < 3; k++) {
        double e = w[k] * draws;
        chi2 += ((double)n[k] - e) * ((double)n[k] - e) / e;
    }
    /* 2 degrees of freedom: P(chi2 > 30) is 3e-7; an off-by-one in the
     * cumulative bounds (1% of the draws moved) gives about 1,100. */
    ck_assert_msg(chi2 < 30, "chi2 %g (%llu %llu %llu)", chi2, (unsigned long long)n[0],
                  (unsigned long long)n[1], (unsigned long long)n[2]);
}
END_TEST

START_TEST(test_pick_seeded)
{
    struct sb_mix m;
    struct sb_rand a, b;
    struct sb_rand_params p;
    char err[256];
    int same = 1;

    memset(&m, 0, sizeof(m));
    sb_mix_add(&m, "a@1", err, sizeof(err));
    sb_mix_add(&m, "b@1", err, sizeof(err));
    sb_rand_params_default(&p);
    sb_rand_seed_stream(&a, 7, 3, &p);
    sb_rand_seed_stream(&b, 7, 3, &p);
    for (int i = 0; i < 1000; i++)
        same &= sb_mix_pick(&m, &a) == sb_mix_pick(&m, &b);
    ck_assert(same);
    sb_rand_seed_stream(&b, 8, 3, &p);
    for (int i = 0; i < 1000; i++)
        same &= sb_mix_pick(&m, &a) == sb_mix_pick(&m, &b);
    ck_assert(!same);
}
END_TEST

/* --tx-rate-per-type: the rates become the draw's shares (the weights no
 * longer count); every refusal is one line and leaves the mix as it was. */
START_TEST(test_rates)
{
    static const char *bad[] = { "a:750,c:250", "a:750,b:-250", "a:750", "a:750,a:250",
                                 "a:x,b:250", "a750,b:250", "a:750,b:240", "a:0,b:1000",
                                 "a:750,,b:250", "a:nan,b:250", ":5,b:250" };
    struct sb_mix m;
    struct sb_rand r;
    struct sb_rand_params p;
    char err[256];
    uint64_t n[2] = {0, 0};
    const unsigned draws = 200000;

    memset(&m, 0, sizeof(m));
    sb_mix_add(&m, "a@1", err, sizeof(err));
    sb_mix_add(&m, "b@3", err, sizeof(err));
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        ck_assert_msg(sb_mix_set_rates(&m, bad[i], 1000, "--tx-rate", err, sizeof(err)) == -1,
                      "'%s' accepted", bad[i]);
        ck_assert_msg(strchr(err, '\n') == NULL && strstr(err, "--tx-rate-per-type") != NULL,
                      "'%s': %s", bad[i], err);
        ck_assert(!m.rated && m.cum[1] == 4);
    }
    ck_assert_int_eq(sb_mix_set_rates(&m, "a:1,b:1", 0, "--tx-rate", err, sizeof(err)), -1);
    ck_assert_int_eq(sb_mix_set_rates(&m, "b:250.5,a:749.5", 1000, "--tx-rate", err,
                                      sizeof(err)), 0);
    ck_assert(m.rated && m.rate[0] == 749.5 && m.rate[1] == 250.5);
    ck_assert_uint_eq(m.cum[1], 1000000);
    sb_rand_params_default(&p);
    sb_rand_seed_stream(&r, 7, 0, &p);
    for (unsigned i = 0; i < draws; i++)
        n[sb_mix_pick(&m, &r) == 0 ? 0 : 1]++;
    /* 74.95% of 200,000: a standard deviation of 194 draws; 1,500 off is
     * 7.7 of them (the weights' 25% would be 100,000 off). */
    ck_assert_msg(llabs((long long)n[0] - 149900) < 1500, "%llu", (unsigned long long)n[0]);
}
END_TEST

START_TEST(test_chunk_quoting)
{
    struct sb_mix m;
    char err[256], label[128];
    char *chunk;

    memset(&m, 0, sizeof(m));
    sb_mix_add(&m, "a@2", err, sizeof(err));
    sb_mix_add(&m, "b@3", err, sizeof(err));
    m.t[0].path = strdup("/x/\"q\\\n]].lua");
    m.t[1].path = strdup("/y/b.lua");
    chunk = sb_mix_chunk(&m);
    ck_assert_ptr_nonnull(chunk);
    ck_assert_str_eq(chunk, "require(\"sysbench.mix\").load({{\"a\",\"/x/\\034q\\092\\010]].lua\"},"
                            "{\"b\",\"/y/b.lua\"},});\n");
    sb_mix_label(&m, label, sizeof(label));
    ck_assert_str_eq(label, "a@2 b@3");
    free(chunk);
    sb_mix_free(&m);
    ck_assert_ptr_null(m.t[0].path);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sb_mix");
    TCase *tc = tcase_create("core");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, test_parse);
    tcase_add_test(tc, test_refused);
    tcase_add_test(tc, test_pick_shares);
    tcase_add_test(tc, test_pick_seeded);
    tcase_add_test(tc, test_chunk_quoting);
    tcase_add_test(tc, test_rates);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
