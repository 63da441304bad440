/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_BUILTIN_H
#define SB_BUILTIN_H

/*
 * The compiled-in tests (cpu, memory, threads, mutex, fileio): sysbench
 * 1.0's built-in benchmarks, written as event sources in C that run in
 * the same workers as a Lua script's event() (sb_worker.c), so pacing,
 * percentiles, result files, sweeps and the CPU accounting apply to them
 * unchanged. A test is a vtable; the registry finds one by name.
 *
 * Life of a test: configure() once in the main thread after the options
 * are parsed checks them and returns the test's context: its
 * configuration and what its threads share (fileio's open files, the
 * mutexes, memory's global block). The caller keeps it (struct
 * sb_lua_env's builtin_cfg) and hands it to every other call; the test
 * keeps no state of its own outside it. Then a command: "run"
 * (print_header before the workers start, thread_init / event /
 * thread_done in every worker, report before the general statistics),
 * "prepare" and "cleanup" (where the test has them) or "help".
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/sb_options.h"

struct sb_rand;
struct sb_db_counters;
struct sb_point_result;

/* What event() returns. */
enum sb_bi_status {
    SB_BI_OK = 0,      /* one event done: counted */
    SB_BI_DONE = 1,    /* this thread has no more events (not counted) */
    SB_BI_ERROR = -1   /* failed: the thread's err says why, the run stops */
};

/* What a test's thread sees; owned by its worker, valid until
 * thread_done returns. */
struct sb_bi_thread {
    void *cfg;                       /* the test's context (configure) */
    int tid;
    unsigned nthreads;               /* threads of the point being run */
    struct sb_rand *rand;            /* the worker's generator */
    struct sb_db_counters *counters; /* reads, writes, other (fileio) */
    char *err;                       /* one line on SB_BI_ERROR */
    size_t errlen;
};

struct sb_builtin {
    const char *name;
    const char *description;          /* for "Compiled-in tests" */
    const struct sb_opt_def *options; /* {NULL}-ended */
    /* Every thread runs out of events by itself (memory: its share of
     * --memory-total-size; mutex: one event): --time=0 is allowed. */
    bool ends_itself;
    /* Reads and checks the options and makes the test's context (owned
     * by the caller, freed with finish). Returns it, or NULL with one
     * line in err. The context is read-only once threads start, but for
     * what the test's threads share on purpose (locks, atomic counters,
     * the open files under their lock). */
    void *(*configure)(const struct sb_optset *opts, char *err, size_t errlen);
    /* The test's own lines of the run header, each block ending with an
     * empty line (may be NULL). */
    void (*print_header)(const void *cfg, FILE *out);
    /* Checks what "run" needs beyond configure() (fileio: a test mode);
     * may be NULL. 0, or -1 with one line in err. */
    int (*check_run)(const void *cfg, char *err, size_t errlen);
    /* Commands other than run and help (NULL: not implemented). Return
     * 0, or -1 with one line in err. */
    int (*prepare)(const void *cfg, unsigned threads, char *err, size_t errlen);
    int (*cleanup)(const void *cfg, char *err, size_t errlen);
    /* Per worker, on its thread (t->cfg is the context): *ctx receives
     * the thread's state (owned by the test, freed by thread_done; may
     * stay NULL). Returns 0 or SB_BI_ERROR with t->err set; a *ctx set
     * before a failure still gets its thread_done. */
    int (*thread_init)(void **ctx, const struct sb_bi_thread *t);
    /* One event; allocates nothing. */
    int (*event)(void *ctx);
    /* Frees ctx; 0, or SB_BI_ERROR with the error in the thread's err
     * (a final fsync that failed). */
    int (*thread_done)(void *ctx);
    /* The test's report section, printed before "General statistics"
     * (may be NULL). p is the finished point. */
    void (*report)(const void *cfg, const struct sb_point_result *p, FILE *out);
    /* Frees the context configure() returned (cfg may be NULL); main
     * thread, after every command. */
    void (*finish)(void *cfg);
};

/* Calls b->check_run with context cfg when there is one: 0, or -1 with
 * err. */
int sb_builtin_check_run(const struct sb_builtin *b, const void *cfg, char *err, size_t errlen);

/* Calls b->finish on context cfg (b may be NULL: nothing to do). */
void sb_builtin_finish(const struct sb_builtin *b, void *cfg);

/* The test called `name`, or NULL. */
const struct sb_builtin *sb_builtin_find(const char *name);

/* The i-th compiled-in test (0-based, in --help's order), or NULL past
 * the last: for "did you mean" hints on a misspelt script name. */
const struct sb_builtin *sb_builtin_at(size_t i);

/* Prints the "Compiled-in tests:" section of --help. */
void sb_builtin_print_list(FILE *out);

/* Adds the test's options to `set` (the script option set). 0 or -1. */
int sb_builtin_declare(const struct sb_builtin *b, struct sb_optset *set, char *err,
                       size_t errlen);

/*
 * Runs command `cmd` other than "run" of test b (context cfg): "help"
 * prints its options; "prepare"/"cleanup" call the test's. threads is
 * the thread count of the first point. Returns the exit status (0 or 1;
 * the error already printed as sysbench 1.0 words it).
 */
int sb_builtin_command(const struct sb_builtin *b, const void *cfg, const struct sb_optset *opts,
                       const char *cmd, unsigned threads);

/* Shared helpers of the tests. */

/* Formats a size as sysbench 1.0 prints it in headers: the largest of
 * KiB/MiB/GiB/TiB that divides it, else bytes ("1KiB", "100GiB"). */
const char *sb_bi_size_str(uint64_t bytes, char *buf, size_t len);

/* Reports a value out of range for option `name` into err; returns -1. */
int sb_bi_bad_option(char *err, size_t errlen, const char *name, const char *value,
                     const char *expected);

#endif /* SB_BUILTIN_H */
