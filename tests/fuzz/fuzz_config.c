/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer harness: --config-file. The input is the file's contents; its
 * options are merged under one command-line option and applied to the
 * general option set, as main() does.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/sb_config.h"
#include "core/sb_args.h"
#include "core/sb_options.h"
#include "fuzz_limits.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    char *argv[] = {(char *)"sysbench", (char *)"--threads=2", (char *)"run", NULL};
    struct sb_args args;
    struct sb_optset set;
    char err[512];
    FILE *f;

    if (path[0] == '\0')
        snprintf(path, sizeof(path), "/tmp/sb-fuzz-config.%ld", (long)getpid());
    f = fopen(path, "w");
    if (f == NULL)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    sb_args_init(&args);
    sb_optset_init(&set, "General options");
    if (sb_config_declare(&set, err, sizeof(err)) == 0 &&
        sb_args_split(&args, 3, argv, err, sizeof(err)) == 0 &&
        sb_args_read_config(&args, path, err, sizeof(err)) == 0 &&
        sb_args_apply(&args, &set, err, sizeof(err)) == 0) {
        (void)sb_args_first_unused(&args);
        if (sb_config_load(&set, err, sizeof(err)) == 0)
            sb_fuzz_check_limits(sb_cfg);
    }
    sb_args_free(&args);
    sb_optset_free(&set);
    unlink(path);
    return 0;
}
