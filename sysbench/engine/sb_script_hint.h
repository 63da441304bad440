/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_SCRIPT_HINT_H
#define SB_SCRIPT_HINT_H

/*
 * "Did you mean" for a script name that is neither a file nor a bundled
 * script ("oltp_read_wirte"): the bundled script (a .lua file of the
 * scenario directory, oltp_common.lua aside) or compiled-in test whose
 * name is closest, as the option hints measure it (sb_opt_distance: at
 * most 2 edits and a third of the name's length).
 */

#include <stdbool.h>
#include <stddef.h>

/* True when path names a regular file. */
bool sb_script_is_file(const char *path);

/* Resolves SCRIPT: a path as given, else a bare name (with or without
 * .lua) in the current directory or the bundled scripts. Returns a
 * malloc'd path (the caller frees it), or NULL when there is none. */
char *sb_script_resolve(const char *name);

/* Writes the closest name into best (capacity len) and returns best, or
 * returns NULL when none is that close (or script is a path). */
const char *sb_script_suggest(const char *script, char *best, size_t len);

#endif /* SB_SCRIPT_HINT_H */
