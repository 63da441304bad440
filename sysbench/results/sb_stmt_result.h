/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_STMT_RESULT_H
#define SB_STMT_RESULT_H

/*
 * Figures per statement (--report-per-statement, pure/sb_stmt_table.h) in
 * the outputs: the text report's table (--verbosity=4), the result
 * file's points[].statements (doc/results.md) and its reading back, so
 * that compare and merge work on them. One place for the format, as
 * sb_hist_json is for histograms.
 */

#include <stdio.h>

#include "core/sb_json_read.h"
#include "core/sb_json_write.h"
#include "pure/sb_stmt_table.h"

/* The statement kinds' names in files ("read", "write", "other"). */
const char *sb_stmt_kind_name(int kind);

/*
 * Prints "Statements (latency in ms):", then one line per entry of t
 * (its order): executions, errors, rows, avg, p50, p99, max and the
 * text (cut at 100 characters); each error code under its statement.
 * Nothing when t is NULL.
 */
void sb_stmt_result_print(const struct sb_stmt_table *t, FILE *out);

/*
 * Writes "statements": [...] into the object j is in: per entry its
 * text, kind, count, errors, errors_by_code, rows, latency_ms (avg, p50,
 * p99, max) and its histogram in sb_hist_json's format (of "statement"),
 * which merges exactly. Nothing when t is NULL.
 */
void sb_stmt_result_json(struct sb_json *j, const struct sb_stmt_table *t);

/*
 * Reads a "statements" array back into a new table (*out; NULL when the
 * array is absent). Malformed entries are skipped, as the readers of the
 * other figures do. Returns 0, or -1 out of memory.
 */
int sb_stmt_result_read(const struct sb_jv *arr, struct sb_stmt_table **out);

#endif /* SB_STMT_RESULT_H */
