/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The merge command's text report; see sb_merge.h.
 */
#include "compare/sb_merge.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double num(const struct sb_jv *v, const char *path)
{
    return sb_jv_num(sb_jv_path(v, path));
}

static void print_latency(const struct sb_jv *lat, const struct sb_jv *pcts, FILE *out,
                          const char *note)
{
    char key[32];

    fprintf(out, "    min:                                 %10.2f\n", num(lat, "min"));
    fprintf(out, "    avg:                                 %10.2f\n", num(lat, "avg"));
    fprintf(out, "    max:                                 %10.2f\n", num(lat, "max"));
    for (size_t i = 0; i < sb_jv_len(pcts); i++) {
        double p = sb_jv_num(sb_jv_at(pcts, i));
        char label[64];
        snprintf(key, sizeof(key), "%g", p);
        snprintf(label, sizeof(label), "%sth percentile%s:", key, note);
        fprintf(out, "    %-37s%10.2f\n", label,
                sb_jv_num(sb_jv_get(sb_jv_get(lat, "percentiles"), key)));
    }
    fprintf(out, "    sum:                                 %10.2f\n", num(lat, "sum"));
}

static void print_cpu_side(const char *name, const struct sb_jv *c, FILE *out)
{
    if (!sb_jv_true(sb_jv_get(c, "measured"))) {
        fprintf(out, "    %-8s not measured\n", name);
        return;
    }
    fprintf(out, "    %-8s %10.1f us/tx (user %.1f, system %.1f), %.2f%% of the CPUs\n", name,
            num(c, "total_us_per_tx"), num(c, "user_us_per_tx"), num(c, "system_us_per_tx"),
            num(c, "util_pct"));
}

/* Whether merged.upper_bounds lists field (it is not exact). */
static bool is_bound(const struct sb_jv *doc, const char *field)
{
    const struct sb_jv *ub = sb_jv_path(doc, "merged.upper_bounds");

    for (size_t i = 0; i < sb_jv_len(ub); i++)
        if (sb_jv_str(sb_jv_at(ub, i)) != NULL && strcmp(sb_jv_str(sb_jv_at(ub, i)), field) == 0)
            return true;
    return false;
}

static void print_point(const struct sb_jv *doc, const struct sb_jv *p, FILE *out)
{
    const struct sb_jv *f = sb_jv_get(p, "final"), *rate = sb_jv_get(f, "rate");
    const struct sb_jv *pcts = sb_jv_get(doc, "percentiles");
    const char *who = sb_jv_true(sb_jv_path(doc, "merged.partial")) ? "the instances present"
                                                                    : "all instances";

    fprintf(out, "\nPoint %g: %g connections", num(p, "index"), num(p, "threads"));
    if (!isnan(num(p, "target_tps")))
        fprintf(out, ", target %.2f tps (%s)", num(p, "target_tps"), who);
    fprintf(out, "\nSQL statistics:\n    queries performed:\n");
    fprintf(out, "        read:                            %g\n", num(f, "queries.reads"));
    fprintf(out, "        write:                           %g\n", num(f, "queries.writes"));
    fprintf(out, "        other:                           %g\n", num(f, "queries.other"));
    fprintf(out, "        total:                           %g\n", num(f, "queries.total"));
    fprintf(out, "    transactions:                        %-8g (%.2f per sec.)\n",
            num(f, "events"), num(f, "tps"));
    fprintf(out, "    queries:                             %-8g (%.2f per sec.)\n",
            num(f, "queries.total"), num(f, "qps"));
    fprintf(out, "    ignored errors:                      %-8g (%.2f per sec.)\n",
            num(f, "errors.ignored"), num(f, "errors.ignored_per_s"));
    fprintf(out, "    reconnects:                          %-8g (%.2f per sec.)\n",
            num(f, "errors.reconnects"), num(f, "errors.reconnects_per_s"));
    fprintf(out, "\nGeneral statistics:\n");
    fprintf(out, "    total time:                          %.4fs (first start to last end)\n",
            num(f, "time_s"));
    fprintf(out, "    total number of events:              %g\n", num(f, "events"));
    fprintf(out, "\nLatency (ms), from the merged histogram:\n");
    print_latency(sb_jv_path(f, "latency_ms.response"), pcts, out, "");
    if (rate != NULL && rate->type == SB_JV_OBJECT) {
        fprintf(out, "\nRate (%s):\n", who);
        fprintf(out, "    target:                              %.2f tx/s\n",
                num(rate, "target_tps"));
        fprintf(out, "    achieved:                            %.2f tx/s (%.3f%%)\n",
                num(rate, "achieved_tps"), num(rate, "achieved_pct"));
        fprintf(out, "    late starts:                         %g (%.2f%%)\n",
                num(rate, "late_starts"), num(rate, "late_pct"));
        fprintf(out, "    skipped:                             %g\n", num(rate, "skipped"));
        fprintf(out, "    start lag (ms), %s:\n",
                is_bound(doc, "points[].final.latency_ms.lag.percentiles")
                    ? "percentiles at most (not every file has the lag histogram)"
                    : "from the merged histogram");
        print_latency(sb_jv_path(f, "latency_ms.lag"), pcts, out, "");
    }
    fprintf(out, "\nCPU cost per transaction (client summed over instances, server once):\n");
    print_cpu_side("client:", sb_jv_path(f, "cpu.client"), out);
    print_cpu_side("server:", sb_jv_path(f, "cpu.server"), out);
    fprintf(out, "    server processes: %s\n",
            sb_jv_str(sb_jv_path(f, "cpu.server_processes")) ? sb_jv_str(sb_jv_path(f, "cpu.server_processes")) : "?");
}

void sb_merge_print_report(const struct sb_jv *doc, FILE *out)
{
    const struct sb_jv *ins = sb_jv_path(doc, "merged.instances");
    const struct sb_jv *points = sb_jv_get(doc, "points");

    if (sb_jv_len(ins) != (size_t)num(doc, "instance.count"))
        fprintf(out, "Merged result of %zu of %g", sb_jv_len(ins), num(doc, "instance.count"));
    else
        fprintf(out, "Merged result of %zu", sb_jv_len(ins));
    fprintf(out, " instances of '%s':\n",
            sb_jv_str(sb_jv_get(doc, "script")) ? sb_jv_str(sb_jv_get(doc, "script")) : "?");
    for (size_t i = 0; i < sb_jv_len(ins); i++) {
        const struct sb_jv *e = sb_jv_at(ins, i);
        const char *host = sb_jv_str(sb_jv_get(e, "hostname"));
        double off = num(e, "clock_offset_s");

        fprintf(out, "    instance %g: %s, host %s", num(e, "index"),
                sb_jv_str(sb_jv_get(e, "file")), host ? host : "?");
        if (!isnan(off))
            fprintf(out, ", clock offset %g s", off);
        fprintf(out, "\n");
    }
    sb_merge_print_status(doc, out);
    for (size_t i = 0; i < sb_jv_len(points); i++)
        print_point(doc, sb_jv_at(points, i), out);
}
