/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_LUA_ENV_H
#define SB_LUA_ENV_H

/*
 * The invocation a script runs in: its source, the command line, every
 * option set, the chosen driver and the point being run. Plain data, set
 * by main and read by the Lua states (lua/), the run (engine/) and the
 * result writers (results/, plot/), so it lives with the configuration
 * rather than with the Lua binding that fills sysbench.opt from it.
 */

#include <stdbool.h>
#include <stddef.h>

struct sb_optset;
struct sb_driver_ops;
struct sb_point_config;
struct sb_builtin;

/* What every state needs to know about the run; read-only once threads
 * start. Owned by main. */
struct sb_lua_env {
    const char *script_path;   /* NULL when the script comes from stdin */
    const char *script_text;   /* the script read from stdin, or NULL */
    size_t script_len;
    const char *command;       /* NULL when none */
    int argc;
    char **argv;               /* the whole command line */
    const struct sb_optset *general;
    const struct sb_optset *const *driver_sets; /* NULL-ended */
    struct sb_optset *script_opts; /* filled from sysbench.cmdline.options */
    const struct sb_driver_ops *driver; /* the chosen driver (may be NULL) */
    const char *driver_error;  /* why driver is NULL, for sysbench.sql.driver() */
    /* The point being run (threads, target rate; sb_point.h): what
     * sysbench.opt.threads and tx_rate show. Never NULL once main set it;
     * a run gives its states a copy of env pointing at its own point. */
    const struct sb_point_config *point;
    /* The script declares no sysbench.cmdline.options: every option is
     * also a global (sysbench 1.0's legacy interface). Set by main before
     * worker states are made. */
    bool opts_as_globals;
    /* Why this driver runs, for the run header: "--db-driver",
     * "from --mysql-host", "default". Static or owned by main. */
    const char *driver_reason;
    /* The compiled-in test being run (sysbench/builtin/sb_builtin.h), or
     * NULL for a Lua script: its workers run its C events. */
    const struct sb_builtin *builtin;
};

#endif /* SB_LUA_ENV_H */
