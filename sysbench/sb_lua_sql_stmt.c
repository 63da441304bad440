/*
 * sysbench.sql prepared statements and their parameters.
 */
#include <errno.h>
#include <lauxlib.h>
#include <lua.h>
#include <stdlib.h>
#include <string.h>

#include "sb_lua_sql_internal.h"

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

int sb_lsql_stmt_execute(lua_State *L)
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
        sb_lsql_raise_outcome(L, conn_idx, s->c, o, s->st->sql);
    }
    s->c->last_error = LCONN_ERROR_NONE;
    r = sb_lsql_push_rows_or_empty(L, s->c, s->st->kind);
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
        sb_lsql_conn_unref(s->c);
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
    const struct sb_lua_thread *t = sb_lsql_thread_of(L);

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

/*
 * native.param_fields(p): what sysbench 1.0 exposes of a parameter, for
 * the Lua side to turn into param.type/buffer/max_len/data_len/is_null:
 * returns the declared type, the addresses of the value, the length and
 * the null flag (light userdata) and the capacity of a text value.
 */
int sb_lsql_param_fields(lua_State *L)
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
int sb_lsql_stmt_connection(lua_State *L)
{
    luaL_checkudata(L, 1, MT_STMT);
    lua_getfenv(L, 1);
    lua_getfield(L, -1, "connection");
    return 1;
}

void sb_lsql_open_stmt(lua_State *L)
{
    static const luaL_Reg stmt_m[] = {
        {"bind_create", stmt_bind_create}, {"bind_param", stmt_bind_param},
        {"execute", sb_lsql_stmt_execute}, {"close", stmt_close}, {NULL, NULL}};
    static const luaL_Reg param_m[] = {
        {"set", param_set}, {"set_rand_str", param_set_rand_str}, {NULL, NULL}};

    sb_lsql_new_class(L, MT_STMT, stmt_m, NULL, NULL, stmt_gc);
    sb_lsql_new_class(L, MT_PARAM, param_m, NULL, NULL, param_gc);
    sb_lsql_set_method_closure(L, MT_STMT, "execute", sb_lsql_stmt_execute);
    sb_lsql_set_tostring(L, MT_STMT, "<sql_statement>");
    sb_lsql_set_tostring(L, MT_PARAM, "<sql_param>");
}
