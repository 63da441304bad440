/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Lua states and every call into them; see sb_lua.h.
 */
#include "config.h"

#include <lauxlib.h>
#include <lualib.h>
#include <luajit.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sb_log.h"
#include "core/sb_progress.h"
#include "lua/sb_lua.h"
#include "lua/sb_lua_call.h"
#include "lua/sb_lua_opts.h"
#include "lua/sb_lua_interrupt.h"
#include "lua/sb_lua_internal.h"
#include "config/sb_config.h"
#include "results/sb_text_report.h"


/* Globals are read raw: a script may give _G a metatable that raises on
 * unknown names (strict mode), and a lookup from C must not trigger it. */
static void raw_global(lua_State *L, const char *name)
{
    lua_pushstring(L, name);
    lua_rawget(L, LUA_GLOBALSINDEX);
}


/*
 * An error outside any pcall (lua_close running finalizers with the
 * memory exhausted, a C API call that fails): LuaJIT would print
 * "PANIC: ..." and exit. The run already said why when it failed (one
 * FATAL line is enough); otherwise this says it, once. Either way the
 * process ends here: the state cannot be used again.
 */
static int on_panic(lua_State *L)
{
    const char *msg = lua_tostring(L, -1);

    if (sb_log_first_fatal() == NULL)
        sb_fatal("Lua: %s (unprotected error)", msg != NULL ? msg : "out of memory");
    fflush(stdout);
    fflush(stderr);
    _exit(1);
    return 0;
}

/* Stands in for the event loop when the script replaced the sysbench
 * module: the run fails with one line instead of "attempt to call nil". */
static int replaced_module(lua_State *L)
{
    return luaL_error(L, "the script replaced the sysbench module");
}

bool sb_lua_has_function(lua_State *L, const char *name)
{
    bool yes;
    raw_global(L, name);
    yes = lua_isfunction(L, -1);
    lua_pop(L, 1);
    return yes;
}

bool sb_lua_has_script_thread_run(lua_State *L)
{
    bool yes;

    raw_global(L, "thread_run");
    if (!lua_isfunction(L, -1)) {
        lua_pop(L, 1);
        return false;
    }
    raw_global(L, "sysbench");
    sb_lua_rawfield(L, -1, "__default_thread_run");
    yes = !lua_rawequal(L, -1, -3);
    lua_pop(L, 3);
    return yes;
}

/* Raw lookups only: a script may set sysbench to nil, a number or a table
 * whose metatable raises, and a lookup from C outside lua_pcall would be
 * a PANIC that ends the process without a report. */
void sb_lua_push_thread_run(lua_State *L)
{
    bool module;

    raw_global(L, "sysbench");
    module = lua_istable(L, -1);
    lua_pop(L, 1);
    if (!module) {
        lua_pushcfunction(L, replaced_module);
        return;
    }
    if (sb_lua_has_script_thread_run(L)) {
        raw_global(L, "thread_run");
        return;
    }
    raw_global(L, "sysbench");
    sb_lua_rawfield(L, -1, "__run_events");
    lua_remove(L, -2);
    if (!lua_isfunction(L, -1)) {
        lua_pop(L, 1);
        lua_pushcfunction(L, replaced_module);
    }
}

int sb_lua_call_global(lua_State *L, const char *name, int arg, bool *result,
                       char *err, size_t errlen)
{
    int rc;

    raw_global(L, name);
    if (!lua_isfunction(L, -1)) {
        lua_pop(L, 1);
        if (result)
            *result = false;
        return 0;
    }
    if (arg >= 0)
        lua_pushinteger(L, arg);
    /* Not the hot path: interpreted, so that a signal's hook can stop a
     * loop in it (sb_lua_interrupt.h). */
    luaJIT_setmode(L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_OFF);
    rc = sb_lua_pcall(L, arg >= 0 ? 1 : 0, 1, err, errlen);
    luaJIT_setmode(L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_ON);
    /* Memory errors carry no position: say where. */
    if (rc != 0 && sb_lua_is_oom(err))
        snprintf(err, errlen, "%s in %s()%s", SB_LUA_OOM, name,
                 arg >= 0 ? " of a worker thread" : "");
    if (rc != 0)
        return -1;
    if (result)
        *result = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return 0;
}

/* ------------------------------------------------------------ modules */

static int load_internal(lua_State *L)
{
    const struct sb_lua_module *m = lua_touserdata(L, lua_upvalueindex(1));
    char chunk[128];

    /* SB_COMPAT=1.0: 1.0.20's chunk names, so that an error inside a
     * module reads [string "sysbench.cmdline.lua"]:LINE: as there. */
    if (sb_compat10())
        snprintf(chunk, sizeof(chunk), "%s.lua", m->name);
    else
        snprintf(chunk, sizeof(chunk), "@[builtin %s]", m->name);
    if (luaL_loadbuffer(L, m->source, m->len, chunk) != 0)
        return lua_error(L);
    lua_pushstring(L, m->name);
    lua_call(L, 1, 1);
    return 1;
}

static void register_internal_modules(lua_State *L)
{
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "preload");
    for (const struct sb_lua_module *m = sb_lua_internal_modules; m->name; m++) {
        lua_pushlightuserdata(L, (void *)m);
        lua_pushcclosure(L, load_internal, 1);
        lua_setfield(L, -2, m->name);
    }
    lua_pushcfunction(L, sb_lua_sql_open);
    lua_setfield(L, -2, "sysbench.sql.native");
    lua_pop(L, 2);
}

/* The directory of installed scenario scripts, or the source tree's when
 * this binary runs from its build directory. */
const char *sb_lua_scenario_dir(void)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

    if (n > 0) {
        char *slash;
        exe[n] = '\0';
        slash = strrchr(exe, '/');
        if (slash != NULL) {
            *slash = '\0';
            /* A literal, not a static buffer: worker threads call this
             * at once while building their states. */
            if (strcmp(exe, SB_ABS_BUILDDIR "/sysbench") == 0)
                return SB_ABS_SRCDIR "/sysbench/lua";
        }
    }
    return PKGDATADIR;
}

static void set_package_path(lua_State *L, const char *script_path)
{
    const char *old;
    char scriptdir[PATH_MAX] = "";

    if (script_path != NULL) {
        const char *slash = strrchr(script_path, '/');
        if (slash != NULL && slash != script_path)
            snprintf(scriptdir, sizeof(scriptdir), "%.*s/?.lua;",
                     (int)(slash - script_path), script_path);
    }
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "path");
    old = lua_tostring(L, -1);
    lua_pushfstring(L, "./?.lua;./?/init.lua;%s%s;%s/?.lua;%s/?/init.lua", scriptdir,
                    old ? old : "", sb_lua_scenario_dir(), sb_lua_scenario_dir());
    lua_setfield(L, -3, "path");
    lua_pop(L, 2);
}

/*
 * print() that writes each line with one stdio call. Lua's own print makes
 * a call per argument and another for the newline, so lines printed by
 * several worker threads at once came out interleaved.
 */
static int lua_print_line(lua_State *L)
{
    int n = lua_gettop(L);
    luaL_Buffer b;

    lua_getglobal(L, "tostring");
    luaL_buffinit(L, &b);
    for (int i = 1; i <= n; i++) {
        const char *s;
        lua_pushvalue(L, n + 1);
        lua_pushvalue(L, i);
        lua_call(L, 1, 1);
        s = lua_tostring(L, -1);
        if (s == NULL)
            return luaL_error(L, "'tostring' must return a string to 'print'");
        if (i > 1)
            luaL_addchar(&b, '\t');
        luaL_addvalue(&b);
    }
    luaL_addchar(&b, '\n');
    luaL_pushresult(&b);
    {
        size_t len;
        const char *line = lua_tolstring(L, -1, &len);
        sb_progress_hide(); /* a progress line on the terminal first */
        fwrite(line, 1, len, stdout);
    }
    return 0;
}

/* ------------------------------------------------------------ reporters */

/* Reads a report stat table (at idx) into s. */
static void stat_from_table(lua_State *L, int idx, struct sb_text_report_stat *s)
{
    memset(s, 0, sizeof(*s));
#define GETN(field)                          \
    lua_getfield(L, idx, #field);            \
    s->field = lua_tonumber(L, -1);          \
    lua_pop(L, 1)
    GETN(threads_running);
    GETN(time_interval);
    GETN(time_total);
    GETN(latency_pct);
    GETN(events);
    GETN(reads);
    GETN(writes);
    GETN(other);
    GETN(errors);
    GETN(reconnects);
    GETN(queue_length);
    GETN(concurrency);
#undef GETN
}

static int lua_report_default(lua_State *L)
{
    struct sb_text_report_stat s;
    luaL_checktype(L, 1, LUA_TTABLE);
    stat_from_table(L, 1, &s);
    sb_text_report_print_line_v1(&s, sb_cfg->npercentiles ? sb_cfg->percentiles[0] : 95,
                            stdout);
    return 0;
}

static int lua_report_csv(lua_State *L)
{
    struct sb_text_report_stat s;
    luaL_checktype(L, 1, LUA_TTABLE);
    stat_from_table(L, 1, &s);
    sb_text_report_print_csv(&s, stdout);
    return 0;
}

static int lua_report_json(lua_State *L)
{
    struct sb_text_report_stat s;
    luaL_checktype(L, 1, LUA_TTABLE);
    stat_from_table(L, 1, &s);
    sb_text_report_print_json(&s, stdout);
    return 0;
}

/* ------------------------------------------------------------ commands */

enum sb_lua_command sb_lua_command_kind(lua_State *L, const char *name)
{
    enum sb_lua_command kind = SB_LUA_COMMAND_NONE;
    int top = lua_gettop(L);

    raw_global(L, "sysbench");
    sb_lua_rawfield(L, -1, "cmdline");
    if (lua_istable(L, -1)) {
        sb_lua_rawfield(L, -1, "commands");
        if (lua_istable(L, -1)) {
            sb_lua_rawfield(L, -1, name);
            if (lua_istable(L, -1)) {
                lua_rawgeti(L, -1, 1);
                if (lua_isfunction(L, -1)) {
                    lua_rawgeti(L, -2, 2);
                    sb_lua_rawfield(L, -5, "PARALLEL_COMMAND");
                    kind = lua_rawequal(L, -1, -2) && !lua_isnil(L, -1)
                        ? SB_LUA_COMMAND_PARALLEL : SB_LUA_COMMAND_PLAIN;
                }
            } else if (lua_isfunction(L, -1)) {
                kind = SB_LUA_COMMAND_PLAIN;
            }
        }
    }
    lua_settop(L, top);
    return kind;
}

int sb_lua_run_command(lua_State *L, const char *name, int tid,
                       char *err, size_t errlen)
{
    int top = lua_gettop(L);
    bool found = false;

    raw_global(L, "sysbench");
    sb_lua_rawfield(L, -1, "cmdline");
    if (lua_istable(L, -1)) {
        sb_lua_rawfield(L, -1, "commands");
        if (lua_istable(L, -1)) {
            sb_lua_rawfield(L, -1, name);
            if (lua_istable(L, -1))
                lua_rawgeti(L, -1, 1);
            if (lua_isfunction(L, -1))
                found = true;
        }
    }
    if (!found) {
        lua_settop(L, top);
        raw_global(L, name);
        if (!lua_isfunction(L, -1)) {
            lua_settop(L, top);
            char quoted[SB_OPT_QUOTE_LEN];
            snprintf(err, errlen, "command '%s' is not implemented by the script",
                     sb_opt_quote(name, quoted, sizeof(quoted)));
            return -1;
        }
    }
    /* The function found in sysbench.cmdline.commands sits above the tables
     * that led to it; a global is already the only value above top, and
     * lua_replace() onto its own slot would pop it. */
    if (found) {
        lua_replace(L, top + 1);
        lua_settop(L, top + 1);
    }
    if (tid >= 0)
        lua_pushinteger(L, tid);
    if (sb_lua_pcall(L, tid >= 0 ? 1 : 0, 0, err, errlen) != 0) {
        lua_settop(L, top);
        return -1;
    }
    lua_settop(L, top);
    return 0;
}

/* ------------------------------------------------------------ states */

static void set_sysbench_values(lua_State *L, const struct sb_lua_env *env,
                                const struct sb_lua_thread *thr)
{
    lua_newtable(L);
    /* The main state (init, done, report hooks, plain commands) is thread
     * 0 to scripts, as in sysbench 1.0. */
    lua_pushinteger(L, thr->tid >= 0 ? thr->tid : 0);
    lua_setfield(L, -2, "tid");
    /* Scale-out (sb_instance.h): which of the instances this process is,
     * and this thread's connection index among all of theirs, so scripts
     * can shard keys and tables. */
    lua_pushinteger(L, sb_cfg->instance.index);
    lua_setfield(L, -2, "instance");
    lua_pushinteger(L, sb_cfg->instance.count > 0 ? sb_cfg->instance.count : 1);
    lua_setfield(L, -2, "instances");
    lua_pushinteger(L, (lua_Integer)sb_instance_gtid(&sb_cfg->instance, env->point->threads,
                                                     thr->tid >= 0 ? (unsigned)thr->tid : 0));
    lua_setfield(L, -2, "global_tid");
    /* A state shared by connections has none (sb_lua_shared.h): the
     * generator bound to the thread is the one of the connection that
     * runs. */
    if (thr->rand != NULL) {
        lua_pushlightuserdata(L, thr->rand);
        lua_setfield(L, -2, "__rand_state");
    }
    lua_pushcfunction(L, lua_report_default);
    lua_setfield(L, -2, "report_default");
    lua_pushcfunction(L, lua_report_csv);
    lua_setfield(L, -2, "report_csv");
    lua_pushcfunction(L, lua_report_json);
    lua_setfield(L, -2, "report_json");

    lua_newtable(L); /* cmdline */
    lua_createtable(L, env->argc, 0);
    for (int i = 0; i < env->argc; i++) {
        lua_pushstring(L, env->argv[i]);
        lua_rawseti(L, -2, i);
    }
    lua_setfield(L, -2, "argv");
    if (env->command) {
        lua_pushstring(L, env->command);
        lua_setfield(L, -2, "command");
    }
    lua_pushstring(L, env->script_path ? env->script_path : "-");
    lua_setfield(L, -2, "script_path");
    lua_setfield(L, -2, "cmdline");
    lua_setglobal(L, "sysbench");
}

static int load_script(lua_State *L, const struct sb_lua_env *env)
{
    if (env->script_text != NULL) {
        const char *s = env->script_text;
        size_t len = env->script_len;
        /* Skip a "#!" line as luaL_loadfile does for files. */
        if (len > 0 && s[0] == '#') {
            const char *nl = memchr(s, '\n', len);
            size_t skip = nl ? (size_t)(nl - s) : len;
            /* Keep the newline so line numbers stay right. */
            s += skip;
            len -= skip;
        }
        return luaL_loadbuffer(L, s, len, "=stdin");
    }
    return luaL_loadfile(L, env->script_path);
}

/*
 * os.exit in a worker state: exit() from a worker thread would end the
 * process under the other threads' feet, without the report or the result
 * files. It fails the thread instead, like any script error.
 */
static int lua_worker_exit(lua_State *L)
{
    luaL_where(L, 1);
    lua_pushstring(L, "os.exit() called in a benchmark thread (use error() to stop the run)");
    lua_concat(L, 2);
    return lua_error(L);
}

/*
 * os.exit in the main state. The script body and the prepare, cleanup and
 * help commands may end the process as a plain Lua interpreter would
 * (sysbench 1.0 scripts call os.exit(1) on bad options). During a run the
 * main state serves init(), done() and the report hooks, some of them from
 * the reporter thread while workers run: exiting there would skip the
 * final report and leave the result files unwritten, so it is an error
 * like any other, which stops the run. The original function is the
 * closure's upvalue, so a script that kept a reference to os.exit gets
 * this one too.
 */
static int lua_main_exit(lua_State *L)
{
    bool running;

    lua_getfield(L, LUA_REGISTRYINDEX, "sb_running");
    running = lua_toboolean(L, -1);
    lua_pop(L, 1);
    if (running) {
        luaL_where(L, 1);
        lua_pushstring(L, "os.exit() called during a run (use error() to stop the run)");
        lua_concat(L, 2);
        return lua_error(L);
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

void sb_lua_set_running(lua_State *L, bool running)
{
    lua_pushboolean(L, running);
    lua_setfield(L, LUA_REGISTRYINDEX, "sb_running");
}

/* Replaces os.exit: in worker states it always fails, in the main state
 * only during a run. */
static void replace_exit(lua_State *L, const struct sb_lua_thread *thr)
{
    lua_getglobal(L, "os");
    if (thr != NULL && thr->tid >= 0) {
        lua_pushcfunction(L, lua_worker_exit);
    } else {
        lua_getfield(L, -1, "exit");
        lua_pushcclosure(L, lua_main_exit, 1);
    }
    lua_setfield(L, -2, "exit");
    lua_pop(L, 1);
}

lua_State *sb_lua_new_base(const struct sb_lua_env *env, const struct sb_lua_thread *thr,
                           bool with_opts, char *err, size_t errlen)
{
    lua_State *L = luaL_newstate();

    if (L == NULL) {
        snprintf(err, errlen, "cannot create a Lua state: out of memory");
        return NULL;
    }
    /* A worker state is one of possibly thousands (one per connection):
     * while its modules and script load, collect as often as it grows, and
     * in large steps, so that the parser's garbage is reused instead of
     * raising the peak (its pages, once touched, stay resident). */
    if (thr != NULL && thr->tid >= 0) {
        lua_gc(L, LUA_GCSETPAUSE, 100);
        lua_gc(L, LUA_GCSETSTEPMUL, 1000);
    }
    lua_atpanic(L, on_panic);
    sb_lua_interrupt_register(L);
    luaL_openlibs(L);
    lua_pushcfunction(L, lua_print_line);
    lua_setglobal(L, "print");
    lua_pushlightuserdata(L, (void *)env);
    lua_setfield(L, LUA_REGISTRYINDEX, "sb_env");
    lua_pushlightuserdata(L, (void *)thr);
    lua_setfield(L, LUA_REGISTRYINDEX, "sb_thread");
    register_internal_modules(L);
    set_package_path(L, env->script_path);
    set_sysbench_values(L, env, thr);
    replace_exit(L, thr);

    lua_getglobal(L, "require");
    lua_pushstring(L, "sysbench");
    if (sb_lua_pcall(L, 1, 0, err, errlen) != 0) {
        sb_lua_close(L);
        return NULL;
    }
    /* After the built-in modules: option globals must not change what
     * they see. */
    if (with_opts)
        sb_lua_export_options(L, env);
    return L;
}

int sb_lua_load_script(lua_State *L, const struct sb_lua_env *env, char *err, size_t errlen)
{
    int rc = load_script(L, env);

    if (rc != 0) {
        const char *msg = lua_tostring(L, -1);
        if (rc == LUA_ERRFILE)
            snprintf(err, errlen, "cannot open script '%s': %s", env->script_path,
                     msg && strstr(msg, "No such file") ? "No such file or directory" : (msg ? msg : "?"));
        else
            snprintf(err, errlen, "%s", msg ? msg : "cannot load script");
        lua_pop(L, 1);
        return -1;
    }
    return 0;
}

lua_State *sb_lua_new_state(const struct sb_lua_env *env,
                            const struct sb_lua_thread *thr, bool with_opts,
                            char *err, size_t errlen)
{
    lua_State *L = sb_lua_new_base(env, thr, with_opts, err, errlen);
    int rc;

    if (L == NULL)
        return NULL;
    if (env->script_path != NULL || env->script_text != NULL) {
        if (sb_lua_load_script(L, env, err, errlen) != 0)
            goto fail;
        /* Interpreted, as sb_lua_call_global: a signal can stop it. */
        luaJIT_setmode(L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_OFF);
        rc = sb_lua_pcall(L, 0, 0, err, errlen);
        luaJIT_setmode(L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_ON);
        if (rc != 0 && sb_lua_is_oom(err))
            snprintf(err, errlen, "%s in the script body", SB_LUA_OOM);
        if (rc != 0)
            goto fail;
    }
    if (thr != NULL && thr->tid >= 0) {
        lua_gc(L, LUA_GCCOLLECT, 0);
        /* Lua's defaults, for the run */
        lua_gc(L, LUA_GCSETPAUSE, 200);
        lua_gc(L, LUA_GCSETSTEPMUL, 200);
    }
    return L;
fail:
    sb_lua_close(L);
    return NULL;
}

void sb_lua_drop(lua_State *L)
{
    if (L != NULL)
        sb_lua_interrupt_unregister(L);
}

void sb_lua_close(lua_State *L)
{
    if (L != NULL) {
        sb_lua_interrupt_unregister(L);
        lua_close(L);
    }
}
