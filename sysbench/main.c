/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sysbench [options] SCRIPT [COMMAND] [script options]
 *
 * Parses the general and driver options into the read-only config, loads
 * the script into the main Lua state, parses the options the script
 * declares, and dispatches the command. Every error ends in one line and
 * exit status 1.
 */
#include "config.h"

#include <ctype.h>
#include <fcntl.h>
#include <luajit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/sb_args.h"
#include "config/sb_config.h"
#include "drivers/sb_driver.h"
#include "pure/sb_mix.h"
#include "compare/sb_ab.h"
#include "compare/sb_compare.h"
#include "compare/sb_merge.h"
#include "core/sb_log.h"
#include "core/sb_secret_file.h"
#include "lua/sb_lua.h"
#include "lua/sb_lua_interrupt.h"
#include "plot/sb_plot.h"
#include "engine/sb_command.h"
#include "engine/sb_help.h"
#include "engine/sb_run.h"
#include "engine/sb_run_points.h"
#include "engine/sb_script_hint.h"
#include "engine/sb_signal.h"
#include "core/sb_stop.h"
#include "builtin/sb_builtin.h"
#include "engine/sb_main10.h"

#define MAX_DRIVERS 8

static void print_version_line(void)
{
    if (sb_compat10()) {
        /* 1.0's banner, then the blank line 1.0 prints after it. */
        printf("%s %s (using system %s)\n\n", PACKAGE_NAME, PACKAGE_VERSION, LUAJIT_VERSION);
        return;
    }
    printf("%s %s (using %s, allocator: %s)\n", PACKAGE_NAME, PACKAGE_VERSION,
           LUAJIT_VERSION, SB_ALLOCATOR);
}

/* One line, as sysbench 1.0 prints and tools parse; the build details
 * only with --verbosity above the default. */
static void print_version(int verbosity)
{
    const struct sb_driver_ops *const *d = sb_driver_list();
    printf("%s %s\n", PACKAGE_NAME, PACKAGE_VERSION);
    if (verbosity <= SB_LOG_NOTICE)
        return;
    printf("LuaJIT: %s\n", LUAJIT_VERSION);
    printf("drivers:");
    for (; *d; d++)
        printf(" %s", (*d)->name);
    printf("\nallocator: %s\n", SB_ALLOCATOR);
}

static void print_help(const struct sb_optset *general, struct sb_optset *drv_sets,
                       size_t ndrv)
{
    if (sb_compat10()) {
        sb_main10_print_help(drv_sets, ndrv);
        return;
    }
    sb_help_print(general, drv_sets, ndrv, stdout);
}

static char *read_stdin(size_t *len)
{
    size_t cap = 65536, n = 0, r;
    char *buf = malloc(cap);

    while (buf != NULL && (r = fread(buf + n, 1, cap - n, stdin)) > 0) {
        n += r;
        if (n == cap) {
            char *nb = realloc(buf, cap * 2);
            if (nb == NULL) {
                free(buf);
                return NULL;
            }
            buf = nb;
            cap *= 2;
        }
    }
    *len = n;
    return buf;
}

/* Set where SB_COMPAT=1.0 wants 1.0's plain message (no "FATAL: "). */
static bool die_plain;

static int die(const char *msg)
{
    if (die_plain) {
        fprintf(stderr, "%s\n", msg);
        return 1;
    }
    sb_fatal("%s", msg);
    return 1;
}

/* The last argument that gave option `name` itself (not through another
 * name of the same option), or NULL. */
static const struct sb_arg *arg_given(const struct sb_args *args, const char *name)
{
    const struct sb_arg *found = NULL;

    for (size_t i = 0; i < args->nopts; i++) {
        const char *a = args->opts[i].name, *b = name;
        for (; *a && *b; a++, b++)
            if ((*a == '_' ? '-' : *a) != (*b == '_' ? '-' : *b))
                break;
        if (*a == '\0' && *b == '\0')
            found = &args->opts[i];
    }
    return found;
}

/*
 * A config error found after parsing (a value out of range, an unknown
 * choice) names its option as "--name"; when that option came from the
 * config file, prefixes "FILE:LINE: " so the user knows which line to fix.
 */
static void locate_option_error(const struct sb_args *args, char *err, size_t errlen)
{
    const char *p = strstr(err, "--");
    char name[128], where[512], copy[1024];
    size_t n = 0;
    const struct sb_arg *a;

    if (p == NULL)
        return;
    for (p += 2; n + 1 < sizeof(name) && (isalnum((unsigned char)*p) || *p == '-' || *p == '_'); p++)
        name[n++] = *p;
    name[n] = '\0';
    a = arg_given(args, name);
    if (a == NULL || a->line == 0)
        return;
    snprintf(copy, sizeof(copy), "%s", err);
    snprintf(err, errlen, "%s%s", sb_args_where(args, a, where, sizeof(where)), copy);
}

/*
 * sysbench 1.0's warnings for its legacy option names: on standard output,
 * before the banner, in this order whatever the order given, at every
 * verbosity, and (as 1.0) only when the legacy option's value differs from
 * its 1.0 default (1 thread, no limit).
 */
static void warn_legacy_names(const struct sb_args *args)
{
    static const struct {
        const char *name, *use;
        double def;
    } legacy[] = {
        {"num-threads", "threads", 1}, {"max-requests", "events", 0}, {"max-time", "time", 0},
    };

    if (arg_given(args, "test"))
        fprintf(sb_compat10() ? stderr : stdout, "WARNING: the --test option is deprecated. You can pass a script name "
               "or path on the command line without any options.\n");
    for (size_t i = 0; i < sizeof(legacy) / sizeof(legacy[0]); i++) {
        const struct sb_arg *a = arg_given(args, legacy[i].name);
        double v;

        if (a != NULL && (a->value == NULL || sb_parse_double(a->value, &v) != 0 ||
                          v != legacy[i].def))
            printf("WARNING: --%s is deprecated, use --%s instead\n", legacy[i].name,
                   legacy[i].use);
    }
}

/* The libpq variable that names a PostgreSQL server or database
 * (PGHOST, PGSERVICE, PGDATABASE, in that order), or NULL when none is
 * set: a user who set one and gave no driver option means PostgreSQL. */
static const char *pg_env_choice(void)
{
    static const char *const vars[] = {"PGHOST", "PGSERVICE", "PGDATABASE"};

    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        if (v != NULL && v[0] != '\0')
            return vars[i];
    }
    return NULL;
}

/*
 * Chooses the driver when --db-driver is not given: the one whose options
 * were given (--mysql-host means mysql), else pgsql when PGHOST, PGSERVICE
 * or PGDATABASE is set (not with SB_COMPAT=1.0: 1.0 ignored them), else
 * the default (SQLite). Options of two drivers is an error. Sets
 * --db-driver to the choice so scripts see it, and *reason (static text
 * or `buf`) to why, for the run header.
 */
static int infer_driver(struct sb_optset *general, const struct sb_optset *drv_sets,
                        const struct sb_driver_ops *const *drivers, size_t ndrv,
                        char *buf, size_t buflen, const char **reason,
                        char *err, size_t errlen)
{
    struct sb_opt *dopt = sb_optset_find(general, "db-driver");
    const struct sb_opt *first[MAX_DRIVERS] = {NULL};
    size_t found = 0, pick = 0;

    if (dopt == NULL || dopt->set) {
        *reason = "--db-driver";
        return 0;
    }
    for (size_t i = 0; i < ndrv; i++) {
        for (size_t j = 0; j < drv_sets[i].n && first[i] == NULL; j++)
            if (drv_sets[i].opts[j].set)
                first[i] = &drv_sets[i].opts[j];
        if (first[i] != NULL && found++ == 0)
            pick = i;
    }
    if (found > 1) {
        size_t other = pick + 1;
        while (first[other] == NULL)
            other++;
        snprintf(err, errlen, "options of two database drivers given (--%s and --%s): "
                 "choose one with --db-driver", first[pick]->name, first[other]->name);
        return -1;
    }
    if (found == 0) {
        const char *var = sb_compat10() ? NULL : pg_env_choice();
        for (size_t i = 0; var != NULL && i < ndrv; i++)
            if (strcmp(drivers[i]->name, "pgsql") == 0) {
                if (sb_opt_set(dopt, "pgsql", err, errlen) != 0)
                    return -1;
                dopt->set = false; /* inferred, not given */
                snprintf(buf, buflen, "from %s; --db-driver chooses another", var);
                *reason = buf;
                return 0;
            }
        *reason = "default";
        return 0;
    }
    if (sb_opt_set(dopt, drivers[pick]->name, err, errlen) != 0)
        return -1;
    dopt->set = false; /* inferred, not given */
    snprintf(buf, buflen, "from --%s", first[pick]->name);
    *reason = buf;
    return 0;
}

/* The script's name as sysbench 1.0.20 shows it in its messages: the
 * file name without the directory, or <stdin>. */
static const char *name10(const struct sb_lua_env *env)
{
    const char *slash;

    if (env->script_path == NULL || strcmp(env->script_path, "-") == 0)
        return "<stdin>";
    slash = strrchr(env->script_path, '/');
    return slash != NULL ? slash + 1 : env->script_path;
}

/* --plot lives in plot/, a layer above the engine: passed down to it. */
static const struct sb_run_charts charts = {sb_plot_check, sb_plot_output};

static int run_command(lua_State *L, struct sb_lua_env *env, const char *cmd,
                       struct sb_rand *main_rand)
{
    char err[1024];
    enum sb_lua_command kind;

    if (env->builtin != NULL && strcmp(cmd, "run") != 0)
        return sb_builtin_command(env->builtin, env->builtin_cfg, env->script_opts, cmd,
                                  env->point->threads);
    if (strcmp(cmd, "run") == 0) {
        int rc;
        if (env->builtin != NULL &&
            sb_builtin_check_run(env->builtin, env->builtin_cfg, err, sizeof(err)) != 0)
            return die(err);
        sb_lua_set_running(L, true);
        rc = sb_run_points(L, env, main_rand, &charts);
        sb_lua_set_running(L, false);
        return rc;
    }
    if (strcmp(cmd, "help") == 0 && sb_compat10() && sb_lua_has_function(L, "help")) {
        /* 1.0 leaves the whole text to the script's help(). */
        if (sb_lua_call_global(L, "help", -1, NULL, err, sizeof(err)) != 0)
            return die(err);
        return 0;
    }
    if (strcmp(cmd, "help") == 0 && sb_compat10() && env->opts_as_globals) {
        /* 1.0: no options and no help() means no 'help' command. */
        fprintf(stderr, "'%s' test does not implement the 'help' command.\n", name10(env));
        return 1;
    }
    if (strcmp(cmd, "help") == 0 && sb_lua_command_kind(L, "help") == SB_LUA_COMMAND_NONE) {
        printf("%s options:\n", sb_compat10() ? name10(env)
                                 : env->script_path ? env->script_path : "script");
        /* The script's options, sorted, named as the script declared them. */
        lua_pushstring(L, "sysbench");
        lua_rawget(L, LUA_GLOBALSINDEX);
        sb_lua_rawfield(L, -1, "cmdline");
        sb_lua_rawfield(L, -1, "print_test_options");
        lua_remove(L, -2);
        lua_remove(L, -2);
        if (sb_lua_pcall(L, 0, 0, err, sizeof(err)) != 0)
            return die(err);
        fflush(stdout);
        if (sb_lua_has_function(L, "help") &&
            sb_lua_call_global(L, "help", -1, NULL, err, sizeof(err)) != 0)
            return die(err);
        return 0;
    }
    kind = sb_lua_command_kind(L, cmd);
    if (kind == SB_LUA_COMMAND_PARALLEL)
        return sb_run_parallel_command(env, cmd);
    if (kind == SB_LUA_COMMAND_NONE && !sb_lua_has_function(L, cmd) && sb_compat10() &&
        strcmp(cmd, "prepare") != 0 && strcmp(cmd, "cleanup") != 0) {
        fprintf(stderr, "Unknown command: %s\n", cmd); /* 1.0: not a standard one */
        return 1;
    }
    if (kind == SB_LUA_COMMAND_NONE && !sb_lua_has_function(L, cmd) && sb_compat10()) {
        fprintf(stderr, "'%s' test does not implement the '%s' command.\n", name10(env), cmd);
        return 1;
    }
    if (kind == SB_LUA_COMMAND_NONE && !sb_lua_has_function(L, cmd)) {
        char q1[SB_OPT_QUOTE_LEN], q2[SB_OPT_QUOTE_LEN];
        snprintf(err, sizeof(err), "command '%s' is not implemented by script %s",
                 sb_opt_quote(cmd, q1, sizeof(q1)),
                 sb_opt_quote(env->script_path ? env->script_path : "-", q2, sizeof(q2)));
        return die(err);
    }
    return sb_run_main_command(L, env, cmd);
}

/* Everything main owns, freed in one place whichever step fails. */
struct sb_main {
    struct sb_optset general, script_opts;
    struct sb_optset drv_sets[MAX_DRIVERS];
    const struct sb_optset *drv_ptrs[MAX_DRIVERS + 1];
    const struct sb_driver_ops *const *drivers;
    size_t ndrv;
    struct sb_args args;
    struct sb_lua_env env;
    struct sb_point_config first_point;
    struct sb_lua_thread main_thr;
    struct sb_rand main_rand;
    struct sb_db_counters main_counters;
    char drv_err[1024], drv_reason[128];
    char *script_path, *stdin_text;
    /* A transaction mix (SCRIPT@WEIGHT ...): its types, the chunk that
     * loads them and its label (the run's script name). */
    struct sb_mix mix;
    char *mix_text;
    char mix_label[512];
    lua_State *L;
    const struct sb_builtin *builtin; /* a compiled-in test, or NULL */
};

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcmp(s + n - t, tail) == 0;
}

/* Declares the general options and one option set per compiled-in
 * driver; passwords (not the names of files holding them) are marked
 * secret so that help and dumps hide them. */
static int declare_options(struct sb_main *m, char *err, size_t errlen)
{
    const struct sb_driver_ops *const *drivers = m->drivers;

    if (sb_config_declare(&m->general, err, errlen) != 0 ||
        sb_optset_add_defs(&m->general, sb_db_options, err, errlen) != 0 ||
        sb_main10_default_driver(&m->general, err, errlen) != 0 ||
        sb_optset_add(&m->general, "test", "script to run (legacy name of the SCRIPT argument)",
                      NULL, SB_ARG_STRING, err, errlen) != 0)
        return -1;
    for (; drivers[m->ndrv] && m->ndrv < MAX_DRIVERS; m->ndrv++) {
        size_t i = m->ndrv;
        char title[64];

        snprintf(title, sizeof(title), "%s options", drivers[i]->name);
        sb_optset_init(&m->drv_sets[i], title);
        if (sb_optset_add_defs(&m->drv_sets[i], drivers[i]->options, err, errlen) != 0) {
            m->ndrv++; /* so that main_free frees this set too */
            return -1;
        }
        for (const struct sb_opt_def *d = drivers[i]->options; d && d->name; d++)
            if (strstr(d->name, "password") != NULL && !ends_with(d->name, "-file"))
                sb_optset_set_secret(&m->drv_sets[i], d->name);
        m->drv_ptrs[i] = &m->drv_sets[i];
    }
    m->drv_ptrs[m->ndrv] = NULL;
    return 0;
}

/* Whether --NAME (len bytes of name) is a secret option of a driver. */
static bool secret_arg(const char *name, size_t len, void *ctx)
{
    const struct sb_main *m = ctx;
    char n[128];
    const struct sb_opt *o = NULL;

    if (len >= sizeof(n))
        return false;
    memcpy(n, name, len);
    n[len] = '\0';
    for (size_t i = 0; i < m->ndrv && o == NULL; i++)
        o = sb_optset_find(&m->drv_sets[i], n);
    return o != NULL && o->secret;
}

/* Applies the command line, then the config file it names (whose entries
 * go first, so the command line wins), to the general and driver options. */
static int apply_options(struct sb_main *m, int argc, char **argv, char *err, size_t errlen)
{
    const char *cfgfile;

    if (sb_args_split(&m->args, argc, argv, err, errlen) != 0)
        return -1;
    /* The values are copied: a password given on the command line is
     * overwritten in argv now, so that ps and /proc/PID/cmdline show it
     * only for the instant between exec and here (as the mysql client
     * does). The result files name the option with its value masked. */
    sb_secret_scrub_argv(argc, argv, secret_arg, m);
    if (sb_args_apply(&m->args, &m->general, err, errlen) != 0)
        return -1;
    cfgfile = sb_optset_str(&m->general, "config-file");
    if (cfgfile != NULL && *cfgfile) {
        if (sb_args_read_config(&m->args, cfgfile, err, errlen) != 0)
            return -1;
        for (size_t i = 0; i < m->args.nopts; i++)
            m->args.opts[i].used = false;
        if (sb_args_apply(&m->args, &m->general, err, errlen) != 0)
            return -1;
    }
    for (size_t i = 0; i < m->ndrv; i++)
        if (sb_args_apply(&m->args, &m->drv_sets[i], err, errlen) != 0)
            return -1;
    return 0;
}

/*
 * Finds SCRIPT and COMMAND among the positional words (or --test, or a
 * script piped in). Returns 0 to go on, 1 when --version or --help has
 * been answered (*rc the exit status), or -1 with err set.
 */
static int pick_script_and_command(struct sb_main *m, const char **script, const char **cmd,
                                   int *rc, char *err, size_t errlen)
{
    size_t posi = 0;
    bool help = sb_optset_bool(&m->general, "help");

    if (sb_optset_bool(&m->general, "version")) {
        print_version((int)sb_optset_int(&m->general, "verbosity"));
        *rc = 0;
        return 1;
    }
    warn_legacy_names(&m->args);
    *script = sb_optset_str(&m->general, "test");
    /* A mix: the leading words NAME@WEIGHT (a file whose name has an '@'
     * is a script as usual). */
    while (*script == NULL && posi < m->args.npos && sb_mix_is_member(m->args.pos[posi]) &&
           !sb_script_is_file(m->args.pos[posi])) {
        if (sb_mix_add(&m->mix, m->args.pos[posi], err, errlen) != 0)
            return -1;
        posi++;
    }
    if (m->mix.n > 0)
        *script = m->mix.t[0].name;
    if (*script == NULL && m->args.npos > posi)
        *script = m->args.pos[posi++];
    /* sysbench 1.0 reads a script piped in without '-' too. */
    if (*script == NULL && !help && !isatty(STDIN_FILENO))
        *script = "-";
    if (m->args.npos > posi)
        *cmd = m->args.pos[posi++];
    /* SB_COMPAT=1.0: 1.0.20 runs a script read from standard input and
     * ignores the command. */
    if (sb_compat10() && *script != NULL && strcmp(*script, "-") == 0 && !help)
        *cmd = NULL;
    if (m->args.npos > posi && sb_compat10()) {
        fprintf(stderr, "Unrecognized command line argument: %s\n", m->args.pos[posi]);
        *rc = 1;
        return 1;
    }
    if (m->args.npos > posi) {
        snprintf(err, errlen, "too many arguments: expected SCRIPT [COMMAND]");
        return -1;
    }
    if (*script == NULL) {
        /* Help asked for exits 0; no script given exits 1 after it. */
        print_help(&m->general, m->drv_sets, m->ndrv);
        *rc = help ? 0 : 1;
        return 1;
    }
    if (help && sb_compat10() && strcmp(*script, "-") != 0 && sb_builtin_find(*script) == NULL) {
        /* 1.0: --help with a script it cannot find is the general usage. */
        char *path = sb_script_resolve(*script);
        if (path == NULL) {
            print_help(&m->general, m->drv_sets, m->ndrv);
            *rc = 0;
            return 1;
        }
        free(path);
    }
    if (help)
        *cmd = "help";
    return 0;
}

/* Finds the files of a mix's scripts and makes the chunk that loads them. */
static int locate_mix(struct sb_main *m, char *err, size_t errlen)
{
    char quoted[SB_OPT_QUOTE_LEN];

    for (unsigned i = 0; i < m->mix.n; i++) {
        const char *name = m->mix.t[i].name;
        if (strcmp(name, "-") == 0 || sb_builtin_find(name) != NULL) {
            snprintf(err, errlen, "'%s' cannot be in a mix: a mix takes Lua scripts only",
                     sb_opt_quote(name, quoted, sizeof(quoted)));
            return -1;
        }
        m->mix.t[i].path = sb_script_resolve(name);
        if (m->mix.t[i].path == NULL) {
            snprintf(err, errlen, "cannot find script '%s' of the mix: no such file, and no "
                     "bundled script of that name", sb_opt_quote(name, quoted, sizeof(quoted)));
            return -1;
        }
    }
    m->mix_text = sb_mix_chunk(&m->mix);
    if (m->mix_text == NULL) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    sb_mix_label(&m->mix, m->mix_label, sizeof(m->mix_label));
    m->env.script_path = m->mix_label;
    m->env.script_text = m->mix_text;
    m->env.script_len = strlen(m->mix_text);
    m->env.mix = &m->mix;
    return 0;
}

/* --tx-rate-per-type: each type's share of a mix's schedule from its
 * own rate, summing to the one --tx-rate or --rate (sb_mix_set_rates). */
static int apply_mix_rates(struct sb_main *m, char *err, size_t errlen)
{
    const char *spec = sb_optset_str(&m->general, "tx-rate-per-type");
    bool poisson = sb_cfg->poisson_rate > 0;

    if (spec == NULL || *spec == '\0')
        return 0;
    if (sb_cfg->ntx_rate_list > 1 || sb_cfg->find_max) {
        snprintf(err, errlen, "--tx-rate-per-type fixes the rate: not with %s",
                 sb_cfg->find_max ? "--find-max" : "a --tx-rate list");
        return -1;
    }
    return sb_mix_set_rates(&m->mix, spec, poisson ? sb_cfg->poisson_rate
                            : sb_cfg->ntx_rate_list == 1 ? sb_cfg->tx_rate_list[0] : 0,
                            poisson ? "--rate" : "--tx-rate", err, errlen);
}

/* Reads the script from standard input ("-") or finds its file. */
static int locate_script(struct sb_main *m, const char *script, char *err, size_t errlen)
{
    if (m->mix.n > 0)
        return locate_mix(m, err, errlen);
    if (strcmp(script, "-") == 0) {
        m->stdin_text = read_stdin(&m->env.script_len);
        m->env.script_text = m->stdin_text;
        if (m->stdin_text == NULL) {
            snprintf(err, errlen, "cannot read the script from standard input");
            return -1;
        }
        return 0;
    }
    /* A compiled-in test's name comes first, as in sysbench 1.0; its
     * Lua states run an empty chunk (the test's events are C). */
    m->builtin = sb_builtin_find(script);
    if (m->builtin != NULL) {
        m->env.builtin = m->builtin;
        m->env.script_path = m->builtin->name;
        m->env.script_text = "";
        m->env.script_len = 0;
        return 0;
    }
    m->script_path = sb_script_resolve(script);
    if (m->script_path == NULL) {
        char quoted[SB_OPT_QUOTE_LEN], near[80];
        if (sb_compat10())
            snprintf(err, errlen, "Cannot find benchmark '%s': no such built-in test, file or module",
                     script);
        else if (sb_script_suggest(script, near, sizeof(near)) != NULL)
            snprintf(err, errlen, "cannot find script '%s': no such file, and no bundled script "
                     "of that name: did you mean %s?", sb_opt_quote(script, quoted, sizeof(quoted)),
                     near);
        else
            snprintf(err, errlen, "cannot find script '%s': no such file, and no bundled script of that name",
                     sb_opt_quote(script, quoted, sizeof(quoted)));
        return -1;
    }
    m->env.script_path = m->script_path;
    return 0;
}

/* Fills the script's environment, then chooses and starts the driver. A
 * driver that fails to start is not an error here: its message waits in
 * env.driver_error until the script asks for the driver. */
static int prepare_env(struct sb_main *m, const char *cmd, int argc, char **argv, char *err,
                       size_t errlen)
{
    const char *name;
    const struct sb_optset *dset = NULL;
    const struct sb_driver_ops *d;

    m->env.command = cmd;
    m->env.argc = argc;
    m->env.argv = argv;
    m->env.general = &m->general;
    m->env.driver_sets = m->drv_ptrs;
    m->env.script_opts = &m->script_opts;
    /* Commands other than "run" (prepare in parallel, the script body)
     * see the first point of a sweep. */
    m->first_point = sb_point_first(sb_cfg);
    m->env.point = &m->first_point;
    if (m->builtin != NULL) {
        /* A compiled-in test uses no database: no driver, no server. */
        snprintf(m->drv_err, sizeof(m->drv_err), "the %s test uses no database driver",
                 m->builtin->name);
        m->env.driver_error = m->drv_err;
        return 0;
    }
    if (infer_driver(&m->general, m->drv_sets, m->drivers, m->ndrv, m->drv_reason,
                     sizeof(m->drv_reason), &m->env.driver_reason, err, errlen) != 0)
        return -1;
    name = sb_optset_str(&m->general, "db-driver");
    d = sb_driver_find(name ? name : "");
    for (size_t i = 0; d && i < m->ndrv; i++)
        if (m->drivers[i] == d)
            dset = &m->drv_sets[i];
    m->env.driver = sb_db_init(&m->general, dset, name ? name : "", m->drv_err,
                               sizeof(m->drv_err));
    m->env.driver_error = m->drv_err;
    return 0;
}

/* The main thread's random stream and counters, as a worker has them. */
static void prepare_main_thread(struct sb_main *m)
{
    sb_rand_seed_stream(&m->main_rand, sb_cfg->rand_seed,
                        0x100000000ULL + sb_cfg->instance.index, &sb_cfg->rand);
    memset(&m->main_counters, 0, sizeof(m->main_counters));
    m->main_thr.tid = -1;
    m->main_thr.rand = &m->main_rand;
    m->main_thr.counters = &m->main_counters;
}

/* Formats the first option no option set claimed, with the closest
 * option of the general, driver and script sets as a "did you mean"
 * hint, or returns 0 when every option was used. */
static int report_unused_option(const struct sb_main *m, char *err, size_t errlen)
{
    const struct sb_args *args = &m->args;
    const struct sb_arg *unused = sb_args_first_unused(args);
    char where[512], quoted[SB_OPT_QUOTE_LEN], name[256], hint[300] = "";
    const struct sb_optset *sets[MAX_DRIVERS + 2];
    const char *close;
    size_t n, nsets = 0;

    if (unused == NULL)
        return 0;
    /* "NAME VALUE" without '=' (a config file line, a quoted argv word)
     * makes the whole text the name: show only its first word, as the
     * rest may be a password. */
    if (sb_compat10()) { /* 1.0 shows the argument as given */
        die_plain = true;
        snprintf(err, errlen, "invalid option: --%s%s%s", unused->name,
                 unused->value ? "=" : "", unused->value ? unused->value : "");
        return -1;
    }
    n = strcspn(unused->name, " \t");
    snprintf(name, sizeof(name), "%.*s", (int)n, unused->name);
    sets[nsets++] = &m->general;
    for (size_t i = 0; i < m->ndrv; i++)
        sets[nsets++] = &m->drv_sets[i];
    sets[nsets++] = &m->script_opts;
    close = sb_opt_suggest(name, sets, nsets);
    if (close != NULL) {
        char dashed[256];
        snprintf(hint, sizeof(hint), ": did you mean --%s?",
                 sb_opt_dashed(close, dashed, sizeof(dashed)));
    }
    snprintf(err, errlen, "%sunknown option: --%s%s%s",
             sb_args_where(args, unused, where, sizeof(where)),
             sb_log_escape(name, quoted, sizeof(quoted), false), hint,
             unused->name[n] != '\0' ? " (expected NAME=VALUE; the rest is not shown)" : "");
    return -1;
}

/*
 * SB_COMPAT=1.0: a script option's bad value (--bool-opt=5) is 1.0.20's
 * plain "invalid option: ARG" with the argument as given. Returns -1.
 */
static int compat_invalid_value(const struct sb_args *args, char *err, size_t errlen)
{
    const char *p = strstr(err, " for --");
    char name[128];
    size_t n = 0;
    const struct sb_arg *a;

    if (!sb_compat10() || p == NULL)
        return -1;
    for (p += 7; n + 1 < sizeof(name) && *p != '\0' && *p != ':' && *p != ' '; p++)
        name[n++] = *p;
    name[n] = '\0';
    a = arg_given(args, name);
    if (a == NULL)
        return -1;
    die_plain = true;
    snprintf(err, errlen, "invalid option: --%s%s%s", a->name, a->value ? "=" : "",
             a->value ? a->value : "");
    return -1;
}

/* Declares, applies and checks the options the loaded script takes. */
static int apply_script_options(struct sb_main *m, char *err, size_t errlen)
{
    bool declared = false;

    if (m->builtin != NULL) {
        if (sb_builtin_declare(m->builtin, &m->script_opts, err, errlen) != 0 ||
            sb_args_apply(&m->args, &m->script_opts, err, errlen) != 0 ||
            report_unused_option(m, err, errlen) != 0)
            return -1;
        m->env.builtin_cfg = m->builtin->configure(&m->script_opts, err, errlen);
        return m->env.builtin_cfg != NULL ? 0 : -1;
    }
    if (sb_lua_declare_script_options(m->L, &m->script_opts, &declared, err, errlen) != 0)
        return -1;
    if (sb_args_apply(&m->args, &m->script_opts, err, errlen) != 0)
        return compat_invalid_value(&m->args, err, errlen);
    /* sysbench 1.0: a script that declares no options takes any, and
     * sees them all as globals. */
    m->env.opts_as_globals = !declared;
    if (!declared && sb_lua_accept_undeclared(&m->args, &m->script_opts, err, errlen) != 0)
        return -1;
    if (sb_lua_validate_script_options(m->L, &m->script_opts, err, errlen) != 0)
        return -1;
    return report_unused_option(m, err, errlen);
}

static void main_free(struct sb_main *m)
{
    if (m->L != NULL)
        sb_lua_close(m->L);
    sb_builtin_finish(m->builtin, m->env.builtin_cfg);
    sb_db_done(m->env.driver);
    free(m->stdin_text);
    free(m->mix_text);
    sb_mix_free(&m->mix);
    free(m->script_path);
    sb_args_free(&m->args);
    sb_optset_free(&m->general);
    sb_optset_free(&m->script_opts);
    for (size_t i = 0; i < m->ndrv; i++)
        sb_optset_free(&m->drv_sets[i]);
}

/*
 * Loads the run configuration from the general options, once the script
 * is known (a compiled-in test may end by itself), and sets the log
 * level. Returns 0, or -1 with one line in err.
 */
static int load_config(struct sb_main *m, const char *script, char *err, size_t errlen)
{
    /* memory and mutex end by themselves, also with --time=0. */
    m->builtin = sb_builtin_find(script);
    /* SB_COMPAT=1.0: 1.0.20's memory test ignores --events and always
     * moves --memory-total-size (its regression suite counts on it). */
    if (sb_compat10() && m->builtin != NULL && strcmp(m->builtin->name, "memory") == 0 &&
        sb_opt_set(sb_optset_find(&m->general, "events"), "0", err, errlen) != 0)
        return -1;
    if (sb_config_load(&m->general, m->builtin != NULL && m->builtin->ends_itself, err,
                       errlen) != 0) {
        locate_option_error(&m->args, err, errlen);
        return -1;
    }
    sb_log_set_level(sb_cfg->verbosity);
    /* 1.0 prints its banner first, also before a FATAL and a script body. */
    if (sb_compat10() && sb_cfg->verbosity >= SB_LOG_NOTICE)
        print_version_line();
    return 0;
}

/* Runs COMMAND once the script body ran and its options are applied;
 * without one, the body was all (sysbench as a Lua interpreter), except
 * for a compiled-in test. Returns the exit status. */
static int dispatch(struct sb_main *m, const char *cmd)
{
    char err[1024];

    if (cmd == NULL && m->builtin != NULL && sb_compat10()) {
        fprintf(stderr, "The '%s' test requires a command argument. See 'sysbench %s help'\n",
                m->builtin->name, m->builtin->name);
        return 1;
    }
    if (cmd == NULL && m->builtin != NULL) {
        snprintf(err, sizeof(err), "the '%s' test requires a command argument. See "
                 "'sysbench %s help'", m->builtin->name, m->builtin->name);
        return die(err);
    }
    if (cmd == NULL)
        return 0;
    if (strcmp(cmd, "run") != 0 && sb_cfg->verbosity >= SB_LOG_NOTICE && !sb_compat10())
        printf("\n");
    return run_command(m->L, &m->env, cmd, &m->main_rand);
}

int main(int argc, char **argv)
{
    struct sb_main m;
    char err[1024];
    const char *script = NULL, *cmd = NULL;
    int rc = 1, step;

    setvbuf(stdout, NULL, _IOLBF, 0);
    sb_compat10_load();
    /* compare reads result files: no script, driver or Lua state. */
    if (sb_compare_requested(argc, argv))
        return sb_compare_main(argc, argv, stdout);
    if (sb_ab_requested(argc, argv))
        return sb_ab_main(argc, argv, stdout);
    if (sb_merge_requested(argc, argv))
        return sb_merge_main(argc, argv, stdout);
    /* Everything main owns is set up before the first failure can jump
     * to `out`, so every early exit frees the same way. */
    memset(&m, 0, sizeof(m));
    m.drivers = sb_driver_list();
    sb_optset_init(&m.general, "General options");
    sb_optset_init(&m.script_opts, "Script options");
    sb_args_init(&m.args);
    if (declare_options(&m, err, sizeof(err)) != 0 ||
        apply_options(&m, argc, argv, err, sizeof(err)) != 0)
        goto fail;
    step = pick_script_and_command(&m, &script, &cmd, &rc, err, sizeof(err));
    if (step < 0)
        goto fail;
    if (step > 0)
        goto out;
    if (load_config(&m, script, err, sizeof(err)) != 0 ||
        locate_script(&m, script, err, sizeof(err)) != 0 ||
        apply_mix_rates(&m, err, sizeof(err)) != 0 ||
        prepare_env(&m, cmd, argc, argv, err, sizeof(err)) != 0)
        goto fail;
    if (cmd != NULL && sb_cfg->verbosity >= SB_LOG_NOTICE && !sb_compat10())
        print_version_line();
    prepare_main_thread(&m);
    sb_signal_install();

    m.L = sb_lua_new_state(&m.env, &m.main_thr, true, err, sizeof(err));
    if (m.L == NULL && sb_signal_caught() != 0 && sb_lua_is_interrupt(err)) {
        printf("\nInterrupted by signal %d in the script body.\n", sb_signal_caught());
        rc = 128 + sb_signal_caught();
        goto out;
    }
    if (m.L == NULL) {
        rc = die(err); /* a script error: may carry a traceback */
        goto out;
    }
    if (apply_script_options(&m, err, sizeof(err)) != 0)
        goto fail;
    sb_lua_export_options(m.L, &m.env);
    rc = dispatch(&m, cmd);
    if (sb_signal_abandoned()) {
        /* A thread that did not stop may still use the Lua state, the
         * driver and their memory: no clean-up, no atexit handlers. */
        fflush(stdout);
        fflush(stderr);
        _exit(rc);
    }
    goto out;
fail: {
        /* An option or config file error quotes what the user gave: one
         * line, whatever bytes the value holds. */
        char safe[sizeof(err)];
        rc = die(sb_log_escape(err, safe, sizeof(safe), false));
    }
out:
    main_free(&m);
    return rc;
}
