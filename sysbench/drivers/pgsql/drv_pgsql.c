/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * PostgreSQL driver on libpq.
 *
 * Two files: drv_pgsql_conn.c owns the --pgsql-* options and their
 * parsed, read-only copy, and one PGconn per connection, chosen
 * round-robin over the configured hosts and ports (drv_pgsql_int.h is
 * what they share). This file owns server-side prepared statements
 * (PQprepare under a name unique within the connection, '?' placeholders
 * rewritten to $1..$n) with their text-format parameter buffers; result
 * sets (one PGresult at a time); non-blocking execution; and the ops
 * table. Both map libpq failures to "connection lost". The error policy
 * (what is ignorable, when to reconnect) belongs to the common layer in
 * sb_driver.c.
 *
 * Errors carry the server's SQLSTATE; sql_errno is always 0 because
 * PostgreSQL has no error numbers, so --pgsql-ignore-errors and
 * --db-ignore-errors take SQLSTATEs. Failures without a SQLSTATE from the
 * server (libpq's own, e.g. a dropped socket) get 08006 when the connection
 * is gone, and connection attempts that fail without reaching the server
 * get 08001.
 *
 * connect() returns SB_DB_CONN_LOST when the server could not be reached
 * (refused, socket missing, starting up or shutting down, dropped during
 * start-up) and SB_DB_ERROR for what a retry cannot fix (authentication,
 * unknown database). libpq reports connection failures only as text, so
 * this split reads libpq's English messages; with a translated libpq every
 * connection failure is reported as SB_DB_ERROR.
 */

#include "drivers/pgsql/drv_pgsql_int.h"

#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------- result sets */

static void sb_pgsql_drop_result(struct sb_pgsql_conn *cp)
{
    if (cp->res != NULL) {
        PQclear(cp->res);
        cp->res = NULL;
    }
}

/*
 * Turns a completed PGresult into the connection's result set or an error.
 * Takes ownership of res.
 */
static enum sb_db_status sb_pgsql_take_result(struct sb_conn *con, PGresult *res,
                                              struct sb_sql_result *rs)
{
    struct sb_pgsql_conn *cp = con->priv;
    unsigned nf;

    /* The common layer freed the previous result and cleared rs. */
    switch (res != NULL ? PQresultStatus(res) : PGRES_FATAL_ERROR) {
    case PGRES_COMMAND_OK:
        /* "" for commands without a row count (BEGIN, SET). */
        rs->affected = strtoull(PQcmdTuples(res), NULL, 10);
        PQclear(res);
        return SB_DB_OK;
    case PGRES_EMPTY_QUERY:
        PQclear(res);
        return SB_DB_OK;
    case PGRES_TUPLES_OK:
        break;
    default:
        return sb_pgsql_result_error(con, cp->pg, res);
    }

    nf = (unsigned)PQnfields(res);
    if (nf > cp->rowcap) {
        struct sb_value *row = realloc(cp->row, nf * sizeof(*row));

        if (row == NULL) {
            PQclear(res);
            return sb_pgsql_oom(con);
        }
        cp->row = row;
        cp->rowcap = nf;
    }
    cp->res = res;
    cp->cur = 0;
    rs->active = true;
    rs->nrows = (uint64_t)PQntuples(res);
    rs->nfields = nf;
    rs->row = cp->row;
    rs->priv = cp;
    return SB_DB_OK;
}

static int sb_pgsql_fetch_row(struct sb_sql_result *rs)
{
    struct sb_pgsql_conn *cp = rs->priv;
    int r;

    if (!rs->active || cp == NULL || cp->res == NULL)
        return 0;
    r = cp->cur;
    if (r >= PQntuples(cp->res))
        return 0;
    for (unsigned i = 0; i < rs->nfields; i++) {
        if (PQgetisnull(cp->res, r, (int)i)) {
            cp->row[i].ptr = NULL;
            cp->row[i].len = 0;
        } else {
            cp->row[i].ptr = PQgetvalue(cp->res, r, (int)i);
            cp->row[i].len = (size_t)PQgetlength(cp->res, r, (int)i);
        }
    }
    cp->cur = r + 1;
    rs->row = cp->row;
    return 1;
}

static void sb_pgsql_free_result(struct sb_sql_result *rs)
{
    struct sb_pgsql_conn *cp = rs->priv;

    if (cp != NULL)
        sb_pgsql_drop_result(cp);
    rs->active = false;
    rs->nrows = 0;
    rs->nfields = 0;
    rs->row = NULL;
    rs->priv = NULL;
}

/* ------------------------------------------------------- plain queries */

/* PQexec wants a NUL-terminated text and the contract gives a length;
 * the copy goes into a buffer that only ever grows. Returns 0 or -1. */
static int sb_pgsql_copy_query(struct sb_pgsql_conn *cp, const char *sql, size_t len)
{
    if (len + 1 > cp->qcap) {
        size_t ncap = cp->qcap ? cp->qcap : 256;
        char *b;

        while (ncap < len + 1)
            ncap *= 2;
        b = realloc(cp->qbuf, ncap);
        if (b == NULL)
            return -1;
        cp->qbuf = b;
        cp->qcap = ncap;
    }
    memcpy(cp->qbuf, sql, len);
    cp->qbuf[len] = '\0';
    return 0;
}

static void sb_pgsql_flush_dealloc(struct sb_pgsql_conn *cp);

static enum sb_db_status sb_pgsql_query(struct sb_conn *con, const char *sql,
                                        size_t len, struct sb_sql_result *rs)
{
    struct sb_pgsql_conn *cp = con->priv;

    if (sb_pgsql_copy_query(cp, sql, len) != 0)
        return sb_pgsql_oom(con);
    sb_pgsql_flush_dealloc(cp);
    return sb_pgsql_take_result(con, PQexec(cp->pg, cp->qbuf), rs);
}

/* ------------------------------------------------- prepared statements */

/*
 * Copies sql to out with every '?' placeholder replaced by $1, $2, ...;
 * out must hold len + 10 bytes per placeholder + 1. The placeholders are
 * the ones sb_sql_next_placeholder() finds, as for the common layer's
 * count and emulation, so that both --db-ps-mode values see the same ones.
 */
static void sb_pgsql_rewrite(const char *sql, size_t len, char *out)
{
    unsigned n = 0;
    size_t o = 0, i = 0;

    for (;;) {
        size_t q = sb_sql_next_placeholder(sql, len, i);

        memcpy(out + o, sql + i, q - i);
        o += q - i;
        if (q == len)
            break;
        o += (size_t)sprintf(out + o, "$%u", ++n);
        i = q + 1;
    }
    out[o] = '\0';
}

static void sb_pgsql_stmt_unlink(struct sb_pgsql_stmt *sp)
{
    struct sb_pgsql_stmt **pp;

    if (sp->owner == NULL)
        return;
    for (pp = &sp->owner->stmts; *pp != NULL; pp = &(*pp)->next)
        if (*pp == sp) {
            *pp = sp->next;
            break;
        }
    sp->owner = NULL;
}

static void sb_pgsql_stmt_free(struct sb_pgsql_stmt *sp)
{
    if (sp == NULL)
        return;
    sb_pgsql_stmt_unlink(sp);
    free(sp->values);
    free(sp->numbuf);
    free(sp);
}

/* Whether a DEALLOCATE can run on cp: a healthy connection outside a
 * failed transaction, where it would itself fail (and, inside a
 * transaction, abort it). */
static bool sb_pgsql_can_dealloc(struct sb_pgsql_conn *cp)
{
    PGTransactionStatusType ts;

    if (PQstatus(cp->pg) != CONNECTION_OK)
        return false;
    ts = PQtransactionStatus(cp->pg);
    return ts == PQTRANS_IDLE || ts == PQTRANS_INTRANS;
}

/* Sends the DEALLOCATEs of the statements closed since the last
 * statement, before the next one. Nothing else reached the server in
 * between, so the conditions the closes found still hold. */
static void sb_pgsql_flush_dealloc(struct sb_pgsql_conn *cp)
{
    if (cp->dealloc_len == 0)
        return;
    cp->dealloc_len = 0;
    if (sb_pgsql_can_dealloc(cp))
        PQclear(PQexec(cp->pg, cp->dealloc));
}

/* Queues "DEALLOCATE name;" for the next statement; false when out of
 * memory. */
static bool sb_pgsql_queue_dealloc(struct sb_pgsql_conn *cp, const char *name)
{
    size_t need = cp->dealloc_len + strlen(name) + sizeof("DEALLOCATE ;");

    if (need > cp->dealloc_cap) {
        size_t cap = need < 256 ? 256 : 2 * need;
        char *b = realloc(cp->dealloc, cap);
        if (b == NULL)
            return false;
        cp->dealloc = b;
        cp->dealloc_cap = cap;
    }
    cp->dealloc_len += (size_t)snprintf(cp->dealloc + cp->dealloc_len,
                                        cp->dealloc_cap - cp->dealloc_len, "DEALLOCATE %s;", name);
    return true;
}

static void sb_pgsql_close(struct sb_stmt *st)
{
    struct sb_pgsql_stmt *sp = st->priv;
    struct sb_pgsql_conn *cp = st->con != NULL ? st->con->priv : NULL;

    if (sp == NULL)
        return;
    /*
     * Scripts may prepare and close statements in every event, so the
     * server's copy is dropped too, but only on its own, healthy
     * connection and outside a failed transaction. The DEALLOCATE goes
     * with the connection's next statement: closing a connection's
     * statements and then the connection (thread_done) was a round trip
     * per statement, 15% of the client's CPU after the measured window
     * of a 1,000-connection run; the session's end drops them anyway.
     */
    if (cp != NULL && sp->owner == cp && sb_pgsql_can_dealloc(cp) &&
        !sb_pgsql_queue_dealloc(cp, sp->name)) {
        char sql[64];

        snprintf(sql, sizeof(sql), "DEALLOCATE %s", sp->name);
        PQclear(PQexec(cp->pg, sql));
    }
    sb_pgsql_stmt_free(sp);
    st->priv = NULL;
}

static enum sb_db_status sb_pgsql_prepare(struct sb_stmt *st)
{
    struct sb_conn *con = st->con;
    struct sb_pgsql_conn *cp = con->priv;
    struct sb_pgsql_stmt *sp;
    size_t cap;
    char *text;
    unsigned n;
    enum sb_db_status rc;
    PGresult *res;

    if (st->priv != NULL)
        sb_pgsql_close(st);

    /* st->nparams counts the placeholders the rewrite replaces, and
     * "$4294967295" is 11 bytes where the '?' was 1. */
    n = st->nparams;
    cap = st->sql_len + 1 + (size_t)n * 10;
    text = malloc(cap);
    sp = calloc(1, sizeof(*sp));
    if (text == NULL || sp == NULL) {
        free(text);
        free(sp);
        return sb_pgsql_oom(con);
    }
    sb_pgsql_rewrite(st->sql, st->sql_len, text);
    sp->nparams = n;
    if (n > 0) {
        sp->values = calloc(n, sizeof(*sp->values));
        sp->numbuf = malloc((size_t)n * SB_PG_NUMBUF);
        if (sp->values == NULL || sp->numbuf == NULL) {
            free(text);
            sb_pgsql_stmt_free(sp);
            return sb_pgsql_oom(con);
        }
    }
    snprintf(sp->name, sizeof(sp->name), "sbstmt%lu", ++cp->next_stmt_id);

    /* No parameter types: the server infers them from the context, and the
     * text-format values convert as literals would. An open result set
     * of the connection stays valid: libpq results do not depend on it. */
    sb_pgsql_flush_dealloc(cp);
    res = PQprepare(cp->pg, sp->name, text, (int)n, NULL);
    free(text);
    if (res == NULL || PQresultStatus(res) != PGRES_COMMAND_OK) {
        rc = sb_pgsql_result_error(con, cp->pg, res);
        sb_pgsql_stmt_free(sp);
        return rc;
    }
    PQclear(res);
    sp->owner = cp;
    sp->next = cp->stmts;
    cp->stmts = sp;
    st->priv = sp;
    return SB_DB_OK;
}

/* Formats st's parameters as text into sp->values. Returns sp, or NULL
 * with con->err set when the statement is not on this connection. */
static struct sb_pgsql_stmt *sb_pgsql_params(struct sb_stmt *st)
{
    struct sb_conn *con = st->con;
    struct sb_pgsql_conn *cp = con->priv;
    struct sb_pgsql_stmt *sp = st->priv;

    if (sp == NULL || sp->owner != cp) {
        sb_pgsql_set_err(con, "26000", "prepared statement does not exist on this connection");
        return NULL;
    }
    for (unsigned i = 0; i < sp->nparams; i++) {
        const struct sb_bind *b = st->params[i];
        char *num = sp->numbuf + (size_t)i * SB_PG_NUMBUF;

        if (b == NULL || b->is_null) {
            sp->values[i] = NULL;
            continue;
        }
        switch (b->type) {
        case SB_SQL_TINYINT:
        case SB_SQL_SMALLINT:
        case SB_SQL_INT:
        case SB_SQL_BIGINT:
            snprintf(num, SB_PG_NUMBUF, "%" PRId64, b->i);
            sp->values[i] = num;
            break;
        case SB_SQL_FLOAT:
            /* Nine significant digits round-trip a float exactly. */
            snprintf(num, SB_PG_NUMBUF, "%.9g", b->d);
            sp->values[i] = num;
            break;
        case SB_SQL_DOUBLE:
            snprintf(num, SB_PG_NUMBUF, "%.17g", b->d);
            sp->values[i] = num;
            break;
        case SB_SQL_NONE:
            sp->values[i] = NULL;
            break;
        default:
            /* Text parameters are read up to a NUL, and sb_bind keeps
             * its text NUL-terminated. */
            sp->values[i] = b->str != NULL ? b->str : "";
            break;
        }
    }
    return sp;
}

static enum sb_db_status sb_pgsql_execute(struct sb_stmt *st, struct sb_sql_result *rs)
{
    struct sb_conn *con = st->con;
    struct sb_pgsql_conn *cp = con->priv;
    struct sb_pgsql_stmt *sp = sb_pgsql_params(st);

    if (sp == NULL)
        return SB_DB_ERROR;
    sb_pgsql_flush_dealloc(cp);
    return sb_pgsql_take_result(con,
                                PQexecPrepared(cp->pg, sp->name, (int)sp->nparams,
                                               sp->values, NULL, NULL, 0),
                                rs);
}

/* ---------------------------------------------------------- non-blocking */

static enum sb_db_status sb_pgsql_pending(struct sb_conn *con, short events)
{
    struct sb_pgsql_conn *cp = con->priv;

    con->wait.fd = PQsocket(cp->pg);
    con->wait.events = events;
    return SB_DB_PENDING;
}

/*
 * Takes the results that have arrived, without blocking, keeping what
 * PQexec would return (the last one, or the first error); once the last
 * has come, turns it into the connection's result set. Otherwise it waits
 * for more input.
 */
static enum sb_db_status sb_pgsql_collect(struct sb_conn *con, struct sb_sql_result *rs)
{
    struct sb_pgsql_conn *cp = con->priv;

    while (!PQisBusy(cp->pg)) {
        PGresult *r = PQgetResult(cp->pg);
        PGresult *last;
        ExecStatusType t;

        if (r != NULL) {
            t = PQresultStatus(r);
            if (cp->alast != NULL && PQresultStatus(cp->alast) == PGRES_FATAL_ERROR) {
                PQclear(r);
            } else {
                PQclear(cp->alast);
                cp->alast = r;
            }
            /* COPY hands the connection over to the caller: as with
             * PQexec, its result is the answer (an error for this layer). */
            if (t != PGRES_COPY_IN && t != PGRES_COPY_OUT && t != PGRES_COPY_BOTH)
                continue;
        }
        last = cp->alast;
        cp->alast = NULL;
        return sb_pgsql_take_result(con, last, rs);
    }
    return sb_pgsql_pending(con, POLLIN);
}

/* After a send: waits for the reply, or, while libpq could not write all
 * of the statement, for either direction (as libpq's documentation asks). */
static enum sb_db_status sb_pgsql_sent(struct sb_conn *con, int sent)
{
    struct sb_pgsql_conn *cp = con->priv;
    int f;

    if (!sent)
        return sb_pgsql_result_error(con, cp->pg, NULL);
    f = PQflush(cp->pg);
    if (f < 0)
        return sb_pgsql_result_error(con, cp->pg, NULL);
    cp->flushing = f > 0;
    return sb_pgsql_pending(con, cp->flushing ? POLLIN | POLLOUT : POLLIN);
}

static enum sb_db_status sb_pgsql_query_start(struct sb_conn *con, const char *sql,
                                              size_t len, struct sb_sql_result *rs)
{
    struct sb_pgsql_conn *cp = con->priv;

    (void)rs;
    if (sb_pgsql_copy_query(cp, sql, len) != 0)
        return sb_pgsql_oom(con);
    sb_pgsql_flush_dealloc(cp);
    return sb_pgsql_sent(con, PQsendQuery(cp->pg, cp->qbuf));
}

static enum sb_db_status sb_pgsql_execute_start(struct sb_stmt *st, struct sb_sql_result *rs)
{
    struct sb_conn *con = st->con;
    struct sb_pgsql_conn *cp = con->priv;
    struct sb_pgsql_stmt *sp = sb_pgsql_params(st);

    (void)rs;
    if (sp == NULL)
        return SB_DB_ERROR;
    sb_pgsql_flush_dealloc(cp);
    return sb_pgsql_sent(con, PQsendQueryPrepared(cp->pg, sp->name, (int)sp->nparams,
                                                  sp->values, NULL, NULL, 0));
}

/* Whether input is waiting on the socket right now. */
static bool sb_pgsql_readable(struct sb_pgsql_conn *cp)
{
    struct pollfd pfd = { .fd = PQsocket(cp->pg), .events = POLLIN };

    return poll(&pfd, 1, 0) > 0;
}

/*
 * The multiplexer waits for the next arrival on the socket (an edge), so
 * a wait must not leave input unread: libpq reads once per call (and one
 * TLS record at a time), and a reply not complete after that read is read
 * again while the socket has more.
 */
static enum sb_db_status sb_pgsql_resume(struct sb_conn *con, struct sb_sql_result *rs)
{
    struct sb_pgsql_conn *cp = con->priv;
    enum sb_db_status st;

    do {
        if (PQconsumeInput(cp->pg) == 0)
            return sb_pgsql_result_error(con, cp->pg, NULL);
        if (cp->flushing) {
            int f = PQflush(cp->pg);
            if (f < 0)
                return sb_pgsql_result_error(con, cp->pg, NULL);
            cp->flushing = f > 0;
            if (cp->flushing)
                return sb_pgsql_pending(con, POLLIN | POLLOUT);
        }
        st = sb_pgsql_collect(con, rs);
    } while (st == SB_DB_PENDING && sb_pgsql_readable(cp));
    return st;
}

/* ------------------------------------------------------------ the rest */

static size_t sb_pgsql_quote(struct sb_conn *con, const char *src, size_t len, char *dst)
{
    struct sb_pgsql_conn *cp = con->priv;
    int error = 0;
    size_t n;

    dst[0] = '\'';
    /* Escaping depends on the connection's encoding and on
     * standard_conforming_strings, which only the connection knows. */
    n = PQescapeStringConn(cp->pg, dst + 1, src, len, &error);
    dst[1 + n] = '\'';
    dst[2 + n] = '\0';
    return n + 2;
}

static const char *sb_pgsql_server_version(struct sb_conn *con)
{
    struct sb_pgsql_conn *cp = con->priv;

    return cp != NULL ? PQparameterStatus(cp->pg, "server_version") : NULL;
}

static int sb_pgsql_server_endpoint(struct sb_conn *con, char *buf, size_t len)
{
    struct sb_pgsql_conn *cp = con->priv;

    if (cp == NULL || len == 0)
        return -1;
    snprintf(buf, len, "%s", cp->endpoint);
    return 0;
}

/* The client library's version, for result files. */
static int sb_pgsql_client_version(char *buf, size_t len)
{
    int v = PQlibVersion();

    /* Since PostgreSQL 10 the number is major * 10000 + minor. */
    if (v >= 100000)
        snprintf(buf, len, "%d.%d", v / 10000, v % 10000);
    else
        snprintf(buf, len, "%d.%d.%d", v / 10000, v / 100 % 100, v % 100);
    return 0;
}

/* Open or aborted: an ignorable error inside a transaction leaves it
 * aborted (25P02 for every later statement) until ROLLBACK. */
static bool sb_pgsql_in_transaction(struct sb_conn *con)
{
    struct sb_pgsql_conn *c = con->priv;
    PGTransactionStatusType ts;

    if (c == NULL || c->pg == NULL)
        return false;
    ts = PQtransactionStatus(c->pg);
    return ts == PQTRANS_INTRANS || ts == PQTRANS_INERROR;
}

/* Only with standard_conforming_strings off, which libpq tracks. */
static bool sb_pgsql_backslash_escapes(struct sb_conn *con)
{
    struct sb_pgsql_conn *c = con->priv;
    const char *v = c != NULL && c->pg != NULL
                        ? PQparameterStatus(c->pg, "standard_conforming_strings") : NULL;

    return v != NULL && strcmp(v, "off") == 0;
}

/* PQcancel with the object made at connect: the statement ends with
 * SQLSTATE 57014. */
static bool sb_pgsql_cancel(struct sb_conn *con, void **sweep)
{
    struct sb_pgsql_conn *cp = con->priv;
    char buf[256];

    (void)sweep;
    return cp->cancel != NULL && PQcancel(cp->cancel, buf, (int)sizeof(buf)) == 1;
}

const struct sb_driver_ops sb_driver_pgsql = {
    .name = "pgsql",
    .description = "PostgreSQL driver",
    .options = sb_pgsql_options,
    .ignore_option = "pgsql-ignore-errors",
    .init = sb_pgsql_init,
    .done = sb_pgsql_done,
    .connect = sb_pgsql_connect,
    .connect_start = sb_pgsql_connect_start,
    .connect_cont = sb_pgsql_connect_cont,
    .disconnect = sb_pgsql_disconnect,
    .query = sb_pgsql_query,
    .prepare = sb_pgsql_prepare,
    .execute = sb_pgsql_execute,
    .close = sb_pgsql_close,
    .query_start = sb_pgsql_query_start,
    .execute_start = sb_pgsql_execute_start,
    .resume = sb_pgsql_resume,
    .fetch_row = sb_pgsql_fetch_row,
    .free_result = sb_pgsql_free_result,
    .quote = sb_pgsql_quote,
    .client_version = sb_pgsql_client_version,
    .server_version = sb_pgsql_server_version,
    .server_endpoint = sb_pgsql_server_endpoint,
    .server_forks = true,
    /* current_setting: the value as configured, with its unit ("64MB").
     * A row whose setting this user may not read has NULL there, and
     * current_setting would fail the query on it: left out. */
    .settings_query = "SELECT name, current_setting(name) FROM pg_settings "
                      "WHERE setting IS NOT NULL",
    .in_transaction = sb_pgsql_in_transaction,
    .backslash_escapes = sb_pgsql_backslash_escapes,
    .copy_begin = sb_pgsql_copy_begin,
    .copy_data = sb_pgsql_copy_data,
    .copy_end = sb_pgsql_copy_end,
    .copy_chunk = 256 << 10,
    .copy_name = "COPY FROM STDIN",
    .copy_types = sb_pgsql_copy_types,
    .copy_begin_binary = sb_pgsql_copy_begin_binary,
    .cancel = sb_pgsql_cancel,
};
