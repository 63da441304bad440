/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_TICK_H
#define SB_TICK_H

/*
 * A cheaper clock for the intervals timed per statement
 * (--report-per-statement): two reads around every statement, where the
 * transaction's own timing (sb_clock.h) reads CLOCK_MONOTONIC twice per
 * transaction.
 *
 * On x86-64, when the kernel itself keeps time by the TSC (clocksource
 * "tsc": it checked that the counter runs at a constant rate and in step
 * on every CPU), a tick is the TSC read directly: one instruction, where
 * clock_gettime through the vDSO also takes a sequence lock, scales the
 * count and splits it into seconds and nanoseconds, and sb_now_ns joins
 * them again. Ticks become nanoseconds by a scale measured against
 * CLOCK_MONOTONIC once, by sb_tick_init (about 2 ms), so a latency in
 * ticks agrees with one on CLOCK_MONOTONIC to within about 1e-5.
 * Everywhere else (another architecture, another clocksource, or
 * before sb_tick_init) a tick is a CLOCK_MONOTONIC nanosecond.
 *
 * Only the difference of two ticks means anything, and only within one
 * process.
 */

#include <stdbool.h>
#include <stdint.h>

#include "core/sb_clock.h"

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

/* Set once by sb_tick_init, before the threads that read ticks start
 * (pthread_create orders it before them); read-only afterwards. */
extern bool sb_tick_tsc;          /* ticks are TSC counts */
extern uint64_t sb_tick_mult;     /* ns = ticks * mult / 2^32 (TSC only) */

/*
 * Chooses the tick: the TSC when the kernel's clocksource is "tsc"
 * (read from /sys/devices/system/clocksource/clocksource0/
 * current_clocksource), its rate then measured over about 2 ms of sleep
 * against CLOCK_MONOTONIC; otherwise CLOCK_MONOTONIC. Idempotent; not
 * thread-safe (call it before starting the threads that read ticks).
 * Cannot fail: any doubt (no such file, a rate outside 100 MHz to
 * 20 GHz) falls back to CLOCK_MONOTONIC.
 */
void sb_tick_init(void);

/* The current tick. */
static inline uint64_t sb_tick_now(void)
{
#if defined(__x86_64__)
    if (sb_tick_tsc)
        return __rdtsc();
#endif
    return sb_now_ns();
}

/* Nanoseconds in a difference of ticks (t1 - t0 of two sb_tick_now). */
static inline uint64_t sb_tick_ns(uint64_t ticks)
{
#if defined(__x86_64__)
    if (sb_tick_tsc)
        return (uint64_t)(((unsigned __int128)ticks * sb_tick_mult) >> 32);
#endif
    return ticks;
}

#endif /* SB_TICK_H */
