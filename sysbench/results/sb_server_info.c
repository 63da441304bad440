/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The server's settings and binary for the result file; see
 * sb_server_info.h.
 */
#include "results/sb_server_info.h"

#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "drivers/sb_driver.h"
#include "core/sb_json_write.h"

/* ------------------------------------------------------------ the rule */

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);

    return n >= m && strcmp(s + n - m, suffix) == 0;
}

bool sb_server_setting_skipped(const char *name)
{
    /* Named by MariaDB/MySQL: the pid file's path and the server's
     * identity (a fresh uuid per data directory), the system clock. */
    static const char *const exact[] = {
        "pid_file", "server_uuid", "timestamp", "gtid_executed", "gtid_purged",
    };

    for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
        if (strcmp(name, exact[i]) == 0)
            return true;
    /* Replication positions (gtid_binlog_pos, gtid_current_pos,
     * gtid_binlog_state, wsrep_start_position) move with every write. */
    if (strncmp(name, "gtid_", 5) == 0 && (has_suffix(name, "_pos") || has_suffix(name, "_state")))
        return true;
    if (has_suffix(name, "_position"))
        return true;
    /* A result file is shared: nothing that may be a secret. */
    return strstr(name, "password") != NULL || strstr(name, "passphrase") != NULL ||
           strstr(name, "secret") != NULL;
}

/* ------------------------------------------------------------ settings */

int sb_server_info_add(struct sb_server_info *si, const char *name, const char *value)
{
    struct sb_server_setting *s;

    if (sb_server_setting_skipped(name)) {
        si->nskipped++;
        return 0;
    }
    if (si->nsettings == si->cap) {
        size_t cap = si->cap ? si->cap * 2 : 256;
        struct sb_server_setting *ns = realloc(si->settings, cap * sizeof(*ns));
        if (ns == NULL)
            return -1;
        si->settings = ns;
        si->cap = cap;
    }
    s = &si->settings[si->nsettings];
    s->name = strdup(name);
    s->value = strdup(value);
    if (s->name == NULL || s->value == NULL) {
        free(s->name);
        free(s->value);
        return -1;
    }
    si->nsettings++;
    return 0;
}

static int cmp_setting(const void *a, const void *b)
{
    const struct sb_server_setting *x = a, *y = b;

    return strcmp(x->name, y->name);
}

void sb_server_info_sort(struct sb_server_info *si)
{
    if (si->nsettings > 1)
        qsort(si->settings, si->nsettings, sizeof(*si->settings), cmp_setting);
}

static void free_settings(struct sb_server_info *si)
{
    for (size_t i = 0; i < si->nsettings; i++) {
        free(si->settings[i].name);
        free(si->settings[i].value);
    }
    free(si->settings);
    si->settings = NULL;
    si->nsettings = si->cap = si->nskipped = 0;
    si->have_settings = false;
}

/* A column as a C string (a NULL as ""), truncated to what a setting
 * reasonably holds. */
static void column(const struct sb_value *v, char *buf, size_t len)
{
    size_t n = v->ptr == NULL ? 0 : v->len < len - 1 ? v->len : len - 1;

    if (n > 0)
        memcpy(buf, v->ptr, n);
    buf[n] = '\0';
}

int sb_server_info_read_settings(struct sb_server_info *si, struct sb_conn *con,
                                 const char *sql, char *err, size_t errlen)
{
    char name[256], value[4096];
    int rc;

    if (sb_db_query(con, sql, strlen(sql)) != SB_DB_DONE) {
        sb_db_format_error(con, err, errlen);
        return -1;
    }
    if (!con->rs.active || con->rs.nfields < 2) {
        sb_db_free_result(con);
        snprintf(err, errlen, "the settings query returned no (name, value) rows");
        return -1;
    }
    while ((rc = sb_db_fetch(con)) == 1) {
        column(&con->rs.row[0], name, sizeof(name));
        column(&con->rs.row[1], value, sizeof(value));
        if (sb_server_info_add(si, name, value) != 0) {
            sb_db_free_result(con);
            free_settings(si);
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    }
    sb_db_free_result(con);
    if (rc < 0) {
        sb_db_format_error(con, err, errlen);
        free_settings(si);
        return -1;
    }
    sb_server_info_sort(si);
    si->have_settings = true;
    return 0;
}

/* -------------------------------------------------------------- binary */

static void to_hex(const unsigned char *b, size_t n, char *hex, size_t len)
{
    static const char digits[] = "0123456789abcdef";
    size_t i;

    for (i = 0; i < n && 2 * i + 2 < len; i++) {
        hex[2 * i] = digits[b[i] >> 4];
        hex[2 * i + 1] = digits[b[i] & 15];
    }
    hex[2 * i] = '\0';
}

/* Looks for the NT_GNU_BUILD_ID note in the note segment at off (size
 * bytes) of fp. */
static bool note_build_id(FILE *fp, uint64_t off, uint64_t size, char *hex, size_t len)
{
    unsigned char buf[4096];
    size_t n, pos = 0;

    if (size > sizeof(buf))
        size = sizeof(buf);
    if (fseeko(fp, (off_t)off, SEEK_SET) != 0 || (n = fread(buf, 1, size, fp)) < 12)
        return false;
    /* Notes: namesz, descsz, type (32-bit words, the file's byte order,
     * which is this machine's for a process it runs), then the name and
     * the descriptor, each padded to 4 bytes. */
    while (pos + 12 <= n) {
        uint32_t namesz, descsz, type;
        memcpy(&namesz, buf + pos, 4);
        memcpy(&descsz, buf + pos + 4, 4);
        memcpy(&type, buf + pos + 8, 4);
        size_t name_at = pos + 12, desc_at = name_at + ((namesz + 3u) & ~3u);
        if (desc_at + descsz > n || namesz > n)
            return false;
        if (type == NT_GNU_BUILD_ID && namesz == 4 && memcmp(buf + name_at, "GNU", 4) == 0 &&
            descsz > 0 && descsz * 2 < len) {
            to_hex(buf + desc_at, descsz, hex, len);
            return true;
        }
        pos = desc_at + ((descsz + 3u) & ~3u);
    }
    return false;
}

bool sb_server_info_build_id(FILE *fp, char *hex, size_t len)
{
    Elf64_Ehdr eh;
    Elf64_Phdr ph;

    /* A 64-bit ELF file of this machine's byte order: what a local
     * server process runs here. */
    if (fseeko(fp, 0, SEEK_SET) != 0 || fread(&eh, sizeof(eh), 1, fp) != 1 ||
        memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_phentsize != sizeof(ph) || eh.e_phnum > 256)
        return false;
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        if (fseeko(fp, (off_t)(eh.e_phoff + (uint64_t)i * sizeof(ph)), SEEK_SET) != 0 ||
            fread(&ph, sizeof(ph), 1, fp) != 1)
            return false;
        if (ph.p_type == PT_NOTE && note_build_id(fp, ph.p_offset, ph.p_filesz, hex, len))
            return true;
    }
    return false;
}

/* SHA-256 (FIPS 180-4). */
struct sha256 {
    uint32_t h[8];
    unsigned char block[64];
    size_t used;
    uint64_t bytes;
};

static const uint32_t sha_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2,
};

static uint32_t ror(uint32_t x, unsigned n)
{
    return (x >> n) | (x << (32 - n));
}

static void sha_block(struct sha256 *s, const unsigned char *p)
{
    uint32_t w[64], v[8];

    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    memcpy(v, s->h, sizeof(v));
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = v[7] + (ror(v[4], 6) ^ ror(v[4], 11) ^ ror(v[4], 25)) +
                      ((v[4] & v[5]) ^ (~v[4] & v[6])) + sha_k[i] + w[i];
        uint32_t t2 = (ror(v[0], 2) ^ ror(v[0], 13) ^ ror(v[0], 22)) +
                      ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
        memmove(v + 1, v, 7 * sizeof(v[0]));
        v[4] += t1;
        v[0] = t1 + t2;
    }
    for (int i = 0; i < 8; i++)
        s->h[i] += v[i];
}

static void sha_update(struct sha256 *s, const unsigned char *p, size_t n)
{
    s->bytes += n;
    while (n > 0) {
        size_t take = 64 - s->used < n ? 64 - s->used : n;
        memcpy(s->block + s->used, p, take);
        s->used += take;
        p += take;
        n -= take;
        if (s->used == 64) {
            sha_block(s, s->block);
            s->used = 0;
        }
    }
}

bool sb_server_info_sha256(FILE *fp, char out[65])
{
    static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    struct sha256 s = {{0}, {0}, 0, 0};
    unsigned char buf[65536], pad[72] = {0x80}, digest[32];
    uint64_t bits;
    size_t n, padlen;

    memcpy(s.h, h0, sizeof(h0));
    if (fseeko(fp, 0, SEEK_SET) != 0)
        return false;
    while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
        sha_update(&s, buf, n);
    if (ferror(fp))
        return false;
    bits = s.bytes * 8;
    padlen = (s.used < 56 ? 56 : 120) - s.used;
    for (int i = 0; i < 8; i++)
        pad[padlen + (size_t)i] = (unsigned char)(bits >> (56 - 8 * i));
    sha_update(&s, pad, padlen + 8);
    for (int i = 0; i < 8; i++)
        for (int b = 0; b < 4; b++)
            digest[4 * i + b] = (unsigned char)(s.h[i] >> (24 - 8 * b));
    to_hex(digest, sizeof(digest), out, 65);
    return true;
}

void sb_server_info_binary(struct sb_server_info *si, pid_t pid)
{
    char link[64];
    ssize_t n;
    FILE *fp;

    si->binary_path[0] = si->build_id[0] = si->sha256[0] = '\0';
    snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
    n = readlink(link, si->binary_path, sizeof(si->binary_path) - 1);
    if (n <= 0) {
        si->binary_path[0] = '\0';
        return;
    }
    si->binary_path[n] = '\0';
    /* Through the link: the file the process runs, also when the path
     * has since been replaced by an upgrade. */
    fp = fopen(link, "rb");
    if (fp == NULL)
        return;
    if (!sb_server_info_build_id(fp, si->build_id, sizeof(si->build_id)) &&
        !sb_server_info_sha256(fp, si->sha256))
        si->sha256[0] = '\0';
    fclose(fp);
}

/* -------------------------------------------------------- the document */

/* Both lists are sorted by name: a merge walk. */
static bool settings_diff(const struct sb_server_info *a, const struct sb_server_info *b,
                          char *buf, size_t len)
{
    size_t i = 0, k = 0;

    while (i < a->nsettings || k < b->nsettings) {
        const struct sb_server_setting *x = i < a->nsettings ? &a->settings[i] : NULL;
        const struct sb_server_setting *y = k < b->nsettings ? &b->settings[k] : NULL;
        int c = x == NULL ? 1 : y == NULL ? -1 : strcmp(x->name, y->name);
        if (c < 0) {
            snprintf(buf, len, "%.200s (%.100s -> absent)", x->name, x->value);
            return true;
        }
        if (c > 0) {
            snprintf(buf, len, "%.200s (absent -> %.100s)", y->name, y->value);
            return true;
        }
        if (strcmp(x->value, y->value) != 0) {
            snprintf(buf, len, "%.200s (%.100s -> %.100s)", x->name, x->value, y->value);
            return true;
        }
        i++;
        k++;
    }
    return false;
}

bool sb_server_info_first_diff(const struct sb_server_info *a,
                               const struct sb_server_info *b, char *buf, size_t len)
{
    buf[0] = '\0';
    if (a->have_settings && b->have_settings && settings_diff(a, b, buf, len))
        return true;
    if (a->binary_path[0] != '\0' && b->binary_path[0] != '\0' &&
        (strcmp(a->build_id, b->build_id) != 0 || strcmp(a->sha256, b->sha256) != 0)) {
        snprintf(buf, len, "binary");
        return true;
    }
    return false;
}

bool sb_server_info_known(const struct sb_server_info *si)
{
    return si->have_settings || si->binary_path[0] != '\0';
}

void sb_server_info_json(struct sb_json *j, const struct sb_server_info *si)
{
    sb_json_begin_object(j);
    sb_json_key(j, "settings");
    if (si->have_settings) {
        sb_json_begin_object(j);
        for (size_t i = 0; i < si->nsettings; i++)
            sb_json_kv_string(j, si->settings[i].name, si->settings[i].value);
        sb_json_end_object(j);
    } else {
        sb_json_null(j);
    }
    sb_json_kv_uint(j, "settings_skipped", si->nskipped);
    sb_json_key(j, "binary");
    if (si->binary_path[0] != '\0') {
        sb_json_begin_object(j);
        sb_json_kv_string(j, "path", si->binary_path);
        sb_json_kv_string(j, "build_id", si->build_id[0] ? si->build_id : NULL);
        sb_json_kv_string(j, "sha256", si->sha256[0] ? si->sha256 : NULL);
        sb_json_end_object(j);
    } else {
        sb_json_null(j);
    }
    sb_json_end_object(j);
}

void sb_server_info_move(struct sb_server_info *dst, struct sb_server_info *src)
{
    sb_server_info_free(dst);
    *dst = *src;
    memset(src, 0, sizeof(*src));
}

void sb_server_info_free(struct sb_server_info *si)
{
    free_settings(si);
    memset(si, 0, sizeof(*si));
}
