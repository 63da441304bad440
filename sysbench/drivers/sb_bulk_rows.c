/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading bulk insert text; see sb_bulk_rows.h.
 */
#include "drivers/sb_bulk_rows.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

void sb_bulk_cursor_init(struct sb_bulk_cursor *c, const char *s, size_t len, bool backslash)
{
    c->s = s;
    c->len = len;
    c->pos = 0;
    c->backslash = backslash;
    c->tuples = 0;
    c->why = NULL;
    c->at = 0;
}

static bool is_space(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v';
}

static void skip_space(struct sb_bulk_cursor *c)
{
    while (c->pos < c->len && is_space(c->s[c->pos]))
        c->pos++;
}

static int fail(struct sb_bulk_cursor *c, const char *why, size_t at)
{
    c->why = why;
    c->at = at;
    return -1;
}

/* Skips the quoted text opening at c->pos (quote character q); sets
 * *escaped when it holds a doubled quote or a backslash escape. Returns 0,
 * or -1 when it does not end. */
static int skip_quoted(struct sb_bulk_cursor *c, char q, bool *escaped)
{
    size_t start = c->pos;
    bool escapes = c->backslash && q != '`';

    c->pos++;
    /* memchr to the next quote (and backslash): the long random strings
     * of a load are crossed at memchr's speed, not a byte at a time. */
    while (c->pos < c->len) {
        const char *p = c->s + c->pos, *e = c->s + c->len;
        const char *hit = memchr(p, q, (size_t)(e - p));
        if (escapes) {
            const char *bs = memchr(p, '\\', (size_t)((hit != NULL ? hit : e) - p));
            if (bs != NULL) {
                *escaped = true;
                c->pos = (size_t)(bs - c->s) + 2;
                continue;
            }
        }
        if (hit == NULL)
            break;
        c->pos = (size_t)(hit - c->s);
        if (c->pos + 1 < c->len && c->s[c->pos + 1] == q) {
            *escaped = true;
            c->pos += 2;
            continue;
        }
        c->pos++;
        return 0;
    }
    return fail(c, "a quoted value does not end", start);
}

/* An integer literal that stores the same value whether the server reads
 * it as a number or as text: no sign but '-', no leading zero, no "-0". */
static bool plain_integer(const char *s, size_t len)
{
    size_t i = 0;

    if (len > 0 && s[0] == '-')
        i = 1;
    if (i == len || !isdigit((unsigned char)s[i]))
        return false;
    if (s[i] == '0')
        return len == 1;
    for (; i < len; i++)
        if (!isdigit((unsigned char)s[i]))
            return false;
    return true;
}

/* Classifies the value s[start, end) (spaces trimmed); *single_string: it
 * is one string literal from start to end. */
static void classify(const struct sb_bulk_cursor *c, size_t start, size_t end,
                     bool single_string, bool escaped, struct sb_bulk_field *f)
{
    const char *v = c->s + start;
    size_t n = end - start;

    f->escaped = 0;
    if (single_string) {
        f->kind = SB_BULK_STR;
        f->off = (uint32_t)(start + 1);
        f->len = (uint32_t)(n - 2);
        f->escaped = escaped;
        return;
    }
    f->off = (uint32_t)start;
    f->len = (uint32_t)n;
    if (n == 4 && strncasecmp(v, "NULL", 4) == 0)
        f->kind = SB_BULK_NULL;
    else if (plain_integer(v, n))
        f->kind = SB_BULK_INT;
    else
        f->kind = SB_BULK_OTHER;
}

/* Reads one value up to the ',' or ')' that ends it at depth 0; leaves
 * c->pos on that character. */
static int read_value(struct sb_bulk_cursor *c, struct sb_bulk_field *f)
{
    size_t start, last_end = 0;
    unsigned tokens = 0, strings = 0, depth = 0;
    bool escaped = false;

    skip_space(c);
    start = c->pos;
    while (c->pos < c->len) {
        char ch = c->s[c->pos];
        if (depth == 0 && (ch == ',' || ch == ')'))
            break;
        if (is_space(ch)) {
            c->pos++;
            continue;
        }
        /* Only "exactly one string literal" matters, so every other
         * character counts as a token of its own. */
        tokens++;
        if (ch == '\'' || ch == '"' || ch == '`') {
            if (skip_quoted(c, ch, &escaped) != 0)
                return -1;
            strings += ch == '\'';
        } else {
            depth += ch == '(';
            depth -= ch == ')';
            c->pos++;
        }
        last_end = c->pos;
    }
    if (c->pos >= c->len)
        return fail(c, depth > 0 ? "a parenthesis is not closed" : "the row has no closing ')'",
                    start);
    if (tokens == 0)
        return fail(c, "a value is empty", start);
    classify(c, start, last_end, tokens == 1 && strings == 1, escaped, f);
    return 0;
}

int sb_bulk_next_tuple(struct sb_bulk_cursor *c, struct sb_bulk_field *f, unsigned maxf,
                       unsigned *nf)
{
    struct sb_bulk_field scratch;
    unsigned n = 0;

    skip_space(c);
    if (c->tuples > 0) {
        /* After a tuple: the end, or a comma and the next tuple. */
        if (c->pos == c->len)
            return 0;
        if (c->s[c->pos] != ',')
            return fail(c, "text follows the row's closing ')'", c->pos);
        c->pos++;
        skip_space(c);
    }
    if (c->pos == c->len)
        return fail(c, c->tuples == 0 ? "the row is empty" : "a row is empty", c->pos);
    if (c->s[c->pos] != '(')
        return fail(c, "a row must start with '('", c->pos);
    c->pos++;
    c->tuples++;
    skip_space(c);
    if (c->pos < c->len && c->s[c->pos] == ')') {
        c->pos++;          /* "()": every column's default */
        *nf = 0;
        return 1;
    }
    for (;;) {
        if (read_value(c, n < maxf ? &f[n] : &scratch) != 0)
            return -1;
        n++;
        if (c->s[c->pos] == ')') {
            c->pos++;
            break;
        }
        c->pos++;          /* the ',' */
    }
    *nf = n;
    return 1;
}

/* The character a MySQL backslash escape stands for, or -1 when the
 * backslash is kept (\% and \_, for LIKE patterns). */
static int mysql_escape(char ch)
{
    switch (ch) {
    case '0': return '\0';
    case 'b': return '\b';
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    case 'Z': return 26;
    case '%':
    case '_': return -1;
    default: return (unsigned char)ch;
    }
}

/* Calls put(ch) for every character of string field f's value. */
#define FOR_EACH_CHAR(s, f, backslash, put)                                      \
    do {                                                                         \
        const char *p_ = (s) + (f)->off, *e_ = p_ + (f)->len;                    \
        while (p_ < e_) {                                                        \
            char ch_ = *p_++;                                                    \
            if ((f)->escaped && ch_ == '\'' && p_ < e_ && *p_ == '\'') {         \
                p_++;                                                            \
            } else if ((f)->escaped && (backslash) && ch_ == '\\' && p_ < e_) {  \
                int x_ = mysql_escape(*p_);                                      \
                if (x_ < 0) {                                                    \
                    put('\\');                                                   \
                    ch_ = *p_++;                                                 \
                } else {                                                         \
                    ch_ = (char)x_;                                              \
                    p_++;                                                        \
                }                                                                \
            }                                                                    \
            put(ch_);                                                            \
        }                                                                        \
    } while (0)

size_t sb_bulk_unquote(const char *s, const struct sb_bulk_field *f, bool backslash, char *dst)
{
    char *d = dst;

    if (!f->escaped) {
        memcpy(dst, s + f->off, f->len);
        return f->len;
    }
#define PUT_RAW(ch) (*d++ = (ch))
    FOR_EACH_CHAR(s, f, backslash, PUT_RAW);
#undef PUT_RAW
    return (size_t)(d - dst);
}

/* One character in tab-separated text. */
#define PUT_TSV(ch)                                                              \
    do {                                                                         \
        char c_ = (ch);                                                          \
        switch (c_) {                                                            \
        case '\\': *d++ = '\\'; *d++ = '\\'; break;                              \
        case '\t': *d++ = '\\'; *d++ = 't'; break;                               \
        case '\n': *d++ = '\\'; *d++ = 'n'; break;                               \
        case '\r': *d++ = '\\'; *d++ = 'r'; break;                               \
        case '\0': *d++ = '\\'; *d++ = '0'; break;                               \
        default: *d++ = c_;                                                      \
        }                                                                        \
    } while (0)

/* The characters tab-separated text escapes. */
static const bool tsv_special[256] = {
    ['\\'] = true, ['\t'] = true, ['\n'] = true, ['\r'] = true, ['\0'] = true,
};

size_t sb_bulk_tsv_value(const char *s, const struct sb_bulk_field *f, bool backslash,
                         char *dst)
{
    char *d = dst;

    switch (f->kind) {
    case SB_BULK_NULL:
        memcpy(dst, "\\N", 2);
        return 2;
    case SB_BULK_INT:
        memcpy(dst, s + f->off, f->len);
        return f->len;
    default:
        break;
    }
    if (!f->escaped) {
        const char *p = s + f->off, *e = p + f->len;
        /* Most values need no escape: copy runs between the characters
         * that do (found by one table lookup a byte). */
        while (p < e) {
            const char *q = p;
            while (q < e && !tsv_special[(unsigned char)*q])
                q++;
            memcpy(d, p, (size_t)(q - p));
            d += q - p;
            if (q < e)
                PUT_TSV(*q++);
            p = q;
        }
        return (size_t)(d - dst);
    }
    FOR_EACH_CHAR(s, f, backslash, PUT_TSV);
    return (size_t)(d - dst);
}

/* ------------------------------------------------------------ the head */

/* Matches keyword kw (upper case) at *i, followed by a non-word
 * character; advances past it and the spaces after. */
static bool keyword(const char *s, size_t len, size_t *i, const char *kw)
{
    size_t n = strlen(kw);

    if (*i + n > len || strncasecmp(s + *i, kw, n) != 0)
        return false;
    if (*i + n < len && (isalnum((unsigned char)s[*i + n]) || s[*i + n] == '_'))
        return false;
    *i += n;
    while (*i < len && is_space(s[*i]))
        (*i)++;
    return true;
}

/* Reads a name (plain words joined by '.', or quoted parts) at *i into
 * out; advances past it and the spaces after. */
static bool name(const char *s, size_t len, size_t *i, char *out, size_t cap)
{
    size_t start = *i;

    for (;;) {
        if (*i < len && (s[*i] == '`' || s[*i] == '"')) {
            char q = s[*i];
            (*i)++;
            while (*i < len && s[*i] != q)
                (*i)++;
            if (*i == len)
                return false;
            (*i)++;
        } else {
            size_t w = *i;
            while (*i < len && (isalnum((unsigned char)s[*i]) || s[*i] == '_' || s[*i] == '$'))
                (*i)++;
            if (*i == w)
                return false;
        }
        if (*i < len && s[*i] == '.') {
            (*i)++;
            continue;
        }
        break;
    }
    if (*i - start >= cap)
        return false;
    memcpy(out, s + start, *i - start);
    out[*i - start] = '\0';
    while (*i < len && is_space(s[*i]))
        (*i)++;
    return true;
}

int sb_bulk_parse_head(const char *s, size_t len, struct sb_bulk_target *t)
{
    size_t i = 0;

    memset(t, 0, sizeof(*t));
    while (i < len && is_space(s[i]))
        i++;
    if (!keyword(s, len, &i, "INSERT") || !keyword(s, len, &i, "INTO") ||
        !name(s, len, &i, t->table, sizeof(t->table)))
        return -1;
    if (i < len && s[i] == '(') {
        size_t start = i, used;
        i++;
        while (i < len && is_space(s[i]))
            i++;
        for (;;) {
            char col[SB_BULK_MAX_NAME];
            if (!name(s, len, &i, col, sizeof(col)))
                return -1;
            t->ncols++;
            if (i < len && s[i] == ',') {
                i++;
                while (i < len && is_space(s[i]))
                    i++;
                continue;
            }
            if (i < len && s[i] == ')')
                break;
            return -1;
        }
        i++;
        used = i - start;
        if (used >= sizeof(t->cols))
            return -1;
        memcpy(t->cols, s + start, used);
        t->cols[used] = '\0';
        while (i < len && is_space(s[i]))
            i++;
    }
    if (!keyword(s, len, &i, "VALUES"))
        return -1;
    return i == len ? 0 : -1;
}
