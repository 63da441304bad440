/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The statements every driver shares: plain queries, statements
 * (server-side or emulated client-side), their non-blocking forms and
 * result rows; the error policy they apply is sb_driver_policy.c's, the
 * registry and connections sb_driver_registry.c's. See sb_driver.h.
 */
#include "drivers/sb_driver.h"

#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "core/sb_clock.h"
#include "drivers/sb_db_cancel.h"
#include "drivers/sb_db_conn.h"
#include "drivers/sb_db_stmt_stats.h"
#include "core/sb_log.h"
#include "core/sb_secret_file.h"
#include "core/sb_stop.h"

/*
 * After a reconnect that failed, the connection has no driver state
 * (con->priv is NULL, as reconnect_with_backoff leaves it) until a later
 * reconnect works; a script may still hold it (a pcall around
 * con:reconnect(), a thread_done hook), so calls fail here with a message
 * instead of reaching the driver without its state.
 */
static bool not_connected(struct sb_conn *con, const char *sql, size_t len)
{
    if (con->priv != NULL)
        return false;
    con->err.sql_errno = 0;
    con->err.sql_state[0] = '\0';
    snprintf(con->err.msg, sizeof(con->err.msg), "not connected: the last reconnect failed");
    sb_db_remember_query(con, sql, len);
    return true;
}

static void count_query(struct sb_conn *con, enum sb_query_kind kind)
{
    switch (kind) {
    case SB_QUERY_READ: con->counters->reads++; break;
    case SB_QUERY_WRITE: con->counters->writes++; break;
    default: con->counters->other++; break;
    }
}

/* What every query text goes through before the driver sees it: the
 * previous result freed, a connection that lost its driver state refused
 * (false), --db-debug. */
static bool query_prologue(struct sb_conn *con, const char *sql, size_t len)
{
    sb_db_free_result(con);
    if (not_connected(con, sql, len))
        return false;
    if (con->bulk != NULL && con->bulk_pause(con) != SB_DB_DONE)
        return false;
    if (sb_db_debug())
        sb_debug("query: %.*s", (int)len, sql);
    return true;
}

enum sb_db_outcome sb_db_query(struct sb_conn *con, const char *sql, size_t len)
{
    enum sb_db_status st;
    enum sb_db_outcome o;
    enum sb_query_kind kind = sb_sql_classify(sql, len);
    struct sb_stmt_entry *e;
    uint64_t t0, t1;

    if (!query_prologue(con, sql, len))
        return SB_DB_FATAL;
    e = sb_db_stmt_entry(con->counters->stmts, sql, len, kind);
    t0 = e != NULL ? sb_now_ns() : 0;
    sb_db_cancel_busy(con);
    st = con->drv->query(con, sql, len, &con->rs);
    t1 = e != NULL ? sb_now_ns() : 0;
    sb_db_cancel_idle(con);
    if (st == SB_DB_OK)
        count_query(con, kind);
    o = sb_db_apply_policy(con, st, sql, len);
    sb_db_stmt_done(con, e, t0, t1, st);
    return o;
}

struct sb_stmt *sb_db_prepare(struct sb_conn *con, const char *sql, size_t len)
{
    struct sb_stmt *st;
    enum sb_db_status status;

    con->prepare_reconnected = false;
    con->prepare_cut = false;
    if (not_connected(con, sql, len))
        return NULL;
    if (con->bulk != NULL && con->bulk_pause(con) != SB_DB_DONE)
        return NULL;
    st = calloc(1, sizeof(*st));
    if (st == NULL || (st->sql = malloc(len + 1)) == NULL) {
        free(st);
        snprintf(con->err.msg, sizeof(con->err.msg), "out of memory");
        return NULL;
    }
    memcpy(st->sql, sql, len);
    st->sql[len] = '\0';
    st->sql_len = len;
    st->con = con;
    st->nparams = sb_sql_count_placeholders(sql, len);
    st->kind = sb_sql_classify(sql, len);
    st->generation = con->generation;
    st->emulated = sb_db_ps_disabled();
    st->stat = sb_db_stmt_entry(con->counters->stmts, sql, len, st->kind);
    if (!st->emulated && (status = con->drv->prepare(st)) != SB_DB_OK) {
        free(st->sql);
        free(st);
        /* A lost connection is re-opened here, as for a query: a kill
         * that lands inside a prepare (--reconnect=N prepares inside the
         * event) must not end the run. */
        if (status == SB_DB_CONN_LOST) {
            enum sb_db_outcome o = sb_db_apply_policy(con, status, sql, len);

            con->prepare_reconnected = o == SB_DB_RECONNECTED;
            con->prepare_cut = o == SB_DB_IGNORED;
        } else
            sb_db_remember_query(con, sql, len);
        return NULL;
    }
    st->next = con->stmts;
    st->prev = NULL;
    if (con->stmts != NULL)
        con->stmts->prev = st;
    con->stmts = st;
    return st;
}

void sb_db_bind(struct sb_stmt *st, struct sb_bind *const *params, unsigned n)
{
    st->params = params;
    st->bind_gen++;
    (void)n;
}

/* Appends one parameter, as SQL text, to buf at *pos. */
static int append_param(struct sb_conn *con, const struct sb_bind *p,
                        char **buf, size_t *cap, size_t *pos)
{
    size_t need = 32;
    char *b;

    if (!p->is_null && p->str != NULL && p->type >= SB_SQL_TIME)
        need = 2 * p->len + 3;
    if (*pos + need + 1 > *cap) {
        size_t ncap = (*cap + need + 1) * 2;
        b = realloc(*buf, ncap);
        if (b == NULL)
            return -1;
        *buf = b;
        *cap = ncap;
    }
    b = *buf + *pos;
    if (p->is_null) {
        memcpy(b, "NULL", 4);
        *pos += 4;
        return 0;
    }
    switch (p->type) {
    case SB_SQL_FLOAT:
    case SB_SQL_DOUBLE:
        *pos += (size_t)snprintf(b, need, "%.17g", p->d);
        return 0;
    case SB_SQL_TINYINT:
    case SB_SQL_SMALLINT:
    case SB_SQL_INT:
    case SB_SQL_BIGINT:
        *pos += (size_t)snprintf(b, need, "%lld", (long long)p->i);
        return 0;
    default:
        break;
    }
    if (con->drv->quote != NULL) {
        *pos += con->drv->quote(con, p->str ? p->str : "", p->len, b);
        return 0;
    }
    *b++ = '\'';
    for (size_t i = 0; i < p->len; i++) {
        if (p->str[i] == '\'')
            *b++ = '\'';
        *b++ = p->str[i];
    }
    *b++ = '\'';
    *pos = (size_t)(b - *buf);
    return 0;
}

/*
 * Client-side emulation: substitutes the bound values for the '?'
 * placeholders (outside quotes) and runs the text. The buffer is kept in
 * the statement's priv so steady-state executions do not allocate.
 */
struct emul_buf {
    char *buf;
    size_t cap;
};

/* Makes room for `need` more bytes and a NUL from pos on. */
static int reserve(struct emul_buf *eb, size_t pos, size_t need)
{
    if (pos + need + 1 > eb->cap) {
        size_t ncap = (pos + need + 1) * 2;
        char *b = realloc(eb->buf, ncap);
        if (b == NULL)
            return -1;
        eb->buf = b;
        eb->cap = ncap;
    }
    return 0;
}

/* Each '?' sb_sql_next_placeholder finds is one of the st->nparams that
 * sb_sql_count_placeholders counted, and sb_db_execute checked that they
 * are bound, so every placeholder has its parameter. */
static enum sb_db_status execute_emulated(struct sb_stmt *st, bool start)
{
    struct sb_conn *con = st->con;
    struct emul_buf *eb = st->priv;
    size_t pos = 0, i = 0;
    unsigned param = 0;

    if (eb == NULL) {
        eb = calloc(1, sizeof(*eb));
        if (eb == NULL)
            goto oom;
        st->priv = eb;
    }
    for (;;) {
        size_t q = sb_sql_next_placeholder(st->sql, st->sql_len, i);
        if (reserve(eb, pos, q - i) != 0)
            goto oom;
        memcpy(eb->buf + pos, st->sql + i, q - i);
        pos += q - i;
        if (q == st->sql_len)
            break;
        if (append_param(con, st->params[param++], &eb->buf, &eb->cap, &pos) != 0)
            goto oom;
        i = q + 1;
    }
    eb->buf[pos] = '\0';
    if (start)
        return con->drv->query_start(con, eb->buf, pos, &con->rs);
    return con->drv->query(con, eb->buf, pos, &con->rs);
oom:
    snprintf(con->err.msg, sizeof(con->err.msg), "out of memory");
    con->err.sql_errno = 0;
    con->err.sql_state[0] = '\0';
    return SB_DB_ERROR;
}

/* What every execution checks first: parameters bound, and a server-side
 * statement the server still knows (it forgot it after a reconnect).
 * Returns SB_DB_DONE to go on, else the outcome. */
static enum sb_db_outcome execute_prologue(struct sb_stmt *st)
{
    struct sb_conn *con = st->con;
    enum sb_db_outcome o;
    enum sb_db_status s;

    sb_db_free_result(con);
    if (not_connected(con, st->sql, st->sql_len))
        return SB_DB_FATAL;
    if (con->bulk != NULL && (o = con->bulk_pause(con)) != SB_DB_DONE)
        return o;
    if (st->params == NULL && st->nparams > 0) {
        con->err.sql_errno = 0;
        con->err.sql_state[0] = '\0';
        snprintf(con->err.msg, sizeof(con->err.msg),
                 "statement has %u parameters but none were bound", st->nparams);
        sb_db_remember_query(con, st->sql, st->sql_len);
        return SB_DB_FATAL;
    }
    if (!st->emulated && st->generation != con->generation) {
        if (st->priv != NULL)
            con->drv->close(st);
        st->priv = NULL;
        s = con->drv->prepare(st);
        if (s != SB_DB_OK)
            return sb_db_apply_policy(con, s, st->sql, st->sql_len);
        st->generation = con->generation;
    }
    return SB_DB_DONE;
}

enum sb_db_outcome sb_db_execute(struct sb_stmt *st)
{
    struct sb_conn *con = st->con;
    enum sb_db_outcome o = execute_prologue(st);
    enum sb_db_status s;
    uint64_t t0, t1;

    if (o != SB_DB_DONE)
        return o;
    t0 = st->stat != NULL ? sb_now_ns() : 0;
    sb_db_cancel_busy(con);
    if (st->emulated)
        s = execute_emulated(st, false);
    else
        s = con->drv->execute(st, &con->rs);
    t1 = st->stat != NULL ? sb_now_ns() : 0;
    sb_db_cancel_idle(con);
    if (s == SB_DB_OK)
        count_query(con, st->kind);
    o = sb_db_apply_policy(con, s, st->sql, st->sql_len);
    sb_db_stmt_done(con, st->stat, t0, t1, s);
    return o;
}

/* ------------------------------------------------------- non-blocking */

/* The end of a statement started without blocking. */
static enum sb_db_outcome complete(struct sb_conn *con, enum sb_db_status s)
{
    enum sb_db_outcome o;
    uint64_t t1;

    if (s == SB_DB_PENDING)
        return SB_DB_INFLIGHT;
    t1 = con->pending_stat != NULL ? sb_now_ns() : 0;
    sb_db_cancel_idle(con);
    if (s == SB_DB_OK)
        count_query(con, con->pending_kind);
    o = sb_db_apply_policy(con, s, con->pending_sql, con->pending_len);
    sb_db_stmt_done(con, con->pending_stat, con->pending_t0, t1, s);
    con->pending_stat = NULL;
    return o;
}

enum sb_db_outcome sb_db_query_start(struct sb_conn *con, const char *sql, size_t len)
{
    if (!con->nonblocking)
        return sb_db_query(con, sql, len);
    if (!query_prologue(con, sql, len))
        return SB_DB_FATAL;
    con->pending_sql = sql;
    con->pending_len = len;
    con->pending_kind = sb_sql_classify(sql, len);
    con->pending_stat = sb_db_stmt_entry(con->counters->stmts, sql, len, con->pending_kind);
    con->pending_t0 = con->pending_stat != NULL ? sb_now_ns() : 0;
    sb_db_cancel_busy(con);
    return complete(con, con->drv->query_start(con, sql, len, &con->rs));
}

enum sb_db_outcome sb_db_execute_start(struct sb_stmt *st)
{
    struct sb_conn *con = st->con;
    enum sb_db_outcome o;

    if (!con->nonblocking)
        return sb_db_execute(st);
    o = execute_prologue(st);
    if (o != SB_DB_DONE)
        return o;
    con->pending_sql = st->sql;
    con->pending_len = st->sql_len;
    con->pending_kind = st->kind;
    con->pending_stat = st->stat;
    con->pending_t0 = st->stat != NULL ? sb_now_ns() : 0;
    sb_db_cancel_busy(con);
    if (st->emulated)
        return complete(con, execute_emulated(st, true));
    return complete(con, con->drv->execute_start(st, &con->rs));
}

enum sb_db_outcome sb_db_continue(struct sb_conn *con)
{
    return complete(con, con->drv->resume(con, &con->rs));
}

enum sb_db_outcome sb_db_complete(struct sb_conn *con)
{
    enum sb_db_outcome o = SB_DB_INFLIGHT;

    while (o == SB_DB_INFLIGHT) {
        struct pollfd pfd = { .fd = con->wait.fd, .events = con->wait.events };
        if (poll(&pfd, 1, -1) < 0 && errno != EINTR) {
            con->err.sql_errno = 0;
            con->err.sql_state[0] = '\0';
            snprintf(con->err.msg, sizeof(con->err.msg), "cannot wait for the server: %s",
                     strerror(errno));
            sb_db_remember_query(con, con->pending_sql, con->pending_len);
            return SB_DB_FATAL;
        }
        o = sb_db_continue(con);
    }
    return o;
}

void sb_db_close(struct sb_stmt *st)
{
    struct sb_conn *con = st->con;

    if (st->prev != NULL)
        st->prev->next = st->next;
    else if (con->stmts == st)
        con->stmts = st->next;
    if (st->next != NULL)
        st->next->prev = st->prev;
    if (st->emulated) {
        struct emul_buf *eb = st->priv;
        if (eb != NULL)
            free(eb->buf);
        free(eb);
    } else if (st->priv != NULL) {
        con->drv->close(st);
    }
    free(st->sql);
    free(st);
}

int sb_db_fetch(struct sb_conn *con)
{
    if (!con->rs.active)
        return 0;
    return con->drv->fetch_row(&con->rs);
}


void sb_db_format_err(const char *driver, const struct sb_db_error *err,
                      const char *query, char *buf, size_t len)
{
    snprintf(buf, len, "%s: error %u (%s): %s%s%.300s", driver,
             err->sql_errno, err->sql_state[0] ? err->sql_state : "-",
             err->msg, query ? " in query: " : "", query ? query : "");
}

void sb_db_format_error(const struct sb_conn *con, char *buf, size_t len)
{
    sb_db_format_err(con->drv->name, &con->err, con->last_query, buf, len);
}

char *sb_db_opt_strdup(const struct sb_optset *opts, const char *name)
{
    const char *v = sb_optset_str(opts, name);

    /* Client libraries take NULL for "use your default". */
    if (v == NULL || v[0] == '\0')
        return NULL;
    return strdup(v);
}

int sb_db_opt_password(const struct sb_optset *opts, const char *name, char **out, char *err,
                       size_t errlen)
{
    char file_opt[128];
    const char *file;

    snprintf(file_opt, sizeof(file_opt), "%s-file", name);
    file = sb_optset_str(opts, file_opt);
    *out = NULL;
    if (file == NULL || file[0] == '\0') {
        *out = sb_db_opt_strdup(opts, name);
        return 0;
    }
    if (sb_optset_str(opts, name) != NULL && sb_optset_str(opts, name)[0] != '\0') {
        snprintf(err, errlen, "both --%s and --%s given: give one", name, file_opt);
        return -1;
    }
    *out = sb_secret_file_read(file, file_opt, false, err, errlen);
    return *out != NULL ? 0 : -1;
}

int sb_db_opt_copy_list(const struct sb_optset *opts, const char *name,
                        char ***out, size_t *nout)
{
    size_t n = 0;
    char *const *items = sb_optset_list(opts, name, &n);
    size_t kept = 0;

    *out = NULL;
    *nout = 0;
    if (n == 0)
        return 0;
    *out = calloc(n, sizeof(**out));
    if (*out == NULL)
        return -1;
    for (size_t i = 0; i < n; i++) {
        /* "--pgsql-host=a,,b" should not produce an empty host name. */
        if (items[i] == NULL || items[i][0] == '\0')
            continue;
        (*out)[kept] = strdup(items[i]);
        if ((*out)[kept] == NULL) {
            sb_db_free_list(*out, kept);
            *out = NULL;
            return -1;
        }
        kept++;
    }
    *nout = kept;
    return 0;
}

void sb_db_free_list(char **list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(list[i]);
    free(list);
}
