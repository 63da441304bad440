/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_BI_MUTEX_H
#define SB_BI_MUTEX_H

#include "builtin/sb_builtin.h"

/* The "mutex" compiled-in test (sb_bi_mutex.c). */
extern const struct sb_builtin sb_bi_mutex;

#endif /* SB_BI_MUTEX_H */
