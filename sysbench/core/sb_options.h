/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_OPTIONS_H
#define SB_OPTIONS_H

/*
 * Typed command-line options (pure module: no globals, no I/O but the
 * config file reader and the help printer, which take their FILE/path).
 *
 * An option set holds named, typed options with defaults. The general
 * options, each driver's options and each script's options are separate
 * sets; main splits argv once (sb_args_split) and offers every --name=value
 * to the sets in turn. Names compare with '-' and '_' equal, so
 * --table-size and --table_size are the same option.
 *
 * Types and accepted syntax (sysbench 1.0's):
 *   BOOL    on/off, true/false, yes/no, 1/0; a bare --name means on
 *   INT     a signed decimal integer
 *   SIZE    an integer with an optional K/M/G/T suffix (powers of 1024)
 *   DOUBLE  a decimal number
 *   STRING  any text
 *   LIST    comma-separated items (an empty value is an empty list)
 *   FILE    a path (not checked here)
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum sb_opt_type {
    SB_ARG_BOOL,
    SB_ARG_INT,
    SB_ARG_SIZE,
    SB_ARG_DOUBLE,
    SB_ARG_STRING,
    SB_ARG_LIST,
    SB_ARG_FILE
};

/* A static definition, as modules declare their options. */
struct sb_opt_def {
    const char *name;  /* with dashes: "report-interval" */
    const char *desc;
    const char *def;   /* default in string form; NULL means unset/empty */
    enum sb_opt_type type;
};

struct sb_opt {
    char *name;        /* owned; as declared */
    char *desc;        /* owned */
    char *def;         /* owned; may be NULL */
    enum sb_opt_type type;
    char *value;       /* owned; the current value in string form or NULL */
    bool set;          /* given by the user (command line or config file) */
    bool secret;       /* value never printed (passwords) */
    /* Parsed forms of value, valid for the matching type. */
    bool b;
    int64_t i;         /* INT and SIZE */
    double d;
    char **items;      /* LIST: owned array of owned strings */
    size_t nitems;
    char *alias_of;    /* owned; non-NULL makes this an alias entry */
};

struct sb_optset {
    char *title;       /* owned; heading for help output */
    struct sb_opt *opts;
    size_t n, cap;
};

/* Initialises an empty set titled `title` (copied). */
void sb_optset_init(struct sb_optset *set, const char *title);
/* Frees everything the set owns. */
void sb_optset_free(struct sb_optset *set);

/*
 * Adds an option and sets it to its default. Returns 0, or -1 with a
 * one-line reason in err when the name is empty, already present, or the
 * default does not parse as the type.
 */
int sb_optset_add(struct sb_optset *set, const char *name, const char *desc,
                  const char *def, enum sb_opt_type type,
                  char *err, size_t errlen);

/* Adds every definition of a table ending with a {NULL} entry. */
int sb_optset_add_defs(struct sb_optset *set, const struct sb_opt_def *defs,
                       char *err, size_t errlen);

/* Makes `alias` another name for existing option `target`; setting the
 * alias sets the target (used for --num-threads and friends). */
int sb_optset_add_alias(struct sb_optset *set, const char *alias,
                        const char *target, char *err, size_t errlen);

/* Marks an option secret: help and dumps show it as "***". */
void sb_optset_set_secret(struct sb_optset *set, const char *name);

/* Finds an option by name ('-' == '_'), following aliases. NULL if none. */
struct sb_opt *sb_optset_find(const struct sb_optset *set, const char *name);

/*
 * Sets an option from a string (value NULL means a bare --name: "on" for
 * BOOL, "" for STRING, FILE and LIST; an error for the number types). Returns 0, or -1 with a one-line reason in err naming
 * the option and what was expected, e.g.
 * "invalid value 'abc' for --threads: expected an integer".
 */
int sb_opt_set(struct sb_opt *opt, const char *value, char *err, size_t errlen);

/* Typed accessors; the option must exist and be of a matching type. */
bool sb_optset_bool(const struct sb_optset *set, const char *name);
int64_t sb_optset_int(const struct sb_optset *set, const char *name);
double sb_optset_double(const struct sb_optset *set, const char *name);
/* NULL when the option has no value. */
const char *sb_optset_str(const struct sb_optset *set, const char *name);
/* Returns the list's items and stores their count in *n. */
char *const *sb_optset_list(const struct sb_optset *set, const char *name,
                            size_t *n);

/* Value parsers, shared with the Lua layer. Each returns 0 or -1. */
int sb_parse_bool(const char *s, bool *out);
int sb_parse_int(const char *s, int64_t *out);
int sb_parse_size(const char *s, int64_t *out);
int sb_parse_double(const char *s, double *out);

/* Seconds-valued options are at most this (they must fit in int64
 * nanoseconds with room for sums); rates at most SB_OPT_MAX_RATE per
 * second. sb_opt_set enforces the bounds of the known numeric options
 * (--time, --report-interval, --rate, the drivers' timeouts ...) with
 * "invalid value 'V' for --NAME: expected at most N UNIT". */
#define SB_OPT_MAX_SECONDS 1000000000.0
#define SB_OPT_MAX_RATE 1000000000.0

/* A user's value as error messages quote it: control bytes as \xNN and
 * cut to SB_OPT_QUOTE_LEN bytes ending in "...", so a 5,000-character
 * value does not fill the terminal. Writes into out; returns out. */
#define SB_OPT_QUOTE_LEN 72
const char *sb_opt_quote(const char *value, char *out, size_t outlen);

/* Prints "  --name=TYPE   description [default]" lines, sysbench style. */
void sb_optset_print_help(const struct sb_optset *set, FILE *out);

/*
 * One option's help in two parts, for a caller that lays help out itself
 * (the grouped --help, engine/sb_help.h): head gets "--name=PLACEHOLDER"
 * as sb_optset_print_help prints it, text the description followed by
 * the shown default (" [10]", a secret's as "[***]"). Each is cut to its
 * buffer.
 */
void sb_opt_help_parts(const struct sb_opt *opt, char *head, size_t headlen, char *text,
                       size_t textlen);

/* Formats a one-line reason into err (capacity errlen; err may be NULL)
 * and returns -1, so a parser can report and fail in one statement. */
int sb_opt_fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The span of s[0, len) without leading and trailing white space: its
 * start in *start (inside s) and its length in *out_len. Shared by the
 * option value and argv parsers. */
void sb_opt_trim_span(const char *s, size_t len, const char **start, size_t *out_len);

/*
 * The option most likely meant by an unknown name, for "did you mean"
 * hints: the closest non-alias option of the sets (nsets pointers, NULL
 * entries skipped) at most 2 edits away and within a third of the name's
 * length (sb_opt_distance), else the only option the name (4 characters or
 * more) begins. Returns the option's name as declared (owned by its set),
 * or NULL when nothing is close enough or the name is itself an option's
 * (not a misspelling). Pure: unit-tested directly.
 */
const char *sb_opt_suggest(const char *name, const struct sb_optset *const *sets, size_t nsets);

/* Edit distance (insert, delete, substitute, swap neighbours) between two
 * option names, '-' equal to '_'; SIZE_MAX for names over 64 bytes. */
size_t sb_opt_distance(const char *a, const char *b);

/* Copies name into buf (capacity len) with every '_' shown as '-', the
 * way option names are printed (scripts declare table_size; --table-size
 * and --table_size both set it). Returns buf. */
const char *sb_opt_dashed(const char *name, char *buf, size_t len);

#endif /* SB_OPTIONS_H */
