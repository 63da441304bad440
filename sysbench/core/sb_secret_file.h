/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_SECRET_FILE_H
#define SB_SECRET_FILE_H

/*
 * A secret (a database password, a bearer token) read from a file named
 * by an option (--mysql-password-file, --pgsql-password-file,
 * --metrics-token), so that it never stands in the command line, where
 * every user of the machine can read it (/proc/PID/cmdline, ps). The
 * file may be a pipe (a shell's <(...)); it is read once.
 */

#include <stdbool.h>
#include <stddef.h>

/* The longest secret read; a longer file is refused. */
#define SB_SECRET_MAX 4096

/*
 * Reads the secret in path for option `option` (its name without the
 * dashes, for messages). The secret is the file's content less its final
 * line end ("\n" or "\r\n"), or, with trim, less every space, tab and
 * line end around it (as Prometheus reads a credentials_file). A file
 * that is empty, longer than SB_SECRET_MAX, or holds a NUL byte or (after
 * that) a line end is refused. Returns the secret, malloc'd (free it
 * with sb_secret_free), or NULL with one line in err that names the
 * option and the file, never the content.
 */
char *sb_secret_file_read(const char *path, const char *option, bool trim, char *err,
                          size_t errlen);

/* Overwrites the secret with zero bytes and frees it. NULL is a no-op. */
void sb_secret_free(char *secret);

/*
 * Overwrites, in argv (as the C runtime gave it to main), the value of
 * every "--NAME=VALUE" argument for which is_secret(NAME, ctx) is true,
 * byte for byte with 'x', so that /proc/PID/cmdline and ps no longer
 * show it (as the mysql client does with --password). Arguments after
 * a lone "--" are left alone. Call it once the options are parsed (the
 * values were copied). Returns the number of values overwritten.
 */
size_t sb_secret_scrub_argv(int argc, char **argv,
                            bool (*is_secret)(const char *name, size_t len, void *ctx),
                            void *ctx);

#endif /* SB_SECRET_FILE_H */
