/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Streaming JSON writer; see sb_json_write.h.
 */
#include "core/sb_json_write.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void sb_json_init(struct sb_json *j, FILE *out, bool pretty)
{
    memset(j, 0, sizeof(*j));
    j->out = out;
    j->pretty = pretty;
    j->inline_from = -1;
}

static bool is_inline(const struct sb_json *j)
{
    return !j->pretty || (j->inline_from >= 0 && j->depth > j->inline_from);
}

static void newline_indent(struct sb_json *j, int depth)
{
    fputc('\n', j->out);
    for (int i = 0; i < depth; i++)
        fputs("  ", j->out);
}

/*
 * Everything a value or a key needs written before it: the comma after
 * the previous member and the line break. Values inside an object come
 * right after their key, which already did this.
 */
static void before_item(struct sb_json *j, bool is_key)
{
    if (j->depth == 0) {
        /* A second top-level value would make the document invalid. */
        if (j->top_written || is_key)
            j->misuse = true;
        j->top_written = true;
        return;
    }
    if (!is_key && j->kind[j->depth - 1] == SB_JSON_IN_OBJECT) {
        if (!j->after_key)
            j->misuse = true;
        j->after_key = false;
        return;
    }
    if (is_key && (j->kind[j->depth - 1] != SB_JSON_IN_OBJECT || j->after_key))
        j->misuse = true;
    {
        bool first = !j->has_members[j->depth - 1];
        if (!first)
            fputc(',', j->out);
        j->has_members[j->depth - 1] = true;
        if (!is_inline(j))
            newline_indent(j, j->depth);
        else if (j->pretty && !first)
            fputc(' ', j->out);
    }
}

static void open_container(struct sb_json *j, enum sb_json_container kind, char c,
                           bool inl)
{
    before_item(j, false);
    if (j->depth >= SB_JSON_MAX_DEPTH) {
        j->misuse = true;
        return;
    }
    fputc(c, j->out);
    if (inl && j->inline_from < 0)
        j->inline_from = j->depth;
    j->kind[j->depth] = kind;
    j->has_members[j->depth] = false;
    j->depth++;
}

static void close_container(struct sb_json *j, enum sb_json_container kind, char c)
{
    bool had, contents_inline;

    if (j->depth == 0 || j->kind[j->depth - 1] != kind || j->after_key) {
        j->misuse = true;
        return;
    }
    had = j->has_members[j->depth - 1];
    contents_inline = is_inline(j);
    j->depth--;
    if (had && !contents_inline)
        newline_indent(j, j->depth);
    if (j->inline_from == j->depth)
        j->inline_from = -1;
    fputc(c, j->out);
}

void sb_json_begin_object(struct sb_json *j)
{
    open_container(j, SB_JSON_IN_OBJECT, '{', false);
}

void sb_json_begin_array(struct sb_json *j)
{
    open_container(j, SB_JSON_IN_ARRAY, '[', false);
}

void sb_json_begin_array_inline(struct sb_json *j)
{
    open_container(j, SB_JSON_IN_ARRAY, '[', true);
}

void sb_json_end_object(struct sb_json *j)
{
    close_container(j, SB_JSON_IN_OBJECT, '}');
}

void sb_json_end_array(struct sb_json *j)
{
    close_container(j, SB_JSON_IN_ARRAY, ']');
}

/* Writes s as a JSON string literal. Only '"', '\\' and the control
 * characters below 0x20 must be escaped; DEL and non-ASCII bytes are
 * legal as they are. */
static void write_string(FILE *out, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";

    fputc('"', out);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '"':  fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\b': fputs("\\b", out); break;
        case '\f': fputs("\\f", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (c < 0x20) {
                fputs("\\u00", out);
                fputc(hex[c >> 4], out);
                fputc(hex[c & 15], out);
            } else {
                fputc((int)c, out);
            }
        }
    }
    fputc('"', out);
}

void sb_json_key(struct sb_json *j, const char *key)
{
    before_item(j, true);
    write_string(j->out, key, strlen(key));
    fputs(j->pretty ? ": " : ":", j->out);
    j->after_key = true;
}

void sb_json_string_n(struct sb_json *j, const char *s, size_t len)
{
    before_item(j, false);
    if (s == NULL)
        fputs("null", j->out);
    else
        write_string(j->out, s, len);
}

void sb_json_string(struct sb_json *j, const char *s)
{
    sb_json_string_n(j, s, s ? strlen(s) : 0);
}

void sb_json_int(struct sb_json *j, int64_t v)
{
    before_item(j, false);
    fprintf(j->out, "%" PRId64, v);
}

void sb_json_uint(struct sb_json *j, uint64_t v)
{
    before_item(j, false);
    fprintf(j->out, "%" PRIu64, v);
}

char *sb_json_format_double(double v, char *buf, size_t len)
{
    /* The program never calls setlocale, so printf's decimal point is
     * always '.', as JSON requires. */
    if (!isfinite(v)) {
        snprintf(buf, len, "null");
        return buf;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    /* A script may still change LC_NUMERIC through os.setlocale; JSON
     * numbers must keep the '.' whatever the locale says. */
    for (char *p = buf; *p; p++)
        if (*p == ',')
            *p = '.';
    return buf;
}

void sb_json_double(struct sb_json *j, double v)
{
    char buf[40];

    before_item(j, false);
    fputs(sb_json_format_double(v, buf, sizeof(buf)), j->out);
}

void sb_json_bool(struct sb_json *j, bool v)
{
    before_item(j, false);
    fputs(v ? "true" : "false", j->out);
}

void sb_json_null(struct sb_json *j)
{
    before_item(j, false);
    fputs("null", j->out);
}

void sb_json_kv_string(struct sb_json *j, const char *key, const char *s)
{
    sb_json_key(j, key);
    sb_json_string(j, s);
}

void sb_json_kv_int(struct sb_json *j, const char *key, int64_t v)
{
    sb_json_key(j, key);
    sb_json_int(j, v);
}

void sb_json_kv_uint(struct sb_json *j, const char *key, uint64_t v)
{
    sb_json_key(j, key);
    sb_json_uint(j, v);
}

void sb_json_kv_double(struct sb_json *j, const char *key, double v)
{
    sb_json_key(j, key);
    sb_json_double(j, v);
}

void sb_json_kv_bool(struct sb_json *j, const char *key, bool v)
{
    sb_json_key(j, key);
    sb_json_bool(j, v);
}

void sb_json_kv_null(struct sb_json *j, const char *key)
{
    sb_json_key(j, key);
    sb_json_null(j);
}

int sb_json_finish(struct sb_json *j)
{
    if (j->depth != 0 || j->after_key || !j->top_written)
        j->misuse = true;
    fputc('\n', j->out);
    if (fflush(j->out) != 0 || ferror(j->out))
        return -1;
    return j->misuse ? -1 : 0;
}
