/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Option value parsers; see sb_opt_parse.h. Apart from the option sets
 * (sb_options.c) because the Lua layer and the config loaders parse values
 * with the same rules without any set, and because what a value may look
 * like is one concept and where options live is another.
 */
#include "core/sb_opt_parse.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *dup_range(const char *s, size_t len)
{
    char *copy = malloc(len + 1);

    if (copy != NULL) {
        memcpy(copy, s, len);
        copy[len] = '\0';
    }
    return copy;
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

void sb_parse_list_free(char **items, size_t n)
{
    size_t i;

    if (items == NULL)
        return;
    for (i = 0; i < n; i++)
        free(items[i]);
    free(items);
}

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
int sb_parse_list(const char *s, char ***items_out, size_t *n_out)
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
                sb_parse_list_free(items, n);
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

const char *sb_opt_expected_form(enum sb_opt_type type)
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
