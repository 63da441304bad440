/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_OPT_HELP_H
#define SB_OPT_HELP_H

/*
 * How options are shown to a person: their help lines, their names as
 * printed, and a suggestion when a name is misspelt.
 *
 * Reads option sets (sb_options.h), never changes them; writes only to
 * the FILE or buffers it is given, cutting text to the buffer's size.
 * Nothing here allocates or fails. The structs are declared in
 * sb_options.h, which includes this header.
 */

#include <stddef.h>
#include <stdio.h>

struct sb_opt;
struct sb_optset;

/* Room for an option name as shown (help, errors). */
#define SB_OPT_SHOWN_LEN 256

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

/* An option's name as help and errors show it, written into buf
 * (capacity len): with dashes, as every general option is spelled, also
 * for a script's table_size; under SB_COMPAT=1.0 as declared, as 1.0
 * prints it. Returns buf. */
const char *sb_opt_shown_name(const char *name, char *buf, size_t len);

#endif /* SB_OPT_HELP_H */
