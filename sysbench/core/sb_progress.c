/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Progress of long work; see sb_progress.h.
 */
#include "core/sb_progress.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/sb_clock.h"

#define MAX_PHASES 8
#define FIRST_TTY_NS (1 * SB_NS_PER_SEC)    /* short work stays silent */
#define TTY_EVERY_NS (250 * SB_NS_PER_MS)
#define LINES_EVERY_S 10.0
#define RATE_SAMPLES 32
#define RATE_WINDOW_NS (5 * SB_NS_PER_SEC)

struct phase {
    char name[16];
    uint64_t ns;                 /* summed over threads; atomic */
};

static struct {
    int open;                    /* atomic: a task is open */
    enum sb_progress_style style;
    pthread_t owner;
    char what[48], unit[24];
    uint64_t total, done;        /* atomic */
    const unsigned *watch;
    uint64_t start_ns, next_ns, every_ns;
    int shown;                   /* atomic: a terminal line is on screen */
    pthread_mutex_t lock;        /* guards the phase table */
    struct phase phases[MAX_PHASES];
    unsigned nphases, nthreads;
    unsigned gen;                /* task number, to notice a stale thread phase */
    /* The printed lines' (time, done): the rate over the last few seconds
     * gives the time left, which the mean since the start misjudges when
     * the server slows down as its tables grow. Owner thread only. */
    uint64_t hist_ns[RATE_SAMPLES], hist_done[RATE_SAMPLES];
    unsigned nhist;
} task = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* The calling thread's phase: index into task.phases, or -1. */
static __thread int cur_phase = -1;
static __thread uint64_t cur_since;
static __thread unsigned cur_gen;

static enum sb_progress_style pick_style(uint64_t *every_ns)
{
    const char *e = getenv("SB_PROGRESS"), *every = getenv("SB_PROGRESS_EVERY");
    double s = every != NULL ? atof(every) : 0;

    *every_ns = (uint64_t)((s > 0 ? s : LINES_EVERY_S) * 1e9);
    if (e != NULL && strcmp(e, "off") == 0)
        return SB_PROGRESS_OFF;
    if (e != NULL && strcmp(e, "lines") == 0)
        return SB_PROGRESS_LINES;
    if (e != NULL && strcmp(e, "tty") == 0)
        return SB_PROGRESS_TTY;
    if (isatty(STDERR_FILENO)) {
        const char *term = getenv("TERM");
        /* A dumb terminal cannot erase a line: plain lines there. */
        return term != NULL && strcmp(term, "dumb") == 0 ? SB_PROGRESS_LINES : SB_PROGRESS_TTY;
    }
    return SB_PROGRESS_LINES;
}

void sb_progress_begin(const char *what, const char *unit, uint64_t total)
{
    sb_progress_end(NULL);
    pthread_mutex_lock(&task.lock);
    task.style = pick_style(&task.every_ns);
    task.owner = pthread_self();
    snprintf(task.what, sizeof(task.what), "%s", what);
    snprintf(task.unit, sizeof(task.unit), "%s", unit);
    __atomic_store_n(&task.total, total, __ATOMIC_RELAXED);
    __atomic_store_n(&task.done, 0, __ATOMIC_RELAXED);
    task.watch = NULL;
    task.start_ns = sb_now_ns();
    task.next_ns = task.start_ns +
                   (task.style == SB_PROGRESS_TTY ? FIRST_TTY_NS : task.every_ns);
    task.shown = 0;
    task.nphases = task.nthreads = 0;
    task.nhist = 0;
    task.gen++;
    pthread_mutex_unlock(&task.lock);
    __atomic_store_n(&task.open, 1, __ATOMIC_RELEASE);
}

void sb_progress_expect(uint64_t n)
{
    if (__atomic_load_n(&task.open, __ATOMIC_RELAXED))
        __atomic_fetch_add(&task.total, n, __ATOMIC_RELAXED);
}

void sb_progress_add(uint64_t n)
{
    if (__atomic_load_n(&task.open, __ATOMIC_RELAXED))
        __atomic_fetch_add(&task.done, n, __ATOMIC_RELAXED);
}

void sb_progress_watch(const unsigned *count)
{
    task.watch = count;
}

static uint64_t done_now(void)
{
    if (task.watch != NULL)
        return __atomic_load_n(task.watch, __ATOMIC_ACQUIRE);
    return __atomic_load_n(&task.done, __ATOMIC_RELAXED);
}

/* Index of phase `name`, added when new; -1 when the table is full. */
static int phase_index(const char *name)
{
    for (unsigned i = 0; i < task.nphases; i++)
        if (strncmp(task.phases[i].name, name, sizeof(task.phases[i].name) - 1) == 0)
            return (int)i;
    if (task.nphases == MAX_PHASES)
        return -1;
    snprintf(task.phases[task.nphases].name, sizeof(task.phases[0].name), "%s", name);
    task.phases[task.nphases].ns = 0;
    return (int)task.nphases++;
}

void sb_progress_phase(const char *name)
{
    uint64_t now = sb_now_ns();

    if (!__atomic_load_n(&task.open, __ATOMIC_ACQUIRE))
        return;
    pthread_mutex_lock(&task.lock);
    if (cur_gen != task.gen) {   /* first call of this thread in this task */
        cur_gen = task.gen;
        cur_phase = -1;
        task.nthreads++;
    }
    if (cur_phase >= 0)
        task.phases[cur_phase].ns += now - cur_since;
    cur_phase = name != NULL ? phase_index(name) : -1;
    cur_since = now;
    pthread_mutex_unlock(&task.lock);
}

void sb_progress_thread_end(void)
{
    if (cur_phase >= 0 && cur_gen == task.gen)
        sb_progress_phase(NULL);
}

/* "7 s", "2 min 5 s", "1 h 3 min". */
static void fmt_secs(char *buf, size_t len, double s)
{
    long t = lround(s);

    if (t < 60)
        snprintf(buf, len, "%ld s", t);
    else if (t < 3600)
        snprintf(buf, len, "%ld min %ld s", t / 60, t % 60);
    else
        snprintf(buf, len, "%ld h %ld min", t / 3600, t / 60 % 60);
}

/* Units per second over the last RATE_WINDOW_NS (at least the last
 * printed line's span; from the start before any), and records now. */
static double recent_rate(uint64_t now, uint64_t done)
{
    uint64_t t0 = task.start_ns, d0 = 0;
    unsigned n = task.nhist < RATE_SAMPLES ? task.nhist : RATE_SAMPLES;

    /* The oldest sample inside the window; the newest when all are older
     * (plain lines farther apart than the window); the start when none. */
    for (unsigned k = 0; k < n; k++) {      /* oldest first */
        unsigned i = (task.nhist - n + k) % RATE_SAMPLES;
        if (now - task.hist_ns[i] <= RATE_WINDOW_NS || k == n - 1) {
            t0 = task.hist_ns[i];
            d0 = task.hist_done[i];
            break;
        }
    }
    task.hist_ns[task.nhist % RATE_SAMPLES] = now;
    task.hist_done[task.nhist % RATE_SAMPLES] = done;
    task.nhist++;
    return now > t0 && done >= d0 ? (double)(done - d0) / ((double)(now - t0) / 1e9) : 0;
}

/* "prepare: 1200000 of 2000000 rows (60%), 110000 rows/s, about 7 s left"
 * (the rate over the last seconds). */
static void format_line(char *buf, size_t len, uint64_t now)
{
    uint64_t done = done_now(), total = __atomic_load_n(&task.total, __ATOMIC_RELAXED);
    double el = (double)(now - task.start_ns) / 1e9, rate = recent_rate(now, done);
    char left[32];
    int n;

    if (done == 0 && total == 0) {
        fmt_secs(left, sizeof(left), el);
        snprintf(buf, len, "%s: running for %s", task.what, left);
        return;
    }
    if (total > 0 && done >= total) {   /* what follows the load: indexes */
        fmt_secs(left, sizeof(left), el);
        snprintf(buf, len, "%s: all %llu %s done; finishing, %s so far", task.what,
                 (unsigned long long)done, task.unit, left);
        return;
    }
    if (total > 0 && done <= total)
        n = snprintf(buf, len, "%s: %llu of %llu %s (%.0f%%), %.0f %s/s", task.what,
                     (unsigned long long)done, (unsigned long long)total, task.unit,
                     100.0 * (double)done / (double)total, rate, task.unit);
    else
        n = snprintf(buf, len, "%s: %llu %s, %.0f %s/s", task.what, (unsigned long long)done,
                     task.unit, rate, task.unit);
    if (n < 0 || (size_t)n >= len)
        return;
    if (total > done && rate > 0 && (double)(total - done) / rate < 0.5) {
        snprintf(buf + n, len - (size_t)n, ", under 1 s left");
    } else if (total > done && rate > 0) {
        fmt_secs(left, sizeof(left), (double)(total - done) / rate);
        snprintf(buf + n, len - (size_t)n, ", about %s left", left);
    }
}

void sb_progress_tick(void)
{
    uint64_t now;
    char line[256];

    if (!__atomic_load_n(&task.open, __ATOMIC_ACQUIRE) || task.style == SB_PROGRESS_OFF ||
        !pthread_equal(task.owner, pthread_self()))
        return;
    now = sb_now_ns();
    if (now < task.next_ns)
        return;
    if (task.style == SB_PROGRESS_LINES && done_now() == 0) {
        task.next_ns = now + task.every_ns; /* nothing counted: nothing to say */
        return;
    }
    format_line(line, sizeof(line), now);
    /* What the command printed so far comes first in a shared log. */
    fflush(stdout);
    if (task.style == SB_PROGRESS_TTY) {
        fprintf(stderr, "\r\033[K%s", line);
        __atomic_store_n(&task.shown, 1, __ATOMIC_RELEASE);
        task.next_ns = now + TTY_EVERY_NS;
    } else {
        fprintf(stderr, "%s\n", line);
        task.next_ns = now + task.every_ns;
    }
    fflush(stderr);
}

/* "create 0.10 s, load 16.00 s" into buf; returns the threads that timed. */
static unsigned format_phases(char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (unsigned i = 0; i < task.nphases && used < len; i++) {
        int n = snprintf(buf + used, len - used, "%s%s %.2f s", i ? ", " : "",
                         task.phases[i].name, (double)task.phases[i].ns / 1e9);
        if (n < 0)
            break;
        used += (size_t)n;
    }
    return task.nthreads;
}

void sb_progress_end(FILE *summary)
{
    uint64_t now = sb_now_ns(), done;
    double el;
    char phases[256], what[sizeof(task.what)];
    unsigned nthreads;

    if (!__atomic_exchange_n(&task.open, 0, __ATOMIC_ACQ_REL))
        return;
    sb_progress_thread_end();
    sb_progress_hide();
    done = done_now();
    el = (double)(now - task.start_ns) / 1e9;
    pthread_mutex_lock(&task.lock);
    nthreads = format_phases(phases, sizeof(phases));
    pthread_mutex_unlock(&task.lock);
    if (summary == NULL || (done == 0 && phases[0] == '\0'))
        return;
    /* "Prepare done ...": the task's name starts the sentence. */
    snprintf(what, sizeof(what), "%s", task.what);
    if (what[0] >= 'a' && what[0] <= 'z')
        what[0] = (char)(what[0] - 'a' + 'A');
    fprintf(summary, "%s done in %.2f s", what, el);
    if (phases[0] != '\0' && nthreads > 1)
        fprintf(summary, " (%s; summed over %u threads)", phases, nthreads);
    else if (phases[0] != '\0')
        fprintf(summary, " (%s)", phases);
    if (done > 0)
        fprintf(summary, ": %llu %s, %.0f %s/s", (unsigned long long)done, task.unit,
                el > 0 ? (double)done / el : 0, task.unit);
    fputc('\n', summary);
    fflush(summary);
}

void sb_progress_hide(void)
{
    if (__atomic_exchange_n(&task.shown, 0, __ATOMIC_ACQ_REL)) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
}

enum sb_progress_style sb_progress_style(void)
{
    return __atomic_load_n(&task.open, __ATOMIC_ACQUIRE) ? task.style : SB_PROGRESS_OFF;
}
