/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for sb_options: value parsers, option sets, argv splitting,
 * config files and help output.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sb_args.h"

#define ERRLEN 256

static const struct sb_opt_def test_defs[] = {
    {"threads", "number of threads to use", "1", SB_ARG_INT},
    {"histogram", "print latency histogram in report", "off", SB_ARG_BOOL},
    {"table_size", "number of rows per table", "10000", SB_ARG_INT},
    {"buffer-size", "size of the buffer", "16K", SB_ARG_SIZE},
    {"time", "limit for total execution time in seconds", "10", SB_ARG_DOUBLE},
    {"db-driver", "database driver", "sqlite", SB_ARG_STRING},
    {"percentile", "percentiles to report", "95", SB_ARG_LIST},
    {"sqlite-db", "database file", NULL, SB_ARG_FILE},
    {NULL, NULL, NULL, 0}
};

/* Builds the set most tests use. */
static void make_set(struct sb_optset *set)
{
    char err[ERRLEN];

    sb_optset_init(set, "Test options");
    ck_assert_int_eq(sb_optset_add_defs(set, test_defs, err, sizeof(err)), 0);
}

/* Splits a NULL-terminated argument vector (argv[0] included). */
static int split(struct sb_args *a, const char *const *words, char *err)
{
    int argc = 0;

    while (words[argc] != NULL)
        argc++;
    sb_args_init(a);
    return sb_args_split(a, argc, (char *const *)words, err, ERRLEN);
}

/* Writes text into a fresh temporary file and returns its path in buf. */
static void write_temp(char *buf, size_t len, const char *text)
{
    int fd;
    FILE *f;

    snprintf(buf, len, "/tmp/check_sb_options_XXXXXX");
    fd = mkstemp(buf);
    ck_assert_int_ge(fd, 0);
    f = fdopen(fd, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

/* ------------------------------------------------------------- parsers */

START_TEST(test_parse_int)
{
    int64_t v;

    ck_assert_int_eq(sb_parse_int("0", &v), 0);
    ck_assert_int_eq(v, 0);
    ck_assert_int_eq(sb_parse_int("42", &v), 0);
    ck_assert_int_eq(v, 42);
    ck_assert_int_eq(sb_parse_int("-7", &v), 0);
    ck_assert_int_eq(v, -7);
    ck_assert_int_eq(sb_parse_int("+5", &v), 0);
    ck_assert_int_eq(v, 5);
    ck_assert_int_eq(sb_parse_int("9223372036854775807", &v), 0);
    ck_assert(v == INT64_MAX);
    ck_assert_int_eq(sb_parse_int("-9223372036854775808", &v), 0);
    ck_assert(v == INT64_MIN);

    v = 99;
    ck_assert_int_eq(sb_parse_int("", &v), -1);
    ck_assert_int_eq(sb_parse_int("abc", &v), -1);
    ck_assert_int_eq(sb_parse_int("12x", &v), -1);
    ck_assert_int_eq(sb_parse_int("12 ", &v), -1);
    ck_assert_int_eq(sb_parse_int(" 12", &v), -1);
    ck_assert_int_eq(sb_parse_int("1.5", &v), -1);
    ck_assert_int_eq(sb_parse_int("0x10", &v), -1);
    ck_assert_int_eq(sb_parse_int("-", &v), -1);
    ck_assert_int_eq(sb_parse_int("9223372036854775808", &v), -1);
    ck_assert_int_eq(sb_parse_int("-9223372036854775809", &v), -1);
    ck_assert_int_eq(sb_parse_int("99999999999999999999999", &v), -1);
    ck_assert_int_eq(sb_parse_int(NULL, &v), -1);
    /* A rejected value leaves the output alone. */
    ck_assert_int_eq(v, 99);
}
END_TEST

START_TEST(test_parse_size)
{
    int64_t v;

    ck_assert_int_eq(sb_parse_size("0", &v), 0);
    ck_assert_int_eq(v, 0);
    ck_assert_int_eq(sb_parse_size("100", &v), 0);
    ck_assert_int_eq(v, 100);
    ck_assert_int_eq(sb_parse_size("1K", &v), 0);
    ck_assert_int_eq(v, 1024);
    ck_assert_int_eq(sb_parse_size("64k", &v), 0);
    ck_assert_int_eq(v, 65536);
    ck_assert_int_eq(sb_parse_size("2M", &v), 0);
    ck_assert_int_eq(v, 2 * 1048576);
    ck_assert_int_eq(sb_parse_size("3m", &v), 0);
    ck_assert_int_eq(v, 3 * 1048576);
    ck_assert_int_eq(sb_parse_size("3G", &v), 0);
    ck_assert(v == 3LL * 1073741824LL);
    ck_assert_int_eq(sb_parse_size("1g", &v), 0);
    ck_assert(v == 1073741824LL);
    ck_assert_int_eq(sb_parse_size("1T", &v), 0);
    ck_assert(v == 1099511627776LL);
    ck_assert_int_eq(sb_parse_size("2t", &v), 0);
    ck_assert(v == 2 * 1099511627776LL);
    ck_assert_int_eq(sb_parse_size("8388607T", &v), 0);
    ck_assert(v == 8388607LL * 1099511627776LL);

    ck_assert_int_eq(sb_parse_size("", &v), -1);
    ck_assert_int_eq(sb_parse_size("K", &v), -1);
    ck_assert_int_eq(sb_parse_size("1KB", &v), -1);
    ck_assert_int_eq(sb_parse_size("1X", &v), -1);
    ck_assert_int_eq(sb_parse_size("-1K", &v), -1);
    ck_assert_int_eq(sb_parse_size("-5", &v), -1);
    ck_assert_int_eq(sb_parse_size("1.5G", &v), -1);
    ck_assert_int_eq(sb_parse_size("8388608T", &v), -1);
    ck_assert_int_eq(sb_parse_size("9223372036854775807K", &v), -1);
    ck_assert_int_eq(sb_parse_size("abc", &v), -1);
    ck_assert_int_eq(sb_parse_size(NULL, &v), -1);
}
END_TEST

START_TEST(test_parse_bool)
{
    static const char *const yes[] = {"on", "ON", "On", "true", "TRUE",
                                      "yes", "Yes", "1"};
    static const char *const no[] = {"off", "OFF", "false", "False", "no",
                                     "NO", "0"};
    static const char *const bad[] = {"", "maybe", "2", "onn", "of", "y",
                                      "n", " on", "-1"};
    size_t i;
    bool b;

    for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        b = false;
        ck_assert_msg(sb_parse_bool(yes[i], &b) == 0, "%s", yes[i]);
        ck_assert(b);
    }
    for (i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
        b = true;
        ck_assert_msg(sb_parse_bool(no[i], &b) == 0, "%s", no[i]);
        ck_assert(!b);
    }
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ck_assert_msg(sb_parse_bool(bad[i], &b) == -1, "%s", bad[i]);
    ck_assert_int_eq(sb_parse_bool(NULL, &b), -1);
}
END_TEST

START_TEST(test_parse_double)
{
    double d;

    ck_assert_int_eq(sb_parse_double("1.5", &d), 0);
    ck_assert(d == 1.5);
    ck_assert_int_eq(sb_parse_double("-2", &d), 0);
    ck_assert(d == -2);
    ck_assert_int_eq(sb_parse_double("1e3", &d), 0);
    ck_assert(d == 1000);
    ck_assert_int_eq(sb_parse_double(".5", &d), 0);
    ck_assert(d == 0.5);
    ck_assert_int_eq(sb_parse_double("99.9", &d), 0);
    ck_assert(d == 99.9);
    ck_assert_int_eq(sb_parse_double("0", &d), 0);
    ck_assert(d == 0);

    ck_assert_int_eq(sb_parse_double("", &d), -1);
    ck_assert_int_eq(sb_parse_double("abc", &d), -1);
    ck_assert_int_eq(sb_parse_double("1.5x", &d), -1);
    ck_assert_int_eq(sb_parse_double("1.2.3", &d), -1);
    ck_assert_int_eq(sb_parse_double(".", &d), -1);
    ck_assert_int_eq(sb_parse_double("e5", &d), -1);
    ck_assert_int_eq(sb_parse_double("inf", &d), -1);
    ck_assert_int_eq(sb_parse_double("nan", &d), -1);
    ck_assert_int_eq(sb_parse_double("0x1p3", &d), -1);
    ck_assert_int_eq(sb_parse_double("1e999", &d), -1);
    ck_assert_int_eq(sb_parse_double(" 1", &d), -1);
    ck_assert_int_eq(sb_parse_double(NULL, &d), -1);
}
END_TEST

/* ---------------------------------------------------------------- sets */

START_TEST(test_defaults)
{
    struct sb_optset set;
    size_t n;
    char *const *items;

    make_set(&set);
    ck_assert_str_eq(set.title, "Test options");
    ck_assert_int_eq(sb_optset_int(&set, "threads"), 1);
    ck_assert(!sb_optset_bool(&set, "histogram"));
    ck_assert_int_eq(sb_optset_int(&set, "table-size"), 10000);
    ck_assert_int_eq(sb_optset_int(&set, "buffer-size"), 16384);
    ck_assert(sb_optset_double(&set, "time") == 10.0);
    ck_assert_str_eq(sb_optset_str(&set, "db-driver"), "sqlite");
    ck_assert_str_eq(sb_optset_str(&set, "threads"), "1");
    ck_assert_ptr_null(sb_optset_str(&set, "sqlite-db"));
    items = sb_optset_list(&set, "percentile", &n);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(items[0], "95");
    ck_assert(!sb_optset_find(&set, "threads")->set);

    /* Unknown names give neutral values, never a crash. */
    ck_assert_ptr_null(sb_optset_find(&set, "nope"));
    ck_assert_ptr_null(sb_optset_find(&set, NULL));
    ck_assert_int_eq(sb_optset_int(&set, "nope"), 0);
    ck_assert(!sb_optset_bool(&set, "nope"));
    ck_assert(sb_optset_double(&set, "nope") == 0);
    ck_assert_ptr_null(sb_optset_str(&set, "nope"));
    n = 7;
    ck_assert_ptr_null(sb_optset_list(&set, "nope", &n));
    ck_assert_uint_eq(n, 0);
    /* Numeric accessors convert between the numeric types. */
    ck_assert(sb_optset_double(&set, "threads") == 1.0);
    ck_assert_int_eq(sb_optset_int(&set, "time"), 10);
    sb_optset_free(&set);
}
END_TEST

START_TEST(test_add_errors)
{
    struct sb_optset set;
    char err[ERRLEN];

    make_set(&set);
    err[0] = '\0';
    ck_assert_int_eq(sb_optset_add(&set, "threads", "again", "2", SB_ARG_INT,
                                   err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "--threads"));
    /* '-' and '_' are the same, so these are duplicates too. */
    ck_assert_int_eq(sb_optset_add(&set, "table-size", "x", "1", SB_ARG_INT,
                                   err, sizeof(err)), -1);
    ck_assert_int_eq(sb_optset_add(&set, "buffer_size", "x", "1", SB_ARG_SIZE,
                                   err, sizeof(err)), -1);
    ck_assert_int_eq(sb_optset_add(&set, "", "x", "1", SB_ARG_INT,
                                   err, sizeof(err)), -1);
    ck_assert_int_eq(sb_optset_add(&set, NULL, "x", "1", SB_ARG_INT,
                                   err, sizeof(err)), -1);
    ck_assert_int_eq(sb_optset_add(&set, "bad-default", "x", "abc", SB_ARG_INT,
                                   err, sizeof(err)), -1);
    ck_assert_str_eq(err, "invalid default 'abc' for --bad-default: expected an integer");
    ck_assert_ptr_null(sb_optset_find(&set, "bad-default"));
    ck_assert_int_eq(sb_optset_add(&set, "bad-bool", "x", "maybe", SB_ARG_BOOL,
                                   err, sizeof(err)), -1);
    ck_assert_int_eq(sb_optset_add(&set, "bad-size", "x", "1Q", SB_ARG_SIZE,
                                   err, sizeof(err)), -1);
    /* The set is still usable after failures. */
    ck_assert_int_eq(sb_optset_add(&set, "good", "x", "3", SB_ARG_INT,
                                   err, sizeof(err)), 0);
    ck_assert_int_eq(sb_optset_int(&set, "good"), 3);
    ck_assert_uint_eq(set.n, 9);
    sb_optset_free(&set);
}
END_TEST

START_TEST(test_set_values)
{
    struct sb_optset set;
    char err[ERRLEN];
    struct sb_opt *o;

    make_set(&set);
    o = sb_optset_find(&set, "threads");
    ck_assert_int_eq(sb_opt_set(o, "16", err, sizeof(err)), 0);
    ck_assert_int_eq(sb_optset_int(&set, "threads"), 16);
    ck_assert(o->set);

    o = sb_optset_find(&set, "buffer-size");
    ck_assert_int_eq(sb_opt_set(o, "2M", err, sizeof(err)), 0);
    ck_assert_int_eq(sb_optset_int(&set, "buffer-size"), 2097152);
    ck_assert_int_eq(sb_opt_set(o, "4096", err, sizeof(err)), 0);
    ck_assert_int_eq(sb_optset_int(&set, "buffer-size"), 4096);

    o = sb_optset_find(&set, "time");
    ck_assert_int_eq(sb_opt_set(o, "2.5", err, sizeof(err)), 0);
    ck_assert(sb_optset_double(&set, "time") == 2.5);

    o = sb_optset_find(&set, "db-driver");
    ck_assert_int_eq(sb_opt_set(o, "mysql", err, sizeof(err)), 0);
    ck_assert_str_eq(sb_optset_str(&set, "db-driver"), "mysql");
    ck_assert_int_eq(sb_opt_set(o, "", err, sizeof(err)), 0);
    ck_assert_str_eq(sb_optset_str(&set, "db-driver"), "");

    o = sb_optset_find(&set, "sqlite-db");
    ck_assert_int_eq(sb_opt_set(o, "/tmp/x.db", err, sizeof(err)), 0);
    ck_assert_str_eq(sb_optset_str(&set, "sqlite-db"), "/tmp/x.db");

    o = sb_optset_find(&set, "histogram");
    ck_assert_int_eq(sb_opt_set(o, "on", err, sizeof(err)), 0);
    ck_assert(sb_optset_bool(&set, "histogram"));
    ck_assert_int_eq(sb_opt_set(o, "No", err, sizeof(err)), 0);
    ck_assert(!sb_optset_bool(&set, "histogram"));
    /* A bare --histogram means on. */
    ck_assert_int_eq(sb_opt_set(o, NULL, err, sizeof(err)), 0);
    ck_assert(sb_optset_bool(&set, "histogram"));
    ck_assert_str_eq(sb_optset_str(&set, "histogram"), "on");
    sb_optset_free(&set);
}
END_TEST

START_TEST(test_set_errors)
{
    struct sb_optset set;
    char err[ERRLEN];
    struct sb_opt *o;

    make_set(&set);
    o = sb_optset_find(&set, "threads");
    ck_assert_int_eq(sb_opt_set(o, "abc", err, sizeof(err)), -1);
    ck_assert_str_eq(err, "invalid value 'abc' for --threads: expected an integer");
    ck_assert_int_eq(sb_opt_set(o, "4x", err, sizeof(err)), -1);
    ck_assert_int_eq(sb_opt_set(o, "99999999999999999999", err, sizeof(err)), -1);
    ck_assert_int_eq(sb_opt_set(o, "", err, sizeof(err)), -1);
    ck_assert_str_eq(err, "invalid value '' for --threads: expected an integer");
    ck_assert_int_eq(sb_opt_set(o, NULL, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "missing value for --threads: expected an integer");
    /* The option keeps its previous value and is not marked set. */
    ck_assert_int_eq(sb_optset_int(&set, "threads"), 1);
    ck_assert_str_eq(o->value, "1");
    ck_assert(!o->set);

    o = sb_optset_find(&set, "histogram");
    ck_assert_int_eq(sb_opt_set(o, "maybe", err, sizeof(err)), -1);
    ck_assert_str_eq(err, "invalid value 'maybe' for --histogram: expected on/off");

    o = sb_optset_find(&set, "buffer_size");
    ck_assert_int_eq(sb_opt_set(o, "12Q", err, sizeof(err)), -1);
    ck_assert_str_eq(err, "invalid value '12Q' for --buffer-size: expected a size (an integer with an optional K/M/G/T suffix)");
    ck_assert_int_eq(sb_optset_int(&set, "buffer-size"), 16384);

    o = sb_optset_find(&set, "time");
    ck_assert_int_eq(sb_opt_set(o, "soon", err, sizeof(err)), -1);
    ck_assert_str_eq(err, "invalid value 'soon' for --time: expected a number");

    /* A bare string option is the empty string, as in sysbench 1.0. */
    o = sb_optset_find(&set, "db-driver");
    ck_assert_int_eq(sb_opt_set(o, NULL, err, sizeof(err)), 0);
    ck_assert_str_eq(sb_optset_str(&set, "db-driver"), "");
    ck_assert(o->set);

    /* A bare number option still needs its value. */
    o = sb_optset_find(&set, "time");
    ck_assert_int_eq(sb_opt_set(o, NULL, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "missing value for --time: expected a number");

    ck_assert_int_eq(sb_opt_set(NULL, "1", err, sizeof(err)), -1);
    /* A tiny or absent error buffer must still be safe. */
    ck_assert_int_eq(sb_opt_set(sb_optset_find(&set, "threads"), "x", err, 4), -1);
    ck_assert_uint_eq(strlen(err), 3);
    ck_assert_int_eq(sb_opt_set(sb_optset_find(&set, "threads"), "x", NULL, 0), -1);
    sb_optset_free(&set);
}
END_TEST

START_TEST(test_lists)
{
    struct sb_optset set;
    char err[ERRLEN];
    struct sb_opt *o;
    char *const *items;
    size_t n;

    make_set(&set);
    o = sb_optset_find(&set, "percentile");
    ck_assert_int_eq(sb_opt_set(o, "50, 95 ,99.9", err, sizeof(err)), 0);
    items = sb_optset_list(&set, "percentile", &n);
    ck_assert_uint_eq(n, 3);
    ck_assert_str_eq(items[0], "50");
    ck_assert_str_eq(items[1], "95");
    ck_assert_str_eq(items[2], "99.9");
    ck_assert_str_eq(sb_optset_str(&set, "percentile"), "50, 95 ,99.9");

    ck_assert_int_eq(sb_opt_set(o, "", err, sizeof(err)), 0);
    items = sb_optset_list(&set, "percentile", &n);
    ck_assert_uint_eq(n, 0);
    (void)items;

    ck_assert_int_eq(sb_opt_set(o, "   ", err, sizeof(err)), 0);
    sb_optset_list(&set, "percentile", &n);
    ck_assert_uint_eq(n, 0);

    ck_assert_int_eq(sb_opt_set(o, "localhost", err, sizeof(err)), 0);
    items = sb_optset_list(&set, "percentile", &n);
    ck_assert_uint_eq(n, 1);
    ck_assert_str_eq(items[0], "localhost");

    /* Empty items in the middle are kept so that consumers can reject them. */
    ck_assert_int_eq(sb_opt_set(o, "1,,2", err, sizeof(err)), 0);
    items = sb_optset_list(&set, "percentile", &n);
    ck_assert_uint_eq(n, 3);
    ck_assert_str_eq(items[0], "1");
    ck_assert_str_eq(items[1], "");
    ck_assert_str_eq(items[2], "2");

    ck_assert_int_eq(sb_opt_set(o, "1,2,4,8,16,32,64", err, sizeof(err)), 0);
    items = sb_optset_list(&set, "percentile", &n);
    ck_assert_uint_eq(n, 7);
    ck_assert_str_eq(items[6], "64");

    /* A bare --list is the empty list, as in sysbench 1.0. */
    ck_assert_int_eq(sb_opt_set(o, NULL, err, sizeof(err)), 0);
    ck_assert_uint_eq(sb_optset_find(&set, "percentile")->nitems, 0);
    ck_assert_str_eq(sb_optset_str(&set, "percentile"), "");

    /* A non-list option has no items. */
    ck_assert_ptr_null(sb_optset_list(&set, "threads", &n));
    ck_assert_uint_eq(n, 0);
    sb_optset_free(&set);
}
END_TEST

START_TEST(test_dash_underscore)
{
    struct sb_optset set;
    struct sb_opt *o;

    make_set(&set);
    o = sb_optset_find(&set, "table-size");
    ck_assert_ptr_nonnull(o);
    ck_assert_ptr_eq(o, sb_optset_find(&set, "table_size"));
    ck_assert_str_eq(o->name, "table_size");
    ck_assert_ptr_eq(sb_optset_find(&set, "buffer_size"),
                     sb_optset_find(&set, "buffer-size"));
    ck_assert_ptr_eq(sb_optset_find(&set, "db_driver"),
                     sb_optset_find(&set, "db-driver"));
    /* Names are otherwise exact. */
    ck_assert_ptr_null(sb_optset_find(&set, "Threads"));
    ck_assert_ptr_null(sb_optset_find(&set, "thread"));
    ck_assert_ptr_null(sb_optset_find(&set, "threads-"));
    ck_assert_ptr_null(sb_optset_find(&set, "table.size"));
    sb_optset_free(&set);
}
END_TEST

START_TEST(test_aliases)
{
    struct sb_optset set;
    char err[ERRLEN];
    struct sb_args a;
    static const char *const argv[] = {"sysbench", "--num_threads=8", NULL};

    make_set(&set);
    ck_assert_int_eq(sb_optset_add_alias(&set, "num-threads", "threads",
                                         err, sizeof(err)), 0);
    ck_assert_ptr_eq(sb_optset_find(&set, "num-threads"),
                     sb_optset_find(&set, "threads"));
    ck_assert_ptr_eq(sb_optset_find(&set, "num_threads"),
                     sb_optset_find(&set, "threads"));
    /* An alias of an alias still reaches the real option. */
    ck_assert_int_eq(sb_optset_add_alias(&set, "nthreads", "num-threads",
                                         err, sizeof(err)), 0);
    ck_assert_ptr_eq(sb_optset_find(&set, "nthreads"),
                     sb_optset_find(&set, "threads"));

    ck_assert_int_eq(sb_optset_add_alias(&set, "x", "unknown", err,
                                         sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "--unknown"));
    ck_assert_int_eq(sb_optset_add_alias(&set, "num_threads", "time", err,
                                         sizeof(err)), -1);
    ck_assert_int_eq(sb_optset_add_alias(&set, "time", "threads", err,
                                         sizeof(err)), -1);
    ck_assert_int_eq(sb_optset_add_alias(&set, "", "threads", err,
                                         sizeof(err)), -1);
    /* The alias's name is taken, so the option cannot be declared again. */
    ck_assert_int_eq(sb_optset_add(&set, "num-threads", "x", "1", SB_ARG_INT,
                                   err, sizeof(err)), -1);

    ck_assert_int_eq(split(&a, argv, err), 0);
    ck_assert_int_eq(sb_args_apply(&a, &set, err, sizeof(err)), 0);
    ck_assert_int_eq(sb_optset_int(&set, "threads"), 8);
    ck_assert_ptr_null(sb_args_first_unused(&a));
    sb_args_free(&a);

    sb_optset_set_secret(&set, "nthreads");
    ck_assert(sb_optset_find(&set, "threads")->secret);
    sb_optset_set_secret(&set, "does-not-exist");
    sb_optset_free(&set);
}
END_TEST

/* ---------------------------------------------------------------- argv */

START_TEST(test_split)
{
    static const char *const argv[] = {
        "sysbench", "--threads=4", "oltp_read_only", "--histogram", "run",
        "-", "--db-driver=", "-x", "--a=b=c", "--", "--not-an-option", "tail",
        NULL
    };
    struct sb_args a;
    char err[ERRLEN];

    ck_assert_int_eq(split(&a, argv, err), 0);
    ck_assert_uint_eq(a.nopts, 4);
    ck_assert_str_eq(a.opts[0].name, "threads");
    ck_assert_str_eq(a.opts[0].value, "4");
    ck_assert_str_eq(a.opts[1].name, "histogram");
    ck_assert_ptr_null(a.opts[1].value);
    ck_assert_str_eq(a.opts[2].name, "db-driver");
    ck_assert_str_eq(a.opts[2].value, "");
    ck_assert_str_eq(a.opts[3].name, "a");
    ck_assert_str_eq(a.opts[3].value, "b=c");
    ck_assert(!a.opts[0].used);

    ck_assert_uint_eq(a.npos, 6);
    ck_assert_str_eq(a.pos[0], "oltp_read_only");
    ck_assert_str_eq(a.pos[1], "run");
    ck_assert_str_eq(a.pos[2], "-");
    ck_assert_str_eq(a.pos[3], "-x");
    ck_assert_str_eq(a.pos[4], "--not-an-option");
    ck_assert_str_eq(a.pos[5], "tail");
    sb_args_free(&a);
}
END_TEST

START_TEST(test_split_errors)
{
    static const char *const bad[] = {"sysbench", "--=x", NULL};
    static const char *const empty[] = {"sysbench", NULL};
    struct sb_args a;
    char err[ERRLEN];

    ck_assert_int_eq(split(&a, bad, err), -1);
    ck_assert_ptr_nonnull(strstr(err, "'--=x'"));
    sb_args_free(&a);

    ck_assert_int_eq(split(&a, empty, err), 0);
    ck_assert_uint_eq(a.nopts, 0);
    ck_assert_uint_eq(a.npos, 0);
    ck_assert_ptr_null(sb_args_first_unused(&a));
    sb_args_free(&a);

    /* A long command line grows the arrays. */
    {
        const char *many[202];
        char names[100][16];
        int i;

        many[0] = "sysbench";
        for (i = 0; i < 100; i++) {
            snprintf(names[i], sizeof(names[i]), "--o%d=%d", i, i);
            many[1 + 2 * i] = names[i];
            many[2 + 2 * i] = "word";
        }
        many[201] = NULL;
        ck_assert_int_eq(split(&a, many, err), 0);
        ck_assert_uint_eq(a.nopts, 100);
        ck_assert_uint_eq(a.npos, 100);
        ck_assert_str_eq(a.opts[99].name, "o99");
        ck_assert_str_eq(a.opts[99].value, "99");
        sb_args_free(&a);
    }
}
END_TEST

START_TEST(test_apply)
{
    static const char *const argv[] = {
        "sysbench", "--threads=2", "--histogram", "--unknown=1",
        "--table-size=50", "--threads=3", "--other", NULL
    };
    struct sb_optset set, set2;
    struct sb_args a;
    char err[ERRLEN];
    const struct sb_arg *u;

    make_set(&set);
    sb_optset_init(&set2, "Script options");
    ck_assert_int_eq(sb_optset_add(&set2, "unknown", "an option", "0",
                                   SB_ARG_INT, err, sizeof(err)), 0);
    ck_assert_int_eq(split(&a, argv, err), 0);
    ck_assert_int_eq(sb_args_apply(&a, &set, err, sizeof(err)), 0);
    /* A later duplicate overrides the earlier one. */
    ck_assert_int_eq(sb_optset_int(&set, "threads"), 3);
    ck_assert(sb_optset_bool(&set, "histogram"));
    ck_assert_int_eq(sb_optset_int(&set, "table_size"), 50);
    ck_assert(sb_optset_find(&set, "table_size")->set);
    ck_assert(!sb_optset_find(&set, "time")->set);

    u = sb_args_first_unused(&a);
    ck_assert_ptr_nonnull(u);
    ck_assert_str_eq(u->name, "unknown");
    ck_assert_int_eq(sb_args_apply(&a, &set2, err, sizeof(err)), 0);
    ck_assert_int_eq(sb_optset_int(&set2, "unknown"), 1);
    u = sb_args_first_unused(&a);
    ck_assert_ptr_nonnull(u);
    ck_assert_str_eq(u->name, "other");
    ck_assert_ptr_null(u->value);
    sb_args_free(&a);
    sb_optset_free(&set2);
    sb_optset_free(&set);
}
END_TEST

START_TEST(test_apply_error)
{
    static const char *const argv[] = {
        "sysbench", "--time=1", "--threads=abc", NULL
    };
    struct sb_optset set;
    struct sb_args a;
    char err[ERRLEN];

    make_set(&set);
    ck_assert_int_eq(split(&a, argv, err), 0);
    ck_assert_int_eq(sb_args_apply(&a, &set, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "invalid value 'abc' for --threads: expected an integer");
    sb_args_free(&a);
    sb_optset_free(&set);
}
END_TEST

/* --------------------------------------------------------- config file */

START_TEST(test_config_file)
{
    static const char *const argv[] = {
        "sysbench", "--threads=8", "run", NULL
    };
    char path[64], err[ERRLEN];
    struct sb_optset set;
    struct sb_args a;
    size_t n;
    char *const *items;

    write_temp(path, sizeof(path),
               "# a comment\n"
               "\n"
               "threads=2\n"
               "  time = 5.5  \n"
               "   # indented comment\n"
               "histogram\n"
               "percentile=50,99\r\n"
               "--table_size=77\n"
               "db-driver = pg sql\n"
               "buffer-size=1M");
    make_set(&set);
    ck_assert_int_eq(split(&a, argv, err), 0);
    ck_assert_int_eq(sb_args_read_config(&a, path, err, sizeof(err)), 0);
    ck_assert_uint_eq(a.nopts, 8);
    /* The file's entries come first, in file order. */
    ck_assert_str_eq(a.opts[0].name, "threads");
    ck_assert_str_eq(a.opts[0].value, "2");
    ck_assert_str_eq(a.opts[1].name, "time");
    ck_assert_str_eq(a.opts[1].value, "5.5");
    ck_assert_str_eq(a.opts[2].name, "histogram");
    ck_assert_ptr_null(a.opts[2].value);
    ck_assert_str_eq(a.opts[7].name, "threads");
    ck_assert_str_eq(a.opts[7].value, "8");
    ck_assert_uint_eq(a.npos, 1);

    ck_assert_int_eq(sb_args_apply(&a, &set, err, sizeof(err)), 0);
    /* The command line wins over the file. */
    ck_assert_int_eq(sb_optset_int(&set, "threads"), 8);
    ck_assert(sb_optset_double(&set, "time") == 5.5);
    ck_assert(sb_optset_bool(&set, "histogram"));
    items = sb_optset_list(&set, "percentile", &n);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(items[1], "99");
    ck_assert_int_eq(sb_optset_int(&set, "table-size"), 77);
    ck_assert_str_eq(sb_optset_str(&set, "db-driver"), "pg sql");
    ck_assert_int_eq(sb_optset_int(&set, "buffer-size"), 1048576);
    ck_assert_ptr_null(sb_args_first_unused(&a));
    sb_args_free(&a);
    sb_optset_free(&set);
    unlink(path);
}
END_TEST

START_TEST(test_config_errors)
{
    static const char *const argv[] = {"sysbench", "--time=3", NULL};
    char path[64], err[ERRLEN], want[128];
    struct sb_args a;
    struct sb_optset set;

    write_temp(path, sizeof(path), "threads=2\n# c\n = 5\n");
    ck_assert_int_eq(split(&a, argv, err), 0);
    ck_assert_int_eq(sb_args_read_config(&a, path, err, sizeof(err)), -1);
    snprintf(want, sizeof(want), "%s:3: missing option name", path);
    ck_assert_str_eq(err, want);
    /* A failed read leaves the arguments as they were. */
    ck_assert_uint_eq(a.nopts, 1);
    ck_assert_str_eq(a.opts[0].name, "time");
    unlink(path);

    ck_assert_int_eq(sb_args_read_config(&a, "/nonexistent/dir/sb.conf", err,
                                         sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "/nonexistent/dir/sb.conf"));
    ck_assert_int_eq(sb_args_read_config(&a, NULL, err, sizeof(err)), -1);
    sb_args_free(&a);

    /* A bad value from the file is reported by apply, naming the option
     * and the file's line. */
    write_temp(path, sizeof(path), "# c\nhistogram=perhaps\n");
    sb_args_init(&a);
    ck_assert_int_eq(sb_args_read_config(&a, path, err, sizeof(err)), 0);
    make_set(&set);
    ck_assert_int_eq(sb_args_apply(&a, &set, err, sizeof(err)), -1);
    snprintf(want, sizeof(want), "%s:2: invalid value 'perhaps' for --histogram: expected on/off",
             path);
    ck_assert_str_eq(err, want);
    sb_optset_free(&set);
    sb_args_free(&a);
    unlink(path);

    /* A UTF-8 byte order mark is not part of the first name; control
     * bytes in a value are quoted as \xNN. */
    write_temp(path, sizeof(path), "\xef\xbb\xbfhistogram=on\nthreads=\x1b[1m\n");
    sb_args_init(&a);
    ck_assert_int_eq(sb_args_read_config(&a, path, err, sizeof(err)), 0);
    ck_assert_str_eq(a.opts[0].name, "histogram");
    ck_assert_uint_eq(a.opts[1].line, 2);
    make_set(&set);
    ck_assert_int_eq(sb_args_apply(&a, &set, err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, ":2: invalid value '\\x1b[1m' for --threads"));
    sb_optset_free(&set);
    sb_args_free(&a);
    unlink(path);

    /* An empty file adds nothing. */
    write_temp(path, sizeof(path), "");
    sb_args_init(&a);
    ck_assert_int_eq(sb_args_read_config(&a, path, err, sizeof(err)), 0);
    ck_assert_uint_eq(a.nopts, 0);
    sb_args_free(&a);
    unlink(path);
}
END_TEST

/* ---------------------------------------------------------------- help */

/* Prints the set's help into a string the caller frees. */
static char *help_text(const struct sb_optset *set)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    ck_assert_ptr_nonnull(f);
    sb_optset_print_help(set, f);
    fclose(f);
    return buf;
}

START_TEST(test_help)
{
    struct sb_optset set;
    char err[ERRLEN];
    char *text;

    make_set(&set);
    ck_assert_int_eq(sb_optset_add(&set, "mysql-password", "MySQL password",
                                   "secret", SB_ARG_STRING, err, sizeof(err)), 0);
    ck_assert_int_eq(sb_optset_add(&set, "pgsql-password", "PostgreSQL password",
                                   "", SB_ARG_STRING, err, sizeof(err)), 0);
    ck_assert_int_eq(sb_optset_add(&set, "a-very-long-option-name-for-testing",
                                   "long", "x", SB_ARG_STRING, err, sizeof(err)), 0);
    ck_assert_int_eq(sb_optset_add_alias(&set, "num-threads", "threads", err,
                                         sizeof(err)), 0);
    sb_optset_set_secret(&set, "mysql-password");
    sb_optset_set_secret(&set, "pgsql-password");
    text = help_text(&set);
    ck_assert_str_eq(text,
        "Test options:\n"
        "  --threads=N                     number of threads to use [1]\n"
        "  --histogram[=on|off]            print latency histogram in report [off]\n"
        "  --table-size=N                  number of rows per table [10000]\n"
        "  --buffer-size=SIZE              size of the buffer [16K]\n"
        "  --time=N                        limit for total execution time in seconds [10]\n"
        "  --db-driver=STRING              database driver [sqlite]\n"
        "  --percentile=[LIST,...]         percentiles to report [95]\n"
        "  --sqlite-db=FILENAME            database file\n"
        "  --mysql-password=STRING         MySQL password [***]\n"
        "  --pgsql-password=STRING         PostgreSQL password []\n"
        "  --a-very-long-option-name-for-testing=STRING long [x]\n");
    free(text);
    /* The current value never changes what help shows as the default. */
    ck_assert_int_eq(sb_opt_set(sb_optset_find(&set, "threads"), "9", err,
                                sizeof(err)), 0);
    text = help_text(&set);
    ck_assert_ptr_nonnull(strstr(text, "number of threads to use [1]\n"));
    ck_assert_ptr_null(strstr(text, "secret"));
    free(text);
    sb_optset_free(&set);

    /* A title already ending in ':' is not given a second one; no title
     * means no heading. */
    sb_optset_init(&set, "General options:");
    text = help_text(&set);
    ck_assert_str_eq(text, "General options:\n");
    free(text);
    sb_optset_free(&set);
    sb_optset_init(&set, NULL);
    text = help_text(&set);
    ck_assert_str_eq(text, "");
    free(text);
    sb_optset_free(&set);
}
END_TEST

/* Upper bounds: a duration at 1e9 s is accepted, beyond it refused with
 * "at most"; the bound is on the option, whichever set declares it; an
 * option without a bound takes any number. */
START_TEST(test_ranges)
{
    struct sb_optset set;
    char err[256];

    sb_optset_init(&set, "t");
    ck_assert_int_eq(sb_optset_add(&set, "time", "", "10", SB_ARG_DOUBLE, err, sizeof(err)), 0);
    ck_assert_int_eq(sb_optset_add(&set, "sqlite-busy-timeout", "", "5000", SB_ARG_INT, err,
                                   sizeof(err)), 0);
    ck_assert_int_eq(sb_optset_add(&set, "table-size", "", "1", SB_ARG_INT, err, sizeof(err)), 0);
    ck_assert_int_eq(sb_opt_set(sb_optset_find(&set, "time"), "1000000000", err, sizeof(err)), 0);
    ck_assert_int_eq(sb_opt_set(sb_optset_find(&set, "time"), "18446744074", err, sizeof(err)), -1);
    ck_assert_str_eq(err, "invalid value '18446744074' for --time: expected at most 1000000000 seconds");
    ck_assert(sb_optset_double(&set, "time") == 1e9);
    ck_assert_int_eq(sb_opt_set(sb_optset_find(&set, "sqlite-busy-timeout"), "2147483648", err,
                                sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "at most 2147483647 milliseconds"));
    ck_assert_int_eq(sb_opt_set(sb_optset_find(&set, "table-size"), "9223372036854775807", err,
                                sizeof(err)), 0);
    sb_optset_free(&set);
}
END_TEST

/* A quoted value is cut short and shows control bytes as \xNN. */
START_TEST(test_quote)
{
    char big[5001], out[SB_OPT_QUOTE_LEN];

    memset(big, '9', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    sb_opt_quote(big, out, sizeof(out));
    ck_assert_uint_lt(strlen(out), SB_OPT_QUOTE_LEN);
    ck_assert_str_eq(out + strlen(out) - 3, "...");
    sb_opt_quote("a\033[2J\rb", out, sizeof(out));
    ck_assert_str_eq(out, "a\\x1b[2J\\x0db");
    sb_opt_quote(NULL, out, sizeof(out));
    ck_assert_str_eq(out, "");
}
END_TEST

/* Did-you-mean: slips of one or two edits (a dropped, added, changed or
 * swapped character) find the option, '-' and '_' alike; a name that is
 * not a slip of anything finds nothing; aliases are never suggested. */
START_TEST(test_suggest)
{
    struct sb_optset a, b;
    const struct sb_optset *sets[3];
    char err[ERRLEN], buf[64];

    make_set(&a);
    sb_optset_init(&b, "Driver options");
    ck_assert_int_eq(sb_optset_add(&b, "tx-rate", "rate", "0", SB_ARG_DOUBLE, err, sizeof(err)), 0);
    ck_assert_int_eq(sb_optset_add(&b, "mysql-password", "pw", "", SB_ARG_STRING, err, sizeof(err)), 0);
    ck_assert_int_eq(sb_optset_add(&b, "mysql-port", "port", "3306", SB_ARG_LIST, err, sizeof(err)), 0);
    ck_assert_int_eq(sb_optset_add(&b, "mysql-password-file", "pw file", "", SB_ARG_FILE, err, sizeof(err)), 0);
    ck_assert_int_eq(sb_optset_add_alias(&b, "num-thread-count", "tx-rate", err, sizeof(err)), 0);
    sets[0] = &a;
    sets[1] = NULL;   /* skipped */
    sets[2] = &b;

    ck_assert_str_eq(sb_opt_suggest("tx-rat", sets, 3), "tx-rate");        /* dropped */
    ck_assert_str_eq(sb_opt_suggest("tx-ratee", sets, 3), "tx-rate");      /* added */
    ck_assert_str_eq(sb_opt_suggest("tx-rtae", sets, 3), "tx-rate");       /* swapped */
    ck_assert_str_eq(sb_opt_suggest("thraeds", sets, 3), "threads");
    ck_assert_str_eq(sb_opt_suggest("table-sise", sets, 3), "table_size"); /* as declared */
    ck_assert_str_eq(sb_opt_suggest("table_sze", sets, 3), "table_size");
    ck_assert_str_eq(sb_opt_suggest("db_drvier", sets, 3), "db-driver");
    /* A prefix of exactly one option is that option; of two, neither,
     * unless one begins all the others (mysql-password-file). */
    ck_assert_str_eq(sb_opt_suggest("mysql-pass", sets, 3), "mysql-password");
    ck_assert_ptr_null(sb_opt_suggest("mysql-p", sets, 3));
    /* Not slips: too far, or too many edits for a short name. */
    ck_assert_ptr_null(sb_opt_suggest("frobnicate", sets, 3));
    ck_assert_ptr_null(sb_opt_suggest("foo", sets, 3));
    ck_assert_str_eq(sb_opt_suggest("tim", sets, 3), "time");
    ck_assert_ptr_null(sb_opt_suggest("tm", sets, 3));   /* 2 edits of 2 characters */
    ck_assert_ptr_null(sb_opt_suggest("ab", sets, 3));
    /* An alias is not advertised, even when closest. */
    ck_assert_ptr_null(sb_opt_suggest("num-thread-coun", sets, 3));
    ck_assert_ptr_null(sb_opt_suggest(NULL, sets, 3));
    /* A known name is not a slip of itself (nor a prefix of itself). */
    ck_assert_ptr_null(sb_opt_suggest("mysql-password", sets, 3));
    ck_assert_ptr_null(sb_opt_suggest("table-size", sets, 3));

    ck_assert_uint_eq(sb_opt_distance("tx-rate", "tx_rate"), 0);
    ck_assert_uint_eq(sb_opt_distance("abc", "acb"), 1);
    ck_assert_uint_eq(sb_opt_distance("", "abc"), 3);
    ck_assert_str_eq(sb_opt_dashed("table_size_x", buf, sizeof(buf)), "table-size-x");
    ck_assert_str_eq(sb_opt_dashed("table_size", buf, 6), "table");
    sb_optset_free(&a);
    sb_optset_free(&b);
}
END_TEST

static Suite *options_suite(void)
{
    Suite *s = suite_create("sb_options");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, test_parse_int);
    tcase_add_test(tc, test_parse_size);
    tcase_add_test(tc, test_parse_bool);
    tcase_add_test(tc, test_parse_double);
    tcase_add_test(tc, test_defaults);
    tcase_add_test(tc, test_add_errors);
    tcase_add_test(tc, test_set_values);
    tcase_add_test(tc, test_set_errors);
    tcase_add_test(tc, test_lists);
    tcase_add_test(tc, test_dash_underscore);
    tcase_add_test(tc, test_aliases);
    tcase_add_test(tc, test_split);
    tcase_add_test(tc, test_split_errors);
    tcase_add_test(tc, test_apply);
    tcase_add_test(tc, test_apply_error);
    tcase_add_test(tc, test_config_file);
    tcase_add_test(tc, test_config_errors);
    tcase_add_test(tc, test_help);
    tcase_add_test(tc, test_ranges);
    tcase_add_test(tc, test_quote);
    tcase_add_test(tc, test_suggest);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(options_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
