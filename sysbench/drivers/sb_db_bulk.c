/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Bulk inserts; see sb_db_bulk.h.
 */
#include "drivers/sb_db_bulk.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sb_log.h"
#include "core/sb_progress.h"
#include "drivers/sb_bulk_rows.h"
#include "drivers/sb_db_cancel.h"
#include "pure/sb_rowgen.h"

/* Multi-row INSERTs are sent once the next row would take the text past
 * this size: within MySQL's default max_allowed_packet, large enough to
 * amortise the round trip. Also the size of one statement of the bulk
 * path in the event loop. */
#define SB_BULK_INSERT_LIMIT (256 * 1024)
/* The INSERTs that replace a refused LOAD DATA: max_allowed_packet less
 * room for the packet header, at most this. */
#define SB_BULK_FALLBACK_MAX (64u << 20)
/* SQLite's prepared path commits every so many rows, so that other
 * connections waiting for the write lock get it in turn. */
#define SB_BULK_TRX_ROWS 50000
/* Tries of the last statement, which cannot be run again by an event. */
#define SB_BULK_DONE_ATTEMPTS 3
/* Values a row's check looks at (more are counted, not kept). */
#define SB_BULK_MAX_FIELDS 256

/* How this bulk insert sends its rows. */
enum path {
    PATH_INSERT,      /* multi-row INSERT text */
    PATH_COPY,        /* the driver's copy_* ops, tab-separated text */
    PATH_PREPARED     /* a prepared single-row INSERT in a transaction */
};

struct sb_db_bulk {
    bool open;
    char *head;                 /* "INSERT INTO t (a, b) VALUES" */
    size_t head_len;
    struct sb_bulk_target t;    /* valid when parsed */
    bool parsed;
    unsigned nfields;           /* values per row: the column list's, or the first row's */
    bool cols_listed;           /* nfields is the column list's */
    uint64_t rows_in;           /* rows given since init */
    /* In the event loop: every statement is settled before the row that
     * follows it is taken (sb_db_bulk.h). Elsewhere the server's bulk
     * path streams. */
    bool batch;
    enum path path;
    bool backslash;             /* the server's string literals have escapes */
    /* The text being filled (INSERT text or tab-separated rows), with its
     * row count, and where it is sent. */
    char *buf;
    size_t len, cap;
    uint64_t rows;
    size_t limit;
    /* PATH_COPY while streaming: a load is open (copy_begin done), in
     * the driver's binary form (bin); the form the next load opens in. */
    bool copy_open, bin, want_bin;
    /* The columns' binary forms (copy_types), asked once per bulk
     * insert: 0 not yet, 1 known in bin_of, -1 none (text). */
    int bin_known;
    uint8_t bin_of[SB_BULK_MAX_FIELDS];
    /* PATH_PREPARED: the statement, its parameters and the open
     * transaction's row count. */
    struct sb_stmt *ins;
    struct sb_bind *pv;
    struct sb_bind **pp;
    unsigned np;
    bool trx_open;
    uint64_t trx_rows;
    /* The loader's own statements must not pause it (sb_db_bulk_pause). */
    bool inside;
    /* A statement in flight (SB_DB_INFLIGHT): the row that waits for it. */
    const char *wait_row;
    size_t wait_len;
    bool bad_row;
    /* Per connection: its server refused the bulk path. */
    bool refused;
    char what[SB_BULK_MAX_NAME + 64];   /* statement text for messages */
    struct sb_bulk_field fields[SB_BULK_MAX_FIELDS];
};

/* --bulk-mode: configuration, written by sb_db_init before threads
 * start. */
static enum sb_bulk_mode bulk_mode;
/* Process-wide, like the driver registry it belongs with: whether the
 * refused LOAD DATA was reported (once per process). */
static int refusal_reported;

int sb_db_bulk_configure(const char *mode, char *err, size_t errlen)
{
    if (mode == NULL || strcmp(mode, "auto") == 0) {
        bulk_mode = SB_BULK_AUTO;
    } else if (strcmp(mode, "insert") == 0) {
        bulk_mode = SB_BULK_INSERT;
    } else if (strcmp(mode, "copy") == 0) {
        bulk_mode = SB_BULK_COPY;
    } else if (strcmp(mode, "copy-text") == 0) {
        bulk_mode = SB_BULK_COPY_TEXT;
    } else {
        char quoted[64];
        snprintf(err, errlen, "invalid value '%s' for --bulk-mode: expected auto, copy, "
                 "copy-text or insert",
                 sb_log_escape(mode, quoted, sizeof(quoted), false));
        return -1;
    }
    return 0;
}

static enum sb_db_outcome oom(struct sb_conn *con)
{
    memset(&con->err, 0, sizeof(con->err));
    snprintf(con->err.msg, sizeof(con->err.msg), "out of memory");
    return SB_DB_FATAL;
}

static int reserve(struct sb_db_bulk *b, size_t more)
{
    if (b->len + more > b->cap) {
        size_t cap = b->cap > 0 ? b->cap : 4096;
        char *p;
        while (cap < b->len + more)
            cap *= 2;
        if ((p = realloc(b->buf, cap)) == NULL)
            return -1;
        b->buf = p;
        b->cap = cap;
    }
    return 0;
}

/* ------------------------------------------------------------ set-up */

/* Picks the path of a new bulk insert: in_run (the event loop of run)
 * keeps INSERTs unless --bulk-mode=copy asks otherwise; SB_COMPAT=1.0 and
 * --bulk-mode=insert always do. */
static enum path pick_path(struct sb_conn *con, struct sb_db_bulk *b, bool in_run)
{
    enum sb_bulk_mode m = bulk_mode;

    if (!b->parsed || m == SB_BULK_INSERT || (m == SB_BULK_AUTO && in_run) || sb_compat10())
        return PATH_INSERT;
    /* Backslash escapes other than MySQL's (PostgreSQL with
     * standard_conforming_strings off) are not read here. */
    if (b->backslash && strcmp(con->drv->name, "mysql") != 0)
        return PATH_INSERT;
    if (con->drv->copy_begin != NULL)
        return b->refused ? PATH_INSERT : PATH_COPY;
    return in_run ? PATH_INSERT : PATH_PREPARED;
}

static size_t insert_limit(struct sb_conn *con, struct sb_db_bulk *b)
{
    size_t max;

    if (!b->refused || con->drv->statement_limit == NULL)
        return SB_BULK_INSERT_LIMIT;
    b->inside = true;
    max = con->drv->statement_limit(con);
    b->inside = false;
    if (max <= 4096)
        return SB_BULK_INSERT_LIMIT;
    max -= 4096;
    return max < SB_BULK_FALLBACK_MAX ? max : SB_BULK_FALLBACK_MAX;
}

static void close_prepared(struct sb_conn *con, struct sb_db_bulk *b)
{
    if (b->ins != NULL) {
        b->inside = true;
        sb_db_close(b->ins);
        b->inside = false;
        b->ins = NULL;
    }
    for (unsigned i = 0; i < b->np; i++)
        free(b->pv[i].str);
    free(b->pv);
    free(b->pp);
    b->pv = NULL;
    b->pp = NULL;
    b->np = 0;
}

/* Ends what a bulk insert left open, dropping its rows: a COPY aborted, a
 * transaction rolled back. */
static void drop_open(struct sb_conn *con, struct sb_db_bulk *b)
{
    struct sb_db_error saved = con->err;

    b->inside = true;
    if (b->copy_open && con->priv != NULL)
        (void)con->drv->copy_end(con, true);
    if (b->trx_open && con->priv != NULL)
        (void)sb_db_query(con, "ROLLBACK", 8);
    b->inside = false;
    b->copy_open = false;
    b->trx_open = false;
    close_prepared(con, b);
    con->err = saved;
}

static enum sb_db_outcome copy_step(struct sb_conn *con, int step, bool *refusal);
static void refused(struct sb_conn *con, struct sb_db_bulk *b);

/* In the event loop every statement is begun when sent, too late to fall
 * back: whether the server takes the bulk path is asked first, with an
 * empty load. */
static int probe(struct sb_conn *con, struct sb_db_bulk *b)
{
    enum sb_db_outcome o;
    bool refusal;

    b->inside = true;
    o = copy_step(con, 0, &refusal);
    if (o == SB_DB_DONE && !refusal)
        o = copy_step(con, 2, &refusal);
    b->inside = false;
    if (refusal)
        refused(con, b);
    if (o != SB_DB_DONE) {
        b->open = false;
        return -2;
    }
    return 0;
}

int sb_db_bulk_init(struct sb_conn *con, const char *head, size_t len, bool in_run)
{
    struct sb_db_bulk *b = con->bulk;
    char *h;

    if (b == NULL && (b = con->bulk = calloc(1, sizeof(*b))) == NULL) {
        oom(con);
        return -1;
    }
    /* The statements pause it through the connection (sb_driver.h). */
    con->bulk_pause = sb_db_bulk_pause;
    if (b->open)
        drop_open(con, b);
    if ((h = malloc(len + 1)) == NULL) {
        oom(con);
        return -1;
    }
    memcpy(h, head, len);
    h[len] = '\0';
    free(b->head);
    b->head = h;
    b->head_len = len;
    b->parsed = sb_bulk_parse_head(head, len, &b->t) == 0;
    if (!b->parsed)
        snprintf(b->t.table, sizeof(b->t.table), "%s", "a table");
    b->nfields = b->parsed ? b->t.ncols : 0;
    b->cols_listed = b->nfields > 0;
    b->backslash = con->drv->backslash_escapes != NULL && con->drv->backslash_escapes(con);
    b->batch = in_run;
    b->path = pick_path(con, b, in_run);
    b->limit = b->path == PATH_COPY && !in_run ? con->drv->copy_chunk : insert_limit(con, b);
    snprintf(b->what, sizeof(b->what), "bulk load into %s", b->t.table);
    b->rows_in = 0;
    b->bin_known = 0;
    b->want_bin = false;
    b->len = 0;
    b->rows = 0;
    b->bad_row = false;
    b->open = true;
    if (b->path == PATH_COPY && in_run)
        return probe(con, b);
    return 0;
}

bool sb_db_bulk_open(const struct sb_conn *con)
{
    return con->bulk != NULL && con->bulk->open;
}

bool sb_db_bulk_bad_row(const struct sb_conn *con)
{
    return con->bulk != NULL && con->bulk->bad_row;
}

void sb_db_bulk_free(struct sb_conn *con)
{
    struct sb_db_bulk *b = con->bulk;

    if (b == NULL)
        return;
    close_prepared(con, b);
    free(b->head);
    free(b->buf);
    free(b);
    con->bulk = NULL;
}

/* ------------------------------------------------------------ rows */

/* Fails the row: con->err names it, with why and where it went wrong
 * (at: an offset in it, or SIZE_MAX). */
static enum sb_db_outcome bad_row(struct sb_conn *con, const char *row, size_t len,
                                  const char *why, size_t at)
{
    struct sb_db_bulk *b = con->bulk;
    char shown[128], esc[256], where[48] = "";
    size_t n = len < sizeof(shown) - 4 ? len : sizeof(shown) - 4;

    memcpy(shown, row, n);
    memcpy(shown + n, len > n ? "..." : "", len > n ? 4 : 1);
    sb_log_escape(shown, esc, sizeof(esc), false);
    if (at != SIZE_MAX)
        snprintf(where, sizeof(where), ", at character %zu", at + 1);
    memset(&con->err, 0, sizeof(con->err));
    snprintf(con->err.msg, sizeof(con->err.msg),
             "bulk insert into %.64s: row %llu is malformed (%.96s%s): %s",
             b->t.table, (unsigned long long)b->rows_in, why, where, esc);
    b->bad_row = true;
    return SB_DB_FATAL;
}

/* Reads the next tuple of c into b->fields and checks its value count
 * (the first row sets it when the head names no columns). Returns 1, 0
 * at the end, or a malformed row's SB_DB_FATAL as -1. *plain: every value
 * is a plain literal. */
static int next_tuple(struct sb_conn *con, struct sb_bulk_cursor *c, const char *row,
                      size_t len, unsigned *nf, bool *plain)
{
    struct sb_db_bulk *b = con->bulk;
    int rc = sb_bulk_next_tuple(c, b->fields, SB_BULK_MAX_FIELDS, nf);

    if (rc < 0) {
        bad_row(con, row, len, c->why, c->at);
        return -1;
    }
    if (rc == 0)
        return 0;
    if (b->nfields == 0 && b->rows_in == 1 && c->tuples == 1) {
        b->nfields = *nf;
    } else if (*nf != b->nfields) {
        char why[96];
        snprintf(why, sizeof(why), "%u values where %s %u", *nf,
                 b->cols_listed ? "the column list has" : "the first row had", b->nfields);
        bad_row(con, row, len, why, SIZE_MAX);
        return -1;
    }
    *plain = *nf > 0 && *nf <= SB_BULK_MAX_FIELDS;
    for (unsigned i = 0; *plain && i < *nf; i++)
        *plain = b->fields[i].kind != SB_BULK_OTHER;
    return 1;
}

/* Checks every tuple of row (PATH_INSERT). */
static enum sb_db_outcome check_row(struct sb_conn *con, const char *row, size_t len)
{
    struct sb_bulk_cursor c;
    unsigned nf;
    bool plain;
    int rc;

    sb_bulk_cursor_init(&c, row, len, con->bulk->backslash);
    while ((rc = next_tuple(con, &c, row, len, &nf, &plain)) == 1)
        ;
    return rc < 0 ? SB_DB_FATAL : SB_DB_DONE;
}

/*
 * Writes row as tab-separated lines after the text being filled (not
 * counted in b->len yet): *bytes and *tuples say how much. Returns
 * SB_DB_DONE; SB_DB_FATAL for a malformed row; SB_DB_INFLIGHT (as a
 * marker, nothing is in flight) when a value is not a plain literal.
 */
static enum sb_db_outcome convert_row(struct sb_conn *con, const char *row, size_t len,
                                      size_t *bytes, uint64_t *tuples)
{
    struct sb_db_bulk *b = con->bulk;
    struct sb_bulk_cursor c;
    size_t at = b->len;
    unsigned nf;
    bool plain;
    int rc;

    *tuples = 0;
    /* Each value grows at most to twice its length plus a separator. */
    if (reserve(b, 2 * len + 2 * SB_BULK_MAX_FIELDS + 2) != 0)
        return oom(con);
    sb_bulk_cursor_init(&c, row, len, b->backslash);
    while ((rc = next_tuple(con, &c, row, len, &nf, &plain)) == 1) {
        if (!plain)
            return SB_DB_INFLIGHT;
        if (reserve(b, at - b->len + 2 * len + 2 * nf + 2) != 0)
            return oom(con);
        for (unsigned i = 0; i < nf; i++) {
            at += sb_bulk_tsv_value(row, &b->fields[i], b->backslash, b->buf + at);
            b->buf[at++] = i + 1 < nf ? '\t' : '\n';
        }
        (*tuples)++;
    }
    if (rc < 0)
        return SB_DB_FATAL;
    *bytes = at - b->len;
    return SB_DB_DONE;
}

/* ------------------------------------------------------------ sending */

/* The statement text errors name. */
static enum sb_db_outcome policy(struct sb_conn *con, enum sb_db_status st)
{
    struct sb_db_bulk *b = con->bulk;

    return sb_db_apply_policy(con, st, b->what, strlen(b->what));
}

static bool not_connected(struct sb_conn *con)
{
    if (con->priv != NULL)
        return false;
    memset(&con->err, 0, sizeof(con->err));
    snprintf(con->err.msg, sizeof(con->err.msg), "not connected: the last reconnect failed");
    return true;
}

/* The server refused its bulk path (con->err says how): INSERTs from now
 * on, on this connection; said once per process. */
static void refused(struct sb_conn *con, struct sb_db_bulk *b)
{
    b->refused = true;
    b->path = PATH_INSERT;
    b->limit = insert_limit(con, b);
    if (!__atomic_exchange_n(&refusal_reported, 1, __ATOMIC_ACQ_REL)) {
        sb_progress_hide();
        sb_log(SB_LOG_NOTICE, "The server refuses %s (%s): bulk inserts send multi-row "
               "INSERTs of up to %zu KB (its max_allowed_packet) instead",
               con->drv->copy_name, con->err.msg, b->limit / 1024);
    }
}

/* One step of the driver's bulk path, streaming: 0 copy_begin, 1
 * copy_data of the filled text, 2 copy_end. *refusal: copy_begin was
 * refused. */
static enum sb_db_outcome copy_step(struct sb_conn *con, int step, bool *refusal)
{
    struct sb_db_bulk *b = con->bulk;
    enum sb_db_status st;

    *refusal = false;
    sb_db_free_result(con);
    if (not_connected(con))
        return SB_DB_FATAL;
    if (sb_db_debug() && step != 1)
        sb_log(SB_LOG_DEBUG, "%s %s%s", step == 0 ? "begin" : "end", b->what,
               step == 0 && b->want_bin ? ", binary" : "");
    sb_db_cancel_busy(con);
    if (step == 0 && b->want_bin)
        st = con->drv->copy_begin_binary(con, b->t.table, b->t.cols);
    else if (step == 0)
        st = con->drv->copy_begin(con, b->t.table, b->t.cols);
    else if (step == 1)
        st = con->drv->copy_data(con, b->buf, b->len, b->rows);
    else
        st = con->drv->copy_end(con, false);
    sb_db_cancel_idle(con);
    if (st == SB_DB_REFUSED) {
        *refusal = true;
        return SB_DB_DONE;
    }
    return policy(con, st);
}

/* The filled rows as one statement of the driver's bulk path (the event
 * loop): begin, data, end in one busy mark, so a cancel anywhere in it is
 * one cut statement. *refusal: copy_begin was refused. */
static enum sb_db_outcome copy_statement(struct sb_conn *con, bool *refusal)
{
    struct sb_db_bulk *b = con->bulk;
    enum sb_db_status st;

    *refusal = false;
    sb_db_free_result(con);
    if (not_connected(con))
        return SB_DB_FATAL;
    sb_db_cancel_busy(con);
    st = con->drv->copy_begin(con, b->t.table, b->t.cols);
    if (st == SB_DB_OK) {
        st = con->drv->copy_data(con, b->buf, b->len, b->rows);
        if (st == SB_DB_OK) {
            st = con->drv->copy_end(con, false);
        } else if (st != SB_DB_CONN_LOST) {
            struct sb_db_error saved = con->err;
            (void)con->drv->copy_end(con, true);
            con->err = saved;
        }
    }
    sb_db_cancel_idle(con);
    if (st == SB_DB_REFUSED) {
        *refusal = true;
        return SB_DB_DONE;
    }
    if (st == SB_DB_OK)
        con->counters->writes++;
    return policy(con, st);
}

/*
 * What the statement sending the filled rows did (sb_db_bulk.h): they
 * are gone from the buffer once the server holds them (success, or a
 * cut that came too late), kept for the next statement otherwise.
 */
static void after_send(struct sb_conn *con, enum sb_db_outcome o)
{
    struct sb_db_bulk *b = con->bulk;

    if (o == SB_DB_DONE || (o == SB_DB_IGNORED && con->cut_done)) {
        sb_progress_add(b->rows);
        sb_progress_add_bytes(b->len);
        b->len = 0;
        b->rows = 0;
    }
}

/* Sends the filled rows (PATH_INSERT may leave them in flight). */
static enum sb_db_outcome send_filled(struct sb_conn *con, bool may_wait)
{
    struct sb_db_bulk *b = con->bulk;
    enum sb_db_outcome o;
    bool refusal;

    if (b->path == PATH_INSERT) {
        o = sb_db_query_start(con, b->buf, b->len);
        if (o == SB_DB_INFLIGHT && !may_wait)
            o = sb_db_complete(con);
        if (o == SB_DB_INFLIGHT)
            return o;
    } else if (b->batch) {
        o = copy_statement(con, &refusal);
        /* Probed when the bulk insert began: a refusal now is a server
         * whose setting changed meanwhile. */
        if (refusal)
            o = SB_DB_FATAL;
    } else {
        o = copy_step(con, 1, &refusal);
    }
    after_send(con, o);
    return o;
}

/* ------------------------------------------------------------ paths */

/* Appends row to the INSERT text being filled. */
static enum sb_db_outcome append_insert(struct sb_conn *con, const char *row, size_t len)
{
    struct sb_db_bulk *b = con->bulk;

    if (reserve(b, b->head_len + len + 1) != 0)
        return oom(con);
    if (b->len == 0) {
        memcpy(b->buf, b->head, b->head_len);
        b->len = b->head_len;
    } else {
        b->buf[b->len++] = ',';
    }
    memcpy(b->buf + b->len, row, len);
    b->len += len;
    b->rows++;
    return SB_DB_DONE;
}

enum sb_db_outcome sb_db_bulk_settle(struct sb_conn *con, enum sb_db_outcome o)
{
    struct sb_db_bulk *b = con->bulk;

    after_send(con, o);
    if (o != SB_DB_DONE)
        return o;
    return append_insert(con, b->wait_row, b->wait_len);
}

static enum sb_db_outcome next_insert(struct sb_conn *con, const char *row, size_t len)
{
    struct sb_db_bulk *b = con->bulk;
    enum sb_db_outcome o = check_row(con, row, len);

    if (o != SB_DB_DONE)
        return o;
    if (b->rows == 0 || b->len + 1 + len <= b->limit)
        return append_insert(con, row, len);
    /* The rows before this one first: a failure then leaves this row out
     * (and its event uncounted or run again). */
    b->wait_row = row;
    b->wait_len = len;
    o = send_filled(con, true);
    if (o == SB_DB_INFLIGHT)
        return o;
    return sb_db_bulk_settle(con, o);
}

/* Leaves the bulk path for INSERTs (a value that is not a plain
 * literal): the rows filled so far go first, and an open load ends. */
static enum sb_db_outcome leave_for_insert(struct sb_conn *con)
{
    struct sb_db_bulk *b = con->bulk;
    enum sb_db_outcome o = sb_db_bulk_pause(con);

    if (o != SB_DB_DONE)
        return o;
    if (b->rows > 0 && (o = send_filled(con, false)) != SB_DB_DONE)
        return o;
    close_prepared(con, b);
    if (sb_db_debug())
        sb_log(SB_LOG_DEBUG, "bulk insert into %s: row %llu has a value other than an "
               "integer, a string or NULL: INSERTs from here on", b->t.table,
               (unsigned long long)b->rows_in);
    b->path = PATH_INSERT;
    b->limit = insert_limit(con, b);
    return SB_DB_DONE;
}

/* Streaming: begins the load at the first row. *refusal: the server
 * refused it (the bulk insert now sends INSERTs). */
static enum sb_db_outcome open_copy(struct sb_conn *con, bool *refusal)
{
    struct sb_db_bulk *b = con->bulk;
    enum sb_db_outcome o;

    *refusal = false;
    if (b->batch || b->copy_open)
        return SB_DB_DONE;
    b->inside = true;
    o = copy_step(con, 0, refusal);
    b->inside = false;
    if (*refusal) {
        refused(con, b);
        return SB_DB_DONE;
    }
    if (o == SB_DB_DONE) {
        b->copy_open = true;
        b->bin = b->want_bin;
    }
    return o;
}

/* Takes the bytes written after the filled text (tuples lines): the
 * filled text is sent first when they would take it past the limit. */
static enum sb_db_outcome take_written(struct sb_conn *con, size_t bytes, uint64_t tuples)
{
    struct sb_db_bulk *b = con->bulk;
    enum sb_db_outcome o;

    if (b->rows > 0 && b->len + bytes > b->limit) {
        size_t at = b->len;
        b->inside = true;
        o = send_filled(con, false);
        b->inside = false;
        if (o != SB_DB_DONE)
            return o;
        /* The row was written after the text just sent. */
        memmove(b->buf, b->buf + at, bytes);
    }
    b->len += bytes;
    b->rows += tuples;
    return SB_DB_DONE;
}

static enum sb_db_outcome next_copy(struct sb_conn *con, const char *row, size_t len)
{
    struct sb_db_bulk *b = con->bulk;
    enum sb_db_outcome o;
    size_t bytes = 0;
    uint64_t tuples;
    bool refusal;

    /* Rows as text end a binary load: they go in text, in a load of
     * their own. */
    if (b->copy_open && b->bin && (o = sb_db_bulk_pause(con)) != SB_DB_DONE)
        return o;
    b->want_bin = false;
    if ((o = open_copy(con, &refusal)) != SB_DB_DONE)
        return o;
    if (refusal)
        return next_insert(con, row, len);
    o = convert_row(con, row, len, &bytes, &tuples);
    if (o == SB_DB_INFLIGHT) {
        if ((o = leave_for_insert(con)) != SB_DB_DONE)
            return o;
        return next_insert(con, row, len);
    }
    if (o != SB_DB_DONE)
        return o;
    return take_written(con, bytes, tuples);
}

/* Whether generated rows first..last of cols can go to the load in
 * binary: the driver has the form, --bulk-mode allows it, and the
 * columns' types (asked at the first such rows) take the values. */
static bool bin_fits(struct sb_conn *con, const struct sb_rowgen_col *cols, unsigned n,
                     int64_t first, int64_t last)
{
    struct sb_db_bulk *b = con->bulk;

    if (con->drv->copy_types == NULL || bulk_mode == SB_BULK_COPY_TEXT || !b->parsed ||
        n > SB_BULK_MAX_FIELDS)
        return false;
    if (b->bin_known == 0) {
        b->inside = true;
        b->bin_known = con->drv->copy_types(con, b->t.table, b->t.cols, b->bin_of, n) == 0
                       ? 1 : -1;
        b->inside = false;
    }
    return b->bin_known > 0 && sb_rowgen_bin_fits(cols, n, b->bin_of, first, last) == 1;
}

enum sb_db_gen_form sb_db_bulk_gen_begin(struct sb_conn *con, const struct sb_rowgen_col *cols,
                                         unsigned n, int64_t first, int64_t last,
                                         const uint8_t **bin, enum sb_db_outcome *o)
{
    struct sb_db_bulk *b = con->bulk;
    bool refusal, want;

    *o = SB_DB_DONE;
    *bin = NULL;
    if (b == NULL || !b->open || b->path != PATH_COPY || b->batch)
        return SB_DB_GEN_SQL;
    if (b->nfields == 0 && b->rows_in == 0)
        b->nfields = n;
    if (n != b->nfields) {
        memset(&con->err, 0, sizeof(con->err));
        snprintf(con->err.msg, sizeof(con->err.msg),
                 "bulk insert into %.64s: generated rows have %u values where %s %u",
                 b->t.table, n, b->cols_listed ? "the column list has" : "the first row had",
                 b->nfields);
        b->bad_row = true;
        *o = SB_DB_FATAL;
        return SB_DB_GEN_SQL;
    }
    /* A load open in text stays so (rows of the script's text began it);
     * one in binary ends when these rows do not fit it. */
    want = b->copy_open && !b->bin ? false : bin_fits(con, cols, n, first, last);
    if (b->copy_open && b->bin && !want && (*o = sb_db_bulk_pause(con)) != SB_DB_DONE)
        return SB_DB_GEN_SQL;
    b->want_bin = want;
    if ((*o = open_copy(con, &refusal)) != SB_DB_DONE || refusal)
        return SB_DB_GEN_SQL;
    *bin = b->bin ? b->bin_of : NULL;
    return b->bin ? SB_DB_GEN_BIN : SB_DB_GEN_TSV;
}

char *sb_db_bulk_gen_reserve(struct sb_conn *con, size_t max, enum sb_db_outcome *o)
{
    struct sb_db_bulk *b = con->bulk;

    *o = SB_DB_DONE;
    if (reserve(b, max) != 0) {
        *o = oom(con);
        return NULL;
    }
    return b->buf + b->len;
}

enum sb_db_outcome sb_db_bulk_gen_commit(struct sb_conn *con, size_t bytes, uint64_t rows)
{
    struct sb_db_bulk *b = con->bulk;

    b->rows_in += rows;
    return take_written(con, bytes, rows);
}

/* PATH_PREPARED: the statement and its parameters, made for the first
 * row once its value count is known. */
static enum sb_db_outcome make_prepared(struct sb_conn *con)
{
    struct sb_db_bulk *b = con->bulk;
    size_t n = strlen(b->t.table) + strlen(b->t.cols) + 3 * b->nfields + 32, at;
    char *sql = malloc(n);

    b->pv = calloc(b->nfields, sizeof(*b->pv));
    b->pp = calloc(b->nfields, sizeof(*b->pp));
    if (sql == NULL || b->pv == NULL || b->pp == NULL) {
        free(sql);
        return oom(con);
    }
    b->np = b->nfields;
    at = (size_t)snprintf(sql, n, "INSERT INTO %s %s VALUES (", b->t.table, b->t.cols);
    for (unsigned i = 0; i < b->np; i++) {
        at += (size_t)snprintf(sql + at, n - at, i > 0 ? ", ?" : "?");
        b->pp[i] = &b->pv[i];
    }
    snprintf(sql + at, n - at, ")");
    b->ins = sb_db_prepare(con, sql, strlen(sql));
    free(sql);
    if (b->ins == NULL)
        return con->prepare_reconnected ? SB_DB_RECONNECTED : SB_DB_FATAL;
    sb_db_bind(b->ins, b->pp, b->np);
    return SB_DB_DONE;
}

/* Sets the parameters from the tuple in b->fields (row text s). */
static enum sb_db_outcome bind_tuple(struct sb_conn *con, const char *s)
{
    struct sb_db_bulk *b = con->bulk;

    for (unsigned i = 0; i < b->np; i++) {
        const struct sb_bulk_field *f = &b->fields[i];
        struct sb_bind *p = &b->pv[i];
        p->is_null = f->kind == SB_BULK_NULL;
        if (f->kind == SB_BULK_INT) {
            p->type = SB_SQL_BIGINT;
            p->i = strtoll(s + f->off, NULL, 10);
        } else if (f->kind == SB_BULK_STR) {
            if (p->cap < f->len + 1) {
                char *str = realloc(p->str, f->len + 1);
                if (str == NULL)
                    return oom(con);
                p->str = str;
                p->cap = f->len + 1;
            }
            p->type = SB_SQL_VARCHAR;
            p->len = sb_bulk_unquote(s, f, false, p->str);
            p->str[p->len] = '\0';
        }
    }
    return SB_DB_DONE;
}

/* Whether every value of row fits the prepared path: plain literals, and
 * integers within 64 bits. */
static int prepared_fits(struct sb_conn *con, const char *row, size_t len)
{
    struct sb_db_bulk *b = con->bulk;
    struct sb_bulk_cursor c;
    unsigned nf;
    bool plain;
    int rc;

    sb_bulk_cursor_init(&c, row, len, b->backslash);
    while ((rc = next_tuple(con, &c, row, len, &nf, &plain)) == 1) {
        if (!plain)
            return 0;
        for (unsigned i = 0; i < nf; i++)
            if (b->fields[i].kind == SB_BULK_INT && b->fields[i].len > 18)
                return 0;
    }
    return rc < 0 ? -1 : 1;
}

static enum sb_db_outcome sql(struct sb_conn *con, const char *text)
{
    enum sb_db_outcome o;

    con->bulk->inside = true;
    o = sb_db_query(con, text, strlen(text));
    con->bulk->inside = false;
    return o;
}

static enum sb_db_outcome next_prepared(struct sb_conn *con, const char *row, size_t len)
{
    struct sb_db_bulk *b = con->bulk;
    struct sb_bulk_cursor c;
    enum sb_db_outcome o;
    unsigned nf;
    bool plain;
    int fits = prepared_fits(con, row, len);

    if (fits < 0)
        return SB_DB_FATAL;
    if (fits == 0) {
        if ((o = leave_for_insert(con)) != SB_DB_DONE)
            return o;
        return next_insert(con, row, len);
    }
    if (!b->trx_open) {
        if ((o = sql(con, "BEGIN")) != SB_DB_DONE)
            return o;
        b->trx_open = true;
        b->trx_rows = 0;
    }
    b->inside = true;
    if (b->ins == NULL && (o = make_prepared(con)) != SB_DB_DONE) {
        b->inside = false;
        return o;
    }
    sb_bulk_cursor_init(&c, row, len, b->backslash);
    while (next_tuple(con, &c, row, len, &nf, &plain) == 1) {
        if ((o = bind_tuple(con, row)) != SB_DB_DONE ||
            (o = sb_db_execute(b->ins)) != SB_DB_DONE) {
            b->inside = false;
            return o;
        }
        b->trx_rows++;
        sb_progress_add(1);
    }
    b->inside = false;
    sb_progress_add_bytes(len);
    if (b->trx_rows >= SB_BULK_TRX_ROWS) {
        b->trx_open = false;
        return sql(con, "COMMIT");
    }
    return SB_DB_DONE;
}

enum sb_db_outcome sb_db_bulk_next(struct sb_conn *con, const char *row, size_t len)
{
    struct sb_db_bulk *b = con->bulk;

    b->bad_row = false;
    b->rows_in++;
    switch (b->path) {
    case PATH_COPY: return next_copy(con, row, len);
    case PATH_PREPARED: return next_prepared(con, row, len);
    default: return next_insert(con, row, len);
    }
}

/* ------------------------------------------------------------ the end */

enum sb_db_outcome sb_db_bulk_pause(struct sb_conn *con)
{
    struct sb_db_bulk *b = con->bulk;
    enum sb_db_outcome o = SB_DB_DONE;
    bool refusal;

    if (b == NULL || !b->open || b->inside)
        return SB_DB_DONE;
    b->inside = true;
    if (b->copy_open) {
        if (b->rows > 0)
            o = send_filled(con, false);
        if (o == SB_DB_DONE)
            o = copy_step(con, 2, &refusal);
        b->copy_open = false;
    }
    b->inside = false;
    if (b->trx_open) {
        b->trx_open = false;
        if (o == SB_DB_DONE)
            o = sql(con, "COMMIT");
    }
    return o;
}

/* Whether the last statement failed as interrupted (MySQL's 70100,
 * PostgreSQL's 57014): a deadline cancel sent for the statement before
 * can reach the server once the next one runs (MariaDB's KILL QUERY
 * names the connection, not the statement), and an interrupted
 * statement left none of its rows. */
static bool interrupted(const struct sb_conn *con)
{
    return strcmp(con->err.sql_state, "70100") == 0 || strcmp(con->err.sql_state, "57014") == 0;
}

/* The last rows of an INSERT or an event loop's bulk path, whose events
 * are counted already: the deadline does not cut their statement, and
 * an ignorable error or a reconnect (which left none of them on the
 * server) is tried again a few times. */
static enum sb_db_outcome send_last(struct sb_conn *con)
{
    enum sb_db_outcome o = SB_DB_DONE;

    __atomic_store_n(&con->keep_at_deadline, true, __ATOMIC_RELAXED);
    for (int attempt = 0; attempt < SB_BULK_DONE_ATTEMPTS; attempt++) {
        o = send_filled(con, false);
        if (o == SB_DB_FATAL && !con->cut && interrupted(con))
            continue;
        if ((o != SB_DB_IGNORED && o != SB_DB_RECONNECTED) || con->cut)
            break;
    }
    __atomic_store_n(&con->keep_at_deadline, false, __ATOMIC_RELAXED);
    /* Only a signal cuts it: the run is ending, and says why already. */
    if (o == SB_DB_IGNORED && con->cut)
        return SB_DB_DONE;
    return o;
}

enum sb_db_outcome sb_db_bulk_done(struct sb_conn *con)
{
    struct sb_db_bulk *b = con->bulk;
    enum sb_db_outcome o = SB_DB_DONE;

    if (b == NULL || !b->open)
        return SB_DB_DONE;
    if (b->path == PATH_INSERT || b->batch) {
        if (b->rows > 0)
            o = send_last(con);
    } else {
        o = sb_db_bulk_pause(con);
    }
    if (o != SB_DB_DONE)
        drop_open(con, b);
    close_prepared(con, b);
    b->len = 0;
    b->rows = 0;
    b->open = false;
    return o;
}
