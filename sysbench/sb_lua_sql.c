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
#include "sb_lua_sql.h"

#define MT_DRIVER "sysbench.sql.driver"
#define MT_CONN "sysbench.sql.connection"
#define MT_STMT "sysbench.sql.statement"
#define MT_PARAM "sysbench.sql.param"
#define MT_RESULT "sysbench.sql.result"

/* con.error, as sysbench 1.0 numbers it (sysbench.sql.error). */
enum lconn_error {
    LCONN_ERROR_NONE = 0,
    LCONN_ERROR_IGNORABLE = 1,
    LCONN_ERROR_FATAL = 2
};

struct lconn {
    struct sb_conn *con;   /* NULL once disconnected */
    int refs;              /* the connection object and its statements */
    uint64_t rs_gen;       /* bumped whenever the current result changes */
    enum lconn_error last_error; /* of the last statement (con.error) */
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
    enum sb_query_kind kind; /* rs.counter */
    bool from_stmt;        /* the environment holds the statement */
    bool have_row;         /* a fetched row is current (rs.row) */
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

static void push_driver(lua_State *L, const struct sb_driver_ops *drv);

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
        lconn_unref(r->c);
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
static struct lresult *push_rows_or_empty(lua_State *L, struct lconn *c, enum sb_query_kind kind)
{
    if (c->con->rs.active)
        return push_result(L, c, kind);
    lua_pushvalue(L, lua_upvalueindex(1));
    return NULL;
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
    /* Only row-returning statements get here with rows: count them as
     * reads, as sysbench 1.0's rs.counter does. */
    push_rows_or_empty(L, c, SB_QUERY_READ);
    return 1;
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
    struct lconn *c = check_conn(L, 1);
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
                push_driver(L, con->drv);
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
    struct lconn *c = check_conn(L, 1);
    const char *v = c->con->drv->server_version ? c->con->drv->server_version(c->con) : NULL;
    if (v)
        lua_pushstring(L, v);
    else
        lua_pushnil(L);
    return 1;
}

/* ------------------------------------------------------------ driver */

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
    push_driver(L, drv);
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

    if (n == 0) {
        lua_pushnil(L); /* sysbench 1.0 binds nothing and says nil */
        return 1;
    }
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
    lua_pushinteger(L, 0); /* sysbench 1.0 returns db_bind_param()'s 0 */
    return 1;
}

static int stmt_execute(lua_State *L)
{
    struct lstmt *s = check_stmt(L, 1);
    enum sb_db_outcome o = sb_db_execute(s->st);
    struct lresult *r;
    int conn_idx;

    s->c->rs_gen++;
    if (o != SB_DB_DONE) {
        lua_getfenv(L, 1);
        lua_getfield(L, -1, "connection");
        conn_idx = lua_gettop(L);
        raise_outcome(L, conn_idx, s->c, o, s->st->sql);
    }
    s->c->last_error = LCONN_ERROR_NONE;
    r = push_rows_or_empty(L, s->c, s->st->kind);
    if (r != NULL) {
        /* rs.statement: the statement's environment names it. */
        r->from_stmt = true;
        lua_getfenv(L, 1);
        lua_setfenv(L, -2);
    }
    return 1;
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
    lua_pushinteger(L, 0); /* sysbench 1.0 returns db_close()'s 0 */
    return 1;
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

/* ------------------------------------------------------------ 1.0 fields */

/*
 * native.param_fields(p): what sysbench 1.0 exposes of a parameter, for
 * the Lua side to turn into param.type/buffer/max_len/data_len/is_null:
 * returns the declared type, the addresses of the value, the length and
 * the null flag (light userdata) and the capacity of a text value.
 */
static int param_fields(lua_State *L)
{
    struct sb_bind *p = luaL_checkudata(L, 1, MT_PARAM);
    void *value;

    switch (p->type) {
    case SB_SQL_TINYINT:
    case SB_SQL_SMALLINT:
    case SB_SQL_INT:
    case SB_SQL_BIGINT:
        value = &p->i;
        break;
    case SB_SQL_FLOAT:
    case SB_SQL_DOUBLE:
        value = &p->d;
        break;
    default:
        value = p->str;
        break;
    }
    lua_pushinteger(L, p->type);
    lua_pushlightuserdata(L, value);
    lua_pushlightuserdata(L, &p->len);
    lua_pushlightuserdata(L, &p->is_null);
    lua_pushnumber(L, p->cap > 0 ? (lua_Number)(p->cap - 1) : 0);
    return 5;
}

/* native.stmt_connection(st): the connection object of a statement. */
static int stmt_connection(lua_State *L)
{
    luaL_checkudata(L, 1, MT_STMT);
    lua_getfenv(L, 1);
    lua_getfield(L, -1, "connection");
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

/* tostring() of the objects, as sysbench 1.0 prints them. */
static void set_tostring(lua_State *L, const char *mt, const char *text)
{
    luaL_getmetatable(L, mt);
    lua_pushstring(L, text);
    lua_pushcclosure(L, class_tostring, 1);
    lua_setfield(L, -2, "__tostring");
    lua_pop(L, 1);
}

/* Makes methods[name] a closure of f with one upvalue (nil until
 * set_empty_result fills it). */
static void set_method_closure(lua_State *L, const char *mt, const char *name, lua_CFunction f)
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

    new_class(L, MT_DRIVER, driver_m, driver_index, NULL, NULL);
    new_class(L, MT_CONN, conn_m, conn_index, conn_newindex, conn_gc);
    new_class(L, MT_STMT, stmt_m, NULL, NULL, stmt_gc);
    new_class(L, MT_PARAM, param_m, NULL, NULL, param_gc);
    new_class(L, MT_RESULT, result_m, result_index, NULL, result_gc);
    set_method_closure(L, MT_CONN, "query", conn_query);
    set_method_closure(L, MT_STMT, "execute", stmt_execute);
    set_tostring(L, MT_DRIVER, "<sql_driver>");
    set_tostring(L, MT_CONN, "<sql_connection>");
    set_tostring(L, MT_STMT, "<sql_statement>");
    set_tostring(L, MT_PARAM, "<sql_param>");
    set_tostring(L, MT_RESULT, "<sql_result>");

    /* The native half of sysbench.sql; sysbench_sql.lua completes it. */
    lua_newtable(L);
    lua_pushcfunction(L, sql_driver);
    lua_setfield(L, -2, "driver");
    lua_pushcfunction(L, param_fields);
    lua_setfield(L, -2, "param_fields");
    lua_pushcfunction(L, stmt_connection);
    lua_setfield(L, -2, "stmt_connection");
    lua_pushcfunction(L, set_empty_result);
    lua_setfield(L, -2, "set_empty_result");
    return 1;
}
