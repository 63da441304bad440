/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Measurement only, not part of sysbench: an LD_PRELOAD library that sizes
 * what OpenSSL 3.0's HMAC_* API costs libpq's SCRAM key derivation
 * (issue 18, bench/README.md "many_connections.sh").
 *
 * libpq 15 derives SCRAM's salted password with 4,096 HMAC-SHA-256 rounds
 * through HMAC_Init_ex/HMAC_Update/HMAC_Final. In OpenSSL 3.0 each call
 * fetches the digest again (a lock, a hash-table lookup, reference counts,
 * allocations): perf over a 1,000-connection PostgreSQL set-up put about
 * 80% of the client's CPU in libcrypto and the locks it takes, and about
 * 15% in the SHA-256 compression itself. Here HMAC-SHA-256 runs on the
 * low-level SHA256_* functions, with the padded key's two states kept from
 * one HMAC_Init_ex to the next while the key stays the same (PBKDF2 keys
 * every round with the password). Other digests, and keys over a block,
 * go to the real functions.
 *
 * Not safe beyond this measurement: only the five functions libpq calls
 * are replaced, so a TLS connection in the same process, whose HMAC
 * reaches the same symbols from inside libcrypto with a context the real
 * HMAC_CTX_new made, may crash. Use it on plain (non-TLS) connections.
 *
 *   gcc -O2 -shared -fPIC -Wno-deprecated-declarations \
 *       -o /tmp/scram_hmac_preload.so bench/scram_hmac_preload.c -ldl -lcrypto
 *   LD_PRELOAD=/tmp/scram_hmac_preload.so sysbench --db-driver=pgsql ...
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>

struct fast_hmac {
    int fast;                   /* SHA-256 with a key of at most a block */
    HMAC_CTX *real;             /* for everything else */
    SHA256_CTX inner, outer, md;
    unsigned char key[SHA256_CBLOCK];
    int keylen;                 /* -1: no key yet */
};

#define REAL(name)                                                             \
    static __typeof__(name) *real_##name;                                      \
    if (real_##name == NULL)                                                   \
        real_##name = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

HMAC_CTX *HMAC_CTX_new(void)
{
    REAL(HMAC_CTX_new);
    struct fast_hmac *f = calloc(1, sizeof(*f));

    if (f == NULL)
        return NULL;
    f->real = real_HMAC_CTX_new();
    f->keylen = -1;
    return (HMAC_CTX *)f;
}

void HMAC_CTX_free(HMAC_CTX *ctx)
{
    REAL(HMAC_CTX_free);
    struct fast_hmac *f = (struct fast_hmac *)ctx;

    if (f == NULL)
        return;
    real_HMAC_CTX_free(f->real);
    free(f);
}

static void pad_state(SHA256_CTX *s, const struct fast_hmac *f, unsigned char byte)
{
    unsigned char pad[SHA256_CBLOCK];

    memset(pad, byte, sizeof(pad));
    for (int k = 0; k < f->keylen; k++)
        pad[k] ^= f->key[k];
    SHA256_Init(s);
    SHA256_Update(s, pad, sizeof(pad));
}

int HMAC_Init_ex(HMAC_CTX *ctx, const void *key, int len, const EVP_MD *md, ENGINE *e)
{
    REAL(HMAC_Init_ex);
    struct fast_hmac *f = (struct fast_hmac *)ctx;

    if (md != NULL)
        f->fast = md == EVP_sha256() && (key == NULL || (len >= 0 && len <= SHA256_CBLOCK));
    if (!f->fast)
        return real_HMAC_Init_ex(f->real, key, len, md, e);
    if (key != NULL && (len != f->keylen || memcmp(key, f->key, (size_t)len) != 0)) {
        memcpy(f->key, key, (size_t)len);
        f->keylen = len;
        pad_state(&f->inner, f, 0x36);
        pad_state(&f->outer, f, 0x5c);
    }
    f->md = f->inner;
    return 1;
}

int HMAC_Update(HMAC_CTX *ctx, const unsigned char *data, size_t len)
{
    REAL(HMAC_Update);
    struct fast_hmac *f = (struct fast_hmac *)ctx;

    if (!f->fast)
        return real_HMAC_Update(f->real, data, len);
    return SHA256_Update(&f->md, data, len);
}

int HMAC_Final(HMAC_CTX *ctx, unsigned char *out, unsigned int *len)
{
    REAL(HMAC_Final);
    struct fast_hmac *f = (struct fast_hmac *)ctx;
    unsigned char inner[SHA256_DIGEST_LENGTH];
    SHA256_CTX outer;

    if (!f->fast)
        return real_HMAC_Final(f->real, out, len);
    SHA256_Final(inner, &f->md);
    outer = f->outer;
    SHA256_Update(&outer, inner, sizeof(inner));
    SHA256_Final(out, &outer);
    if (len != NULL)
        *len = SHA256_DIGEST_LENGTH;
    return 1;
}
