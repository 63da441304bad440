/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_HELP_H
#define SB_HELP_H

/*
 * `sysbench --help`: the general options in groups (general, rate,
 * results, repeats/compare/find-max, scale-out, drivers with each
 * driver's own), every line wrapped at SB_HELP_WIDTH columns, then the
 * compiled-in tests, three examples and the bundled scripts with their
 * folder. SB_COMPAT=1.0 prints 1.0.20's help instead (sb_main10.h).
 */

#include <stddef.h>
#include <stdio.h>

#include "core/sb_options.h"

/* The widest line the help prints (a folder name longer than that is
 * printed whole, on a line of its own). */
#define SB_HELP_WIDTH 80

/*
 * Prints the help to out: general is the general option set, drv_sets
 * the ndrv driver sets in sb_driver_list() order. An option of general
 * that no group names is listed under "General" so that none is hidden.
 */
void sb_help_print(const struct sb_optset *general, const struct sb_optset *drv_sets,
                   size_t ndrv, FILE *out);

#endif /* SB_HELP_H */
