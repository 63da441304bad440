/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_CLOCK_H
#define SB_CLOCK_H

/*
 * Monotonic time in nanoseconds, and sleeping until an absolute deadline.
 * All run timing (due times, latencies, intervals) is on CLOCK_MONOTONIC so
 * that a wall-clock step cannot stretch or shrink a measurement.
 */

#include <stdint.h>
#include <time.h>
#include <errno.h>

#define SB_NS_PER_SEC 1000000000ULL
#define SB_NS_PER_MS 1000000ULL
#define SB_NS_PER_US 1000ULL

/* Returns the current CLOCK_MONOTONIC time in nanoseconds. */
static inline uint64_t sb_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * SB_NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

/*
 * Sleeps until CLOCK_MONOTONIC reaches deadline_ns. An absolute deadline
 * (TIMER_ABSTIME) means a signal or a late wake-up never shifts the schedule.
 */
static inline void sb_sleep_until_ns(uint64_t deadline_ns)
{
    struct timespec ts;
    ts.tv_sec = (time_t)(deadline_ns / SB_NS_PER_SEC);
    ts.tv_nsec = (long)(deadline_ns % SB_NS_PER_SEC);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

#endif /* SB_CLOCK_H */
