/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Transaction mixes; see sb_mix.h.
 */
#include <errno.h>
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
