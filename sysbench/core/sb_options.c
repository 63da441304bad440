/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Typed command-line options; see sb_options.h.
 *
 * Every function reports failure through its return value and a one-line
 * message in the caller's buffer, so that main can print exactly one clear
 * line and exit, and so that a bad option can never crash the program.
 * What a value may look like is sb_opt_parse.c's; how options are shown
 * (help, suggestions) is sb_opt_help.c's.
 */
#include "core/sb_options.h"
#include "core/sb_log.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Nesting limit when following aliases, so a corrupted table cannot loop. */
#define SB_ALIAS_DEPTH 8

int sb_opt_fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (err != NULL && errlen > 0) {
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static char *dup_str(const char *s)
{
    size_t len;
    char *copy;

    if (s == NULL)
        return NULL;
    len = strlen(s);
    copy = malloc(len + 1);
    if (copy != NULL)
        memcpy(copy, s, len + 1);
    return copy;
}

static bool name_eq(const char *a, const char *b)
{
    for (; *a != '\0' && *b != '\0'; a++, b++) {
        if (sb_opt_name_char(*a) != sb_opt_name_char(*b))
            return false;
    }
    return *a == *b;
}

/* ---------------------------------------------------------------- ranges */

/*
 * Upper bounds of the numeric options, in one place, checked whenever a
 * value is set (command line, config file, default). Every duration must
 * fit in int64 nanoseconds after the run adds a few of them to a clock
 * reading: a seconds value times 1e9 overflowed (--time=18446744074 ran
 * 0 s; --report-interval spun for ever), so seconds are at most
 * SB_OPT_MAX_SECONDS (about 31 years; several sums stay far below
 * INT64_MAX ns = 292 years). Lower bounds stay with the options' loaders.
 */
struct sb_opt_range {
    const char *name;
    double max;
    const char *unit;
};

static const struct sb_opt_range ranges[] = {
    {"time", SB_OPT_MAX_SECONDS, "seconds"},
    {"warmup-time", SB_OPT_MAX_SECONDS, "seconds"},
    {"report-interval", SB_OPT_MAX_SECONDS, "seconds"},
    {"sweep-cooldown", SB_OPT_MAX_SECONDS, "seconds"},
    {"repeat-cooldown", SB_OPT_MAX_SECONDS, "seconds"},
    {"log-aggregate-interval", SB_OPT_MAX_SECONDS, "seconds"},
    {"db-reconnect-timeout", SB_OPT_MAX_SECONDS, "seconds"},
    {"rate", SB_OPT_MAX_RATE, "transactions per second"},
    {"tx-jitter", SB_OPT_MAX_SECONDS * 1e6, "microseconds"},
    {"tx-spin", SB_OPT_MAX_SECONDS * 1e6, "microseconds"},
    {"thread-stack-size", 1073741824.0, "bytes (1G)"},
    {"sqlite-busy-timeout", 2147483647.0, "milliseconds"},
    {"mysql-connect-timeout", 86400, "seconds"},
    {"pgsql-connect-timeout", 86400, "seconds"},
    {NULL, 0, NULL}
};

/* Suffixes a user may write after a number, with their factor to each
 * unit of the table above: "--time=10s" means --time=10. */
static const struct {
    const char *unit, *suffix;
    double factor;
} unit_suffixes[] = {
    {"seconds", "s", 1}, {"seconds", "sec", 1}, {"seconds", "ms", 1e-3},
    {"seconds", "m", 60}, {"seconds", "min", 60}, {"seconds", "h", 3600},
    {"microseconds", "us", 1}, {"microseconds", "ms", 1e3}, {"microseconds", "s", 1e6},
    {"milliseconds", "ms", 1}, {"milliseconds", "s", 1e3},
    {"transactions per second", "/s", 1}, {"transactions per second", "tps", 1},
    {NULL, NULL, 0}
};

/*
 * A number followed by a unit, for an option that takes a bare number of
 * a known unit (the table above): the message says the unit, and the
 * value to give when the suffix is a usual one. Returns 0 when text is
 * no such number (the caller's generic message applies), else -1 with
 * the message in err.
 */
static int unit_fail(const struct sb_opt *opt, const char *text, const char *shown,
                     char *err, size_t errlen)
{
    const struct sb_opt_range *r = ranges;
    char quoted[SB_OPT_QUOTE_LEN];
    char *end;
    double v;

    while (r->name != NULL && strcmp(r->name, opt->name) != 0)
        r++;
    if (r->name == NULL || text == NULL)
        return 0;
    v = strtod(text, &end);
    if (end == text || *end == '\0' || !isfinite(v))
        return 0;
    while (*end == ' ')
        end++;
    sb_opt_quote(text, quoted, sizeof(quoted));
    for (size_t i = 0; unit_suffixes[i].unit != NULL; i++)
        if (strcmp(unit_suffixes[i].unit, r->unit) == 0 &&
            strcmp(unit_suffixes[i].suffix, end) == 0)
            return sb_opt_fail(err, errlen, "invalid value '%s' for --%s: the value is in %s, "
                               "without a unit: --%s=%.15g", quoted, shown, r->unit, shown,
                               v * unit_suffixes[i].factor);
    return sb_opt_fail(err, errlen, "invalid value '%s' for --%s: expected a number of %s, "
                       "without a unit", quoted, shown, r->unit);
}

static int check_range(const struct sb_opt *opt, const struct sb_opt *parsed,
                       const char *text, char *err, size_t errlen)
{
    double v;

    if (opt->type == SB_ARG_DOUBLE)
        v = parsed->d;
    else if (opt->type == SB_ARG_INT || opt->type == SB_ARG_SIZE)
        v = (double)parsed->i;
    else
        return 0;
    for (const struct sb_opt_range *r = ranges; r->name != NULL; r++) {
        if (strcmp(r->name, opt->name) == 0 && v > r->max) {
            char quoted[SB_OPT_QUOTE_LEN];
            return sb_opt_fail(err, errlen,
                               "invalid value '%s' for --%s: expected at most %.0f %s",
                               sb_opt_quote(text, quoted, sizeof(quoted)), opt->name,
                               r->max, r->unit);
        }
    }
    return 0;
}

const char *sb_opt_quote(const char *value, char *out, size_t outlen)
{
    return sb_log_escape(value != NULL ? value : "", out, outlen, false);
}

/* ---------------------------------------------------------------- sets */

void sb_optset_init(struct sb_optset *set, const char *title)
{
    set->title = dup_str(title != NULL ? title : "");
    set->opts = NULL;
    set->n = 0;
    set->cap = 0;
}

static void opt_free(struct sb_opt *opt)
{
    free(opt->name);
    free(opt->desc);
    free(opt->def);
    free(opt->value);
    sb_parse_list_free(opt->items, opt->nitems);
    free(opt->alias_of);
}

void sb_optset_free(struct sb_optset *set)
{
    size_t i;

    if (set == NULL)
        return;
    for (i = 0; i < set->n; i++)
        opt_free(&set->opts[i]);
    free(set->opts);
    free(set->title);
    set->opts = NULL;
    set->title = NULL;
    set->n = 0;
    set->cap = 0;
}

/* Finds an entry by name without following aliases. */
static struct sb_opt *find_entry(const struct sb_optset *set, const char *name)
{
    size_t i;

    for (i = 0; i < set->n; i++) {
        if (name_eq(set->opts[i].name, name))
            return &set->opts[i];
    }
    return NULL;
}

struct sb_opt *sb_optset_find(const struct sb_optset *set, const char *name)
{
    struct sb_opt *opt;
    int depth;

    if (set == NULL || name == NULL)
        return NULL;
    opt = find_entry(set, name);
    for (depth = 0; opt != NULL && opt->alias_of != NULL; depth++) {
        if (depth >= SB_ALIAS_DEPTH)
            return NULL;
        opt = find_entry(set, opt->alias_of);
    }
    return opt;
}

/* Appends a zeroed entry, growing the array; NULL when out of memory. */
static struct sb_opt *new_entry(struct sb_optset *set)
{
    struct sb_opt *opt;

    if (set->n == set->cap) {
        size_t cap = set->cap == 0 ? 16 : set->cap * 2;
        struct sb_opt *grown = realloc(set->opts, cap * sizeof(*grown));

        if (grown == NULL)
            return NULL;
        set->opts = grown;
        set->cap = cap;
    }
    opt = &set->opts[set->n];
    memset(opt, 0, sizeof(*opt));
    return opt;
}

/* Parses text as opt's type into parsed (items owned by parsed on
 * success). Returns 0, or -1 with err set and nothing left allocated. */
static int parse_typed(const struct sb_opt *opt, const char *text, struct sb_opt *parsed,
                       char *err, size_t errlen)
{
    char shown[SB_OPT_SHOWN_LEN];
    int rc = 0;

    switch (opt->type) {
    case SB_ARG_BOOL:
        rc = sb_parse_bool(text, &parsed->b);
        break;
    case SB_ARG_INT:
        rc = sb_parse_int(text, &parsed->i);
        break;
    case SB_ARG_SIZE:
        rc = sb_parse_size(text, &parsed->i);
        break;
    case SB_ARG_DOUBLE:
        rc = sb_parse_double(text, &parsed->d);
        break;
    case SB_ARG_LIST:
        if (sb_parse_list(text, &parsed->items, &parsed->nitems) != 0)
            return sb_opt_fail(err, errlen, "out of memory while setting --%s",
                        opt->name);
        break;
    case SB_ARG_STRING:
    case SB_ARG_FILE:
        break;
    }
    if (rc != 0) {
        char quoted[SB_OPT_QUOTE_LEN];
        sb_parse_list_free(parsed->items, parsed->nitems);
        if (opt->type == SB_ARG_SIZE && sb_compat10()) /* 1.0.20's wording */
            return sb_opt_fail(err, errlen, "Invalid value for %s: %s", opt->name,
                               sb_opt_quote(text, quoted, sizeof(quoted)));
        if (unit_fail(opt, text, sb_opt_shown_name(opt->name, shown, sizeof(shown)), err,
                      errlen) != 0)
            return -1;
        return sb_opt_fail(err, errlen, "invalid value '%s' for --%s: expected %s",
                    sb_opt_quote(text, quoted, sizeof(quoted)),
                    sb_opt_shown_name(opt->name, shown, sizeof(shown)),
                    sb_opt_expected_form(opt->type));
    }
    return 0;
}

/*
 * Parses value for opt's type into a scratch option and only then moves it
 * into opt, so a rejected value leaves the option exactly as it was.
 */
static int assign_value(struct sb_opt *opt, const char *value, bool user,
                        char *err, size_t errlen)
{
    struct sb_opt parsed;
    const char *text = value;
    char shown[SB_OPT_SHOWN_LEN];

    memset(&parsed, 0, sizeof(parsed));
    /*
     * A bare --name: on for a boolean; an empty list or string for the
     * text types, as sysbench 1.0 gives them; numbers need a value.
     */
    if (value == NULL && user) {
        if (opt->type == SB_ARG_BOOL)
            text = "on";
        else if (opt->type == SB_ARG_LIST || opt->type == SB_ARG_STRING ||
                 opt->type == SB_ARG_FILE)
            text = "";
        else
            return sb_opt_fail(err, errlen, "missing value for --%s: expected %s",
                        sb_opt_shown_name(opt->name, shown, sizeof(shown)), sb_opt_expected_form(opt->type));
    }
    if (text != NULL) {
        if (parse_typed(opt, text, &parsed, err, errlen) != 0)
            return -1;
        if (check_range(opt, &parsed, text, err, errlen) != 0)
            return -1;
        parsed.value = dup_str(text);
        if (parsed.value == NULL) {
            sb_parse_list_free(parsed.items, parsed.nitems);
            return sb_opt_fail(err, errlen, "out of memory while setting --%s",
                        opt->name);
        }
    }
    /* Numeric views of one another keep typed accessors lenient. */
    if (opt->type == SB_ARG_INT || opt->type == SB_ARG_SIZE)
        parsed.d = (double)parsed.i;
    free(opt->value);
    sb_parse_list_free(opt->items, opt->nitems);
    opt->value = parsed.value;
    opt->b = parsed.b;
    opt->i = parsed.i;
    opt->d = parsed.d;
    opt->items = parsed.items;
    opt->nitems = parsed.nitems;
    return 0;
}

int sb_optset_add(struct sb_optset *set, const char *name, const char *desc,
                  const char *def, enum sb_opt_type type,
                  char *err, size_t errlen)
{
    struct sb_opt *opt;

    if (name == NULL || name[0] == '\0')
        return sb_opt_fail(err, errlen, "cannot declare an option with an empty name");
    if ((int)type < (int)SB_ARG_BOOL || (int)type > (int)SB_ARG_FILE)
        return sb_opt_fail(err, errlen, "option --%s has an unknown type", name);
    if (find_entry(set, name) != NULL)
        return sb_opt_fail(err, errlen, "option --%s is declared twice", name);
    opt = new_entry(set);
    if (opt == NULL)
        return sb_opt_fail(err, errlen, "out of memory while declaring --%s", name);
    opt->type = type;
    opt->name = dup_str(name);
    opt->desc = dup_str(desc != NULL ? desc : "");
    opt->def = dup_str(def);
    if (opt->name == NULL || opt->desc == NULL || (def != NULL && opt->def == NULL)) {
        opt_free(opt);
        return sb_opt_fail(err, errlen, "out of memory while declaring --%s", name);
    }
    if (assign_value(opt, def, false, NULL, 0) != 0) {
        opt_free(opt);
        return sb_opt_fail(err, errlen, "invalid default '%s' for --%s: expected %s",
                    def, name, sb_opt_expected_form(type));
    }
    set->n++;
    return 0;
}

int sb_optset_add_defs(struct sb_optset *set, const struct sb_opt_def *defs,
                       char *err, size_t errlen)
{
    const struct sb_opt_def *d;

    if (defs == NULL)
        return 0;
    for (d = defs; d->name != NULL; d++) {
        if (sb_optset_add(set, d->name, d->desc, d->def, d->type,
                          err, errlen) != 0)
            return -1;
    }
    return 0;
}

int sb_optset_add_alias(struct sb_optset *set, const char *alias,
                        const char *target, char *err, size_t errlen)
{
    struct sb_opt *t, *opt;
    char *alias_name, *target_name, *desc;
    size_t desclen;

    if (alias == NULL || alias[0] == '\0')
        return sb_opt_fail(err, errlen, "cannot declare an alias with an empty name");
    if (find_entry(set, alias) != NULL)
        return sb_opt_fail(err, errlen, "option --%s is declared twice", alias);
    t = sb_optset_find(set, target);
    if (t == NULL)
        return sb_opt_fail(err, errlen, "alias --%s refers to unknown option --%s",
                    alias, target != NULL ? target : "");
    /* Aliases point at the real option, never at another alias, so lookups
     * need one step. */
    alias_name = dup_str(alias);
    target_name = dup_str(t->name);
    desclen = strlen(t->name) + 32;
    desc = malloc(desclen);
    if (alias_name == NULL || target_name == NULL || desc == NULL) {
        free(alias_name);
        free(target_name);
        free(desc);
        return sb_opt_fail(err, errlen, "out of memory while declaring --%s", alias);
    }
    snprintf(desc, desclen, "alias of --%s", t->name);
    /* new_entry may move the array, so t must not be used after it. */
    opt = new_entry(set);
    if (opt == NULL) {
        free(alias_name);
        free(target_name);
        free(desc);
        return sb_opt_fail(err, errlen, "out of memory while declaring --%s", alias);
    }
    opt->name = alias_name;
    opt->alias_of = target_name;
    opt->desc = desc;
    opt->type = sb_optset_find(set, target_name)->type;
    set->n++;
    return 0;
}

void sb_optset_set_secret(struct sb_optset *set, const char *name)
{
    struct sb_opt *opt = sb_optset_find(set, name);

    if (opt != NULL)
        opt->secret = true;
}

int sb_opt_set(struct sb_opt *opt, const char *value, char *err, size_t errlen)
{
    if (opt == NULL)
        return sb_opt_fail(err, errlen, "unknown option");
    if (opt->alias_of != NULL)
        return sb_opt_fail(err, errlen,
                    "--%s is an alias: set it through the option set",
                    opt->name);
    if (assign_value(opt, value, true, err, errlen) != 0)
        return -1;
    opt->set = true;
    return 0;
}

/* ----------------------------------------------------------- accessors */

bool sb_optset_bool(const struct sb_optset *set, const char *name)
{
    const struct sb_opt *opt = sb_optset_find(set, name);

    return opt != NULL && opt->type == SB_ARG_BOOL && opt->b;
}

int64_t sb_optset_int(const struct sb_optset *set, const char *name)
{
    const struct sb_opt *opt = sb_optset_find(set, name);

    if (opt == NULL)
        return 0;
    switch (opt->type) {
    case SB_ARG_INT:
    case SB_ARG_SIZE:
        return opt->i;
    case SB_ARG_DOUBLE:
        /* Out-of-range doubles would be undefined behaviour to convert. */
        if (!(opt->d > -9.2e18 && opt->d < 9.2e18))
            return opt->d > 0 ? INT64_MAX : INT64_MIN;
        return (int64_t)opt->d;
    case SB_ARG_BOOL:
        return opt->b ? 1 : 0;
    default:
        return 0;
    }
}

double sb_optset_double(const struct sb_optset *set, const char *name)
{
    const struct sb_opt *opt = sb_optset_find(set, name);

    if (opt == NULL)
        return 0;
    switch (opt->type) {
    case SB_ARG_DOUBLE:
        return opt->d;
    case SB_ARG_INT:
    case SB_ARG_SIZE:
        return (double)opt->i;
    case SB_ARG_BOOL:
        return opt->b ? 1 : 0;
    default:
        return 0;
    }
}

const char *sb_optset_str(const struct sb_optset *set, const char *name)
{
    const struct sb_opt *opt = sb_optset_find(set, name);

    return opt != NULL ? opt->value : NULL;
}

char *const *sb_optset_list(const struct sb_optset *set, const char *name,
                            size_t *n)
{
    const struct sb_opt *opt = sb_optset_find(set, name);

    if (opt == NULL || opt->type != SB_ARG_LIST) {
        if (n != NULL)
            *n = 0;
        return NULL;
    }
    if (n != NULL)
        *n = opt->nitems;
    return opt->items;
}

