/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Bulk inserts; see sb_db_bulk.h.
 */
#include "drivers/sb_db_bulk.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sb_log.h"
#include "core/sb_progress.h"
#include "drivers/sb_bulk_rows.h"

/* Multi-row INSERTs are sent once the next row would take the text past
 * this size: within MySQL's default max_allowed_packet, large enough to
 * amortise the round trip. */
#define SB_BULK_INSERT_LIMIT (256 * 1024)
/* Tries of the last statement, which cannot be run again by an event. */
#define SB_BULK_DONE_ATTEMPTS 3
/* Values a row's check looks at (more are counted, not kept). */
#define SB_BULK_MAX_FIELDS 256

struct sb_db_bulk {
    bool open;
    char *head;                 /* "INSERT INTO t (a, b) VALUES" */
    size_t head_len;
    char target[SB_BULK_MAX_NAME]; /* the table, for messages */
    unsigned nfields;           /* values per row: the column list's, or the first row's */
    bool cols_listed;           /* nfields is the column list's */
    uint64_t rows_in;           /* rows given since init */
    /* The statement being filled: head and rows, with their count. */
    char *buf;
    size_t len, cap;
    uint64_t rows;
    /* A statement in flight (SB_DB_INFLIGHT): the row that waits for it. */
    bool inflight;
    const char *wait_row;
    size_t wait_len;
    bool bad_row;
    struct sb_bulk_field fields[SB_BULK_MAX_FIELDS];
};

static bool backslash_escapes(struct sb_conn *con)
{
    return con->drv->backslash_escapes != NULL && con->drv->backslash_escapes(con);
}

static enum sb_db_outcome oom(struct sb_conn *con)
{
    memset(&con->err, 0, sizeof(con->err));
    snprintf(con->err.msg, sizeof(con->err.msg), "out of memory");
    return SB_DB_FATAL;
}

int sb_db_bulk_init(struct sb_conn *con, const char *head, size_t len)
{
    struct sb_db_bulk *b = con->bulk;
    struct sb_bulk_target t;
    char *h;

    if (b == NULL && (b = con->bulk = calloc(1, sizeof(*b))) == NULL) {
        oom(con);
        return -1;
    }
    if ((h = malloc(len + 1)) == NULL) {
        oom(con);
        return -1;
    }
    memcpy(h, head, len);
    h[len] = '\0';
    free(b->head);
    b->head = h;
    b->head_len = len;
    if (sb_bulk_parse_head(head, len, &t) == 0) {
        snprintf(b->target, sizeof(b->target), "%s", t.table);
        b->nfields = t.ncols;
        b->cols_listed = t.ncols > 0;
    } else {
        b->cols_listed = false;
        snprintf(b->target, sizeof(b->target), "%s", "a table");
        b->nfields = 0;
    }
    b->rows_in = 0;
    b->len = 0;
    b->rows = 0;
    b->inflight = false;
    b->bad_row = false;
    b->open = true;
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
    free(b->head);
    free(b->buf);
    free(b);
    con->bulk = NULL;
}

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
             b->target, (unsigned long long)b->rows_in, why, where, esc);
    b->bad_row = true;
    return SB_DB_FATAL;
}

/* Checks every tuple of row: well formed, with the bulk insert's value
 * count (the first row sets it when the head names no columns). */
static enum sb_db_outcome check_row(struct sb_conn *con, const char *row, size_t len)
{
    struct sb_db_bulk *b = con->bulk;
    struct sb_bulk_cursor c;
    unsigned nf;
    int rc;

    sb_bulk_cursor_init(&c, row, len, backslash_escapes(con));
    while ((rc = sb_bulk_next_tuple(&c, b->fields, SB_BULK_MAX_FIELDS, &nf)) == 1) {
        if (b->nfields == 0 && b->rows_in == 1 && c.tuples == 1) {
            b->nfields = nf;
        } else if (nf != b->nfields) {
            char why[96];
            snprintf(why, sizeof(why), "%u values where %s %u", nf,
                     b->cols_listed ? "the column list has" : "the first row had",
                     b->nfields);
            return bad_row(con, row, len, why, SIZE_MAX);
        }
    }
    if (rc < 0)
        return bad_row(con, row, len, c.why, c.at);
    return SB_DB_DONE;
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

/* Appends row to the statement being filled. */
static enum sb_db_outcome append_row(struct sb_conn *con, const char *row, size_t len)
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
        b->len = 0;
        b->rows = 0;
    }
}

enum sb_db_outcome sb_db_bulk_settle(struct sb_conn *con, enum sb_db_outcome o)
{
    struct sb_db_bulk *b = con->bulk;

    b->inflight = false;
    after_send(con, o);
    if (o != SB_DB_DONE)
        return o;
    return append_row(con, b->wait_row, b->wait_len);
}

enum sb_db_outcome sb_db_bulk_next(struct sb_conn *con, const char *row, size_t len)
{
    struct sb_db_bulk *b = con->bulk;
    enum sb_db_outcome o;

    b->bad_row = false;
    b->rows_in++;
    o = check_row(con, row, len);
    if (o != SB_DB_DONE)
        return o;
    if (b->rows == 0 || b->len + 1 + len <= SB_BULK_INSERT_LIMIT)
        return append_row(con, row, len);
    /* The rows before this one first: a failure then leaves this row out
     * (and its event uncounted or run again). */
    b->wait_row = row;
    b->wait_len = len;
    o = sb_db_query_start(con, b->buf, b->len);
    if (o == SB_DB_INFLIGHT) {
        b->inflight = true;
        return o;
    }
    return sb_db_bulk_settle(con, o);
}

enum sb_db_outcome sb_db_bulk_done(struct sb_conn *con)
{
    struct sb_db_bulk *b = con->bulk;
    enum sb_db_outcome o = SB_DB_DONE;

    if (b == NULL || !b->open)
        return SB_DB_DONE;
    b->open = false;
    if (b->rows == 0)
        return SB_DB_DONE;
    /* Counted as events already: the deadline does not cut these, and
     * an ignorable error or a reconnect (which left none of them on the
     * server) is tried again a few times. */
    __atomic_store_n(&con->keep_at_deadline, true, __ATOMIC_RELAXED);
    for (int attempt = 0; attempt < SB_BULK_DONE_ATTEMPTS; attempt++) {
        o = sb_db_query_start(con, b->buf, b->len);
        if (o == SB_DB_INFLIGHT)
            o = sb_db_complete(con);
        if ((o != SB_DB_IGNORED && o != SB_DB_RECONNECTED) || con->cut)
            break;
    }
    __atomic_store_n(&con->keep_at_deadline, false, __ATOMIC_RELAXED);
    after_send(con, o);
    b->len = 0;
    b->rows = 0;
    /* Only a signal cuts it: the run is ending, and says why already. */
    if (o == SB_DB_IGNORED && con->cut)
        return SB_DB_DONE;
    return o;
}
