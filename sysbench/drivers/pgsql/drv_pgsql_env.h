/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_DRV_PGSQL_ENV_H
#define SB_DRV_PGSQL_ENV_H

/*
 * libpq's own conventions for the PostgreSQL driver's connection
 * settings (drv_pgsql_env.c): where the host, port, user and database of
 * a connection come from. For each, in order: the --pgsql-* option when
 * the user gave it (command line or config file); else libpq, when its
 * environment variable (PGHOST, PGPORT, PGUSER, PGDATABASE) or the
 * PGSERVICE service gives a value (the driver then passes nothing and
 * libpq applies it, as it does ~/.pgpass for the password); else sysbench
 * 1.0's default (the option's default), so that 1.0 command lines behave
 * as before when nothing is set. Main thread only (reads the environment
 * and the service file, through PQconndefaults).
 */

#include <stdbool.h>
#include <stddef.h>

#include <libpq-fe.h>

#include "core/sb_options.h"

/* The settings, in this order (the index of sb_pgsql_env_pick). */
enum sb_pgsql_param {
    SB_PG_HOST,
    SB_PG_PORT,
    SB_PG_USER,
    SB_PG_DB,
    SB_PG_NPARAMS
};

/* Whether the user gave option name (command line or config file). */
bool sb_pgsql_opt_given(const struct sb_optset *opts, const char *name);

/*
 * Chooses where setting p comes from (see above), with defs the result of
 * PQconndefaults() (NULL: the service is not consulted). A list setting
 * (host, port: list and n non-NULL) becomes the option's items, or one
 * NULL entry when left to libpq; a string one (user, db: str non-NULL)
 * the option's value (NULL when empty), or NULL when left to libpq. The
 * list and strings are owned by the caller. Writes what chose it into
 * src (srclen bytes): "--pgsql-host", "PGHOST", "service NAME" or "the
 * default". A service value equal to libpq's built-in one (port 5432, a
 * user equal to the login name) cannot be told from it and is not seen:
 * the port is the same anyway, the user falls back to 1.0's. Returns 0,
 * or -1 when out of memory.
 */
int sb_pgsql_env_pick(const struct sb_optset *opts, enum sb_pgsql_param p,
                      const PQconninfoOption *defs, char *src, size_t srclen, char ***list,
                      size_t *n, char **str);

#endif /* SB_DRV_PGSQL_ENV_H */
