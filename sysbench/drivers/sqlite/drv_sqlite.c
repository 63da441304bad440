/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The embedded SQLite driver, so that a first run needs no server.
 *
 * Each connection is its own sqlite3 handle on one database file
 * (--sqlite-db), opened in WAL mode with a busy timeout; many threads with
 * one connection each is the normal case. SQLite locks the whole database
 * for writing, so writers collide: SQLITE_BUSY and SQLITE_LOCKED are
 * ignorable by default (the event is restarted and counted).
 *
 * Most such collisions come from deferred transactions: two of them read,
 * then both try to upgrade to the write lock, and in WAL mode the loser
 * fails at once (the busy handler cannot help: its snapshot is stale).
 * So each connection predicts from its previous transaction: when that
 * one wrote, a script's plain BEGIN becomes BEGIN IMMEDIATE, which waits
 * for the write lock in the busy handler before reading anything.
 * Read-only transactions stay deferred and run concurrently; the first
 * write in a deferred one switches the prediction for the next. A new
 * connection predicts a write.
 *
 * Result rows are copied into a per-connection arena as they are stepped,
 * so the row count is known when the result set opens (rs.nrows, as the
 * server drivers report it) and the statement is free for the next
 * execution at once. The arena is reused, so steady-state queries do not
 * allocate.
 */
#include "config.h"

#include <ctype.h>
#include <sqlite3.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "drivers/sb_driver.h"
#include "core/sb_clock.h"
#include "core/sb_log.h"

static const struct sb_opt_def sqlite_options[] = {
    {"sqlite-db", "SQLite database file", "sbtest.db", SB_ARG_FILE},
    {"sqlite-busy-timeout", "milliseconds a statement waits for a lock before failing with SQLITE_BUSY", "5000", SB_ARG_INT},
    {"sqlite-journal-mode", "journal mode (PRAGMA journal_mode)", "wal", SB_ARG_STRING},
    {"sqlite-synchronous", "PRAGMA synchronous: off, normal or full", "normal", SB_ARG_STRING},
    {"sqlite-ignore-errors", "SQLite result codes to ignore (restart the event), or 'all'", "5,6", SB_ARG_LIST},
    {NULL, NULL, NULL, 0}
};

/* Read-only after init. */
static struct {
    char path[4096];
    int busy_timeout;
    char journal_mode[32];
    char synchronous[32];
} cfg;

struct cell {
    size_t off;
    size_t len;
    int null;
};

/* Buffered rows of the current result set. */
struct rows {
    char *data;
    size_t used, cap;
    struct cell *cells;
    size_t ncells, cellcap;
    struct sb_value *row;
    unsigned rowcap;
    uint64_t cursor;
};

struct sqlite_conn {
    sqlite3 *db;
    struct rows rows;
    /* Write-lock predictor: the open transaction tried to write, and
     * whether the last finished one did (so the next BEGIN takes the
     * write lock up front). */
    bool trx_wrote;
    bool predict_write;
    /* The busy handler's view: the connection whose cancel mark it
     * reads, and when the current wait for a lock began. */
    const struct sb_conn *con;
    uint64_t busy_since_ns;
};

/* VM instructions between two looks at the cancel mark: a point select
 * runs a few dozen, so the check costs nothing on the per-query path. */
#define SQLITE_CANCEL_CHECK_OPS 1000

/* Progress handler: stops the running statement when a cancel sweep
 * marked it (sb_db_cancel.c sets cancel_seq to the statement's
 * stmt_seq before calling sqlite_cancel). Runs in the owning thread. */
static int sqlite_progress(void *arg)
{
    const struct sb_conn *con = arg;
    uint64_t seq = __atomic_load_n(&con->cancel_seq, __ATOMIC_ACQUIRE);

    /* 0: never cancelled (statements before the first marked one, such
     * as the PRAGMAs at connect, run with stmt_seq 0 too). */
    return seq != 0 && seq == con->stmt_seq;
}

/*
 * Busy handler: waits for a lock as sqlite3_busy_timeout does (SQLite's
 * default handler sleeps 1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, then 100
 * ms between tries, up to the timeout), but gives up as soon as a cancel
 * sweep marked the statement. sqlite3_interrupt does not end a wait for a
 * lock, so a statement queued behind another connection's write lock at
 * the deadline would wait out the whole timeout, and thread_done's
 * flushes after it: 4 bulk_insert threads outlived the run's 5-s grace
 * under ASan. Returns 0 to give up (the statement fails with SQLITE_BUSY).
 */
static int sqlite_busy(void *arg, int count)
{
    static const int delays_ms[] = {1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100};
    const int ndelays = (int)(sizeof(delays_ms) / sizeof(delays_ms[0]));
    struct sqlite_conn *sc = arg;
    uint64_t now = sb_now_ns(), waited_ms;
    int delay;

    if (count == 0)
        sc->busy_since_ns = now;
    if (sc->con != NULL && sqlite_progress((void *)sc->con) != 0)
        return 0;
    waited_ms = (now - sc->busy_since_ns) / SB_NS_PER_MS;
    if (waited_ms >= (uint64_t)cfg.busy_timeout)
        return 0;
    delay = delays_ms[count < ndelays ? count : ndelays - 1];
    if ((uint64_t)delay > (uint64_t)cfg.busy_timeout - waited_ms)
        delay = (int)((uint64_t)cfg.busy_timeout - waited_ms);
    sqlite3_sleep(delay);
    return 1;
}

/* Whether `value` is one of the space-separated words (any case). */
static bool one_of(const char *value, const char *words)
{
    size_t n = strlen(value);

    while (*words) {
        size_t w = strcspn(words, " ");
        if (w == n && n > 0 && strncasecmp(value, words, n) == 0)
            return true;
        words += w + (words[w] == ' ');
    }
    return false;
}

static int sqlite_init(const struct sb_optset *opts, char *err, size_t errlen)
{
    const char *s = sb_optset_str(opts, "sqlite-db");
    char quoted[64];

    if (s == NULL || *s == '\0' || strlen(s) >= sizeof(cfg.path)) {
        snprintf(err, errlen, "invalid value for --sqlite-db: expected a file name");
        return -1;
    }
    snprintf(cfg.path, sizeof(cfg.path), "%s", s);
    if (sb_optset_int(opts, "sqlite-busy-timeout") < 0) {
        snprintf(err, errlen, "invalid value for --sqlite-busy-timeout: expected milliseconds");
        return -1;
    }
    cfg.busy_timeout = (int)sb_optset_int(opts, "sqlite-busy-timeout");
    s = sb_optset_str(opts, "sqlite-journal-mode");
    snprintf(cfg.journal_mode, sizeof(cfg.journal_mode), "%s", s ? s : "wal");
    s = sb_optset_str(opts, "sqlite-synchronous");
    snprintf(cfg.synchronous, sizeof(cfg.synchronous), "%s", s ? s : "normal");
    /* Pragmas are spliced into SQL text, and SQLite ignores a value it
     * does not know: accept only the values the pragmas define. */
    if (!one_of(cfg.journal_mode, "delete truncate persist memory wal off")) {
        snprintf(err, errlen, "invalid value '%s' for --sqlite-journal-mode: expected delete, "
                 "truncate, persist, memory, wal or off",
                 sb_log_escape(cfg.journal_mode, quoted, sizeof(quoted), false));
        return -1;
    }
    if (!one_of(cfg.synchronous, "off normal full extra 0 1 2 3")) {
        snprintf(err, errlen, "invalid value '%s' for --sqlite-synchronous: expected off, "
                 "normal, full, extra or 0 to 3",
                 sb_log_escape(cfg.synchronous, quoted, sizeof(quoted), false));
        return -1;
    }
    return 0;
}

static void set_error(struct sb_conn *con, sqlite3 *db, int rc)
{
    con->err.sql_errno = (unsigned)(rc & 0xff);
    con->err.sql_state[0] = '\0';
    snprintf(con->err.msg, sizeof(con->err.msg), "%s",
             db != NULL ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
}

/*
 * Runs the connection pragmas, retrying while the database is busy.
 * Switching the journal mode needs the database to itself, and SQLite
 * reports SQLITE_BUSY at once rather than through the busy handler when
 * another connection holds a lock, which happens whenever several threads
 * connect to a fresh file together. Retry every millisecond up to the
 * busy timeout so a connect never fails on that race.
 */
static enum sb_db_status exec_pragmas(struct sb_conn *con, sqlite3 *db, const char *sql)
{
    int waited_ms = 0;

    for (;;) {
        int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
        if (rc == SQLITE_OK)
            return SB_DB_OK;
        if (((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED) ||
            waited_ms >= cfg.busy_timeout) {
            set_error(con, db, rc);
            return SB_DB_ERROR;
        }
        sqlite3_sleep(1);
        waited_ms++;
    }
}

static enum sb_db_status sqlite_connect(struct sb_conn *con)
{
    struct sqlite_conn *sc = calloc(1, sizeof(*sc));
    char sql[128];
    int rc;

    if (sc == NULL) {
        snprintf(con->err.msg, sizeof(con->err.msg), "out of memory");
        return SB_DB_ERROR;
    }
    /* With no history, assume the first transaction writes: all threads
     * start their first transactions together, and a wrong guess costs
     * one transaction holding the write lock, while a deferred guess costs
     * a lock collision per thread at start. */
    sc->predict_write = true;
    /* NOMUTEX: each handle is used by one thread only. */
    rc = sqlite3_open_v2(cfg.path, &sc->db,
                         SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                         NULL);
    if (rc != SQLITE_OK) {
        set_error(con, sc->db, rc);
        snprintf(con->err.msg, sizeof(con->err.msg), "cannot open SQLite database '%.300s': %.150s",
                 cfg.path, sc->db ? sqlite3_errmsg(sc->db) : sqlite3_errstr(rc));
        sqlite3_close(sc->db);
        free(sc);
        return SB_DB_ERROR;
    }
    sc->con = con;
    sqlite3_busy_handler(sc->db, sqlite_busy, sc);
    sqlite3_progress_handler(sc->db, SQLITE_CANCEL_CHECK_OPS, sqlite_progress, con);
    snprintf(sql, sizeof(sql), "PRAGMA journal_mode=%s; PRAGMA synchronous=%s;",
             cfg.journal_mode, cfg.synchronous);
    if (exec_pragmas(con, sc->db, sql) != SB_DB_OK) {
        char msg[sizeof(con->err.msg)];
        snprintf(msg, sizeof(msg), "%s", con->err.msg);
        snprintf(con->err.msg, sizeof(con->err.msg), "cannot open SQLite database '%.300s': %.150s",
                 cfg.path, msg);
        sqlite3_close(sc->db);
        free(sc);
        return SB_DB_ERROR;
    }
    con->priv = sc;
    return SB_DB_OK;
}

static void sqlite_disconnect(struct sb_conn *con)
{
    struct sqlite_conn *sc = con->priv;

    if (sc == NULL)
        return;
    sqlite3_close(sc->db);
    free(sc->rows.data);
    free(sc->rows.cells);
    free(sc->rows.row);
    free(sc);
    con->priv = NULL;
}

/* Appends one column value to the arena. Returns 0 or -1 (no memory). */
static int push_cell(struct rows *r, sqlite3_stmt *stmt, int col)
{
    struct cell *c;
    const unsigned char *text;
    size_t len;

    if (r->ncells == r->cellcap) {
        size_t ncap = r->cellcap ? r->cellcap * 2 : 64;
        struct cell *nc = realloc(r->cells, ncap * sizeof(*nc));
        if (nc == NULL)
            return -1;
        r->cells = nc;
        r->cellcap = ncap;
    }
    c = &r->cells[r->ncells++];
    if (sqlite3_column_type(stmt, col) == SQLITE_NULL) {
        c->null = 1;
        c->off = c->len = 0;
        return 0;
    }
    text = sqlite3_column_text(stmt, col);
    len = (size_t)sqlite3_column_bytes(stmt, col);
    if (r->used + len + 1 > r->cap) {
        size_t ncap = (r->cap + len + 1) * 2;
        char *nd = realloc(r->data, ncap);
        if (nd == NULL)
            return -1;
        r->data = nd;
        r->cap = ncap;
    }
    c->null = 0;
    c->off = r->used;
    c->len = len;
    if (len > 0)
        memcpy(r->data + r->used, text, len);
    r->data[r->used + len] = '\0';
    r->used += len + 1;
    return 0;
}

/*
 * Steps a statement to its end. Rows, if any, are buffered and open the
 * connection's result set.
 */
/* Updates the write-lock predictor after stmt ran (or failed): was_in
 * says whether a transaction was open before it. */
static void track_transaction(struct sqlite_conn *sc, sqlite3_stmt *stmt, bool was_in)
{
    bool in = !sqlite3_get_autocommit(sc->db);

    /* A write that failed on the lock counts: it is what BEGIN IMMEDIATE
     * would have avoided. */
    if ((was_in || in) && !sqlite3_stmt_readonly(stmt))
        sc->trx_wrote = true;
    if (was_in && !in) {
        sc->predict_write = sc->trx_wrote;
        sc->trx_wrote = false;
    }
}

static enum sb_db_status step_stmt(struct sb_conn *con, sqlite3_stmt *stmt,
                                   struct sb_sql_result *rs);

static enum sb_db_status run_stmt(struct sb_conn *con, sqlite3_stmt *stmt,
                                  struct sb_sql_result *rs)
{
    struct sqlite_conn *sc = con->priv;
    bool was_in = !sqlite3_get_autocommit(sc->db);
    enum sb_db_status st = step_stmt(con, stmt, rs);

    track_transaction(sc, stmt, was_in);
    return st;
}

/* Whether sql is a plain BEGIN [TRANSACTION] [;] (any case, any spaces). */
static bool is_plain_begin(const char *sql, size_t len)
{
    const char *p = sql, *end = sql + len;
    static const char *const words[] = {"BEGIN", "TRANSACTION"};

    for (size_t w = 0; w < 2; w++) {
        size_t n = strlen(words[w]);
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
            p++;
        if ((size_t)(end - p) >= n && strncasecmp(p, words[w], n) == 0 &&
            (end - p == (ptrdiff_t)n || !isalnum((unsigned char)p[n]))) {
            p += n;
        } else if (w == 0) {
            return false;
        }
    }
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == ';'))
        p++;
    return p == end;
}

static enum sb_db_status step_stmt(struct sb_conn *con, sqlite3_stmt *stmt,
                                   struct sb_sql_result *rs)
{
    struct sqlite_conn *sc = con->priv;
    struct rows *r = &sc->rows;
    int ncols = sqlite3_column_count(stmt);
    uint64_t nrows = 0;
    int total0 = sqlite3_total_changes(sc->db);
    int rc;

    r->used = 0;
    r->ncells = 0;
    r->cursor = 0;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        for (int i = 0; i < ncols; i++)
            if (push_cell(r, stmt, i) != 0) {
                sqlite3_reset(stmt);
                snprintf(con->err.msg, sizeof(con->err.msg), "out of memory");
                return SB_DB_ERROR;
            }
        nrows++;
    }
    if (rc != SQLITE_DONE) {
        set_error(con, sc->db, rc);
        sqlite3_reset(stmt);
        return SB_DB_ERROR;
    }
    sqlite3_reset(stmt);
    if (ncols > 0) {
        if ((unsigned)ncols > r->rowcap) {
            struct sb_value *nr = realloc(r->row, (size_t)ncols * sizeof(*nr));
            if (nr == NULL) {
                snprintf(con->err.msg, sizeof(con->err.msg), "out of memory");
                return SB_DB_ERROR;
            }
            r->row = nr;
            r->rowcap = (unsigned)ncols;
        }
        rs->active = true;
        rs->nrows = nrows;
        rs->nfields = (unsigned)ncols;
        rs->row = r->row;
        rs->priv = r;
    } else if (sqlite3_total_changes(sc->db) != total0) {
        /* sqlite3_changes keeps the last INSERT/UPDATE/DELETE's figure
         * through other statements (BEGIN IMMEDIATE is not read-only
         * either), so it is read only when this one changed rows; the
         * total would add rows its triggers changed. */
        rs->affected = (uint64_t)sqlite3_changes(sc->db);
    }
    return SB_DB_OK;
}

static enum sb_db_status sqlite_query(struct sb_conn *con, const char *sql,
                                      size_t len, struct sb_sql_result *rs)
{
    struct sqlite_conn *sc = con->priv;
    const char *tail, *end;

    if (sc->predict_write && is_plain_begin(sql, len)) {
        sql = "BEGIN IMMEDIATE";
        len = strlen(sql);
    }
    tail = sql;
    end = sql + len;

    /* A text may hold several statements; the last one with rows wins. */
    while (tail < end) {
        sqlite3_stmt *stmt = NULL;
        enum sb_db_status st;
        int rc = sqlite3_prepare_v2(sc->db, tail, (int)(end - tail), &stmt, &tail);
        if (rc != SQLITE_OK) {
            set_error(con, sc->db, rc);
            return SB_DB_ERROR;
        }
        if (stmt == NULL) /* only whitespace or a comment was left */
            break;
        st = run_stmt(con, stmt, rs);
        sqlite3_finalize(stmt);
        if (st != SB_DB_OK)
            return st;
    }
    return SB_DB_OK;
}

static enum sb_db_status sqlite_prepare(struct sb_stmt *st)
{
    struct sqlite_conn *sc = st->con->priv;
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2(sc->db, st->sql, (int)st->sql_len, &stmt, NULL);

    if (rc != SQLITE_OK) {
        set_error(st->con, sc->db, rc);
        return SB_DB_ERROR;
    }
    st->priv = stmt;
    return SB_DB_OK;
}

static enum sb_db_status sqlite_execute(struct sb_stmt *st, struct sb_sql_result *rs)
{
    struct sqlite_conn *sc = st->con->priv;
    sqlite3_stmt *stmt = st->priv;
    int rc = SQLITE_OK;

    for (unsigned i = 0; i < st->nparams && rc == SQLITE_OK; i++) {
        const struct sb_bind *p = st->params[i];
        int idx = (int)i + 1;
        if (p->is_null) {
            rc = sqlite3_bind_null(stmt, idx);
            continue;
        }
        switch (p->type) {
        case SB_SQL_TINYINT:
        case SB_SQL_SMALLINT:
        case SB_SQL_INT:
        case SB_SQL_BIGINT:
            rc = sqlite3_bind_int64(stmt, idx, p->i);
            break;
        case SB_SQL_FLOAT:
        case SB_SQL_DOUBLE:
            rc = sqlite3_bind_double(stmt, idx, p->d);
            break;
        default:
            /* SQLITE_STATIC: the value outlives the step. */
            rc = sqlite3_bind_text(stmt, idx, p->str ? p->str : "", (int)p->len,
                                   SQLITE_STATIC);
            break;
        }
    }
    if (rc != SQLITE_OK) {
        set_error(st->con, sc->db, rc);
        return SB_DB_ERROR;
    }
    return run_stmt(st->con, stmt, rs);
}

static void sqlite_close(struct sb_stmt *st)
{
    sqlite3_finalize(st->priv);
    st->priv = NULL;
}

static int sqlite_fetch_row(struct sb_sql_result *rs)
{
    struct rows *r = rs->priv;

    if (r->cursor >= rs->nrows)
        return 0;
    for (unsigned i = 0; i < rs->nfields; i++) {
        const struct cell *c = &r->cells[r->cursor * rs->nfields + i];
        r->row[i].ptr = c->null ? NULL : r->data + c->off;
        r->row[i].len = c->len;
    }
    r->cursor++;
    return 1;
}

/* The rows live in the statement, which the next step or reset replaces:
 * nothing of the driver's own to release. */
static void sqlite_free_result(struct sb_sql_result *rs)
{
    (void)rs;
}

static const char *sqlite_server_version(struct sb_conn *con)
{
    (void)con;
    return sqlite3_libversion();
}

/* The client library's version, for result files. */
static int sqlite_client_version(char *buf, size_t len)
{
    snprintf(buf, len, "%s", sqlite3_libversion());
    return 0;
}

static bool sqlite_in_transaction(struct sb_conn *con)
{
    struct sqlite_conn *sc = con->priv;
    return sc != NULL && sc->db != NULL && !sqlite3_get_autocommit(sc->db);
}

/* sqlite3_interrupt may be called from any thread while the connection
 * is open (SQLite's documentation); the statement fails with
 * SQLITE_INTERRUPT. It is a no-op when no statement runs yet, so a cancel
 * that lands between the statement's busy mark and its first step would
 * be lost: the progress handler (sqlite_progress) catches that case. */
static bool sqlite_cancel(struct sb_conn *con, void **sweep)
{
    struct sqlite_conn *c = con->priv;

    (void)sweep;
    sqlite3_interrupt(c->db);
    return true;
}

const struct sb_driver_ops sb_driver_sqlite = {
    .name = "sqlite",
    .description = "SQLite driver (embedded)",
    .options = sqlite_options,
    .ignore_option = "sqlite-ignore-errors",
    .init = sqlite_init,
    .connect = sqlite_connect,
    .disconnect = sqlite_disconnect,
    .query = sqlite_query,
    .prepare = sqlite_prepare,
    .execute = sqlite_execute,
    .close = sqlite_close,
    .fetch_row = sqlite_fetch_row,
    .free_result = sqlite_free_result,
    .client_version = sqlite_client_version,
    .server_version = sqlite_server_version,
    .in_transaction = sqlite_in_transaction,
    .cancel = sqlite_cancel,
};
