/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_BI_THREADS_H
#define SB_BI_THREADS_H

#include "builtin/sb_builtin.h"

/* The "threads" compiled-in test (sb_bi_threads.c). */
extern const struct sb_builtin sb_bi_threads;

#endif /* SB_BI_THREADS_H */
