/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The per-statement clock; see sb_tick.h.
 */
#include "core/sb_tick.h"

#include <stdio.h>
#include <string.h>

bool sb_tick_tsc;
uint64_t sb_tick_mult;
static bool chosen;

#if defined(__x86_64__)
/* Whether the kernel keeps time by the TSC: then it has checked that the
 * counter is invariant and in step across CPUs (it would have switched
 * to another clocksource otherwise). */
static bool kernel_uses_tsc(void)
{
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
    char buf[32] = "";
    bool tsc;

    if (f == NULL)
        return false;
    tsc = fgets(buf, sizeof(buf), f) != NULL && strcmp(buf, "tsc\n") == 0;
    fclose(f);
    return tsc;
}

/* A TSC count and the CLOCK_MONOTONIC time at the same moment: the clock
 * read between two counts, the narrowest of a few tries (a try the
 * thread lost its CPU in is wide), the counts' midpoint. */
static void pair(uint64_t *tsc, uint64_t *ns)
{
    uint64_t best = UINT64_MAX;

    for (int i = 0; i < 16; i++) {
        uint64_t a = __rdtsc(), t = sb_now_ns(), b = __rdtsc();
        if (b >= a && b - a < best) {
            best = b - a;
            *tsc = a + (b - a) / 2;
            *ns = t;
        }
    }
}

/* ns per TSC count as 32.32 fixed point, measured over about 2 ms of
 * sleep; 0 when the rate is not believable (100 MHz to 20 GHz). */
static uint64_t measure_mult(void)
{
    uint64_t c0 = 0, n0 = 0, c1 = 0, n1 = 0, mult;

    pair(&c0, &n0);
    sb_sleep_until_ns(n0 + 2 * SB_NS_PER_MS);
    pair(&c1, &n1);
    if (c1 <= c0 || n1 <= n0)
        return 0;
    mult = (uint64_t)(((unsigned __int128)(n1 - n0) << 32) / (c1 - c0));
    if (mult < (UINT64_C(1) << 32) / 20 || mult > (UINT64_C(1) << 32) * 10)
        return 0;
    return mult;
}
#endif

void sb_tick_init(void)
{
    if (chosen)
        return;
    chosen = true;
#if defined(__x86_64__)
    if (kernel_uses_tsc()) {
        sb_tick_mult = measure_mult();
        sb_tick_tsc = sb_tick_mult != 0;
    }
#endif
}
