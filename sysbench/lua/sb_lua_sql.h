/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_LUA_SQL_H
#define SB_LUA_SQL_H

/*
 * Helpers of sysbench.sql for Lua (sb_lua_sql.c) that are not about the
 * Lua objects themselves.
 */

#include <stddef.h>
#include "drivers/sb_driver.h"
#include "lua/sb_lua.h"

/*
 * sysbench.sql.driver(name) for a compiled-in driver other than the one
 * --db-driver chose (sysbench 1.0 accepts any): finds it, and the first
 * time any thread asks for it initialises it from its own options in
 * env->driver_sets. Thread-safe. The error policy (ignorable errors) stays
 * the chosen driver's. Returns the driver, or NULL with one line in err.
 * Drivers initialised here are not shut down before exit.
 */
const struct sb_driver_ops *sb_lua_sql_other_driver(const struct sb_lua_env *env,
                                                    const char *name,
                                                    char *err, size_t errlen);

#endif /* SB_LUA_SQL_H */
