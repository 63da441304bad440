/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One Lua state per client thread; see sb_lua_shared.h. The Lua half
 * (the connections' globals, their require) is in the built-in sysbench
 * module (sysbench.__conn_env).
 */
#include "config.h"

#include <lauxlib.h>
#include <luajit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/sb_config.h"
#include "lua/sb_lua_call.h"
#include "lua/sb_lua_shared.h"

struct sb_lua_shared {
    lua_State *L;
    const struct sb_lua_env *env;
    /* What the SQL layer reads (the registry's "sb_thread"): a copy of
     * the binding of the connection that runs. */
    struct sb_lua_thread cur;
    int cur_env;                   /* its globals (registry), or LUA_NOREF */
    int conn_env_fn;               /* sysbench.__conn_env */
    int conn_run_fn;               /* sysbench.__conn_run */
    int mux_run_fn;                /* sysbench.__mux_run */
    int script;                    /* the script's chunk, or LUA_NOREF */
    bool oom;                      /* ran out of memory: not used again */
};

/* sysbench.__current_env(): the globals of the connection that runs, or
 * nil (for the SQL layer's hooks). */
static int current_env(lua_State *L)
{
    const struct sb_lua_shared *sh = lua_touserdata(L, lua_upvalueindex(1));

    if (sh->cur_env == LUA_NOREF)
        lua_pushnil(L);
    else
        lua_rawgeti(L, LUA_REGISTRYINDEX, sh->cur_env);
    return 1;
}

/* sysbench.<name> of the state, kept by a registry reference. */
static int ref_field(lua_State *L, const char *name, char *err, size_t errlen)
{
    lua_getglobal(L, "sysbench");
    sb_lua_rawfield(L, -1, name);
    lua_remove(L, -2);
    if (!lua_isfunction(L, -1)) {
        lua_pop(L, 1);
        snprintf(err, errlen, "built-in sysbench.%s is missing", name);
        return LUA_NOREF;
    }
    return luaL_ref(L, LUA_REGISTRYINDEX);
}

/* The state's own steps after sb_lua_new_base: sysbench.__shared_init,
 * the references, the chunks. */
static int set_up(struct sb_lua_shared *sh, char *err, size_t errlen)
{
    lua_State *L = sh->L;

    /* The Lua half of sharing: only states that connections share load
     * it (sysbench_shared.lua). */
    lua_getglobal(L, "require");
    lua_pushstring(L, "sysbench.shared");
    if (sb_lua_pcall(L, 1, 0, err, errlen) != 0)
        return -1;
    lua_getglobal(L, "sysbench");
    lua_pushlightuserdata(L, sh);
    lua_pushcclosure(L, current_env, 1);
    lua_setfield(L, -2, "__current_env");
    lua_getfield(L, -1, "__shared_init");
    lua_remove(L, -2);
    if (sb_lua_pcall(L, 0, 0, err, errlen) != 0)
        return -1;
    sh->conn_env_fn = ref_field(L, "__conn_env", err, errlen);
    sh->conn_run_fn = ref_field(L, "__conn_run", err, errlen);
    sh->mux_run_fn = ref_field(L, "__mux_run", err, errlen);
    if (sh->conn_env_fn == LUA_NOREF || sh->conn_run_fn == LUA_NOREF ||
        sh->mux_run_fn == LUA_NOREF)
        return -1;
    if (sh->env->script_path != NULL || sh->env->script_text != NULL) {
        if (sb_lua_load_script(L, sh->env, err, errlen) != 0)
            return -1;
        sh->script = luaL_ref(L, LUA_REGISTRYINDEX);
    }
    return 0;
}

struct sb_lua_shared *sb_lua_shared_new(const struct sb_lua_env *env, char *err,
                                        size_t errlen)
{
    struct sb_lua_shared *sh = calloc(1, sizeof(*sh));

    if (sh == NULL) {
        snprintf(err, errlen, "cannot create a Lua state: out of memory");
        return NULL;
    }
    sh->env = env;
    sh->cur_env = sh->conn_env_fn = sh->conn_run_fn = sh->mux_run_fn = sh->script = LUA_NOREF;
    /* A worker's (os.exit fails, the set-up's collector); no generator of
     * its own: the connections' are bound to the thread. */
    sh->cur.tid = 0;
    sh->L = sb_lua_new_base(env, &sh->cur, true, err, errlen);
    if (sh->L == NULL) {
        free(sh);
        return NULL;
    }
    if (set_up(sh, err, errlen) != 0) {
        sb_lua_close(sh->L);
        free(sh);
        return NULL;
    }
    return sh;
}

void sb_lua_shared_ready(struct sb_lua_shared *sh)
{
    if (sh == NULL || sh->oom)
        return;
    lua_gc(sh->L, LUA_GCCOLLECT, 0);
    lua_gc(sh->L, LUA_GCSETPAUSE, 200); /* Lua's default, for the run */
}

void sb_lua_shared_oom(struct sb_lua_shared *sh)
{
    sh->oom = true;
}

void sb_lua_shared_close(struct sb_lua_shared *sh)
{
    if (sh == NULL)
        return;
    if (sh->oom)
        sb_lua_drop(sh->L);
    else
        sb_lua_close(sh->L);
    free(sh);
}

void sb_lua_conn_enter(struct sb_lua_conn *c, const struct sb_lua_thread *thr)
{
    c->sh->cur = *thr;
    c->sh->cur_env = c->env;
}

/* A protected call of what is on the stack, interpreted (a signal's hook
 * can stop a loop in it, as in sb_lua_call_global); memory errors say
 * where and leave the state unused from then on. */
static int call(struct sb_lua_shared *sh, int nargs, int nres, const char *where, int tid,
                char *err, size_t errlen)
{
    int rc;

    luaJIT_setmode(sh->L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_OFF);
    rc = sb_lua_pcall(sh->L, nargs, nres, err, errlen);
    luaJIT_setmode(sh->L, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_ON);
    if (rc != 0 && sb_lua_is_oom(err)) {
        sh->oom = true;
        snprintf(err, errlen, "%s in %s of connection %d", SB_LUA_OOM, where, tid);
    }
    return rc;
}

int sb_lua_conn_open(struct sb_lua_conn *c, const struct sb_lua_thread *thr, char *err,
                     size_t errlen)
{
    struct sb_lua_shared *sh = c->sh;
    lua_State *L = sh->L;
    unsigned tid = thr->tid >= 0 ? (unsigned)thr->tid : 0;

    c->env = c->co = LUA_NOREF;
    c->open = false;
    if (sh->oom) {
        snprintf(err, errlen, "%s (the connections' state)", SB_LUA_OOM);
        return -1;
    }
    sh->cur = *thr;
    sh->cur_env = LUA_NOREF;
    lua_rawgeti(L, LUA_REGISTRYINDEX, sh->conn_env_fn);
    lua_pushinteger(L, (lua_Integer)tid);
    lua_pushinteger(L, (lua_Integer)sb_instance_gtid(&sb_cfg->instance,
                                                     sh->env->point->threads, tid));
    if (call(sh, 2, 1, "the script body", thr->tid, err, errlen) != 0)
        return -1;
    c->env = luaL_ref(L, LUA_REGISTRYINDEX);
    c->open = true;
    if (sh->script == LUA_NOREF)
        return 0;
    /* The body runs as the connection (its db_* connection, its hooks). */
    sh->cur_env = c->env;
    lua_rawgeti(L, LUA_REGISTRYINDEX, sh->conn_run_fn);
    lua_rawgeti(L, LUA_REGISTRYINDEX, c->env);
    lua_rawgeti(L, LUA_REGISTRYINDEX, sh->script);
    if (call(sh, 2, 0, "the script body", thr->tid, err, errlen) != 0) {
        sb_lua_conn_close(c);
        return -1;
    }
    return 0;
}

int sb_lua_conn_call(struct sb_lua_conn *c, const struct sb_lua_thread *thr, const char *name,
                     int arg, char *err, size_t errlen)
{
    struct sb_lua_shared *sh = c->sh;
    lua_State *L = sh->L;
    char where[64];

    if (!c->open || sh->oom)
        return 0;
    sb_lua_conn_enter(c, thr);
    /* Raw, as sb_lua_call_global: a strict-mode metatable must not
     * raise on a function the script did not define. */
    lua_rawgeti(L, LUA_REGISTRYINDEX, c->env);
    lua_pushstring(L, name);
    lua_rawget(L, -2);
    lua_remove(L, -2);
    if (!lua_isfunction(L, -1)) {
        lua_pop(L, 1);
        return 0;
    }
    lua_pushinteger(L, arg);
    snprintf(where, sizeof(where), "%s()", name);
    if (call(sh, 1, 0, where, thr->tid, err, errlen) != 0)
        return -1;
    return 0;
}

lua_State *sb_lua_conn_coroutine(struct sb_lua_conn *c, int tid, char *err, size_t errlen)
{
    struct sb_lua_shared *sh = c->sh;
    lua_State *co;

    if (!c->open || sh->oom) {
        snprintf(err, errlen, "connection %d has no Lua globals", tid);
        return NULL;
    }
    co = lua_newthread(sh->L);
    c->co = luaL_ref(sh->L, LUA_REGISTRYINDEX);
    lua_rawgeti(co, LUA_REGISTRYINDEX, sh->mux_run_fn);
    lua_pushinteger(co, tid);
    lua_rawgeti(co, LUA_REGISTRYINDEX, c->env);
    return co;
}

void sb_lua_conn_close(struct sb_lua_conn *c)
{
    struct sb_lua_shared *sh = c->sh;

    if (sh == NULL || sh->oom)
        return;
    if (sh->cur_env == c->env)
        sh->cur_env = LUA_NOREF;
    luaL_unref(sh->L, LUA_REGISTRYINDEX, c->env);
    luaL_unref(sh->L, LUA_REGISTRYINDEX, c->co);
    c->env = c->co = LUA_NOREF;
    c->open = false;
}
