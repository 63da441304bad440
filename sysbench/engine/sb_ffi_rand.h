/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_FFI_RAND_H
#define SB_FFI_RAND_H

/*
 * The calling thread's generator: the one sysbench 1.0's sb_rand_*
 * functions (sb_ffi.c) draw from, as they take no generator argument.
 * Each Lua state binds its own generator when sysbench.rand loads (states
 * are created in the thread that runs them, and the module calls
 * sb_ffi_rand_bind through the FFI) and unbinds it when it closes; the
 * loop threads bind the connection they resume. A thread-local pointer,
 * no other state.
 */

struct sb_rand;

/* The generator bound in the calling thread, or NULL if none. */
struct sb_rand *sb_ffi_rand_current(void);

/* Binds r (borrowed) as the calling thread's generator; a thread that
 * runs another thread's state (sb_signal_guarded) takes over its generator. */
void sb_ffi_rand_bind(struct sb_rand *r);

/* Unbinds r if it is the one bound (a closing state). */
void sb_ffi_rand_unbind(struct sb_rand *r);

#endif /* SB_FFI_RAND_H */
