/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for sb_metrics: the Prometheus text and the OpenMetrics file
 * of intervals whose figures are known, and the HOST:PORT parser of
 * --metrics-listen.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/sb_metrics_http.h"
#include "results/sb_metrics.h"

static const double pcts[2] = {95, 99.9};

/* An interval of 2 s ending at t (Unix seconds) with n events. */
static struct sb_interval interval(double t, uint64_t n)
{
    struct sb_interval iv;

    memset(&iv, 0, sizeof(iv));
    iv.epoch_s = t;
    iv.time_s = 2;
    iv.interval_s = 2;
    iv.threads = 4;
    iv.events = n;
    iv.tps = n / 2.0;
    iv.reads_ps = 10 * n / 2.0;
    iv.writes_ps = 2 * n / 2.0;
    iv.other_ps = n / 2.0;
    iv.qps = iv.reads_ps + iv.writes_ps + iv.other_ps;
    iv.errors_ps = 1.5;
    iv.latency_ms[0] = 12.5;
    iv.latency_ms[1] = 40;
    iv.lag_ms[0] = 0.25;
    iv.lag_ms[1] = 1;
    iv.backlog = 7;
    iv.cpu_client_pct = 25;
    iv.cpu_server_pct = NAN;
    return iv;
}

static char *text(struct sb_metrics *m, bool have)
{
    static char buf[65536];
    struct sb_metrics_snap s;

    ck_assert_int_eq(sb_metrics_latest(m, &s), have);
    ck_assert_uint_lt(sb_metrics_format_text(m, have ? &s : NULL, buf, sizeof(buf)), sizeof(buf));
    return buf;
}

START_TEST(test_text_latest_interval)
{
    struct sb_metrics m;
    struct sb_interval a = interval(1000, 100), b = interval(1002, 300);
    const char *t;

    sb_metrics_init(&m, "/usr/share/sysbench/oltp_read_write.lua", 2, false);
    t = text(&m, false);
    /* Before any interval: the counters at 0, nothing else. */
    ck_assert_ptr_nonnull(strstr(t, "# TYPE sysbench_transactions_total counter\n"));
    ck_assert_ptr_nonnull(strstr(t, "sysbench_transactions_total{script=\"oltp_read_write\","
                                    "sysbench_instance=\"2\"} 0\n"));
    ck_assert_ptr_null(strstr(t, "sysbench_latency_seconds{"));

    ck_assert_int_eq(sb_metrics_publish(&m, &a, pcts, 2, 1, 4, true, 250), 0);
    ck_assert_int_eq(sb_metrics_publish(&m, &b, pcts, 2, 1, 4, true, 250), 0);
    t = text(&m, true);
    /* Counters add up over intervals; gauges are the last interval's. */
    ck_assert_ptr_nonnull(strstr(t, "sysbench_transactions_total{script=\"oltp_read_write\","
                                    "sysbench_instance=\"2\"} 400\n"));
    ck_assert_ptr_nonnull(strstr(t, ",type=\"read\"} 4000\n"));
    ck_assert_ptr_nonnull(strstr(t, ",type=\"write\"} 800\n"));
    ck_assert_ptr_nonnull(strstr(t, "sysbench_errors_total{script=\"oltp_read_write\","
                                    "sysbench_instance=\"2\"} 6\n"));
    ck_assert_ptr_nonnull(strstr(t, "sysbench_transactions_per_second{script=\"oltp_read_write\","
                                    "sysbench_instance=\"2\"} 150\n"));
    /* Base units: seconds, ratios. */
    ck_assert_ptr_nonnull(strstr(t, ",quantile=\"0.95\"} 0.0125\n"));
    ck_assert_ptr_nonnull(strstr(t, "sysbench_latency_seconds{script=\"oltp_read_write\","
                                    "sysbench_instance=\"2\",quantile=\"0.999\"} 0.04\n"));
    ck_assert_ptr_nonnull(strstr(t, "sysbench_lag_seconds{script=\"oltp_read_write\","
                                    "sysbench_instance=\"2\",quantile=\"0.95\"} 0.00025\n"));
    ck_assert_ptr_nonnull(strstr(t, "sysbench_backlog_transactions{script=\"oltp_read_write\","
                                    "sysbench_instance=\"2\"} 7\n"));
    ck_assert_ptr_nonnull(strstr(t, "sysbench_target_transactions_per_second{"
                                    "script=\"oltp_read_write\",sysbench_instance=\"2\"} 250\n"));
    ck_assert_ptr_nonnull(strstr(t, "sysbench_client_cpu_ratio{script=\"oltp_read_write\","
                                    "sysbench_instance=\"2\"} 0.25\n"));
    /* Not measured: no sample (a 0 would be a lie). */
    ck_assert_ptr_null(strstr(t, "sysbench_server_cpu_ratio{"));
    /* The live text has no timestamps: Prometheus stamps its scrapes. */
    ck_assert_ptr_null(strstr(t, " 1002"));
    sb_metrics_free(&m);
}
END_TEST

/* The final state: sysbench_run_active 1 while the run goes on (also
 * before the first interval), 0 once it has ended, the last interval's
 * figures kept; a run that ended before any interval has its counters at
 * 0 and nothing else measured. */
START_TEST(test_text_run_active)
{
    struct sb_metrics m;
    struct sb_interval a = interval(1000, 100);
    const char *t;

    sb_metrics_init(&m, "x.lua", 0, false);
    t = text(&m, false);
    ck_assert_ptr_nonnull(strstr(t, "# TYPE sysbench_run_active gauge\n"));
    ck_assert_ptr_nonnull(strstr(t, "sysbench_run_active{script=\"x\",sysbench_instance=\"0\"} 1\n"));
    sb_metrics_publish(&m, &a, pcts, 2, 1, 4, true, 250);
    t = text(&m, true);
    ck_assert_ptr_nonnull(strstr(t, "sysbench_run_active{script=\"x\",sysbench_instance=\"0\"} 1\n"));
    sb_metrics_finish(&m);
    t = text(&m, true);
    ck_assert_ptr_nonnull(strstr(t, "sysbench_run_active{script=\"x\",sysbench_instance=\"0\"} 0\n"));
    ck_assert_ptr_nonnull(strstr(t, "sysbench_transactions_total{script=\"x\",sysbench_instance=\"0\"} 100\n"));
    ck_assert_ptr_nonnull(strstr(t, "sysbench_transactions_per_second{script=\"x\",sysbench_instance=\"0\"} 50\n"));
    sb_metrics_free(&m);

    sb_metrics_init(&m, "x.lua", 0, false);
    sb_metrics_finish(&m);
    t = text(&m, true);
    ck_assert_ptr_nonnull(strstr(t, "sysbench_run_active{script=\"x\",sysbench_instance=\"0\"} 0\n"));
    ck_assert_ptr_nonnull(strstr(t, "sysbench_transactions_total{script=\"x\",sysbench_instance=\"0\"} 0\n"));
    ck_assert_ptr_null(strstr(t, "sysbench_transactions_per_second{"));
    ck_assert_ptr_null(strstr(t, "sysbench_client_cpu_ratio{"));
    sb_metrics_free(&m);
}
END_TEST

START_TEST(test_text_closed_loop_and_escaping)
{
    struct sb_metrics m;
    struct sb_interval a = interval(1000, 10);
    const char *t;

    sb_metrics_init(&m, "my \"odd\"\\script", 0, false);
    sb_metrics_publish(&m, &a, pcts, 1, 1, 4, false, 0);
    t = text(&m, true);
    ck_assert_ptr_nonnull(strstr(t, "{script=\"my \\\"odd\\\"\\\\script\","));
    /* No rate: no lag, backlog or target samples. */
    ck_assert_ptr_null(strstr(t, "sysbench_lag_seconds{"));
    ck_assert_ptr_null(strstr(t, "sysbench_backlog_transactions{"));
    ck_assert_ptr_null(strstr(t, "sysbench_target_transactions_per_second{"));
    ck_assert_ptr_null(strstr(t, "quantile=\"0.999\""));
    sb_metrics_free(&m);
}
END_TEST

START_TEST(test_text_cut_reports_length)
{
    struct sb_metrics m;
    struct sb_interval a = interval(1000, 10);
    struct sb_metrics_snap s;
    char small[64], big[65536];
    size_t need;

    sb_metrics_init(&m, "x.lua", 0, false);
    sb_metrics_publish(&m, &a, pcts, 2, 1, 4, true, 5);
    sb_metrics_latest(&m, &s);
    need = sb_metrics_format_text(&m, &s, small, sizeof(small));
    ck_assert_uint_eq(strlen(small), sizeof(small) - 1);
    ck_assert_uint_eq(sb_metrics_format_text(&m, &s, big, sizeof(big)), need);
    ck_assert_uint_eq(strlen(big), need);
    sb_metrics_free(&m);
}
END_TEST

START_TEST(test_openmetrics_file)
{
    struct sb_metrics m;
    struct sb_interval a = interval(1000, 100), b = interval(1002.5, 300);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    const char *p, *q;

    sb_metrics_init(&m, "oltp_read_only", 0, true);
    sb_metrics_publish(&m, &a, pcts, 1, 1, 4, true, 250);
    sb_metrics_publish(&m, &b, pcts, 1, 2, 8, true, 500);
    ck_assert_int_eq(sb_metrics_write_openmetrics(&m, f), 0);
    fclose(f);
    ck_assert(sb_metrics_is_file(buf, len));
    /* Families by their names without _total, units declared, every
     * sample with its interval's timestamp in seconds, # EOF last. */
    ck_assert_ptr_nonnull(strstr(buf, "# TYPE sysbench_transactions counter\n"));
    ck_assert_ptr_nonnull(strstr(buf, "# UNIT sysbench_latency_seconds seconds\n"));
    p = strstr(buf, "sysbench_transactions_total{script=\"oltp_read_only\","
                    "sysbench_instance=\"0\"} 100 1000.000\n");
    q = strstr(buf, "sysbench_transactions_total{script=\"oltp_read_only\","
                    "sysbench_instance=\"0\"} 400 1002.500\n");
    ck_assert_ptr_nonnull(p);
    ck_assert_ptr_nonnull(q);
    ck_assert(p < q);
    ck_assert_ptr_nonnull(strstr(buf, "sysbench_point{script=\"oltp_read_only\","
                                      "sysbench_instance=\"0\"} 2 1002.500\n"));
    ck_assert_ptr_nonnull(strstr(buf, "sysbench_threads{script=\"oltp_read_only\","
                                      "sysbench_instance=\"0\"} 8 1002.500\n"));
    ck_assert_uint_ge(len, 6);
    ck_assert_str_eq(buf + len - 6, "# EOF\n");
    ck_assert(!sb_metrics_is_file("{\"tool\"", 8));
    free(buf);
    sb_metrics_free(&m);
}
END_TEST

START_TEST(test_parse_hostport)
{
    char host[64];
    unsigned port;

    ck_assert_int_eq(sb_metrics_http_parse("127.0.0.1:9100", host, sizeof(host), &port), 0);
    ck_assert_str_eq(host, "127.0.0.1");
    ck_assert_uint_eq(port, 9100);
    ck_assert_int_eq(sb_metrics_http_parse("[::1]:0", host, sizeof(host), &port), 0);
    ck_assert_str_eq(host, "::1");
    ck_assert_uint_eq(port, 0);
    ck_assert_int_eq(sb_metrics_http_parse(":9100", host, sizeof(host), &port), 0);
    ck_assert_str_eq(host, "");
    ck_assert_int_eq(sb_metrics_http_parse("[::]:9100", host, sizeof(host), &port), 0);
    ck_assert_str_eq(host, "::");
    ck_assert_uint_eq(port, 9100);
    ck_assert_int_eq(sb_metrics_http_parse("*:9100", host, sizeof(host), &port), 0);
    ck_assert_str_eq(host, "*");
    ck_assert_int_eq(sb_metrics_http_parse("localhost", host, sizeof(host), &port), -1);
    ck_assert_int_eq(sb_metrics_http_parse("localhost:", host, sizeof(host), &port), -1);
    ck_assert_int_eq(sb_metrics_http_parse("localhost:65536", host, sizeof(host), &port), -1);
    ck_assert_int_eq(sb_metrics_http_parse("localhost:-1", host, sizeof(host), &port), -1);
    ck_assert_int_eq(sb_metrics_http_parse("localhost:9x", host, sizeof(host), &port), -1);
    ck_assert_int_eq(sb_metrics_http_parse("[::1]9100", host, sizeof(host), &port), -1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sb_metrics");
    TCase *tc = tcase_create("core");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, test_text_latest_interval);
    tcase_add_test(tc, test_text_run_active);
    tcase_add_test(tc, test_text_closed_loop_and_escaping);
    tcase_add_test(tc, test_text_cut_reports_length);
    tcase_add_test(tc, test_openmetrics_file);
    tcase_add_test(tc, test_parse_hostport);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
