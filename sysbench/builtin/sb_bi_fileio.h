/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_BI_FILEIO_H
#define SB_BI_FILEIO_H

#include "builtin/sb_builtin.h"

/* The "fileio" compiled-in test (sb_bi_fileio.c). */
extern const struct sb_builtin sb_bi_fileio;

#endif /* SB_BI_FILEIO_H */
