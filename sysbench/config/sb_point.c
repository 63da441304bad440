/*
 * Sweep points and the rate mode; see sb_point.h.
 */
#include "config/sb_point.h"

#include <string.h>

#include "config/sb_config.h"
#include "pure/sb_pacer.h"

static const char *const mode_names[] = {"none", "tx-rate", "rate"};

const char *sb_pace_mode_name(enum sb_pace_mode m)
{
    return (unsigned)m < sizeof(mode_names) / sizeof(mode_names[0]) ? mode_names[m] : "none";
}

bool sb_pace_mode_parse(const char *s, enum sb_pace_mode *m)
{
    *m = SB_PACE_NONE;
    for (unsigned i = 0; s != NULL && i < sizeof(mode_names) / sizeof(mode_names[0]); i++)
        if (strcmp(s, mode_names[i]) == 0) {
            *m = (enum sb_pace_mode)i;
            return true;
        }
    return false;
}

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
    p.rate = cfg->rate;
    /* With --instance=I/N this process holds 1/N of the rate, its
     * connections taking their places among all instances' (sb_instance.h). */
    if (tx_rate > 0) {
        p.mode = SB_PACE_FIXED;
        p.tx_rate = tx_rate;
        p.target_tps = tx_rate / count;
        p.jitter_us = sb_pacer_jitter_us(tx_rate, threads * count, cfg->tx_jitter_us);
    } else if (cfg->rate > 0) {
        p.mode = SB_PACE_POISSON;
        p.target_tps = cfg->rate / count;
    }
    return p;
}
