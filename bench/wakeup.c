/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Measurement only, not part of sysbench: how late the kernel wakes an
 * idle thread from a timed sleep (bench/wakeup.sh; the self-check's "late
 * wake-ups" threshold, sb_selfcheck.h SB_SELFCHECK_WAKE_P99_MS, comes from
 * it). One thread sleeps to absolute deadlines PERIOD_US apart with
 * clock_nanosleep(TIMER_ABSTIME) on CLOCK_MONOTONIC, as the pacer does
 * (sb_clock.h), and records how far after each deadline it runs again.
 * The default timer slack (50 us) is kept: sysbench does not change it.
 *
 *   cc -O2 -o /tmp/wakeup bench/wakeup.c -lm
 *   /tmp/wakeup [SAMPLES [PERIOD_US]]     (default 5000 samples of 1000 us)
 *
 * Prints one line: samples, period, and the delay's p50, p90, p99, p99.9
 * and maximum in microseconds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

/* The q-quantile (0..1) of sorted v[0..n), nearest rank. */
static double quantile_us(const long long *v, size_t n, double q)
{
    size_t i = (size_t)(q * (double)n);
    if (i >= n)
        i = n - 1;
    return (double)v[i] / 1000.0;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 5000;
    long long period = (argc > 2 ? atoll(argv[2]) : 1000) * 1000LL;
    long long *late = malloc(n * sizeof(*late));
    long long due;

    if (n == 0 || period <= 0 || late == NULL) {
        fprintf(stderr, "usage: wakeup [SAMPLES [PERIOD_US]]\n");
        return 2;
    }
    due = now_ns() + period;
    for (size_t i = 0; i < n; i++) {
        struct timespec ts = { (time_t)(due / 1000000000LL), (long)(due % 1000000000LL) };
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0)
            ;
        late[i] = now_ns() - due;
        due += period;
        /* A wake-up later than a period starts the schedule again rather
         * than firing the missed deadlines at once (the next sleep would
         * not be a sleep). */
        if (now_ns() >= due)
            due = now_ns() + period;
    }
    qsort(late, n, sizeof(*late), cmp_ll);
    printf("samples %zu period_us %lld p50_us %.1f p90_us %.1f p99_us %.1f p99.9_us %.1f "
           "max_us %.1f\n", n, period / 1000, quantile_us(late, n, 0.50),
           quantile_us(late, n, 0.90), quantile_us(late, n, 0.99), quantile_us(late, n, 0.999),
           (double)late[n - 1] / 1000.0);
    free(late);
    return 0;
}
