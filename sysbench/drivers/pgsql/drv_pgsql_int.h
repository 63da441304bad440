/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_DRV_PGSQL_INT_H
#define SB_DRV_PGSQL_INT_H

/*
 * What the two files of the PostgreSQL driver share: the parsed options,
 * the connection and statement structures, and the error helpers.
 * drv_pgsql_conn.c owns the options, connecting and disconnecting and the
 * helpers; drv_pgsql.c owns statements, result sets, non-blocking
 * execution and the driver's ops table; drv_pgsql_copy.c the bulk load.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdbool.h>
#include <stddef.h>

#include <libpq-fe.h>

#include "drivers/sb_driver.h"
#include "drivers/pgsql/drv_pgsql_env.h"
#include "core/sb_options.h"

/* Room for one formatted number: "%.17g" of a double or an int64. */
#define SB_PG_NUMBUF 32

/* Parsed options: written once by init() in the main thread, read-only
 * while workers run, freed by done(). */
struct sb_pgsql_config {
    char **hosts;
    size_t nhosts;
    char **ports;
    size_t nports;
    char *user;
    char *password;
    char *db;
    char *sslmode;
    /* Where host, port, user and database come from, for error messages:
     * "--pgsql-host", "PGHOST", "service NAME" or "the default" (1.0's). */
    char src[SB_PG_NPARAMS][64];
    /* TLS files, passed to libpq as the sslrootcert, sslcert, sslkey and
     * sslcrl keywords (NULL: libpq's default, e.g. ~/.postgresql/). */
    char *ssl_file[4];
    char connect_timeout[24];
};

extern struct sb_pgsql_config sb_pgsql_cfg;

struct sb_pgsql_stmt;

struct sb_pgsql_conn {
    PGconn *pg;
    PGresult *res;              /* the open result set, if any */
    int cur;                    /* next row of res to fetch */
    struct sb_value *row;       /* reused from one result to the next */
    unsigned rowcap;
    char *qbuf;                 /* NUL-terminated copy of a query text */
    size_t qcap;
    unsigned long next_stmt_id; /* names statements uniquely per connection */
    struct sb_pgsql_stmt *stmts;/* statements prepared on this PGconn */
    char endpoint[300];
    /* Non-blocking statements: the result kept so far (PQexec keeps the
     * last one, or the first error), and a send not yet flushed. */
    PGresult *alast;
    bool flushing;
    /* Made at connect: PQcancel may then be called from any thread
     * (libpq documents it as thread-safe and async-signal-safe). */
    PGcancel *cancel;
    /* "DEALLOCATE n;" of statements closed since the last statement,
     * sent in one round trip before the next one, dropped with the
     * session if the connection ends first (sb_pgsql_close). */
    char *dealloc;
    size_t dealloc_len, dealloc_cap;
    /* A COPY FROM STDIN is open (drv_pgsql_copy.c), in binary format,
     * on a connection that was non-blocking before it (COPY runs
     * blocking). */
    bool copying, copy_binary, copy_was_nonblocking;
};

struct sb_pgsql_stmt {
    struct sb_pgsql_conn *owner;/* NULL once its connection is gone */
    struct sb_pgsql_stmt *next; /* owner's list */
    char name[32];
    unsigned nparams;
    const char **values;        /* per execution: text of each parameter */
    char *numbuf;               /* nparams * SB_PG_NUMBUF formatted numbers */
};

/* The driver's options ({NULL}-ended), for the ops table. */
extern const struct sb_opt_def sb_pgsql_options[];

/* The driver's init and done, connect (blocking, or started and
 * continued without blocking) and disconnect (sb_driver.h). */
int sb_pgsql_init(const struct sb_optset *opts, char *err, size_t errlen);
void sb_pgsql_done(void);
enum sb_db_status sb_pgsql_connect(struct sb_conn *con);
enum sb_db_status sb_pgsql_connect_start(struct sb_conn *con);
enum sb_db_status sb_pgsql_connect_cont(struct sb_conn *con, bool timed_out);
void sb_pgsql_disconnect(struct sb_conn *con);

/* Copies msg's first non-empty line into dst (capacity cap), without
 * libpq's severity prefixes ("FATAL:  ", "ERROR:  ", also after libpq's
 * "connection to server ... failed: ") and trailing newline: the word
 * FATAL on a line is sysbench's, for a run that fails. */
void sb_pgsql_copy_msg(char *dst, size_t cap, const char *msg);
/* Sets con->err from a SQLSTATE (NULL: none) and a libpq message. */
void sb_pgsql_set_err(struct sb_conn *con, const char *state, const char *msg);
/* Sets con->err to "out of memory" (53200); returns SB_DB_ERROR. */
enum sb_db_status sb_pgsql_oom(struct sb_conn *con);
/* Whether a SQLSTATE means the connection is gone (class 08, 57P01-03). */
bool sb_pgsql_state_is_conn_lost(const char *state);
/* Records the failure described by res (may be NULL; owned: cleared
 * here) on con and says whether the connection survived it
 * (SB_DB_ERROR) or not (SB_DB_CONN_LOST). */
enum sb_db_status sb_pgsql_result_error(struct sb_conn *con, PGconn *pg, PGresult *res);
/* The bulk load (the copy_* ops of sb_driver.h): COPY ... FROM STDIN in
 * text or binary format, rows sent with PQputCopyData; the target
 * columns' binary forms from the catalog (drv_pgsql_copy.c). */
enum sb_db_status sb_pgsql_copy_begin(struct sb_conn *con, const char *table, const char *cols);
enum sb_db_status sb_pgsql_copy_begin_binary(struct sb_conn *con, const char *table,
                                             const char *cols);
int sb_pgsql_copy_types(struct sb_conn *con, const char *table, const char *cols, uint8_t *bin,
                        unsigned n);
enum sb_db_status sb_pgsql_copy_data(struct sb_conn *con, const char *data, size_t len,
                                     uint64_t nrows);
enum sb_db_status sb_pgsql_copy_end(struct sb_conn *con, bool abort);

/* libpq's notice receiver for every connection, set before the
 * connection is started: what the server says outside a statement's
 * result (a NOTICE or WARNING, the reason it ends a session) goes to our
 * log at --verbosity=4, never to stderr as libpq's default would print
 * it ("FATAL:  terminating connection ..." in a run that reconnects and
 * succeeds). */
void sb_pgsql_notice(void *arg, const PGresult *res);

#endif /* SB_DRV_PGSQL_INT_H */
