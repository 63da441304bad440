/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `sysbench --help`; see sb_help.h.
 *
 * One flat block of 120 options, most lines wider than a terminal, hid
 * what a newcomer looks for; the groups below follow the jobs of the
 * README (run, steady rate, results, repeat and compare, scale-out,
 * drivers), and every line fits 80 columns.
 */
#include "config.h"

#include "engine/sb_help.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "builtin/sb_builtin.h"
#include "drivers/sb_driver.h"
#include "lua/sb_lua.h"

/* Where descriptions start; a longer option name pushes its first line's
 * description further right, the following lines start here again. */
#define HELP_COLUMN 26

/* Most general options one group lists. */
#define GROUP_MAX 24

/* The groups of the general options, in the order printed. */
static const struct group {
    const char *title;
    const char *intro; /* a line under the title, or NULL */
    const char *names[GROUP_MAX];
} groups[] = {
    {"General options", NULL,
     {"threads", "time", "events", "warmup-time", "deadline-grace", "forced-shutdown",
      "thread-stack-size", "client-threads", "rand-type", "rand-seed", "rand-spec-iter",
      "rand-spec-pct", "rand-spec-res", "rand-pareto-h", "rand-zipfian-exp", "verbosity",
      "config-file", "debug", "validate", "help", "version", "test"}},
    {"Rate options",
     "--tx-rate holds a fixed schedule per thread; --rate is sysbench 1.0's Poisson rate.",
     {"tx-rate", "tx-rate-per-type", "tx-jitter", "tx-late", "tx-spin", "rate"}},
    {"Result options", NULL,
     {"report-interval", "report-checkpoints", "percentile", "histogram", "json", "csv",
      "plot", "hgrm", "log", "log-aggregate-interval", "metrics-listen", "metrics-linger",
      "metrics-file"}},
    {"Repeat, compare and find-max options",
     "sysbench compare A.json B.json judges two result files; 'sysbench compare --help' "
     "lists its options. 'sysbench ab' runs two targets side by side until the difference "
     "is decided; 'sysbench ab --help' lists its options.",
     {"repeat", "repeat-cooldown", "sweep-cooldown", "find-max", "sla", "budget"}},
    {"Scale-out options",
     "Several client hosts run one experiment; 'sysbench merge' joins their result files.",
     {"instance", "instances", "start-at", "clock-offset"}},
    {"Driver options", NULL,
     {"db-driver", "db-ps-mode", "db-ignore-errors", "db-reconnect-timeout", "db-debug",
      "server-pid"}},
};

/* Prints text from column col (already reached) word by word, wrapping
 * at SB_HELP_WIDTH onto lines indented by indent, then a newline. A word
 * longer than a line (a folder name) is printed whole. */
static void wrap(FILE *out, const char *text, size_t col, size_t indent)
{
    bool line_start = true;

    for (const char *p = text; *p != '\0';) {
        size_t w;
        while (*p == ' ')
            p++;
        if (*p == '\0')
            break;
        w = strcspn(p, " ");
        if (!line_start && col + 1 + w > SB_HELP_WIDTH) {
            fprintf(out, "\n%*s", (int)indent, "");
            col = indent;
            line_start = true;
        }
        if (!line_start) {
            fputc(' ', out);
            col++;
        }
        fwrite(p, 1, w, out);
        col += w;
        p += w;
        line_start = false;
    }
    fputc('\n', out);
}

/* One option: its name, then its description and default, wrapped. */
static void print_opt(FILE *out, const struct sb_opt *opt)
{
    char head[320], text[2048];
    size_t col;

    sb_opt_help_parts(opt, head, sizeof(head), text, sizeof(text));
    col = 2 + strlen(head);
    fprintf(out, "  %s", head);
    if (col < HELP_COLUMN) {
        fprintf(out, "%*s", (int)(HELP_COLUMN - col), "");
        col = HELP_COLUMN;
    } else {
        fputc(' ', out);
        col++;
    }
    wrap(out, text, col, HELP_COLUMN);
}

/* Whether a group names option name. */
static bool grouped(const char *name)
{
    for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++)
        for (size_t i = 0; i < GROUP_MAX && groups[g].names[i] != NULL; i++)
            if (strcmp(groups[g].names[i], name) == 0)
                return true;
    return false;
}

/* Group g of the general options; the first also lists the options no
 * group names. */
static void print_group(FILE *out, const struct sb_optset *general, size_t g)
{
    fprintf(out, "\n%s:\n", groups[g].title);
    if (groups[g].intro != NULL) {
        fputs("  ", out);
        wrap(out, groups[g].intro, 2, 2);
    }
    for (size_t i = 0; i < GROUP_MAX && groups[g].names[i] != NULL; i++) {
        const struct sb_opt *o = sb_optset_find(general, groups[g].names[i]);
        if (o != NULL && o->alias_of == NULL)
            print_opt(out, o);
    }
    for (size_t i = 0; g == 0 && i < general->n; i++)
        if (general->opts[i].alias_of == NULL && !grouped(general->opts[i].name))
            print_opt(out, &general->opts[i]);
}

/* The drivers compiled in and each one's options. */
static void print_drivers(FILE *out, const struct sb_optset *drv_sets, size_t ndrv)
{
    const struct sb_driver_ops *const *d = sb_driver_list();

    fprintf(out, "\nCompiled-in database drivers:\n");
    for (; *d; d++)
        fprintf(out, "  %s - %s\n", (*d)->name, (*d)->description);
    for (size_t i = 0; i < ndrv; i++) {
        const struct sb_optset *set = &drv_sets[i];
        fprintf(out, "\n%s:\n", set->title != NULL ? set->title : "driver options");
        for (size_t k = 0; k < set->n; k++)
            if (set->opts[k].alias_of == NULL)
                print_opt(out, &set->opts[k]);
    }
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The bundled scripts by name (the .lua files of the scenario folder,
 * sorted; oltp_common is the library the oltp_* scripts load, not a
 * script), and where they are. */
static void print_scripts(FILE *out)
{
    const char *dir = sb_lua_scenario_dir();
    DIR *dp = opendir(dir);
    char *names[128], list[4096] = "";
    size_t n = 0, used = 0;
    struct dirent *e;

    while (dp != NULL && (e = readdir(dp)) != NULL && n < 128) {
        size_t len = strlen(e->d_name);
        if (len <= 4 || strcmp(e->d_name + len - 4, ".lua") != 0 ||
            strcmp(e->d_name, "oltp_common.lua") == 0)
            continue;
        if ((names[n] = strndup(e->d_name, len - 4)) != NULL)
            n++;
    }
    if (dp != NULL)
        closedir(dp);
    qsort(names, n, sizeof(names[0]), cmp_names);
    for (size_t i = 0; i < n; i++) {
        if (used < sizeof(list))
            used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", i ? " " : "",
                                     names[i]);
        free(names[i]);
    }
    fprintf(out, "\nBundled scripts (SCRIPT by name), in %s%s\n",
            strlen(dir) + 36 > SB_HELP_WIDTH ? "\n  " : "", dir);
    fputs("  ", out);
    wrap(out, n > 0 ? list : "(none found)", 2, 2);
}

void sb_help_print(const struct sb_optset *general, const struct sb_optset *drv_sets,
                   size_t ndrv, FILE *out)
{
    fputs("Usage:\n"
          "  sysbench [options]... SCRIPT [COMMAND] [script options]...\n"
          "  sysbench compare A.json B.json [...] [--labels=a,b] [--plot=FILE.png]\n"
          "  sysbench merge A.json B.json [...] [--json=ALL.json]\n"
          "  sysbench ab --a='OPTIONS' --b='OPTIONS' [--budget=10m] SCRIPT [options] run\n\n",
          out);
    wrap(out, "SCRIPT is a bundled script (listed at the end), a Lua file, a compiled-in "
              "test or '-' (the script on standard input). COMMAND is prepare, run, cleanup, "
              "help or one the script defines; 'sysbench SCRIPT help' lists a script's "
              "options.", 0, 0);
    for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++)
        print_group(out, general, g);
    print_drivers(out, drv_sets, ndrv);
    fputc('\n', out);
    sb_builtin_print_list(out);
    fputs("\nExamples:\n"
          "  # Load 4 tables into SQLite (sbtest.db here), then hold 200 tx/s for 60 s\n"
          "  sysbench oltp_read_write --tables=4 prepare\n"
          "  sysbench oltp_read_write --tables=4 --tx-rate=200 --time=60 run\n"
          "  # A thread sweep, 3 runs a point, judged against another build's file\n"
          "  sysbench oltp_read_only --threads=1,2,4,8 --repeat=3 --json=b.json run\n"
          "  sysbench compare a.json b.json --plot=ab.png\n"
          "  # The same on MariaDB or MySQL (PostgreSQL: --db-driver=pgsql)\n"
          "  sysbench oltp_point_select --db-driver=mysql --mysql-host=127.0.0.1 \\\n"
          "      --mysql-user=sbtest --mysql-password=... --threads=16 --time=60 run\n", out);
    print_scripts(out);
}
