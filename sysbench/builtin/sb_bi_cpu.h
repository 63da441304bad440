/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_BI_CPU_H
#define SB_BI_CPU_H

#include "builtin/sb_builtin.h"

/* The "cpu" compiled-in test (sb_bi_cpu.c). */
extern const struct sb_builtin sb_bi_cpu;

#endif /* SB_BI_CPU_H */
