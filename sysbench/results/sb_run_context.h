/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_RUN_CONTEXT_H
#define SB_RUN_CONTEXT_H

/*
 * The members of a result file that say in what context a run ran (the
 * schema is doc/results.md): "tool", the times, "command_line",
 * "options" and "environment". Each writes one member into the object j
 * is in; none fails (a fact that cannot be read is written as null).
 */

#include <time.h>

#include "config/sb_lua_env.h"
#include "core/sb_json_write.h"
#include "results/sb_server_info.h"

/* "tool": name, version, LuaJIT, allocator and the compiled-in drivers. */
void sb_run_context_tool(struct sb_json *j);
/* key: t as an ISO 8601 UTC time, null when t is 0. */
void sb_run_context_time(struct sb_json *j, const char *key, time_t t);
/* "command_line": the arguments, with the values of secret options masked. */
void sb_run_context_command_line(struct sb_json *j, const struct sb_lua_env *env);
/* "options": every option of every set with its value and whether given. */
void sb_run_context_options(struct sb_json *j, const struct sb_lua_env *env);
/* "environment": host, kernel, CPUs, memory, and the server the run used
 * (driver_name and server_version "" when none; server_info may be
 * unknown). */
void sb_run_context_environment(struct sb_json *j, const char *driver_name,
                                const char *server_version,
                                const struct sb_server_info *server_info);

#endif /* SB_RUN_CONTEXT_H */
