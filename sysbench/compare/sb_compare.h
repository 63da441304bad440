/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_COMPARE_H
#define SB_COMPARE_H

/*
 * The "compare" command: reads two or more result files written with
 * --json and prints their figures side by side, point by point, with the
 * ratio of every file to the first; optionally draws the charts
 * (sb_plot.h). It needs no script, no driver and no Lua, so main hands it
 * the command line before anything else is set up.
 *
 *   sysbench compare A.json B.json [C.json ...] [--labels=a,b,...]
 *                    [--plot=FILE.png|FILE.svg]
 */

#include <stdbool.h>
#include <stdio.h>

/* Whether argv is a compare command line: its first word that is not an
 * option is "compare". */
bool sb_compare_requested(int argc, char **argv);

/*
 * Runs the command with main's argc and argv (argv[0] is the program).
 * Prints the tables to out. Returns the exit status: 0, or 1 after
 * printing one "FATAL: " line for bad arguments, an unreadable file, a
 * file that is not a result of this format version or has no points, or
 * charts that could not be drawn.
 */
int sb_compare_main(int argc, char **argv, FILE *out);

#endif /* SB_COMPARE_H */
