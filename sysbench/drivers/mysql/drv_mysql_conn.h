/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_DRV_MYSQL_CONN_H
#define SB_DRV_MYSQL_CONN_H

/*
 * What every file of the MySQL driver shares (drv_mysql_conn.c): the
 * connection and statement structures, the error helpers and taking a
 * plain query's result. drv_mysql.c (options, connections, plain
 * queries, the ops table) stands on drv_mysql_stmt.c (server-side
 * prepared statements and their result rows) and drv_mysql_async.c
 * (non-blocking statements), and all three on this.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <mysql.h>

#include "drivers/sb_driver.h"
#include "core/sb_options.h"

/*
 * Oracle's libmysqlclient 8.0 dropped my_bool in favour of bool, while
 * libmariadb and older libmysqlclient keep it; MYSQL_BIND's flag pointers
 * use whichever the library has.
 */
#if defined(MARIADB_PACKAGE_VERSION_ID) || (defined(MYSQL_VERSION_ID) && MYSQL_VERSION_ID < 80000)
#define SB_MY_BOOL my_bool
#else
#define SB_MY_BOOL bool
#endif

/* Error numbers we depend on, spelled out so that both client libraries
 * (whose headers differ) compile. */
#define SB_MY_ER_SERVER_SHUTDOWN 1053
#define SB_MY_ER_NET_READ_ERROR 1158
#define SB_MY_ER_NET_WRITE_INTERRUPTED 1161
#define SB_MY_ER_UNSUPPORTED_PS 1295
#define SB_MY_ER_CONNECTION_KILLED 1927
#define SB_MY_ER_CLIENT_INTERACTION_TIMEOUT 4031
#define SB_MY_CR_CONNECTION_ERROR 2002
#define SB_MY_CR_CONN_HOST_ERROR 2003
#define SB_MY_CR_SERVER_GONE_ERROR 2006
#define SB_MY_CR_SERVER_LOST 2013
#define SB_MY_CR_SERVER_LOST_EXTENDED 2055

/* Result columns start with this much room and grow on truncation, so a
 * LONGTEXT column does not reserve its 4 GB declared width. */
#define SB_MY_COLBUF_MIN 64
#define SB_MY_COLBUF_MAX_INITIAL 1024


/* A plain query's result set: the client-buffered rows and a row vector
 * reused from one query to the next. */
struct sb_mysql_conn {
    MYSQL *my;                      /* NULL in dry-run mode */
    MYSQL_RES *res;                 /* open result of a plain query */
    struct sb_mysql_stmt *rs_stmt;  /* statement whose result is open */
    /* The non-blocking call in flight (drv_mysql_async.c), and for the
     * statement steps, the statement. */
    int astep;
    struct sb_stmt *ast;
    struct sb_value *row;
    unsigned rowcap;
    char endpoint[300];
    bool have_endpoint;
    /* LOAD DATA LOCAL (drv_mysql_load.c): the statement, the text its
     * handler serves while one runs, whether the server takes local
     * infile on this connection (0 not known yet, 1 yes, -1 refused), and
     * its max_allowed_packet (0: not asked yet). */
    char *load_sql;
    const char *load_data;
    size_t load_left;
    bool load_active;
    int load_ok;
    size_t max_packet;
};

/* A server-side statement with bind arrays sized once at prepare time, so
 * executions allocate nothing. */
struct sb_mysql_stmt {
    MYSQL_STMT *ps;                 /* NULL in dry-run mode */
    unsigned nparams;
    MYSQL_BIND *pbind;
    union {
        int8_t i8;
        int16_t i16;
        int32_t i32;
        int64_t i64;
        float f;
        double d;
    } *pnum;
    unsigned long *plen;
    SB_MY_BOOL *pnull;
    /* The sb_stmt's bind_gen when pbind was last bound to the server (0:
     * never), so executions rebind only after sb_db_bind. */
    unsigned bind_gen;
    /* Result side: every column fetched as text. */
    unsigned nfields;
    MYSQL_BIND *rbind;
    char **rbuf;
    unsigned long *rcap;
    unsigned long *rlen;
    SB_MY_BOOL *rnull;
    SB_MY_BOOL *rerr;
    struct sb_value *row;
};

/* Error helpers (drv_mysql_conn.c): fill con->err and return the raw status. */
void sb_mysql_set_err(struct sb_conn *con, unsigned no, const char *state,
                      const char *msg);
bool sb_mysql_is_conn_lost(unsigned no);
enum sb_db_status sb_mysql_conn_error(struct sb_conn *con, MYSQL *my);
enum sb_db_status sb_mysql_stmt_error(struct sb_conn *con, MYSQL_STMT *ps);
enum sb_db_status sb_mysql_oom(struct sb_conn *con);
/* Frees the open result of a plain query or statement. */
void sb_mysql_drop_results(struct sb_mysql_conn *cp);

/* Rows changed by the last statement: mysql_affected_rows and
 * mysql_stmt_affected_rows give (my_ulonglong)-1 after an error or a
 * SELECT, which counts as none. */
static inline uint64_t sb_mysql_affected(my_ulonglong n)
{
    return n == (my_ulonglong)-1 ? 0 : (uint64_t)n;
}

/* Turns the stored result of a plain query (NULL for none, or on a
 * failure the connection reports) into the connection's result set. */
enum sb_db_status sb_mysql_take_result(struct sb_conn *con, MYSQL_RES *res,
                                       struct sb_sql_result *rs);

/* Non-blocking statements (drv_mysql_async.h) need MariaDB Connector/C's
 * mysql_*_start/_cont API; not available with other client libraries. */
#ifdef MARIADB_PACKAGE_VERSION_ID
#define SB_MYSQL_ASYNC 1
#endif

#endif /* SB_DRV_MYSQL_CONN_H */
