/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The run's context in a result file (doc/results.md): the tool and its
 * drivers, the times, the command line (secrets masked), every option
 * with its value and whether it was given, and the machine and server it
 * ran on. Written once per file by the result writer (sb_result_writer.c).
 */
#include "config.h"

#include "results/sb_run_context.h"

#include <errno.h>
#include <luajit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/sb_options.h"
#include "drivers/sb_driver.h"

void sb_run_context_time(struct sb_json *j, const char *key, time_t t)
{
    struct tm tm;
    char buf[64];

    if (t == 0 || gmtime_r(&t, &tm) == NULL) {
        sb_json_kv_null(j, key);
        return;
    }
    strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
    sb_json_kv_string(j, key, buf);
}

void sb_run_context_tool(struct sb_json *j)
{
    const struct sb_driver_ops *const *d = sb_driver_list();

    sb_json_key(j, "tool");
    sb_json_begin_object(j);
    sb_json_kv_string(j, "name", PACKAGE_NAME);
    sb_json_kv_string(j, "version", PACKAGE_VERSION);
    sb_json_kv_string(j, "luajit", LUAJIT_VERSION);
    sb_json_kv_string(j, "allocator", SB_ALLOCATOR);
    {
#if defined(__clang__)
        const char *cc = "clang " __clang_version__;
#elif defined(__GNUC__)
        const char *cc = "gcc " __VERSION__;
#else
        const char *cc = "unknown";
#endif
        size_t n = strlen(cc);
        /* clang's version string ends with a space. */
        while (n > 0 && cc[n - 1] == ' ')
            n--;
        sb_json_key(j, "compiler");
        sb_json_string_n(j, cc, n);
    }
    sb_json_key(j, "drivers");
    sb_json_begin_array(j);
    for (; *d; d++) {
        char v[128];
        sb_json_begin_object(j);
        sb_json_kv_string(j, "name", (*d)->name);
        if ((*d)->client_version != NULL && (*d)->client_version(v, sizeof(v)) == 0)
            sb_json_kv_string(j, "client_version", v);
        else
            sb_json_kv_null(j, "client_version");
        sb_json_end_object(j);
    }
    sb_json_end_array(j);
    sb_json_end_object(j);
}

/* --------------------------------------------------------- JSON: options */

static bool is_secret(const struct sb_lua_env *env, const char *name)
{
    const struct sb_opt *o = sb_optset_find(env->general, name);

    if (o == NULL && env->driver_sets != NULL)
        for (size_t i = 0; o == NULL && env->driver_sets[i] != NULL; i++)
            o = sb_optset_find(env->driver_sets[i], name);
    if (o == NULL && env->script_opts != NULL)
        o = sb_optset_find(env->script_opts, name);
    return o != NULL && o->secret;
}

/* The command line, with the values of secret options (passwords)
 * replaced, so a result file can be shared without leaking them. */
void sb_run_context_command_line(struct sb_json *j, const struct sb_lua_env *env)
{
    bool options_done = false;

    sb_json_key(j, "command_line");
    sb_json_begin_array(j);
    for (int i = 0; i < env->argc; i++) {
        const char *a = env->argv[i];
        const char *eq;
        char name[256];

        if (a == NULL)
            continue;
        if (i == 0 || options_done || strncmp(a, "--", 2) != 0 ||
            (eq = strchr(a + 2, '=')) == NULL) {
            if (i > 0 && strcmp(a, "--") == 0)
                options_done = true;
            sb_json_string(j, a);
            continue;
        }
        snprintf(name, sizeof(name), "%.*s", (int)(eq - a - 2), a + 2);
        if (is_secret(env, name)) {
            char red[300];
            snprintf(red, sizeof(red), "--%s=<redacted>", name);
            sb_json_string(j, red);
        } else {
            sb_json_string(j, a);
        }
    }
    sb_json_end_array(j);
}

static void json_option_value(struct sb_json *j, const struct sb_opt *o)
{
    if (o->secret || o->value == NULL) {
        sb_json_null(j);
        return;
    }
    switch (o->type) {
    case SB_ARG_BOOL:
        sb_json_bool(j, o->b);
        break;
    case SB_ARG_INT:
    case SB_ARG_SIZE:
        sb_json_int(j, o->i);
        break;
    case SB_ARG_DOUBLE:
        sb_json_double(j, o->d);
        break;
    case SB_ARG_LIST:
        sb_json_begin_array_inline(j);
        for (size_t k = 0; k < o->nitems; k++)
            sb_json_string(j, o->items[k]);
        sb_json_end_array(j);
        break;
    case SB_ARG_STRING:
    case SB_ARG_FILE:
    default:
        sb_json_string(j, o->value);
        break;
    }
}

/* Every option of a set (aliases left out: they name another option). */
static void json_optset(struct sb_json *j, const struct sb_optset *set)
{
    sb_json_begin_object(j);
    for (size_t i = 0; set != NULL && i < set->n; i++) {
        const struct sb_opt *o = &set->opts[i];
        if (o->alias_of != NULL)
            continue;
        sb_json_key(j, o->name);
        json_option_value(j, o);
    }
    sb_json_end_object(j);
}

static void json_given(struct sb_json *j, const struct sb_optset *set)
{
    for (size_t i = 0; set != NULL && i < set->n; i++)
        if (set->opts[i].alias_of == NULL && set->opts[i].set)
            sb_json_string(j, set->opts[i].name);
}

void sb_run_context_options(struct sb_json *j, const struct sb_lua_env *env)
{
    sb_json_key(j, "options");
    sb_json_begin_object(j);
    sb_json_key(j, "general");
    json_optset(j, env->general);
    sb_json_key(j, "drivers");
    sb_json_begin_object(j);
    for (size_t i = 0; env->driver_sets != NULL && env->driver_sets[i] != NULL; i++) {
        const char *title = env->driver_sets[i]->title;
        char name[64];
        /* The sets are titled "<driver> options". */
        snprintf(name, sizeof(name), "%.*s", (int)strcspn(title, " "), title);
        sb_json_key(j, name);
        json_optset(j, env->driver_sets[i]);
    }
    sb_json_end_object(j);
    sb_json_key(j, "script");
    json_optset(j, env->script_opts);
    sb_json_key(j, "given");
    sb_json_begin_array_inline(j);
    json_given(j, env->general);
    for (size_t i = 0; env->driver_sets != NULL && env->driver_sets[i] != NULL; i++)
        json_given(j, env->driver_sets[i]);
    json_given(j, env->script_opts);
    sb_json_end_array(j);
    sb_json_end_object(j);
}

/* ----------------------------------------------------- JSON: environment */

/* The CPU model from the text of /proc/cpuinfo: "model name" on x86,
 * else the first of the fields other architectures use. */
static bool cpu_model(char *buf, size_t len)
{
    static const char *const keys[] = {"model name", "Model", "cpu model", "cpu",
                                       "Hardware", "Processor"};
    char line[512];
    char found[sizeof(keys) / sizeof(keys[0])][256];
    FILE *f = fopen("/proc/cpuinfo", "r");

    memset(found, 0, sizeof(found));
    if (f == NULL)
        return false;
    while (fgets(line, sizeof(line), f) != NULL) {
        char *colon = strchr(line, ':');
        size_t klen;
        if (colon == NULL)
            continue;
        klen = (size_t)(colon - line);
        while (klen > 0 && (line[klen - 1] == ' ' || line[klen - 1] == '\t'))
            klen--;
        for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
            if (found[k][0] || strlen(keys[k]) != klen || strncmp(line, keys[k], klen) != 0)
                continue;
            colon++;
            colon += strspn(colon, " \t");
            colon[strcspn(colon, "\n")] = '\0';
            snprintf(found[k], sizeof(found[k]), "%s", colon);
        }
    }
    fclose(f);
    for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
        if (found[k][0]) {
            snprintf(buf, len, "%s", found[k]);
            return true;
        }
    return false;
}

void sb_run_context_environment(struct sb_json *j, const char *driver_name,
                                 const char *server_version,
                                 const struct sb_server_info *server_info)
{
    struct utsname u;
    char host[256], model[256];
    long online = sysconf(_SC_NPROCESSORS_ONLN), conf = sysconf(_SC_NPROCESSORS_CONF);
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);

    sb_json_key(j, "environment");
    sb_json_begin_object(j);
    if (gethostname(host, sizeof(host)) == 0) {
        host[sizeof(host) - 1] = '\0';
        sb_json_kv_string(j, "hostname", host);
    } else {
        sb_json_kv_null(j, "hostname");
    }
    sb_json_key(j, "kernel");
    if (uname(&u) == 0) {
        sb_json_begin_object(j);
        sb_json_kv_string(j, "sysname", u.sysname);
        sb_json_kv_string(j, "release", u.release);
        sb_json_kv_string(j, "version", u.version);
        sb_json_kv_string(j, "machine", u.machine);
        sb_json_end_object(j);
    } else {
        sb_json_null(j);
    }
    sb_json_key(j, "cpu");
    sb_json_begin_object(j);
    sb_json_kv_int(j, "online", online > 0 ? online : 1);
    sb_json_kv_int(j, "configured", conf > 0 ? conf : 1);
    if (cpu_model(model, sizeof(model)))
        sb_json_kv_string(j, "model", model);
    else
        sb_json_kv_null(j, "model");
    sb_json_end_object(j);
    if (pages > 0 && psize > 0)
        sb_json_kv_uint(j, "memory_bytes", (uint64_t)pages * (uint64_t)psize);
    else
        sb_json_kv_null(j, "memory_bytes");
    sb_json_kv_string(j, "driver", driver_name[0] ? driver_name : NULL);
    sb_json_kv_string(j, "server_version", server_version[0] ? server_version : NULL);
    if (sb_server_info_known(server_info)) {
        sb_json_key(j, "server");
        sb_server_info_json(j, server_info);
    }
    sb_json_end_object(j);
}
