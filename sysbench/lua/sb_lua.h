/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_LUA_H
#define SB_LUA_H

/*
 * Lua states: the main state (script body, options, init/done, commands)
 * and one state per worker thread. Every call into Lua goes through
 * sb_lua_pcall, which adds a traceback to string errors and turns any error
 * into one line naming the script, line and message.
 */

#include <stdbool.h>
#include <stddef.h>
#include <lua.h>
#include "core/sb_args.h"
#include "drivers/sb_driver.h"
#include "pure/sb_rand.h"
#include "config/sb_point.h"
#include "config/sb_lua_env.h"
#include "lua/sb_lua_call.h"
#include "lua/sb_lua_opts.h"

struct sb_builtin;

/* Per-state binding to its thread's owned objects. */
struct sb_lua_thread {
    int tid;                   /* worker id, or -1 for the main state */
    struct sb_rand *rand;      /* the thread's generator (owned by caller) */
    struct sb_db_counters *counters; /* where SQL work is counted */
};

/*
 * Creates a state: standard libraries, the built-in modules, package.path
 * (./?.lua, ./?/init.lua, the scenario directory, LUA_PATH), sysbench.*
 * values for `thr`, and, when with_opts is true, sysbench.opt. Then loads
 * and runs the script body. Returns NULL with one line in err (capacity
 * errlen) on failure. The state borrows env and thr, which must outlive it.
 */
lua_State *sb_lua_new_state(const struct sb_lua_env *env,
                            const struct sb_lua_thread *thr, bool with_opts,
                            char *err, size_t errlen);

/*
 * The first steps of sb_lua_new_state, without the script: a state with
 * the standard libraries, the built-in modules (run), the values for thr
 * and, when with_opts is true, the options. NULL with one line in err on
 * failure. Borrows env and thr as sb_lua_new_state does.
 */
lua_State *sb_lua_new_base(const struct sb_lua_env *env, const struct sb_lua_thread *thr,
                           bool with_opts, char *err, size_t errlen);

/* Compiles the script (env's file or text) and pushes its chunk,
 * not run. Returns 0, or -1 with one line in err and nothing pushed. */
int sb_lua_load_script(lua_State *L, const struct sb_lua_env *env, char *err, size_t errlen);

/* Marks the main state as running a benchmark (init() to done() of every
 * point): os.exit() then raises an error instead of ending the process,
 * so that the report and the result files are still written. */
void sb_lua_set_running(lua_State *L, bool running);

/* Closes a state made by sb_lua_new_state. */
void sb_lua_close(lua_State *L);

/* Gives up a state without closing it, for one that ran out of memory
 * before the run started: lua_close would run the finalizers of all it
 * built (millions of statements at 1,000,000 tables), which need memory
 * it cannot get, for minutes. Its memory goes with the process. */
void sb_lua_drop(lua_State *L);

/* True when the global function `name` is defined in L. */
bool sb_lua_has_function(lua_State *L, const char *name);

/* True when the script defines its own global thread_run, not the default
 * one sysbench 1.0 scripts may wrap (sysbench.__default_thread_run, which
 * only runs the built-in event loop, sysbench.__run_events). */
bool sb_lua_has_script_thread_run(lua_State *L);

/* Pushes the function a worker thread runs: the script's own thread_run,
 * else sysbench.__run_events; when the script replaced the sysbench
 * module, a function that raises one clear error. Never raises itself
 * (raw lookups), so it may be called outside lua_pcall. */
void sb_lua_push_thread_run(lua_State *L);

/*
 * Calls global function `name` (if defined) with an optional integer
 * argument (pass arg < 0 for none). Returns 0 when done or not defined,
 * -1 with err on a Lua error. *result receives the truthiness of its first
 * return value when result is not NULL.
 */
int sb_lua_call_global(lua_State *L, const char *name, int arg, bool *result,
                       char *err, size_t errlen);

/* What sysbench.cmdline.commands[name] is. */
enum sb_lua_command {
    SB_LUA_COMMAND_NONE,     /* not defined there */
    SB_LUA_COMMAND_PLAIN,    /* run once, in the main state */
    SB_LUA_COMMAND_PARALLEL  /* run in --threads threads (PARALLEL_COMMAND) */
};

/* Looks up sysbench.cmdline.commands[name]. */
enum sb_lua_command sb_lua_command_kind(lua_State *L, const char *name);

/* Runs sysbench.cmdline.commands[name] (or the global function `name`) in
 * L, passing the thread id for parallel commands (tid < 0: none). */
int sb_lua_run_command(lua_State *L, const char *name, int tid,
                       char *err, size_t errlen);

/* The directory of the bundled scenario scripts this binary uses: the
 * source tree's when run from its build directory, else the installed one. */
const char *sb_lua_scenario_dir(void);

/* Registers the sysbench.sql native functions (sb_lua_sql.c); used by
 * sb_lua.c while building a state. */
int sb_lua_sql_open(lua_State *L);

#endif /* SB_LUA_H */
