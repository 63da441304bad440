/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_LUA_INTERRUPT_H
#define SB_LUA_INTERRUPT_H

/*
 * Interrupting Lua code after a signal. A signal handler can only set a
 * flag, and Lua that loops (`while true do end` in the script body, in
 * done() or in thread_done()) never looks at it. So every state made by
 * sb_lua_new_state is in one list, and after a signal the watcher thread
 * (sb_command.c) gives each a count hook (lua_sethook from another thread,
 * as lua.c and LuaJIT's luajit.c do from their SIGINT handler). The hook
 * raises SB_LUA_INTERRUPTED once SB_LUA_INTERRUPT_DELAY_S has passed, so
 * that a done() or a report hook that finishes quickly still does.
 *
 * LuaJIT checks hooks in its interpreter only, not in compiled traces:
 * the phases that are not the benchmark's hot path (script body, init,
 * thread_init, done, thread_done, report hooks) run with the JIT off
 * (sb_lua_call_global, sb_lua_new_state). An event() that loops in
 * compiled code is abandoned by the run instead (sb_run.h).
 */

#include <stdbool.h>
#include <lua.h>

/* The error message the hook raises. */
#define SB_LUA_INTERRUPTED "interrupted by a signal"
/* How long Lua may still run after the signal before it is interrupted. */
#define SB_LUA_INTERRUPT_DELAY_S 0.5

/* Adds L to the list (hooked at once when a signal came already). */
void sb_lua_interrupt_register(lua_State *L);
/* Removes L; called before lua_close. */
void sb_lua_interrupt_unregister(lua_State *L);
/* Hooks every listed state. Not async-signal-safe: the watcher thread
 * calls it. */
void sb_lua_interrupt_all(void);
/* Whether err (as sb_lua_pcall formats it) is the hook's interruption. */
bool sb_lua_is_interrupt(const char *err);

#endif /* SB_LUA_INTERRUPT_H */
