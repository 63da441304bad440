/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Drivers other than --db-driver's for sysbench.sql.driver(name); see
 * sb_lua_sql.h.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

#include "lua/sb_lua_sql.h"

#define MAX_OTHER_DRIVERS 16

/* Worker threads build their Lua states concurrently: initialise each
 * driver once, under this lock. The result is kept, so a driver that
 * failed to initialise fails the same way in every thread. */
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    const struct sb_driver_ops *drv;
    bool ok;
    char err[256];
} inited[MAX_OTHER_DRIVERS];
static size_t ninited;

/* The driver's option set: env->driver_sets follows sb_driver_list(). */
static const struct sb_optset *options_of(const struct sb_lua_env *env,
                                          const struct sb_driver_ops *drv)
{
    const struct sb_driver_ops *const *list = sb_driver_list();

    for (size_t i = 0; list[i] != NULL && env->driver_sets != NULL &&
                       env->driver_sets[i] != NULL; i++)
        if (list[i] == drv)
            return env->driver_sets[i];
    return NULL;
}

const struct sb_driver_ops *sb_lua_sql_other_driver(const struct sb_lua_env *env,
                                                    const char *name,
                                                    char *err, size_t errlen)
{
    const struct sb_driver_ops *drv = sb_driver_find(name);
    size_t i;
    bool ok = true;

    if (drv == NULL) {
        snprintf(err, errlen, "invalid database driver name: '%s'", name);
        return NULL;
    }
    pthread_mutex_lock(&init_lock);
    for (i = 0; i < ninited && inited[i].drv != drv; i++)
        ;
    if (i == ninited) {
        if (ninited == MAX_OTHER_DRIVERS) {
            pthread_mutex_unlock(&init_lock);
            snprintf(err, errlen, "too many database drivers");
            return NULL;
        }
        inited[i].drv = drv;
        inited[i].ok = true;
        inited[i].err[0] = '\0';
        if (drv->init != NULL &&
            drv->init(options_of(env, drv), inited[i].err, sizeof(inited[i].err)) != 0)
            inited[i].ok = false;
        ninited++;
    }
    ok = inited[i].ok;
    if (!ok)
        snprintf(err, errlen, "failed to initialize the %s driver: %s", name, inited[i].err);
    pthread_mutex_unlock(&init_lock);
    return ok ? drv : NULL;
}
