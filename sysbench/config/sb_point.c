/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Sweep points; see sb_point.h.
 */
#include "config/sb_point.h"

#include <string.h>

#include "config/sb_config.h"
#include "pure/sb_pacer.h"

struct sb_point_config sb_point_build(const struct sb_point_spec *s)
{
    struct sb_point_config p;
    unsigned count = s->ninstances > 0 ? s->ninstances : 1;

    memset(&p, 0, sizeof(p));
    p.threads = s->threads;
    p.repeat = s->repeat > 0 ? s->repeat : 1;
    p.nrepeat = s->nrepeat > 0 ? s->nrepeat : 1;
    p.late_policy = s->late_policy;
    p.probe = s->find_max;
    /* With --instance=I/N this process holds 1/N of the rate, its
     * connections taking their places among all instances' (sb_instance.h):
     * the schedule is the one N * threads connections would keep. */
    p.instance = s->instance;
    p.ninstances = count;
    p.slot_base = s->threads * s->instance;
    p.nslots = s->threads * count;
    if (s->tx_rate > 0) {
        p.mode = SB_PACE_FIXED;
        p.rate = s->tx_rate;
        p.jitter_us = sb_pacer_jitter_us(s->tx_rate, p.nslots, s->jitter_us);
    } else if (s->poisson_rate > 0) {
        p.mode = SB_PACE_POISSON;
        p.rate = s->poisson_rate;
    }
    p.target_tps = p.rate / count;
    return p;
}

struct sb_point_config sb_point_config_make(const struct sb_config *cfg, unsigned threads,
                                            double tx_rate, unsigned repeat,
                                            unsigned nrepeat)
{
    const struct sb_point_spec s = {
        .threads = threads, .tx_rate = tx_rate, .poisson_rate = cfg->poisson_rate,
        .jitter_us = cfg->tx_jitter_us, .late_policy = cfg->late_policy,
        .instance = cfg->instance.index, .ninstances = cfg->instance.count,
        .find_max = cfg->find_max, .repeat = repeat, .nrepeat = nrepeat};

    return sb_point_build(&s);
}

struct sb_point_config sb_point_first(const struct sb_config *cfg)
{
    return sb_point_config_make(cfg, cfg->thread_list[0],
                                cfg->ntx_rate_list > 0 ? cfg->tx_rate_list[0] : 0, 1, 1);
}
