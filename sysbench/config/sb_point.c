/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Sweep points; see sb_point.h.
 */
#include "config/sb_point.h"

#include <string.h>

#include "config/sb_config.h"
#include "pure/sb_pacer.h"

struct sb_point_config sb_point_config_make(const struct sb_config *cfg, unsigned threads,
                                            double tx_rate, unsigned repeat,
                                            unsigned nrepeat)
{
    struct sb_point_config p;
    unsigned count = cfg->instance.count > 0 ? cfg->instance.count : 1;

    memset(&p, 0, sizeof(p));
    p.threads = threads;
    p.repeat = repeat > 0 ? repeat : 1;
    p.nrepeat = nrepeat > 0 ? nrepeat : 1;
    /* With --instance=I/N this process holds 1/N of the rate, its
     * connections taking their places among all instances' (sb_instance.h). */
    if (tx_rate > 0) {
        p.mode = SB_PACE_FIXED;
        p.tx_rate = tx_rate;
        p.target_tps = tx_rate / count;
        p.jitter_us = sb_pacer_jitter_us(tx_rate, threads * count, cfg->tx_jitter_us);
    } else if (cfg->poisson_rate > 0) {
        p.mode = SB_PACE_POISSON;
        p.target_tps = cfg->poisson_rate / count;
    }
    return p;
}
