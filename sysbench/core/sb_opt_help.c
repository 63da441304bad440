/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * How options are shown to a person: help lines, names with dashes, and
 * "did you mean" suggestions; see sb_opt_help.h. Apart from sb_options.c,
 * which keeps and sets values: this file only reads an option set.
 */
#include "core/sb_opt_help.h"
#include "core/sb_options.h"
#include "core/sb_log.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Width of the "--name=TYPE" column in help output, as sysbench 1.0 uses. */
#define SB_HELP_COLUMN 32

/* Under SB_COMPAT=1.0 as declared, because 1.0 prints it so. */
const char *sb_opt_shown_name(const char *name, char *buf, size_t len)
{
    if (sb_compat10()) {
        snprintf(buf, len, "%s", name);
        return buf;
    }
    return sb_opt_dashed(name, buf, len);
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
    char shown[SB_OPT_SHOWN_LEN];
    const char *desc = opt->desc != NULL ? opt->desc : "";

    snprintf(head, headlen, "--%s%s", sb_opt_shown_name(opt->name, shown, sizeof(shown)),
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
    char shown[SB_OPT_SHOWN_LEN];

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
        fprintf(out, "  --%s%s", sb_opt_shown_name(opt->name, shown, sizeof(shown)),
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
            size_t cost = sb_opt_name_char(a[i - 1]) != sb_opt_name_char(b[j - 1]);
            size_t v = d[i - 1][j - 1] + cost;

            if (d[i - 1][j] + 1 < v)
                v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && sb_opt_name_char(a[i - 1]) == sb_opt_name_char(b[j - 2]) &&
                sb_opt_name_char(a[i - 2]) == sb_opt_name_char(b[j - 1]) && d[i - 2][j - 2] + 1 < v)
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
        if (*opt == '\0' || sb_opt_name_char(*name) != sb_opt_name_char(*opt))
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
        buf[i] = sb_opt_name_char(name[i]);
    buf[i] = '\0';
    return buf;
}
