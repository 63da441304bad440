/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_LUA_SHARED_H
#define SB_LUA_SHARED_H

/*
 * One Lua state shared by the connections a client thread multiplexes
 * (sb_loop.h). Each connection is a table of globals of its own that falls
 * back to the state's (LuaJIT's setfenv), and runs its events in a
 * coroutine of its own. The script and the modules it requires are
 * compiled once; their chunks run once per connection under its globals,
 * so every connection has its own closures, upvalues and globals (the
 * per-thread semantics of sysbench 1.0 scripts: thread_init globals,
 * sysbench.tid, prepared statements), while bytecode, built-in modules,
 * FFI declarations and JIT traces are shared. What a script can still
 * share by accident is in doc/design.md ("One Lua state per client
 * thread").
 *
 * All functions are for the one thread that created the state. The SQL
 * layer finds the connection that runs (its counters) through the state's
 * current binding, which sb_lua_conn_enter sets: call it before every
 * resume of a connection's coroutine. The random generator the
 * connection's code draws from is the thread's bound one
 * (sb_ffi_rand_bind), which the caller binds as well.
 */

#include <stdbool.h>
#include <stddef.h>
#include <lua.h>

#include "lua/sb_lua.h"

struct sb_lua_shared;

/* A connection's place in a shared state. All zero: none (the worker has
 * a state of its own). */
struct sb_lua_conn {
    struct sb_lua_shared *sh;      /* borrowed; NULL: not shared */
    int env;                       /* registry reference of its globals */
    int co;                        /* registry reference of its coroutine */
    bool open;                     /* its globals were made */
};

/*
 * Creates the shared state for env's script: libraries, built-in modules,
 * options (the legacy module's globals among them, shared), the script
 * compiled. Returns NULL with one line in err on failure. Borrows env.
 */
struct sb_lua_shared *sb_lua_shared_new(const struct sb_lua_env *env, char *err,
                                        size_t errlen);

/* The set-up of the connections is over: collects the garbage it left and
 * sets the collector for the run. */
void sb_lua_shared_ready(struct sb_lua_shared *sh);

/* Closes the state, and with it the database connections its connections
 * left open (their finalizers); after every sb_lua_conn_close. A state
 * that ran out of memory is given up instead (sb_lua_drop). NULL: none. */
void sb_lua_shared_close(struct sb_lua_shared *sh);

/* A connection's coroutine ran out of memory: the state is not used again
 * (no thread_done of the others; given up, not closed, at the end). */
void sb_lua_shared_oom(struct sb_lua_shared *sh);

/*
 * Makes connection c (c->sh set by the caller) for thr (borrowed; must
 * outlive c): its globals (thread_id and an implicit db_* connection of
 * its own among them), then the script body run under them. Returns 0,
 * or -1 with one line in err.
 */
int sb_lua_conn_open(struct sb_lua_conn *c, const struct sb_lua_thread *thr, char *err,
                     size_t errlen);

/* Makes c the connection the state serves (the SQL layer's counters, the
 * hooks the built-in modules call). Cheap: no Lua call. */
void sb_lua_conn_enter(struct sb_lua_conn *c, const struct sb_lua_thread *thr);

/*
 * Calls c's global function `name` (thread_init, thread_done) with
 * argument arg, after sb_lua_conn_enter; as sb_lua_call_global otherwise
 * (0 when done or not defined, -1 with err on an error).
 */
int sb_lua_conn_call(struct sb_lua_conn *c, const struct sb_lua_thread *thr, const char *name,
                     int arg, char *err, size_t errlen);

/*
 * Creates c's coroutine with sysbench.__mux_run(tid, globals) on its stack,
 * ready for its first lua_resume (2 arguments). NULL with one line in err
 * when the script broke the built-in loop.
 */
lua_State *sb_lua_conn_coroutine(struct sb_lua_conn *c, int tid, char *err, size_t errlen);

/* Drops c's globals and coroutine (their memory goes at the next
 * collection; its database connections with the state). */
void sb_lua_conn_close(struct sb_lua_conn *c);

#endif /* SB_LUA_SHARED_H */
