/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Transaction mixes; see sb_mix.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pure/sb_mix.h"

bool sb_mix_is_member(const char *word)
{
    return strchr(word, '@') != NULL;
}

int sb_mix_add(struct sb_mix *m, const char *word, char *err, size_t errlen)
{
    const char *at = strrchr(word, '@');
    const char *w = at + 1;
    char *end;
    unsigned long v;
    size_t len = (size_t)(at - word);

    if (len == 0) {
        snprintf(err, errlen, "mix member '%.200s' names no script before '@'", word);
        return -1;
    }
    if (len >= sizeof(m->t[0].name)) {
        snprintf(err, errlen, "mix member '%.200s': script name too long", word);
        return -1;
    }
    errno = 0;
    v = strtoul(w, &end, 10);
    /* Digits only: strtoul would take "-1", " 5" or "+5". */
    if (*w < '0' || *w > '9' || *end != '\0' || errno != 0 || v > 1000000000UL) {
        snprintf(err, errlen, "weight of '%.*s' in the mix must be a positive integer, "
                 "not '%.40s'", (int)len, word, w);
        return -1;
    }
    if (v == 0) {
        snprintf(err, errlen, "weight of '%.*s' in the mix is 0: every script of a mix "
                 "needs a positive weight", (int)len, word);
        return -1;
    }
    if (m->n >= SB_MIX_MAX) {
        snprintf(err, errlen, "too many scripts in the mix: at most %d", SB_MIX_MAX);
        return -1;
    }
    memcpy(m->t[m->n].name, word, len);
    m->t[m->n].name[len] = '\0';
    m->t[m->n].weight = (unsigned)v;
    m->cum[m->n] = (m->n > 0 ? m->cum[m->n - 1] : 0) + v;
    m->n++;
    return 0;
}

/* The type named by the len bytes at name, or -1. */
static int find_type(const struct sb_mix *m, const char *name, size_t len)
{
    for (unsigned i = 0; i < m->n; i++)
        if (strlen(m->t[i].name) == len && memcmp(m->t[i].name, name, len) == 0)
            return (int)i;
    return -1;
}

/* One "NAME:RATE" item (len bytes at item) into rate[]. */
static int rate_item(const struct sb_mix *m, const char *item, size_t len, double *rate,
                     char *err, size_t errlen)
{
    char num[64], *end;
    const char *colon = memchr(item, ':', len);
    size_t nlen = colon != NULL ? (size_t)(colon - item) : len;
    int k = find_type(m, item, nlen);
    double v;

    if (colon == NULL || nlen == 0) {
        snprintf(err, errlen, "--tx-rate-per-type: '%.*s' is not NAME:RATE", (int)len, item);
        return -1;
    }
    if (k < 0) {
        snprintf(err, errlen, "--tx-rate-per-type: '%.*s' is not a script of the mix",
                 (int)nlen, item);
        return -1;
    }
    if (rate[k] != 0) {
        snprintf(err, errlen, "--tx-rate-per-type: '%.*s' is given twice", (int)nlen, item);
        return -1;
    }
    snprintf(num, sizeof(num), "%.*s", (int)(len - nlen - 1), colon + 1);
    v = strtod(num, &end);
    if (num[0] == '\0' || *end != '\0' || !(v >= 0.001) || v > 1e9) {
        snprintf(err, errlen, "--tx-rate-per-type: the rate of '%.*s' must be a positive number "
                 "of transactions per second (at least 0.001), not '%s'", (int)nlen, item, num);
        return -1;
    }
    rate[k] = v;
    return 0;
}

/* Checks what the rates apply to: a mix with a whole rate. */
static int rates_apply(const struct sb_mix *m, double total, char *err, size_t errlen)
{
    if (m->n == 0) {
        snprintf(err, errlen, "--tx-rate-per-type needs a transaction mix (SCRIPT@WEIGHT ...)");
        return -1;
    }
    if (!(total > 0)) {
        snprintf(err, errlen, "--tx-rate-per-type needs --tx-rate (or --rate): the mix's whole "
                 "rate, which its rates sum to");
        return -1;
    }
    return 0;
}

int sb_mix_set_rates(struct sb_mix *m, const char *spec, double total, const char *total_opt,
                     char *err, size_t errlen)
{
    double rate[SB_MIX_MAX] = {0}, sum = 0;
    uint64_t cum = 0;
    const char *p = spec;

    if (rates_apply(m, total, err, errlen) != 0)
        return -1;
    while (*p != '\0') {
        size_t len = strcspn(p, ",");
        if (rate_item(m, p, len, rate, err, errlen) != 0)
            return -1;
        p += len;
        if (*p == ',')
            p++;
    }
    for (unsigned i = 0; i < m->n; i++) {
        if (rate[i] == 0) {
            snprintf(err, errlen, "--tx-rate-per-type gives no rate for '%s': every script of "
                     "the mix needs one", m->t[i].name);
            return -1;
        }
        sum += rate[i];
    }
    /* Rates are written with a few decimals: a sum off by their rounding
     * only is the same rate. */
    if (fabs(sum - total) > 1e-6 * total + 1e-6) {
        snprintf(err, errlen, "--tx-rate-per-type sums to %g tx/s, but %s is %g", sum, total_opt,
                 total);
        return -1;
    }
    for (unsigned i = 0; i < m->n; i++) {
        m->rate[i] = rate[i];
        cum += (uint64_t)(rate[i] * 1000 + 0.5);
        m->cum[i] = cum;
    }
    m->rated = true;
    return 0;
}

unsigned sb_mix_pick(const struct sb_mix *m, struct sb_rand *r)
{
    /* A uniform draw below the total; the first cumulative weight above
     * it. A linear scan: a mix has a few types. */
    uint64_t x = (uint64_t)sb_rand_next_uniform(r, 0, (int64_t)m->cum[m->n - 1] - 1);
    unsigned i = 0;

    while (i + 1 < m->n && x >= m->cum[i])
        i++;
    return i;
}

void sb_mix_free(struct sb_mix *m)
{
    for (unsigned i = 0; i < m->n; i++) {
        free(m->t[i].path);
        m->t[i].path = NULL;
    }
}

/* Appends s to buf as a Lua string literal (decimal escapes for anything
 * but printable ASCII, so no byte of a path can end the literal). */
static size_t put_quoted(char *buf, size_t at, const char *s)
{
    buf[at++] = '"';
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\')
            buf[at++] = (char)*p;
        else
            at += (size_t)sprintf(buf + at, "\\%03u", *p);
    }
    buf[at++] = '"';
    return at;
}

char *sb_mix_chunk(const struct sb_mix *m)
{
    size_t cap = 128;
    size_t at;
    char *buf;

    for (unsigned i = 0; i < m->n; i++)
        cap += 4 * (strlen(m->t[i].name) + strlen(m->t[i].path ? m->t[i].path : "")) + 16;
    buf = malloc(cap);
    if (buf == NULL)
        return NULL;
    /* Not a tail call: load() reads this chunk's globals (getfenv). */
    at = (size_t)sprintf(buf, "require(\"sysbench.mix\").load({");
    for (unsigned i = 0; i < m->n; i++) {
        buf[at++] = '{';
        at = put_quoted(buf, at, m->t[i].name);
        buf[at++] = ',';
        at = put_quoted(buf, at, m->t[i].path ? m->t[i].path : "");
        buf[at++] = '}';
        buf[at++] = ',';
    }
    at += (size_t)sprintf(buf + at, "});\n");
    return buf;
}

void sb_mix_label(const struct sb_mix *m, char *buf, size_t len)
{
    size_t at = 0;

    buf[0] = '\0';
    for (unsigned i = 0; i < m->n && at < len; i++) {
        int k = snprintf(buf + at, len - at, "%s%s@%u", i > 0 ? " " : "", m->t[i].name,
                         m->t[i].weight);
        if (k < 0)
            break;
        at += (size_t)k;
    }
}
