/*
 * sysbench.sql result sets: views of a connection's current result.
 */
#include <errno.h>
#include <lauxlib.h>
#include <lua.h>
#include <stdlib.h>
#include <string.h>

#include "sb_lua_sql_internal.h"

/* ------------------------------------------------------------ results */

static struct lresult *push_result(lua_State *L, struct lconn *c, enum sb_query_kind kind)
{
    struct lresult *r = lua_newuserdata(L, sizeof(*r));
    r->c = c;
    c->refs++;
    r->gen = c->rs_gen;
    r->nrows = c->con->rs.nrows;
    r->nfields = c->con->rs.nfields;
    r->kind = kind;
    r->from_stmt = false;
    r->have_row = false;
    luaL_getmetatable(L, MT_RESULT);
    lua_setmetatable(L, -2);
    return r;
}

/* Whether r still views its connection's current, open result set. */
static bool result_is_current(const struct lresult *r)
{
    return r->c->con != NULL && r->gen == r->c->rs_gen && r->c->con->rs.active;
}

static int result_fetch_row(lua_State *L)
{
    struct lresult *r = luaL_checkudata(L, 1, MT_RESULT);
    struct sb_conn *con;
    int rc;

    r->have_row = false;
    if (!result_is_current(r)) {
        lua_pushnil(L);
        return 1;
    }
    con = r->c->con;
    rc = sb_db_fetch(con);
    if (rc < 0)
        return luaL_error(L, "fetch failed: %s", con->err.msg);
    if (rc == 0) {
        lua_pushnil(L);
        return 1;
    }
    r->have_row = true;
    lua_createtable(L, (int)con->rs.nfields, 0);
    for (unsigned i = 0; i < con->rs.nfields; i++) {
        if (con->rs.row[i].ptr == NULL)
            continue; /* NULL stays nil */
        lua_pushlstring(L, con->rs.row[i].ptr, con->rs.row[i].len);
        lua_rawseti(L, -2, (int)i + 1);
    }
    return 1;
}

static int result_free(lua_State *L)
{
    struct lresult *r = luaL_checkudata(L, 1, MT_RESULT);
    if (r->c->con != NULL && r->gen == r->c->rs_gen) {
        sb_db_free_result(r->c->con);
        r->c->rs_gen++;
    }
    r->have_row = false;
    lua_pushboolean(L, 1); /* as sysbench 1.0 */
    return 1;
}

static int result_gc(lua_State *L)
{
    struct lresult *r = luaL_checkudata(L, 1, MT_RESULT);
    if (r->c != NULL)
        sb_lsql_conn_unref(r->c);
    r->c = NULL;
    return 0;
}

/* sysbench 1.0's stat type numbers (sb_counter_type) for rs.counter. */
static int counter_of(enum sb_query_kind kind)
{
    switch (kind) {
    case SB_QUERY_READ: return 1;
    case SB_QUERY_WRITE: return 2;
    default: return 0;
    }
}

/*
 * rs.row as sysbench 1.0 shapes it: {values = {[0] = {ptr = s, len = n},
 * ...}} for the row fetched last (ptr is a string, which ffi.string()
 * accepts like a pointer; nil for SQL NULL). Built on demand: scripts
 * rarely read it, and fetch_row() must not pay for it.
 */
static int push_row_view(lua_State *L, struct lresult *r)
{
    const struct sb_conn *con = r->c->con;

    if (!r->have_row || !result_is_current(r) || con->rs.row == NULL) {
        lua_pushnil(L);
        return 1;
    }
    lua_createtable(L, 0, 1);
    lua_createtable(L, (int)r->nfields, 1);
    for (unsigned i = 0; i < r->nfields; i++) {
        lua_createtable(L, 0, 2);
        if (con->rs.row[i].ptr != NULL) {
            lua_pushlstring(L, con->rs.row[i].ptr, con->rs.row[i].len);
            lua_setfield(L, -2, "ptr");
        }
        lua_pushnumber(L, (lua_Number)con->rs.row[i].len);
        lua_setfield(L, -2, "len");
        lua_rawseti(L, -2, (int)i);
    }
    lua_setfield(L, -2, "values");
    return 1;
}

/* The fields sysbench 1.0 has besides nrows/nfields: counter, statement
 * (the statement that produced the rows, or nil for a query) and row. */
static int result_field(lua_State *L, struct lresult *r, const char *k)
{
    if (strcmp(k, "counter") == 0) {
        lua_pushinteger(L, counter_of(r->kind));
    } else if (strcmp(k, "statement") == 0) {
        if (r->from_stmt) {
            lua_getfenv(L, 1);
            lua_getfield(L, -1, "statement");
        } else {
            lua_pushnil(L);
        }
    } else if (strcmp(k, "row") == 0) {
        return push_row_view(L, r);
    } else {
        lua_pushnil(L);
    }
    return 1;
}

static int result_index(lua_State *L)
{
    struct lresult *r = luaL_checkudata(L, 1, MT_RESULT);
    const char *k = luaL_checkstring(L, 2);
    if (strcmp(k, "nrows") == 0)
        lua_pushnumber(L, (lua_Number)r->nrows);
    else if (strcmp(k, "nfields") == 0)
        lua_pushinteger(L, (lua_Integer)r->nfields);
    else {
        luaL_getmetatable(L, MT_RESULT);
        lua_getfield(L, -1, "__methods");
        lua_getfield(L, -1, k);
        /* sysbench 1.0's fields come after the methods, so that method
         * calls pay nothing for them. */
        if (lua_isnil(L, -1))
            return result_field(L, r, k);
    }
    return 1;
}

/* After a statement ran: a result object when rows came back, else the
 * shared empty result (upvalue 1 of query and execute: see
 * sysbench_sql.lua), which like sysbench 1.0's NULL result is truthy and
 * equals nil. The caller has already bumped rs_gen, before raising any
 * error, so that results of earlier statements are invalid on every path. */
struct lresult *sb_lsql_push_rows_or_empty(lua_State *L, struct lconn *c, enum sb_query_kind kind)
{
    if (c->con->rs.active)
        return push_result(L, c, kind);
    lua_pushvalue(L, lua_upvalueindex(1));
    return NULL;
}

void sb_lsql_open_result(lua_State *L)
{
    static const luaL_Reg result_m[] = {
        {"fetch_row", result_fetch_row}, {"free", result_free}, {NULL, NULL}};

    sb_lsql_new_class(L, MT_RESULT, result_m, result_index, NULL, result_gc);
    sb_lsql_set_tostring(L, MT_RESULT, "<sql_result>");
}
