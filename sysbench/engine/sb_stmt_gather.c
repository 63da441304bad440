/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Figures per statement of a point; see sb_stmt_gather.h.
 */
#include "engine/sb_stmt_gather.h"

#include "core/sb_log.h"
#include "engine/sb_worker.h"
#include "pure/sb_stmt_table.h"

void sb_stmt_gather(const struct sb_run *run, struct sb_point_result *p)
{
    int epoch = __atomic_load_n(&run->epoch, __ATOMIC_ACQUIRE);
    struct sb_stmt_table *t;

    if (!run->cfg->per_statement || run->slots == NULL)
        return;
    t = sb_stmt_table_new();
    if (t == NULL)
        goto oom;
    for (unsigned i = 0; i < run->nslots; i++) {
        const struct sb_stats_slot *s = &run->slots[i];
        if (s->stmts != NULL && __atomic_load_n(&s->epoch, __ATOMIC_ACQUIRE) == epoch &&
            sb_stmt_table_merge(t, s->stmts) != 0)
            goto oom;
    }
    sb_stmt_table_sort(t);
    sb_stmt_table_free(p->stmts);
    p->stmts = t;
    return;
oom:
    sb_stmt_table_free(t);
    sb_warn("out of memory: no figures per statement");
}
