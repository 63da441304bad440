/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_PROGRESS_H
#define SB_PROGRESS_H

/*
 * Progress of long work that prints nothing else while it lasts: loading
 * tables (prepare), setting up thousands of connections. What pgbench -i
 * shows: units done, the rate, the time left, then one line with the time
 * taken and what it went to.
 *
 * One task at a time in the process. The thread that begins it (the main
 * thread) prints: sb_progress_tick, called while it waits (the engine's
 * wait loops call it every 10 ms), and sb_progress_end. Any thread may
 * count: sb_progress_add and sb_progress_expect are one relaxed atomic
 * add, and a no-op (one load) when no task is open, so a counting call
 * on a per-batch path costs nothing worth measuring.
 *
 * Where it goes: standard error. On a terminal one line rewritten in place
 * ("\r", erase to end of line) at most 4 times a second, from 1 s after the
 * start (short work stays silent), erased at the end. Otherwise a plain
 * line every 10 s, so logs of short work are unchanged and long work shows
 * it is alive. SB_PROGRESS=off in the environment turns both off,
 * SB_PROGRESS=lines forces plain lines (and SB_PROGRESS_EVERY=S their
 * period in seconds), SB_PROGRESS=tty forces the terminal form.
 *
 * This state is global (like the stop flag) because the counting calls
 * come from every command thread's Lua state through the FFI, which has no
 * other way to reach the task.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Where progress goes: what sb_progress_begin chose. */
enum sb_progress_style {
    SB_PROGRESS_OFF,
    SB_PROGRESS_TTY,     /* one line rewritten in place */
    SB_PROGRESS_LINES    /* a plain line every so often */
};

/*
 * Opens the task `what` ("prepare", "connecting"; copied) counting `unit`
 * ("rows", "connections"; copied) out of `total` (0: not known yet, see
 * sb_progress_expect). A task still open is ended first, without summary.
 * The calling thread becomes the one that prints.
 */
void sb_progress_begin(const char *what, const char *unit, uint64_t total);

/* Adds n units to the total the task expects (any thread; each thread may
 * announce its own share). */
void sb_progress_expect(uint64_t n);

/* Counts n units done (any thread). */
void sb_progress_add(uint64_t n);

/*
 * Makes *count (updated atomically by other threads; borrowed until
 * sb_progress_end) the units done, instead of the sb_progress_add sum:
 * for work whose threads count themselves anyway (workers ready).
 */
void sb_progress_watch(const unsigned *count);

/*
 * The calling thread's time from now on goes to phase `name` ("create",
 * "load", "index"; at most 8 names per task, 15 characters kept), its
 * time since its previous call to the previous phase; NULL closes the
 * thread's current phase. The end summary lists the phases in the order
 * first seen, each with the time the threads spent in it (summed over
 * threads when several worked). No-op when no task is open.
 */
void sb_progress_phase(const char *name);

/* Closes the calling thread's phase (sb_progress_phase(NULL)); command
 * threads call it when their command returns. */
void sb_progress_thread_end(void);

/* Prints the progress line when one is due; only the thread that began
 * the task prints (others return at once). Cheap when nothing is due. */
void sb_progress_tick(void);

/*
 * Ends the task: erases the terminal line, then, when summary is not NULL
 * and anything was counted or timed, prints to it
 * "WHAT done in 18.20 s (create 0.10 s, load 16.00 s, index 2.10 s):
 * 2000000 rows, 109890 rows/s". No-op when no task is open.
 */
void sb_progress_end(FILE *summary);

/* Erases the terminal line, if one is shown, before other output (the
 * script's print() calls it); the next due tick draws it again. Any
 * thread; one atomic exchange when nothing is shown. */
void sb_progress_hide(void);

/* The style the open task uses (SB_PROGRESS_OFF when none is open). */
enum sb_progress_style sb_progress_style(void);

#endif /* SB_PROGRESS_H */
