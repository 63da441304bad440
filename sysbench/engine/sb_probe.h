/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_PROBE_H
#define SB_PROBE_H

/*
 * The server probe before a run (sb_probe.c): the server's processes for
 * CPU accounting, its version and settings, and following the server
 * across restarts during the run. Main thread only.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/sb_lua_env.h"
#include "cpu/sb_cpu.h"

struct sb_server_info;

/*
 * Finds the server's processes for CPU accounting (--server-pid, else the
 * local process listening where the driver connects) and the server's
 * version (vlen bytes into version, "" if unknown) through one probe
 * connection, which also reads the server's settings into info (zeroed
 * by the caller; the binary too when the server is found here, see
 * sb_server_info.h). Returns true when found; otherwise label says why
 * not. In a rate run the probe connection also times a few round trips:
 * when the quickest is longer than each thread's time per transaction,
 * that is warned about and *rate_warned set (else left false).
 */
bool sb_run_find_server(const struct sb_lua_env *env, struct sb_cpu_server *srv,
                        char *label, size_t len, char *version, size_t vlen,
                        struct sb_server_info *info, bool *rate_warned);

/*
 * Follows a server found by its endpoint across restarts, for the CPU
 * accounting. The reporter calls sb_server_watch_check every so often (a
 * signal-0 test of the first pid, once a second) and hands it its samples
 * (sb_server_watch_note: the interval reports'); once the server's
 * processes are gone the check looks for the processes listening at the
 * endpoint again and, when found, measures those from then on. The CPU
 * the old processes used up to the last sample is carried over
 * (sb_server_watch_adjust adds it to the final sample), and the time
 * between that sample and the new process being found is the gap, not
 * measured (without --report-interval, since the start of the run).
 */
struct sb_server_watch {
    struct sb_cpu_server *srv;      /* borrowed; updated in place */
    struct sb_cpu_times last;       /* the server's times at last_ns */
    bool last_ok;
    uint64_t last_ns, next_check_ns;
    int64_t carry_user_ns, carry_system_ns; /* CPU of replaced processes */
    uint64_t gap_ns;                /* time not measured */
    unsigned restarts;
};

/* Starts watching srv (NULL or without an endpoint: nothing to do) from
 * a sample taken at now_ns. */
void sb_server_watch_start(struct sb_server_watch *w, struct sb_cpu_server *srv,
                           const struct sb_cpu_sample *s, uint64_t now_ns);
/* Checks the server (at most once a second). Returns true when it found
 * a restarted server: *fresh is then a sample of the new processes, which
 * the caller uses as the start of its current interval. */
bool sb_server_watch_check(struct sb_server_watch *w, uint64_t now_ns,
                           struct sb_cpu_times *fresh, size_t *nprocs);
/* Remembers the server's times of a sample taken at now_ns. */
void sb_server_watch_note(struct sb_server_watch *w, const struct sb_cpu_sample *s,
                          uint64_t now_ns);
/* Adds the carried CPU to a final sample of the new processes, so that
 * final - first covers every process the server ran on, and appends
 * "; restarted N time(s), X s not measured" to label. */
void sb_server_watch_adjust(const struct sb_server_watch *w, struct sb_cpu_sample *final,
                            char *label, size_t len);

/* sb_run_find_server in a guarded thread (sb_signal_guarded), so that a
 * signal does not wait for a connect timeout. Returns 0 (*found set and
 * the server's settings moved into info, which the caller frees), 1 when
 * a signal came first (the thread is abandoned), -1 on failure. */
int sb_run_probe(const struct sb_lua_env *env, struct sb_cpu_server *srv, char *label,
                 size_t len, char *version, size_t vlen, struct sb_server_info *info,
                 bool *found, bool *rate_warned);

#endif /* SB_PROBE_H */
