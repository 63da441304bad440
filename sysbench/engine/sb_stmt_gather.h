/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_STMT_GATHER_H
#define SB_STMT_GATHER_H

/*
 * --report-per-statement: the figures per statement of a point, merged
 * from every statistics slot of its measured epoch (each slot's table is
 * written by its own thread only; this reads it as sb_stmt_table_merge
 * does, at the end of the point).
 */

#include "engine/sb_run.h"
#include "results/sb_point_result.h"

/*
 * Sets p->stmts to the merged table of run's slots (sorted by total
 * latency), when the run keeps figures per statement. Without memory,
 * warns and leaves p without them. Nothing when the run keeps none.
 */
void sb_stmt_gather(const struct sb_run *run, struct sb_point_result *p);

#endif /* SB_STMT_GATHER_H */
