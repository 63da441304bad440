/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The registry of compiled-in tests and what they share: help, commands
 * other than run, and the header formatting of sizes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin/sb_builtin.h"
#include "core/sb_log.h"
#include "builtin/sb_bi_cpu.h"
#include "builtin/sb_bi_fileio.h"
#include "builtin/sb_bi_memory.h"
#include "builtin/sb_bi_mutex.h"
#include "builtin/sb_bi_threads.h"

/* In the order sysbench 1.0 lists them under "Compiled-in tests". */
static const struct sb_builtin *const tests[] = {
    &sb_bi_fileio, &sb_bi_cpu, &sb_bi_memory, &sb_bi_threads, &sb_bi_mutex, NULL
};

const struct sb_builtin *sb_builtin_find(const char *name)
{
    for (size_t i = 0; name != NULL && tests[i] != NULL; i++)
        if (strcmp(tests[i]->name, name) == 0)
            return tests[i];
    return NULL;
}

const struct sb_builtin *sb_builtin_at(size_t i)
{
    return i < sizeof(tests) / sizeof(tests[0]) ? tests[i] : NULL;
}

void sb_builtin_print_list(FILE *out)
{
    fprintf(out, "Compiled-in tests:\n");
    for (size_t i = 0; tests[i] != NULL; i++)
        fprintf(out, "  %s - %s\n", tests[i]->name, tests[i]->description);
}

int sb_builtin_declare(const struct sb_builtin *b, struct sb_optset *set, char *err,
                       size_t errlen)
{
    char title[64];

    /* The help heading, "cpu options:", as sysbench 1.0 prints it. */
    snprintf(title, sizeof(title), "%s options", b->name);
    free(set->title);
    set->title = strdup(title);
    if (set->title == NULL)
        return sb_opt_fail(err, errlen, "out of memory");
    return sb_optset_add_defs(set, b->options, err, errlen);
}

int sb_builtin_command(const struct sb_builtin *b, const void *cfg, const struct sb_optset *opts,
                       const char *cmd, unsigned threads)
{
    char err[1024];
    int rc = -2;

    if (strcmp(cmd, "help") == 0) {
        sb_optset_print_help(opts, stdout);
        printf("\n");
        return 0;
    }
    if (strcmp(cmd, "prepare") == 0 && b->prepare != NULL)
        rc = b->prepare(cfg, threads, err, sizeof(err));
    else if (strcmp(cmd, "cleanup") == 0 && b->cleanup != NULL)
        rc = b->cleanup(cfg, err, sizeof(err));
    if (rc == -2) {
        /* sysbench 1.0's words for a command a test does not have. */
        if (sb_compat10()) /* 1.0: no FATAL prefix */
            fprintf(stderr, "'%s' test does not implement the '%s' command.\n", b->name, cmd);
        else
            sb_fatal("'%s' test does not implement the '%s' command.", b->name, cmd);
        return 1;
    }
    if (rc != 0) {
        sb_fatal("%s", err);
        return 1;
    }
    return 0;
}

int sb_builtin_check_run(const struct sb_builtin *b, const void *cfg, char *err, size_t errlen)
{
    return b->check_run != NULL ? b->check_run(cfg, err, errlen) : 0;
}

void sb_builtin_finish(const struct sb_builtin *b, void *cfg)
{
    if (b != NULL && b->finish != NULL)
        b->finish(cfg);
}

const char *sb_bi_size_str(uint64_t bytes, char *buf, size_t len)
{
    static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
    int u = -1;

    while (u < 3 && bytes >= 1024 && bytes % 1024 == 0) {
        bytes /= 1024;
        u++;
    }
    if (u < 0)
        snprintf(buf, len, "%llub", (unsigned long long)bytes);
    else
        snprintf(buf, len, "%llu%s", (unsigned long long)bytes, units[u]);
    return buf;
}

int sb_bi_bad_option(char *err, size_t errlen, const char *name, const char *value,
                     const char *expected)
{
    if (sb_compat10()) /* 1.0.20's wording */
        return sb_opt_fail(err, errlen, "Invalid value for %s: %s", name,
                           value != NULL ? value : "");
    return sb_opt_fail(err, errlen, "invalid value for --%s: %s (expected %s)", name,
                       value != NULL ? value : "", expected);
}
