/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SQL text scanning; see sb_sql_text.h. Kept apart from sb_driver.c so
 * that what counts as a placeholder or a write is tested without a
 * driver, a connection or a registry.
 */
#include "drivers/sb_sql_text.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

size_t sb_sql_next_placeholder(const char *sql, size_t len, size_t from)
{
    char quote = 0;

    for (size_t i = from; i < len; i++) {
        char c = sql[i];
        if (quote) {
            if (c == quote)
                quote = 0;
        } else if (c == '\'' || c == '"' || c == '`') {
            quote = c;
        } else if (c == '?') {
            return i;
        }
    }
    return len;
}

unsigned sb_sql_count_placeholders(const char *sql, size_t len)
{
    unsigned n = 0;

    for (size_t i = sb_sql_next_placeholder(sql, len, 0); i < len;
         i = sb_sql_next_placeholder(sql, len, i + 1))
        n++;
    return n;
}

enum sb_query_kind sb_sql_classify(const char *sql, size_t len)
{
    size_t i = 0, w = 0;
    char word[8];

    while (i < len && (isspace((unsigned char)sql[i]) || sql[i] == '('))
        i++;
    while (i < len && w < sizeof(word) - 1 && isalpha((unsigned char)sql[i]))
        word[w++] = (char)toupper((unsigned char)sql[i++]);
    word[w] = '\0';
    if (strcmp(word, "SELECT") == 0)
        return SB_QUERY_READ;
    if (strcmp(word, "INSERT") == 0 || strcmp(word, "UPDATE") == 0 ||
        strcmp(word, "DELETE") == 0 || strcmp(word, "REPLACE") == 0)
        return SB_QUERY_WRITE;
    return SB_QUERY_OTHER;
}

static bool ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '$' || (unsigned char)c >= 0x80;
}

/* The end of the number starting at sql[i] (a digit, or '.' and a digit). */
static size_t number_end(const char *sql, size_t len, size_t i)
{
    if (i + 1 < len && sql[i] == '0' && (sql[i + 1] == 'x' || sql[i + 1] == 'X')) {
        i += 2;
        while (i < len && isxdigit((unsigned char)sql[i]))
            i++;
        return i;
    }
    while (i < len && (isdigit((unsigned char)sql[i]) || sql[i] == '.'))
        i++;
    if (i < len && (sql[i] == 'e' || sql[i] == 'E')) {
        size_t j = i + 1;
        if (j < len && (sql[j] == '+' || sql[j] == '-'))
            j++;
        if (j < len && isdigit((unsigned char)sql[j])) {
            i = j;
            while (i < len && isdigit((unsigned char)sql[i]))
                i++;
        }
    }
    return i;
}

/* The end of the quoted span opened at sql[i] (past its closing quote;
 * a doubled quote continues it). */
static size_t quoted_end(const char *sql, size_t len, size_t i)
{
    char q = sql[i++];

    while (i < len) {
        if (sql[i] == q) {
            if (i + 1 < len && sql[i + 1] == q) {
                i += 2;
                continue;
            }
            return i + 1;
        }
        i++;
    }
    return len;
}

size_t sb_sql_normalise(const char *sql, size_t len, char *out, size_t cap)
{
    size_t n = 0, i = 0;
    bool space = false;

    /* c is evaluated once, whether or not it fits (it may be sql[i++]). */
#define PUT(c) do { char c_ = (c); if (n < cap) out[n] = c_; n++; } while (0)
    while (i < len) {
        char c = sql[i];
        bool prev_ident = n > 0 && n <= cap && ident_char(out[n - 1]) && !space;

        if (isspace((unsigned char)c)) {
            space = n > 0;
            i++;
            continue;
        }
        if (space) {
            PUT(' ');
            space = false;
            prev_ident = false;
        }
        if (c == '\'') {
            PUT('?');
            i = quoted_end(sql, len, i);
        } else if (c == '"' || c == '`') {
            size_t e = quoted_end(sql, len, i);
            for (; i < e; i++)
                PUT(sql[i]);
        } else if (!prev_ident && (isdigit((unsigned char)c) ||
                                   (c == '.' && i + 1 < len && isdigit((unsigned char)sql[i + 1])))) {
            PUT('?');
            i = number_end(sql, len, i);
        } else if (!prev_ident && c == '$' && i + 1 < len && isdigit((unsigned char)sql[i + 1])) {
            PUT('?');
            i = number_end(sql, len, i + 1);
        } else if (ident_char(c)) {
            while (i < len && ident_char(sql[i]))
                PUT(sql[i++]);
        } else {
            PUT(c);
            i++;
        }
    }
#undef PUT
    return n;
}
