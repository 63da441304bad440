/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sysbench.sql for Lua, native half: the driver objects (userdata; not on
 * the per-query path) and connecting. The connection, statement, parameter
 * and result objects are FFI cdata defined in the built-in module
 * sysbench_sql.lua over sb_lua_sql_ffi.h, whose functions it calls
 * through the FFI; this file only hands it new connections, because
 * connecting needs the state's thread (its counters) and may raise.
 */
#include <lauxlib.h>
#include <lua.h>
#include <stdlib.h>
#include <string.h>

#include "core/sb_log.h"
#include "drivers/sb_driver.h"
#include "lua/sb_lua.h"
#include "lua/sb_lua_sql.h"
#include "lua/sb_lua_sql_ffi.h"

#define MT_DRIVER "sysbench.sql.driver"

struct ldriver {
    const struct sb_driver_ops *drv;
};

static const struct sb_lua_thread *thread_of(lua_State *L)
{
    const struct sb_lua_thread *t;
    lua_getfield(L, LUA_REGISTRYINDEX, "sb_thread");
    t = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return t;
}

static const struct sb_lua_env *env_of(lua_State *L)
{
    const struct sb_lua_env *e;
    lua_getfield(L, LUA_REGISTRYINDEX, "sb_env");
    e = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return e;
}

static void push_driver(lua_State *L, const struct sb_driver_ops *drv)
{
    struct ldriver *d = lua_newuserdata(L, sizeof(*d));
    d->drv = drv;
    luaL_getmetatable(L, MT_DRIVER);
    lua_setmetatable(L, -2);
}

static int driver_index(lua_State *L)
{
    struct ldriver *d = luaL_checkudata(L, 1, MT_DRIVER);
    const char *k = luaL_checkstring(L, 2);

    luaL_getmetatable(L, MT_DRIVER);
    lua_getfield(L, -1, "__methods");
    lua_getfield(L, -1, k);
    if (!lua_isnil(L, -1))
        return 1;
    /* sysbench 1.0's short and long names. */
    if (strcmp(k, "sname") == 0)
        lua_pushstring(L, d->drv->name);
    else if (strcmp(k, "lname") == 0)
        lua_pushstring(L, d->drv->description);
    else
        lua_pushnil(L);
    return 1;
}

static int driver_name(lua_State *L)
{
    struct ldriver *d = luaL_checkudata(L, 1, MT_DRIVER);
    lua_pushstring(L, d->drv->name);
    return 1;
}

/* native.connect(driver): a new struct sb_lsql_conn * as light userdata
 * (sysbench_sql.lua makes it a connection object), or nil and the error
 * line (the Lua caller raises it, naming the script's line). */
static int native_connect(lua_State *L)
{
    struct ldriver *d = luaL_checkudata(L, 1, MT_DRIVER);
    const struct sb_lua_thread *t = thread_of(L);
    struct sb_db_error err;
    struct sb_lsql_conn *c = sb_lsql_connect(d->drv, t->counters, &err);

    if (c == NULL) {
        char line[1024];
        sb_db_format_err(d->drv->name, &err, NULL, line, sizeof(line));
        lua_pushnil(L);
        lua_pushfstring(L, "connection to the database failed: %s", line);
        return 2;
    }
    lua_pushlightuserdata(L, c);
    return 1;
}

static int sql_driver(lua_State *L)
{
    const struct sb_lua_env *env = env_of(L);
    const char *name = luaL_optstring(L, 1, NULL);
    const struct sb_driver_ops *drv;
    char err[512];

    if (name == NULL || (env->driver != NULL && strcmp(name, env->driver->name) == 0)) {
        if (env->driver == NULL && sb_compat10() && env->builtin == NULL && env->driver_error &&
            *env->driver_error) {
            /* 1.0.20: the reason as a FATAL line of its own (without our
             * list of drivers), then the error the caller sees. */
            static int told; /* once per process, as 1.0 fails once */
            const char *e = env->driver_error, *cut = strstr(e, " (compiled in:");
            if (!__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
                sb_fatal("%.*s", cut ? (int)(cut - e) : (int)strlen(e), e);
            return luaL_error(L, "failed to initialize the DB driver");
        }
        if (env->driver == NULL)
            return luaL_error(L, "%s", env->driver_error && *env->driver_error
                                           ? env->driver_error
                                           : "no database driver is initialised");
        drv = env->driver;
    } else {
        /* sysbench 1.0 lets a script use any compiled-in driver. */
        drv = sb_lua_sql_other_driver(env, name, err, sizeof(err));
        if (drv == NULL)
            return luaL_error(L, "%s", err);
    }
    push_driver(L, drv);
    return 1;
}

static int driver_tostring(lua_State *L)
{
    lua_pushliteral(L, "<sql_driver>");
    return 1;
}

int sb_lua_sql_open(lua_State *L)
{
    static const luaL_Reg driver_m[] = {{"name", driver_name}, {NULL, NULL}};

    /* The FFI functions live in a file nothing else references: this keeps
     * the linker from dropping it out of the core library. */
    (void)sb_lsql_abi(0);

    luaL_newmetatable(L, MT_DRIVER);
    lua_newtable(L);
    luaL_register(L, NULL, driver_m);
    lua_setfield(L, -2, "__methods");
    lua_pushcfunction(L, driver_index);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, driver_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pop(L, 1);

    /* The native half of sysbench.sql; sysbench_sql.lua completes it
     * (driver:connect() among others). */
    lua_newtable(L);
    lua_pushcfunction(L, sql_driver);
    lua_setfield(L, -2, "driver");
    lua_pushcfunction(L, native_connect);
    lua_setfield(L, -2, "connect");
    return 1;
}
