/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_HELP10_H
#define SB_HELP10_H

/*
 * sysbench 1.0.20's --help text, for SB_COMPAT=1.0 (wrappers that compare
 * text). Its option lists, wordings and groups are facts read from 1.0.20's
 * regression suite (tests/t/opt_help.t, help_drv_mysql.t, help_drv_pgsql.t
 * of its source, tag 1.0.20) and written here as a table; every option it
 * lists is accepted by ours. The printing rule is 1.0's: each group aligns
 * its descriptions one space past its longest "--name=TYPE", and a default,
 * when the option has one, follows in brackets.
 */

#include <stdbool.h>
#include <stdio.h>

/*
 * Prints 1.0's help from "Usage:" through the general database options,
 * ending with the two blank lines 1.0 prints before "Compiled-in database
 * drivers:". mysql_default: whether --db-driver shows 1.0's "[mysql]".
 */
void sb_help10_print_head(FILE *out, bool mysql_default);

/* True when 1.0.20 had a driver of this name (mysql, pgsql). */
bool sb_help10_has_driver(const char *name);

/*
 * Prints "NAME options:" and 1.0's options of that driver, then a blank
 * line. Returns false, printing nothing, for a driver 1.0 did not have.
 */
bool sb_help10_print_driver(FILE *out, const char *name);

/* 1.0's closing lines after the compiled-in tests. */
void sb_help10_print_tail(FILE *out);

#endif /* SB_HELP10_H */
