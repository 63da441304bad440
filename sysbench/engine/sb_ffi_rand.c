/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The calling thread's generator; see sb_ffi_rand.h. Exported from the
 * program (--export-dynamic) with the FFI entry points: the built-in
 * sysbench.rand module binds and unbinds through these names.
 */
#include <stddef.h>

#include "engine/sb_ffi_rand.h"

static __thread struct sb_rand *cur_rand;

void sb_ffi_rand_bind(struct sb_rand *r)
{
    cur_rand = r;
}

void sb_ffi_rand_unbind(struct sb_rand *r)
{
    if (cur_rand == r)
        cur_rand = NULL;
}

struct sb_rand *sb_ffi_rand_current(void)
{
    return cur_rand;
}
