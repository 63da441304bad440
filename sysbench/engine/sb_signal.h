/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_SIGNAL_H
#define SB_SIGNAL_H

/*
 * SIGINT, SIGTERM and SIGHUP: the stop a signal asks for, and the guard
 * that keeps the main thread able to act on it while a thread blocks in
 * Lua or in a client library (connect, a long statement). A first signal
 * sets the stop flag (sb_stop.h) and wakes a watcher thread that cancels
 * the statements in flight and interrupts every Lua state; a second one
 * ends the process. State: the signal caught and whether a thread was
 * abandoned, both process-wide like the stop flag they go with.
 */

#include <stdbool.h>

struct sb_driver_ops;

/* How long a signal, or the cancel at the deadline, waits for threads that
 * do not stop (stuck in connect, in Lua, or in a statement the server does
 * not cancel) before they are abandoned. */
#define SB_SIGNAL_GRACE_S 1.5

/* Installs SIGINT/SIGTERM handlers that request a stop. */
void sb_signal_install(void);
/* The signal that stopped the run, 0 if none. */
int sb_signal_caught(void);
/* Whether the stop was asked by a signal (and not by the end of the run,
 * an error or a deadline that came first). */
bool sb_signal_stopped(void);

/*
 * True once a thread was left running because it did not stop (a signal
 * during a blocking call, --forced-shutdown). Its memory, the main Lua
 * state and the driver may still be in use: main must then skip every
 * clean-up and end the process with _exit after flushing its output.
 */
bool sb_signal_abandoned(void);
void sb_signal_abandon(void);

/*
 * Waits until *count (updated atomically by other threads) reaches n.
 * Once a signal asks to stop, waits at most grace_s more seconds. Returns
 * false when it gave up.
 */
bool sb_signal_wait_count(const unsigned *count, unsigned n, double grace_s);

/*
 * Runs fn(arg) in a new thread (with the driver's per-thread set-up, drv
 * may be NULL) while the main thread polls for a signal. Returns 0 when fn
 * returned, 1 when a signal came first (the thread is abandoned), -1 when
 * no thread could be created.
 */
int sb_signal_guarded(const struct sb_driver_ops *drv, void *(*fn)(void *), void *arg);

#endif /* SB_SIGNAL_H */
