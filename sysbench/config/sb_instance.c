/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Scale-out options and the shared start instant; see sb_instance.h.
 */
#define _GNU_SOURCE /* strptime, timegm */
#include "config/sb_instance.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/sb_clock.h"
#include "core/sb_json_write.h"
#include "core/sb_log.h"

const struct sb_opt_def sb_instance_options[] = {
    {"instance", "this process is instance I of N generator processes (I/N, I from 0; or I with --instances=N); the rate, schedules, random streams and bundled prepare are split among them", "", SB_ARG_STRING},
    {"instances", "number N of generator instances; without --instance, I comes from JOB_COMPLETION_INDEX (Kubernetes Indexed Job)", "0", SB_ARG_INT},
    {"start-at", "start the schedule and the report intervals at this wall-clock time: seconds since the epoch or ISO 8601 UTC (2026-11-23T14:00:00Z); clocks of all instances must be synchronised (NTP/PTP)", "", SB_ARG_STRING},
    {"clock-offset", "this host's clock offset in seconds as measured by the orchestrator (e.g. chronyc tracking); recorded in the results, not applied", "", SB_ARG_STRING},
    {NULL, NULL, NULL, 0}
};

/* Parses an unsigned decimal integer that fills the whole of [s, end). */
static int parse_uint(const char *s, const char *end, unsigned long *out)
{
    unsigned long v = 0;

    if (s == end)
        return -1;
    for (; s < end; s++) {
        if (*s < '0' || *s > '9' || v > 100000000UL)
            return -1;
        v = v * 10 + (unsigned long)(*s - '0');
    }
    *out = v;
    return 0;
}

/* Reads "I" or "I/N" into *index and, for the second form, *count. */
static int parse_instance(const char *s, unsigned long *index, unsigned long *count)
{
    const char *slash = strchr(s, '/');

    *count = 0;
    if (slash == NULL)
        return parse_uint(s, s + strlen(s), index);
    if (parse_uint(s, slash, index) != 0)
        return -1;
    return parse_uint(slash + 1, slash + strlen(slash), count);
}

int sb_instance_parse_time(const char *s, double *out)
{
    struct tm tm;
    const char *p;
    char *end;
    double frac = 0;
    time_t t;

    if (s == NULL || *s == '\0')
        return -1;
    if (strchr(s, '-') == NULL) {
        double v = strtod(s, &end);
        if (*end != '\0' || !isfinite(v) || v <= 0 || *s < '0' || *s > '9')
            return -1;
        *out = v;
        return 0;
    }
    memset(&tm, 0, sizeof(tm));
    p = strptime(s, "%Y-%m-%d", &tm);
    if (p == NULL || (*p != 'T' && *p != 't' && *p != ' '))
        return -1;
    p = strptime(p + 1, "%H:%M:%S", &tm);
    if (p == NULL)
        return -1;
    if (*p == '.') {
        frac = strtod(p, &end);
        p = end;
    }
    if (strcmp(p, "Z") != 0 && strcmp(p, "z") != 0 && strcmp(p, "") != 0 &&
        strcmp(p, "+00:00") != 0)
        return -1;
    t = timegm(&tm);
    if (t == (time_t)-1)
        return -1;
    *out = (double)t + frac;
    return 0;
}

/* I and N from --instance, --instances and the environment. */
static int load_index(struct sb_instance *inst, const struct sb_optset *set,
                      char *err, size_t errlen)
{
    const char *s = sb_optset_str(set, "instance");
    int64_t n = sb_optset_int(set, "instances");
    unsigned long index = 0, count = 0;
    char quoted[SB_OPT_QUOTE_LEN];

    if (n < 0 || n > SB_INSTANCE_MAX)
        return sb_opt_fail(err, errlen, "invalid value for --instances: expected 1 to %d",
                           SB_INSTANCE_MAX);
    if (s != NULL && *s != '\0') {
        if (parse_instance(s, &index, &count) != 0)
            return sb_opt_fail(err, errlen,
                               "invalid value '%s' for --instance: expected I/N (I from 0) or I with --instances=N",
                               sb_opt_quote(s, quoted, sizeof(quoted)));
        inst->source = "--instance";
    } else if (n > 0) {
        const char *env = getenv("JOB_COMPLETION_INDEX");
        if (env == NULL || parse_uint(env, env + strlen(env), &index) != 0)
            return sb_opt_fail(err, errlen,
                               "--instances=%lld needs --instance=I or JOB_COMPLETION_INDEX in the environment",
                               (long long)n);
        inst->source = "JOB_COMPLETION_INDEX";
    } else {
        return 0;
    }
    if (count != 0 && n != 0 && (int64_t)count != n)
        return sb_opt_fail(err, errlen, "--instance=%s and --instances=%lld disagree",
                           sb_opt_quote(s, quoted, sizeof(quoted)), (long long)n);
    if (count == 0)
        count = (unsigned long)n;
    if (count == 0)
        return sb_opt_fail(err, errlen, "--instance=%s needs a count: --instance=I/N or --instances=N",
                           sb_opt_quote(s, quoted, sizeof(quoted)));
    if (count > SB_INSTANCE_MAX || index >= count)
        return sb_opt_fail(err, errlen,
                           "instance %lu of %lu is out of range: I counts from 0 to N-1 (N at most %d)",
                           index, count, SB_INSTANCE_MAX);
    inst->index = (unsigned)index;
    inst->count = (unsigned)count;
    return 0;
}

int sb_instance_load(struct sb_instance *inst, const struct sb_optset *set,
                     bool rand_seed_given, double now_s, char *err, size_t errlen)
{
    const char *s;
    char quoted[SB_OPT_QUOTE_LEN];

    memset(inst, 0, sizeof(*inst));
    inst->count = 1;
    if (load_index(inst, set, err, errlen) != 0)
        return -1;
    if (inst->count > 1 && !rand_seed_given)
        return sb_opt_fail(err, errlen,
                           "--instance=%u/%u needs --rand-seed=S, the same on every instance, so their random streams are one experiment",
                           inst->index, inst->count);
    s = sb_optset_str(set, "start-at");
    if (s != NULL && *s != '\0') {
        if (sb_instance_parse_time(s, &inst->start_at) != 0)
            return sb_opt_fail(err, errlen,
                               "invalid value '%s' for --start-at: expected seconds since the epoch or ISO 8601 UTC (2026-11-23T14:00:00Z)",
                               sb_opt_quote(s, quoted, sizeof(quoted)));
        /* A time beyond the int64 nanoseconds of the wait would overflow. */
        if (inst->start_at > now_s + SB_INSTANCE_AHEAD_S)
            return sb_opt_fail(err, errlen,
                               "invalid value '%s' for --start-at: expected at most %d seconds (7 days) ahead",
                               sb_opt_quote(s, quoted, sizeof(quoted)), SB_INSTANCE_AHEAD_S);
        if (inst->start_at < now_s - SB_INSTANCE_PAST_S)
            return sb_opt_fail(err, errlen,
                               "--start-at=%s is %.1f s in the past: give a time far enough ahead for every instance to connect",
                               sb_opt_quote(s, quoted, sizeof(quoted)), now_s - inst->start_at);
    }
    s = sb_optset_str(set, "clock-offset");
    if (s != NULL && *s != '\0') {
        if (sb_parse_double(s, &inst->clock_offset_s) != 0 || !isfinite(inst->clock_offset_s))
            return sb_opt_fail(err, errlen,
                               "invalid value '%s' for --clock-offset: expected seconds",
                               sb_opt_quote(s, quoted, sizeof(quoted)));
        inst->clock_offset_given = true;
    }
    return 0;
}

static double realtime_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double sb_instance_unix_of(uint64_t mono_ns)
{
    uint64_t now = sb_now_ns();
    double real = realtime_now();

    return real + (mono_ns >= now ? (double)(mono_ns - now) : -(double)(now - mono_ns)) / 1e9;
}

uint64_t sb_instance_wait_start(const struct sb_instance *inst, bool (*stop)(void))
{
    uint64_t now, at;
    double ahead;

    if (inst->start_at <= 0)
        return 0;
    now = sb_now_ns();
    ahead = inst->start_at - realtime_now();
    /* Slightly late (slow connections): keep the common grid, the first
     * slots start at once. Later (the next points of a sweep): no grid. */
    if (ahead < -SB_INSTANCE_PAST_S) {
        sb_warn("--start-at passed %.1f s ago: this point starts now, not aligned with the other instances",
                -ahead);
        return 0;
    }
    if (ahead <= 0) {
        /* Said, because the first slots then run late or bunched, and a
         * closed loop's window starts before its threads could work (sb_ab
         * reads this to give its runs more time to set up). */
        if (ahead < -SB_INSTANCE_LATE_S)
            sb_notice("--start-at passed %.3f s before the threads were ready: the first slots "
                      "start at once", -ahead);
        return now - (uint64_t)fmin(-ahead * 1e9, (double)now);
    }
    at = now + (uint64_t)(ahead * 1e9);
    /* Sleep in short steps so a signal is noticed; wake 1 ms early so the
     * caller is ready when the schedule starts. */
    while (now + SB_NS_PER_MS < at) {
        uint64_t until = at - SB_NS_PER_MS;
        if (until > now + 50 * SB_NS_PER_MS)
            until = now + 50 * SB_NS_PER_MS;
        sb_sleep_until_ns(until);
        if (stop != NULL && stop())
            return 0;
        now = sb_now_ns();
    }
    return at;
}

void sb_instance_write_json(struct sb_json *j, const struct sb_instance *inst)
{
    sb_json_key(j, "instance");
    sb_json_begin_object(j);
    sb_json_kv_uint(j, "index", inst->index);
    sb_json_kv_uint(j, "count", inst->count > 0 ? inst->count : 1);
    if (inst->source != NULL)
        sb_json_kv_string(j, "source", inst->source);
    else
        sb_json_kv_null(j, "source");
    sb_json_kv_double(j, "start_at", inst->start_at > 0 ? inst->start_at : NAN);
    sb_json_kv_double(j, "clock_offset_s", inst->clock_offset_given ? inst->clock_offset_s : NAN);
    sb_json_end_object(j);
}
