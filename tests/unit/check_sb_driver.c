/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the driver common layer (sb_driver.c), run through the
 * real embedded SQLite driver on a temporary database file: connections,
 * plain queries, prepared statements with every parameter kind, result
 * sets, the read/write/other counters, the error policy, client-side
 * emulation (--db-ps-mode=disable) and re-preparation after a reconnect.
 *
 * Each test runs in its own process (Check's fork mode), so the policy
 * sb_db_init fixes and the driver's configuration start fresh each time.
 */
#include "config.h"

#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "drivers/sb_db_cancel.h"
#include "drivers/sb_driver.h"

#define ERRLEN 512

/* ------------------------------------------------------------ fixture */

/* What on_error saw, in order. */
struct seen_errors {
    unsigned codes[16];
    bool reconnect[16];
    size_t n;
};

static void record_error(void *ctx, const struct sb_db_error *err, bool reconnect)
{
    struct seen_errors *s = ctx;

    if (s->n < 16) {
        s->codes[s->n] = err->sql_errno;
        s->reconnect[s->n] = reconnect;
        s->n++;
    }
}

/* One test's database: options, driver, counters, temporary directory. */
struct fx {
    char dir[64];
    char db[128];
    struct sb_optset general, drvopts;
    const struct sb_driver_ops *drv;
    struct sb_db_counters cnt;
    struct seen_errors seen;
};

static void set_opt(struct sb_optset *set, const char *name, const char *value)
{
    char err[ERRLEN];
    struct sb_opt *o = sb_optset_find(set, name);

    ck_assert_ptr_nonnull(o);
    ck_assert_msg(sb_opt_set(o, value, err, sizeof(err)) == 0, "%s", err);
}

/* Builds the option sets with the defaults, a database file in a fresh
 * directory and a zero busy timeout (lock collisions fail at once). The
 * caller sets further options, then calls fx_init. */
static void fx_setup(struct fx *f)
{
    char err[ERRLEN];
    const struct sb_driver_ops *sqlite = sb_driver_find("sqlite");

    memset(f, 0, sizeof(*f));
    ck_assert_ptr_nonnull(sqlite);
    snprintf(f->dir, sizeof(f->dir), "/tmp/check_sb_driver_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(f->dir));
    snprintf(f->db, sizeof(f->db), "%s/test.db", f->dir);
    sb_optset_init(&f->general, "General database options");
    sb_optset_init(&f->drvopts, "SQLite options");
    ck_assert_int_eq(sb_optset_add_defs(&f->general, sb_db_options, err, sizeof(err)), 0);
    ck_assert_int_eq(sb_optset_add_defs(&f->drvopts, sqlite->options, err, sizeof(err)), 0);
    set_opt(&f->drvopts, "sqlite-db", f->db);
    set_opt(&f->drvopts, "sqlite-busy-timeout", "0");
    f->cnt.on_error = record_error;
    f->cnt.ctx = &f->seen;
}

static void fx_init(struct fx *f)
{
    char err[ERRLEN] = "";

    f->drv = sb_db_init(&f->general, &f->drvopts, "sqlite", err, sizeof(err));
    ck_assert_msg(f->drv != NULL, "sb_db_init: %s", err);
    ck_assert_str_eq(f->drv->name, "sqlite");
}

static struct sb_conn *fx_connect(struct fx *f)
{
    struct sb_db_error err;
    struct sb_conn *con = sb_db_connect(f->drv, &f->cnt, &err);

    ck_assert_msg(con != NULL, "connect: %s", err.msg);
    return con;
}

/* Removes the database files and the directory. */
static void fx_teardown(struct fx *f)
{
    static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};
    char path[160];

    sb_db_done(f->drv);
    for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
        snprintf(path, sizeof(path), "%s%s", f->db, suffixes[i]);
        unlink(path);
    }
    rmdir(f->dir);
    sb_optset_free(&f->general);
    sb_optset_free(&f->drvopts);
}

static enum sb_db_outcome q(struct sb_conn *con, const char *sql)
{
    return sb_db_query(con, sql, strlen(sql));
}

static void q_ok(struct sb_conn *con, const char *sql)
{
    enum sb_db_outcome o = q(con, sql);

    ck_assert_msg(o == SB_DB_DONE, "'%s' gave outcome %d: %s", sql, (int)o, con->err.msg);
}

static struct sb_stmt *prep(struct sb_conn *con, const char *sql)
{
    struct sb_stmt *st = sb_db_prepare(con, sql, strlen(sql));

    ck_assert_msg(st != NULL, "prepare '%s': %s", sql, con->err.msg);
    return st;
}

/* Column i of the current row as text, "(null)" for SQL NULL. */
static const char *col(struct sb_conn *con, unsigned i, char *buf, size_t len)
{
    const struct sb_value *v;

    ck_assert_uint_lt(i, con->rs.nfields);
    v = &con->rs.row[i];
    if (v->ptr == NULL)
        return "(null)";
    ck_assert_uint_lt(v->len, len);
    memcpy(buf, v->ptr, v->len);
    buf[v->len] = '\0';
    return buf;
}

/* Runs a one-row query and checks its columns, '|'-joined. */
static void expect_row(struct sb_conn *con, const char *sql, const char *want)
{
    char line[512] = "", buf[256];

    q_ok(con, sql);
    ck_assert(con->rs.active);
    ck_assert_uint_eq(con->rs.nrows, 1);
    ck_assert_int_eq(sb_db_fetch(con), 1);
    for (unsigned i = 0; i < con->rs.nfields; i++) {
        size_t used = strlen(line);
        snprintf(line + used, sizeof(line) - used, "%s%s", i ? "|" : "",
                 col(con, i, buf, sizeof(buf)));
    }
    ck_assert_str_eq(line, want);
    ck_assert_int_eq(sb_db_fetch(con), 0);
    sb_db_free_result(con);
}

/* Parameter values of every kind, as the Lua layer builds them. */
struct params {
    struct sb_bind v[5];
    struct sb_bind *p[5];
    char str[64];
};

static void params_init(struct params *ps, int64_t i, int64_t big, double d, const char *s)
{
    memset(ps, 0, sizeof(*ps));
    ps->v[0].type = SB_SQL_INT;
    ps->v[0].i = i;
    ps->v[1].type = SB_SQL_BIGINT;
    ps->v[1].i = big;
    ps->v[2].type = SB_SQL_DOUBLE;
    ps->v[2].d = d;
    snprintf(ps->str, sizeof(ps->str), "%s", s);
    ps->v[3].type = SB_SQL_VARCHAR;
    ps->v[3].str = ps->str;
    ps->v[3].len = strlen(s);
    ps->v[3].cap = sizeof(ps->str);
    ps->v[4].type = SB_SQL_INT;
    ps->v[4].is_null = true;
    for (int k = 0; k < 5; k++)
        ps->p[k] = &ps->v[k];
}

/* ------------------------------------------------------------ SQL text helpers */

START_TEST(test_sql_helpers)
{
    const char *s = "SELECT '?', \"?\", `?` FROM t WHERE a = ? AND b = 'it''s ?' AND c = ?";
    size_t len = strlen(s), first;

    ck_assert_uint_eq(sb_sql_count_placeholders(s, len), 2);
    first = sb_sql_next_placeholder(s, len, 0);
    ck_assert_int_eq(s[first], '?');
    ck_assert_str_eq(s + first - 4, "a = ? AND b = 'it''s ?' AND c = ?");
    ck_assert_uint_eq(sb_sql_next_placeholder(s, len, len - 1), len - 1);
    ck_assert_uint_eq(sb_sql_next_placeholder(s, len - 1, first + 1), len - 1);
    ck_assert_uint_eq(sb_sql_count_placeholders("SELECT 1", 8), 0);

    ck_assert_int_eq(sb_sql_classify("SELECT 1", 8), SB_QUERY_READ);
    ck_assert_int_eq(sb_sql_classify("  (select 1)", 12), SB_QUERY_READ);
    ck_assert_int_eq(sb_sql_classify("insert into t", 13), SB_QUERY_WRITE);
    ck_assert_int_eq(sb_sql_classify("Update t", 8), SB_QUERY_WRITE);
    ck_assert_int_eq(sb_sql_classify("\nDELETE FROM t", 14), SB_QUERY_WRITE);
    ck_assert_int_eq(sb_sql_classify("REPLACE INTO t", 14), SB_QUERY_WRITE);
    ck_assert_int_eq(sb_sql_classify("BEGIN", 5), SB_QUERY_OTHER);
    ck_assert_int_eq(sb_sql_classify("SELECTED", 8), SB_QUERY_OTHER);
    ck_assert_int_eq(sb_sql_classify("", 0), SB_QUERY_OTHER);
    /* Only len bytes count: "SELECT" cut to "SELE" is not a read. */
    ck_assert_int_eq(sb_sql_classify("SELECT", 4), SB_QUERY_OTHER);
}
END_TEST

/* ------------------------------------------------------------ init */

START_TEST(test_init_errors)
{
    struct fx f;
    char err[ERRLEN];

    fx_setup(&f);
    ck_assert_ptr_null(sb_db_init(&f.general, &f.drvopts, "nosuch", err, sizeof(err)));
    ck_assert_ptr_nonnull(strstr(err, "invalid database driver name: 'nosuch'"));
    ck_assert_ptr_nonnull(strstr(err, "sqlite"));

    set_opt(&f.general, "db-ps-mode", "sometimes");
    ck_assert_ptr_null(sb_db_init(&f.general, &f.drvopts, "sqlite", err, sizeof(err)));
    ck_assert_str_eq(err, "invalid value 'sometimes' for --db-ps-mode: expected auto or disable");
    set_opt(&f.general, "db-ps-mode", "auto");

    set_opt(&f.general, "db-ignore-errors", "1205,inf");
    ck_assert_ptr_null(sb_db_init(&f.general, &f.drvopts, "sqlite", err, sizeof(err)));
    ck_assert_ptr_nonnull(strstr(err, "'inf' for --db-ignore-errors"));
    set_opt(&f.general, "db-ignore-errors", "40001,1205");

    set_opt(&f.drvopts, "sqlite-synchronous", "abc");
    ck_assert_ptr_null(sb_db_init(&f.general, &f.drvopts, "sqlite", err, sizeof(err)));
    ck_assert_ptr_nonnull(strstr(err, "--sqlite-synchronous"));
    set_opt(&f.drvopts, "sqlite-synchronous", "normal");

    fx_init(&f);
    fx_teardown(&f);
}
END_TEST

/* ------------------------------------------------------------ queries */

START_TEST(test_query_rows_and_counters)
{
    struct fx f;
    struct sb_conn *con;
    char buf[64];

    fx_setup(&f);
    fx_init(&f);
    con = fx_connect(&f);
    ck_assert_ptr_nonnull(con->drv->server_version(con));

    q_ok(con, "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL)");
    ck_assert(!con->rs.active);
    q_ok(con, "INSERT INTO t VALUES (1, 'one', 1.5)");
    q_ok(con, "insert into t values (2, NULL, NULL)");
    q_ok(con, "UPDATE t SET score = 2.5 WHERE id = 2");
    q_ok(con, "  SELECT id, name, score FROM t ORDER BY id");
    ck_assert(con->rs.active);
    ck_assert_uint_eq(con->rs.nrows, 2);
    ck_assert_uint_eq(con->rs.nfields, 3);
    ck_assert_int_eq(sb_db_fetch(con), 1);
    ck_assert_str_eq(col(con, 0, buf, sizeof(buf)), "1");
    ck_assert_str_eq(col(con, 1, buf, sizeof(buf)), "one");
    ck_assert_uint_eq(con->rs.row[1].len, 3);
    ck_assert_str_eq(col(con, 2, buf, sizeof(buf)), "1.5");
    ck_assert_int_eq(sb_db_fetch(con), 1);
    ck_assert_str_eq(col(con, 0, buf, sizeof(buf)), "2");
    ck_assert_ptr_null(con->rs.row[1].ptr);
    ck_assert_str_eq(col(con, 2, buf, sizeof(buf)), "2.5");
    ck_assert_int_eq(sb_db_fetch(con), 0);

    /* A new query frees the open result set; an empty one has columns
     * but no rows. */
    q_ok(con, "SELECT id FROM t WHERE id > 100");
    ck_assert(con->rs.active);
    ck_assert_uint_eq(con->rs.nrows, 0);
    ck_assert_uint_eq(con->rs.nfields, 1);
    ck_assert_int_eq(sb_db_fetch(con), 0);
    sb_db_free_result(con);
    ck_assert(!con->rs.active);
    ck_assert_int_eq(sb_db_fetch(con), 0);

    q_ok(con, "BEGIN");
    q_ok(con, "DELETE FROM t WHERE id = 2");
    q_ok(con, "COMMIT");
    expect_row(con, "SELECT count(*), '' FROM t", "1|");

    /* CREATE, BEGIN, COMMIT; 3 SELECTs; INSERT x2, UPDATE, DELETE. */
    ck_assert_uint_eq(f.cnt.other, 3);
    ck_assert_uint_eq(f.cnt.reads, 3);
    ck_assert_uint_eq(f.cnt.writes, 4);
    ck_assert_uint_eq(f.cnt.errors, 0);
    ck_assert_uint_eq(f.seen.n, 0);
    sb_db_disconnect(con);
    fx_teardown(&f);
}
END_TEST

/* ------------------------------------------------------------ prepared */

/* Inserts one row of each parameter kind through a statement and reads
 * it back through another, checking values and SQLite's storage types. */
static void roundtrip_params(struct fx *f, bool emulated)
{
    struct sb_conn *con = fx_connect(f);
    struct sb_stmt *ins, *sel;
    struct params ps, key;
    char buf[128];

    q_ok(con, "CREATE TABLE t (i INTEGER, b INTEGER, d REAL, s TEXT, n INTEGER)");
    ins = prep(con, "INSERT INTO t (i, b, d, s, n) VALUES (?, ?, ?, ?, ?)");
    ck_assert_uint_eq(ins->nparams, 5);
    ck_assert_int_eq(ins->kind, SB_QUERY_WRITE);
    ck_assert(ins->emulated == emulated);
    ck_assert(emulated ? ins->priv == NULL : ins->priv != NULL);

    /* A quote, a placeholder and a backslash in the string: the
     * emulation quotes the value and substitutes nothing inside it. */
    params_init(&ps, 42, INT64_C(9007199254740993), 0.1, "O'Brien ?''\\");
    sb_db_bind(ins, ps.p, 5);
    ck_assert_int_eq(sb_db_execute(ins), SB_DB_DONE);
    /* The values are read at execution, not at bind. */
    ps.v[0].i = -7;
    ps.v[1].i = INT64_MIN;
    ps.v[2].d = -2.5e300;
    snprintf(ps.str, sizeof(ps.str), "%s", "");
    ps.v[3].len = 0;
    ps.v[4].is_null = false;
    ps.v[4].i = 3;
    ck_assert_int_eq(sb_db_execute(ins), SB_DB_DONE);

    sel = prep(con, "SELECT i, b, d, s, n, typeof(d), typeof(s), typeof(n) FROM t WHERE i = ?");
    ck_assert_int_eq(sel->kind, SB_QUERY_READ);
    params_init(&key, 42, 0, 0, "");
    sb_db_bind(sel, key.p, 1);
    ck_assert_int_eq(sb_db_execute(sel), SB_DB_DONE);
    ck_assert_uint_eq(con->rs.nrows, 1);
    ck_assert_int_eq(sb_db_fetch(con), 1);
    ck_assert_str_eq(col(con, 0, buf, sizeof(buf)), "42");
    ck_assert_str_eq(col(con, 1, buf, sizeof(buf)), "9007199254740993");
    ck_assert_str_eq(col(con, 2, buf, sizeof(buf)), "0.1");
    ck_assert_str_eq(col(con, 3, buf, sizeof(buf)), "O'Brien ?''\\");
    ck_assert_ptr_null(con->rs.row[4].ptr);
    ck_assert_str_eq(col(con, 5, buf, sizeof(buf)), "real");
    ck_assert_str_eq(col(con, 6, buf, sizeof(buf)), "text");
    ck_assert_str_eq(col(con, 7, buf, sizeof(buf)), "null");
    ck_assert_int_eq(sb_db_fetch(con), 0);

    key.v[0].i = -7;
    ck_assert_int_eq(sb_db_execute(sel), SB_DB_DONE);
    ck_assert_int_eq(sb_db_fetch(con), 1);
    ck_assert_str_eq(col(con, 1, buf, sizeof(buf)), "-9223372036854775808");
    ck_assert_str_eq(col(con, 2, buf, sizeof(buf)), "-2.5e+300");
    /* An empty string is not NULL. */
    ck_assert_ptr_nonnull(con->rs.row[3].ptr);
    ck_assert_uint_eq(con->rs.row[3].len, 0);
    ck_assert_str_eq(col(con, 4, buf, sizeof(buf)), "3");
    ck_assert_str_eq(col(con, 6, buf, sizeof(buf)), "text");
    ck_assert_str_eq(col(con, 7, buf, sizeof(buf)), "integer");

    ck_assert_uint_eq(f->cnt.writes, 2);
    ck_assert_uint_eq(f->cnt.reads, 2);
    ck_assert_uint_eq(f->cnt.other, 1);
    ck_assert_uint_eq(f->cnt.errors, 0);
    /* Disconnecting closes both statements and the open result set. */
    sb_db_disconnect(con);
}

START_TEST(test_prepared_server_side)
{
    struct fx f;

    fx_setup(&f);
    fx_init(&f);
    roundtrip_params(&f, false);
    fx_teardown(&f);
}
END_TEST

START_TEST(test_prepared_emulated)
{
    struct fx f;

    fx_setup(&f);
    set_opt(&f.general, "db-ps-mode", "disable");
    fx_init(&f);
    roundtrip_params(&f, true);
    fx_teardown(&f);
}
END_TEST

/* The emulated text: a value with a quote would end the literal early if
 * it were not doubled, so a syntax error or a wrong value shows a fault. */
START_TEST(test_emulated_literals)
{
    struct fx f;
    struct sb_conn *con;
    struct sb_stmt *st;
    struct params ps;
    char buf[128];

    fx_setup(&f);
    set_opt(&f.general, "db-ps-mode", "disable");
    fx_init(&f);
    con = fx_connect(&f);
    st = prep(con, "SELECT ?, ?, '?', ?, ?, typeof(?)");
    ck_assert_uint_eq(st->nparams, 5);
    params_init(&ps, 1, 2, 0.5, "'); DROP TABLE x; --");
    sb_db_bind(st, ps.p, 5);
    ck_assert_int_eq(sb_db_execute(st), SB_DB_DONE);
    ck_assert_uint_eq(con->rs.nfields, 6);
    ck_assert_int_eq(sb_db_fetch(con), 1);
    ck_assert_str_eq(col(con, 0, buf, sizeof(buf)), "1");
    ck_assert_str_eq(col(con, 1, buf, sizeof(buf)), "2");
    ck_assert_str_eq(col(con, 2, buf, sizeof(buf)), "?");
    ck_assert_str_eq(col(con, 3, buf, sizeof(buf)), "0.5");
    ck_assert_str_eq(col(con, 4, buf, sizeof(buf)), "'); DROP TABLE x; --");
    ck_assert_str_eq(col(con, 5, buf, sizeof(buf)), "null");

    /* A longer value than the first execution's grows the buffer. */
    memset(ps.str, '\'', sizeof(ps.str) - 1);
    ps.str[sizeof(ps.str) - 1] = '\0';
    ps.v[3].len = sizeof(ps.str) - 1;
    ck_assert_int_eq(sb_db_execute(st), SB_DB_DONE);
    ck_assert_int_eq(sb_db_fetch(con), 1);
    ck_assert_str_eq(col(con, 4, buf, sizeof(buf)), ps.str);
    ck_assert_uint_eq(f.cnt.reads, 2);
    sb_db_close(st);
    ck_assert_ptr_null(con->stmts);
    sb_db_disconnect(con);
    fx_teardown(&f);
}
END_TEST

/* ------------------------------------------------------------ errors */

START_TEST(test_fatal_error)
{
    struct fx f;
    struct sb_conn *con;
    struct sb_stmt *st;
    char line[1024];

    fx_setup(&f);
    fx_init(&f);
    con = fx_connect(&f);
    ck_assert_int_eq(q(con, "SELEC 1"), SB_DB_FATAL);
    ck_assert_uint_eq(con->err.sql_errno, 1);
    ck_assert_ptr_nonnull(strstr(con->err.msg, "syntax error"));
    ck_assert_str_eq(con->last_query, "SELEC 1");
    sb_db_format_error(con, line, sizeof(line));
    ck_assert_ptr_nonnull(strstr(line, "sqlite: error 1 (-): "));
    ck_assert_ptr_nonnull(strstr(line, "syntax error"));
    ck_assert_ptr_nonnull(strstr(line, " in query: SELEC 1"));

    /* A statement the server cannot prepare: NULL, the error kept. */
    ck_assert_ptr_null(sb_db_prepare(con, "SELECT * FROM missing", 21));
    ck_assert_ptr_nonnull(strstr(con->err.msg, "no such table"));
    ck_assert_str_eq(con->last_query, "SELECT * FROM missing");
    ck_assert_ptr_null(con->stmts);

    /* Executing with parameters unbound is the caller's fault. */
    st = prep(con, "SELECT ?");
    ck_assert_int_eq(sb_db_execute(st), SB_DB_FATAL);
    ck_assert_str_eq(con->err.msg, "statement has 1 parameters but none were bound");

    /* Fatal errors are not counted as ignored ones, nor as queries. */
    ck_assert_uint_eq(f.cnt.errors, 0);
    ck_assert_uint_eq(f.seen.n, 0);
    ck_assert_uint_eq(f.cnt.reads + f.cnt.writes + f.cnt.other, 0);

    /* A script that declares the error ignorable: counted, and the
     * transaction it left open rolled back, the error kept. */
    q_ok(con, "BEGIN");
    ck_assert(con->drv->in_transaction(con));
    ck_assert_int_eq(q(con, "SELEC 2"), SB_DB_FATAL);
    sb_db_count_ignored(con);
    ck_assert(!con->drv->in_transaction(con));
    ck_assert_uint_eq(f.cnt.errors, 1);
    ck_assert_uint_eq(f.seen.n, 1);
    ck_assert_uint_eq(f.seen.codes[0], 1);
    ck_assert_ptr_nonnull(strstr(con->err.msg, "syntax error"));
    sb_db_disconnect(con);
    fx_teardown(&f);
}
END_TEST

/* An error code on --db-ignore-errors: the event is to be restarted and
 * the error counted per code; other codes stay fatal. */
START_TEST(test_ignore_list)
{
    struct fx f;
    struct sb_conn *con;
    struct sb_stmt *st;
    struct params ps;

    fx_setup(&f);
    set_opt(&f.general, "db-ignore-errors", "19"); /* SQLITE_CONSTRAINT */
    fx_init(&f);
    con = fx_connect(&f);
    q_ok(con, "CREATE TABLE t (id INTEGER PRIMARY KEY)");
    q_ok(con, "INSERT INTO t VALUES (1)");
    ck_assert_int_eq(q(con, "INSERT INTO t VALUES (1)"), SB_DB_IGNORED);
    ck_assert_uint_eq(con->err.sql_errno, 19);
    ck_assert_str_eq(con->last_query, "INSERT INTO t VALUES (1)");

    st = prep(con, "INSERT INTO t VALUES (?)");
    params_init(&ps, 1, 0, 0, "");
    sb_db_bind(st, ps.p, 1);
    ck_assert_int_eq(sb_db_execute(st), SB_DB_IGNORED);
    ps.v[0].i = 2;
    ck_assert_int_eq(sb_db_execute(st), SB_DB_DONE);
    ck_assert_int_eq(q(con, "SELEC"), SB_DB_FATAL);

    ck_assert_uint_eq(f.cnt.errors, 2);
    ck_assert_uint_eq(f.seen.n, 2);
    ck_assert_uint_eq(f.seen.codes[0], 19);
    ck_assert_uint_eq(f.seen.codes[1], 19);
    ck_assert(!f.seen.reconnect[0] && !f.seen.reconnect[1]);
    /* Only the successful inserts are writes. */
    ck_assert_uint_eq(f.cnt.writes, 2);
    sb_db_disconnect(con);
    fx_teardown(&f);
}
END_TEST

START_TEST(test_ignore_all)
{
    struct fx f;
    struct sb_conn *con;

    fx_setup(&f);
    set_opt(&f.general, "db-ignore-errors", "all");
    fx_init(&f);
    con = fx_connect(&f);
    ck_assert_int_eq(q(con, "SELEC 1"), SB_DB_IGNORED);
    ck_assert_uint_eq(f.cnt.errors, 1);
    ck_assert_uint_eq(f.seen.codes[0], 1);
    sb_db_disconnect(con);
    fx_teardown(&f);
}
END_TEST

/* SQLITE_BUSY is on the driver's default list: a writer that collides
 * with another connection's write lock is ignored, counted, and its
 * transaction rolled back so that the restarted event starts clean. */
START_TEST(test_default_ignorable_busy)
{
    struct fx f;
    struct sb_conn *a, *b;

    fx_setup(&f);
    fx_init(&f);
    a = fx_connect(&f);
    b = fx_connect(&f);
    q_ok(a, "CREATE TABLE t (id INTEGER)");
    q_ok(a, "BEGIN IMMEDIATE");
    q_ok(a, "INSERT INTO t VALUES (1)");
    q_ok(b, "BEGIN DEFERRED");
    expect_row(b, "SELECT count(*) FROM t", "0");
    ck_assert(b->drv->in_transaction(b));
    ck_assert_int_eq(q(b, "INSERT INTO t VALUES (2)"), SB_DB_IGNORED);
    ck_assert_uint_eq(b->err.sql_errno, 5);
    ck_assert(!b->drv->in_transaction(b));
    ck_assert_uint_eq(f.cnt.errors, 1);
    ck_assert_uint_eq(f.seen.codes[0], 5);
    q_ok(a, "COMMIT");
    q_ok(b, "INSERT INTO t VALUES (2)");
    expect_row(b, "SELECT group_concat(id) FROM (SELECT id FROM t ORDER BY id)", "1,2");
    sb_db_disconnect(a);
    sb_db_disconnect(b);
    fx_teardown(&f);
}
END_TEST

/* An explicit --sqlite-ignore-errors replaces the driver's defaults. */
START_TEST(test_explicit_list_replaces_defaults)
{
    struct fx f;
    struct sb_conn *a, *b;

    fx_setup(&f);
    set_opt(&f.drvopts, "sqlite-ignore-errors", "19");
    fx_init(&f);
    a = fx_connect(&f);
    b = fx_connect(&f);
    q_ok(a, "BEGIN IMMEDIATE");
    ck_assert_int_eq(q(b, "CREATE TABLE t (id INTEGER)"), SB_DB_FATAL);
    ck_assert_uint_eq(b->err.sql_errno, 5);
    ck_assert_uint_eq(f.cnt.errors, 0);
    q_ok(a, "ROLLBACK");
    sb_db_disconnect(a);
    sb_db_disconnect(b);
    fx_teardown(&f);
}
END_TEST

/* ------------------------------------------------------------ reconnect */

/* con:reconnect() bumps the connection's generation; a server-side
 * statement is then prepared again at its next execution. */
START_TEST(test_reprepare_after_reconnect)
{
    struct fx f;
    struct sb_conn *con;
    struct sb_stmt *st;
    struct params ps;
    uint64_t gen;

    fx_setup(&f);
    fx_init(&f);
    con = fx_connect(&f);
    q_ok(con, "CREATE TABLE t (id INTEGER)");
    q_ok(con, "INSERT INTO t VALUES (5)");
    st = prep(con, "SELECT count(*) FROM t WHERE id = ?");
    params_init(&ps, 5, 0, 0, "");
    sb_db_bind(st, ps.p, 1);
    ck_assert_int_eq(sb_db_execute(st), SB_DB_DONE);
    gen = con->generation;
    ck_assert_uint_eq(st->generation, gen);

    ck_assert_int_eq(sb_db_reconnect(con), SB_DB_DONE);
    ck_assert_uint_eq(f.cnt.reconnects, 1);
    ck_assert_uint_eq(con->generation, gen + 1);
    /* The old server statement is closed with the old connection. */
    ck_assert_ptr_null(st->priv);
    ck_assert(!con->rs.active);

    ck_assert_int_eq(sb_db_execute(st), SB_DB_DONE);
    ck_assert_uint_eq(st->generation, gen + 1);
    ck_assert_ptr_nonnull(st->priv);
    ck_assert_int_eq(sb_db_fetch(con), 1);
    ck_assert_uint_eq(con->rs.row[0].len, 1);
    ck_assert_int_eq(con->rs.row[0].ptr[0], '1');
    ck_assert_uint_eq(f.cnt.reads, 2);
    sb_db_disconnect(con);
    fx_teardown(&f);
}
END_TEST

/* A reconnect that fails (the database cannot be opened any more) leaves
 * the connection closed: every later call fails with a message instead
 * of reaching the driver without its state, and a later reconnect that
 * works brings it back, statements included. */
START_TEST(test_failed_reconnect)
{
    struct fx f;
    struct sb_conn *con;
    struct sb_stmt *st;
    struct params ps;
    char path[160];

    fx_setup(&f);
    set_opt(&f.general, "db-reconnect-timeout", "0");
    fx_init(&f);
    con = fx_connect(&f);
    q_ok(con, "CREATE TABLE t (id INTEGER)");
    st = prep(con, "INSERT INTO t VALUES (?)");
    params_init(&ps, 1, 0, 0, "");
    sb_db_bind(st, ps.p, 1);
    ck_assert_int_eq(sb_db_execute(st), SB_DB_DONE);

    /* The file and the directory go: the next open cannot create them. */
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof(path), "%s%s", f.db, i == 0 ? "" : i == 1 ? "-wal" : "-shm");
        unlink(path);
    }
    ck_assert_int_eq(rmdir(f.dir), 0);
    ck_assert_int_eq(sb_db_reconnect(con), SB_DB_FATAL);
    ck_assert_ptr_nonnull(strstr(con->err.msg, "cannot open SQLite database"));
    ck_assert_uint_eq(f.cnt.reconnects, 0);

    ck_assert_int_eq(q(con, "SELECT 1"), SB_DB_FATAL);
    ck_assert_ptr_nonnull(strstr(con->err.msg, "not connected"));
    ck_assert_int_eq(sb_db_execute(st), SB_DB_FATAL);
    ck_assert_ptr_nonnull(strstr(con->err.msg, "not connected"));
    ck_assert_ptr_null(sb_db_prepare(con, "SELECT 1", 8));
    ck_assert_ptr_nonnull(strstr(con->err.msg, "not connected"));
    ck_assert_uint_eq(f.cnt.writes, 1);

    ck_assert_int_eq(mkdir(f.dir, 0700), 0);
    ck_assert_int_eq(sb_db_reconnect(con), SB_DB_DONE);
    ck_assert_uint_eq(f.cnt.reconnects, 1);
    q_ok(con, "CREATE TABLE t (id INTEGER)");
    ps.v[0].i = 7;
    ck_assert_int_eq(sb_db_execute(st), SB_DB_DONE);
    expect_row(con, "SELECT id FROM t", "7");
    sb_db_disconnect(con);
    fx_teardown(&f);
}
END_TEST

START_TEST(test_connect_error)
{
    struct fx f;
    struct sb_db_error err;
    char line[1024];

    fx_setup(&f);
    set_opt(&f.drvopts, "sqlite-db", "/nonexistent-dir/x/test.db");
    fx_init(&f);
    ck_assert_ptr_null(sb_db_connect(f.drv, &f.cnt, &err));
    ck_assert_ptr_nonnull(strstr(err.msg, "cannot open SQLite database '/nonexistent-dir/x/test.db'"));
    sb_db_format_err("sqlite", &err, NULL, line, sizeof(line));
    ck_assert_ptr_nonnull(strstr(line, "sqlite: error "));
    ck_assert_ptr_null(strstr(line, "in query"));
    fx_teardown(&f);
}
END_TEST

/* Statements close in any order, each in O(1) (a doubly linked list):
 * the list stays whole whichever one goes. */
START_TEST(test_close_any_order)
{
    struct fx f;
    struct sb_conn *con;
    struct sb_stmt *st[5];
    unsigned n = 0;

    fx_setup(&f);
    fx_init(&f);
    con = fx_connect(&f);
    for (unsigned i = 0; i < 5; i++)
        st[i] = prep(con, "SELECT 1");
    sb_db_close(st[2]); /* the middle */
    sb_db_close(st[4]); /* the head (the newest) */
    sb_db_close(st[0]); /* the tail */
    for (struct sb_stmt *p = con->stmts; p != NULL; p = p->next) {
        ck_assert(p == st[1] || p == st[3]);
        ck_assert(p->next == NULL || p->next->prev == p);
        n++;
    }
    ck_assert_uint_eq(n, 2);
    ck_assert_ptr_null(con->stmts->prev);
    sb_db_disconnect(con); /* closes the other two */
    fx_teardown(&f);
}
END_TEST

struct slow_query {
    struct sb_conn *con;
    enum sb_db_outcome o;
};

static void *run_slow_query(void *p)
{
    struct slow_query *s = p;
    s->o = q(s->con, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c "
                     "WHERE x < 2000000000) SELECT count(*) FROM c");
    return NULL;
}

/* sb_db_cancel_all from another thread cuts a statement in flight: it
 * ends as a restart with no error counted, the count says one, and the
 * connection's next statement runs normally. */
START_TEST(test_cancel_cuts_statement)
{
    struct fx f;
    struct slow_query s;
    pthread_t t;

    fx_setup(&f);
    fx_init(&f);
    sb_db_cancel_reset();
    s.con = fx_connect(&f);
    /* Nothing in flight: nothing to cancel. */
    ck_assert_uint_eq(sb_db_cancel_all(), 0);
    ck_assert_int_eq(pthread_create(&t, NULL, run_slow_query, &s), 0);
    while (!__atomic_load_n(&s.con->busy, __ATOMIC_ACQUIRE))
        usleep(1000);
    ck_assert_uint_eq(sb_db_cancel_all(), 1);
    /* Cancelled once: a second sweep leaves it alone. */
    ck_assert_uint_eq(sb_db_cancel_all(), 0);
    pthread_join(t, NULL);
    ck_assert_int_eq(s.o, SB_DB_IGNORED);
    ck_assert_uint_eq(f.cnt.errors, 0);
    ck_assert_uint_eq(f.seen.n, 0);
    ck_assert_uint_eq(sb_db_cancel_count(), 1);
    expect_row(s.con, "SELECT 2", "2");
    sb_db_disconnect(s.con);
    sb_db_cancel_reset();
    ck_assert_uint_eq(sb_db_cancel_count(), 0);
    fx_teardown(&f);
}
END_TEST

static Suite *driver_suite(void)
{
    Suite *s = suite_create("sb_driver");
    TCase *tc = tcase_create("sqlite");

    tcase_add_test(tc, test_sql_helpers);
    tcase_add_test(tc, test_init_errors);
    tcase_add_test(tc, test_query_rows_and_counters);
    tcase_add_test(tc, test_prepared_server_side);
    tcase_add_test(tc, test_prepared_emulated);
    tcase_add_test(tc, test_emulated_literals);
    tcase_add_test(tc, test_fatal_error);
    tcase_add_test(tc, test_ignore_list);
    tcase_add_test(tc, test_ignore_all);
    tcase_add_test(tc, test_default_ignorable_busy);
    tcase_add_test(tc, test_explicit_list_replaces_defaults);
    tcase_add_test(tc, test_reprepare_after_reconnect);
    tcase_add_test(tc, test_failed_reconnect);
    tcase_add_test(tc, test_connect_error);
    tcase_add_test(tc, test_close_any_order);
    tcase_add_test(tc, test_cancel_cuts_statement);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr;
    int failed;

#ifndef USE_SQLITE
    puts("check_sb_driver: skipped, built without the SQLite driver");
    return 77;
#endif
    sr = srunner_create(driver_suite());
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
