/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sysbench.sql's per-query functions, called by sysbench_sql.lua through
 * LuaJIT's FFI (see sb_lua_sql_ffi.h for the rules: status codes, never a
 * Lua error). Exported from the binary with --export-dynamic.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lua/sb_lua_sql_ffi.h"
#include "drivers/sb_db_bulk.h"
#include "pure/sb_rand.h"

size_t sb_lsql_abi(int what)
{
    switch (what) {
    case 0: return sizeof(struct sb_lsql_result);
    case 1: return offsetof(struct sb_lsql_conn, error);
    case 2: return offsetof(struct sb_lsql_stmt, nparams);
    case 3: return sizeof(struct sb_bind);
    case 4: return offsetof(struct sb_bind, cap);
    case 5: return sizeof(struct sb_value);
    default: return 0;
    }
}

/* ------------------------------------------------------------ connections */

struct sb_lsql_conn *sb_lsql_connect(const struct sb_driver_ops *drv,
                                     struct sb_db_counters *counters,
                                     struct sb_db_error *err)
{
    struct sb_lsql_conn *c = calloc(1, sizeof(*c));

    if (c == NULL) {
        memset(err, 0, sizeof(*err));
        snprintf(err->msg, sizeof(err->msg), "out of memory");
        return NULL;
    }
    c->con = sb_db_connect(drv, counters, err);
    if (c->con == NULL) {
        free(c);
        return NULL;
    }
    c->rs.conn = c;
    c->refs = 1;
    return c;
}

void sb_lsql_conn_ref(struct sb_lsql_conn *c)
{
    c->refs++;
}

void sb_lsql_conn_unref(struct sb_lsql_conn *c)
{
    if (c == NULL || --c->refs > 0)
        return;
    if (c->con != NULL)
        sb_db_disconnect(c->con);
    free(c->gen_row);
    free(c);
}

/* A new statement (or a reconnect) replaces the current result: the rows
 * of the previous one are gone. */
static void rs_reset(struct sb_lsql_conn *c)
{
    c->rs.values = NULL;
    c->rs.have_row = 0;
    c->rs.active = 0;
    c->rs.nrows = 0;
    c->rs.nfields = 0;
}

/* sysbench 1.0's stat type numbers (sb_counter_type) for rs.counter. */
static int32_t counter_of(enum sb_query_kind kind)
{
    switch (kind) {
    case SB_QUERY_READ: return 1;
    case SB_QUERY_WRITE: return 2;
    default: return 0;
    }
}

/* After a statement: the outcome into con.error (the Lua side refines a
 * fatal one the script's hook accepts) and the rows into rs. */
static int finish(struct sb_lsql_conn *c, enum sb_db_outcome o, enum sb_query_kind kind,
                  int32_t stmt_id)
{
    if (o == SB_DB_INFLIGHT) {
        c->pending_kind = kind;
        c->pending_stmt = stmt_id;
        c->con->counters->waiting = c->con;
        return SB_LSQL_PENDING;
    }
    rs_reset(c);
    if (c->pending_bulk) {
        c->pending_bulk = false;
        o = sb_db_bulk_settle(c->con, o);
    }
    c->error = o == SB_DB_DONE ? 0 : o == SB_DB_FATAL ? 2 : 1;
    if (o == SB_DB_DONE && c->con->rs.active) {
        c->rs.active = 1;
        c->rs.nrows = (uint32_t)c->con->rs.nrows;
        c->rs.nfields = c->con->rs.nfields;
        c->rs.counter = counter_of(kind);
        c->rs.stmt_id = stmt_id;
        return SB_LSQL_ROWS;
    }
    return (int)o;
}

int sb_lsql_query(struct sb_lsql_conn *c, const char *sql, size_t len)
{
    if (c->con == NULL)
        return SB_LSQL_CLOSED;
    /* Only row-returning statements come back with rows: they count as
     * reads, as sysbench 1.0's rs.counter does. */
    return finish(c, sb_db_query_start(c->con, sql, len), SB_QUERY_READ, 0);
}

int sb_lsql_continue(struct sb_lsql_conn *c)
{
    return finish(c, sb_db_continue(c->con), c->pending_kind, c->pending_stmt);
}

int sb_lsql_complete(struct sb_lsql_conn *c)
{
    c->con->counters->waiting = NULL;
    return finish(c, sb_db_complete(c->con), c->pending_kind, c->pending_stmt);
}

int sb_lsql_reconnect(struct sb_lsql_conn *c)
{
    if (c->con == NULL)
        return SB_LSQL_CLOSED;
    rs_reset(c);
    return (int)sb_db_reconnect(c->con);
}

void sb_lsql_disconnect(struct sb_lsql_conn *c)
{
    if (c->con != NULL) {
        sb_db_disconnect(c->con);
        c->con = NULL;
    }
    rs_reset(c);
}

void sb_lsql_count_ignored(struct sb_lsql_conn *c)
{
    if (c->con != NULL)
        sb_db_count_ignored(c->con);
}

int sb_lsql_errno(const struct sb_lsql_conn *c)
{
    return c->con != NULL ? (int)c->con->err.sql_errno : 0;
}

const char *sb_lsql_sqlstate(const struct sb_lsql_conn *c)
{
    return c->con != NULL ? c->con->err.sql_state : "";
}

const char *sb_lsql_errmsg(const struct sb_lsql_conn *c)
{
    return c->con != NULL ? c->con->err.msg : "";
}

const char *sb_lsql_error_text(struct sb_lsql_conn *c)
{
    if (c->con == NULL)
        return "connection is closed";
    sb_db_format_error(c->con, c->errline, sizeof(c->errline));
    return c->errline;
}

const char *sb_lsql_server_version(const struct sb_lsql_conn *c)
{
    if (c->con == NULL || c->con->drv->server_version == NULL)
        return NULL;
    return c->con->drv->server_version(c->con);
}

/* ------------------------------------------------------------ bulk inserts */

int sb_lsql_bulk_init(struct sb_lsql_conn *c, const char *head, size_t len, int in_run)
{
    int rc;

    if (c->con == NULL)
        return SB_LSQL_CLOSED;
    rc = sb_db_bulk_init(c->con, head, len, in_run != 0);
    if (rc == -1)
        return SB_LSQL_NOMEM;
    return rc == 0 ? 0 : SB_DB_FATAL;
}

int sb_lsql_bulk_next(struct sb_lsql_conn *c, const char *row, size_t len)
{
    enum sb_db_outcome o;

    if (c->con == NULL)
        return SB_LSQL_CLOSED;
    if (!sb_db_bulk_open(c->con))
        return SB_LSQL_NOBULK;
    o = sb_db_bulk_next(c->con, row, len);
    if (o == SB_DB_INFLIGHT) {
        c->pending_bulk = true;
        return finish(c, o, SB_QUERY_WRITE, 0);
    }
    if (o == SB_DB_FATAL && sb_db_bulk_bad_row(c->con)) {
        c->error = 2;
        return SB_LSQL_BADROW;
    }
    return finish(c, o, SB_QUERY_WRITE, 0);
}

int sb_lsql_bulk_done(struct sb_lsql_conn *c)
{
    if (c->con == NULL)
        return SB_LSQL_CLOSED;
    if (!sb_db_bulk_open(c->con))
        return SB_LSQL_NOBULK;
    return finish(c, sb_db_bulk_done(c->con), SB_QUERY_WRITE, 0);
}

/* A template sb_rowgen_check refuses: a bad row's failure. */
static int bad_template(struct sb_lsql_conn *c, const char *why)
{
    memset(&c->con->err, 0, sizeof(c->con->err));
    snprintf(c->con->err.msg, sizeof(c->con->err.msg), "bulk_insert_rows: %s", why);
    c->error = 2;
    return SB_LSQL_BADROW;
}

/* The rows from *next on as SQL tuples through sb_db_bulk_next. */
static int rows_as_text(struct sb_lsql_conn *c, struct sb_rand *r,
                        const struct sb_rowgen_col *cols, unsigned n, int64_t last,
                        int64_t *next)
{
    while (*next <= last) {
        size_t len = sb_rowgen_sql(r, cols, n, *next, c->gen_row);
        int o;
        /* Terminated as a Lua string is: the prepared path reads its
         * integers with strtoll. */
        c->gen_row[len] = '\0';
        (*next)++;
        o = sb_lsql_bulk_next(c, c->gen_row, len);
        if (o != SB_DB_DONE)
            return o;
    }
    return SB_DB_DONE;
}

int sb_lsql_bulk_rows(struct sb_lsql_conn *c, void *rand, const struct sb_rowgen_col *cols,
                      unsigned n, int64_t first, int64_t last, int64_t *next)
{
    struct sb_rand *r = rand;
    enum sb_db_outcome o = SB_DB_DONE;
    enum sb_db_gen_form form;
    const uint8_t *bin;
    char why[160];
    size_t max;

    *next = first;
    if (c->con == NULL)
        return SB_LSQL_CLOSED;
    if (!sb_db_bulk_open(c->con))
        return SB_LSQL_NOBULK;
    if (sb_rowgen_check(cols, n, &max, why, sizeof(why)) != 0)
        return bad_template(c, why);
    if (c->gen_cap < max + 1) {
        char *p = realloc(c->gen_row, max + 1);
        if (p == NULL)
            return SB_LSQL_NOMEM;
        c->gen_row = p;
        c->gen_cap = max + 1;
    }
    form = sb_db_bulk_gen_begin(c->con, cols, n, first, last, &bin, &o);
    while (form != SB_DB_GEN_SQL && *next <= last) {
        char *dst = sb_db_bulk_gen_reserve(c->con, max, &o);
        size_t len;
        if (dst == NULL)
            break;
        if (form == SB_DB_GEN_BIN)
            len = sb_rowgen_bin(r, cols, n, bin, *next, dst);
        else
            len = sb_rowgen_tsv(r, cols, n, *next, dst);
        o = sb_db_bulk_gen_commit(c->con, len, 1);
        if (o != SB_DB_DONE)
            break;
        (*next)++;
    }
    if (o == SB_DB_FATAL && sb_db_bulk_bad_row(c->con)) {
        c->error = 2;
        return SB_LSQL_BADROW;
    }
    if (o != SB_DB_DONE)
        return finish(c, o, SB_QUERY_WRITE, 0);
    return rows_as_text(c, r, cols, n, last, next);
}

/* ------------------------------------------------------------ statements */

struct sb_lsql_stmt *sb_lsql_prepare(struct sb_lsql_conn *c, const char *sql, size_t len,
                                     int *nomem)
{
    struct sb_lsql_stmt *s;

    *nomem = 0;
    if (c->con == NULL)
        return NULL;
    s = calloc(1, sizeof(*s));
    if (s == NULL) {
        *nomem = 1;
        return NULL;
    }
    s->st = sb_db_prepare(c->con, sql, len);
    if (s->st == NULL) {
        if (c->con->prepare_reconnected || c->con->prepare_cut)
            *nomem = 2;
        free(s);
        return NULL;
    }
    s->conn = c;
    s->nparams = (int32_t)s->st->nparams;
    sb_lsql_conn_ref(c);
    return s;
}

int sb_lsql_bind(struct sb_lsql_stmt *s, struct sb_bind *const *params, unsigned n)
{
    struct sb_bind **copy;

    if (s->st == NULL || s->conn->con == NULL)
        return SB_LSQL_CLOSED;
    copy = calloc(n > 0 ? n : 1, sizeof(*copy));
    if (copy == NULL)
        return SB_LSQL_NOMEM;
    memcpy(copy, params, n * sizeof(*copy));
    free(s->params);
    s->params = copy;
    sb_db_bind(s->st, s->params, n);
    return 0;
}

int sb_lsql_execute(struct sb_lsql_stmt *s)
{
    struct sb_lsql_conn *c = s->conn;

    if (s->st == NULL || c->con == NULL)
        return SB_LSQL_CLOSED;
    return finish(c, sb_db_execute_start(s->st), s->st->kind, s->id);
}

void sb_lsql_stmt_close(struct sb_lsql_stmt *s)
{
    if (s->st != NULL && s->conn->con != NULL)
        sb_db_close(s->st);
    s->st = NULL;
    free(s->params);
    s->params = NULL;
}

void sb_lsql_stmt_free(struct sb_lsql_stmt *s)
{
    if (s == NULL)
        return;
    sb_lsql_stmt_close(s);
    sb_lsql_conn_unref(s->conn);
    free(s);
}

/* ------------------------------------------------------------ results */

int sb_lsql_fetch(struct sb_lsql_result *r)
{
    struct sb_conn *con = r->conn->con;
    int rc;

    r->have_row = 0;
    if (con == NULL || !r->active || !con->rs.active)
        return 0;
    rc = sb_db_fetch(con);
    if (rc <= 0)
        return rc;
    r->values = con->rs.row;
    r->have_row = 1;
    return 1;
}

void sb_lsql_free_result(struct sb_lsql_result *r)
{
    struct sb_lsql_conn *c = r->conn;

    if (c->con != NULL && r->active)
        sb_db_free_result(c->con);
    /* nrows and nfields stay readable after free(), as they did when each
     * result was an object of its own. */
    r->values = NULL;
    r->have_row = 0;
    r->active = 0;
}

/* ------------------------------------------------------------ parameters */

struct sb_bind *sb_lsql_param_new(int type, long long maxlen)
{
    struct sb_bind *p;

    if (type <= SB_SQL_NONE || type > SB_SQL_VARCHAR)
        return NULL;
    p = calloc(1, sizeof(*p));
    if (p == NULL)
        return NULL;
    p->type = (enum sb_sql_type)type;
    p->is_null = true;
    if (type >= SB_SQL_TIME) {
        /* Values travel as text. CHAR/VARCHAR are sized by the script's
         * max length (sysbench scripts always pass one; be lenient), dates
         * and times get room for any format when the script did not say. */
        size_t dflt = type == SB_SQL_CHAR || type == SB_SQL_VARCHAR ? 255 : 64;
        size_t cap = maxlen > 0 ? (size_t)maxlen : dflt;
        p->str = malloc(cap + 1);
        if (p->str == NULL) {
            free(p);
            return NULL;
        }
        p->cap = cap + 1;
        p->str[0] = '\0';
    }
    return p;
}

void sb_lsql_param_free(struct sb_bind *p)
{
    if (p == NULL)
        return;
    free(p->str);
    free(p);
}

int sb_lsql_param_rand_str(struct sb_bind *p, void *rand, const char *fmt, size_t len)
{
    if (p->str == NULL)
        return -1;
    p->is_null = false;
    p->len = sb_rand_next_string(rand, fmt, len, p->str, p->cap);
    return 0;
}

int sb_lsql_parse_int64(const char *s, int64_t *out)
{
    char *end;
    long long v;

    errno = 0;
    if (strstr(s, "ULL") != NULL)
        v = (long long)strtoull(s, &end, 10);
    else
        v = strtoll(s, &end, 10);
    if (end == s || errno != 0 ||
        (*end != '\0' && strcmp(end, "LL") != 0 && strcmp(end, "ULL") != 0))
        return 0;
    *out = (int64_t)v;
    return 1;
}

void sb_lsql_result_unref(struct sb_lsql_result *r)
{
    if (r != NULL)
        sb_lsql_conn_unref(r->conn);
}

int sb_lsql_is_open(const struct sb_lsql_conn *c)
{
    return c->con != NULL;
}

int sb_lsql_stmt_is_open(const struct sb_lsql_stmt *s)
{
    return s->st != NULL && s->conn->con != NULL;
}
