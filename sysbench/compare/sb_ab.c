/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ab command: rounds, looks and the analysis; see sb_ab.h.
 */
#include "config.h"

#include "compare/sb_ab.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compare/sb_ab_int.h"
#include "compare/sb_verdict.h"
#include "core/sb_log.h"
#include "core/sb_stop.h"
#include "plot/sb_plot.h"
#include "plot/sb_plot_ab.h"
#include "pure/sb_histogram.h"
#include "pure/sb_rand.h"

/* The chance of a false better/worse on the primary figure, over all
 * looks, and of any among the other figures. */
#define AB_ALPHA 0.05
/* Simulated comparisons behind the calibration of the looks' alpha
 * (sb_seq_calibrate): a standard error of 0.1 percentage point. */
#define CALIBRATION_SIMS 50000

/* The first round's lead, the time a run has to start, load its script
 * and connect before the common start instant: half a second and 2 ms
 * a connection; doubled whenever a run was not ready in time. */
#define FIRST_LEAD_S 0.5
#define LEAD_PER_THREAD_S 0.002

/* The signal that stops the comparison (the stop flag says that one
 * came; this says which, for the exit status). */
static volatile sig_atomic_t ab_signal;

static void on_signal(int sig)
{
    ab_signal = sig;
    sb_request_stop(SB_STOP_SIGNAL);
}

static void usage(FILE *out)
{
    fprintf(out,
            "Usage:\n"
            "  sysbench ab --a='OPTIONS' --b='OPTIONS' [ab options] SCRIPT [options] "
            "prepare|run|cleanup\n\n"
            "Runs SCRIPT against two targets in rounds of short runs (--time each) and says\n"
            "whether b differs from a: better or worse, equivalent within --margin, or\n"
            "inconclusive with the smallest change the comparison could have seen.\n"
            "OPTIONS are any run options for one target (--mysql-port=3307, a socket, a\n"
            "host, script options, --sqlite-db=FILE); the other options go to both.\n\n"
            "  --mode=duet|interleaved  duet: both targets at once, started together, each\n"
            "                           with its own client threads (default); interleaved:\n"
            "                           one after the other, in a random order per round\n"
            "  --a-before=CMD, --b-before=CMD\n"
            "                           shell command run before each of the target's turns\n"
            "                           (restart a server with another build); interleaved\n"
            "  --budget=TIME            stop after this long at most (600, 90s, 10m, 1h) [10m]\n"
            "  --rounds=N               at most N rounds (default: what the budget allows)\n"
            "  --stop=early|end         early: stop at the first look that decides (default);\n"
            "                           end: one test after the last round\n"
            "  --margin=PCT             ratios within 1/(1+PCT)..1+PCT count as no change [2%%]\n"
            "  --primary=FIGURE         the figure judged: tps, p95, p99, client-cpu,\n"
            "                           server-cpu (default: tps in a closed loop, server-cpu\n"
            "                           at a fixed --tx-rate/--rate)\n"
            "  --aa                     A/A calibration: --a's options on both sides\n"
            "  --labels=A,B             names of the targets [a,b]\n"
            "  --json=FILE              every round and the analysis as JSON\n"
            "  --plot=FILE.png|.svg     per-round ratios and the interval narrowing\n"
            "  --ab-dir=DIR             keep every run's result file and output in DIR\n\n"
            "Rounds alternate which target starts first, and the analysis removes that\n"
            "position's effect. The primary figure is judged at 5%% over all looks\n"
            "(O'Brien-Fleming-type alpha spending); the others at 5%% together (Bonferroni).\n");
}

bool sb_ab_requested(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1] != '\0')
            continue;
        return strcmp(argv[i], "ab") == 0;
    }
    return false;
}

double sb_ab_log_ratio(const struct sb_ab_round *r, int f)
{
    double a = r->side[SB_AB_A].fig[f], b = r->side[SB_AB_B].fig[f];

    return a > 0 && b > 0 && isfinite(a) && isfinite(b) ? log(b / a) : NAN;
}

/* Whether figure f is a figure of each target on its own: side by side,
 * the machine's CPU is both targets'. */
static bool per_target(const struct sb_ab *ab, int f)
{
    return f != SB_AB_CPU_MACHINE || ab->args->mode == SB_AB_INTERLEAVED;
}

/* Each side's geometric mean of figure f over the rounds that have it,
 * both orders weighing alike, as the ratio's estimate does. */
static void side_values(const struct sb_ab *ab, int f, double *value)
{
    for (int t = 0; t < 2; t++) {
        double sum[2] = {0, 0};
        size_t cnt[2] = {0, 0};
        for (size_t i = 0; i < ab->nrounds; i++) {
            const struct sb_ab_round *r = &ab->rounds[i];
            if (isnan(sb_ab_log_ratio(r, f)))
                continue;
            sum[r->a_first] += log(r->side[t].fig[f]);
            cnt[r->a_first]++;
        }
        if (cnt[0] > 0 && cnt[1] > 0)
            value[t] = exp((sum[0] / (double)cnt[0] + sum[1] / (double)cnt[1]) / 2);
        else if (cnt[0] + cnt[1] > 0)
            value[t] = exp((sum[0] + sum[1]) / (double)(cnt[0] + cnt[1]));
        else
            value[t] = NAN;
    }
}

static const char *verdict_name(const struct sb_seq_decision *d, int f)
{
    switch (d->v) {
    case SB_SEQ_DIFFERENT:
        return (d->ratio > 1) == sb_ab_figs[f].higher_is_better ? "better" : "worse";
    case SB_SEQ_EQUIVALENT:
        return "equivalent";
    case SB_SEQ_INCONCLUSIVE:
        return "inconclusive";
    default:
        return "undecided";
    }
}

/* Estimates figure f over the rounds (fig->present says whether every
 * round had it on both sides). */
static void estimate(const struct sb_ab *ab, int f, struct sb_ab_figure *fig)
{
    double *x = malloc((ab->nrounds + 1) * sizeof(*x));
    bool *first = malloc((ab->nrounds + 1) * sizeof(*first));
    size_t have = 0;

    memset(fig, 0, sizeof(*fig));
    fig->est.d = fig->est.se = NAN;
    fig->value[0] = fig->value[1] = NAN;
    if (x != NULL && first != NULL) {
        for (size_t i = 0; i < ab->nrounds; i++) {
            x[i] = sb_ab_log_ratio(&ab->rounds[i], f);
            first[i] = ab->rounds[i].a_first;
            have += !isnan(x[i]);
        }
        fig->present = per_target(ab, f) && have == ab->nrounds && have > 0;
        sb_seq_estimate(x, first, ab->nrounds, &fig->est);
        side_values(ab, f, fig->value);
    }
    free(x);
    free(first);
}

void sb_ab_analyse(struct sb_ab *ab, bool final)
{
    /* A percentile is a histogram bucket's bound: the ratio of two is
     * known to a bucket's width either way (as compare widens it). */
    double widen_latency = 1 + 1.0 / (double)(1u << SB_HIST_SUB_BITS);
    size_t m = 0;

    for (int f = 0; f < SB_AB_NFIGS; f++) {
        estimate(ab, f, &ab->figs[f]);
        m += f != ab->primary && ab->figs[f].present;
    }
    ab->nsecondary = m;
    for (int f = 0; f < SB_AB_NFIGS; f++) {
        struct sb_ab_figure *fig = &ab->figs[f];
        double widen = sb_ab_figs[f].fig == SB_POINT_RESULT_LATENCY ? widen_latency : 1;
        if (f == ab->primary)
            sb_seq_decide(&fig->est, ab->nominal, widen, ab->args->margin, final, &fig->dec);
        else
            sb_seq_decide(&fig->est, m > 0 ? AB_ALPHA / (double)m : AB_ALPHA, widen,
                          ab->args->margin, true, &fig->dec);
        fig->dec.detectable = sb_seq_detectable(&fig->est, f == ab->primary ? ab->nominal
                                                : m > 0 ? AB_ALPHA / (double)m : AB_ALPHA, widen);
        fig->verdict = fig->present ? verdict_name(&fig->dec, f) : "-";
    }
}

/* The primary figure, once round 1 shows what was measured. Returns 0,
 * or -1 with err when the figure asked for was not measured. */
static int choose_primary(struct sb_ab *ab, char *err, size_t errlen)
{
    const struct sb_ab_round *r = &ab->rounds[0];
    int want = ab->args->primary;

    if (want >= 0) {
        if (isnan(sb_ab_log_ratio(r, want)))
            return snprintf(err, errlen, "--primary=%s: the first round did not measure it on "
                            "both targets (a remote server, or an embedded one, has no "
                            "server CPU)", sb_ab_figs[want].key), -1;
        ab->primary = want;
        ab->primary_why = "--primary";
    } else if (!ab->args->rated) {
        ab->primary = SB_AB_TPS;
        ab->primary_why = "closed loop: throughput";
    } else if (!isnan(sb_ab_log_ratio(r, SB_AB_CPU_SERVER))) {
        ab->primary = SB_AB_CPU_SERVER;
        ab->primary_why = "fixed rate: the server's CPU per transaction";
    } else {
        ab->primary = SB_AB_CPU_CLIENT;
        ab->primary_why = "fixed rate, server CPU not measured: the client's CPU per transaction";
    }
    return 0;
}

/* Lists what differs between the first round's two result files (the
 * servers' settings and builds above all), as compare does. */
static void print_differences(struct sb_ab *ab, FILE *out)
{
    char pa[PATH_MAX], pb[PATH_MAX], err[256];
    const char *paths[2] = {pa, pb};
    char *labels[2] = {(char *)ab->args->label[0], (char *)ab->args->label[1]};

    sb_ab_round_path(ab, 1, SB_AB_A, "json", pa, sizeof(pa));
    sb_ab_round_path(ab, 1, SB_AB_B, "json", pb, sizeof(pb));
    if (sb_verdict_print_diffs(out, paths, labels, 2, err, sizeof(err)) < 0)
        fprintf(out, "(differences not listed: %s)\n\n", err);
}

/* After round 1: the primary figure, the plan, the server check. */
static int after_first_round(struct sb_ab *ab, FILE *out, char *err, size_t errlen)
{
    const struct sb_ab_round *r = &ab->rounds[0];
    size_t allows = (size_t)(ab->args->budget_s / fmax(r->wall_s, 0.001));

    if (choose_primary(ab, err, errlen) != 0)
        return -1;
    ab->planned = ab->args->max_rounds > 0 ? ab->args->max_rounds : allows;
    if (ab->planned < SB_SEQ_MIN_ROUNDS) {
        fprintf(out, "NOTE: a round takes %.1f s, so --budget=%.0fs allows %zu round%s; "
                "running the minimum of %d.\n", r->wall_s, ab->args->budget_s, allows,
                allows == 1 ? "" : "s", SB_SEQ_MIN_ROUNDS);
        ab->planned = SB_SEQ_MIN_ROUNDS;
    }
    ab->spend = ab->args->stop_at_end ? AB_ALPHA
                                      : sb_seq_calibrate(ab->planned, AB_ALPHA, CALIBRATION_SIMS,
                                                         ab->args->seed);
    sb_seq_design_free(&ab->design);
    sb_seq_design_init(&ab->design, ab->spend);
    ab->same_server = r->side[0].server[0] != '\0' &&
                      strcmp(r->side[0].server, r->side[1].server) == 0;
    if (ab->args->aa)
        fprintf(out, "A/A calibration: both sides run --a's options.\n");
    else if (strcmp(ab->args->spec[0], ab->args->spec[1]) == 0)
        fprintf(out, "WARNING: --a and --b are the same options: this compares one target with "
                "itself (--aa says so).\n");
    else if (ab->same_server)
        fprintf(out, "WARNING: '%s' and '%s' are the same server (%s): this compares two "
                "clients of one server, not two builds.\n", ab->args->label[0],
                ab->args->label[1], r->side[0].server);
    print_differences(ab, out);
    fprintf(out, "Primary figure: %s (%s); up to %zu rounds.\n\n", sb_ab_figs[ab->primary].name,
            ab->primary_why, ab->planned);
    return 0;
}

/* Whether target A goes first in round n: alternately side by side;
 * interleaved, a random order for each pair of rounds and the other
 * order in the pair's second round, so both orders stay balanced. */
static bool a_first_in(struct sb_ab *ab, size_t n, struct sb_rand *rng)
{
    if (ab->args->mode == SB_AB_DUET || n == 1)
        return n % 2 == 1;
    if (n % 2 == 1)
        return sb_rand_next_u64(rng) & 1;
    return !ab->rounds[n - 2].a_first;
}

/* Mean wall time of a round so far. */
static double round_wall(const struct sb_ab *ab)
{
    double s = 0;

    for (size_t i = 0; i < ab->nrounds; i++)
        s += ab->rounds[i].wall_s;
    return ab->nrounds ? s / (double)ab->nrounds : 0;
}

/* Whether the budget leaves room for another round after this one. */
static bool room_for_another(const struct sb_ab *ab)
{
    double used = sb_ab_now() - ab->started_unix_s;

    if (ab->nrounds < SB_SEQ_MIN_ROUNDS)
        return true;
    if (ab->nrounds >= ab->planned)
        return false;
    return used + round_wall(ab) <= ab->args->budget_s;
}

/* Keeps the primary figure's interval at this look. */
static void record_look(struct sb_ab *ab)
{
    const struct sb_seq_decision *d = &ab->figs[ab->primary].dec;
    struct sb_ab_look *p = realloc(ab->looks, (ab->nlooks + 1) * sizeof(*p));

    if (p == NULL)
        return; /* the chart and the JSON lose a look, nothing else */
    ab->looks = p;
    p[ab->nlooks++] = (struct sb_ab_look){ab->nrounds, ab->nominal, d->ratio, d->lo, d->hi};
}

/* Takes a look after the round just run, when the plan has one there
 * (or no more rounds will come). Returns whether the comparison ends. */
static bool look(struct sb_ab *ab)
{
    size_t n = ab->nrounds;
    bool final = !room_for_another(ab), stop;
    double tau = final ? 1 : (double)n / (double)ab->planned, nominal;

    if (n < SB_SEQ_MIN_ROUNDS ||
        (!final && (ab->args->stop_at_end || !sb_seq_is_look(n, ab->last_look, ab->planned))))
        return false;
    if (isnan(sb_seq_design_look(&ab->design, (double)n, tau, &nominal)))
        return final;
    ab->nominal = nominal;
    ab->last_look = n;
    ab->final = final;
    sb_ab_analyse(ab, final);
    record_look(ab);
    stop = ab->figs[ab->primary].dec.v != SB_SEQ_CONTINUE;
    ab->decided = stop && !final;
    return stop || final;
}

static int add_round(struct sb_ab *ab, struct sb_ab_round **r)
{
    if (ab->nrounds == ab->cap) {
        size_t cap = ab->cap ? ab->cap * 2 : 16;
        struct sb_ab_round *p = realloc(ab->rounds, cap * sizeof(*p));
        if (p == NULL)
            return -1;
        ab->rounds = p;
        ab->cap = cap;
    }
    *r = &ab->rounds[ab->nrounds];
    memset(*r, 0, sizeof(**r));
    return 0;
}

/* Runs rounds until the primary figure decides, the budget or the
 * planned rounds are spent, or a signal comes. Returns 0, or -1 with err
 * (empty after a signal). */
static int run_rounds(struct sb_ab *ab, FILE *out, char *err, size_t errlen)
{
    struct sb_rand rng;
    struct sb_rand_params params;

    sb_rand_params_default(&params);
    sb_rand_seed_stream(&rng, ab->args->seed, 0, &params);
    for (;;) {
        struct sb_ab_round *r;
        if (add_round(ab, &r) != 0)
            return snprintf(err, errlen, "out of memory"), -1;
        r->index = (unsigned)ab->nrounds + 1;
        r->a_first = a_first_in(ab, r->index, &rng);
        r->seed = ab->args->seed + r->index;
        int rc = sb_ab_run_round(ab, r, err, errlen);
        if (rc < 0)
            return -1;
        if (rc > 0) {
            fprintf(out, "round %3u: a run was not ready at the common start; set-up now gets "
                    "%.1f s, and the round runs again\n", r->index, ab->lead_s);
            continue;
        }
        ab->nrounds++;
        if (ab->nrounds == 1 && after_first_round(ab, out, err, errlen) != 0)
            return -1;
        if (look(ab)) {
            sb_ab_print_progress(ab, out);
            return 0;
        }
        if (ab->last_look != ab->nrounds)
            sb_ab_analyse(ab, false);
        sb_ab_print_progress(ab, out);
    }
}

/* Removes the runs' files and the temporary directory. */
static void remove_tmpdir(struct sb_ab *ab)
{
    DIR *d;
    struct dirent *e;
    char path[PATH_MAX + 300];

    if (ab->tmpdir[0] == '\0' || (d = opendir(ab->tmpdir)) == NULL)
        return;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s", ab->tmpdir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(ab->tmpdir);
}

static int make_dirs(struct sb_ab *ab, char *err, size_t errlen)
{
    const char *keep = ab->args->keep_dir;

    if (keep != NULL && mkdir(keep, 0755) != 0 && errno != EEXIST)
        return snprintf(err, errlen, "--ab-dir=%s: %s", keep, strerror(errno)), -1;
    snprintf(ab->tmpdir, sizeof(ab->tmpdir), "/tmp/sysbench-ab.XXXXXX");
    if (mkdtemp(ab->tmpdir) == NULL) {
        snprintf(err, errlen, "cannot create a temporary directory: %s", strerror(errno));
        ab->tmpdir[0] = '\0';
        return -1;
    }
    return 0;
}

static void print_header(const struct sb_ab *ab, FILE *out)
{
    const struct sb_ab_args *a = ab->args;

    fprintf(out, "sysbench ab: '%s' against '%s', %s, rounds of %g s, budget %.0f s, margin "
            "+-%g%%, seed %llu\n", a->label[1], a->label[0],
            a->mode == SB_AB_DUET ? "side by side (duet)" : "one after the other (interleaved)",
            a->time_s, a->budget_s, a->margin * 100, (unsigned long long)a->seed);
    fflush(out);
}

/* The --plot chart of the primary figure, from the rounds and looks. */
static int draw(const struct sb_ab *ab, FILE *out, char *err, size_t errlen)
{
    size_t n = ab->nrounds, nl = ab->nlooks;
    double *ratio = calloc(n + 1, sizeof(double)), *lr = calloc(nl + 1, sizeof(double));
    double *lo = calloc(nl + 1, sizeof(double)), *hi = calloc(nl + 1, sizeof(double));
    bool *first = calloc(n + 1, sizeof(bool));
    size_t *round = calloc(nl + 1, sizeof(size_t));
    const struct sb_ab_figure *p = &ab->figs[ab->primary];
    char title[256];
    int rc = -1;

    if (ratio == NULL || lr == NULL || lo == NULL || hi == NULL || first == NULL || round == NULL) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        ratio[i] = exp(sb_ab_log_ratio(&ab->rounds[i], ab->primary));
        first[i] = ab->rounds[i].a_first;
    }
    for (size_t i = 0; i < nl; i++) {
        round[i] = ab->looks[i].round;
        lr[i] = ab->looks[i].ratio;
        lo[i] = ab->looks[i].lo;
        hi[i] = ab->looks[i].hi;
    }
    snprintf(title, sizeof(title), "%s against %s, %s: %s, %.3fx [%.3f, %.3f] after %zu rounds",
             ab->args->label[1], ab->args->label[0], sb_ab_figs[ab->primary].name, p->verdict,
             p->dec.ratio, p->dec.lo, p->dec.hi, n);
    rc = sb_plot_ab(&(struct sb_plot_ab_data){title, sb_ab_figs[ab->primary].name,
                                              ab->args->label[0], ab->args->label[1], n, ratio,
                                              first, nl, round, lr, lo, hi, ab->args->margin},
                    ab->args->plot, out, err, errlen);
done:
    free(ratio);
    free(lr);
    free(lo);
    free(hi);
    free(first);
    free(round);
    return rc;
}

/* Runs the comparison (command run) and reports it. */
static int compare_run(struct sb_ab *ab, int argc, char **argv, FILE *out, char *err,
                       size_t errlen)
{
    int rc;

    print_header(ab, out);
    rc = run_rounds(ab, out, err, errlen);
    if (rc != 0 && err[0] != '\0')
        return -1;
    if (ab_signal != 0)
        ab->signal = ab_signal;
    if (ab->nrounds == 0 || ab->last_look == 0) {
        if (ab->signal != 0)
            fprintf(out, "Interrupted after %zu round%s: too few for a comparison.\n",
                    ab->nrounds, ab->nrounds == 1 ? "" : "s");
        return 0;
    }
    sb_ab_print_report(ab, out);
    if (ab->args->json != NULL && sb_ab_write_json(ab, argc, argv, err, errlen) != 0)
        return -1;
    if (ab->args->plot != NULL && draw(ab, out, err, errlen) != 0)
        return -1;
    return 0;
}

int sb_ab_main(int argc, char **argv, FILE *out)
{
    struct sb_ab_args args;
    struct sb_ab ab;
    struct sigaction sa;
    char err[2048] = "";
    int rc = 1;

    memset(&ab, 0, sizeof(ab));
    ab.args = &args;
    ab.lead_s = FIRST_LEAD_S;
    ab.primary = SB_AB_TPS;
    ab.spend = AB_ALPHA;
    sb_seq_design_init(&ab.design, AB_ALPHA);
    if (sb_ab_args_parse(&args, argc, argv, err, sizeof(err)) != 0)
        goto done;
    if (args.help) {
        usage(out);
        rc = 0;
        goto done;
    }
    if (args.plot != NULL && sb_plot_check(args.plot, err, sizeof(err)) != 0)
        goto done;
    if (make_dirs(&ab, err, sizeof(err)) != 0)
        goto done;
    ab.lead_s = FIRST_LEAD_S + LEAD_PER_THREAD_S * (args.threads > 0 ? args.threads : 1);
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    ab.started_unix_s = sb_ab_now();
    if (strcmp(args.command, "run") != 0)
        rc = sb_ab_run_command(&ab, out, err, sizeof(err)) == 0 ? 0 : 1;
    else
        rc = compare_run(&ab, argc, argv, out, err, sizeof(err)) == 0 ? 0 : 1;
    if (ab_signal != 0)
        rc = 128 + ab_signal;
done:
    if (rc == 1 && err[0] != '\0')
        sb_fatal("%s", err);
    fflush(out);
    remove_tmpdir(&ab);
    sb_seq_design_free(&ab.design);
    free(ab.rounds);
    free(ab.looks);
    sb_ab_args_free(&args);
    return rc;
}
