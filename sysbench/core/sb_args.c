/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The command line and the config file as lists of --name[=value]
 * arguments; see sb_args.h. Kept apart from the option sets (sb_options.c):
 * this file knows the syntax of argv and of config files, not option types.
 */
#define _GNU_SOURCE /* strndup */
#include "core/sb_args.h"
#include "core/sb_log.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static char *dup_range(const char *s, size_t len)
{
    return strndup(s, len);
}

void sb_args_init(struct sb_args *a)
{
    memset(a, 0, sizeof(*a));
}

void sb_args_free(struct sb_args *a)
{
    size_t i;

    if (a == NULL)
        return;
    for (i = 0; i < a->nopts; i++) {
        free(a->opts[i].name);
        free(a->opts[i].value);
    }
    free(a->opts);
    for (i = 0; i < a->npos; i++)
        free(a->pos[i]);
    free(a->pos);
    free(a->config_file);
    memset(a, 0, sizeof(*a));
}

/* Makes room for one more option; the slot at a->nopts is then free. */
static int reserve_opt(struct sb_args *a)
{
    if (a->nopts == a->optcap) {
        size_t cap = a->optcap == 0 ? 16 : a->optcap * 2;
        struct sb_arg *grown = realloc(a->opts, cap * sizeof(*grown));

        if (grown == NULL)
            return -1;
        a->opts = grown;
        a->optcap = cap;
    }
    return 0;
}

/* Builds an argument from a name span and an optional value. */
static int make_arg(struct sb_arg *arg, const char *name, size_t namelen,
                    const char *value, size_t valuelen)
{
    arg->name = dup_range(name, namelen);
    arg->value = value != NULL ? dup_range(value, valuelen) : NULL;
    arg->used = false;
    arg->line = 0;
    if (arg->name == NULL || (value != NULL && arg->value == NULL)) {
        free(arg->name);
        free(arg->value);
        return -1;
    }
    return 0;
}

static int push_pos(struct sb_args *a, const char *word)
{
    char *copy;

    if (a->npos == a->poscap) {
        size_t cap = a->poscap == 0 ? 8 : a->poscap * 2;
        char **grown = realloc(a->pos, cap * sizeof(*grown));

        if (grown == NULL)
            return -1;
        a->pos = grown;
        a->poscap = cap;
    }
    copy = strdup(word);
    if (copy == NULL)
        return -1;
    a->pos[a->npos++] = copy;
    return 0;
}

int sb_args_split(struct sb_args *a, int argc, char *const argv[],
                  char *err, size_t errlen)
{
    int i;
    bool options_done = false;

    for (i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *eq;

        if (arg == NULL)
            continue;
        /*
         * Anything not starting with "--" is a word: the script, the
         * command, a lone "-" for standard input, or a script's own
         * argument (sysbench 1.0 treats single-dash words the same way).
         */
        if (options_done || strncmp(arg, "--", 2) != 0) {
            if (push_pos(a, arg) != 0)
                return sb_opt_fail(err, errlen, "out of memory");
            continue;
        }
        if (arg[2] == '\0') {
            options_done = true;
            continue;
        }
        eq = strchr(arg + 2, '=');
        if (eq == arg + 2) {
            char quoted[SB_OPT_QUOTE_LEN];
            return sb_opt_fail(err, errlen,
                        "malformed option '%s': expected --name or --name=value",
                        sb_opt_quote(arg, quoted, sizeof(quoted)));
        }
        if (reserve_opt(a) != 0)
            return sb_opt_fail(err, errlen, "out of memory");
        if (eq != NULL) {
            if (make_arg(&a->opts[a->nopts], arg + 2, (size_t)(eq - arg - 2),
                         eq + 1, strlen(eq + 1)) != 0)
                return sb_opt_fail(err, errlen, "out of memory");
        } else if (make_arg(&a->opts[a->nopts], arg + 2, strlen(arg + 2),
                            NULL, 0) != 0) {
            return sb_opt_fail(err, errlen, "out of memory");
        }
        a->nopts++;
    }
    return 0;
}

/* Reads one line of any length; returns its length or -1 at end of file. */
static long read_line(FILE *f, char **buf, size_t *cap)
{
    size_t len = 0;
    int c;

    while ((c = getc(f)) != EOF) {
        if (len + 1 >= *cap) {
            size_t ncap = *cap == 0 ? 256 : *cap * 2;
            char *grown = realloc(*buf, ncap);

            if (grown == NULL)
                return -2;
            *buf = grown;
            *cap = ncap;
        }
        if (c == '\n')
            break;
        (*buf)[len++] = (char)c;
    }
    if (c == EOF && len == 0)
        return -1;
    if (*buf == NULL)
        return -1;
    (*buf)[len] = '\0';
    return (long)len;
}

/*
 * Splits one config file line into its name and value (value NULL when
 * the line has no '='). Returns false for a blank or comment line.
 */
static bool split_config_line(const char *line, long len, size_t lineno, const char **name,
                              size_t *namelen, const char **value, size_t *valuelen)
{
    const char *s = line, *eq;
    size_t slen;

    /* Editors on some systems start a UTF-8 file with a byte order mark. */
    if (lineno == 1 && len >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0) {
        s += 3;
        len -= 3;
    }
    sb_opt_trim_span(s, (size_t)len, &s, &slen);
    if (slen == 0 || s[0] == '#')
        return false;
    /* Tolerate "--name=value", as users paste command lines. */
    if (slen >= 2 && s[0] == '-' && s[1] == '-') {
        s += 2;
        slen -= 2;
    }
    *value = NULL;
    *valuelen = 0;
    eq = memchr(s, '=', slen);
    if (eq != NULL) {
        sb_opt_trim_span(s, (size_t)(eq - s), name, namelen);
        sb_opt_trim_span(eq + 1, slen - (size_t)(eq - s) - 1, value, valuelen);
    } else {
        *name = s;
        *namelen = slen;
    }
    return true;
}

/* Appends one entry to `file`, which holds the file's entries before
 * they join the command line's. Returns 0 or -1 when out of memory. */
static int append_file_entry(struct sb_args *file, const char *name, size_t namelen,
                             const char *value, size_t valuelen, size_t lineno)
{
    if (file->nopts == file->optcap) {
        size_t ncap = file->optcap == 0 ? 16 : file->optcap * 2;
        struct sb_arg *grown = realloc(file->opts, ncap * sizeof(*grown));

        if (grown == NULL)
            return -1;
        file->opts = grown;
        file->optcap = ncap;
    }
    if (make_arg(&file->opts[file->nopts], name, namelen, value, valuelen) != 0)
        return -1;
    file->opts[file->nopts++].line = lineno;
    return 0;
}

/* Reads every entry of the open config file into `file`. Returns 0, or
 * -1 with err naming the file and line. */
static int read_config_entries(FILE *f, const char *path, struct sb_args *file, char *err,
                               size_t errlen)
{
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    long len;
    int rc = 0;

    while ((len = read_line(f, &line, &cap)) >= 0) {
        const char *name, *value;
        size_t namelen, valuelen;

        lineno++;
        if (!split_config_line(line, len, lineno, &name, &namelen, &value, &valuelen))
            continue;
        if (namelen == 0) {
            rc = sb_opt_fail(err, errlen, "%s:%zu: missing option name", path, lineno);
            break;
        }
        if (append_file_entry(file, name, namelen, value, valuelen, lineno) != 0) {
            rc = sb_opt_fail(err, errlen, "%s:%zu: out of memory", path, lineno);
            break;
        }
    }
    if (rc == 0 && len == -2)
        rc = sb_opt_fail(err, errlen, "%s:%zu: out of memory", path, lineno + 1);
    if (rc == 0 && ferror(f))
        rc = sb_opt_fail(err, errlen, "cannot read config file '%s'", path);
    free(line);
    return rc;
}

/*
 * Options apply in order and a later one overrides an earlier one, so
 * putting the file's entries first lets the command line win. On success
 * the entries belong to `a` and `file` is left empty.
 */
static int prepend_file_entries(struct sb_args *a, struct sb_args *file, char *err,
                                size_t errlen)
{
    size_t need = a->nopts + file->nopts;

    if (need > a->optcap) {
        struct sb_arg *grown = realloc(a->opts, need * sizeof(*grown));

        if (grown == NULL)
            return sb_opt_fail(err, errlen, "out of memory");
        a->opts = grown;
        a->optcap = need;
    }
    memmove(a->opts + file->nopts, a->opts, a->nopts * sizeof(*a->opts));
    memcpy(a->opts, file->opts, file->nopts * sizeof(*file->opts));
    a->nopts += file->nopts;
    file->nopts = 0;
    return 0;
}

int sb_args_read_config(struct sb_args *a, const char *path,
                        char *err, size_t errlen)
{
    FILE *f;
    struct sb_args file;
    int rc;

    if (path == NULL)
        return sb_opt_fail(err, errlen, "no config file given");
    f = fopen(path, "r");
    if (f == NULL)
        return sb_opt_fail(err, errlen, "cannot open config file '%s': %s", path,
                    strerror(errno));
    sb_args_init(&file);
    rc = read_config_entries(f, path, &file, err, errlen);
    if (rc == 0) {
        free(a->config_file);
        a->config_file = strdup(path);
        if (a->config_file == NULL)
            rc = sb_opt_fail(err, errlen, "out of memory");
    }
    fclose(f);
    if (rc == 0 && file.nopts > 0)
        rc = prepend_file_entries(a, &file, err, errlen);
    /* Whatever did not move to `a`: the entries read before an error. */
    sb_args_free(&file);
    return rc;
}

int sb_args_apply(struct sb_args *a, struct sb_optset *set,
                  char *err, size_t errlen)
{
    size_t i;

    if (a == NULL || set == NULL)
        return 0;
    for (i = 0; i < a->nopts; i++) {
        struct sb_arg *arg = &a->opts[i];
        struct sb_opt *opt;

        if (arg->used)
            continue;
        opt = sb_optset_find(set, arg->name);
        if (opt == NULL)
            continue;
        if (sb_opt_set(opt, arg->value, err, errlen) != 0) {
            char where[512], why[1024];

            if (arg->line == 0)
                return -1;
            snprintf(why, sizeof(why), "%s", err);
            return sb_opt_fail(err, errlen, "%s%s", sb_args_where(a, arg, where, sizeof(where)),
                               why);
        }
        arg->used = true;
    }
    return 0;
}

const struct sb_arg *sb_args_first_unused(const struct sb_args *a)
{
    size_t i;

    if (a == NULL)
        return NULL;
    for (i = 0; i < a->nopts; i++) {
        if (!a->opts[i].used)
            return &a->opts[i];
    }
    return NULL;
}

const char *sb_args_where(const struct sb_args *a, const struct sb_arg *arg,
                          char *buf, size_t buflen)
{
    if (arg->line == 0 || a->config_file == NULL)
        snprintf(buf, buflen, "%s", "");
    else
        snprintf(buf, buflen, "%s:%zu: ", a->config_file, arg->line);
    return buf;
}
