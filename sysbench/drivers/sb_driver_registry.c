/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The driver registry and the driver layer's life: the compiled-in
 * drivers, the common options, setting the chosen driver up (its options,
 * the error policy, the bulk mode) and ending it, and opening and closing
 * a connection with everything the layer keeps on it (statements, a bulk
 * insert). Above the statements (sb_driver.c), the policy
 * (sb_driver_policy.c) and bulk inserts (sb_db_bulk.c), which it sets up
 * and frees. See sb_driver.h.
 */
#include "drivers/sb_driver.h"

#include <stdio.h>
#include <string.h>

#include "config.h"
#include "drivers/sb_db_bulk.h"
#include "drivers/sb_db_conn.h"
#include "drivers/sb_db_preconnect.h"

#ifdef USE_SQLITE
extern const struct sb_driver_ops sb_driver_sqlite;
#endif
#ifdef USE_MYSQL
extern const struct sb_driver_ops sb_driver_mysql;
#endif
#ifdef USE_PGSQL
extern const struct sb_driver_ops sb_driver_pgsql;
#endif

static const struct sb_driver_ops *const registry[] = {
#ifdef USE_SQLITE
    &sb_driver_sqlite,
#endif
#ifdef USE_MYSQL
    &sb_driver_mysql,
#endif
#ifdef USE_PGSQL
    &sb_driver_pgsql,
#endif
    NULL
};

const struct sb_opt_def sb_db_options[] = {
    {"db-driver", "specifies database driver to use ('help' to get list of available drivers)", "sqlite", SB_ARG_STRING},
    {"db-ps-mode", "prepared statements usage mode {auto, disable}", "auto", SB_ARG_STRING},
    {"db-ignore-errors", "error numbers or SQLSTATEs to ignore (restart the event) for every driver, or 'all'", "", SB_ARG_LIST},
    {"db-reconnect-timeout", "seconds to keep retrying a lost connection before giving up", "60", SB_ARG_DOUBLE},
    {"db-debug", "print database-specific debug information", "off", SB_ARG_BOOL},
    {"bulk-mode", "how bulk inserts load rows: copy (COPY, binary for generated rows where "
                  "the column types allow, LOAD DATA LOCAL, SQLite's prepared INSERT), "
                  "copy-text (copy, COPY always in text), insert (multi-row INSERTs) or auto "
                  "(copy in prepare and other commands, insert in run)", "auto", SB_ARG_STRING},
    {NULL, NULL, NULL, 0}
};

const struct sb_driver_ops *const *sb_driver_list(void)
{
    return registry;
}

const struct sb_driver_ops *sb_driver_find(const char *name)
{
    for (size_t i = 0; registry[i] != NULL; i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

const struct sb_driver_ops *sb_db_init(const struct sb_optset *general,
                                       const struct sb_optset *driver_opts,
                                       const char *driver_name,
                                       char *err, size_t errlen)
{
    const struct sb_driver_ops *drv = sb_driver_find(driver_name);

    if (drv == NULL) {
        snprintf(err, errlen, "invalid database driver name: '%s' (compiled in:%s%s%s)",
                 driver_name,
#ifdef USE_SQLITE
                 " sqlite",
#else
                 "",
#endif
#ifdef USE_MYSQL
                 " mysql",
#else
                 "",
#endif
#ifdef USE_PGSQL
                 " pgsql"
#else
                 ""
#endif
        );
        return NULL;
    }
    if (sb_db_policy_configure(general, driver_opts, drv, err, errlen) != 0 ||
        sb_db_bulk_configure(sb_optset_str(general, "bulk-mode"), err, errlen) != 0)
        return NULL;

    if (drv->init != NULL && drv->init(driver_opts, err, errlen) != 0)
        return NULL;
    return drv;
}

void sb_db_done(const struct sb_driver_ops *drv)
{
    if (drv != NULL && drv->done != NULL)
        drv->done();
}

struct sb_conn *sb_db_connect(const struct sb_driver_ops *drv,
                              struct sb_db_counters *counters,
                              struct sb_db_error *err)
{
    struct sb_conn *con;

    if (sb_db_preconnect_serves(drv, counters))
        return sb_db_preconnect_take(drv, counters, err);
    con = sb_db_conn_new(drv, counters);
    if (con == NULL) {
        memset(err, 0, sizeof(*err));
        snprintf(err->msg, sizeof(err->msg), "out of memory");
        return NULL;
    }
    if (sb_db_conn_open_blocking(con) != SB_DB_OK) {
        *err = con->err;
        sb_db_conn_free_unopened(con);
        return NULL;
    }
    sb_db_conn_opened(con);
    return con;
}

void sb_db_disconnect(struct sb_conn *con)
{
    if (con == NULL)
        return;
    sb_db_free_result(con);
    /* The bulk loader's statement is among the connection's. */
    sb_db_bulk_free(con);
    while (con->stmts != NULL)
        sb_db_close(con->stmts);
    sb_db_conn_close(con);
}
