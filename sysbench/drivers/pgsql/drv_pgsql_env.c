/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libpq's conventions for the PostgreSQL driver's connection settings;
 * see drv_pgsql_env.h. The variables and the service are libpq's
 * documented ones (PostgreSQL manual, "Environment Variables" and "The
 * Connection Service File").
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "drivers/pgsql/drv_pgsql_env.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "drivers/sb_driver.h"

static const struct {
    const char *opt, *keyword, *env;
} sb_pg_params[SB_PG_NPARAMS] = {
    [SB_PG_HOST] = {"pgsql-host", "host", "PGHOST"},
    [SB_PG_PORT] = {"pgsql-port", "port", "PGPORT"},
    [SB_PG_USER] = {"pgsql-user", "user", "PGUSER"},
    [SB_PG_DB] = {"pgsql-db", "dbname", "PGDATABASE"},
};

bool sb_pgsql_opt_given(const struct sb_optset *opts, const char *name)
{
    const struct sb_opt *o = sb_optset_find(opts, name);

    return o != NULL && o->set;
}

/* Whether name is the login name, libpq's default user. */
static bool sb_pgsql_is_login(const char *name)
{
    struct passwd pw, *found = NULL;
    char buf[1024];

    return getpwuid_r(geteuid(), &pw, buf, sizeof(buf), &found) == 0 && found != NULL &&
           strcmp(found->pw_name, name) == 0;
}

/* Whether libpq has a value of its own for setting p (its environment
 * variable, or the PGSERVICE service, which PQconndefaults applies),
 * written into src as "PGHOST" or "service NAME". */
static bool sb_pgsql_libpq_gives(enum sb_pgsql_param p, const PQconninfoOption *defs,
                                 char *src, size_t srclen)
{
    const char *env = getenv(sb_pg_params[p].env), *service = getenv("PGSERVICE");
    const PQconninfoOption *o;

    if (env != NULL && env[0] != '\0') {
        snprintf(src, srclen, "%s", sb_pg_params[p].env);
        return true;
    }
    if (service == NULL || service[0] == '\0' || defs == NULL)
        return false;
    for (o = defs; o->keyword != NULL; o++)
        if (strcmp(o->keyword, sb_pg_params[p].keyword) == 0)
            break;
    /* What equals libpq's built-in default is not the service's doing
     * as far as anyone can tell. */
    if (o->keyword == NULL || o->val == NULL || o->val[0] == '\0' ||
        (o->compiled != NULL && strcmp(o->val, o->compiled) == 0))
        return false;
    if (p == SB_PG_USER && sb_pgsql_is_login(o->val))
        return false;
    snprintf(src, srclen, "service %s", service);
    return true;
}

int sb_pgsql_env_pick(const struct sb_optset *opts, enum sb_pgsql_param p,
                      const PQconninfoOption *defs, char *src, size_t srclen, char ***list,
                      size_t *n, char **str)
{
    const char *opt = sb_pg_params[p].opt;
    bool given = sb_pgsql_opt_given(opts, opt);

    if (!given && sb_pgsql_libpq_gives(p, defs, src, srclen)) {
        if (list != NULL) {
            *list = calloc(1, sizeof(**list));
            *n = 1;
            return *list != NULL ? 0 : -1;
        }
        *str = NULL;
        return 0;
    }
    snprintf(src, srclen, given ? "--%s" : "the default", opt);
    if (list != NULL)
        return sb_db_opt_copy_list(opts, opt, list, n);
    *str = sb_db_opt_strdup(opts, opt);
    return 0;
}
