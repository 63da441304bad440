/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_LUA_SQL_FFI_H
#define SB_LUA_SQL_FFI_H

/*
 * The per-query half of sysbench.sql: connection, statement, parameter and
 * result objects are FFI cdata (ffi.metatype in sysbench_sql.lua) over the
 * structures below, and their methods call the functions below through
 * LuaJIT's FFI, so a trace compiles the whole query path: no C __index, no
 * userdata or string lookup per call.
 *
 * Rules for every function here:
 *  - it never raises a Lua error (no longjmp may cross an FFI frame): it
 *    returns a status and the Lua wrapper calls error();
 *  - it never blocks other than in the driver's own call, and keeps no
 *    state across calls but in the objects, so a later event loop can
 *    drive the same objects from coroutines.
 *
 * The names all start with sb_lsql_, which sysbench 1.0 never used (its
 * scripts may declare 1.0's db_* and sb_* prototypes themselves).
 *
 * sysbench_sql.lua declares the leading fields of these structures in its
 * ffi.cdef; sb_lsql_abi() lets it check that both agree. Fields after the
 * "Lua-visible" ones are C-only.
 *
 * Ownership: a connection (struct sb_lsql_conn) is reference-counted: the
 * Lua connection object, its result object and each statement hold one
 * reference; the last sb_lsql_conn_unref() disconnects and frees it. The
 * result is embedded in the connection (one current result per
 * connection, as in sysbench 1.0): executing another statement replaces
 * it.
 */
#include <stddef.h>
#include <stdint.h>

#include "drivers/sb_driver.h"
#include "pure/sb_rowgen.h"

/* Status codes besides enum sb_db_outcome's (0..3). */
#define SB_LSQL_ROWS 4          /* SB_DB_DONE, and rows came back */
#define SB_LSQL_PENDING 5       /* in flight: wait, then sb_lsql_continue */
#define SB_LSQL_CLOSED (-1)     /* the connection or statement is closed */
#define SB_LSQL_NOMEM (-2)      /* out of memory */
#define SB_LSQL_BADROW (-3)     /* a bulk insert's row is malformed: the
                                 * connection's error message names it */
#define SB_LSQL_NOBULK (-4)     /* no bulk insert is open */

struct sb_lsql_conn;

/* The connection's current result (rs in scripts). */
struct sb_lsql_result {
    /* Lua-visible */
    struct sb_lsql_conn *conn;
    const struct sb_value *values; /* the fetched row's nfields cells */
    uint32_t nrows;
    uint32_t nfields;
    int32_t counter;        /* sysbench 1.0's rs.counter (SB_CNT_*) */
    int32_t stmt_id;        /* id of the statement that produced it, 0: query */
    int32_t have_row;       /* a fetched row is current (rs.row) */
    int32_t active;         /* rows are open (else the empty result) */
};

struct sb_lsql_conn {
    /* Lua-visible */
    struct sb_lsql_result rs; /* first: &conn->rs == (void *)conn */
    int32_t id;             /* the Lua side's handle (set by Lua) */
    int32_t error;          /* con.error: 0 none, 1 ignorable, 2 fatal */
    /* C-only */
    struct sb_conn *con;    /* NULL once disconnected */
    int refs;
    /* The statement in flight (SB_LSQL_PENDING): how its rows count, and
     * its statement id. */
    enum sb_query_kind pending_kind;
    int32_t pending_stmt;
    /* The statement in flight sends a bulk insert's rows
     * (sb_db_bulk_next): its outcome goes to sb_db_bulk_settle. */
    bool pending_bulk;
    /* sb_lsql_bulk_rows' row text, which a statement in flight borrows. */
    char *gen_row;
    size_t gen_cap;
    char errline[1024];     /* sb_lsql_error_text()'s buffer */
};

struct sb_lsql_stmt {
    /* Lua-visible */
    struct sb_lsql_conn *conn;
    int32_t id;             /* the Lua side's handle (set by Lua) */
    int32_t nparams;        /* placeholders in the text */
    /* C-only */
    struct sb_stmt *st;     /* NULL once closed */
    struct sb_bind **params;
};

/* Parameters are struct sb_bind (sb_driver.h), which Lua writes directly. */

/* sizeof/offsetof figures for sysbench_sql.lua's check: what 0..5. */
size_t sb_lsql_abi(int what);

/* A new connection to drv counting into counters (borrowed, must outlive
 * it), with one reference. NULL on failure, with the reason in err. */
struct sb_lsql_conn *sb_lsql_connect(const struct sb_driver_ops *drv,
                                     struct sb_db_counters *counters,
                                     struct sb_db_error *err);
void sb_lsql_conn_ref(struct sb_lsql_conn *c);
void sb_lsql_conn_unref(struct sb_lsql_conn *c);

/* Run sql: an enum sb_db_outcome, SB_LSQL_ROWS or SB_LSQL_CLOSED. Fills
 * c->rs. */
int sb_lsql_query(struct sb_lsql_conn *c, const char *sql, size_t len);
/* Reconnect: SB_DB_DONE or another outcome (c->con's error says why). */
int sb_lsql_reconnect(struct sb_lsql_conn *c);
/* Disconnect now (idempotent); the memory stays until the last unref. */
void sb_lsql_disconnect(struct sb_lsql_conn *c);
/* Counts an error the script's hook declared ignorable (sb_db_count_ignored). */
void sb_lsql_count_ignored(struct sb_lsql_conn *c);
/* The last error: number, SQLSTATE, message ("" / 0 when none or closed),
 * and the formatted line sysbench prints (in c->errline). */
int sb_lsql_errno(const struct sb_lsql_conn *c);
const char *sb_lsql_sqlstate(const struct sb_lsql_conn *c);
const char *sb_lsql_errmsg(const struct sb_lsql_conn *c);
const char *sb_lsql_error_text(struct sb_lsql_conn *c);
/* 1 while c is connected (or s prepared on a connected c), else 0. */
int sb_lsql_is_open(const struct sb_lsql_conn *c);
int sb_lsql_stmt_is_open(const struct sb_lsql_stmt *s);
/* The server's version string, or NULL. */
const char *sb_lsql_server_version(const struct sb_lsql_conn *c);

/* A prepared statement holding a reference to c; NULL when the server
 * refused it (c's error says why; *nomem 1 when memory ran out, 2 when
 * the connection was lost and re-opened, or lost as the run was being
 * cut: restart the event) or c is closed. */
struct sb_lsql_stmt *sb_lsql_prepare(struct sb_lsql_conn *c, const char *sql, size_t len,
                                     int *nomem);
/* Binds n parameters (borrowed: they must live as long as the binding,
 * which the Lua side ensures). 0, SB_LSQL_CLOSED or SB_LSQL_NOMEM. */
int sb_lsql_bind(struct sb_lsql_stmt *s, struct sb_bind *const *params, unsigned n);
/* Execute: as sb_lsql_query. */
int sb_lsql_execute(struct sb_lsql_stmt *s);

/*
 * On a multiplexed connection (counters->nonblocking), sb_lsql_query and
 * sb_lsql_execute may return SB_LSQL_PENDING: the statement is in flight
 * and the connection is published in counters->waiting for the
 * multiplexer. The caller then either yields to the multiplexer and calls
 * sb_lsql_continue once woken (which may return SB_LSQL_PENDING again), or
 * calls sb_lsql_complete, which waits in poll(). Both return what
 * sb_lsql_query would have.
 */
int sb_lsql_continue(struct sb_lsql_conn *c);
int sb_lsql_complete(struct sb_lsql_conn *c);
/*
 * Bulk inserts (con:bulk_insert_init/next/done; drivers/sb_db_bulk.h).
 * init (in_run: called in the run command, whose events it serves): 0,
 * SB_DB_FATAL (the connection's error says why), SB_LSQL_CLOSED or
 * SB_LSQL_NOMEM. next: an outcome as
 * sb_lsql_query's (SB_DB_DONE: the row was taken), SB_LSQL_PENDING (the
 * rows before it are in flight: continue or complete as above),
 * SB_LSQL_BADROW, SB_LSQL_NOBULK or SB_LSQL_CLOSED. done: an outcome,
 * SB_LSQL_NOBULK or SB_LSQL_CLOSED; it waits in place.
 */
int sb_lsql_bulk_init(struct sb_lsql_conn *c, const char *head, size_t len, int in_run);
int sb_lsql_bulk_next(struct sb_lsql_conn *c, const char *row, size_t len);
int sb_lsql_bulk_done(struct sb_lsql_conn *c);
/*
 * Generated rows first..last of template cols (n columns, pure/sb_rowgen.h)
 * for the open bulk insert, drawn from rand (the state's struct sb_rand):
 * written straight into the server's bulk path when it streams (in
 * PostgreSQL's binary COPY format where the columns' types allow), else
 * passed as SQL tuples to sb_db_bulk_next. Returns as sb_lsql_bulk_next,
 * with *next the first row not taken yet (after SB_LSQL_PENDING: the one
 * after the row in flight, taken once its wait ends in SB_DB_DONE);
 * SB_LSQL_BADROW also for a template that sb_rowgen_check refuses or
 * whose column count is not the head's (the error message says which).
 */
int sb_lsql_bulk_rows(struct sb_lsql_conn *c, void *rand, const struct sb_rowgen_col *cols,
                      unsigned n, int64_t first, int64_t last, int64_t *next);

/* Close the statement on the server (idempotent). */
void sb_lsql_stmt_close(struct sb_lsql_stmt *s);
/* Closes s, drops its connection reference and frees it. */
void sb_lsql_stmt_free(struct sb_lsql_stmt *s);

/* Next row of r into r->values: 1 a row, 0 no more (or no rows open),
 * -1 error (the connection's error says why). */
int sb_lsql_fetch(struct sb_lsql_result *r);
/* Frees r's rows on the server side (idempotent). */
void sb_lsql_free_result(struct sb_lsql_result *r);
/* The result object's reference on its connection (sb_lsql_conn_unref). */
void sb_lsql_result_unref(struct sb_lsql_result *r);

/* A parameter of type (SB_SQL_TINYINT..VARCHAR) whose text buffer holds
 * maxlen bytes (0: the type's default), NULL value; NULL when out of
 * memory or type is unknown. Free with sb_lsql_param_free. */
struct sb_bind *sb_lsql_param_new(int type, long long maxlen);
void sb_lsql_param_free(struct sb_bind *p);
/* p's text from fmt ('#' digit, '@' letter) drawn from rand (a struct
 * sb_rand *); 0 done, -1 when p has no text buffer. */
int sb_lsql_param_rand_str(struct sb_bind *p, void *rand, const char *fmt, size_t len);
/* Parses s as a 64-bit integer ("123", "-5", "123LL", "18446744073709551615ULL"):
 * 1 done, 0 not an integer. */
int sb_lsql_parse_int64(const char *s, int64_t *out);

#endif /* SB_LUA_SQL_FFI_H */
