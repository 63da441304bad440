/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * MySQL / MariaDB driver on the MySQL client C API (libmariadb or Oracle's
 * libmysqlclient).
 *
 * This file owns: result sets of plain queries, quoting, what the driver
 * says of the client library and the server, and the driver's ops table,
 * which stands on the options (drv_mysql_opts.c), connections
 * (drv_mysql_connect.c), server-side prepared statements
 * (drv_mysql_stmt.c), non-blocking statements (drv_mysql_async.c), bulk
 * loads (drv_mysql_load.c) and cancelling (drv_mysql_cancel.c).
 * The error policy (what is ignorable, when to reconnect) belongs to the
 * common layer in sb_driver.c; this driver only reports raw outcomes.
 */

#include "drivers/mysql/drv_mysql.h"

/* ------------------------------------------------------- plain queries */

static enum sb_db_status sb_mysql_query(struct sb_conn *con, const char *sql,
                                        size_t len, struct sb_sql_result *rs)
{
    struct sb_mysql_conn *cp = con->priv;

    /* The common layer freed the previous result and cleared rs. */
    if (cp->my == NULL)
        return SB_DB_OK;   /* dry run */

    if (mysql_real_query(cp->my, sql, (unsigned long)len) != 0)
        return sb_mysql_conn_error(con, cp->my);
    return sb_mysql_take_result(con, mysql_store_result(cp->my), rs);
}


static int sb_mysql_fetch_row(struct sb_sql_result *rs)
{
    struct sb_mysql_conn *cp = rs->priv;
    MYSQL_ROW r;
    unsigned long *lens;

    if (!rs->active || cp == NULL)
        return 0;
    if (cp->rs_stmt != NULL)
        return sb_mysql_fetch_stmt_row(rs, cp->rs_stmt);
    if (cp->res == NULL)
        return 0;

    r = mysql_fetch_row(cp->res);
    if (r == NULL) {
        /* Stored results cannot fail while fetching, but the API allows it. */
        if (mysql_errno(cp->my) != 0) {
            sb_mysql_conn_error(rs->con, cp->my);
            return -1;
        }
        return 0;
    }
    lens = mysql_fetch_lengths(cp->res);
    for (unsigned i = 0; i < rs->nfields; i++) {
        cp->row[i].ptr = r[i];
        cp->row[i].len = r[i] != NULL ? lens[i] : 0;
    }
    rs->row = cp->row;
    return 1;
}

static void sb_mysql_free_result(struct sb_sql_result *rs)
{
    struct sb_mysql_conn *cp = rs->priv;

    if (cp != NULL)
        sb_mysql_drop_results(cp);
}

/* ------------------------------------------------------------ the rest */

/* Backslash escaping as the server's default sql_mode expects; used when
 * there is no connection (dry run) or the library refuses. */
static size_t sb_mysql_escape_plain(const char *src, size_t len, char *dst)
{
    size_t o = 0;

    for (size_t i = 0; i < len; i++) {
        char ch = src[i];

        switch (ch) {
        case '\0': dst[o++] = '\\'; dst[o++] = '0'; break;
        case '\n': dst[o++] = '\\'; dst[o++] = 'n'; break;
        case '\r': dst[o++] = '\\'; dst[o++] = 'r'; break;
        case '\032': dst[o++] = '\\'; dst[o++] = 'Z'; break;
        case '\\': case '\'': case '"': dst[o++] = '\\'; dst[o++] = ch; break;
        default: dst[o++] = ch; break;
        }
    }
    return o;
}

static size_t sb_mysql_quote(struct sb_conn *con, const char *src, size_t len, char *dst)
{
    struct sb_mysql_conn *cp = con->priv;
    size_t n;

    dst[0] = '\'';
    if (cp != NULL && cp->my != NULL) {
        unsigned long r = mysql_real_escape_string(cp->my, dst + 1, src, (unsigned long)len);

        /* libmysqlclient refuses (returns -1) under NO_BACKSLASH_ESCAPES,
         * where only doubled quotes are valid. */
        if (r == (unsigned long)-1) {
            n = 0;
            for (size_t i = 0; i < len; i++) {
                if (src[i] == '\'')
                    dst[1 + n++] = '\'';
                dst[1 + n++] = src[i];
            }
        } else {
            n = r;
        }
    } else {
        n = sb_mysql_escape_plain(src, len, dst + 1);
    }
    dst[1 + n] = '\'';
    dst[2 + n] = '\0';
    return n + 2;
}

static const char *sb_mysql_server_version(struct sb_conn *con)
{
    struct sb_mysql_conn *cp = con->priv;

    if (cp == NULL || cp->my == NULL)
        return NULL;
    return mysql_get_server_info(cp->my);
}

static int sb_mysql_server_endpoint(struct sb_conn *con, char *buf, size_t len)
{
    struct sb_mysql_conn *cp = con->priv;

    if (cp == NULL || cp->my == NULL || !cp->have_endpoint || len == 0)
        return -1;
    snprintf(buf, len, "%s", cp->endpoint);
    return 0;
}

/* The client library's version, for result files. */
static int sb_mysql_client_version(char *buf, size_t len)
{
    const char *v = mysql_get_client_info();

    if (v == NULL)
        return -1;
    snprintf(buf, len, "%s", v);
    return 0;
}

/* The server's "in transaction" flag from its last OK packet. An error
 * packet carries no status, so after a deadlock (which already rolled
 * back) this may still say yes: one harmless extra ROLLBACK. A lock-wait
 * timeout leaves the transaction open, and sysbench 1.0 does not roll it
 * back: its retried BEGIN then commits the half-done transaction. */
static bool sb_mysql_in_transaction(struct sb_conn *con)
{
    struct sb_mysql_conn *cp = con->priv;
    return cp != NULL && cp->my != NULL && (cp->my->server_status & SERVER_STATUS_IN_TRANS);
}

/* From the server's last OK packet, which carries its sql_mode's
 * NO_BACKSLASH_ESCAPES. */
static bool sb_mysql_backslash_escapes(struct sb_conn *con)
{
    struct sb_mysql_conn *cp = con->priv;
    return cp == NULL || cp->my == NULL ||
           !(cp->my->server_status & SERVER_STATUS_NO_BACKSLASH_ESCAPES);
}

const struct sb_driver_ops sb_driver_mysql = {
    .name = "mysql",
    .description = "MySQL driver",
    .options = sb_mysql_options,
    .ignore_option = "mysql-ignore-errors",
    .init = sb_mysql_init,
    .done = sb_mysql_done,
    .thread_init = sb_mysql_thread_init,
    .thread_done = sb_mysql_thread_done,
    .connect = sb_mysql_connect,
#ifdef SB_MYSQL_ASYNC
    .connect_start = sb_mysql_connect_start,
    .connect_cont = sb_mysql_connect_cont,
#endif
    .disconnect = sb_mysql_disconnect,
    .query = sb_mysql_query,
    .prepare = sb_mysql_prepare,
    .execute = sb_mysql_execute,
    .close = sb_mysql_close,
#ifdef SB_MYSQL_ASYNC
    .query_start = sb_mysql_query_start,
    .execute_start = sb_mysql_execute_start,
    .resume = sb_mysql_resume,
#endif
    .fetch_row = sb_mysql_fetch_row,
    .free_result = sb_mysql_free_result,
    .quote = sb_mysql_quote,
    .client_version = sb_mysql_client_version,
    .server_version = sb_mysql_server_version,
    .server_endpoint = sb_mysql_server_endpoint,
    .settings_query = "SHOW GLOBAL VARIABLES",
    .in_transaction = sb_mysql_in_transaction,
    .backslash_escapes = sb_mysql_backslash_escapes,
    .copy_begin = sb_mysql_copy_begin,
    .copy_data = sb_mysql_copy_data,
    .copy_end = sb_mysql_copy_end,
    .copy_chunk = 4 << 20,
    .copy_name = "LOAD DATA LOCAL INFILE",
    .statement_limit = sb_mysql_statement_limit,
    .cancel = sb_mysql_cancel,
    .cancel_end = sb_mysql_cancel_end,
};
