/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_DRIVER_H
#define SB_DRIVER_H

/*
 * Database drivers: one table of function pointers per driver (struct
 * sb_driver_ops), registered in one static list, and the common layer every
 * driver shares (connections, statements, result sets, error policy).
 *
 * A driver only talks to its client library and reports raw outcomes
 * (SB_DB_OK / SB_DB_ERROR / SB_DB_CONN_LOST, with the error in con->err).
 * The common layer (sb_driver.c) decides what an error means: ignorable
 * (--db-ignore-errors and the driver's defaults: the event is restarted and
 * counted), connection lost (reconnect with back-off, statements re-prepared
 * lazily, event restarted and counted) or fatal. It also counts reads,
 * writes and other queries, and emulates prepared statements on the client
 * when --db-ps-mode=disable or when the server refuses to prepare.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/sb_options.h"
#include "drivers/sb_sql_text.h"
#include "pure/sb_stmt_table.h"

/* Parameter and column types, sysbench.sql.type.* in Lua. */
enum sb_sql_type {
    SB_SQL_NONE = 0,
    SB_SQL_TINYINT,
    SB_SQL_SMALLINT,
    SB_SQL_INT,
    SB_SQL_BIGINT,
    SB_SQL_FLOAT,
    SB_SQL_DOUBLE,
    SB_SQL_TIME,
    SB_SQL_DATE,
    SB_SQL_DATETIME,
    SB_SQL_TIMESTAMP,
    SB_SQL_CHAR,
    SB_SQL_VARCHAR
};

/* Raw status of a driver call. */
enum sb_db_status {
    SB_DB_OK = 0,
    SB_DB_ERROR,      /* the statement failed; con->err says why */
    SB_DB_CONN_LOST,  /* the connection is gone; con->err says why */
    SB_DB_PENDING,    /* non-blocking call in flight: wait on con->wait */
    SB_DB_REFUSED     /* copy_begin: the server refuses its bulk path */
};

/* What a statement did, after the common layer applied the error policy. */
enum sb_db_outcome {
    SB_DB_DONE = 0,       /* success */
    SB_DB_IGNORED,        /* ignorable error: restart the event */
    SB_DB_RECONNECTED,    /* connection lost and re-established: restart */
    SB_DB_FATAL,          /* anything else: end the run */
    SB_DB_INFLIGHT        /* non-blocking: wait on con->wait, then
                           * sb_db_continue() */
};

struct sb_db_error {
    unsigned sql_errno;    /* driver's error number (0 when none) */
    char sql_state[6];     /* SQLSTATE, "" when the driver has none */
    char msg[512];
};

/* One bound parameter value. */
struct sb_bind {
    enum sb_sql_type type;
    bool is_null;
    int64_t i;             /* integer types */
    double d;              /* FLOAT, DOUBLE */
    /* CHAR/VARCHAR/TIME/DATE/...: owned buffer, always NUL-terminated at
     * len so that drivers passing C strings need not terminate it. */
    char *str;
    size_t len;            /* bytes used in str */
    size_t cap;            /* max length declared at bind_create (+1 for NUL) */
};

/* One column of the current row; ptr NULL means SQL NULL. Driver-owned,
 * valid until the next fetch or until the result set is freed. */
struct sb_value {
    const char *ptr;
    size_t len;
};

struct sb_conn;

/* The connection's current result set (one at a time, as in sysbench). */
struct sb_sql_result {
    struct sb_conn *con;
    bool active;           /* a result set with rows is open */
    uint64_t nrows;        /* number of rows (known when opened) */
    /* Rows changed by the last INSERT/UPDATE/DELETE (mysql_affected_rows,
     * PQcmdTuples, sqlite3_changes); 0 for statements returning rows. */
    uint64_t affected;
    unsigned nfields;
    struct sb_value *row;  /* current row after a successful fetch */
    void *priv;            /* driver's state */
};

struct sb_stmt {
    struct sb_conn *con;
    char *sql;             /* owned; original text with '?' placeholders */
    size_t sql_len;
    unsigned nparams;      /* number of '?' placeholders */
    /* Borrowed: nparams pointers set by bind_param, in placeholder order.
     * The values live in the Lua parameter objects (bind_create). */
    struct sb_bind *const *params;
    /* Bumped by every sb_db_bind, so a driver can tell whether the
     * parameter set changed since it last bound it to the server. */
    unsigned bind_gen;
    enum sb_query_kind kind;
    /* Its figures per statement (its normalised text's entry in the
     * counters' table, found once here), NULL when not kept. */
    struct sb_stmt_entry *stat;
    bool emulated;         /* client-side: params substituted into the text */
    uint64_t generation;   /* con->generation when prepared on the server */
    void *priv;            /* driver's state for a server-side statement */
    /* The connection's list of statements, doubly linked so that a close
     * is O(1): a connection of oltp_* at 16,000 tables holds 200,000. */
    struct sb_stmt *next, *prev;
};

/* Per-thread counters the common layer adds to (owned by the caller). */
struct sb_db_counters {
    uint64_t reads, writes, other, errors, reconnects;
    /* Figures per statement (--report-per-statement): the thread's table
     * (borrowed; written only by the thread driving these counters), NULL
     * when not kept. Every statement completed on a connection of these
     * counters is recorded under its normalised text. */
    struct sb_stmt_table *stmts;
    /* Ignored errors and reconnects per error code, for the report. */
    void (*on_error)(void *ctx, const struct sb_db_error *err, bool reconnect);
    void *ctx;
    /* Connections made with these counters are driven without blocking
     * (the connection multiplexer, sb_loop.h), when the driver can; the
     * SQL layer then sets waiting to the connection whose statement is in
     * flight before it yields to the multiplexer, which clears it. */
    bool nonblocking;
    struct sb_conn *waiting;
    /* Set-up of many connections at once (sb_db_preconnect.h): the batch
     * these counters belong to (NULL: none), their place in it, and the
     * connection the batch opened for them, until a connect takes it. */
    struct sb_db_preconnect *pre;
    unsigned pre_index;
    struct sb_conn *preopened;
};

struct sb_driver_ops;
struct sb_db_preconnect;

/*
 * What a connection driven without blocking waits for: readiness of fd
 * (POLLIN and/or POLLOUT in events). Set by the driver whenever it returns
 * SB_DB_PENDING.
 */
struct sb_db_wait {
    int fd;
    short events;
    /* The multiplexer's registration of fd (sb_loop.c), valid while
     * reg_gen equals the connection's generation (a reconnect opens
     * another socket). */
    bool registered;
    uint64_t reg_gen;
    /* A connect in flight (connect_start): how long the attempt may take
     * in all, in milliseconds (0: no limit), set by connect_start. */
    unsigned timeout_ms;
};

struct sb_conn {
    const struct sb_driver_ops *drv;
    void *priv;            /* driver's connection state */
    unsigned index;        /* connection number: picks the host round-robin */
    struct sb_db_error err;/* last error */
    struct sb_sql_result rs;   /* the current result set */
    uint64_t generation;   /* bumped by every reconnect */
    struct sb_stmt *stmts; /* statements to re-prepare after a reconnect */
    /* The last sb_db_prepare lost the connection and re-opened it: its
     * caller restarts the event, as after a query (SB_DB_RECONNECTED). */
    bool prepare_reconnected;
    /* The last sb_db_prepare lost the connection as the run was being cut
     * (deadline or signal): nothing re-opened, no error counted; its
     * caller ends the event, which the stop leaves uncounted, as after a
     * query the policy ignores for the same reason. */
    bool prepare_cut;
    struct sb_db_counters *counters; /* borrowed; never NULL */
    char *last_query;      /* owned copy of the failing query, for messages */
    /* Driven without blocking (sb_db_query_start and friends; set at
     * connect from counters->nonblocking when the driver can). */
    bool nonblocking;
    struct sb_db_wait wait;
    /* The statement in flight, for counting and error messages when it
     * completes: its text (borrowed from the caller until completion). */
    const char *pending_sql;
    size_t pending_len;
    enum sb_query_kind pending_kind;
    /* Figures per statement: the in-flight statement's entry (NULL: not
     * kept) and when it was sent. */
    struct sb_stmt_entry *pending_stat;
    uint64_t pending_t0;
    /* Cancelling (sb_db_cancel.h): a statement is in flight (busy), the
     * number of the statement started last, the number of the one a
     * cancel was sent for, and the list of open connections. */
    unsigned busy;
    uint64_t stmt_seq, cancel_seq;
    struct sb_conn *reg_prev, *reg_next;
    /* Whether the last statement was cut by a cancel, and whether it had
     * completed on the server all the same (its changes stand: a cancel
     * that came too late). Set by the common layer after every
     * statement. */
    bool cut, cut_done;
    /* Cancels at the deadline leave this connection's statement running
     * (a signal's still cancel it): a bulk insert's last rows, counted
     * as events already (sb_db_bulk.h). */
    bool keep_at_deadline;
    /* Bulk inserts (sb_db_bulk.h): NULL until the first one. */
    struct sb_db_bulk *bulk;
    /* Ends what the bulk insert keeps open on the connection (a COPY, a
     * transaction), before any other statement (sb_db_bulk_pause; set
     * with bulk by sb_db_bulk_init). The statements call it through this
     * pointer: they stand below the bulk inserts, which run statements,
     * and do not name them. */
    enum sb_db_outcome (*bulk_pause)(struct sb_conn *con);
};

struct sb_driver_ops {
    const char *name;              /* "mysql", "pgsql", "sqlite" */
    const char *description;       /* "MySQL driver" */
    const struct sb_opt_def *options; /* the driver's options, {NULL}-ended */
    /* Name of the driver's own ignore-list option, e.g. "mysql-ignore-errors",
     * or NULL. Its default in `options` is the list ignorable by default. */
    const char *ignore_option;

    /* Once, in the main thread, after options are parsed; reads the
     * driver's options from `opts` into the driver's own read-only config.
     * Returns 0, or -1 with a one-line reason in err. */
    int (*init)(const struct sb_optset *opts, char *err, size_t errlen);
    void (*done)(void);
    /* Per thread, before the first and after the last call on it. */
    int (*thread_init)(void);
    void (*thread_done)(void);

    /* Opens con->priv; picks host/port/socket con->index round-robin. */
    enum sb_db_status (*connect)(struct sb_conn *con);
    /* Non-blocking connect, NULL when the driver has none: connect_start
     * begins what connect does and returns its outcome, or SB_DB_PENDING
     * with con->wait set (fd, events, timeout_ms); connect_cont goes on
     * once con->wait.fd is ready, or with timed_out once the attempt's
     * timeout passed (it then fails), until it returns anything but
     * SB_DB_PENDING. Only for a connection with con->nonblocking. On
     * failure con->priv is freed; disconnect also abandons an attempt
     * still in flight. */
    enum sb_db_status (*connect_start)(struct sb_conn *con);
    enum sb_db_status (*connect_cont)(struct sb_conn *con, bool timed_out);
    /* Closes con->priv (statements are already closed); never fails. */
    void (*disconnect)(struct sb_conn *con);

    /* Runs a statement text. If it returns rows, opens rs (active, nrows,
     * nfields). The common layer has already freed the previous result,
     * so rs is inactive and empty on entry (the same holds for execute). */
    enum sb_db_status (*query)(struct sb_conn *con, const char *sql,
                               size_t len, struct sb_sql_result *rs);

    /* Server-side prepare of st->sql ('?' placeholders; the driver rewrites
     * them if its server wants another syntax). May set st->emulated and
     * return SB_DB_OK when the server cannot prepare this statement. */
    enum sb_db_status (*prepare)(struct sb_stmt *st);
    /* Executes a prepared statement with st->params. Opens rs if rows. */
    enum sb_db_status (*execute)(struct sb_stmt *st, struct sb_sql_result *rs);
    /* Frees st->priv. */
    void (*close)(struct sb_stmt *st);

    /* Non-blocking execution, NULL when the driver has none (its
     * connections are then always driven blocking). Only called on a
     * connection opened with con->nonblocking. query_start and
     * execute_start send the statement; like query and execute they
     * complete it (all rows received and stored) or return SB_DB_PENDING
     * with con->wait set, after which resume is called once con->wait.fd
     * is ready, until it returns anything but SB_DB_PENDING. */
    enum sb_db_status (*query_start)(struct sb_conn *con, const char *sql,
                                     size_t len, struct sb_sql_result *rs);
    enum sb_db_status (*execute_start)(struct sb_stmt *st, struct sb_sql_result *rs);
    enum sb_db_status (*resume)(struct sb_conn *con, struct sb_sql_result *rs);

    /* Fills rs->row with the next row: returns 1, 0 at the end, -1 on error
     * (con->err set). */
    int (*fetch_row)(struct sb_sql_result *rs);
    /* Releases the driver's rows (rs->priv); called only for an active
     * set, which sb_db_free_result then empties and deactivates. */
    void (*free_result)(struct sb_sql_result *rs);

    /* Writes text, quoted as a string literal for this server (with the
     * surrounding quotes), to dst (capacity >= 2*len+3). Returns the length.
     * NULL means SQL-standard quoting (quotes doubled). */
    size_t (*quote)(struct sb_conn *con, const char *src, size_t len, char *dst);

    /*
     * The server's bulk load (sb_db_bulk.h), NULL when it has none.
     * copy_begin opens a load into table (as the INSERT head wrote it)
     * and the columns cols ("(a, b)", or "" for all), or returns
     * SB_DB_REFUSED when the server refuses its bulk path (con->err says
     * why; the loader then sends INSERTs). copy_data sends nrows rows,
     * whole lines of tab-separated text (\N for NULL, backslash escapes
     * for backslash, tab, newline, carriage return). copy_end closes the
     * load, abort dropping what it holds. No other statement runs on con
     * between copy_begin and copy_end. The statement boundaries differ:
     * PostgreSQL's COPY FROM STDIN is one statement from copy_begin to
     * copy_end, while each copy_data of MySQL's is a LOAD DATA LOCAL
     * INFILE of its own; copy_chunk is the size of copy_data's text the
     * loader aims at.
     */
    enum sb_db_status (*copy_begin)(struct sb_conn *con, const char *table, const char *cols);
    enum sb_db_status (*copy_data)(struct sb_conn *con, const char *data, size_t len,
                                   uint64_t nrows);
    enum sb_db_status (*copy_end)(struct sb_conn *con, bool abort);
    size_t copy_chunk;
    const char *copy_name;      /* "COPY", "LOAD DATA LOCAL INFILE" */
    /*
     * The bulk load's binary form (PostgreSQL's COPY ... WITH (FORMAT
     * binary)), NULL when the driver has none. copy_types learns how the
     * columns cols of table take binary values: n entries of enum
     * sb_rowgen_bin (pure/sb_rowgen.h) in bin. It returns 0, or -1 when
     * a column's type has no binary form here, cols does not name n
     * columns, or the lookup failed; a failure leaves con, and any
     * transaction open on it, as they were (the loader then sends text).
     * copy_begin_binary is copy_begin for such rows: the driver sends
     * the format's header, copy_end its trailer, and copy_data takes the
     * rows as sb_rowgen_bin writes them.
     */
    int (*copy_types)(struct sb_conn *con, const char *table, const char *cols, uint8_t *bin,
                      unsigned n);
    enum sb_db_status (*copy_begin_binary)(struct sb_conn *con, const char *table,
                                           const char *cols);
    /* The longest statement text the server takes (MySQL's
     * max_allowed_packet), 0 when unknown; NULL: unknown. */
    size_t (*statement_limit)(struct sb_conn *con);

    /* Whether a backslash escapes the next character in a string
     * literal on con ('It\'s'): MySQL unless its sql_mode has
     * NO_BACKSLASH_ESCAPES, PostgreSQL with standard_conforming_strings
     * off. NULL: never. */
    bool (*backslash_escapes)(struct sb_conn *con);

    /* The version of the client library the driver was built with (for
     * result files): writes it into buf (capacity len) and returns 0, or
     * returns -1 if unknown. Needs no connection and no init. May be NULL. */
    int (*client_version)(char *buf, size_t len);

    /* The server's version string, or NULL. */
    const char *(*server_version)(struct sb_conn *con);
    /* Where the server listens, for finding its process (CPU accounting):
     * writes "unix:/path" or "tcp:HOST:PORT" into buf; returns 0, or -1 if
     * unknown. May be NULL. */
    int (*server_endpoint)(struct sb_conn *con, char *buf, size_t len);
    /* The server forks a process per connection (PostgreSQL), so its CPU
     * is the listening process's and all its children's. */
    bool server_forks;
    /* A statement returning the server's settings as rows of (name,
     * value), recorded in the result files (sb_server_info.h); NULL when
     * the driver has none. */
    const char *settings_query;
    /* Whether a transaction is open on con (also an aborted one), as the
     * client library knows it; NULL when it cannot tell. After an
     * ignorable error the common layer sends ROLLBACK when this says so,
     * so that the restarted event starts clean. */
    bool (*in_transaction)(struct sb_conn *con);
    /* Asks the server to cancel the statement in flight on con, from
     * another thread than con's (which is blocked in, or polling for, the
     * statement); NULL when the driver cannot. The driver may keep state
     * across one sweep over many connections in *sweep (NULL at first;
     * e.g. the side connection that sends MariaDB's KILL QUERY), freed by
     * cancel_end. Returns true when the cancel was sent. */
    bool (*cancel)(struct sb_conn *con, void **sweep);
    void (*cancel_end)(void *sweep);
};

/* ------------------------------------------------------------ registry */

/* Every compiled-in driver, NULL-terminated, in a fixed order. */
const struct sb_driver_ops *const *sb_driver_list(void);

/* Finds a compiled-in driver by name, or NULL. */
const struct sb_driver_ops *sb_driver_find(const char *name);

/* ------------------------------------------------------- common policy */

/* Database options shared by every driver (--db-driver, --db-ps-mode,
 * --db-ignore-errors, --db-debug). */
extern const struct sb_opt_def sb_db_options[];

/*
 * Reads the common options and the chosen driver's, initialises the driver
 * and fixes the error policy. Main thread, once, before any connection.
 * Returns the driver, or NULL with a one-line reason in err.
 */
const struct sb_driver_ops *sb_db_init(const struct sb_optset *general,
                                       const struct sb_optset *driver_opts,
                                       const char *driver_name,
                                       char *err, size_t errlen);
void sb_db_done(const struct sb_driver_ops *drv);
/* --db-debug. */
bool sb_db_debug(void);

/* For the layer's own modules (sb_db_init): fixes the error policy
 * (sb_driver_policy.c) and the statement mode from the common options
 * (--db-ps-mode, --db-debug, --db-reconnect-timeout, --db-ignore-errors)
 * and drv's ignore-list option (its declared default when not given).
 * Main thread, before any connection. Returns 0, or -1 with a one-line
 * reason in err. */
int sb_db_policy_configure(const struct sb_optset *general,
                           const struct sb_optset *driver_opts,
                           const struct sb_driver_ops *drv, char *err, size_t errlen);
/* --db-ps-mode=disable: statements are emulated client-side. */
bool sb_db_ps_disabled(void);
/* For the layer's own modules: keeps a copy of the statement text sql
 * (len bytes; NULL: none) as con->last_query, for the error line. */
void sb_db_remember_query(struct sb_conn *con, const char *sql, size_t len);

/* For the layer's own modules (sb_db_bulk.c): the error policy applied to
 * the driver status st of a statement (text sql, for messages) that was
 * marked busy (sb_db_cancel_busy) while it ran: cut, ignorable,
 * reconnect (done here, as for a query) or fatal. */
enum sb_db_outcome sb_db_apply_policy(struct sb_conn *con, enum sb_db_status st,
                                      const char *sql, size_t len);

/* Connects a new connection. Returns NULL and fills *err on failure. The
 * counters are borrowed and must outlive the connection. */
struct sb_conn *sb_db_connect(const struct sb_driver_ops *drv,
                              struct sb_db_counters *counters,
                              struct sb_db_error *err);
void sb_db_disconnect(struct sb_conn *con);
/* Drops and re-opens the connection (con:reconnect()). */
enum sb_db_outcome sb_db_reconnect(struct sb_conn *con);

/* Runs a query text; frees the previous result set first. If rows come
 * back, con->rs is active. */
enum sb_db_outcome sb_db_query(struct sb_conn *con, const char *sql, size_t len);

/*
 * The non-blocking forms of sb_db_query and sb_db_execute, for a
 * connection with con->nonblocking: they return SB_DB_INFLIGHT while the
 * statement is in flight (wait until con->wait is ready, then call
 * sb_db_continue until it returns anything else), or the outcome. The
 * text given to sb_db_query_start must stay valid until completion. On a
 * blocking connection they are sb_db_query and sb_db_execute.
 */
enum sb_db_outcome sb_db_query_start(struct sb_conn *con, const char *sql, size_t len);
enum sb_db_outcome sb_db_execute_start(struct sb_stmt *st);
enum sb_db_outcome sb_db_continue(struct sb_conn *con);
/* Completes an in-flight statement by waiting in poll(): for callers that
 * cannot yield. Returns its outcome. */
enum sb_db_outcome sb_db_complete(struct sb_conn *con);

/* Creates a statement (server-side unless --db-ps-mode=disable or the
 * server refuses). Returns NULL with con->err set on an error; when the
 * connection was lost, it is re-opened as for a query (counted as a
 * reconnect) and con->prepare_reconnected is set: the statement was not
 * made and the caller restarts the event. */
struct sb_stmt *sb_db_prepare(struct sb_conn *con, const char *sql, size_t len);
/* (When the run was being cut as the connection went, con->prepare_cut is
 * set instead: the caller ends the event the same way.) */
/* Binds params (the array and the values are borrowed and must outlive the
 * executions). n must equal st->nparams. */
void sb_db_bind(struct sb_stmt *st, struct sb_bind *const *params, unsigned n);
enum sb_db_outcome sb_db_execute(struct sb_stmt *st);
void sb_db_close(struct sb_stmt *st);

/* Next row of con->rs: 1 row ready in con->rs.row, 0 end, -1 error. */
int sb_db_fetch(struct sb_conn *con);
void sb_db_free_result(struct sb_conn *con);

/* Counts an ignored error: one the policy calls ignorable, or one it called
 * fatal but the script declared ignorable (sysbench.hooks.
 * sql_error_ignorable). Then, when the error left a transaction open
 * (an aborted one on PostgreSQL, a lock-wait timeout on MySQL, a busy
 * SQLite database), rolls it back, keeping con->err as it was. */
void sb_db_count_ignored(struct sb_conn *con);

/* Formats the fatal error line for con's last error:
 * "<driver>: error <errno> (<state>): <msg> in query: <query>". */
void sb_db_format_error(const struct sb_conn *con, char *buf, size_t len);
/* The same line for an error without a connection (a failed connect);
 * query may be NULL. */
void sb_db_format_err(const char *driver, const struct sb_db_error *err,
                      const char *query, char *buf, size_t len);

/* Option helpers the drivers share when they copy their options at init.
 * An empty text option means "not given" and yields NULL. */
char *sb_db_opt_strdup(const struct sb_optset *opts, const char *name);
/*
 * The password of a driver: --NAME (e.g. mysql-password), or the secret
 * read from the file --NAME-file names (core/sb_secret_file.h: the file
 * less its final line end), so that it need not stand in the command
 * line. Sets *out to a malloc'd copy (free it with sb_secret_free), NULL
 * when neither is given (the client library's own sources apply: option
 * files, PGPASSWORD, ~/.pgpass). Returns 0, or -1 with one line in err
 * when both are given or the file cannot be used.
 */
int sb_db_opt_password(const struct sb_optset *opts, const char *name, char **out, char *err,
                       size_t errlen);
/* Copies a list option, leaving out empty items ("a,,b"); 0 or -1 (out of
 * memory, with nothing left allocated). */
int sb_db_opt_copy_list(const struct sb_optset *opts, const char *name,
                        char ***out, size_t *nout);
void sb_db_free_list(char **list, size_t n);

#endif /* SB_DRIVER_H */
