/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ab command's runs: each target's run is this program started again
 * with the common options, the target's own and the round's seed, start
 * instant and result file; see sb_ab_int.h.
 *
 * Separate processes keep the two targets apart in everything a run
 * holds once per process (the driver options, the configuration), give
 * each target its own client CPU figure, and make each round an ordinary
 * run whose result file compare and merge can read.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compare/sb_ab_int.h"
#include "core/sb_json_read.h"
#include "core/sb_stop.h"
#include "results/sb_result_file.h"

extern char **environ;

/* Seconds a run may take beyond its lead, warmup, time and deadline
 * grace (set-up, teardown, writing its files) before it is stopped. */
#define RUN_SLACK_S 120.0
/* After a signal, seconds to let the runs end by themselves (they got
 * the terminal's SIGINT too), then to let them end after our SIGTERM. */
#define SIGNAL_GRACE_S 3.0
#define KILL_GRACE_S 10.0
/* The longest lead: a run that cannot set up in this long is stuck. */
#define LEAD_MAX_S 60.0

double sb_ab_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double mono_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

void sb_ab_round_path(const struct sb_ab *ab, unsigned round, int t, const char *suffix,
                      char *buf, size_t len)
{
    const char *dir = ab->args->keep_dir != NULL ? ab->args->keep_dir : ab->tmpdir;

    if (round == 0)
        snprintf(buf, len, "%s/%s-%s.%s", dir, ab->args->command, t == SB_AB_A ? "a" : "b",
                 suffix);
    else
        snprintf(buf, len, "%s/round%03u-%s.%s", dir, round, t == SB_AB_A ? "a" : "b", suffix);
}

/* One process of a round: a target's run or a hook. */
struct child {
    pid_t pid;
    int status;
    bool done;
    char log[PATH_MAX];
};

/* Starts argv with its output in c->log. Returns 0, or -1 with err. */
static int spawn(struct child *c, char *const *argv, char *err, size_t errlen)
{
    posix_spawn_file_actions_t fa;
    int rc;

    c->done = false;
    c->status = 0;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, c->log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    rc = posix_spawn(&c->pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        snprintf(err, errlen, "cannot start %s: %s", argv[0], strerror(rc));
        return -1;
    }
    return 0;
}

/*
 * Waits for the n children, at most limit_s seconds (0: no limit). After
 * a signal (the stop flag) they get SIGNAL_GRACE_S to end by themselves,
 * then SIGTERM, then SIGKILL; past the limit SIGTERM and SIGKILL alike.
 * Returns 0 when all ended in time, -1 when they had to be stopped.
 */
static int wait_children(struct child *c, size_t n, double limit_s)
{
    double t0 = mono_now(), stop_at = 0, term_at = 0;
    bool over = false;

    for (;;) {
        size_t left = 0;
        double now = mono_now();
        for (size_t i = 0; i < n; i++) {
            if (c[i].done)
                continue;
            if (waitpid(c[i].pid, &c[i].status, WNOHANG) == c[i].pid)
                c[i].done = true;
            else
                left++;
        }
        if (left == 0)
            return over ? -1 : 0;
        if (stop_at == 0 && (sb_stopping() || (limit_s > 0 && now - t0 > limit_s))) {
            over = true;
            stop_at = now;
        }
        if (stop_at > 0 && term_at == 0 && now - stop_at > SIGNAL_GRACE_S) {
            term_at = now;
            for (size_t i = 0; i < n; i++)
                if (!c[i].done)
                    kill(c[i].pid, SIGTERM);
        }
        if (term_at > 0 && now - term_at > KILL_GRACE_S)
            for (size_t i = 0; i < n; i++)
                if (!c[i].done)
                    kill(c[i].pid, SIGKILL);
        sleep_s(0.02);
    }
}

/* Copies s into buf (len bytes), cut to fit. */
static void copy_text(char *buf, size_t len, const char *s)
{
    size_t n = strnlen(s, len - 1);

    memcpy(buf, s, n);
    buf[n] = '\0';
}

/* The last line of c's output that says FATAL (else its last line),
 * into buf without the "FATAL: " prefix. */
static void failure_line(const struct child *c, char *buf, size_t len)
{
    FILE *f = fopen(c->log, "r");
    char line[1024];
    bool fatal = false;

    copy_text(buf, len, "no output");
    if (f == NULL)
        return;
    while (fgets(line, sizeof(line), f) != NULL) {
        const char *at = strstr(line, "FATAL: ");
        line[strcspn(line, "\n")] = '\0';
        if (at != NULL)
            copy_text(buf, len, at + 7);
        else if (!fatal && line[0] != '\0')
            copy_text(buf, len, line);
        fatal = fatal || at != NULL;
    }
    fclose(f);
}

/* Why child c (target t's run or hook) failed, or "" when it only ended
 * by the signal that stops the comparison. */
static void explain(const struct sb_ab *ab, const struct child *c, int t, const char *what,
                    unsigned round, char *err, size_t errlen)
{
    char line[768], when[32] = "";

    if (sb_stopping()) {
        err[0] = '\0';
        return;
    }
    if (round > 0)
        snprintf(when, sizeof(when), " in round %u", round);
    failure_line(c, line, sizeof(line));
    if (WIFSIGNALED(c->status))
        snprintf(err, errlen, "target '%s': its %s%s was killed by signal %d (%s)",
                 ab->args->label[t], what, when, WTERMSIG(c->status), c->log);
    else
        snprintf(err, errlen, "target '%s': %s%s failed: %s", ab->args->label[t], what, when,
                 line);
}

/* Words of a run's argv besides the common and the target's options:
 * the program, seed, start, result file, script, command, NULL. */
#define ARGV_EXTRA 7

/* The argv of target t's `command` into argv (room for ncommon +
 * nopts[t] + ARGV_EXTRA words), with its strings in the caller's
 * buffers; the target's options come after the common ones, so that
 * they win where both set one. */
static void build_argv(const struct sb_ab *ab, int t, const char *command, const char *exe,
                       char *seed, char *start_at, char *json, char **argv)
{
    const struct sb_ab_args *a = ab->args;
    size_t n = 0;

    argv[n++] = (char *)exe;
    for (size_t i = 0; i < a->ncommon; i++)
        argv[n++] = a->common[i];
    for (size_t i = 0; i < a->nopts[t]; i++)
        argv[n++] = a->opts[t][i];
    if (seed != NULL)
        argv[n++] = seed;
    if (start_at != NULL)
        argv[n++] = start_at;
    if (json != NULL)
        argv[n++] = json;
    argv[n++] = (char *)a->script;
    argv[n++] = (char *)command;
    argv[n] = NULL;
}

static const char *self_exe(char *buf, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", buf, len - 1);

    if (n <= 0)
        return NULL;
    buf[n] = '\0';
    return buf;
}

/* Starts target t's run of the round (or of `command` when round is 0). */
static int start_target(struct sb_ab *ab, int t, unsigned round, uint64_t seed, double start_at,
                        struct child *c, char *err, size_t errlen)
{
    const struct sb_ab_args *a = ab->args;
    char **argv = calloc(a->ncommon + a->nopts[t] + ARGV_EXTRA, sizeof(*argv));
    char exe[PATH_MAX], seed_arg[64], start_arg[64], json_arg[PATH_MAX + 8], path[PATH_MAX];
    const char *command = round > 0 ? "run" : a->command;
    int rc;

    if (argv == NULL || self_exe(exe, sizeof(exe)) == NULL) {
        free(argv);
        snprintf(err, errlen, "cannot start the runs: %s",
                 argv == NULL ? "out of memory" : "/proc/self/exe unreadable");
        return -1;
    }
    snprintf(seed_arg, sizeof(seed_arg), "--rand-seed=%llu", (unsigned long long)seed);
    snprintf(start_arg, sizeof(start_arg), "--start-at=%.6f", start_at);
    sb_ab_round_path(ab, round, t, "json", path, sizeof(path));
    snprintf(json_arg, sizeof(json_arg), "--json=%s", path);
    sb_ab_round_path(ab, round, t, "log", c->log, sizeof(c->log));
    build_argv(ab, t, command, exe, seed_arg, start_at > 0 ? start_arg : NULL,
               round > 0 ? json_arg : NULL, argv);
    rc = spawn(c, argv, err, errlen);
    free(argv);
    return rc;
}

/* Runs target t's before hook with sh -c. Returns 0, or -1 with err. */
static int run_hook(struct sb_ab *ab, int t, unsigned round, char *err, size_t errlen)
{
    const char *cmd = ab->args->before[t];
    char *argv[] = {"/bin/sh", "-c", (char *)cmd, NULL};
    struct child c;
    char suffix[32];

    if (cmd == NULL)
        return 0;
    snprintf(suffix, sizeof(suffix), "before.log");
    sb_ab_round_path(ab, round, t, suffix, c.log, sizeof(c.log));
    if (spawn(&c, argv, err, errlen) != 0)
        return -1;
    if (wait_children(&c, 1, 0) != 0 || !WIFEXITED(c.status) || WEXITSTATUS(c.status) != 0) {
        explain(ab, &c, t, t == SB_AB_A ? "--a-before hook" : "--b-before hook", round, err,
                errlen);
        return -1;
    }
    return 0;
}

/* The server's identity in doc, for telling whether a and b are one
 * server: its processes when local, else its data directory and port,
 * else an SQLite file's full path. */
static void server_identity(const struct sb_jv *doc, char *buf, size_t len)
{
    const char *procs = sb_jv_str(sb_jv_path(doc, "points.0.final.cpu.server_processes"));
    const struct sb_jv *set = sb_jv_path(doc, "environment.server.settings");
    const char *dir = sb_jv_str(sb_jv_get(set, "datadir")), *port = sb_jv_str(sb_jv_get(set, "port"));
    const char *db = sb_jv_str(sb_jv_path(doc, "options.drivers.sqlite.sqlite-db"));
    const char *driver = sb_jv_str(sb_jv_path(doc, "environment.driver"));
    const char *host = sb_jv_str(sb_jv_get(set, "hostname"));
    char full[PATH_MAX];

    buf[0] = '\0';
    if (dir == NULL)
        dir = sb_jv_str(sb_jv_get(set, "data_directory"));
    if (procs != NULL && strncmp(procs, "pid ", 4) == 0) {
        copy_text(buf, len, procs);
    } else if (dir != NULL) {
        snprintf(buf, len, "%.40s %.80s port %.10s", host != NULL ? host : "", dir,
                 port != NULL ? port : "?");
    } else if (driver != NULL && strcmp(driver, "sqlite") == 0 && db != NULL) {
        copy_text(buf, len, "sqlite ");
        copy_text(buf + 7, len - 7, realpath(db, full) != NULL ? full : db);
    }
}

/* Copies the self-check verdict of doc's point into s. */
static void read_selfcheck(const struct sb_jv *doc, struct sb_ab_side *s)
{
    const struct sb_jv *sc = sb_jv_path(doc, "points.0.selfcheck");
    const struct sb_jv *flags = sb_jv_get(sc, "flags");
    size_t used = 0;

    s->flagged = sc != NULL && !sb_jv_true(sb_jv_get(sc, "ok"));
    s->flags[0] = '\0';
    for (size_t i = 0; s->flagged && sb_jv_at(flags, i) != NULL; i++) {
        const char *f = sb_jv_str(sb_jv_at(flags, i));
        int w = snprintf(s->flags + used, sizeof(s->flags) - used, "%s%s", i ? "," : "",
                         f ? f : "?");
        if (w < 0 || (size_t)w >= sizeof(s->flags) - used)
            break;
        used += (size_t)w;
    }
}

/* Reads target t's figures of the round from its result file. */
/* When the run's first event was dispatched (scale-out's measured start),
 * or NaN. */
static double first_dispatch(const struct sb_jv *doc)
{
    const struct sb_jv *v = sb_jv_get(sb_jv_at(sb_jv_get(doc, "points"), 0),
                                      "first_dispatch_unix_s");

    return v != NULL && v->type == SB_JV_NUMBER ? sb_jv_num(v) : NAN;
}

static int read_side(struct sb_ab *ab, unsigned round, int t, struct sb_ab_side *s, char *err,
                     size_t errlen)
{
    char path[PATH_MAX], e[512];
    struct sb_jv *doc;
    struct sb_result_file rf;
    const struct sb_point_result *p;
    int rc = -1;

    sb_ab_round_path(ab, round, t, "json", path, sizeof(path));
    if ((doc = sb_jv_parse_file(path, e, sizeof(e))) == NULL) {
        snprintf(err, errlen, "target '%s': round %u's result: %s", ab->args->label[t], round, e);
        return -1;
    }
    memset(&rf, 0, sizeof(rf));
    if (sb_result_file_from_json(&rf, doc, path, ab->args->label[t], e, sizeof(e)) != 0) {
        snprintf(err, errlen, "target '%s': round %u's result: %s", ab->args->label[t], round, e);
        goto done;
    }
    p = &rf.points[0];
    if (!sb_point_result_complete(p)) {
        snprintf(err, errlen, "target '%s': round %u's run left no complete result (%s)",
                 ab->args->label[t], round, path);
        goto done;
    }
    for (int f = 0; f < SB_AB_NFIGS; f++)
        s->fig[f] = sb_point_result_fig(p, sb_ab_figs[f].fig, sb_ab_figs[f].pct);
    s->start_unix_s = p->start_unix_s;
    s->first_dispatch_unix_s = first_dispatch(doc);
    read_selfcheck(doc, s);
    server_identity(doc, s->server, sizeof(s->server));
    rc = 0;
done:
    sb_result_file_free(&rf);
    sb_jv_free(doc);
    return rc;
}

/* Both targets of a duet round at once, started together at one instant;
 * the one going first is spawned first. */
static int run_duet(struct sb_ab *ab, struct sb_ab_round *r, double start_at, struct child *c,
                    char *err, size_t errlen)
{
    const struct sb_ab_args *a = ab->args;
    int order[2] = {r->a_first ? SB_AB_A : SB_AB_B, r->a_first ? SB_AB_B : SB_AB_A};

    for (int i = 0; i < 2; i++)
        if (start_target(ab, order[i], r->index, r->seed, start_at, &c[order[i]], err, errlen) != 0) {
            if (i == 1) {
                kill(c[order[0]].pid, SIGTERM);
                waitpid(c[order[0]].pid, NULL, 0);
            }
            return -1;
        }
    if (wait_children(c, 2, ab->lead_s + a->warmup_s + a->time_s + RUN_SLACK_S) != 0 &&
        !sb_stopping()) {
        snprintf(err, errlen, "round %u did not end within %.0f s; its runs were stopped (%s)",
                 r->index, ab->lead_s + a->warmup_s + a->time_s + RUN_SLACK_S, c[0].log);
        return -1;
    }
    return 0;
}

/* One target after the other, each after its hook. */
static int run_interleaved(struct sb_ab *ab, struct sb_ab_round *r, struct child *c, char *err,
                           size_t errlen)
{
    const struct sb_ab_args *a = ab->args;
    int order[2] = {r->a_first ? SB_AB_A : SB_AB_B, r->a_first ? SB_AB_B : SB_AB_A};

    for (int i = 0; i < 2 && !sb_stopping(); i++) {
        int t = order[i];
        if (run_hook(ab, t, r->index, err, errlen) != 0)
            return -1;
        if (start_target(ab, t, r->index, r->seed, 0, &c[t], err, errlen) != 0)
            return -1;
        if (wait_children(&c[t], 1, a->warmup_s + a->time_s + RUN_SLACK_S) != 0 &&
            !sb_stopping()) {
            snprintf(err, errlen, "target '%s' did not end round %u within %.0f s; its run was "
                     "stopped (%s)", a->label[t], r->index, a->warmup_s + a->time_s + RUN_SLACK_S,
                     c[t].log);
            return -1;
        }
        if (!WIFEXITED(c[t].status) || WEXITSTATUS(c[t].status) != 0) {
            explain(ab, &c[t], t, "run", r->index, err, errlen);
            return -1;
        }
    }
    return 0;
}

/* Whether run c says it was not ready at its --start-at (sb_instance.c
 * prints that notice, or the warning of a start further past), or did
 * not even reach its option checks before the instant had long passed
 * (its one error line: a loaded machine under a sanitizer took over
 * 10 s to start a run). */
static bool started_late(const struct child *c)
{
    FILE *f = fopen(c->log, "r");
    char line[1024];
    bool late = false;

    if (f == NULL)
        return false;
    while (!late && fgets(line, sizeof(line), f) != NULL)
        late = strstr(line, "--start-at passed") != NULL ||
               strstr(line, " s in the past: give a time far enough ahead") != NULL;
    fclose(f);
    return late;
}

int sb_ab_run_round(struct sb_ab *ab, struct sb_ab_round *r, char *err, size_t errlen)
{
    struct child c[2];
    double t0 = mono_now(), start_at = sb_ab_now() + ab->lead_s;
    int rc;

    err[0] = '\0';
    memset(c, 0, sizeof(c));
    c[0].done = c[1].done = true;
    r->started_unix_s = sb_ab_now();
    if (ab->args->mode == SB_AB_DUET)
        rc = run_duet(ab, r, start_at, c, err, errlen);
    else
        rc = run_interleaved(ab, r, c, err, errlen);
    if (rc != 0 || sb_stopping())
        return -1;
    /* A run not ready at the common instant measured a window it partly
     * could not work in (or refused an instant long past): the round
     * does not count, and the next try gives set-up twice the time. */
    if (ab->args->mode == SB_AB_DUET && (started_late(&c[0]) || started_late(&c[1]))) {
        if (ab->lead_s >= LEAD_MAX_S) {
            snprintf(err, errlen, "round %u: a run was still setting up %.0f s after it started "
                     "(%s)", r->index, LEAD_MAX_S, started_late(&c[0]) ? c[0].log : c[1].log);
            return -1;
        }
        ab->lead_s = fmin(ab->lead_s * 2, LEAD_MAX_S);
        return 1;
    }
    for (int t = 0; t < 2; t++)
        if (!WIFEXITED(c[t].status) || WEXITSTATUS(c[t].status) != 0) {
            explain(ab, &c[t], t, "run", r->index, err, errlen);
            return -1;
        }
    for (int t = 0; t < 2; t++)
        if (read_side(ab, r->index, t, &r->side[t], err, errlen) != 0)
            return -1;
    r->wall_s = mono_now() - t0;
    return 0;
}

/* Prints the output of target t's command, each line after its label. */
static void print_output(const struct sb_ab *ab, const struct child *c, int t, FILE *out)
{
    FILE *f = fopen(c->log, "r");
    char line[1024];

    if (f == NULL)
        return;
    while (fgets(line, sizeof(line), f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] != '\0')
            fprintf(out, "[%s] %s\n", ab->args->label[t], line);
    }
    fclose(f);
}

int sb_ab_run_command(struct sb_ab *ab, FILE *out, char *err, size_t errlen)
{
    struct child c[2];
    int rc = 0;
    bool together = ab->args->mode == SB_AB_DUET;

    err[0] = '\0';
    memset(c, 0, sizeof(c));
    c[0].done = c[1].done = true;
    for (int t = 0; t < 2 && rc == 0; t++) {
        if (!together && run_hook(ab, t, 0, err, errlen) != 0)
            rc = -1;
        else if (start_target(ab, t, 0, ab->args->seed, 0, &c[t], err, errlen) != 0)
            rc = -1;
        else if (!together)
            wait_children(&c[t], 1, 0);
    }
    if (together)
        wait_children(c, 2, 0);
    for (int t = 0; t < 2; t++) {
        if (c[t].pid == 0)
            continue;
        print_output(ab, &c[t], t, out);
        if (rc == 0 && (!WIFEXITED(c[t].status) || WEXITSTATUS(c[t].status) != 0)) {
            explain(ab, &c[t], t, ab->args->command, 0, err, errlen);
            rc = -1;
        }
    }
    return rc;
}

double sb_ab_log_ratio(const struct sb_ab_round *r, int f)
{
    double a = r->side[SB_AB_A].fig[f], b = r->side[SB_AB_B].fig[f];

    return a > 0 && b > 0 && isfinite(a) && isfinite(b) ? log(b / a) : NAN;
}
