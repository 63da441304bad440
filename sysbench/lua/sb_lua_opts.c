/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Options between C and Lua: the script's declarations
 * (sysbench.cmdline.options) into an option set, the validators, and every
 * option set out to sysbench.opt and, for scripts that declare no options,
 * to globals (sysbench 1.0's legacy interface). See sb_lua.h.
 *
 * Every access to tables a script can reach is raw (no metamethods) and
 * checks the type first, so that a script that replaced `sysbench` or one
 * of its fields gets one error line, never an unprotected Lua error.
 */
#include "config.h"

#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/sb_config.h"
#include "config/sb_point.h"
#include "core/sb_log.h"
#include "lua/sb_lua_call.h"
#include "lua/sb_lua_opts.h"

/* ------------------------------------------------------------ export */

static void push_option_value(lua_State *L, const struct sb_opt *o)
{
    switch (o->type) {
    case SB_ARG_BOOL:
        lua_pushboolean(L, o->b);
        break;
    case SB_ARG_INT:
    case SB_ARG_SIZE:
        lua_pushnumber(L, (lua_Number)o->i);
        break;
    case SB_ARG_DOUBLE:
        lua_pushnumber(L, o->d);
        break;
    case SB_ARG_LIST:
        lua_createtable(L, (int)o->nitems, 0);
        for (size_t i = 0; i < o->nitems; i++) {
            lua_pushstring(L, o->items[i]);
            lua_rawseti(L, -2, (int)i + 1);
        }
        break;
    default:
        if (o->value != NULL)
            lua_pushstring(L, o->value);
        else
            lua_pushnil(L);
        break;
    }
}

/*
 * Pushes what scripts see for option `key`. Most options are their typed
 * value; a few that this program widened keep sysbench 1.0's type, because
 * scripts copied from 1.0 do arithmetic or comparisons on them.
 */
static void push_export_value(lua_State *L, const struct sb_point_config *pt,
                              const struct sb_opt *o, const char *key)
{
    /* --threads and --tx-rate take lists for sweeps: the point being run. */
    if (strcmp(key, "threads") == 0 || strcmp(key, "num_threads") == 0) {
        lua_pushnumber(L, pt->threads);
    } else if (strcmp(key, "tx_rate") == 0) {
        lua_pushnumber(L, sb_point_tx_rate(pt));
    } else if (strcmp(key, "percentile") == 0 && o->type == SB_ARG_LIST) {
        /* 1.0 has one percentile; ours is a list whose first is "the" one. */
        lua_pushnumber(L, sb_cfg->npercentiles > 0 ? sb_cfg->percentiles[0] : 0);
    } else if (strcmp(key, "pgsql_host") == 0 && o->type == SB_ARG_LIST) {
        lua_pushstring(L, o->nitems > 0 ? o->items[0] : "");
    } else if (strcmp(key, "pgsql_port") == 0 && o->type == SB_ARG_LIST) {
        lua_pushnumber(L, o->nitems > 0 ? strtod(o->items[0], NULL) : 0);
    } else if (strcmp(key, "mysql_ssl") == 0 && o->type == SB_ARG_STRING) {
        /* A boolean in 1.0; here also a verification level: any level
         * but off means SSL is on. */
        bool b = false;
        if (o->value != NULL && sb_parse_bool(o->value, &b) != 0)
            b = o->value[0] != '\0' && strcmp(o->value, "disabled") != 0;
        lua_pushboolean(L, b);
    } else {
        push_option_value(L, o);
    }
}

/* Sets t[name with '_' for '-'] for every option of set into the table at
 * the top of the stack. Aliases (--num-threads ...) get their target's
 * value. */
static void export_set(lua_State *L, const struct sb_point_config *pt,
                       const struct sb_optset *set)
{
    for (size_t i = 0; set != NULL && i < set->n; i++) {
        const struct sb_opt *o = &set->opts[i];
        const struct sb_opt *v = o->alias_of ? sb_optset_find(set, o->name) : o;
        char key[128];

        if (v == NULL)
            continue;
        snprintf(key, sizeof(key), "%s", o->name);
        for (char *p = key; *p; p++)
            if (*p == '-')
                *p = '_';
        lua_pushstring(L, key);
        push_export_value(L, pt, v, key);
        lua_rawset(L, -3);
    }
}

void sb_lua_export_options(lua_State *L, const struct sb_lua_env *env)
{
    int top = lua_gettop(L);

    lua_newtable(L);
    export_set(L, env->point, env->general);
    for (size_t i = 0; env->driver_sets && env->driver_sets[i]; i++)
        export_set(L, env->point, env->driver_sets[i]);
    export_set(L, env->point, env->script_opts);
    if (env->opts_as_globals) {
        /* sysbench 1.0 scripts without declared options read them as
         * globals: oltp_table_size, num_threads, mysql_host ... */
        lua_pushnil(L);
        while (lua_next(L, -2) != 0) {
            /* Never over a library or a function: --debug must not
             * replace the debug library. */
            lua_pushvalue(L, -2);
            lua_rawget(L, LUA_GLOBALSINDEX);
            if (lua_istable(L, -1) || lua_isfunction(L, -1)) {
                lua_pop(L, 2);
                continue;
            }
            lua_pop(L, 1);
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_rawset(L, LUA_GLOBALSINDEX);
        }
    }
    lua_pushstring(L, "sysbench");
    lua_rawget(L, LUA_GLOBALSINDEX);
    if (lua_istable(L, -1)) {
        lua_pushstring(L, "opt");
        lua_pushvalue(L, -3);
        lua_rawset(L, -3);
    }
    lua_settop(L, top);
}

/* ------------------------------------------------------------ declare */

/* declare(name, desc, default or nil, type): called by the cmdline module
 * for each option entry, already checked, in name order. */
static int declare_cb(lua_State *L)
{
    struct sb_optset *set = lua_touserdata(L, lua_upvalueindex(1));
    const char *name = luaL_checkstring(L, 1);
    const char *desc = luaL_checkstring(L, 2);
    const char *def = lua_tostring(L, 3);
    int type = (int)luaL_checkinteger(L, 4);
    char err[512];

    if (sb_optset_find(set, name) != NULL)
        return 0;
    if (sb_optset_add(set, name, desc, def, (enum sb_opt_type)type, err, sizeof(err)) != 0) {
        lua_pushfstring(L, "sysbench.cmdline.options: %s", err);
        return lua_error(L);
    }
    return 0;
}

int sb_lua_declare_script_options(lua_State *L, struct sb_optset *set, bool *declared,
                                  char *err, size_t errlen)
{
    int top = lua_gettop(L);

    *declared = false;
    lua_getfield(L, LUA_REGISTRYINDEX, "sb_read_cmdline_options");
    if (!lua_isfunction(L, -1)) {
        lua_settop(L, top);
        snprintf(err, errlen, "internal error: the sysbench.cmdline module is not loaded");
        return -1;
    }
    lua_pushlightuserdata(L, set);
    lua_pushcclosure(L, declare_cb, 1);
    if (sb_lua_pcall(L, 1, 0, err, errlen) != 0) {
        lua_settop(L, top);
        if (sb_compat10()) { /* 1.0.20's wording */
            char msg[1024];
            snprintf(msg, sizeof(msg), "`sysbench.cmdline.read_cmdline_options' function "
                     "failed: %s", err);
            snprintf(err, errlen, "%s", msg);
        }
        return -1;
    }
    /* The module has checked that these are tables. */
    lua_pushstring(L, "sysbench");
    lua_rawget(L, LUA_GLOBALSINDEX);
    sb_lua_rawfield(L, -1, "cmdline");
    sb_lua_rawfield(L, -1, "options");
    *declared = !lua_isnil(L, -1);
    lua_settop(L, top);
    return 0;
}

int sb_lua_validate_script_options(lua_State *L, const struct sb_optset *set,
                                   char *err, size_t errlen)
{
    int top = lua_gettop(L);

    for (size_t i = 0; set != NULL && i < set->n; i++) {
        const struct sb_opt *o = &set->opts[i];
        char msg[512], shown[256];

        if (!o->set || o->alias_of != NULL)
            continue;
        lua_getfield(L, LUA_REGISTRYINDEX, "sb_validate_option");
        if (!lua_isfunction(L, -1)) {
            lua_settop(L, top);
            return 0;
        }
        lua_pushstring(L, o->name);
        lua_pushstring(L, o->value ? o->value : "");
        if (sb_lua_pcall(L, 2, 1, msg, sizeof(msg)) != 0) {
            snprintf(err, errlen, "the validator of --%s failed: %s",
                     sb_opt_dashed(o->name, shown, sizeof(shown)), msg);
            lua_settop(L, top);
            return -1;
        }
        if (!lua_toboolean(L, -1)) {
            snprintf(err, errlen, "invalid option: --%s=%s (rejected by the script's validator)",
                     sb_opt_dashed(o->name, shown, sizeof(shown)), o->value ? o->value : "");
            lua_settop(L, top);
            return -1;
        }
        lua_settop(L, top);
    }
    return 0;
}

int sb_lua_accept_undeclared(struct sb_args *args, struct sb_optset *set,
                             char *err, size_t errlen)
{
    for (size_t i = 0; i < args->nopts; i++) {
        struct sb_arg *a = &args->opts[i];
        struct sb_opt *o;

        if (a->used)
            continue;
        o = sb_optset_find(set, a->name);
        if (o == NULL) {
            if (sb_optset_add(set, a->name, "undeclared option", NULL, SB_ARG_STRING,
                              err, errlen) != 0)
                return -1;
            o = sb_optset_find(set, a->name);
        }
        /* Undeclared options are text, bare ones the empty string. */
        if (sb_opt_set(o, a->value ? a->value : "", err, errlen) != 0)
            return -1;
        a->used = true;
    }
    return 0;
}

/* Sets t[key] = v in the table at idx when t[key] is already a number. */
static void update_number(lua_State *L, int idx, const char *key, double v)
{
    if (idx < 0 && idx > LUA_REGISTRYINDEX) /* relative, not a pseudo-index */
        idx = lua_gettop(L) + idx + 1;
    lua_pushstring(L, key);
    lua_rawget(L, idx);
    if (lua_type(L, -1) == LUA_TNUMBER) {
        lua_pushstring(L, key);
        lua_pushnumber(L, v);
        lua_rawset(L, idx);
    }
    lua_pop(L, 1);
}

void sb_lua_export_point(lua_State *L, const struct sb_lua_env *env)
{
    static const char *const thread_keys[] = {"threads", "num_threads"};
    int top = lua_gettop(L);

    lua_pushstring(L, "sysbench");
    lua_rawget(L, LUA_GLOBALSINDEX);
    if (lua_istable(L, -1)) {
        /* The main state is thread 0 of the point. */
        update_number(L, -1, "global_tid",
                      (double)sb_instance_gtid(&sb_cfg->instance, env->point->threads, 0));
        lua_pushstring(L, "opt");
        lua_rawget(L, -2);
        if (lua_istable(L, -1)) {
            for (size_t i = 0; i < 2; i++)
                update_number(L, -1, thread_keys[i], env->point->threads);
            update_number(L, -1, "tx_rate", sb_point_tx_rate(env->point));
        }
    }
    if (env->opts_as_globals) {
        for (size_t i = 0; i < 2; i++)
            update_number(L, LUA_GLOBALSINDEX, thread_keys[i], env->point->threads);
        update_number(L, LUA_GLOBALSINDEX, "tx_rate", sb_point_tx_rate(env->point));
    }
    lua_settop(L, top);
}
