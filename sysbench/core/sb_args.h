/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_ARGS_H
#define SB_ARGS_H

/*
 * The command line and config files as a list of --name[=value] arguments
 * and positional words. main splits argv once, appends the config file's
 * lines, then offers the arguments to each option set (sb_options.h) in
 * turn; whatever no set claims is an unknown option.
 */

#include "core/sb_options.h"

struct sb_arg {
    char *name;   /* owned; without the leading dashes */
    char *value;  /* owned; NULL for a bare --name */
    bool used;    /* claimed by some option set */
    size_t line;  /* line in the config file; 0 for the command line */
};

struct sb_args {
    struct sb_arg *opts;  /* every --name[=value], in order */
    size_t nopts, optcap;
    char **pos;           /* positional words, owned, in order */
    size_t npos, poscap;
    char *config_file;    /* owned; the config file read, or NULL */
};

void sb_args_init(struct sb_args *a);
void sb_args_free(struct sb_args *a);

/*
 * Splits argv[1..argc-1] into options and positional words. "--" ends
 * option parsing; a lone "-" is positional (script from stdin). Returns 0,
 * or -1 with a reason in err for a malformed argument such as "--" + "=x".
 */
int sb_args_split(struct sb_args *a, int argc, char *const argv[],
                  char *err, size_t errlen);

/*
 * Appends "name=value" lines from a config file as options (blank lines and
 * lines starting with '#' are skipped; surrounding spaces are trimmed; a
 * line without '=' is a bare option; a UTF-8 byte order mark at the start
 * is skipped). Each entry remembers its line (sb_args_where). Options already in `a` from the
 * command line win: the file's entries are inserted before them. Returns 0,
 * or -1 with "FILE:LINE: reason" or the open error in err.
 */
int sb_args_read_config(struct sb_args *a, const char *path,
                        char *err, size_t errlen);

/*
 * Offers every not-yet-used argument to `set`: each whose name the set
 * knows is parsed into it and marked used. Returns 0, or -1 with the first
 * parse error in err, prefixed "FILE:LINE: " for a config file entry.
 */
int sb_args_apply(struct sb_args *a, struct sb_optset *set,
                  char *err, size_t errlen);

/* Returns the first argument no set claimed, or NULL. */
const struct sb_arg *sb_args_first_unused(const struct sb_args *a);
/*
 * Formats where `arg` came from, for error messages: "FILE:LINE: " for a
 * config file entry, "" for the command line. Returns buf.
 */
const char *sb_args_where(const struct sb_args *a, const struct sb_arg *arg,
                          char *buf, size_t buflen);

#endif /* SB_ARGS_H */
