/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_MAIN10_H
#define SB_MAIN10_H

/*
 * What main.c does differently under SB_COMPAT=1.0 for options and help,
 * kept here so that main.c stays the dispatcher.
 */

#include <stddef.h>

#include "core/sb_options.h"

/*
 * Prints 1.0.20's --help (sb_help10.h) with the compiled-in drivers and
 * tests; a driver 1.0 did not have is listed apart with its options from
 * drv_sets (ndrv sets, in sb_driver_list() order).
 */
void sb_main10_print_help(const struct sb_optset *drv_sets, size_t ndrv);

/*
 * Under SB_COMPAT=1.0 with the MySQL driver compiled in, makes mysql the
 * default of --db-driver in `general` (value and shown default, not
 * marked as given). Returns 0, or -1 with a one-line reason in err.
 */
int sb_main10_default_driver(struct sb_optset *general, char *err, size_t errlen);

#endif /* SB_MAIN10_H */
