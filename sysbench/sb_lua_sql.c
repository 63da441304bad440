/*
 * sysbench.sql for Lua: drivers, connections, prepared statements,
 * parameters and result sets as userdata over the common driver layer
 * (sb_driver.h). The Lua-level helpers (query_row, bulk inserts) live in
 * the built-in module sysbench_sql.lua on top of these.
 *
 * Ownership: a connection's C state (struct lconn) is shared with its
 * statements and freed when the last of them is collected, so the order in
 * which the garbage collector finalises them never matters. Result sets
 * are views of the connection's one current result and become invalid
 * (an error, not a crash) once the connection runs another statement.
 */
#include <errno.h>
#include <lauxlib.h>
#include <lua.h>
#include <stdlib.h>
#include <string.h>

#include "sb_driver.h"
#include "sb_lua.h"

#define MT_DRIVER "sysbench.sql.driver"
#define MT_CONN "sysbench.sql.connection"
#define MT_STMT "sysbench.sql.statement"
#define MT_PARAM "sysbench.sql.param"
#define MT_RESULT "sysbench.sql.result"

struct lconn {
    struct sb_conn *con;   /* NULL once disconnected */
    int refs;              /* the connection object and its statements */
    uint64_t rs_gen;       /* bumped whenever the current result changes */
};

struct ldriver {
    const struct sb_driver_ops *drv;
};

struct lconn_ud {
    struct lconn *c;
};

struct lstmt {
    struct lconn *c;
    struct sb_stmt *st;    /* NULL once closed */
    struct sb_bind **params;
};

struct lresult {
    struct lconn *c;
    uint64_t gen;
    uint64_t nrows;
    unsigned nfields;
};

static void lconn_unref(struct lconn *c)
{
    if (--c->refs == 0) {
        if (c->con != NULL)
            sb_db_disconnect(c->con);
        free(c);
    }
}

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

static struct lconn *check_conn(lua_State *L, int idx)
{
    struct lconn_ud *u = luaL_checkudata(L, idx, MT_CONN);
    if (u->c == NULL || u->c->con == NULL)
        luaL_error(L, "connection is closed");
    return u->c;
}

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
static void raise_outcome(lua_State *L, int conn_idx, struct lconn *c,
                          enum sb_db_outcome o, const char *query)
{
    struct sb_conn *con = c->con;

    if (o == SB_DB_DONE)
        return;
    push_error_table(L, conn_idx, con, query);
    if (o == SB_DB_IGNORED || o == SB_DB_RECONNECTED)
        lua_error(L);
    if (script_says_ignorable(L)) {
        sb_db_count_ignored(con);
        lua_error(L);
    }
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

/* ------------------------------------------------------------ results */

static void push_result(lua_State *L, struct lconn *c)
{
    struct lresult *r = lua_newuserdata(L, sizeof(*r));
    r->c = c;
    c->refs++;
    r->gen = c->rs_gen;
    r->nrows = c->con->rs.nrows;
    r->nfields = c->con->rs.nfields;
    luaL_getmetatable(L, MT_RESULT);
    lua_setmetatable(L, -2);
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
    return 0;
}

static int result_gc(lua_State *L)
{
    struct lresult *r = luaL_checkudata(L, 1, MT_RESULT);
    if (r->c != NULL)
        lconn_unref(r->c);
    r->c = NULL;
    return 0;
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
    }
    return 1;
}

/* After a statement ran: a result object when rows came back, else nil.
 * The caller has already bumped rs_gen, before raising any error, so that
 * results of earlier statements are invalid on every path. */
static int push_rows_or_nothing(lua_State *L, struct lconn *c)
{
    if (c->con->rs.active) {
        push_result(L, c);
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------ connection */

static int conn_query(lua_State *L)
{
    struct lconn *c = check_conn(L, 1);
    size_t len;
    const char *sql = luaL_checklstring(L, 2, &len);
    enum sb_db_outcome o = sb_db_query(c->con, sql, len);

    c->rs_gen++;
    raise_outcome(L, 1, c, o, sql);
    return push_rows_or_nothing(L, c);
}

static int conn_prepare(lua_State *L)
{
    struct lconn *c = check_conn(L, 1);
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
    lua_createtable(L, 0, 2);
    lua_pushvalue(L, 1);
    lua_setfield(L, -2, "connection");
    lua_setfenv(L, -2);
    return 1;
}

static int conn_reconnect(lua_State *L)
{
    struct lconn *c = check_conn(L, 1);
    enum sb_db_outcome o = sb_db_reconnect(c->con);
    c->rs_gen++;
    if (o != SB_DB_DONE)
        return luaL_error(L, "reconnect failed: %s", c->con->err.msg);
    return 0;
}

static int conn_disconnect(lua_State *L)
{
    struct lconn_ud *u = luaL_checkudata(L, 1, MT_CONN);
    if (u->c != NULL && u->c->con != NULL) {
        sb_db_disconnect(u->c->con);
        u->c->con = NULL;
        u->c->rs_gen++;
    }
    return 0;
}

static int conn_gc(lua_State *L)
{
    struct lconn_ud *u = luaL_checkudata(L, 1, MT_CONN);
    if (u->c != NULL) {
        /* Statements may outlive this object; the C connection goes when
         * the last reference does. */
        lconn_unref(u->c);
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
        /* Methods, then fields a script stored on the connection. */
        luaL_getmetatable(L, MT_CONN);
        lua_getfield(L, -1, "__methods");
        lua_getfield(L, -1, k);
        if (lua_isnil(L, -1)) {
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
    struct lconn *c = check_conn(L, 1);
    const char *v = c->con->drv->server_version ? c->con->drv->server_version(c->con) : NULL;
    if (v)
        lua_pushstring(L, v);
    else
        lua_pushnil(L);
    return 1;
}

/* ------------------------------------------------------------ driver */

static int driver_name(lua_State *L)
{
    struct ldriver *d = luaL_checkudata(L, 1, MT_DRIVER);
    lua_pushstring(L, d->drv->name);
    return 1;
}

static int driver_connect(lua_State *L)
{
    struct ldriver *d = luaL_checkudata(L, 1, MT_DRIVER);
    const struct sb_lua_thread *t = thread_of(L);
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
    const struct sb_lua_env *env = env_of(L);
    const char *name = luaL_optstring(L, 1, NULL);
    struct ldriver *d;

    if (env->driver == NULL)
        return luaL_error(L, "%s", env->driver_error ? env->driver_error
                                                     : "no database driver is initialised");
    if (name != NULL && strcmp(name, env->driver->name) != 0)
        return luaL_error(L, "database driver '%s' is not the one selected by --db-driver (%s)",
                          name, env->driver->name);
    d = lua_newuserdata(L, sizeof(*d));
    d->drv = env->driver;
    luaL_getmetatable(L, MT_DRIVER);
    lua_setmetatable(L, -2);
    return 1;
}

/* ------------------------------------------------------------ statements */

static struct lstmt *check_stmt(lua_State *L, int idx)
{
    struct lstmt *s = luaL_checkudata(L, idx, MT_STMT);
    if (s->st == NULL || s->c->con == NULL)
        luaL_error(L, "statement is closed");
    return s;
}

static int stmt_bind_create(lua_State *L)
{
    int type = (int)luaL_checkinteger(L, 2);
    lua_Integer maxlen = luaL_optinteger(L, 3, 0);
    struct sb_bind *p;

    check_stmt(L, 1);
    if (type <= SB_SQL_NONE || type > SB_SQL_VARCHAR)
        return luaL_error(L, "bind_create: unknown type %d", type);
    p = lua_newuserdata(L, sizeof(*p));
    memset(p, 0, sizeof(*p));
    p->type = (enum sb_sql_type)type;
    p->is_null = true;
    if (type >= SB_SQL_TIME) {
        /* Values travel as text. CHAR/VARCHAR are sized by the script's
         * max length (sysbench scripts always pass one; be lenient), dates
         * and times get room for any format when the script did not say. */
        size_t dflt = type == SB_SQL_CHAR || type == SB_SQL_VARCHAR ? 255 : 64;
        size_t cap = maxlen > 0 ? (size_t)maxlen : dflt;
        p->str = malloc(cap + 1);
        if (p->str == NULL)
            return luaL_error(L, "out of memory");
        p->cap = cap + 1;
        p->str[0] = '\0';
    }
    luaL_getmetatable(L, MT_PARAM);
    lua_setmetatable(L, -2);
    return 1;
}

static int stmt_bind_param(lua_State *L)
{
    struct lstmt *s = check_stmt(L, 1);
    int n = lua_gettop(L) - 1;

    if ((unsigned)n != s->st->nparams)
        return luaL_error(L, "bind_param: the statement has %d placeholders, got %d parameters",
                          (int)s->st->nparams, n);
    free(s->params);
    s->params = calloc((size_t)(n > 0 ? n : 1), sizeof(*s->params));
    if (s->params == NULL)
        return luaL_error(L, "out of memory");
    lua_getfenv(L, 1);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        s->params[i] = luaL_checkudata(L, i + 2, MT_PARAM);
        lua_pushvalue(L, i + 2);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "params");
    lua_pop(L, 1);
    sb_db_bind(s->st, s->params, (unsigned)n);
    return 0;
}

static int stmt_execute(lua_State *L)
{
    struct lstmt *s = check_stmt(L, 1);
    enum sb_db_outcome o = sb_db_execute(s->st);
    int conn_idx;

    s->c->rs_gen++;
    if (o != SB_DB_DONE) {
        lua_getfenv(L, 1);
        lua_getfield(L, -1, "connection");
        conn_idx = lua_gettop(L);
        raise_outcome(L, conn_idx, s->c, o, s->st->sql);
    }
    return push_rows_or_nothing(L, s->c);
}

static void stmt_release(struct lstmt *s)
{
    if (s->st != NULL && s->c->con != NULL)
        sb_db_close(s->st);
    s->st = NULL;
    free(s->params);
    s->params = NULL;
}

static int stmt_close(lua_State *L)
{
    struct lstmt *s = luaL_checkudata(L, 1, MT_STMT);
    stmt_release(s);
    return 0;
}

static int stmt_gc(lua_State *L)
{
    struct lstmt *s = luaL_checkudata(L, 1, MT_STMT);
    stmt_release(s);
    if (s->c != NULL)
        lconn_unref(s->c);
    s->c = NULL;
    return 0;
}

/* ------------------------------------------------------------ params */

static void param_set_text(struct sb_bind *p, const char *v, size_t len)
{
    if (p->str == NULL || p->cap == 0) {
        p->len = 0;
        return;
    }
    if (len > p->cap - 1)
        len = p->cap - 1; /* as a CHAR(n) column would: truncate */
    memcpy(p->str, v, len);
    p->str[len] = '\0';
    p->len = len;
}

/*
 * An integer argument: a Lua number, a numeric string, or a LuaJIT 64-bit
 * integer (cdata such as 123LL or sb_rand's uniform_uint64()), which
 * converts through tostring() without the precision loss of a double.
 */
static int64_t check_int64(lua_State *L, int idx)
{
    const char *s;
    char *end;
    long long v;

    if (lua_type(L, idx) == LUA_TNUMBER)
        return (int64_t)lua_tonumber(L, idx);
    lua_getglobal(L, "tostring");
    lua_pushvalue(L, idx);
    lua_call(L, 1, 1);
    s = lua_tostring(L, -1);
    if (s == NULL)
        luaL_argerror(L, idx, "integer expected");
    errno = 0;
    if (strstr(s, "ULL") != NULL)
        v = (long long)strtoull(s, &end, 10);
    else
        v = strtoll(s, &end, 10);
    if (end == s || errno != 0 ||
        (*end != '\0' && strcmp(end, "LL") != 0 && strcmp(end, "ULL") != 0))
        luaL_argerror(L, idx, "integer expected");
    lua_pop(L, 1);
    return (int64_t)v;
}

static int param_set(lua_State *L)
{
    struct sb_bind *p = luaL_checkudata(L, 1, MT_PARAM);

    if (lua_isnoneornil(L, 2)) {
        p->is_null = true;
        return 0;
    }
    p->is_null = false;
    switch (p->type) {
    case SB_SQL_TINYINT:
    case SB_SQL_SMALLINT:
    case SB_SQL_INT:
    case SB_SQL_BIGINT:
        p->i = check_int64(L, 2);
        break;
    case SB_SQL_FLOAT:
    case SB_SQL_DOUBLE:
        p->d = (double)luaL_checknumber(L, 2);
        break;
    default: {
        size_t len;
        const char *v = luaL_checklstring(L, 2, &len);
        param_set_text(p, v, len);
        break;
    }
    }
    return 0;
}

static int param_set_rand_str(lua_State *L)
{
    struct sb_bind *p = luaL_checkudata(L, 1, MT_PARAM);
    size_t len;
    const char *fmt = luaL_checklstring(L, 2, &len);
    const struct sb_lua_thread *t = thread_of(L);

    if (p->str == NULL)
        return luaL_error(L, "set_rand_str needs a CHAR or VARCHAR parameter");
    p->is_null = false;
    p->len = sb_rand_next_string(t->rand, fmt, len, p->str, p->cap);
    return 0;
}

static int param_gc(lua_State *L)
{
    struct sb_bind *p = luaL_checkudata(L, 1, MT_PARAM);
    free(p->str);
    p->str = NULL;
    return 0;
}

/* ------------------------------------------------------------ module */

static void new_class(lua_State *L, const char *name, const luaL_Reg *methods,
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

int sb_lua_sql_open(lua_State *L)
{
    static const luaL_Reg driver_m[] = {
        {"name", driver_name}, {"connect", driver_connect}, {NULL, NULL}};
    static const luaL_Reg conn_m[] = {
        {"query", conn_query}, {"prepare", conn_prepare},
        {"reconnect", conn_reconnect}, {"disconnect", conn_disconnect},
        {"close", conn_disconnect}, {"server_version", conn_server_version},
        {NULL, NULL}};
    static const luaL_Reg stmt_m[] = {
        {"bind_create", stmt_bind_create}, {"bind_param", stmt_bind_param},
        {"execute", stmt_execute}, {"close", stmt_close}, {NULL, NULL}};
    static const luaL_Reg param_m[] = {
        {"set", param_set}, {"set_rand_str", param_set_rand_str}, {NULL, NULL}};
    static const luaL_Reg result_m[] = {
        {"fetch_row", result_fetch_row}, {"free", result_free}, {NULL, NULL}};

    new_class(L, MT_DRIVER, driver_m, NULL, NULL, NULL);
    new_class(L, MT_CONN, conn_m, conn_index, conn_newindex, conn_gc);
    new_class(L, MT_STMT, stmt_m, NULL, NULL, stmt_gc);
    new_class(L, MT_PARAM, param_m, NULL, NULL, param_gc);
    new_class(L, MT_RESULT, result_m, result_index, NULL, result_gc);

    /* The native half of sysbench.sql; sysbench_sql.lua completes it. */
    lua_newtable(L);
    lua_pushcfunction(L, sql_driver);
    lua_setfield(L, -2, "driver");
    return 1;
}
