/*
 * sysbench.sql for Lua: drivers, connections, prepared statements,
 * parameters and result sets as userdata over the common driver layer
 * (sb_driver.h). The Lua-level helpers (query_row, bulk inserts) live in
 * the built-in module sysbench_sql.lua on top of these. This file holds the
 * driver objects, the helpers the class files share and the module; see
 * sb_lua_sql_internal.h for the split and the ownership rules.
 */
#include <errno.h>
#include <lauxlib.h>
#include <lua.h>
#include <stdlib.h>
#include <string.h>

#include "sb_lua_sql_internal.h"

void sb_lsql_conn_unref(struct lconn *c)
{
    if (--c->refs == 0) {
        if (c->con != NULL)
            sb_db_disconnect(c->con);
        free(c);
    }
}

const struct sb_lua_thread *sb_lsql_thread_of(lua_State *L)
{
    const struct sb_lua_thread *t;
    lua_getfield(L, LUA_REGISTRYINDEX, "sb_thread");
    t = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return t;
}

const struct sb_lua_env *sb_lsql_env_of(lua_State *L)
{
    const struct sb_lua_env *e;
    lua_getfield(L, LUA_REGISTRYINDEX, "sb_env");
    e = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return e;
}

struct lconn *sb_lsql_check_conn(lua_State *L, int idx)
{
    struct lconn_ud *u = luaL_checkudata(L, idx, MT_CONN);
    if (u->c == NULL || u->c->con == NULL)
        luaL_error(L, "connection is closed");
    return u->c;
}


/* ------------------------------------------------------------ driver */

void sb_lsql_push_driver(lua_State *L, const struct sb_driver_ops *drv)
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

static int driver_connect(lua_State *L)
{
    struct ldriver *d = luaL_checkudata(L, 1, MT_DRIVER);
    const struct sb_lua_thread *t = sb_lsql_thread_of(L);
    struct sb_db_error err;
    struct sb_conn *con = sb_db_connect(d->drv, t->counters, &err);
    struct lconn_ud *u;

    if (con == NULL) {
        char line[1024];
        sb_db_format_err(d->drv->name, &err, NULL, line, sizeof(line));
        return luaL_error(L, "connection to the database failed: %s", line);
    }
    u = lua_newuserdata(L, sizeof(*u));
    u->c = calloc(1, sizeof(*u->c));
    if (u->c == NULL) {
        sb_db_disconnect(con);
        return luaL_error(L, "out of memory");
    }
    u->c->con = con;
    u->c->refs = 1;
    luaL_getmetatable(L, MT_CONN);
    lua_setmetatable(L, -2);
    lua_newtable(L);
    lua_setfenv(L, -2);
    return 1;
}

static int sql_driver(lua_State *L)
{
    const struct sb_lua_env *env = sb_lsql_env_of(L);
    const char *name = luaL_optstring(L, 1, NULL);
    const struct sb_driver_ops *drv;
    char err[512];

    if (name == NULL || (env->driver != NULL && strcmp(name, env->driver->name) == 0)) {
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
    sb_lsql_push_driver(L, drv);
    return 1;
}

/* native.set_empty_result(v): v becomes what query() and execute() return
 * for statements without rows (their shared upvalue). */
static int set_empty_result(lua_State *L)
{
    static const struct {
        const char *mt, *method;
    } users[] = {{MT_CONN, "query"}, {MT_STMT, "execute"}};

    luaL_checkany(L, 1);
    for (size_t i = 0; i < sizeof(users) / sizeof(users[0]); i++) {
        luaL_getmetatable(L, users[i].mt);
        lua_getfield(L, -1, "__methods");
        lua_getfield(L, -1, users[i].method);
        lua_pushvalue(L, 1);
        if (lua_setupvalue(L, -2, 1) == NULL)
            return luaL_error(L, "set_empty_result: %s has no upvalue", users[i].method);
        lua_pop(L, 3);
    }
    return 0;
}

static int class_tostring(lua_State *L)
{
    lua_pushvalue(L, lua_upvalueindex(1));
    return 1;
}

/* ------------------------------------------------------------ module */

void sb_lsql_new_class(lua_State *L, const char *name, const luaL_Reg *methods,
                      lua_CFunction index, lua_CFunction newindex, lua_CFunction gc)
{
    luaL_newmetatable(L, name);
    lua_newtable(L);
    luaL_register(L, NULL, methods);
    if (index == NULL) {
        lua_pushvalue(L, -1);
        lua_setfield(L, -3, "__index");
    }
    lua_setfield(L, -2, "__methods");
    if (index != NULL) {
        lua_pushcfunction(L, index);
        lua_setfield(L, -2, "__index");
    }
    if (newindex != NULL) {
        lua_pushcfunction(L, newindex);
        lua_setfield(L, -2, "__newindex");
    }
    if (gc != NULL) {
        lua_pushcfunction(L, gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_pop(L, 1);
}

/* tostring() of the objects, as sysbench 1.0 prints them. */
void sb_lsql_set_tostring(lua_State *L, const char *mt, const char *text)
{
    luaL_getmetatable(L, mt);
    lua_pushstring(L, text);
    lua_pushcclosure(L, class_tostring, 1);
    lua_setfield(L, -2, "__tostring");
    lua_pop(L, 1);
}

/* Makes methods[name] a closure of f with one upvalue (nil until
 * set_empty_result fills it). */
void sb_lsql_set_method_closure(lua_State *L, const char *mt, const char *name, lua_CFunction f)
{
    luaL_getmetatable(L, mt);
    lua_getfield(L, -1, "__methods");
    lua_pushnil(L);
    lua_pushcclosure(L, f, 1);
    lua_setfield(L, -2, name);
    lua_pop(L, 2);
}

int sb_lua_sql_open(lua_State *L)
{
    static const luaL_Reg driver_m[] = {
        {"name", driver_name}, {"connect", driver_connect}, {NULL, NULL}};

    sb_lsql_new_class(L, MT_DRIVER, driver_m, driver_index, NULL, NULL);
    sb_lsql_set_tostring(L, MT_DRIVER, "<sql_driver>");
    sb_lsql_open_conn(L);
    sb_lsql_open_stmt(L);
    sb_lsql_open_result(L);

    /* The native half of sysbench.sql; sysbench_sql.lua completes it. */
    lua_newtable(L);
    lua_pushcfunction(L, sql_driver);
    lua_setfield(L, -2, "driver");
    lua_pushcfunction(L, sb_lsql_param_fields);
    lua_setfield(L, -2, "param_fields");
    lua_pushcfunction(L, sb_lsql_stmt_connection);
    lua_setfield(L, -2, "stmt_connection");
    lua_pushcfunction(L, set_empty_result);
    lua_setfield(L, -2, "set_empty_result");
    return 1;
}
