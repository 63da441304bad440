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

struct parser {
    const char *s;          /* the document */
    size_t n;               /* its length */
    size_t pos;             /* the cursor */
    int depth;              /* open arrays and objects */
    char *err;
    size_t errlen;
    bool failed;
};

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
 * is always NUL-terminated, also when empty. */
static int parse_string_raw(struct parser *p, char **out, size_t *outlen)
{
    struct strbuf sb = {NULL, 0, 0};

    p->pos++;
    if (sb_put(&sb, "", 0) != 0)
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
    *out = sb.b;
    *outlen = sb.len;
    return 0;
oom:
    fail(p, "out of memory");
bad:
    free(sb.b);
    return -1;
}

/* Appends an empty node to a container's items (and a key slot for
 * objects); returns it, or NULL when out of memory. */
static struct sb_jv *add_item(struct sb_jv *c, size_t *cap, char *key)
{
    if (c->n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 4;
        struct sb_jv *ni = realloc(c->items, ncap * sizeof(*ni));
        if (ni == NULL)
            return NULL;
        c->items = ni;
        if (c->type == SB_JV_OBJECT) {
            char **nk = realloc(c->keys, ncap * sizeof(*nk));
            if (nk == NULL)
                return NULL;
            c->keys = nk;
        }
        *cap = ncap;
    }
    memset(&c->items[c->n], 0, sizeof(c->items[0]));
    if (c->type == SB_JV_OBJECT)
        c->keys[c->n] = key;
    return &c->items[c->n++];
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
    if (parse_string_raw(p, &key, &klen) != 0)
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

/* An array or an object (type), from its opening bracket: the items, each
 * after its member name for an object, separated by commas. */
static int parse_container(struct parser *p, struct sb_jv *out, enum sb_jv_type type)
{
    const int close = type == SB_JV_OBJECT ? '}' : ']';
    size_t cap = 0;

    out->type = type;
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
            return -1;
        item = add_item(out, &cap, key);
        if (item == NULL) {
            free(key);
            return fail(p, "out of memory");
        }
        if (parse_value(p, item) != 0)
            return -1;
        skip_ws(p);
        if (peek(p) == ',') {
            p->pos++;
            continue;
        }
        if (peek(p) == close) {
            p->pos++;
            return 0;
        }
        return fail(p, type == SB_JV_OBJECT ? "expected ',' or '}'" : "expected ',' or ']'");
    }
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
    case '"':
        out->type = SB_JV_STRING;
        return parse_string_raw(p, &out->string, &out->len);
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
    for (size_t i = 0; i < v->n; i++) {
        free_contents(&v->items[i]);
        if (v->keys != NULL)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->string);
}

struct sb_jv *sb_jv_parse(const char *text, size_t n, char *err, size_t errlen)
{
    struct parser p = {text, n, 0, 0, err, errlen, false};
    struct sb_jv *root = calloc(1, sizeof(*root));

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

    if (f == NULL) {
        snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
        return NULL;
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
    if (doc == NULL)
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
        if (strcmp(v->keys[i], key) == 0)
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
