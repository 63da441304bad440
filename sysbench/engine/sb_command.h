/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_COMMAND_H
#define SB_COMMAND_H

/*
 * The script's own commands (prepare, cleanup, ...; sb_command.c), each
 * in a guarded thread (sb_signal.h) so that a signal ends it at once.
 */

#include <lua.h>

#include "config/sb_lua_env.h"

/* Runs a parallel command in env->point->threads threads, each with its own
 * state. Returns 0, 1 (error reported) or 128+signal: a signal ends it at
 * once, abandoning the threads (sb_signal_abandoned). */
int sb_run_parallel_command(const struct sb_lua_env *env, const char *name);

/* Runs command `name` of the main state L in a thread of its own, so that
 * a signal ends it at once (the thread is abandoned). Returns 0, 1 (error
 * reported) or 128+signal. L must not be used again after an abandon. */
int sb_run_main_command(lua_State *L, const struct sb_lua_env *env, const char *name);

#endif /* SB_COMMAND_H */
