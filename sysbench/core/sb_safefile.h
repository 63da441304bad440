/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_SAFEFILE_H
#define SB_SAFEFILE_H

/*
 * Result files that are never lost or clobbered (--json, --csv, --log,
 * --hgrm).
 *
 * A result file is written to a temporary name in the directory of its
 * final name (".NAME.tmp.PID.N", created with O_CREAT|O_EXCL|O_NOFOLLOW so
 * no symlink is ever followed) and renamed over the final name only when
 * the run is over, so a failed or interrupted run never leaves a truncated
 * file and never truncates an earlier one before it starts.
 *
 * The rule for an existing final name, checked when the file is opened and
 * again just before the rename:
 *  - missing, empty, or a regular file that is a result file of ours (the
 *    kind given by the caller's recogniser): replaced;
 *  - a symlink, a directory, a device, a FIFO, or a regular file with
 *    other contents (a database, a script...): refused with one error line
 *    naming the file; the user removes it or chooses another name.
 */

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Says whether the first bytes (len may be less than the file) of an
 * existing file are a result file of the caller's kind. */
typedef bool (*sb_safefile_ours_fn)(const char *head, size_t len);

struct sb_safefile {
    FILE *fp;                   /* owned; NULL when not open */
    char final[PATH_MAX];
    char tmp[PATH_MAX];
    const char *what;           /* "--json", for messages (borrowed) */
    sb_safefile_ours_fn ours;
    /* The temporary's descriptor under fp, and the errno of its first
     * failed write (0: none). f must not move while fp is open. */
    int fd;
    int err_no;
    const char *mark;           /* borrowed; NULL: recognised by contents */
};

/*
 * Checks path under the rule above and opens a temporary file next to it
 * for writing (f->fp). what names the option in messages. Returns 0, or -1
 * with one line in err (f->fp stays NULL, nothing is created).
 */
int sb_safefile_open(struct sb_safefile *f, const char *path, const char *what,
                     sb_safefile_ours_fn ours, char *err, size_t errlen);

/*
 * sb_safefile_open for a format with no header to be recognised by
 * (pgbench's transaction log, which readers expect exact): the file is
 * marked with the extended attribute user.sysbench.result = mark, and an
 * existing non-empty file is replaced only when it carries that mark, so
 * a file of numbers sysbench did not write (a PID file) is refused. On a
 * file system without user extended attributes, ours decides instead.
 */
int sb_safefile_open_marked(struct sb_safefile *f, const char *path, const char *what,
                            sb_safefile_ours_fn ours, const char *mark, char *err,
                            size_t errlen);

/*
 * Closes the temporary file and renames it over the final name, after
 * checking the rule again. Returns 0, or -1 with one line in err; on a
 * refusal the temporary file is kept and err says where it is. A no-op
 * returning 0 when f is not open.
 */
int sb_safefile_commit(struct sb_safefile *f, char *err, size_t errlen);

/* Why writing f failed: the first failed write's errno, else errno, else
 * EIO. */
int sb_safefile_errno(const struct sb_safefile *f);

/* Closes and removes the temporary file; the final name is untouched. */
void sb_safefile_abandon(struct sb_safefile *f);

/* Recognisers for our own JSON document and CSV series. */
bool sb_safefile_is_result_json(const char *head, size_t len);
bool sb_safefile_is_result_csv(const char *head, size_t len);

/* A pgbench-style transaction log (ours or pgbench's): lines of decimal
 * numbers separated by spaces, at least 6 on the first line. */
bool sb_safefile_is_txlog(const char *head, size_t len);

/* HdrHistogram's percentile distribution text (ours or its own tools'):
 * a first line of the column names "Value Percentile ...". */
bool sb_safefile_is_hgrm(const char *head, size_t len);

#endif /* SB_SAFEFILE_H */
