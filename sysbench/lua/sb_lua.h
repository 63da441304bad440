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

struct sb_builtin;

/* What every state needs to know about the run; read-only once threads
 * start. Owned by main. */
struct sb_lua_env {
    const char *script_path;   /* NULL when the script comes from stdin */
    const char *script_text;   /* the script read from stdin, or NULL */
    size_t script_len;
    const char *command;       /* NULL when none */
    int argc;
    char **argv;               /* the whole command line */
    const struct sb_optset *general;
    const struct sb_optset *const *driver_sets; /* NULL-ended */
    struct sb_optset *script_opts; /* filled from sysbench.cmdline.options */
    const struct sb_driver_ops *driver; /* the chosen driver (may be NULL) */
    const char *driver_error;  /* why driver is NULL, for sysbench.sql.driver() */
    /* The point being run (threads, target rate; sb_point.h): what
     * sysbench.opt.threads and tx_rate show. Never NULL once main set it;
     * a run gives its states a copy of env pointing at its own point. */
    const struct sb_point_config *point;
    /* The script declares no sysbench.cmdline.options: every option is
     * also a global (sysbench 1.0's legacy interface). Set by main before
     * worker states are made. */
    bool opts_as_globals;
    /* Why this driver runs, for the run header: "--db-driver",
     * "from --mysql-host", "default". Static or owned by main. */
    const char *driver_reason;
    /* The compiled-in test being run (sysbench/builtin/sb_builtin.h), or
     * NULL for a Lua script: its workers run its C events. */
    const struct sb_builtin *builtin;
};

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

/*
 * Reads sysbench.cmdline.options from the main state into `set` through
 * the cmdline module (sb_lua_opts.c), which checks every entry first.
 * *declared tells whether the script declared the table at all. Returns 0
 * or -1 with a one-line reason (a malformed table, a replaced `sysbench`).
 */
int sb_lua_declare_script_options(lua_State *L, struct sb_optset *set, bool *declared,
                                  char *err, size_t errlen);

/*
 * Calls the validator (4th element of the declaration) of every option of
 * `set` the user gave, with the name and the value as text. Returns 0, or
 * -1 with "invalid option: --name=value ..." when one returns a false
 * value, or the validator's error.
 */
int sb_lua_validate_script_options(lua_State *L, const struct sb_optset *set,
                                   char *err, size_t errlen);

/*
 * For scripts that declare no options (sysbench 1.0 accepts anything
 * then): adds every argument no set claimed to `set` as a string option
 * set to its value ("" when bare) and marks it used. Returns 0 or -1 with
 * err.
 */
int sb_lua_accept_undeclared(struct sb_args *args, struct sb_optset *set,
                             char *err, size_t errlen);

/* Sets sysbench.opt in L from all option sets of env, and the globals when
 * env->opts_as_globals. Never raises a Lua error. */
void sb_lua_export_options(lua_State *L, const struct sb_lua_env *env);

/* Updates what differs between the points of a sweep (threads, tx_rate
 * and their aliases) in L's sysbench.opt, and in the globals when
 * env->opts_as_globals, to env->point. Only keys already there change.
 * Never raises a Lua error. */
void sb_lua_export_point(lua_State *L, const struct sb_lua_env *env);

/* The generator 1.0's sb_rand_* functions use in the calling thread (the
 * one its Lua state bound; NULL if none), and binding one: a thread that
 * runs another thread's state (sb_run_guarded) takes over its generator. */
struct sb_rand;
struct sb_rand *sb_ffi_rand_current(void);
void sb_ffi_rand_bind(struct sb_rand *r);

/* Pushes t[key] of the table at idx without metamethods, or nil when the
 * value at idx is not a table. Never raises a Lua error. */
void sb_lua_rawfield(lua_State *L, int idx, const char *key);

/* Looks up sysbench.cmdline.commands[name]: returns 1 for a plain command,
 * 2 for a parallel one, 0 when not defined. */
int sb_lua_command_kind(lua_State *L, const char *name);

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

/* The error codes of sysbench.error. */
#define SB_LUA_ERROR_NONE 0
#define SB_LUA_ERROR_RESTART_EVENT 1

#endif /* SB_LUA_H */
