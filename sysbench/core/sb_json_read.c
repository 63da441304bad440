/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * JSON reader: a recursive-descent parser into a tree; see sb_json_read.h.
 *
 * The grammar functions each parse one production at the cursor and
 * return 0, or -1 after recording the first error (later errors are
 * consequences of the first and would only confuse the message).
 */
#include "config.h"

#include "core/sb_json_read.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct parser {
    const char *s;          /* the document */
    size_t n;               /* its length */
    size_t pos;             /* the cursor */
    int depth;              /* open arrays and objects */
    size_t used, budget;    /* bytes the tree takes, and may take */
    char *err;
    size_t errlen;
    bool failed;
};

/* What malloc adds to each allocation (its header, rounding), counted
 * against the budget so that many small allocations are not free. */
#define ALLOC_OVERHEAD 16

#define STR_(x) #x
#define STR(x) STR_(x)
/* The message of a document over its budget (sb_jv_parse_file knows it). */
#define TOO_LARGE "its tree would take more than " STR(SB_JV_MAX_EXPANSION) \
                  " times its size in memory"

/* A string's length is stored in the size_t before its text. */
#define STR_PREFIX sizeof(size_t)

static int parse_value(struct parser *p, struct sb_jv *out);

/* Records an error at the cursor, with its line and column (1-based, the
 * column counted in bytes), so that a user can find the place in an
 * editor. */
static int fail(struct parser *p, const char *what)
{
    size_t line = 1, col = 1;

    if (p->failed)
        return -1;
    p->failed = true;
    for (size_t i = 0; i < p->pos && i < p->n; i++) {
        if (p->s[i] == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    if (p->pos >= p->n)
        snprintf(p->err, p->errlen, "%s at the end of the document (line %zu)", what, line);
    else
        snprintf(p->err, p->errlen, "%s at line %zu, column %zu", what, line, col);
    return -1;
}

/* Counts bytes (one allocation's worth) against the budget. */
static int charge(struct parser *p, size_t bytes)
{
    p->used += bytes + ALLOC_OVERHEAD;
    if (p->used <= p->budget)
        return 0;
    return fail(p, TOO_LARGE);
}

static void skip_ws(struct parser *p)
{
    while (p->pos < p->n) {
        char c = p->s[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            break;
        p->pos++;
    }
}

static int peek(const struct parser *p)
{
    return p->pos < p->n ? (unsigned char)p->s[p->pos] : -1;
}

/* Matches a literal word (true, false, null). */
static int literal(struct parser *p, const char *word)
{
    size_t len = strlen(word);

    if (p->n - p->pos < len || memcmp(p->s + p->pos, word, len) != 0)
        return fail(p, "invalid literal");
    p->pos += len;
    return 0;
}

static bool is_digit(int c)
{
    return c >= '0' && c <= '9';
}

/* number = [ "-" ] int [ frac ] [ exp ]; the grammar is checked here and
 * the value converted by strtod, which reads exactly what was checked. */
static int parse_number(struct parser *p, struct sb_jv *out)
{
    size_t start = p->pos;
    char buf[128];
    size_t len;

    if (peek(p) == '-')
        p->pos++;
    if (peek(p) == '0') {
        p->pos++;
    } else if (is_digit(peek(p))) {
        while (is_digit(peek(p)))
            p->pos++;
    } else {
        return fail(p, "invalid number");
    }
    if (peek(p) == '.') {
        p->pos++;
        if (!is_digit(peek(p)))
            return fail(p, "invalid number (digit expected after '.')");
        while (is_digit(peek(p)))
            p->pos++;
    }
    if (peek(p) == 'e' || peek(p) == 'E') {
        p->pos++;
        if (peek(p) == '+' || peek(p) == '-')
            p->pos++;
        if (!is_digit(peek(p)))
            return fail(p, "invalid number (digit expected in the exponent)");
        while (is_digit(peek(p)))
            p->pos++;
    }
    len = p->pos - start;
    if (len >= sizeof(buf)) {
        p->pos = start;
        return fail(p, "number too long");
    }
    memcpy(buf, p->s + start, len);
    buf[len] = '\0';
    out->type = SB_JV_NUMBER;
    out->number = strtod(buf, NULL);
    return 0;
}

/* A growing byte buffer for string contents. */
struct strbuf {
    char *b;
    size_t len, cap;
};

static int sb_put(struct strbuf *sb, const char *bytes, size_t n)
{
    if (sb->len + n + 1 > sb->cap) {
        size_t cap = sb->cap ? sb->cap : 32;
        char *nb;
        while (cap < sb->len + n + 1)
            cap *= 2;
        nb = realloc(sb->b, cap);
        if (nb == NULL)
            return -1;
        sb->b = nb;
        sb->cap = cap;
    }
    memcpy(sb->b + sb->len, bytes, n);
    sb->len += n;
    sb->b[sb->len] = '\0';
    return 0;
}

static int hex4(struct parser *p, unsigned *out)
{
    unsigned v = 0;

    if (p->n - p->pos < 4)
        return fail(p, "truncated \\u escape");
    for (int i = 0; i < 4; i++) {
        char c = p->s[p->pos + i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return fail(p, "invalid \\u escape");
    }
    p->pos += 4;
    *out = v;
    return 0;
}

static size_t utf8_encode(unsigned cp, char *o)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* A \u escape (the cursor is after the 'u'), with a following low
 * surrogate when the first is a high one: JSON spells characters beyond
 * the Basic Multilingual Plane as two escapes. */
static int unicode_escape(struct parser *p, struct strbuf *sb)
{
    unsigned cp, lo;
    char utf8[4];

    if (hex4(p, &cp) != 0)
        return -1;
    if (cp >= 0xDC00 && cp <= 0xDFFF)
        return fail(p, "lone low surrogate in \\u escape");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        if (p->n - p->pos < 2 || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u')
            return fail(p, "high surrogate not followed by a low one");
        p->pos += 2;
        if (hex4(p, &lo) != 0)
            return -1;
        if (lo < 0xDC00 || lo > 0xDFFF)
            return fail(p, "high surrogate not followed by a low one");
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
    }
    return sb_put(sb, utf8, utf8_encode(cp, utf8));
}

/* string = '"' chars '"'; the cursor is on the opening quote. The result
 * is always NUL-terminated, also when empty, with pre bytes before the
 * text (*out points to the allocation, *outlen is the text's length). */
static int parse_string_raw(struct parser *p, size_t pre, char **out, size_t *outlen)
{
    struct strbuf sb = {NULL, 0, 0};
    char *exact;

    p->pos++;
    if (sb_put(&sb, "\0\0\0\0\0\0\0\0", pre) != 0)
        goto oom;
    for (;;) {
        size_t run = p->pos;
        int c;

        /* Copy runs of plain bytes at once. */
        while (run < p->n && p->s[run] != '"' && p->s[run] != '\\' &&
               (unsigned char)p->s[run] >= 0x20)
            run++;
        if (run > p->pos && sb_put(&sb, p->s + p->pos, run - p->pos) != 0)
            goto oom;
        p->pos = run;
        c = peek(p);
        if (c == -1) {
            fail(p, "unterminated string");
            goto bad;
        }
        if (c == '"') {
            p->pos++;
            break;
        }
        if (c < 0x20) {
            fail(p, "control character in string");
            goto bad;
        }
        /* A backslash escape. */
        p->pos++;
        c = peek(p);
        p->pos++;
        {
            const char *rep = NULL;
            switch (c) {
            case '"': rep = "\""; break;
            case '\\': rep = "\\"; break;
            case '/': rep = "/"; break;
            case 'b': rep = "\b"; break;
            case 'f': rep = "\f"; break;
            case 'n': rep = "\n"; break;
            case 'r': rep = "\r"; break;
            case 't': rep = "\t"; break;
            case 'u':
                if (unicode_escape(p, &sb) != 0) {
                    if (!p->failed)
                        goto oom;
                    goto bad;
                }
                continue;
            default:
                p->pos--;
                fail(p, "invalid escape in string");
                goto bad;
            }
            if (sb_put(&sb, rep, 1) != 0)
                goto oom;
        }
    }
    /* Exactly the size it needs: a document of short strings must not
     * take the buffer's 32 bytes and doubling slack for each. */
    exact = realloc(sb.b, sb.len + 1);
    if (exact != NULL)
        sb.b = exact;
    if (charge(p, sb.len + 1) != 0)
        goto bad;
    *out = sb.b;
    *outlen = sb.len - pre;
    return 0;
oom:
    fail(p, "out of memory");
bad:
    free(sb.b);
    return -1;
}

/* An object's "name": before a member's value; returns the owned name,
 * or NULL after fail(). */
static char *parse_member_name(struct parser *p)
{
    char *key;
    size_t klen;

    skip_ws(p);
    if (peek(p) != '"') {
        fail(p, "expected a member name in double quotes");
        return NULL;
    }
    if (parse_string_raw(p, 0, &key, &klen) != 0)
        return NULL;
    skip_ws(p);
    if (peek(p) != ':') {
        free(key);
        fail(p, "expected ':'");
        return NULL;
    }
    p->pos++;
    return key;
}

static void free_contents(struct sb_jv *v);

/* Room for one more item in container c (cap items allocated; names in
 * *keys for an object), counted against the budget. */
static int grow(struct parser *p, struct sb_jv *c, size_t *cap, char ***keys)
{
    size_t ncap = *cap ? *cap * 2 : 4;
    size_t per = sizeof(struct sb_jv) + (c->type == SB_JV_OBJECT ? sizeof(char *) : 0);
    struct sb_jv *ni;

    if (ncap > UINT32_MAX || charge(p, (ncap - *cap) * per) != 0)
        return fail(p, TOO_LARGE);
    ni = realloc(c->items, ncap * sizeof(*ni));
    if (ni == NULL)
        return fail(p, "out of memory");
    c->items = ni;
    if (c->type == SB_JV_OBJECT) {
        char **nk = realloc(*keys, ncap * sizeof(*nk));
        if (nk == NULL)
            return fail(p, "out of memory");
        *keys = nk;
    }
    *cap = ncap;
    return 0;
}

/* A parsed container c made exact: the items shrunk to n, an object's
 * names moved after them (sb_jv_key). */
static int finish(struct parser *p, struct sb_jv *c, size_t cap, char **keys)
{
    size_t per = sizeof(struct sb_jv) + (c->type == SB_JV_OBJECT ? sizeof(char *) : 0);
    char *block = realloc(c->items, c->n * per);

    if (block == NULL)
        return fail(p, "out of memory");
    c->items = (struct sb_jv *)(void *)block;
    if (c->type == SB_JV_OBJECT)
        memcpy(block + c->n * sizeof(struct sb_jv), keys, c->n * sizeof(char *));
    free(keys);
    p->used -= (cap - c->n) * per;
    return 0;
}

/* An array or an object (type), from its opening bracket: the items, each
 * after its member name for an object, separated by commas. On failure
 * out is left null (what it held freed). */
static int parse_container(struct parser *p, struct sb_jv *out, enum sb_jv_type type)
{
    const int close = type == SB_JV_OBJECT ? '}' : ']';
    size_t cap = 0;
    char **keys = NULL;

    out->type = type;
    out->items = NULL;
    p->pos++;
    skip_ws(p);
    if (peek(p) == close) {
        p->pos++;
        return 0;
    }
    for (;;) {
        char *key = NULL;
        struct sb_jv *item;

        if (type == SB_JV_OBJECT && (key = parse_member_name(p)) == NULL)
            break;
        if (out->n == cap && grow(p, out, &cap, &keys) != 0) {
            free(key);
            break;
        }
        if (keys != NULL)
            keys[out->n] = key;
        item = &out->items[out->n++];
        memset(item, 0, sizeof(*item));
        if (parse_value(p, item) != 0)
            break;
        skip_ws(p);
        if (peek(p) == ',') {
            p->pos++;
            continue;
        }
        if (peek(p) == close) {
            p->pos++;
            if (finish(p, out, cap, keys) == 0)
                return 0;
            break;
        }
        fail(p, type == SB_JV_OBJECT ? "expected ',' or '}'" : "expected ',' or ']'");
        break;
    }
    /* Failed: the names are not yet where free_contents looks. */
    for (size_t i = 0; keys != NULL && i < out->n; i++)
        free(keys[i]);
    free(keys);
    if (type == SB_JV_OBJECT)
        out->type = SB_JV_ARRAY;
    free_contents(out);
    memset(out, 0, sizeof(*out));
    return -1;
}

static int parse_value(struct parser *p, struct sb_jv *out)
{
    int c, rc;

    skip_ws(p);
    c = peek(p);
    switch (c) {
    case '{':
    case '[':
        if (p->depth >= SB_JV_MAX_DEPTH)
            return fail(p, "nesting too deep");
        p->depth++;
        rc = parse_container(p, out, c == '{' ? SB_JV_OBJECT : SB_JV_ARRAY);
        p->depth--;
        return rc;
    case '"': {
        char *b;
        size_t len;
        if (parse_string_raw(p, STR_PREFIX, &b, &len) != 0)
            return -1;
        memcpy(b, &len, sizeof(len));
        out->type = SB_JV_STRING;
        out->string = b + STR_PREFIX;
        return 0;
    }
    case 't':
        out->type = SB_JV_BOOL;
        out->boolean = true;
        return literal(p, "true");
    case 'f':
        out->type = SB_JV_BOOL;
        return literal(p, "false");
    case 'n':
        out->type = SB_JV_NULL;
        return literal(p, "null");
    case -1:
        return fail(p, "expected a value");
    default:
        if (c == '-' || is_digit(c))
            return parse_number(p, out);
        return fail(p, "expected a value");
    }
}

/* Frees what a node owns, not the node itself (it may live in an array). */
static void free_contents(struct sb_jv *v)
{
    switch (v->type) {
    case SB_JV_STRING:
        if (v->string != NULL)
            free(v->string - STR_PREFIX);
        break;
    case SB_JV_OBJECT:
        for (size_t i = 0; i < v->n; i++)
            free((char *)sb_jv_key(v, i));
        /* fall through */
    case SB_JV_ARRAY:
        for (size_t i = 0; i < v->n; i++)
            free_contents(&v->items[i]);
        free(v->items);
        break;
    default:
        break;
    }
}

/* Bytes of the valid UTF-8 sequence at s (at most len bytes), 0 when it
 * is not one; overlong forms, surrogates and C1 controls count as not. */
static size_t utf8_seq(const unsigned char *s, size_t len)
{
    size_t n = s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 ? 2 : 0;
    unsigned cp;

    if (s[0] >= 0xF5 || n == 0 || n > len)
        return 0;
    cp = s[0] & (0x7F >> n);
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF) || (cp >= 0x80 && cp <= 0x9F))
        return 0;
    return n;
}

size_t sb_jv_escape(char *buf, size_t buflen, const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t out = 0;

    for (size_t i = 0; i < len;) {
        size_t n = u[i] >= 0x20 && u[i] < 0x7F ? 1 : u[i] >= 0x80 ? utf8_seq(u + i, len - i) : 0;
        char esc[5];
        const char *from = s + i;
        size_t k = n;

        if (n == 0) {
            snprintf(esc, sizeof(esc), "\\x%02x", u[i]);
            from = esc;
            k = 4;
            n = 1;
        }
        for (size_t j = 0; j < k; j++, out++)
            if (buflen > 0 && out < buflen - 1)
                buf[out] = from[j];
        i += n;
    }
    if (buflen > 0)
        buf[out < buflen - 1 ? out : buflen - 1] = '\0';
    return out;
}

char *sb_jv_str_shown(const struct sb_jv *v)
{
    size_t len = sb_jv_str_len(v), need;
    const char *s = sb_jv_str(v) != NULL ? sb_jv_str(v) : "";
    char *b;

    need = sb_jv_escape(NULL, 0, s, len);
    if ((b = malloc(need + 1)) != NULL)
        sb_jv_escape(b, need + 1, s, len);
    return b;
}

void sb_jv_clear(struct sb_jv *v)
{
    if (v == NULL)
        return;
    free_contents(v);
    memset(v, 0, sizeof(*v));
    v->type = SB_JV_NULL;
}

size_t sb_jv_str_len(const struct sb_jv *v)
{
    size_t len;

    if (v == NULL || v->type != SB_JV_STRING || v->string == NULL)
        return 0;
    memcpy(&len, v->string - STR_PREFIX, sizeof(len));
    return len;
}

int sb_jv_set_string(struct sb_jv *v, const char *s, size_t len)
{
    char *b = malloc(STR_PREFIX + len + 1);

    sb_jv_clear(v);
    if (b == NULL)
        return -1;
    memcpy(b, &len, sizeof(len));
    memcpy(b + STR_PREFIX, s, len);
    b[STR_PREFIX + len] = '\0';
    v->type = SB_JV_STRING;
    v->string = b + STR_PREFIX;
    return 0;
}

struct sb_jv *sb_jv_add_member(struct sb_jv *o, const char *key)
{
    size_t n;
    char *k, *block;

    if (o == NULL || o->type != SB_JV_OBJECT || o->n >= UINT32_MAX - 1)
        return NULL;
    n = o->n;
    k = strdup(key);
    block = malloc((n + 1) * (sizeof(struct sb_jv) + sizeof(char *)));
    if (k == NULL || block == NULL) {
        free(k);
        free(block);
        return NULL;
    }
    /* Items, then names: both move (one allocation per object). */
    if (n > 0) {
        memcpy(block, o->items, n * sizeof(struct sb_jv));
        memcpy(block + (n + 1) * sizeof(struct sb_jv), o->items + n, n * sizeof(char *));
    }
    memcpy(block + (n + 1) * sizeof(struct sb_jv) + n * sizeof(char *), &k, sizeof(k));
    free(o->items);
    o->items = (struct sb_jv *)(void *)block;
    memset(&o->items[n], 0, sizeof(struct sb_jv));
    o->items[n].type = SB_JV_NULL;
    o->n = (uint32_t)(n + 1);
    return &o->items[n];
}

struct sb_jv *sb_jv_parse(const char *text, size_t n, char *err, size_t errlen)
{
    struct parser p = {text, n, 0, 0, 0, 0, err, errlen, false};
    struct sb_jv *root = calloc(1, sizeof(*root));

    p.budget = n < SB_JV_MIN_BUDGET / SB_JV_MAX_EXPANSION ? SB_JV_MIN_BUDGET
                                                          : n * SB_JV_MAX_EXPANSION;
    if (root == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (parse_value(&p, root) == 0) {
        skip_ws(&p);
        if (p.pos == p.n)
            return root;
        fail(&p, "unexpected text after the document");
    }
    sb_jv_free(root);
    return NULL;
}

struct sb_jv *sb_jv_parse_file(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL, perr[256];
    size_t len = 0, cap = 0, r;
    struct sb_jv *doc;
    struct stat st;

    if (f == NULL) {
        snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
        return NULL;
    }
    /* A regular file is read into a buffer of its size (one byte more to
     * see the end): doubling would take up to twice the input. */
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
        (uintmax_t)st.st_size < SB_JV_MAX_FILE)
        cap = (size_t)st.st_size + 1;
    if (cap > 0 && (buf = malloc(cap)) == NULL) {
        snprintf(err, errlen, "cannot read '%s': out of memory", path);
        goto fail;
    }
    for (;;) {
        if (len == cap) {
            char *nb;
            cap = cap ? cap * 2 : 65536;
            if (cap > SB_JV_MAX_FILE) {
                snprintf(err, errlen, "'%s' is too large for a result file (over %u MiB)", path,
                         SB_JV_MAX_FILE >> 20);
                goto fail;
            }
            nb = realloc(buf, cap);
            if (nb == NULL) {
                snprintf(err, errlen, "cannot read '%s': out of memory", path);
                goto fail;
            }
            buf = nb;
        }
        r = fread(buf + len, 1, cap - len, f);
        len += r;
        if (r == 0)
            break;
    }
    if (ferror(f)) {
        snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno ? errno : EIO));
        goto fail;
    }
    fclose(f);
    doc = sb_jv_parse(buf, len, perr, sizeof(perr));
    free(buf);
    if (doc == NULL && strncmp(perr, TOO_LARGE, strlen(TOO_LARGE)) == 0)
        snprintf(err, errlen, "'%s' is not a document sysbench writes: %s", path, perr);
    else if (doc == NULL)
        snprintf(err, errlen, "'%s' is not JSON: %s", path, perr);
    return doc;
fail:
    fclose(f);
    free(buf);
    return NULL;
}

void sb_jv_free(struct sb_jv *v)
{
    if (v == NULL)
        return;
    free_contents(v);
    free(v);
}

const struct sb_jv *sb_jv_get(const struct sb_jv *v, const char *key)
{
    if (v == NULL || v->type != SB_JV_OBJECT)
        return NULL;
    for (size_t i = 0; i < v->n; i++)
        if (strcmp(sb_jv_key(v, i), key) == 0)
            return &v->items[i];
    return NULL;
}

const struct sb_jv *sb_jv_at(const struct sb_jv *v, size_t i)
{
    if (v == NULL || v->type != SB_JV_ARRAY || i >= v->n)
        return NULL;
    return &v->items[i];
}

const struct sb_jv *sb_jv_path(const struct sb_jv *v, const char *path)
{
    char part[128];

    while (v != NULL && *path) {
        size_t len = strcspn(path, ".");
        if (len >= sizeof(part))
            return NULL;
        memcpy(part, path, len);
        part[len] = '\0';
        if (v->type == SB_JV_ARRAY) {
            char *end;
            unsigned long i;
            errno = 0;
            i = strtoul(part, &end, 10);
            if (len == 0 || *end != '\0' || errno != 0)
                return NULL;
            v = sb_jv_at(v, (size_t)i);
        } else {
            v = sb_jv_get(v, part);
        }
        path += len;
        if (*path == '.')
            path++;
    }
    return v;
}

double sb_jv_num(const struct sb_jv *v)
{
    return v != NULL && v->type == SB_JV_NUMBER ? v->number : NAN;
}

const char *sb_jv_str(const struct sb_jv *v)
{
    return v != NULL && v->type == SB_JV_STRING ? v->string : NULL;
}

bool sb_jv_true(const struct sb_jv *v)
{
    return v != NULL && v->type == SB_JV_BOOL && v->boolean;
}

size_t sb_jv_len(const struct sb_jv *v)
{
    return v != NULL && v->type == SB_JV_ARRAY ? v->n : 0;
}
