/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ledger of a command's items; see sb_ledger.h.
 */
#include "core/sb_ledger.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sb_clock.h"
#include "core/sb_stop.h"

#define CHUNK 256
#define MAX_CHUNKS 256           /* 65,536 items */
#define SHOWN 20                 /* items a summary names of each kind */

struct item {
    char name[64];
    unsigned parts;
    unsigned done;               /* atomic */
    int state;                   /* atomic: enum sb_ledger_state */
};

/* Chunks are allocated as items are declared and never move, so a reader
 * needs no lock; the count is published after the item is filled. */
static struct {
    pthread_mutex_t lock;        /* declaring */
    struct item *chunk[MAX_CHUNKS];
    int n;                       /* atomic */
    int failed;                  /* atomic */
    char noun[24];               /* what the items are, from the first */
} ledger = {.lock = PTHREAD_MUTEX_INITIALIZER};

static struct item *at(int i)
{
    return &ledger.chunk[i / CHUNK][i % CHUNK];
}

void sb_ledger_begin(void)
{
    pthread_mutex_lock(&ledger.lock);
    for (int c = 0; c < MAX_CHUNKS && ledger.chunk[c] != NULL; c++) {
        free(ledger.chunk[c]);
        ledger.chunk[c] = NULL;
    }
    __atomic_store_n(&ledger.n, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&ledger.failed, 0, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&ledger.lock);
}

int sb_ledger_item(const char *name, unsigned parts, const char *noun)
{
    int n, i;
    struct item *it;

    pthread_mutex_lock(&ledger.lock);
    n = __atomic_load_n(&ledger.n, __ATOMIC_RELAXED);
    for (i = 0; i < n; i++)
        if (strncmp(at(i)->name, name, sizeof(at(i)->name) - 1) == 0) {
            pthread_mutex_unlock(&ledger.lock);
            return i;
        }
    if (n == CHUNK * MAX_CHUNKS ||
        (n % CHUNK == 0 && (ledger.chunk[n / CHUNK] = calloc(CHUNK, sizeof(struct item))) == NULL)) {
        pthread_mutex_unlock(&ledger.lock);
        return -1;
    }
    if (n == 0)
        snprintf(ledger.noun, sizeof(ledger.noun), "%s", noun != NULL ? noun : "items");
    it = at(n);
    snprintf(it->name, sizeof(it->name), "%s", name);
    it->parts = parts > 0 ? parts : 1;
    it->done = 0;
    it->state = SB_LEDGER_DECLARED;
    __atomic_store_n(&ledger.n, n + 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&ledger.lock);
    return n;
}

static bool valid(int i)
{
    return i >= 0 && i < __atomic_load_n(&ledger.n, __ATOMIC_ACQUIRE);
}

void sb_ledger_set(int i, enum sb_ledger_state s)
{
    int cur;

    if (!valid(i))
        return;
    cur = __atomic_load_n(&at(i)->state, __ATOMIC_RELAXED);
    while (cur < (int)s &&
           !__atomic_compare_exchange_n(&at(i)->state, &cur, (int)s, false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED))
        ;
}

unsigned sb_ledger_part_done(int i)
{
    unsigned done;

    if (!valid(i))
        return 0;
    done = __atomic_add_fetch(&at(i)->done, 1, __ATOMIC_ACQ_REL);
    if (done >= at(i)->parts)
        sb_ledger_set(i, SB_LEDGER_LOADED);
    return done;
}

bool sb_ledger_wait(int i, enum sb_ledger_state s)
{
    if (!valid(i))
        return !sb_ledger_failed();
    while (__atomic_load_n(&at(i)->state, __ATOMIC_ACQUIRE) < (int)s) {
        if (sb_ledger_failed() || sb_stopping())
            return false;
        sb_sleep_until_ns(sb_now_ns() + 5 * SB_NS_PER_MS);
    }
    return true;
}

void sb_ledger_fail(void)
{
    __atomic_store_n(&ledger.failed, 1, __ATOMIC_RELEASE);
}

bool sb_ledger_failed(void)
{
    return __atomic_load_n(&ledger.failed, __ATOMIC_ACQUIRE) != 0;
}

static const char *state_word(int s)
{
    switch (s) {
    case SB_LEDGER_DECLARED: return "not created";
    case SB_LEDGER_CREATED: return "empty";
    case SB_LEDGER_LOADING: return "partly loaded";
    default: return "loaded, not finished";
    }
}

/* Appends text to buf at *used, keeping room for the terminator. */
static void put(char *buf, size_t len, size_t *used, const char *text)
{
    int w;

    if (*used >= len)
        return;
    w = snprintf(buf + *used, len - *used, "%s", text);
    *used += w > 0 ? (size_t)w : 0;
    if (*used >= len)
        *used = len - 1;
}

bool sb_ledger_summary(char *buf, size_t len)
{
    int n = __atomic_load_n(&ledger.n, __ATOMIC_ACQUIRE), complete = 0, shown = 0;
    size_t used = 0;
    char part[128];

    buf[0] = '\0';
    for (int i = 0; i < n; i++)
        complete += __atomic_load_n(&at(i)->state, __ATOMIC_ACQUIRE) == SB_LEDGER_COMPLETE;
    if (n == 0 || complete == n)
        return false;
    snprintf(part, sizeof(part), "%d of %d %s %s complete", complete, n, ledger.noun,
             complete == 1 ? "is" : "are");
    put(buf, len, &used, part);
    for (int i = 0, k = 0; i < n && complete > 0; i++) {
        if (__atomic_load_n(&at(i)->state, __ATOMIC_ACQUIRE) != SB_LEDGER_COMPLETE)
            continue;
        if (k++ == SHOWN) {
            put(buf, len, &used, ", ...");
            break;
        }
        put(buf, len, &used, k == 1 ? " (" : ", ");
        put(buf, len, &used, at(i)->name);
    }
    if (complete > 0)
        put(buf, len, &used, ")");
    put(buf, len, &used, "; not complete: ");
    for (int i = 0; i < n; i++) {
        int s = __atomic_load_n(&at(i)->state, __ATOMIC_ACQUIRE);
        if (s == SB_LEDGER_COMPLETE)
            continue;
        if (shown++ == SHOWN) {
            snprintf(part, sizeof(part), ", and %d more", n - complete - SHOWN);
            put(buf, len, &used, part);
            break;
        }
        snprintf(part, sizeof(part), "%s%s (%s)", shown > 1 ? ", " : "", at(i)->name,
                 state_word(s));
        put(buf, len, &used, part);
    }
    return true;
}
