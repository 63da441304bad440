/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The PostgreSQL driver's bulk load: COPY ... FROM STDIN, in text format
 * or, for generated rows into columns of known types, binary (which
 * spares the server the text's parsing and input functions, a sixth of
 * its CPU over the COPY of oltp rows; bench/README.md). One COPY runs
 * from copy_begin to copy_end; copy_data hands libpq whole lines or
 * rows, which it sends as they fill its buffer, so the server parses
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

#include "pure/sb_rowgen.h"

/* Built-in types' OIDs (fixed in PostgreSQL's catalog, pg_type.dat). */
#define PG_INT8 20
#define PG_INT2 21
#define PG_INT4 23
#define PG_TEXT 25
#define PG_BPCHAR 1042
#define PG_VARCHAR 1043

/* Binary COPY's header: the signature, no flags, no extension; and the
 * trailer, a field count of -1. */
static const char bin_header[] = "PGCOPY\n\377\r\n\0" "\0\0\0\0" "\0\0\0\0";
static const char bin_trailer[] = "\377\377";

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
    cp->copy_binary = false;
    cp->copy_was_nonblocking = false;
}

/* COPY table cols FROM STDIN, binary or text; the binary header sent. */
static enum sb_db_status begin(struct sb_conn *con, const char *table, const char *cols,
                               bool binary)
{
    struct sb_pgsql_conn *cp = con->priv;
    size_t n = strlen(table) + strlen(cols) + 48;
    char *sql = malloc(n);
    PGresult *res;

    if (sql == NULL)
        return sb_pgsql_oom(con);
    snprintf(sql, n, "COPY %s %s FROM STDIN%s", table, cols,
             binary ? " WITH (FORMAT binary)" : "");
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
    cp->copy_binary = binary;
    if (binary)
        return sb_pgsql_copy_data(con, bin_header, sizeof(bin_header) - 1, 0);
    return SB_DB_OK;
}

enum sb_db_status sb_pgsql_copy_begin(struct sb_conn *con, const char *table, const char *cols)
{
    return begin(con, table, cols, false);
}

enum sb_db_status sb_pgsql_copy_begin_binary(struct sb_conn *con, const char *table,
                                             const char *cols)
{
    return begin(con, table, cols, true);
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
    if (cp->copy_binary && !abort &&
        (st = sb_pgsql_copy_data(con, bin_trailer, sizeof(bin_trailer) - 1, 0)) != SB_DB_OK)
        return st;
    if (PQputCopyEnd(cp->pg, abort ? "sysbench: bulk insert abandoned" : NULL) != 1) {
        st = sb_pgsql_result_error(con, cp->pg, NULL);
        restore(cp);
        return st;
    }
    st = collect(con, cp);
    restore(cp);
    return st;
}

/* ------------------------------------------------------------ types */

/* How a column of type oid takes binary values; -1: it does not here
 * (any other type, a domain: their input functions decide, in text). */
static int bin_form(unsigned long oid)
{
    switch (oid) {
    case PG_INT2: return SB_ROWGEN_BIN_INT2;
    case PG_INT4: return SB_ROWGEN_BIN_INT4;
    case PG_INT8: return SB_ROWGEN_BIN_INT8;
    case PG_TEXT: case PG_BPCHAR: case PG_VARCHAR: return SB_ROWGEN_BIN_BYTES;
    default: return -1;
    }
}

/* Runs sql, expecting rows; NULL on any failure. */
static PGresult *lookup(struct sb_pgsql_conn *cp, const char *sql)
{
    PGresult *res = PQexec(cp->pg, sql);

    if (res != NULL && PQresultStatus(res) == PGRES_TUPLES_OK)
        return res;
    PQclear(res);
    return NULL;
}

/* The forms of the n columns res describes (a query of table's columns
 * cols, no rows): their types from pg_attribute, where a domain shows as
 * itself (the result's column types show its base type). */
static int forms_of(struct sb_pgsql_conn *cp, const PGresult *res, uint8_t *bin, unsigned n)
{
    Oid table = PQftable(res, 0);
    char sql[160];
    PGresult *types;
    int rc = 0;

    if (table == InvalidOid)
        return -1;
    snprintf(sql, sizeof(sql), "SELECT attnum, atttypid FROM pg_catalog.pg_attribute "
             "WHERE attrelid = %u AND attnum > 0", table);
    if ((types = lookup(cp, sql)) == NULL)
        return -1;
    for (unsigned i = 0; i < n && rc == 0; i++) {
        int form = -1;
        /* Every column is the table's (a view's would be another). */
        for (int r = 0; r < PQntuples(types) && PQftable(res, (int)i) == table; r++)
            if (strtol(PQgetvalue(types, r, 0), NULL, 10) == PQftablecol(res, (int)i))
                form = bin_form(strtoul(PQgetvalue(types, r, 1), NULL, 10));
        if (form < 0)
            rc = -1;
        else
            bin[i] = (uint8_t)form;
    }
    PQclear(types);
    return rc;
}

int sb_pgsql_copy_types(struct sb_conn *con, const char *table, const char *cols, uint8_t *bin,
                        unsigned n)
{
    struct sb_pgsql_conn *cp = con->priv;
    size_t len = strlen(cols), sz = strlen(table) + len + 48;
    bool was_nonblocking;
    PGresult *res;
    char *sql;
    int rc = -1;

    /* COPY without a column list skips generated columns, which a query
     * of them all would show; and in a transaction a failed lookup would
     * abort the script's work: the text form then, as before. */
    if (len < 2 || cols[0] != '(' || cols[len - 1] != ')' ||
        PQtransactionStatus(cp->pg) != PQTRANS_IDLE || (sql = malloc(sz)) == NULL)
        return -1;
    /* The server resolves the names as COPY will (quoting, case, the
     * search path): a query of those columns, for no rows. */
    snprintf(sql, sz, "SELECT %.*s FROM %s WHERE false", (int)(len - 2), cols + 1, table);
    was_nonblocking = PQisnonblocking(cp->pg) != 0;
    if (was_nonblocking)
        PQsetnonblocking(cp->pg, 0);
    res = lookup(cp, sql);
    free(sql);
    if (res != NULL && PQnfields(res) == (int)n)
        rc = forms_of(cp, res, bin, n);
    PQclear(res);
    if (was_nonblocking)
        PQsetnonblocking(cp->pg, 1);
    return rc;
}
