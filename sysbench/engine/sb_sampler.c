/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Once-a-second throughput samples for the self-check; see sb_sampler.h.
 */
#include "engine/sb_sampler.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/sb_run.h"
#include "engine/sb_worker.h"

int sb_sampler_init(struct sb_sampler *s, unsigned nworkers, double step_s)
{
    memset(s, 0, sizeof(*s));
    s->step_ns = (uint64_t)(step_s * 1e9);
    s->nworkers = nworkers;
    s->prev = calloc(nworkers ? nworkers : 1, sizeof(*s->prev));
    s->prev_epoch = calloc(nworkers ? nworkers : 1, sizeof(*s->prev_epoch));
    return s->prev != NULL && s->prev_epoch != NULL ? 0 : -1;
}

void sb_sampler_start(struct sb_sampler *s, uint64_t start_ns)
{
    s->last_ns = start_ns;
    s->next_ns = start_ns + s->step_ns;
}

/* Events finished since the previous sample, over every statistics slot
 * that belongs to the measured run (as the reporter's collect()). */
static uint64_t new_events(struct sb_sampler *s, struct sb_run *run)
{
    int epoch = __atomic_load_n(&run->epoch, __ATOMIC_ACQUIRE);
    uint64_t sum = 0;

    /* Per statistics slot (a worker thread's, or a loop's): nslots is at
     * most the number of workers the arrays were sized for. */
    for (unsigned i = 0; i < run->nslots && i < s->nworkers; i++) {
        const struct sb_stats_slot *sl = &run->slots[i];
        int we = __atomic_load_n(&sl->epoch, __ATOMIC_ACQUIRE);
        uint64_t ev;
        if (we != epoch)
            continue;
        if (s->prev_epoch[i] != we) {   /* reset since: count from zero */
            s->prev[i] = 0;
            s->prev_epoch[i] = we;
        }
        ev = __atomic_load_n(&sl->stats->c[SB_STAT_EVENTS], __ATOMIC_RELAXED);
        if (ev >= s->prev[i])
            sum += ev - s->prev[i];
        s->prev[i] = ev;
    }
    return sum;
}

void sb_sampler_tick(struct sb_sampler *s, struct sb_run *run, uint64_t now)
{
    uint64_t ev;

    if (s->next_ns == 0 || now < s->next_ns)
        return;
    ev = new_events(s, run);
    if (s->ntps == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        double *n = realloc(s->tps, cap * sizeof(*n));
        if (n != NULL) {
            s->tps = n;
            s->cap = cap;
        }
    }
    if (s->ntps < s->cap)
        s->tps[s->ntps++] = (double)ev / ((double)(now - s->last_ns) / 1e9);
    s->last_ns = now;
    while (s->next_ns <= now)
        s->next_ns += s->step_ns;
}

void sb_sampler_check(const struct sb_sampler *s, const struct sb_run *run,
                      const struct sb_stats *total, double t, const struct sb_cpu_report *cr,
                      const struct sb_cpu_thread *tcpu, struct sb_selfcheck *chk)
{
    struct sb_selfcheck_in in;

    memset(&in, 0, sizeof(in));
    in.threads = run->point.threads;
    in.os_threads = run->nloops > 0 ? run->nloops : run->point.threads;
    in.ncpus = cr->ncpus;
    in.wall_s = t;
    in.worker_cpu_s = tcpu != NULL ? 0 : -1;
    in.worker_wait_s = 0;
    for (unsigned i = 0; tcpu != NULL && i < run->point.threads; i++) {
        const struct sb_worker *w = &run->workers[i];
        in.worker_cpu_s += tcpu[i].user_s + tcpu[i].system_s;
        /* Only workers whose CPU figures are there (tcpu), with a wait. */
        if (tcpu[i].user_s + tcpu[i].system_s <= 0 && tcpu[i].events == 0)
            continue;
        if (w->rq_wait_start == UINT64_MAX || w->rq_wait_end == UINT64_MAX ||
            w->rq_wait_end < w->rq_wait_start)
            in.worker_wait_s = -1;
        else if (in.worker_wait_s >= 0)
            in.worker_wait_s += (double)(w->rq_wait_end - w->rq_wait_start) / 1e9;
    }
    in.rate_mode = run->point.mode;
    in.target_tps = run->point.target_tps;
    in.events = total->c[SB_STAT_EVENTS];
    in.achieved_tps = t > 0 ? (double)in.events / t : 0;
    in.lag_p99_s = (double)sb_hist_percentile(&total->lag, 99) / 1e9;
    in.service_mean_s = total->service.total > 0
        ? (double)total->service.sum_ns / (double)total->service.total / 1e9 : 0;
    in.client_delay_s = (double)total->c[SB_STAT_CLIENT_DELAY_NS] / 1e9;
    in.client_late = total->c[SB_STAT_CLIENT_LATE];
    if (in.target_tps > 0 && run->point.threads > 0)
        in.idle_late = sb_dhist_count_from(&total->wake,
            (uint64_t)(SB_SELFCHECK_LAG_SHARE * 1e9 * run->point.threads / in.target_tps));
    in.response_p99_s = (double)sb_hist_percentile(&total->response, 99) / 1e9;
    in.wake_p99_s = (double)sb_dhist_percentile(&total->wake, 99) / 1e9;
    in.wakeups = total->wake.total;
    in.wake_late = sb_dhist_count_from(&total->wake,
                                       (uint64_t)(SB_SELFCHECK_WAKE_P99_MS * 1e6));
    /* An engine without a server to connect to runs in the workers, and
     * so does a compiled-in test (cpu, memory, fileio...): the workers'
     * CPU is then the workload under test, not the load generator's. */
    in.in_process = run->env->builtin != NULL ||
                    (run->env->driver != NULL && run->env->driver->server_endpoint == NULL &&
                     sb_stats_queries(total) > 0);
    in.client_cpu_pct = cr->client.measured ? cr->client.util_pct : NAN;
    in.server_cpu_pct = cr->server.measured ? cr->server.util_pct : NAN;
    in.machine_cpu_pct = cr->machine.measured ? cr->machine.util_pct : NAN;
    in.errors = total->c[SB_STAT_ERRORS];
    in.tps = s->tps;
    in.ntps = s->ntps;
    in.sample_s = (double)s->step_ns / 1e9;
    sb_selfcheck_eval(&in, chk);
}

/* read(2) into a buffer on the stack rather than stdio: every worker
 * calls this as it starts, and fopen's FILE and buffer (1.5 KB from the
 * thread's malloc arena) held by a thousand threads starting together
 * had kept about 2 MB of arena pages resident. */
uint64_t sb_sampler_thread_wait(void)
{
    unsigned long long run_ns, wait_ns;
    char buf[128];
    int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    ssize_t n;

    if (fd < 0)
        return UINT64_MAX;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return UINT64_MAX;
    buf[n] = '\0';
    return sscanf(buf, "%llu %llu", &run_ns, &wait_ns) == 2 ? (uint64_t)wait_ns : UINT64_MAX;
}

void sb_sampler_free(struct sb_sampler *s)
{
    free(s->prev);
    free(s->prev_epoch);
    free(s->tps);
    memset(s, 0, sizeof(*s));
}
