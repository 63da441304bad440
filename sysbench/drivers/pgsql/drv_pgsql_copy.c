/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The PostgreSQL driver's bulk load: COPY ... FROM STDIN, text format.
 * One COPY runs from copy_begin to copy_end; copy_data hands libpq whole
 * lines, which it sends as they fill its buffer, so the server parses
 * while the client makes the next rows. COPY is one statement: a failure
 * anywhere in it leaves no row.
 *
 * libpq's COPY calls are used blocking: a connection the multiplexer made
 * non-blocking is switched back for the COPY's length.
 */
#include "drivers/pgsql/drv_pgsql_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads the results after the COPY ended (or failed), until libpq has no
 * more: the first failure is the outcome. */
static enum sb_db_status collect(struct sb_conn *con, struct sb_pgsql_conn *cp)
{
    enum sb_db_status st = SB_DB_OK;
    PGresult *res;

    while ((res = PQgetResult(cp->pg)) != NULL) {
        ExecStatusType rs = PQresultStatus(res);
        if (rs == PGRES_COPY_IN) {
            /* Still copying: libpq wants the end first. */
            PQclear(res);
            if (PQputCopyEnd(cp->pg, "sysbench: COPY abandoned") != 1)
                break;
            continue;
        }
        if (rs != PGRES_COMMAND_OK && st == SB_DB_OK) {
            st = sb_pgsql_result_error(con, cp->pg, res);
            continue;
        }
        PQclear(res);
    }
    if (st == SB_DB_OK && PQstatus(cp->pg) == CONNECTION_BAD)
        st = sb_pgsql_result_error(con, cp->pg, NULL);
    return st;
}

static void restore(struct sb_pgsql_conn *cp)
{
    if (cp->copy_was_nonblocking)
        PQsetnonblocking(cp->pg, 1);
    cp->copying = false;
    cp->copy_was_nonblocking = false;
}

enum sb_db_status sb_pgsql_copy_begin(struct sb_conn *con, const char *table, const char *cols)
{
    struct sb_pgsql_conn *cp = con->priv;
    size_t n = strlen(table) + strlen(cols) + 32;
    char *sql = malloc(n);
    PGresult *res;

    if (sql == NULL)
        return sb_pgsql_oom(con);
    snprintf(sql, n, "COPY %s %s FROM STDIN", table, cols);
    cp->copy_was_nonblocking = PQisnonblocking(cp->pg) != 0;
    if (cp->copy_was_nonblocking)
        PQsetnonblocking(cp->pg, 0);
    res = PQexec(cp->pg, sql);
    free(sql);
    if (res == NULL || PQresultStatus(res) != PGRES_COPY_IN) {
        enum sb_db_status st = sb_pgsql_result_error(con, cp->pg, res);
        if (st != SB_DB_CONN_LOST)
            (void)collect(con, cp);
        restore(cp);
        return st;
    }
    PQclear(res);
    cp->copying = true;
    return SB_DB_OK;
}

enum sb_db_status sb_pgsql_copy_data(struct sb_conn *con, const char *data, size_t len,
                                     uint64_t nrows)
{
    struct sb_pgsql_conn *cp = con->priv;
    enum sb_db_status st;

    (void)nrows;
    if (!cp->copying)
        return SB_DB_OK;
    /* An int length: large chunks go in pieces. */
    while (len > 0) {
        int part = len > (1u << 30) ? 1 << 30 : (int)len;
        if (PQputCopyData(cp->pg, data, part) != 1)
            break;
        data += part;
        len -= (size_t)part;
    }
    if (len == 0)
        return SB_DB_OK;
    /* The server ended the COPY (an error it reports in the results) or
     * the connection went. */
    st = collect(con, cp);
    if (st == SB_DB_OK)
        st = sb_pgsql_result_error(con, cp->pg, NULL);
    restore(cp);
    return st;
}

enum sb_db_status sb_pgsql_copy_end(struct sb_conn *con, bool abort)
{
    struct sb_pgsql_conn *cp = con->priv;
    enum sb_db_status st;

    if (!cp->copying)
        return SB_DB_OK;
    if (PQputCopyEnd(cp->pg, abort ? "sysbench: bulk insert abandoned" : NULL) != 1) {
        st = sb_pgsql_result_error(con, cp->pg, NULL);
        restore(cp);
        return st;
    }
    st = collect(con, cp);
    restore(cp);
    return st;
}
