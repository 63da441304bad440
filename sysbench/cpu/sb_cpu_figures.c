/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The figures of CPU accounting: CPU per transaction and utilisation
 * between two samples, with no I/O. See sb_cpu.h for the API.
 */
#include "config.h"

#include "cpu/sb_cpu.h"

#include <math.h>
#include <string.h>

static uint64_t delta(uint64_t before, uint64_t after)
{
    /* A counter that goes down (a server child lost between samples) is
     * treated as no progress rather than as a huge unsigned wrap. */
    return after >= before ? after - before : 0;
}

static double clamp_pct(double v)
{
    if (!(v > 0))                 /* also catches NAN */
        return 0;
    return v > 100 ? 100 : v;
}

void sb_cpu_times_figures(const struct sb_cpu_times *before,
                          const struct sb_cpu_times *after,
                          uint64_t transactions, double elapsed_s,
                          unsigned ncpus, struct sb_cpu_figures *out)
{
    uint64_t du = delta(before->user_ns, after->user_ns);
    uint64_t ds = delta(before->system_ns, after->system_ns);

    out->measured = true;
    out->cpu_s = (double)(du + ds) / 1e9;
    if (transactions > 0) {
        double tx = (double)transactions;

        out->user_us_per_tx = (double)du / 1e3 / tx;
        out->system_us_per_tx = (double)ds / 1e3 / tx;
        out->total_us_per_tx = (double)(du + ds) / 1e3 / tx;
    } else {
        out->user_us_per_tx = NAN;
        out->system_us_per_tx = NAN;
        out->total_us_per_tx = NAN;
    }
    if (elapsed_s > 0 && ncpus > 0)
        out->util_pct = clamp_pct(out->cpu_s /
                                  (elapsed_s * (double)ncpus) * 100.0);
    else
        out->util_pct = 0;
}

static void unmeasured(struct sb_cpu_figures *f)
{
    f->measured = false;
    f->cpu_s = 0;
    f->user_us_per_tx = NAN;
    f->system_us_per_tx = NAN;
    f->total_us_per_tx = NAN;
    f->util_pct = 0;
}

static void machine_figures(const struct sb_cpu_sample *a,
                            const struct sb_cpu_sample *b,
                            uint64_t transactions,
                            struct sb_cpu_machine_figures *out)
{
    const struct sb_cpu_machine_stat *x = &a->machine, *y = &b->machine;
    uint64_t user = delta(x->user, y->user) + delta(x->nice, y->nice);
    uint64_t sys = delta(x->system, y->system) + delta(x->irq, y->irq) +
                   delta(x->softirq, y->softirq);
    uint64_t steal = delta(x->steal, y->steal);
    uint64_t iowait = delta(x->iowait, y->iowait);
    uint64_t idle = delta(x->idle, y->idle);
    uint64_t busy = user + sys + steal;
    uint64_t all = busy + iowait + idle;
    double hz = (double)(b->clk_tck > 0 ? b->clk_tck : 100);

    memset(out, 0, sizeof(*out));
    out->measured = true;
    if (transactions > 0) {
        double us_per_tick_tx = 1e6 / hz / (double)transactions;

        out->user_us_per_tx = (double)user * us_per_tick_tx;
        out->system_us_per_tx = (double)sys * us_per_tick_tx;
        out->busy_us_per_tx = (double)busy * us_per_tick_tx;
    } else {
        out->user_us_per_tx = NAN;
        out->system_us_per_tx = NAN;
        out->busy_us_per_tx = NAN;
    }
    if (all > 0) {
        double t = (double)all;

        out->util_pct = clamp_pct((double)busy / t * 100.0);
        out->user_pct = clamp_pct((double)user / t * 100.0);
        out->system_pct = clamp_pct((double)sys / t * 100.0);
        out->iowait_pct = clamp_pct((double)iowait / t * 100.0);
        out->steal_pct = clamp_pct((double)steal / t * 100.0);
        out->idle_pct = clamp_pct((double)idle / t * 100.0);
    }
}

void sb_cpu_compute(const struct sb_cpu_sample *before,
                    const struct sb_cpu_sample *after,
                    uint64_t transactions, struct sb_cpu_report *out)
{
    uint64_t dt = delta(before->mono_ns, after->mono_ns);

    memset(out, 0, sizeof(*out));
    out->elapsed_s = (double)dt / 1e9;
    out->ncpus = after->ncpus > 0 ? after->ncpus : 1;
    out->transactions = transactions;

    sb_cpu_times_figures(&before->client, &after->client, transactions,
                         out->elapsed_s, out->ncpus, &out->client);
    if (before->server_nprocs > 0 && after->server_nprocs > 0)
        sb_cpu_times_figures(&before->server, &after->server, transactions,
                             out->elapsed_s, out->ncpus, &out->server);
    else
        unmeasured(&out->server);
    if (before->machine_ok && after->machine_ok) {
        machine_figures(before, after, transactions, &out->machine);
    } else {
        memset(&out->machine, 0, sizeof(out->machine));
        out->machine.user_us_per_tx = NAN;
        out->machine.system_us_per_tx = NAN;
        out->machine.busy_us_per_tx = NAN;
    }
}
