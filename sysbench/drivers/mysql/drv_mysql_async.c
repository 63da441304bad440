/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Non-blocking statements for the MySQL driver, with MariaDB Connector/C's
 * mysql_*_start / mysql_*_cont functions: a call that would block returns
 * the events it waits for (MYSQL_WAIT_READ / MYSQL_WAIT_WRITE); the
 * connection multiplexer (sb_loop.c) waits for them on the socket and
 * calls resume, which continues the same call. A statement is two calls:
 * sending it (query or execute) and storing its rows, so the connection
 * remembers which step is in flight.
 */
#include "drivers/mysql/drv_mysql_async.h"
#include "drivers/mysql/drv_mysql_stmt.h"

#include <poll.h>

enum sb_mysql_step {
    SB_MY_STEP_NONE = 0,
    SB_MY_STEP_QUERY,        /* mysql_real_query */
    SB_MY_STEP_STORE,        /* mysql_store_result */
    SB_MY_STEP_EXECUTE,      /* mysql_stmt_execute */
    SB_MY_STEP_STMT_STORE    /* mysql_stmt_store_result */
};

#ifndef SB_MYSQL_ASYNC

int sb_mysql_enable_nonblocking(MYSQL *my)
{
    (void)my;
    return -1;
}

#else

/* The stack the library runs a non-blocking call on (the TLS handshake
 * of a connect included). The default of libmariadb3 (MariaDB 10.11's
 * Connector/C) is 256 KB, above glibc's mmap threshold: each close
 * unmapped it, a munmap with a TLB flush of the other CPUs, 15% of the
 * client's CPU after a 1,000-connection run (bench/README.md). 120 KB
 * comes from the heap and is twice the 60 KB (4096*15) older Connector/C
 * sources default to; pages never touched cost nothing either way. */
#define SB_MYSQL_ASYNC_STACK (120 * 1024)

int sb_mysql_enable_nonblocking(MYSQL *my)
{
    size_t stack = SB_MYSQL_ASYNC_STACK;

    return mysql_options(my, MYSQL_OPT_NONBLOCK, &stack) == 0 ? 0 : -1;
}

void sb_mysql_wait_for(struct sb_conn *con, MYSQL *my, int status)
{
    short ev = 0;

    if (status & MYSQL_WAIT_READ)
        ev |= POLLIN;
    if (status & MYSQL_WAIT_WRITE)
        ev |= POLLOUT;
    if (status & MYSQL_WAIT_EXCEPT)
        ev |= POLLPRI;
    /* A wait for the library's timeout alone: no read timeout is set for
     * statements, and a connect keeps its own deadline; waiting for
     * input is what ends it. */
    con->wait.fd = (int)mysql_get_socket(my);
    con->wait.events = ev != 0 ? ev : POLLIN;
}

/* A call is in flight: records what it waits for. */
static enum sb_db_status pending(struct sb_conn *con, int step, int status)
{
    struct sb_mysql_conn *cp = con->priv;

    cp->astep = step;
    sb_mysql_wait_for(con, cp->my, status);
    return SB_DB_PENDING;
}

int sb_mysql_ready_status(const struct sb_conn *con)
{
    int st = 0;

    if (con->wait.events & POLLIN)
        st |= MYSQL_WAIT_READ;
    if (con->wait.events & POLLOUT)
        st |= MYSQL_WAIT_WRITE;
    if (con->wait.events & POLLPRI)
        st |= MYSQL_WAIT_EXCEPT;
    return st;
}

/* mysql_store_result, started or continued; status 0 starts it. */
static enum sb_db_status store(struct sb_conn *con, struct sb_sql_result *rs, int status)
{
    struct sb_mysql_conn *cp = con->priv;
    MYSQL_RES *res = NULL;

    status = status == 0 ? mysql_store_result_start(&res, cp->my)
                         : mysql_store_result_cont(&res, cp->my, status);
    if (status != 0)
        return pending(con, SB_MY_STEP_STORE, status);
    cp->astep = SB_MY_STEP_NONE;
    return sb_mysql_take_result(con, res, rs);
}

/* The query was sent and answered (err: its result code). */
static enum sb_db_status queried(struct sb_conn *con, struct sb_sql_result *rs, int err)
{
    struct sb_mysql_conn *cp = con->priv;

    if (err != 0) {
        cp->astep = SB_MY_STEP_NONE;
        return sb_mysql_conn_error(con, cp->my);
    }
    return store(con, rs, 0);
}

enum sb_db_status sb_mysql_query_start(struct sb_conn *con, const char *sql, size_t len,
                                       struct sb_sql_result *rs)
{
    struct sb_mysql_conn *cp = con->priv;
    int err = 0, status;

    if (cp->my == NULL)
        return SB_DB_OK;   /* dry run */
    status = mysql_real_query_start(&err, cp->my, sql, (unsigned long)len);
    if (status != 0)
        return pending(con, SB_MY_STEP_QUERY, status);
    return queried(con, rs, err);
}

/* mysql_stmt_store_result of cp->ast, started or continued. */
static enum sb_db_status stmt_store(struct sb_conn *con, struct sb_sql_result *rs, int status)
{
    struct sb_mysql_conn *cp = con->priv;
    struct sb_stmt *st = cp->ast;
    struct sb_mysql_stmt *sp = st->priv;
    int err = 0;

    status = status == 0 ? mysql_stmt_store_result_start(&err, sp->ps)
                         : mysql_stmt_store_result_cont(&err, sp->ps, status);
    if (status != 0)
        return pending(con, SB_MY_STEP_STMT_STORE, status);
    cp->astep = SB_MY_STEP_NONE;
    if (err != 0) {
        enum sb_db_status rc = sb_mysql_stmt_error(con, sp->ps);

        mysql_stmt_free_result(sp->ps);
        return rc;
    }
    return sb_mysql_stmt_stored(st, rs);
}

/* The statement was executed (err: its result code). */
static enum sb_db_status executed(struct sb_conn *con, struct sb_sql_result *rs, int err)
{
    struct sb_mysql_conn *cp = con->priv;
    struct sb_mysql_stmt *sp = cp->ast->priv;
    enum sb_db_status rc;

    cp->astep = SB_MY_STEP_NONE;
    if (err != 0)
        return sb_mysql_stmt_error(con, sp->ps);
    if (mysql_stmt_field_count(sp->ps) == 0) {
        rs->affected = sb_mysql_affected(mysql_stmt_affected_rows(sp->ps));
        return SB_DB_OK;
    }
    rc = sb_mysql_stmt_bind_result(cp->ast);
    if (rc != SB_DB_OK)
        return rc;
    return stmt_store(con, rs, 0);
}

enum sb_db_status sb_mysql_execute_start(struct sb_stmt *st, struct sb_sql_result *rs)
{
    struct sb_conn *con = st->con;
    struct sb_mysql_conn *cp = con->priv;
    struct sb_mysql_stmt *sp = st->priv;
    enum sb_db_status rc;
    int err = 0, status;

    if (sp == NULL || sp->ps == NULL)
        return SB_DB_OK;   /* dry run */
    rc = sb_mysql_stmt_params(st);
    if (rc != SB_DB_OK)
        return rc;
    cp->ast = st;
    status = mysql_stmt_execute_start(&err, sp->ps);
    if (status != 0)
        return pending(con, SB_MY_STEP_EXECUTE, status);
    return executed(con, rs, err);
}

enum sb_db_status sb_mysql_resume(struct sb_conn *con, struct sb_sql_result *rs)
{
    struct sb_mysql_conn *cp = con->priv;
    int status = sb_mysql_ready_status(con), err = 0;

    switch (cp->astep) {
    case SB_MY_STEP_QUERY:
        status = mysql_real_query_cont(&err, cp->my, status);
        if (status != 0)
            return pending(con, SB_MY_STEP_QUERY, status);
        return queried(con, rs, err);
    case SB_MY_STEP_STORE:
        return store(con, rs, status);
    case SB_MY_STEP_EXECUTE:
        status = mysql_stmt_execute_cont(&err, ((struct sb_mysql_stmt *)cp->ast->priv)->ps,
                                         status);
        if (status != 0)
            return pending(con, SB_MY_STEP_EXECUTE, status);
        return executed(con, rs, err);
    case SB_MY_STEP_STMT_STORE:
        return stmt_store(con, rs, status);
    default:
        sb_mysql_set_err(con, 0, "HY000", "internal error: no statement in flight");
        return SB_DB_ERROR;
    }
}

#endif /* SB_MYSQL_ASYNC */
