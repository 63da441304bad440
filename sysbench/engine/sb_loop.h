/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_LOOP_H
#define SB_LOOP_H

/*
 * Connections multiplexed over a few OS threads. A loop is one thread that
 * runs a contiguous range of workers (connections, each with its own Lua
 * globals, random stream and pacer, exactly as a worker thread has them;
 * their globals live in one Lua state per loop, sb_lua_shared.h). Each
 * worker's event loop runs in a Lua coroutine; it yields
 * while a statement is in flight (the loop waits for its socket with
 * epoll) and while it waits for the next scheduled start (the loop keeps
 * a timer heap), so one thread keeps many connections busy and one wake-up
 * serves every reply that has arrived.
 *
 * What stays per connection: schedule, random numbers, Lua globals, and
 * each connection's event count and time inside events. The statistics
 * (counters, error codes, histograms) live once per loop, in a slot its
 * connections share (struct sb_stats_slot, sb_worker.h; the run assigns
 * it); the reporter merges loops, not connections. The thread's CPU time
 * is shared out among its connections in proportion to the time each
 * one's coroutine ran.
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "cpu/sb_cpu.h"
#include "drivers/sb_db_preconnect.h"

struct sb_run;
struct sb_worker;
struct sb_lua_shared;

/* A timed wait in a loop's heap: the worker and when it wakes. */
struct sb_loop_timer {
    uint64_t wake_ns;
    struct sb_worker *w;
};

struct sb_loop {
    struct sb_run *run;            /* borrowed */
    unsigned first, n;             /* its workers: run->workers[first..+n) */
    pthread_t thread;
    bool started;                  /* its thread was created */
    unsigned done;                 /* set (atomically) when it returns */
    /* Private to the loop's thread. */
    struct sb_lua_shared *lua;     /* the Lua state its workers share */
    int epfd;
    bool no_pwait2;                /* the kernel lacks epoll_pwait2 */
    struct sb_loop_timer *heap;    /* timed waits, earliest first */
    unsigned nheap;
    struct sb_worker **runq;       /* ready to resume, a ring of n */
    unsigned rq_head, rq_len;
    unsigned alive;                /* coroutines not yet ended */
    bool measuring;                /* CPU sampled for the measured window */
    struct sb_cpu_times cpu_start, cpu_end;
    uint64_t rq_wait_start, rq_wait_end;
    /* Its workers' connections, set up together (sb_db_preconnect.h). */
    struct sb_db_preconnect pre;
};

/*
 * The number of loop threads for nthreads connections with the chosen
 * --client-threads value (0: one thread per connection, no loop; -1:
 * automatic, with ncpus online CPUs). Returns 0 when the connections get a thread each: the
 * driver cannot run statements without blocking, or the script has its
 * own thread_run (whose waits cannot yield).
 */
unsigned sb_loop_count(int client_threads, unsigned nthreads, bool driver_async,
                       bool script_thread_run, unsigned ncpus);

/* --client-threads=auto multiplexes from this many connections on, one
 * loop per this many connections, at most one per CPU. */
#define SB_LOOP_AUTO_MIN 256

/*
 * Splits run's workers over nloops loops (loops: an array the caller
 * owns) and marks each worker as multiplexed. Returns 0, or -1 when out of
 * memory (nothing allocated is left).
 */
int sb_loop_init(struct sb_loop *loops, unsigned nloops, struct sb_run *run);
void sb_loop_free(struct sb_loop *loops, unsigned nloops);

/* The thread body of a loop: its workers' Lua states and thread_init,
 * the wait for the run's start, their events, their thread_done. */
void *sb_loop_main(void *arg);

/* Samples the loop thread's CPU time as the start of the measured window,
 * once (the first worker past warmup calls it). Loop thread only. */
void sb_loop_measure(struct sb_loop *loop);

#endif /* SB_LOOP_H */
