/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_AB_H
#define SB_AB_H

/*
 * The "ab" command: one workload against two targets (two servers, two
 * builds, two settings), in rounds of short runs, until the comparison
 * decides or its budget is spent.
 *
 *   sysbench ab --a='OPTIONS' --b='OPTIONS' [ab options] SCRIPT [options]
 *               prepare|run|cleanup|help
 *
 * Each round runs this program twice, once per target, with the common
 * options, the target's options, the round's --rand-seed (the same for
 * both) and a --json file of its own: side by side, started together at
 * one --start-at instant (--mode=duet, the default), or one after the
 * other in a random order (--mode=interleaved, with --a-before/--b-before
 * hooks run before each target's turn, e.g. to restart a server with
 * another build). Rounds alternate which target starts (or runs) first;
 * the statistics (pure/sb_seqtest.h) work on the per-round ratios B/A,
 * remove the position effect, look after rounds with O'Brien-Fleming-type
 * alpha spending and end with one of three verdicts on the primary
 * figure: better/worse, equivalent within --margin, or inconclusive with
 * the smallest change the comparison could have seen.
 *
 * It needs no Lua and no driver of its own, so main hands it the command
 * line before anything else is set up.
 */

#include <stdbool.h>
#include <stdio.h>

/* Whether argv is an ab command line: its first word that is not an
 * option is "ab". */
bool sb_ab_requested(int argc, char **argv);

/*
 * Runs the command with main's argc and argv (argv[0] is the program).
 * Prints progress and the report to out. Returns the exit status: 0 for
 * a comparison that ran to its verdict (whatever it is) and for prepare,
 * cleanup and help that succeeded; 1 after one "FATAL: " line for bad
 * arguments, a target that failed or unreadable results; 128 + the signal
 * when interrupted (the rounds done are still reported).
 */
int sb_ab_main(int argc, char **argv, FILE *out);

#endif /* SB_AB_H */
