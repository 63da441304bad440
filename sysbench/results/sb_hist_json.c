/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Histograms in result files; see sb_hist_json.h.
 */
#include "results/sb_hist_json.h"

#include <stdint.h>

#include "results/sb_result_fields.h"

void sb_hist_json_write(struct sb_json *j, const char *key, const char *of,
                       const struct sb_hist *h)
{
    sb_json_key(j, key);
    sb_json_begin_object(j);
    sb_json_kv_string(j, "of", of);
    sb_json_kv_string(j, "unit", "ns");
    sb_json_kv_uint(j, "sub_bucket_bits", SB_HIST_SUB_BITS);
    sb_json_kv_uint(j, "limit_ns", SB_HIST_MAX_NS);
    /* The fields of struct sb_hist, as merge reads and writes them; an
     * empty histogram has no extremes. */
    for (const struct sb_result_field *f = sb_rf_hist; f->path != NULL; f++) {
        if (f->ctype != SB_RF_U64)
            continue;
        if (h->total > 0 || f->merge == SB_RF_SUM || f->merge == SB_RF_HIST)
            sb_json_kv_uint(j, f->path, *(const uint64_t *)((const char *)h + f->offset));
        else
            sb_json_kv_null(j, f->path);
    }
    sb_json_key(j, "buckets");
    sb_json_begin_array(j);
    for (size_t b = 0; b < SB_HIST_BUCKETS; b++) {
        if (h->counts[b] == 0)
            continue;
        sb_json_begin_array_inline(j);
        sb_json_uint(j, sb_hist_bucket_low(b));
        sb_json_uint(j, sb_hist_bucket_high(b));
        sb_json_uint(j, h->counts[b]);
        sb_json_end_array(j);
    }
    sb_json_end_array(j);
    sb_json_end_object(j);
}
