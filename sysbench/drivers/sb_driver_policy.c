/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The driver layer's error policy: which errors are ignorable (the event
 * restarts), re-opening a lost connection with back-off, rolling back what
 * an ignored error left open, and the statement mode (--db-ps-mode). The
 * policy is configuration: fixed by sb_db_policy_configure (from
 * sb_db_init) in the main thread and read-only once threads start. See
 * sb_driver.h.
 */
#include "drivers/sb_driver.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "core/sb_clock.h"
#include "drivers/sb_db_cancel.h"
#include "drivers/sb_db_conn.h"
#include "core/sb_log.h"
#include "core/sb_stop.h"

#define MAX_IGNORE 64

/* The error policy, read-only once threads start. */
static struct {
    bool ps_disable;
    bool ignore_all;
    char ignore[MAX_IGNORE][16];
    size_t nignore;
    double reconnect_timeout;
    bool debug;
} policy;

/* An error number (digits) or a SQLSTATE (five letters or digits). */
static bool valid_error_code(const char *s)
{
    size_t n = strlen(s), digits = strspn(s, "0123456789");

    if (n > 0 && n <= 10 && digits == n)
        return true;
    if (n != 5)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]))
            return false;
    return true;
}

static int add_ignore_list(const char *option, char *const *items, size_t n,
                           char *err, size_t errlen)
{
    for (size_t i = 0; i < n; i++) {
        char quoted[64];

        if (strcmp(items[i], "all") == 0) {
            policy.ignore_all = true;
            continue;
        }
        if (!valid_error_code(items[i]) || policy.nignore == MAX_IGNORE) {
            snprintf(err, errlen, "invalid value '%s' for --%s: expected error numbers, "
                     "5-character SQLSTATEs or 'all' (at most %d)",
                     sb_log_escape(items[i], quoted, sizeof(quoted), false), option,
                     MAX_IGNORE);
            return -1;
        }
        snprintf(policy.ignore[policy.nignore++], sizeof(policy.ignore[0]), "%s", items[i]);
    }
    return 0;
}

/*
 * Without the driver's option set, its ignore-list option's declared
 * default is the list ignorable by default, so that the list is written
 * once, in the option table.
 */
static int add_default_ignorable(const struct sb_driver_ops *drv, char *err, size_t errlen)
{
    const struct sb_opt_def *d = drv->options;

    if (drv->ignore_option == NULL || d == NULL)
        return 0;
    while (d->name != NULL && strcmp(d->name, drv->ignore_option) != 0)
        d++;
    if (d->name != NULL && d->def != NULL) {
        char buf[256], *save = NULL, *tok;
        snprintf(buf, sizeof(buf), "%s", d->def);
        for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            char *one[1] = {tok};
            if (add_ignore_list(drv->ignore_option, one, 1, err, errlen) != 0)
                return -1;
        }
    }
    return 0;
}

int sb_db_policy_configure(const struct sb_optset *general,
                           const struct sb_optset *driver_opts,
                           const struct sb_driver_ops *drv, char *err, size_t errlen)
{
    const char *mode = sb_optset_str(general, "db-ps-mode");
    char *const *items;
    size_t n;

    memset(&policy, 0, sizeof(policy));
    if (mode == NULL || (strcmp(mode, "auto") != 0 && strcmp(mode, "disable") != 0)) {
        snprintf(err, errlen, "invalid value '%s' for --db-ps-mode: expected auto or disable",
                 mode ? mode : "");
        return -1;
    }
    policy.ps_disable = strcmp(mode, "disable") == 0;
    policy.debug = sb_optset_bool(general, "db-debug");
    policy.reconnect_timeout = sb_optset_double(general, "db-reconnect-timeout");
    if (!(policy.reconnect_timeout >= 0)) {
        snprintf(err, errlen, "invalid value for --db-reconnect-timeout: expected seconds");
        return -1;
    }

    /* The driver's own list (with its defaults), then --db-ignore-errors. */
    if (drv->ignore_option != NULL && driver_opts != NULL &&
        sb_optset_find(driver_opts, drv->ignore_option) != NULL) {
        items = sb_optset_list(driver_opts, drv->ignore_option, &n);
        if (add_ignore_list(drv->ignore_option, items, n, err, errlen) != 0)
            return -1;
    } else if (add_default_ignorable(drv, err, errlen) != 0) {
        return -1;
    }
    items = sb_optset_list(general, "db-ignore-errors", &n);
    if (add_ignore_list("db-ignore-errors", items, n, err, errlen) != 0)
        return -1;
    return 0;
}

bool sb_db_debug(void)
{
    return policy.debug;
}

/* --db-ps-mode=disable. */
bool sb_db_ps_disabled(void)
{
    return policy.ps_disable;
}

static bool is_ignorable(const struct sb_db_error *e)
{
    char num[16];

    if (policy.ignore_all)
        return true;
    snprintf(num, sizeof(num), "%u", e->sql_errno);
    for (size_t i = 0; i < policy.nignore; i++) {
        if (e->sql_errno != 0 && strcmp(policy.ignore[i], num) == 0)
            return true;
        if (e->sql_state[0] && strcasecmp(policy.ignore[i], e->sql_state) == 0)
            return true;
    }
    return false;
}

void sb_db_remember_query(struct sb_conn *con, const char *sql, size_t len)
{
    free(con->last_query);
    con->last_query = NULL;
    if (sql != NULL) {
        con->last_query = malloc(len + 1);
        if (con->last_query != NULL) {
            memcpy(con->last_query, sql, len);
            con->last_query[len] = '\0';
        }
    }
}

static void close_server_statements(struct sb_conn *con)
{
    for (struct sb_stmt *st = con->stmts; st != NULL; st = st->next)
        if (!st->emulated && st->priv != NULL) {
            con->drv->close(st);
            st->priv = NULL;
        }
}

/*
 * Re-opens a lost connection with exponential back-off (10 ms doubling to
 * 1 s) until it works, the stop flag is raised, or --db-reconnect-timeout
 * passes. Statements are re-prepared lazily by their next execution.
 */
static bool reconnect_with_backoff(struct sb_conn *con)
{
    uint64_t start = sb_now_ns();
    uint64_t delay = 10 * SB_NS_PER_MS;
    struct sb_db_error lost = con->err;

    sb_db_free_result(con);
    close_server_statements(con);
    /* A cancel sweep may be using the driver state being freed. */
    sb_db_cancel_lock();
    con->drv->disconnect(con);
    con->priv = NULL;
    sb_db_cancel_unlock();
    for (;;) {
        if (sb_db_conn_open_blocking(con) == SB_DB_OK) {
            con->generation++;
            con->err = lost;
            return true;
        }
        if (sb_stopping() ||
            (double)(sb_now_ns() - start) / 1e9 >= policy.reconnect_timeout)
            return false;
        sb_sleep_until_ns(sb_now_ns() + delay);
        if (delay < SB_NS_PER_SEC)
            delay *= 2;
    }
}

enum sb_db_outcome sb_db_reconnect(struct sb_conn *con)
{
    if (!reconnect_with_backoff(con))
        return SB_DB_FATAL;
    con->counters->reconnects++;
    return SB_DB_DONE;
}

/* Ends the transaction an ignored error left open, so the retried event
 * does not run inside it (PostgreSQL rejects every statement of an
 * aborted transaction; a later BEGIN on MySQL would commit the half). */
static void rollback_open_transaction(struct sb_conn *con)
{
    struct sb_db_error saved;

    if (con->drv->in_transaction == NULL || !con->drv->in_transaction(con))
        return;
    saved = con->err;
    sb_db_free_result(con);
    if (policy.debug)
        sb_debug("query: ROLLBACK (after an ignored error)");
    (void)con->drv->query(con, "ROLLBACK", 8, &con->rs);
    sb_db_free_result(con);
    con->err = saved;
}

void sb_db_count_ignored(struct sb_conn *con)
{
    struct sb_db_counters *cnt = con->counters;

    cnt->errors++;
    if (cnt->on_error != NULL)
        cnt->on_error(cnt->ctx, &con->err, false);
    rollback_open_transaction(con);
}

/* The error policy applied to a driver status (sb_driver.h). */
enum sb_db_outcome sb_db_apply_policy(struct sb_conn *con, enum sb_db_status st,
                                      const char *sql, size_t len)
{
    struct sb_db_counters *cnt = con->counters;

    /* Cut at the deadline or by a signal: restart the event (the stop
     * flag is up: it ends uncounted), no error counted, no reconnect. */
    con->cut = sb_db_cancel_was_cut(con, st != SB_DB_OK);
    con->cut_done = con->cut && st == SB_DB_OK;
    if (con->cut) {
        sb_db_remember_query(con, sql, len);
        return SB_DB_IGNORED;
    }
    if (st == SB_DB_OK)
        return SB_DB_DONE;
    sb_db_remember_query(con, sql, len);
    if (st == SB_DB_CONN_LOST) {
        struct sb_db_error lost = con->err;
        /* Given up because a signal ends the run: the event ends
         * uncounted, with no "can't connect" error for a stop the user
         * asked for. (A server still gone when --time ends is a failure
         * of the run: tests/drivers/outage.sh.) */
        if (!reconnect_with_backoff(con))
            return sb_stop_reason() == SB_STOP_SIGNAL ? SB_DB_IGNORED : SB_DB_FATAL;
        cnt->reconnects++;
        if (cnt->on_error != NULL)
            cnt->on_error(cnt->ctx, &lost, true);
        return SB_DB_RECONNECTED;
    }
    if (is_ignorable(&con->err)) {
        sb_db_count_ignored(con);
        if (policy.debug)
            sb_debug("ignored error %u (%s): %s", con->err.sql_errno,
                     con->err.sql_state, con->err.msg);
        return SB_DB_IGNORED;
    }
    return SB_DB_FATAL;
}

void sb_db_free_result(struct sb_conn *con)
{
    if (con->rs.active)
        con->drv->free_result(&con->rs);
    /* The part every driver shares: the set is empty and inactive. */
    con->rs.active = false;
    con->rs.nrows = 0;
    con->rs.affected = 0;
    con->rs.nfields = 0;
    con->rs.row = NULL;
    con->rs.priv = NULL;
}
