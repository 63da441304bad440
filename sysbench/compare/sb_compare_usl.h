/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_COMPARE_USL_H
#define SB_COMPARE_USL_H

/*
 * compare's section on the Universal Scalability Law fits of thread
 * sweeps (the "usl" record of each result file, results/sb_usl_report.h):
 * lambda, sigma, kappa, N* and X(N*) of every file side by side with
 * their ratio to the first file's, and each fit's R^2. They are point
 * estimates: one fit per file, with no interval, so a ratio here is no
 * verdict (a run-to-run interval would need the sweep repeated and each
 * repeat fitted, which the files do not hold).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/sb_json_write.h"

#define SB_COMPARE_USL_NPAR 5

/* The fits of n files; has[i] false when file i has no "usl" record. */
struct sb_compare_usl {
    size_t n;
    bool *has;                                    /* owned, n */
    double *par;                                  /* owned, n x SB_COMPARE_USL_NPAR */
    double *r2;                                   /* owned, n */
    bool *poor;                                   /* owned, n */
    size_t nfits;                                 /* how many have a fit */
};

/*
 * Reads the "usl" record of each of the n result files (already loaded
 * once by compare, so readable). Returns 0 with u filled (to be freed by
 * sb_compare_usl_free), or -1 with one line in err.
 */
int sb_compare_usl_load(struct sb_compare_usl *u, const char *const *paths, size_t n, char *err,
                        size_t errlen);
void sb_compare_usl_free(struct sb_compare_usl *u);

/* Prints the section (nothing when no file has a fit; a line naming the
 * files without one when some do). labels: n borrowed names. */
void sb_compare_usl_print(FILE *out, const struct sb_compare_usl *u, char *const *labels);

/* Writes "usl": {...} (doc/results.md, compare's document) into the open
 * object of j: null when fewer than two files have a fit. */
void sb_compare_usl_json(struct sb_json *j, const struct sb_compare_usl *u, char *const *labels);

#endif /* SB_COMPARE_USL_H */
