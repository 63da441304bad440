/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Integers written in decimal without printf: the per-transaction log and
 * prepare's generated rows write millions of them a second, and printf's
 * format parsing was most of that cost.
 */
#ifndef SB_DECIMAL_H
#define SB_DECIMAL_H

#include <stddef.h>
#include <stdint.h>

/* Writes v in decimal at dst (room for 20 bytes, no terminator); returns
 * the number of bytes written. */
static inline size_t sb_decimal_u64(char *dst, uint64_t v)
{
    char tmp[20];
    size_t n = 0, at = 0;

    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    while (n > 0)
        dst[at++] = tmp[--n];
    return at;
}

/* As sb_decimal_u64 for a signed value (room for 20 bytes: the sign and
 * 19 digits at most). */
static inline size_t sb_decimal_i64(char *dst, int64_t v)
{
    if (v >= 0)
        return sb_decimal_u64(dst, (uint64_t)v);
    dst[0] = '-';
    return 1 + sb_decimal_u64(dst + 1, 0 - (uint64_t)v);
}

#endif /* SB_DECIMAL_H */
