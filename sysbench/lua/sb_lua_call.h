/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_LUA_CALL_H
#define SB_LUA_CALL_H

/*
 * Protected calls into a Lua state and the one-line description of what
 * they raised, plus raw table reads: what every part of the Lua binding
 * (the states, the options, the SQL API) uses to call Lua safely.
 */

#include <stdbool.h>
#include <stddef.h>
#include <lua.h>

/*
 * Calls the function on the stack below nargs arguments, protected, with a
 * traceback handler. Returns 0, or -1 with the error formatted in err
 * ("script.lua:12: message" for string errors; SQL error tables are
 * described by their fields). The function and arguments are popped; on
 * success nres results are left.
 */
int sb_lua_pcall(lua_State *L, int nargs, int nres, char *err, size_t errlen);

/* How sb_lua_pcall and sb_lua_call_global describe a Lua memory error
 * (the latter adds where: "... in thread_init() of a worker thread"). */
#define SB_LUA_OOM "out of memory (Lua)"
/* Whether err is such a description. A state that ran out of memory is
 * not used again (closing it may need memory it cannot get). */
bool sb_lua_is_oom(const char *err);

/* Describes the error value at the top of L's stack in one line into err
 * (a string's further lines, its traceback, go to the debug log). Leaves
 * the stack as it was. */
void sb_lua_describe_error(lua_State *L, char *err, size_t errlen);

/* Pushes t[key] of the table at idx without metamethods, or nil when the
 * value at idx is not a table. Never raises a Lua error. */
void sb_lua_rawfield(lua_State *L, int idx, const char *key);

/* The error codes of sysbench.error. */
#define SB_LUA_ERROR_NONE 0
#define SB_LUA_ERROR_RESTART_EVENT 1

#endif /* SB_LUA_CALL_H */
