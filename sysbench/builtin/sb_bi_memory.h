/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_BI_MEMORY_H
#define SB_BI_MEMORY_H

#include "builtin/sb_builtin.h"

/* The "memory" compiled-in test (sb_bi_memory.c). */
extern const struct sb_builtin sb_bi_memory;

#endif /* SB_BI_MEMORY_H */
