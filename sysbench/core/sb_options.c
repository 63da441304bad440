/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Typed command-line options; see sb_options.h.
 *
 * Every function reports failure through its return value and a one-line
 * message in the caller's buffer, so that main can print exactly one clear
 * line and exit, and so that a bad option can never crash the program.
 */
#include "core/sb_options.h"
#include "core/sb_log.h"

#include <ctype.h>
#include <stdio.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Room for an option name as shown (help, errors). */
#define SB_SUGGEST_NAMELEN 256

/* Width of the "--name=TYPE" column in help output, as sysbench 1.0 uses. */
#define SB_HELP_COLUMN 32

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

static char *dup_range(const char *s, size_t len)
{
    char *copy = malloc(len + 1);

    if (copy != NULL) {
        memcpy(copy, s, len);
        copy[len] = '\0';
    }
    return copy;
}

/* '-' and '_' are the same character in option names, so that both
 * --table-size and --table_size reach the option declared as table_size. */
static char name_char(char c)
{
    return c == '_' ? '-' : c;
}

/* An option's name as help and errors show it: with dashes, as every
 * general option is spelled, also for a script's table_size; under
 * SB_COMPAT=1.0 as declared, as 1.0 prints it. */
static const char *shown_name(const char *name, char *buf, size_t len)
{
    if (sb_compat10()) {
        snprintf(buf, len, "%s", name);
        return buf;
    }
    return sb_opt_dashed(name, buf, len);
}

static bool name_eq(const char *a, const char *b)
{
    for (; *a != '\0' && *b != '\0'; a++, b++) {
        if (name_char(*a) != name_char(*b))
            return false;
    }
    return *a == *b;
}

static bool str_ieq(const char *a, const char *b)
{
    for (; *a != '\0' && *b != '\0'; a++, b++) {
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return false;
    }
    return *a == *b;
}

void sb_opt_trim_span(const char *s, size_t len, const char **start,
                      size_t *out_len)
{
    while (len > 0 && isspace((unsigned char)*s)) {
        s++;
        len--;
    }
    while (len > 0 && isspace((unsigned char)s[len - 1]))
        len--;
    *start = s;
    *out_len = len;
}

static void free_items(char **items, size_t n)
{
    size_t i;

    if (items == NULL)
        return;
    for (i = 0; i < n; i++)
        free(items[i]);
    free(items);
}

/* ------------------------------------------------------------- parsers */

int sb_parse_bool(const char *s, bool *out)
{
    static const char *const yes[] = {"on", "true", "yes", "1"};
    static const char *const no[] = {"off", "false", "no", "0"};
    size_t i;

    if (s == NULL)
        return -1;
    for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (str_ieq(s, yes[i])) {
            *out = true;
            return 0;
        }
        if (str_ieq(s, no[i])) {
            *out = false;
            return 0;
        }
    }
    return -1;
}

/*
 * Parses an optionally signed run of decimal digits at the start of s and
 * stores where it stopped in *end. strtoll alone would also accept leading
 * white space, which an option value should not silently carry.
 */
static int parse_int_prefix(const char *s, int64_t *out, const char **end)
{
    const char *p = s;
    char *stop;
    long long v;

    if (*p == '+' || *p == '-')
        p++;
    if (!isdigit((unsigned char)*p))
        return -1;
    errno = 0;
    v = strtoll(s, &stop, 10);
    if (errno == ERANGE)
        return -1;
    *out = (int64_t)v;
    *end = stop;
    return 0;
}

int sb_parse_int(const char *s, int64_t *out)
{
    const char *end;
    int64_t v;

    if (s == NULL || parse_int_prefix(s, &v, &end) != 0 || *end != '\0')
        return -1;
    *out = v;
    return 0;
}

int sb_parse_size(const char *s, int64_t *out)
{
    const char *end;
    int64_t v;
    int shift = 0;

    if (s == NULL || parse_int_prefix(s, &v, &end) != 0 || v < 0)
        return -1;
    switch (*end) {
    case '\0':
        break;
    case 'k': case 'K':
        shift = 10;
        break;
    case 'm': case 'M':
        shift = 20;
        break;
    case 'g': case 'G':
        shift = 30;
        break;
    case 't': case 'T':
        shift = 40;
        break;
    default:
        return -1;
    }
    if (shift != 0) {
        if (end[1] != '\0')
            return -1;
        if (v > (INT64_MAX >> shift))
            return -1;
        v <<= shift;
    }
    *out = v;
    return 0;
}

int sb_parse_double(const char *s, double *out)
{
    const char *p;
    char *end;
    double v;
    bool digits = false;

    if (s == NULL)
        return -1;
    /*
     * Only plain decimal notation is accepted: strtod would also take
     * "inf", "nan", hexadecimal and leading white space, none of which is a
     * sensible option value.
     */
    for (p = s; *p != '\0'; p++) {
        if (isdigit((unsigned char)*p))
            digits = true;
        else if (strchr("+-.eE", *p) == NULL)
            return -1;
    }
    if (!digits)
        return -1;
    errno = 0;
    v = strtod(s, &end);
    if (*end != '\0' || end == s)
        return -1;
    if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL))
        return -1;
    if (!isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/*
 * Splits a LIST value on commas into trimmed items. The whole value being
 * empty (or blank) gives an empty list, so --percentile= can clear a
 * default; empty items between commas are kept so consumers can reject them.
 */
static int parse_list(const char *s, char ***items_out, size_t *n_out)
{
    const char *start;
    size_t len, n = 0, cap, i;
    char **items;
    const char *p, *item_start;

    *items_out = NULL;
    *n_out = 0;
    if (s == NULL)
        return 0;
    sb_opt_trim_span(s, strlen(s), &start, &len);
    if (len == 0)
        return 0;
    cap = 1;
    for (i = 0; i < len; i++) {
        if (start[i] == ',')
            cap++;
    }
    items = calloc(cap, sizeof(*items));
    if (items == NULL)
        return -1;
    item_start = start;
    for (p = start;; p++) {
        if (p == start + len || *p == ',') {
            const char *t;
            size_t tlen;

            sb_opt_trim_span(item_start, (size_t)(p - item_start), &t, &tlen);
            items[n] = dup_range(t, tlen);
            if (items[n] == NULL) {
                free_items(items, n);
                return -1;
            }
            n++;
            if (p == start + len)
                break;
            item_start = p + 1;
        }
    }
    *items_out = items;
    *n_out = n;
    return 0;
}

static const char *expected_form(enum sb_opt_type type)
{
    switch (type) {
    case SB_ARG_BOOL:
        return "on/off";
    case SB_ARG_INT:
        return "an integer";
    case SB_ARG_SIZE:
        return "a size (an integer with an optional K/M/G/T suffix)";
    case SB_ARG_DOUBLE:
        return "a number";
    case SB_ARG_STRING:
        return "a string";
    case SB_ARG_LIST:
        return "a comma-separated list";
    case SB_ARG_FILE:
        return "a file name";
    }
    return "a value";
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
    free_items(opt->items, opt->nitems);
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

/*
 * Parses value for opt's type into a scratch option and only then moves it
 * into opt, so a rejected value leaves the option exactly as it was.
 */
static int assign_value(struct sb_opt *opt, const char *value, bool user,
                        char *err, size_t errlen)
{
    struct sb_opt parsed;
    const char *text = value;
    char shown[SB_SUGGEST_NAMELEN];

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
                        shown_name(opt->name, shown, sizeof(shown)), expected_form(opt->type));
    }
    if (text != NULL) {
        int rc = 0;

        switch (opt->type) {
        case SB_ARG_BOOL:
            rc = sb_parse_bool(text, &parsed.b);
            break;
        case SB_ARG_INT:
            rc = sb_parse_int(text, &parsed.i);
            break;
        case SB_ARG_SIZE:
            rc = sb_parse_size(text, &parsed.i);
            break;
        case SB_ARG_DOUBLE:
            rc = sb_parse_double(text, &parsed.d);
            break;
        case SB_ARG_LIST:
            if (parse_list(text, &parsed.items, &parsed.nitems) != 0)
                return sb_opt_fail(err, errlen, "out of memory while setting --%s",
                            opt->name);
            break;
        case SB_ARG_STRING:
        case SB_ARG_FILE:
            break;
        }
        if (rc != 0) {
            char quoted[SB_OPT_QUOTE_LEN];
            free_items(parsed.items, parsed.nitems);
            if (opt->type == SB_ARG_SIZE && sb_compat10()) /* 1.0.20's wording */
                return sb_opt_fail(err, errlen, "Invalid value for %s: %s", opt->name,
                                   sb_opt_quote(text, quoted, sizeof(quoted)));
            if (unit_fail(opt, text, shown_name(opt->name, shown, sizeof(shown)), err,
                          errlen) != 0)
                return -1;
            return sb_opt_fail(err, errlen, "invalid value '%s' for --%s: expected %s",
                        sb_opt_quote(text, quoted, sizeof(quoted)),
                        shown_name(opt->name, shown, sizeof(shown)),
                        expected_form(opt->type));
        }
        if (check_range(opt, &parsed, text, err, errlen) != 0)
            return -1;
        parsed.value = dup_str(text);
        if (parsed.value == NULL) {
            free_items(parsed.items, parsed.nitems);
            return sb_opt_fail(err, errlen, "out of memory while setting --%s",
                        opt->name);
        }
    }
    /* Numeric views of one another keep typed accessors lenient. */
    if (opt->type == SB_ARG_INT || opt->type == SB_ARG_SIZE)
        parsed.d = (double)parsed.i;
    free(opt->value);
    free_items(opt->items, opt->nitems);
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
                    def, name, expected_form(type));
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

/* ---------------------------------------------------------------- help */

static const char *placeholder(enum sb_opt_type type)
{
    switch (type) {
    case SB_ARG_BOOL:
        return "[=on|off]";
    case SB_ARG_INT:
    case SB_ARG_DOUBLE:
        return "=N";
    case SB_ARG_SIZE:
        return "=SIZE";
    case SB_ARG_STRING:
        return "=STRING";
    case SB_ARG_LIST:
        return "=[LIST,...]";
    case SB_ARG_FILE:
        return "=FILENAME";
    }
    return "=VALUE";
}

void sb_opt_help_parts(const struct sb_opt *opt, char *head, size_t headlen, char *text,
                       size_t textlen)
{
    char shown[SB_SUGGEST_NAMELEN];
    const char *desc = opt->desc != NULL ? opt->desc : "";

    snprintf(head, headlen, "--%s%s", shown_name(opt->name, shown, sizeof(shown)),
             placeholder(opt->type));
    if (opt->def == NULL)
        snprintf(text, textlen, "%s", desc);
    else if (opt->secret)
        snprintf(text, textlen, "%s [%s]", desc, opt->def[0] != '\0' ? "***" : "");
    else
        snprintf(text, textlen, "%s [%s]", desc, opt->def);
}

/*
 * Aliases are left out: they exist so old command lines keep working, and
 * advertising them would only invite their use.
 */
void sb_optset_print_help(const struct sb_optset *set, FILE *out)
{
    size_t i;
    char shown[SB_SUGGEST_NAMELEN];

    if (set == NULL || out == NULL)
        return;
    if (set->title != NULL && set->title[0] != '\0') {
        size_t tlen = strlen(set->title);

        fprintf(out, "%s%s\n", set->title,
                set->title[tlen - 1] == ':' ? "" : ":");
    }
    /* SB_COMPAT=1.0: 1.0 aligns each set's descriptions one space past
     * its longest option. */
    size_t column = SB_HELP_COLUMN;
    if (sb_compat10()) {
        column = 0;
        for (i = 0; i < set->n; i++) {
            size_t w = 2 + strlen(set->opts[i].name) + strlen(placeholder(set->opts[i].type)) + 1;
            if (set->opts[i].alias_of == NULL && w > column)
                column = w;
        }
    }
    for (i = 0; i < set->n; i++) {
        const struct sb_opt *opt = &set->opts[i];
        size_t width;

        if (opt->alias_of != NULL)
            continue;
        fprintf(out, "  --%s%s", shown_name(opt->name, shown, sizeof(shown)),
                placeholder(opt->type));
        width = 2 + strlen(opt->name) + strlen(placeholder(opt->type));
        if (width < column)
            fprintf(out, "%*s", (int)(column - width), "");
        else
            fputc(' ', out);
        fputs(opt->desc != NULL ? opt->desc : "", out);
        /* A secret's default is hidden but its existence is not. */
        if (opt->def != NULL) {
            if (opt->secret)
                fprintf(out, " [%s]", opt->def[0] != '\0' ? "***" : "");
            else
                fprintf(out, " [%s]", opt->def);
        }
        fputc('\n', out);
    }
}

/* ---------------------------------------------------------- suggestions */

/* Longest option name compared; longer names are never suggested. */
#define SB_SUGGEST_MAXLEN 64

/*
 * Edit distance between a and b with '-' and '_' equal, counting an
 * insertion, a deletion, a substitution or a swap of two neighbours as
 * one edit (optimal string alignment), because those are the typing
 * slips an option name suffers. SIZE_MAX when either is too long.
 */
size_t sb_opt_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    size_t d[SB_SUGGEST_MAXLEN + 1][SB_SUGGEST_MAXLEN + 1];

    if (la > SB_SUGGEST_MAXLEN || lb > SB_SUGGEST_MAXLEN)
        return SIZE_MAX;
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = name_char(a[i - 1]) != name_char(b[j - 1]);
            size_t v = d[i - 1][j - 1] + cost;

            if (d[i - 1][j] + 1 < v)
                v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && name_char(a[i - 1]) == name_char(b[j - 2]) &&
                name_char(a[i - 2]) == name_char(b[j - 1]) && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    }
    return d[la][lb];
}

/* Whether name is a prefix of opt ('-' == '_'). */
static bool name_prefix(const char *name, const char *opt)
{
    for (; *name != '\0'; name++, opt++)
        if (*opt == '\0' || name_char(*name) != name_char(*opt))
            return false;
    return true;
}

const char *sb_opt_suggest(const char *name, const struct sb_optset *const *sets, size_t nsets)
{
    const char *best = NULL, *prefix_of = NULL;
    size_t best_d = SIZE_MAX, nprefix = 0, prefix_len = SIZE_MAX, len;

    if (name == NULL)
        return NULL;
    len = strlen(name);
    for (size_t s = 0; s < nsets; s++) {
        for (size_t i = 0; sets[s] != NULL && i < sets[s]->n; i++) {
            const struct sb_opt *o = &sets[s]->opts[i];
            size_t d;

            /* Aliases are kept for old command lines, not advertised. */
            if (o->alias_of != NULL)
                continue;
            /* Of the options the name begins, the shortest. */
            if (len >= 4 && name_prefix(name, o->name) && strlen(o->name) < prefix_len) {
                prefix_len = strlen(o->name);
                prefix_of = o->name;
            }
            d = sb_opt_distance(name, o->name);
            if (d < best_d) {
                best_d = d;
                best = o->name;
            }
        }
    }
    /* At most 2 edits, and fewer than a third of the name: "--foo" is
     * not a slip of "--tx-rate", "--tx-rat" is. A name that begins
     * one option, or one that the others it begins start with
     * (--mysql-pass: --mysql-password, not --mysql-password-file), is
     * that option. */
    if (best_d == 0) /* a known name: not a slip, whatever went wrong */
        return NULL;
    if (best != NULL && best_d <= 2 && best_d * 3 <= len)
        return best;
    /* Every option the name begins must begin with that shortest one. */
    for (size_t s = 0; prefix_of != NULL && s < nsets; s++)
        for (size_t i = 0; sets[s] != NULL && i < sets[s]->n; i++) {
            const struct sb_opt *o = &sets[s]->opts[i];
            if (o->alias_of == NULL && name_prefix(name, o->name))
                nprefix += name_prefix(prefix_of, o->name) ? 0 : 1;
        }
    return prefix_of != NULL && nprefix == 0 ? prefix_of : NULL;
}

const char *sb_opt_dashed(const char *name, char *buf, size_t len)
{
    size_t i = 0;

    if (len == 0)
        return buf;
    for (; name != NULL && name[i] != '\0' && i + 1 < len; i++)
        buf[i] = name_char(name[i]);
    buf[i] = '\0';
    return buf;
}
