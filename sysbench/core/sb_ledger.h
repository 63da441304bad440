/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_LEDGER_H
#define SB_LEDGER_H

/*
 * The ledger of a command's items: the tables a prepare makes, each
 * created, loaded in parts (row ranges, by one or more threads) and
 * completed (its index built). The threads of a parallel command use it
 * to wait for each other (a part waits for its table to exist; the last
 * part to finish completes the table), and when the command fails or is
 * interrupted it says which items are complete and which are not, so that
 * no half-filled table passes for a prepared one.
 *
 * One ledger per process, emptied when a command begins: the threads'
 * Lua states reach it through the FFI, and the main thread reads it after
 * a signal, when the command's threads are abandoned. Items are never
 * moved once declared; their state is atomic.
 */

#include <stdbool.h>
#include <stddef.h>

/* What became of an item; states only rise. */
enum sb_ledger_state {
    SB_LEDGER_DECLARED = 0,  /* nothing done yet */
    SB_LEDGER_CREATED,       /* exists, empty */
    SB_LEDGER_LOADING,       /* a part began loading */
    SB_LEDGER_LOADED,        /* every part is loaded */
    SB_LEDGER_COMPLETE       /* loaded and finished (indexes) */
};

/* Empties the ledger (the main thread, before a command's threads start). */
void sb_ledger_begin(void);

/*
 * Declares item `name` (copied; at most 63 bytes kept) loaded in `parts`
 * parts (the first item's `noun`, "tables", names them all; NULL:
 * "items"), or finds it when declared already (any thread; every thread of a
 * command declares the items it touches). Returns its index, or -1 when
 * the ledger is full (65,536 items) or memory ran out: the item then goes
 * unrecorded, and the calls below ignore -1.
 */
int sb_ledger_item(const char *name, unsigned parts, const char *noun);

/* Raises item i's state to s (never lowers it). */
void sb_ledger_set(int i, enum sb_ledger_state s);

/* Counts one part of item i loaded; returns the parts loaded so far, so
 * that the thread that loaded the last one knows it did. The item is
 * LOADED then. */
unsigned sb_ledger_part_done(int i);

/* Waits until item i reaches state s. Returns false, at once, when the
 * ledger failed (sb_ledger_fail) or the run is stopping. */
bool sb_ledger_wait(int i, enum sb_ledger_state s);

/* A thread of the command failed: waits end, and sb_ledger_failed says so. */
void sb_ledger_fail(void);
bool sb_ledger_failed(void);

/*
 * What is not complete, as one line into buf ("2 of 4 tables are
 * complete (sbtest1, sbtest3); not complete: sbtest2 (partly loaded),
 * sbtest4 (not created)"), naming at most 20 items of each kind. Returns
 * false, with buf empty, when every declared item is complete or none was
 * declared.
 */
bool sb_ledger_summary(char *buf, size_t len);

#endif /* SB_LEDGER_H */
