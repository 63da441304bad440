/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ab command's arguments; see sb_ab_int.h.
 *
 * The command line is taken apart by hand rather than through the
 * option sets of a run: ab's own options are consumed, everything else
 * is handed to each target's run as it was written (the run checks it),
 * and only the options that cannot mean anything per round (a sweep, a
 * repeat, files every round would overwrite) are refused here.
 */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compare/sb_ab_int.h"

/* The figures, in the order of enum sb_ab_fig. */
const struct sb_ab_fig_def sb_ab_figs[SB_AB_NFIGS] = {
    {"tps", "throughput (tx/s)", SB_POINT_RESULT_TPS, 0, true},
    {"p95", "response p95 (ms)", SB_POINT_RESULT_LATENCY, 95, false},
    {"p99", "response p99 (ms)", SB_POINT_RESULT_LATENCY, 99, false},
    {"client-cpu", "client CPU (us/tx)", SB_POINT_RESULT_CPU_CLIENT, 0, false},
    {"server-cpu", "server CPU (us/tx)", SB_POINT_RESULT_CPU_SERVER, 0, false},
    {"machine-cpu", "machine CPU (us/tx)", SB_POINT_RESULT_CPU_MACHINE, 0, false},
};

/* Default budget: 10 minutes, as long as a user waits for an answer. */
#define DEFAULT_BUDGET_S 600.0
#define DEFAULT_MARGIN 0.02
/* sysbench's own default --time. */
#define DEFAULT_TIME_S 10.0

/* Options of a run that mean nothing per round, and why. */
static const struct {
    const char *name, *why;
} refused[] = {
    {"repeat", "ab repeats by rounds (--budget, --rounds)"},
    {"find-max", "ab compares one point"},
    {"start-at", "ab sets each round's start"},
    {"instance", "ab runs one instance per target"},
    {"instances", "ab runs one instance per target"},
    {"csv", "every round would overwrite it; --ab-dir=DIR keeps each run's files"},
    {"hgrm", "every round would overwrite it; --ab-dir=DIR keeps each run's files"},
    {"log", "every round would overwrite it; --ab-dir=DIR keeps each run's files"},
    {"metrics-file", "every round would overwrite it"},
    {"metrics-listen", "the two targets' runs cannot share one endpoint"},
    {"report-checkpoints", "a round reports once"},
};

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

double sb_ab_parse_duration(const char *s)
{
    char *end;
    double v = strtod(s, &end), mul = 1;

    if (end == s || !isfinite(v) || v < 0)
        return NAN;
    if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
        mul = 60;
    else if (strcmp(end, "h") == 0)
        mul = 3600;
    else if (strcmp(end, "s") != 0 && *end != '\0')
        return NAN;
    return v * mul;
}

/* Appends byte c to the word being built. Returns 0, or -1 out of memory. */
static int word_put(char **w, size_t *len, size_t *cap, char c)
{
    if (*len + 2 > *cap) {
        size_t ncap = *cap ? *cap * 2 : 32;
        char *p = realloc(*w, ncap);
        if (p == NULL)
            return -1;
        *w = p;
        *cap = ncap;
    }
    (*w)[(*len)++] = c;
    (*w)[*len] = '\0';
    return 0;
}

static void free_words(char **v)
{
    for (size_t i = 0; v != NULL && v[i] != NULL; i++)
        free(v[i]);
    free(v);
}

/* Scans one word from *sp into a new string (*out); *sp moves past it.
 * Returns 1 for a word, 0 at the end, -1 with err. */
static int next_word(const char **sp, char **out, char *err, size_t errlen)
{
    const char *s = *sp;
    char *w = NULL, quote = 0;
    size_t len = 0, cap = 0;

    while (*s == ' ' || *s == '\t' || *s == '\n')
        s++;
    if (*s == '\0') {
        *sp = s;
        return 0;
    }
    for (; *s != '\0' && (quote || (*s != ' ' && *s != '\t' && *s != '\n')); s++) {
        char c = *s;
        if (quote == '\'' && c != '\'') {
            /* Everything is literal inside single quotes. */
        } else if (c == quote) {
            quote = 0;
            continue;
        } else if (!quote && (c == '\'' || c == '"')) {
            quote = c;
            if (word_put(&w, &len, &cap, '\0') != 0)
                goto oom;
            len--;
            continue;
        } else if (c == '\\' && s[1] != '\0') {
            c = *++s;
        }
        if (word_put(&w, &len, &cap, c) != 0)
            goto oom;
    }
    if (quote) {
        free(w);
        return fail(err, errlen, "unclosed %c quote in '%s'", quote, *sp);
    }
    *sp = s;
    *out = w;
    return 1;
oom:
    free(w);
    return fail(err, errlen, "out of memory");
}

char **sb_ab_split_words(const char *s, size_t *n, char *err, size_t errlen)
{
    char **v = calloc(strlen(s) / 2 + 2, sizeof(*v)), *w = NULL;
    int rc;

    *n = 0;
    if (v == NULL) {
        fail(err, errlen, "out of memory");
        return NULL;
    }
    while ((rc = next_word(&s, &w, err, errlen)) == 1)
        v[(*n)++] = w;
    if (rc < 0) {
        free_words(v);
        return NULL;
    }
    return v;
}

/* The option's name with dashes for underscores, into buf ("" for a
 * word that is not an option). */
static const char *opt_name(const char *arg, char *buf, size_t len)
{
    size_t i = 0;

    buf[0] = '\0';
    if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0')
        return buf;
    for (arg += 2; *arg != '\0' && *arg != '=' && i + 1 < len; arg++)
        buf[i++] = *arg == '_' ? '-' : *arg;
    buf[i] = '\0';
    return buf;
}

static const char *opt_value(const char *arg)
{
    const char *eq = strchr(arg, '=');
    return eq != NULL ? eq + 1 : NULL;
}

static int parse_margin(struct sb_ab_args *a, const char *v, char *err, size_t errlen)
{
    char *end;
    double pct = strtod(v, &end);

    if (end == v || (*end != '\0' && strcmp(end, "%") != 0) || !isfinite(pct))
        return fail(err, errlen, "--margin needs a percentage such as 2%% (got '%s')", v);
    if (!(pct > 0) || pct > 50)
        return fail(err, errlen, "--margin must be above 0%% and at most 50%% (got %s%s): the "
                    "ratio range that counts as no change", v, *end ? "" : "%");
    a->margin = pct / 100;
    return 0;
}

static int parse_primary(struct sb_ab_args *a, const char *v, char *err, size_t errlen)
{
    for (int f = 0; f < SB_AB_NFIGS; f++)
        if (strcmp(v, sb_ab_figs[f].key) == 0) {
            a->primary = f;
            return 0;
        }
    return fail(err, errlen, "--primary must be tps, p95, p99, client-cpu, server-cpu or "
                "machine-cpu (got '%s')", v);
}

static int parse_labels(struct sb_ab_args *a, const char *v, char *err, size_t errlen)
{
    const char *comma = strchr(v, ',');

    if (comma == NULL || comma == v || comma[1] == '\0' || strchr(comma + 1, ',') != NULL)
        return fail(err, errlen, "--labels needs two non-empty names, such as --labels=old,new");
    free((char *)a->label[0]);
    free((char *)a->label[1]);
    a->label[0] = strndup(v, (size_t)(comma - v));
    a->label[1] = strdup(comma + 1);
    if (a->label[0] == NULL || a->label[1] == NULL)
        return fail(err, errlen, "out of memory");
    return 0;
}

static int parse_rounds(struct sb_ab_args *a, const char *v, char *err, size_t errlen)
{
    char *end;
    unsigned long n = strtoul(v, &end, 10);

    if (end == v || *end != '\0' || n < SB_SEQ_MIN_ROUNDS || n > 100000)
        return fail(err, errlen, "--rounds must be a whole number from %d to 100000 (got '%s')",
                    SB_SEQ_MIN_ROUNDS, v);
    a->max_rounds = n;
    return 0;
}

/* Takes one of ab's own options. Returns 1 when it was one, 0 when it
 * is not ab's, -1 with err. */
static int own_option(struct sb_ab_args *a, const char *name, const char *arg, char *err,
                      size_t errlen)
{
    const char *v = opt_value(arg);
    int t = strcmp(name, "a") == 0 ? 0 : strcmp(name, "b") == 0 ? 1 : -1;

    if (strcmp(name, "help") == 0) {
        a->help = true;
        return 1;
    }
    if (strcmp(name, "aa") == 0) {
        if (v != NULL && strcmp(v, "on") != 0 && strcmp(v, "true") != 0)
            return fail(err, errlen, "--aa takes no value");
        a->aa = true;
        return 1;
    }
    if (t < 0 && strcmp(name, "mode") != 0 && strcmp(name, "budget") != 0 &&
        strcmp(name, "margin") != 0 && strcmp(name, "primary") != 0 &&
        strcmp(name, "rounds") != 0 && strcmp(name, "a-before") != 0 &&
        strcmp(name, "b-before") != 0 && strcmp(name, "labels") != 0 &&
        strcmp(name, "json") != 0 && strcmp(name, "plot") != 0 && strcmp(name, "ab-dir") != 0 &&
        strcmp(name, "stop") != 0)
        return 0;
    if (v == NULL || (*v == '\0' && t < 0))
        return fail(err, errlen, "--%s needs a value (--%s=...)", name, name);
    if (t >= 0) {
        a->spec[t] = (char *)v;
    } else if (strcmp(name, "mode") == 0) {
        if (strcmp(v, "duet") != 0 && strcmp(v, "interleaved") != 0)
            return fail(err, errlen, "--mode must be duet or interleaved (got '%s')", v);
        a->mode = strcmp(v, "duet") == 0 ? SB_AB_DUET : SB_AB_INTERLEAVED;
        a->mode_given = true;
    } else if (strcmp(name, "stop") == 0) {
        if (strcmp(v, "early") != 0 && strcmp(v, "end") != 0)
            return fail(err, errlen, "--stop must be early or end (got '%s')", v);
        a->stop_at_end = strcmp(v, "end") == 0;
    } else if (strcmp(name, "budget") == 0) {
        a->budget_s = sb_ab_parse_duration(v);
        if (!(a->budget_s > 0))
            return fail(err, errlen, "--budget needs a time such as 600, 90s, 10m or 1h (got '%s')", v);
    } else if (strcmp(name, "margin") == 0) {
        return parse_margin(a, v, err, errlen) == 0 ? 1 : -1;
    } else if (strcmp(name, "primary") == 0) {
        return parse_primary(a, v, err, errlen) == 0 ? 1 : -1;
    } else if (strcmp(name, "rounds") == 0) {
        return parse_rounds(a, v, err, errlen) == 0 ? 1 : -1;
    } else if (strcmp(name, "labels") == 0) {
        return parse_labels(a, v, err, errlen) == 0 ? 1 : -1;
    } else if (strcmp(name, "a-before") == 0 || strcmp(name, "b-before") == 0) {
        a->before[name[0] == 'a' ? 0 : 1] = v;
    } else if (strcmp(name, "json") == 0) {
        a->json = v;
    } else if (strcmp(name, "plot") == 0) {
        a->plot = v;
    } else {
        a->keep_dir = v;
    }
    return 1;
}

/* Looks at a common option for what ab must know of it (the round's
 * time, the seed, a rate) or refuse. Returns 1 to pass it on, 0 to drop
 * it (the seed: each round gets its own), -1 with err. */
static int common_option(struct sb_ab_args *a, const char *name, const char *arg, char *err,
                         size_t errlen)
{
    const char *v = opt_value(arg);

    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
        if (strcmp(name, refused[i].name) == 0)
            return fail(err, errlen, "--%s cannot be used with ab: %s", name, refused[i].why);
    if (v == NULL)
        return 1;
    if ((strcmp(name, "threads") == 0 || strcmp(name, "num-threads") == 0 ||
         strcmp(name, "tx-rate") == 0) && strchr(v, ',') != NULL)
        return fail(err, errlen, "--%s=%s is a sweep; ab compares one point: give one value",
                    name, v);
    if (strcmp(name, "time") == 0 || strcmp(name, "max-time") == 0) {
        char *end;
        a->time_s = strtod(v, &end);
        if (end == v || *end != '\0' || !(a->time_s > 0) || !isfinite(a->time_s))
            return fail(err, errlen, "--time for ab is each round's length in seconds, above 0 "
                        "(got '%s')", v);
    } else if (strcmp(name, "threads") == 0 || strcmp(name, "num-threads") == 0) {
        a->threads = (unsigned)strtoul(v, NULL, 10);
    } else if (strcmp(name, "warmup-time") == 0) {
        a->warmup_s = strtod(v, NULL);
    } else if ((strcmp(name, "tx-rate") == 0 || strcmp(name, "rate") == 0) && strtod(v, NULL) > 0) {
        a->rated = true;
    } else if (strcmp(name, "rand-seed") == 0) {
        a->seed = strtoull(v, NULL, 10);
        return 0;
    }
    return 1;
}

static int take_positional(struct sb_ab_args *a, const char *s, bool *seen_cmd, char *err,
                           size_t errlen)
{
    if (!*seen_cmd && strcmp(s, "ab") == 0)
        *seen_cmd = true;
    else if (a->script == NULL)
        a->script = s;
    else if (a->command == NULL)
        a->command = s;
    else
        return fail(err, errlen, "unexpected '%s' after the command '%s'; usage: sysbench ab "
                    "--a='OPTIONS' --b='OPTIONS' SCRIPT [options] prepare|run|cleanup", s,
                    a->command);
    return 0;
}

/* The checks once every argument is in. */
static int check_args(struct sb_ab_args *a, char *err, size_t errlen)
{
    if (a->help)
        return 0;
    if (a->aa && a->spec[1] != NULL)
        return fail(err, errlen, "--aa runs --a's options on both sides: leave out --b");
    if (a->spec[0] == NULL || (!a->aa && a->spec[1] == NULL))
        return fail(err, errlen, "ab needs both targets: --a='OPTIONS' --b='OPTIONS' (for "
                    "example --a='--mysql-port=3306' --b='--mysql-port=3307'), or --aa");
    if (a->script == NULL)
        return fail(err, errlen, "ab needs a script: sysbench ab --a=... --b=... SCRIPT run");
    if (a->command == NULL)
        a->command = "run";
    if ((a->before[0] != NULL || a->before[1] != NULL) && a->mode_given &&
        a->mode == SB_AB_DUET)
        return fail(err, errlen, "--a-before/--b-before run between one target's turn and the "
                    "other's: they need --mode=interleaved");
    if (a->before[0] != NULL || a->before[1] != NULL)
        a->mode = SB_AB_INTERLEAVED;
    if (a->primary == SB_AB_CPU_MACHINE && a->mode == SB_AB_DUET)
        return fail(err, errlen, "--primary=machine-cpu needs --mode=interleaved: side by side "
                    "the machine runs both targets");
    if (a->plot != NULL && a->json == NULL && strcmp(a->command, "run") != 0)
        return fail(err, errlen, "--plot draws the rounds of 'run'");
    return 0;
}

static int split_targets(struct sb_ab_args *a, char *err, size_t errlen)
{
    for (int t = 0; t < 2; t++) {
        const char *spec = a->aa ? a->spec[0] : a->spec[t];
        char e[256];
        if ((a->opts[t] = sb_ab_split_words(spec, &a->nopts[t], e, sizeof(e))) == NULL)
            return fail(err, errlen, "--%s: %s", t == 0 || a->aa ? "a" : "b", e);
        for (size_t i = 0; i < a->nopts[t]; i++)
            if (strncmp(a->opts[t][i], "--", 2) != 0)
                return fail(err, errlen, "--%s: '%s' is not an option (each word must be "
                            "--name=value)", t == 0 || a->aa ? "a" : "b", a->opts[t][i]);
    }
    return 0;
}

/* The rule main.c applies to the drivers' options: a name with
 * "password" in it, other than the *-password-file options. */
static bool secret_name(const char *name, size_t len)
{
    static const char file[] = "-file";
    bool has = false;

    for (size_t i = 0; i + 8 <= len && !has; i++)
        has = memcmp(name + i, "password", 8) == 0;
    return has && !(len >= sizeof(file) - 1 &&
                    memcmp(name + len - (sizeof(file) - 1), file, sizeof(file) - 1) == 0);
}

/* Overwrites the value of every secret --NAME=VALUE word in s, up to the
 * first unquoted blank, with 'x'; quotes stay so the words still split. */
static void scrub_words(char *s)
{
    while (*s != '\0') {
        char *name, *eq;
        char quote = 0;

        while (*s == ' ' || *s == '\t' || *s == '\n')
            s++;
        name = s;
        while (*s != '\0' && *s != ' ' && *s != '\t' && *s != '\n' && *s != '=')
            s++;
        eq = *s == '=' ? s++ : NULL;
        bool secret = eq != NULL && strncmp(name, "--", 2) == 0 &&
                      secret_name(name + 2, (size_t)(eq - name - 2));
        for (; *s != '\0' && (quote || (*s != ' ' && *s != '\t' && *s != '\n')); s++) {
            if (*s == '\'' || *s == '"') {
                quote = quote == *s ? 0 : quote ? quote : *s;
                continue;
            }
            if (secret)
                *s = 'x';
        }
    }
}

/* Every password value in argv, on its own or inside --a/--b, overwritten
 * (the parsed arguments are copies by now). */
static void scrub_argv(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        char *s = argv[i], *eq;

        if (strncmp(s, "--", 2) != 0 || (eq = strchr(s, '=')) == NULL)
            continue;
        if (eq - s == 3 && (s[2] == 'a' || s[2] == 'b'))
            scrub_words(eq + 1);
        else if (secret_name(s + 2, (size_t)(eq - s - 2)))
            for (char *v = eq + 1; *v != '\0'; v++)
                *v = 'x';
    }
}

/* Copies spec[] and common[] out of argv, which scrub_argv overwrites. */
static int take_copies(struct sb_ab_args *a, char *err, size_t errlen)
{
    a->owns_copies = true;
    for (int t = 0; t < 2; t++)
        if (a->spec[t] != NULL && (a->spec[t] = strdup(a->spec[t])) == NULL)
            return fail(err, errlen, "out of memory");
    for (size_t i = 0; i < a->ncommon; i++)
        if ((a->common[i] = strdup(a->common[i])) == NULL) {
            a->ncommon = i;
            return fail(err, errlen, "out of memory");
        }
    return 0;
}

int sb_ab_args_parse(struct sb_ab_args *a, int argc, char **argv, char *err, size_t errlen)
{
    bool seen_cmd = false;
    char name[128];

    memset(a, 0, sizeof(*a));
    a->budget_s = DEFAULT_BUDGET_S;
    a->margin = DEFAULT_MARGIN;
    a->primary = -1;
    a->time_s = DEFAULT_TIME_S;
    a->label[0] = strdup("a");
    a->label[1] = strdup("b");
    a->common = calloc((size_t)argc + 1, sizeof(*a->common));
    if (a->label[0] == NULL || a->label[1] == NULL || a->common == NULL)
        return fail(err, errlen, "out of memory");
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        int rc;
        if (strcmp(s, "-h") == 0) {
            a->help = true;
            continue;
        }
        if (*opt_name(s, name, sizeof(name)) == '\0') {
            if (take_positional(a, s, &seen_cmd, err, errlen) != 0)
                return -1;
            continue;
        }
        if ((rc = own_option(a, name, s, err, errlen)) < 0)
            return -1;
        if (rc == 1)
            continue;
        if ((rc = common_option(a, name, s, err, errlen)) < 0)
            return -1;
        if (rc == 1)
            a->common[a->ncommon++] = argv[i];
    }
    if (check_args(a, err, errlen) != 0)
        return -1;
    if (a->seed == 0)
        a->seed = (uint64_t)time(NULL) * 1000003u + (uint64_t)clock();
    if (a->help)
        return 0;
    if (split_targets(a, err, errlen) != 0 || take_copies(a, err, errlen) != 0)
        return -1;
    scrub_argv(argc, argv);
    return 0;
}

void sb_ab_args_free(struct sb_ab_args *a)
{
    for (int t = 0; t < 2; t++) {
        free_words(a->opts[t]);
        a->opts[t] = NULL;
        free((char *)a->label[t]);
        a->label[t] = NULL;
    }
    if (a->owns_copies) {
        for (int t = 0; t < 2; t++)
            free(a->spec[t]);
        for (size_t i = 0; i < a->ncommon; i++)
            free(a->common[i]);
    }
    a->spec[0] = a->spec[1] = NULL;
    free(a->common);
    a->common = NULL;
    a->ncommon = 0;
}
