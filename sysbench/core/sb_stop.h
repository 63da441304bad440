/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_STOP_H
#define SB_STOP_H

/*
 * The stop flag: set by the time limit, the event limit, a fatal error in
 * any thread, or SIGINT/SIGTERM; read by every loop that might otherwise
 * wait (workers, the pacer's sleeps, reconnect back-off). It is one of the
 * three pieces of global mutable state.
 */

#include <stdbool.h>

enum sb_stop_reason {
    SB_STOP_NONE = 0,
    SB_STOP_DONE,        /* time or event limit reached */
    SB_STOP_SIGNAL,      /* SIGINT or SIGTERM */
    SB_STOP_ERROR,       /* a fatal error in some thread */
    /* --events reached: no new event starts, but events already claimed
     * finish, retries included. Any other reason replaces this one. */
    SB_STOP_EVENTS
};

extern int sb_stop_reason_value;

/* True once any stop was requested. A relaxed load: callers poll it. */
static inline bool sb_stopping(void)
{
    return __atomic_load_n(&sb_stop_reason_value, __ATOMIC_RELAXED) != SB_STOP_NONE;
}

/* Requests a stop; the first reason wins, except that any reason replaces
 * SB_STOP_EVENTS and a signal also replaces SB_STOP_DONE: a signal after
 * --time ran out (a statement still in flight, thread_done) must still end
 * the run as interrupted. Async-signal-safe. */
static inline void sb_request_stop(enum sb_stop_reason reason)
{
    int cur = SB_STOP_NONE;
    while (!__atomic_compare_exchange_n(&sb_stop_reason_value, &cur, (int)reason, false,
                                        __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
        bool replaceable = cur == SB_STOP_EVENTS ||
                           (cur == SB_STOP_DONE && reason == SB_STOP_SIGNAL);
        if (!replaceable || reason == SB_STOP_EVENTS)
            return;
    }
}

static inline enum sb_stop_reason sb_stop_reason(void)
{
    return (enum sb_stop_reason)__atomic_load_n(&sb_stop_reason_value, __ATOMIC_SEQ_CST);
}

/* True once a stop ends the events already claimed too: any reason but
 * SB_STOP_EVENTS, after which claimed events still finish and retry. */
static inline bool sb_stop_claimed(void)
{
    enum sb_stop_reason r = sb_stop_reason();
    return r != SB_STOP_NONE && r != SB_STOP_EVENTS;
}

/* Clears the flag between the points of a sweep (no threads running). */
static inline void sb_stop_reset(void)
{
    __atomic_store_n(&sb_stop_reason_value, SB_STOP_NONE, __ATOMIC_SEQ_CST);
}

#endif /* SB_STOP_H */
