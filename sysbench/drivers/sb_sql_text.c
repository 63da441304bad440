/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SQL text scanning; see sb_sql_text.h. Kept apart from sb_driver.c so
 * that what counts as a placeholder or a write is tested without a
 * driver, a connection or a registry.
 */
#include "drivers/sb_sql_text.h"

#include <ctype.h>
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
