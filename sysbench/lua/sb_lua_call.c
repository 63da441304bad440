/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Protected calls and error descriptions; see sb_lua_call.h.
 */
#include <lauxlib.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/sb_log.h"
#include "lua/sb_lua_call.h"

/* Keeps string errors and adds a traceback after the first line; error
 * objects that are not strings (SQL error tables) pass through intact so
 * the caller can inspect them. */
static int traceback_handler(lua_State *L)
{
    if (lua_type(L, 1) != LUA_TSTRING)
        return 1;
    lua_getglobal(L, "debug");
    if (!lua_istable(L, -1)) {
        lua_pop(L, 1);
        return 1;
    }
    lua_getfield(L, -1, "traceback");
    lua_pushvalue(L, 1);
    lua_pushinteger(L, 2);
    lua_call(L, 2, 1);
    return 1;
}

/* Copies the first line of s[0, len) into err with control bytes (ESC,
 * CR, NUL ...) as \xNN, so no sink of the message (FATAL line, JSON,
 * terminal) gets raw bytes from the script; a longer text ends in "...". */
static void copy_first_line(const char *s, size_t len, char *err, size_t errlen)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;

    if (errlen == 0)
        return;
    for (size_t i = 0; i < len && s[i] != '\n'; i++) {
        unsigned char c = (unsigned char)s[i];
        bool plain = c >= 0x20 && c != 0x7f;
        if (o + (plain ? 1 : 4) + 4 >= errlen) {
            if (errlen > 4) {
                memcpy(err + o, "...", 3);
                o += 3;
            }
            break;
        }
        if (plain) {
            err[o++] = (char)c;
        } else {
            err[o++] = '\\';
            err[o++] = 'x';
            err[o++] = hex[c >> 4];
            err[o++] = hex[c & 15];
        }
    }
    err[o] = '\0';
}

/* Reads a field of an error table without metamethods: this runs outside
 * lua_pcall, where a raising __index would be a PANIC. */
static const char *raw_str_field(lua_State *L, const char *key, size_t *len)
{
    sb_lua_rawfield(L, -1, key);
    return lua_isstring(L, -1) ? lua_tolstring(L, -1, len) : NULL;
}

void sb_lua_describe_error(lua_State *L, char *err, size_t errlen)
{
    int top = lua_gettop(L);

    if (lua_type(L, -1) == LUA_TSTRING) {
        size_t len;
        const char *msg = lua_tolstring(L, -1, &len);
        const char *nl = memchr(msg, '\n', len);
        copy_first_line(msg, len, err, errlen);
        if (nl != NULL && sb_log_level() >= SB_LOG_DEBUG)
            sb_debug("%s", nl + 1);
    } else if (lua_istable(L, -1)) {
        int errno_v, restart;
        size_t n1 = 0, n2 = 0, n3 = 0;
        const char *state, *msg, *query;
        char s_state[64], s_msg[512], s_query[320];

        sb_lua_rawfield(L, -1, "sql_errno");
        errno_v = (int)lua_tointeger(L, -1);
        lua_pop(L, 1);
        sb_lua_rawfield(L, -1, "errcode");
        restart = (int)lua_tointeger(L, -1) == SB_LUA_ERROR_RESTART_EVENT;
        lua_pop(L, 1);
        state = raw_str_field(L, "sql_state", &n1);
        copy_first_line(state ? state : "", n1, s_state, sizeof(s_state));
        lua_pop(L, 1);
        query = raw_str_field(L, "query", &n3);
        copy_first_line(query ? query : "", n3, s_query, sizeof(s_query));
        lua_pop(L, 1);
        msg = raw_str_field(L, "sql_errmsg", &n2);
        copy_first_line(msg ? msg : "", n2, s_msg, sizeof(s_msg));
        if (msg != NULL)
            snprintf(err, errlen, "%sSQL error, errno = %d, state = '%s': %s%s%s",
                     restart ? "unhandled ignorable " : "", errno_v, s_state, s_msg,
                     *s_query ? " in query: " : "", s_query);
        else
            snprintf(err, errlen, "script raised an error object (a table) that is not a sysbench SQL error");
    } else {
        snprintf(err, errlen, "script raised an error of type %s",
                 lua_typename(L, lua_type(L, -1)));
    }
    lua_settop(L, top);
}

int sb_lua_pcall(lua_State *L, int nargs, int nres, char *err, size_t errlen)
{
    int base = lua_gettop(L) - nargs;
    int rc;

    lua_pushcfunction(L, traceback_handler);
    lua_insert(L, base);
    rc = lua_pcall(L, nargs, nres, base);
    if (rc != 0) {
        if (rc == LUA_ERRMEM)
            snprintf(err, errlen, "%s", SB_LUA_OOM);
        else
            sb_lua_describe_error(L, err, errlen);
        lua_pop(L, 1);
        lua_remove(L, base);
        return -1;
    }
    lua_remove(L, base);
    return 0;
}

bool sb_lua_is_oom(const char *err)
{
    /* The second: LuaJIT's message for the memory error, as a Lua pcall
     * (the event loop's) catches it and raises it again as a string. */
    return strncmp(err, SB_LUA_OOM, strlen(SB_LUA_OOM)) == 0 ||
           strcmp(err, "not enough memory") == 0;
}

void sb_lua_rawfield(lua_State *L, int idx, const char *key)
{
    if (lua_istable(L, idx)) {
        lua_pushstring(L, key);
        lua_rawget(L, idx < 0 && idx > LUA_REGISTRYINDEX ? idx - 1 : idx);
    } else {
        lua_pushnil(L);
    }
}
