/*
 * sysbench.sql connections, and the Lua errors a statement's outcome raises.
 */
#include <errno.h>
#include <lauxlib.h>
#include <lua.h>
#include <stdlib.h>
#include <string.h>

#include "sb_lua_sql_internal.h"

/* ------------------------------------------------------------ errors */

/* Pushes the error table scripts receive: {connection, query, sql_errno,
 * sql_state, sql_errmsg, errcode}. */
static void push_error_table(lua_State *L, int conn_idx, struct sb_conn *con,
                             const char *query)
{
    lua_createtable(L, 0, 6);
    lua_pushvalue(L, conn_idx);
    lua_setfield(L, -2, "connection");
    lua_pushstring(L, query ? query : "");
    lua_setfield(L, -2, "query");
    lua_pushinteger(L, (lua_Integer)con->err.sql_errno);
    lua_setfield(L, -2, "sql_errno");
    lua_pushstring(L, con->err.sql_state);
    lua_setfield(L, -2, "sql_state");
    lua_pushstring(L, con->err.msg);
    lua_setfield(L, -2, "sql_errmsg");
    lua_pushinteger(L, SB_LUA_ERROR_RESTART_EVENT);
    lua_setfield(L, -2, "errcode");
    /* The SQL layer already counted it (as an error or a reconnect); the
     * event loop must not count it again. */
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, "counted");
}

/* Asks sysbench.hooks.sql_error_ignorable(err) about an error the policy
 * calls fatal. The error table is at the top of the stack. */
static int script_says_ignorable(lua_State *L)
{
    int yes = 0;
    lua_getglobal(L, "sysbench");
    if (lua_istable(L, -1)) {
        lua_getfield(L, -1, "hooks");
        if (lua_istable(L, -1)) {
            lua_getfield(L, -1, "sql_error_ignorable");
            if (lua_isfunction(L, -1)) {
                lua_pushvalue(L, -4);
                if (lua_pcall(L, 1, 1, 0) == 0)
                    yes = lua_toboolean(L, -1);
            }
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    return yes;
}

/*
 * Pushes "file:line: " for the innermost script frame. The SQL helpers
 * written in Lua (query_row, bulk inserts) run in the built-in modules,
 * and a message naming "[builtin sysbench.sql]" would not tell the user
 * which line of their script failed, so built-in frames are skipped.
 */
static void push_script_where(lua_State *L)
{
    lua_Debug ar;

    for (int level = 1; lua_getstack(L, level, &ar); level++) {
        if (lua_getinfo(L, "Sl", &ar) == 0 || ar.currentline <= 0)
            continue;
        if (strncmp(ar.short_src, "[builtin ", 9) == 0)
            continue;
        lua_pushfstring(L, "%s:%d: ", ar.short_src, ar.currentline);
        return;
    }
    lua_pushliteral(L, "");
}

/*
 * Turns an outcome into Lua behaviour: nothing for success; an error table
 * with errcode RESTART_EVENT for ignored errors and reconnects; otherwise a
 * string error "SQL error, errno = N, state = 'S': message" (unless the
 * script's sql_error_ignorable hook accepts it).
 */
void sb_lsql_raise_outcome(lua_State *L, int conn_idx, struct lconn *c,
                          enum sb_db_outcome o, const char *query)
{
    struct sb_conn *con = c->con;

    if (o == SB_DB_DONE) {
        c->last_error = LCONN_ERROR_NONE;
        return;
    }
    c->last_error = LCONN_ERROR_IGNORABLE;
    push_error_table(L, conn_idx, con, query);
    if (o == SB_DB_IGNORED || o == SB_DB_RECONNECTED)
        lua_error(L);
    if (script_says_ignorable(L)) {
        sb_db_count_ignored(con);
        lua_error(L);
    }
    c->last_error = LCONN_ERROR_FATAL;
    lua_pop(L, 1);
    {
        char line[1024];
        sb_db_format_error(con, line, sizeof(line));
        push_script_where(L);
        lua_pushfstring(L, "SQL error, errno = %d, state = '%s': %s", (int)con->err.sql_errno,
                        con->err.sql_state, line);
        lua_concat(L, 2);
        lua_error(L);
    }
}

/* ------------------------------------------------------------ connection */

int sb_lsql_conn_query(lua_State *L)
{
    struct lconn *c = sb_lsql_check_conn(L, 1);
    size_t len;
    const char *sql = luaL_checklstring(L, 2, &len);
    enum sb_db_outcome o = sb_db_query(c->con, sql, len);

    c->rs_gen++;
    sb_lsql_raise_outcome(L, 1, c, o, sql);
    /* Only row-returning statements get here with rows: count them as
     * reads, as sysbench 1.0's rs.counter does. */
    sb_lsql_push_rows_or_empty(L, c, SB_QUERY_READ);
    return 1;
}

static int conn_prepare(lua_State *L)
{
    struct lconn *c = sb_lsql_check_conn(L, 1);
    size_t len;
    const char *sql = luaL_checklstring(L, 2, &len);
    struct sb_stmt *st = sb_db_prepare(c->con, sql, len);
    struct lstmt *s;

    if (st == NULL) {
        char line[1024];
        sb_db_format_error(c->con, line, sizeof(line));
        return luaL_error(L, "SQL error, errno = %d, state = '%s': cannot prepare: %s",
                          (int)c->con->err.sql_errno, c->con->err.sql_state, line);
    }
    s = lua_newuserdata(L, sizeof(*s));
    memset(s, 0, sizeof(*s));
    s->c = c;
    c->refs++;
    s->st = st;
    luaL_getmetatable(L, MT_STMT);
    lua_setmetatable(L, -2);
    /* The environment keeps the connection object and the bound
     * parameters alive as long as the statement. */
    lua_createtable(L, 0, 3);
    lua_pushvalue(L, 1);
    lua_setfield(L, -2, "connection");
    /* For rs.statement: results of this statement share this table. */
    lua_pushvalue(L, -2);
    lua_setfield(L, -2, "statement");
    lua_setfenv(L, -2);
    return 1;
}

static int conn_reconnect(lua_State *L)
{
    struct lconn *c = sb_lsql_check_conn(L, 1);
    enum sb_db_outcome o = sb_db_reconnect(c->con);
    c->rs_gen++;
    if (o != SB_DB_DONE)
        return luaL_error(L, "reconnect failed: %s", c->con->err.msg);
    lua_pushboolean(L, 1);
    return 1;
}

static int conn_disconnect(lua_State *L)
{
    struct lconn_ud *u = luaL_checkudata(L, 1, MT_CONN);
    if (u->c != NULL && u->c->con != NULL) {
        sb_db_disconnect(u->c->con);
        u->c->con = NULL;
        u->c->rs_gen++;
    }
    lua_pushboolean(L, 1); /* as sysbench 1.0 */
    return 1;
}

static int conn_gc(lua_State *L)
{
    struct lconn_ud *u = luaL_checkudata(L, 1, MT_CONN);
    if (u->c != NULL) {
        /* Statements may outlive this object; the C connection goes when
         * the last reference does. */
        sb_lsql_conn_unref(u->c);
        u->c = NULL;
    }
    return 0;
}

static int conn_index(lua_State *L)
{
    struct lconn_ud *u = luaL_checkudata(L, 1, MT_CONN);
    const char *k = luaL_checkstring(L, 2);
    struct sb_conn *con = u->c ? u->c->con : NULL;

    if (strcmp(k, "sql_errno") == 0) {
        lua_pushinteger(L, con ? (lua_Integer)con->err.sql_errno : 0);
    } else if (strcmp(k, "sql_state") == 0) {
        lua_pushstring(L, con ? con->err.sql_state : "");
    } else if (strcmp(k, "sql_errmsg") == 0) {
        lua_pushstring(L, con ? con->err.msg : "");
    } else {
        /* Methods, then sysbench 1.0's error and driver fields, then
         * fields a script stored on the connection. */
        luaL_getmetatable(L, MT_CONN);
        lua_getfield(L, -1, "__methods");
        lua_getfield(L, -1, k);
        if (!lua_isnil(L, -1))
            return 1;
        if (strcmp(k, "error") == 0) {
            lua_pushinteger(L, u->c ? (lua_Integer)u->c->last_error : 0);
        } else if (strcmp(k, "driver") == 0) {
            if (con != NULL)
                sb_lsql_push_driver(L, con->drv);
            else
                lua_pushnil(L);
        } else {
            lua_getfenv(L, 1);
            lua_getfield(L, -1, k);
        }
    }
    return 1;
}

static int conn_newindex(lua_State *L)
{
    /* Scripts hang their own fields on connections; keep them in the
     * object's environment table. */
    luaL_checkudata(L, 1, MT_CONN);
    lua_getfenv(L, 1);
    lua_pushvalue(L, 2);
    lua_pushvalue(L, 3);
    lua_rawset(L, -3);
    return 0;
}

static int conn_server_version(lua_State *L)
{
    struct lconn *c = sb_lsql_check_conn(L, 1);
    const char *v = c->con->drv->server_version ? c->con->drv->server_version(c->con) : NULL;
    if (v)
        lua_pushstring(L, v);
    else
        lua_pushnil(L);
    return 1;
}

void sb_lsql_open_conn(lua_State *L)
{
    static const luaL_Reg conn_m[] = {
        {"query", sb_lsql_conn_query}, {"prepare", conn_prepare},
        {"reconnect", conn_reconnect}, {"disconnect", conn_disconnect},
        {"close", conn_disconnect}, {"server_version", conn_server_version},
        {NULL, NULL}};

    sb_lsql_new_class(L, MT_CONN, conn_m, conn_index, conn_newindex, conn_gc);
    sb_lsql_set_method_closure(L, MT_CONN, "query", sb_lsql_conn_query);
    sb_lsql_set_tostring(L, MT_CONN, "<sql_connection>");
}
