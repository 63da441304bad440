/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer harness: the JSON reader behind compare and plot. The input is
 * a result document: parsed, read as a result file, and matched against
 * itself on a grid, as `sysbench compare a.json a.json` does.
 */
#include <stdint.h>
#include <stdlib.h>

#include "core/sb_json_read.h"
#include "results/sb_result_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    struct sb_jv *doc = sb_jv_parse((const char *)data, size, err, sizeof(err));
    struct sb_result_file res[2];
    struct sb_result_file_grid g;

    if (doc == NULL)
        return 0;
    if (sb_result_file_from_json(&res[0], doc, "fuzz.json", "a", err, sizeof(err)) == 0) {
        if (sb_result_file_from_json(&res[1], doc, "fuzz.json", "b", err, sizeof(err)) == 0) {
            if (sb_result_file_grid_build(&g, res, 2) == 0) {
                for (size_t k = 0; k < g.nkeys; k++) {
                    const struct sb_point_result *p = sb_result_file_grid_cell(&g, 0, k);
                    if (p != NULL)
                        (void)sb_point_result_pct_ms(p, 99);
                }
                sb_result_file_grid_free(&g);
            }
            sb_result_file_free(&res[1]);
        }
        sb_result_file_free(&res[0]);
    }
    sb_jv_free(doc);
    return 0;
}
