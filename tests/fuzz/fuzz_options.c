/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer harness: the command-line parser. The input is split at NUL
 * bytes into argv words, which are split into options and positional words
 * and applied to the general option set, as main() does.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/sb_config.h"
#include "core/sb_args.h"
#include "core/sb_options.h"
#include "fuzz_limits.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1), *argv[64];
    int argc = 1;
    struct sb_args args;
    struct sb_optset set;
    char err[512];

    if (buf == NULL)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    argv[0] = (char *)"sysbench";
    for (char *p = buf; p < buf + size + 1 && argc < 63; p += strlen(p) + 1)
        argv[argc++] = p;
    argv[argc] = NULL;
    sb_args_init(&args);
    sb_optset_init(&set, "General options");
    if (sb_config_declare(&set, err, sizeof(err)) == 0 &&
        sb_args_split(&args, argc, argv, err, sizeof(err)) == 0 &&
        sb_args_apply(&args, &set, err, sizeof(err)) == 0) {
        (void)sb_args_first_unused(&args);
        if (sb_config_load(&set, err, sizeof(err)) == 0)
            sb_fuzz_check_limits(sb_cfg);
    }
    sb_args_free(&args);
    sb_optset_free(&set);
    free(buf);
    return 0;
}
