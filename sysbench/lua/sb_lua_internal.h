/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_LUA_INTERNAL_H
#define SB_LUA_INTERNAL_H

/*
 * The built-in Lua modules compiled into the binary by build-aux/lua2c.sh
 * (sysbench, sysbench.cmdline, sysbench.rand, sysbench.sql,
 * sysbench.histogram).
 */

#include <stddef.h>

struct sb_lua_module {
    const char *name;   /* module name for require() */
    const char *source; /* Lua text, not NUL-terminated */
    size_t len;
};

/* Ends with an entry whose name is NULL. */
extern const struct sb_lua_module sb_lua_internal_modules[];

#endif /* SB_LUA_INTERNAL_H */
