/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the bulk loader (sb_db_bulk.c) through the real embedded
 * SQLite driver: its prepared path and the multi-row INSERTs store the
 * same rows, a value that is not a plain literal moves the load to
 * INSERTs, another statement in the middle of a load sees its rows, a
 * malformed row fails naming it, and a row is taken only after the
 * statement sending the rows before it succeeded.
 *
 * Each test runs in its own process (Check's fork mode), so the policy
 * sb_db_init fixes starts fresh each time.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "drivers/sb_db_bulk.h"
#include "drivers/sb_driver.h"

#define ERRLEN 512

struct fx {
    char dir[64], db[128];
    struct sb_optset general, drvopts;
    const struct sb_driver_ops *drv;
    struct sb_db_counters cnt;
    struct sb_conn *con;
};

static void set_opt(struct sb_optset *set, const char *name, const char *value)
{
    char err[ERRLEN];
    struct sb_opt *o = sb_optset_find(set, name);

    ck_assert_ptr_nonnull(o);
    ck_assert_msg(sb_opt_set(o, value, err, sizeof(err)) == 0, "%s", err);
}

/* A fresh database, the driver with --bulk-mode=mode, one connection. */
static void fx_setup(struct fx *f, const char *mode)
{
    char err[ERRLEN] = "";
    struct sb_db_error dberr;
    const struct sb_driver_ops *sqlite = sb_driver_find("sqlite");

    memset(f, 0, sizeof(*f));
    snprintf(f->dir, sizeof(f->dir), "/tmp/check_sb_bulk_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(f->dir));
    snprintf(f->db, sizeof(f->db), "%s/test.db", f->dir);
    sb_optset_init(&f->general, "General database options");
    sb_optset_init(&f->drvopts, "SQLite options");
    ck_assert_int_eq(sb_optset_add_defs(&f->general, sb_db_options, err, sizeof(err)), 0);
    ck_assert_int_eq(sb_optset_add_defs(&f->drvopts, sqlite->options, err, sizeof(err)), 0);
    set_opt(&f->drvopts, "sqlite-db", f->db);
    set_opt(&f->general, "bulk-mode", mode);
    f->drv = sb_db_init(&f->general, &f->drvopts, "sqlite", err, sizeof(err));
    ck_assert_msg(f->drv != NULL, "sb_db_init: %s", err);
    f->con = sb_db_connect(f->drv, &f->cnt, &dberr);
    ck_assert_msg(f->con != NULL, "connect: %s", dberr.msg);
}

static void fx_teardown(struct fx *f)
{
    static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};
    char path[160];

    sb_db_disconnect(f->con);
    sb_db_done(f->drv);
    for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
        snprintf(path, sizeof(path), "%s%s", f->db, suffixes[i]);
        unlink(path);
    }
    rmdir(f->dir);
    sb_optset_free(&f->general);
    sb_optset_free(&f->drvopts);
}

static void q(struct sb_conn *con, const char *sql)
{
    char line[1024];

    if (sb_db_query(con, sql, strlen(sql)) != SB_DB_DONE) {
        sb_db_format_error(con, line, sizeof(line));
        ck_abort_msg("%s", line);
    }
}

/* The first column of the first row of sql. */
static void expect_value(struct sb_conn *con, const char *sql, const char *want)
{
    q(con, sql);
    ck_assert_int_eq(sb_db_fetch(con), 1);
    ck_assert_ptr_nonnull(con->rs.row[0].ptr);
    ck_assert_str_eq(con->rs.row[0].ptr, want);
    sb_db_free_result(con);
}

static void row(struct sb_conn *con, const char *text)
{
    ck_assert_int_eq(sb_db_bulk_next(con, text, strlen(text)), SB_DB_DONE);
}

/* Loads the same rows (escapes, NULL, several tuples in one call, a value
 * kept as SQL) and returns a digest of the table, in its text form. */
static void load_and_digest(const char *mode, char *out, size_t len)
{
    struct fx f;
    static const char head[] = "INSERT INTO t (id, a, b) VALUES";
    char sql[64];

    fx_setup(&f, mode);
    q(f.con, "CREATE TABLE t (id INTEGER PRIMARY KEY, a, b TEXT)");
    ck_assert_int_eq(sb_db_bulk_init(f.con, head, strlen(head), false), 0);
    for (int i = 1; i <= 3000; i++) {
        snprintf(sql, sizeof(sql), "(%d, %d, 'r''%d\\x')", i, i * 7, i);
        row(f.con, sql);
    }
    row(f.con, "(3001, NULL, 'tab\there'),(3002, 'text', '')");
    /* Not a plain literal: the rest goes as INSERTs. */
    row(f.con, "(3003, 1 + 1, 'expr')");
    row(f.con, "(3004, -5, 'after')");
    ck_assert_int_eq(sb_db_bulk_done(f.con), SB_DB_DONE);
    expect_value(f.con, "SELECT COUNT(*) FROM t", "3004");
    /* Values keep their type: an integer stays one in an untyped column. */
    expect_value(f.con, "SELECT typeof(a) || typeof(b) FROM t WHERE id = 7", "integertext");
    expect_value(f.con, "SELECT b FROM t WHERE id = 12", "r'12\\x");
    q(f.con, "SELECT group_concat(id || '|' || quote(a) || '|' || quote(b), ';') "
             "FROM (SELECT * FROM t ORDER BY id)");
    ck_assert_int_eq(sb_db_fetch(f.con), 1);
    snprintf(out, len, "%s", f.con->rs.row[0].ptr);
    sb_db_free_result(f.con);
    fx_teardown(&f);
}

START_TEST(test_modes_store_the_same_rows)
{
    static char a[1 << 20], b[1 << 20];

    load_and_digest("copy", a, sizeof(a));
    load_and_digest("insert", b, sizeof(b));
    ck_assert(strlen(a) > 3000 * 8);
    ck_assert_msg(strcmp(a, b) == 0, "the table differs between --bulk-mode=copy and insert");
    ck_assert(strstr(a, "3001|NULL|'tab\there'") != NULL);
    ck_assert(strstr(a, "3003|2|'expr'") != NULL);
}
END_TEST

/* Another statement in the middle of a load sees the rows before it; the
 * load then goes on. */
START_TEST(test_statement_between_rows)
{
    struct fx f;
    static const char head[] = "INSERT INTO t VALUES";

    fx_setup(&f, "copy");
    q(f.con, "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)");
    ck_assert_int_eq(sb_db_bulk_init(f.con, head, strlen(head), false), 0);
    row(f.con, "(1, 'a')");
    row(f.con, "(2, 'b')");
    expect_value(f.con, "SELECT COUNT(*) FROM t", "2");
    row(f.con, "(3, 'c')");
    ck_assert_int_eq(sb_db_bulk_done(f.con), SB_DB_DONE);
    expect_value(f.con, "SELECT group_concat(v, '') FROM t", "abc");
    fx_teardown(&f);
}
END_TEST

START_TEST(test_malformed_row)
{
    struct fx f;
    static const char head[] = "INSERT INTO t (id, v) VALUES";

    fx_setup(&f, "copy");
    q(f.con, "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)");
    ck_assert_int_eq(sb_db_bulk_init(f.con, head, strlen(head), false), 0);
    row(f.con, "(1, 'a')");
    ck_assert_int_eq(sb_db_bulk_next(f.con, "(2, 'b)", 7), SB_DB_FATAL);
    ck_assert(sb_db_bulk_bad_row(f.con));
    ck_assert_str_eq(f.con->err.msg, "bulk insert into t: row 2 is malformed (a quoted value "
                                     "does not end, at character 5): (2, 'b)");
    ck_assert_int_eq(sb_db_bulk_next(f.con, "(3, 'c', 4)", 11), SB_DB_FATAL);
    ck_assert_str_eq(f.con->err.msg, "bulk insert into t: row 3 is malformed (3 values where "
                                     "the column list has 2): (3, 'c', 4)");
    fx_teardown(&f);
}
END_TEST

/* In the event loop: a row is taken only when the statement sending the
 * rows before it succeeded; those rows are kept and sent again. */
START_TEST(test_failed_statement_keeps_rows)
{
    struct fx f;
    static const char head[] = "INSERT INTO t VALUES";
    enum sb_db_outcome o = SB_DB_DONE;
    size_t big = 100000;
    char *text = malloc(big + 64);
    int i;

    fx_setup(&f, "auto");
    q(f.con, "CREATE TABLE t (id INTEGER PRIMARY KEY, pad TEXT)");
    q(f.con, "CREATE TRIGGER stop BEFORE INSERT ON t WHEN NEW.id = 5 "
             "BEGIN SELECT RAISE(ABORT, 'no 5 yet'); END");
    ck_assert_int_eq(sb_db_bulk_init(f.con, head, strlen(head), true), 0);
    /* Rows of 100 KB: two fill a 256 KB statement, which the third sends. */
    for (i = 1; i <= 10 && o == SB_DB_DONE; i++) {
        int n = snprintf(text, 64, "(%d, '", i);
        memset(text + n, 'x', big);
        memcpy(text + n + big, "')", 3);
        o = sb_db_bulk_next(f.con, text, strlen(text));
    }
    /* Rows 1..4 went in two statements; the one sending 5 and 6 failed at
     * 5, so row 7 was refused and neither 5 nor 6 is stored. */
    ck_assert_int_eq(o, SB_DB_FATAL);
    ck_assert_int_eq(i - 1, 7);
    expect_value(f.con, "SELECT group_concat(id) FROM t", "1,2,3,4");
    q(f.con, "DROP TRIGGER stop");
    /* The next row sends 5 and 6 again, then is taken itself. */
    row(f.con, "(7, 'x')");
    ck_assert_int_eq(sb_db_bulk_done(f.con), SB_DB_DONE);
    expect_value(f.con, "SELECT group_concat(id) FROM t", "1,2,3,4,5,6,7");
    free(text);
    fx_teardown(&f);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sb_db_bulk");
    TCase *tc = tcase_create("sqlite");
    SRunner *sr;
    int failed;

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_modes_store_the_same_rows);
    tcase_add_test(tc, test_statement_between_rows);
    tcase_add_test(tc, test_malformed_row);
    tcase_add_test(tc, test_failed_statement_keeps_rows);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
