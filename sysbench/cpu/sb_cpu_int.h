/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_CPU_INT_H
#define SB_CPU_INT_H

/*
 * Helpers shared by the files of CPU accounting: sb_cpu_parse.c (the
 * pure parsers), sb_cpu_sample.c (sampling) and sb_cpu_find.c (finding
 * the server's processes); sb_cpu_figures.c needs none. Not a public API.
 */

#include <stdbool.h>
#include <stddef.h>
#include "cpu/sb_cpu.h"

/* Formats a message into buf (capacity len; nothing when buf is NULL)
 * (sb_cpu_find.c). */
void sb_cpu_msg(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Returns p past any spaces and tabs (sb_cpu_parse.c). */
const char *sb_cpu_skip_spaces(const char *p);

/* True if name is all decimal digits (a /proc/<pid> entry)
 * (sb_cpu_sample.c). */
bool sb_cpu_is_pid_name(const char *name);

/* Reads and parses one /proc stat file; 0 or -1 (sb_cpu_sample.c). */
int sb_cpu_read_proc_stat(const char *path, struct sb_cpu_proc_stat *ps);

#endif /* SB_CPU_INT_H */
