/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_LUA_OPTS_H
#define SB_LUA_OPTS_H

/*
 * Options between C and Lua (sb_lua_opts.c): the script's declarations
 * (sysbench.cmdline.options) into an option set, their validators, and
 * every option set out to sysbench.opt (and to globals for scripts that
 * declare none, sysbench 1.0's legacy interface).
 */

#include <stdbool.h>
#include <stddef.h>
#include <lua.h>

#include "core/sb_args.h"
#include "config/sb_lua_env.h"

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

#endif /* SB_LUA_OPTS_H */
