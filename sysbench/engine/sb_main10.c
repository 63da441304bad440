/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SB_COMPAT=1.0 pieces of the command line's front end (main.c): 1.0.20's
 * --help and its default driver; see sb_main10.h.
 */
#include "engine/sb_main10.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin/sb_builtin.h"
#include "config/sb_help10.h"
#include "core/sb_log.h"
#include "drivers/sb_driver.h"

/* SB_COMPAT=1.0: 1.0.20's help; a driver 1.0 did not have (sqlite) is
 * listed apart, after the drivers 1.0 lists, with its options after
 * theirs. */
void sb_main10_print_help(const struct sb_optset *drv_sets, size_t ndrv)
{
    const struct sb_driver_ops *const *drivers = sb_driver_list(), *const *d;
    bool extra = false;

    sb_help10_print_head(stdout, sb_driver_find("mysql") != NULL);
    printf("Compiled-in database drivers:\n");
    for (d = drivers; *d; d++)
        if (sb_help10_has_driver((*d)->name))
            printf("  %s - %s\n", (*d)->name, (*d)->description);
    printf("\n");
    for (d = drivers; *d; d++)
        if (!sb_help10_has_driver((*d)->name)) {
            if (!extra)
                printf("Also compiled in (sysbench 1.0 had no such driver):\n");
            extra = true;
            printf("  %s - %s\n", (*d)->name, (*d)->description);
        }
    if (extra)
        printf("\n");
    for (size_t i = 0; i < ndrv; i++)
        sb_help10_print_driver(stdout, drivers[i]->name);
    for (size_t i = 0; i < ndrv; i++)
        if (!sb_help10_has_driver(drivers[i]->name)) {
            sb_optset_print_help(&drv_sets[i], stdout);
            printf("\n");
        }
    sb_builtin_print_list(stdout);
    sb_help10_print_tail(stdout);
}

/* SB_COMPAT=1.0: the default --db-driver is mysql, as in 1.0.20 (when
 * compiled in); options of another driver still infer that driver. */
int sb_main10_default_driver(struct sb_optset *general, char *err, size_t errlen)
{
    struct sb_opt *o = sb_optset_find(general, "db-driver");
    char *def;

    if (!sb_compat10() || o == NULL || sb_driver_find("mysql") == NULL)
        return 0;
    def = strdup("mysql");
    if (def == NULL)
        return sb_opt_fail(err, errlen, "out of memory");
    if (sb_opt_set(o, "mysql", err, errlen) != 0) {
        free(def);
        return -1;
    }
    o->set = false; /* a default, not given */
    free(o->def);
    o->def = def;
    return 0;
}
