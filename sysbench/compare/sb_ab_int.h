/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_AB_INT_H
#define SB_AB_INT_H

/*
 * What the files of the ab command share: its arguments, the figures it
 * judges, the rounds it ran and the analysis of them. sb_ab_args.c parses,
 * sb_ab_run.c runs the targets, sb_ab.c drives the rounds and judges,
 * sb_ab_report.c prints and writes the result.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pure/sb_seqtest.h"
#include "results/sb_point_result.h"

enum sb_ab_mode {
    SB_AB_DUET = 0,           /* both targets at once */
    SB_AB_INTERLEAVED         /* one after the other, random order */
};

/* The figures of a round, per target. */
enum sb_ab_fig {
    SB_AB_TPS = 0,
    SB_AB_P95,
    SB_AB_P99,
    SB_AB_CPU_CLIENT,
    SB_AB_CPU_SERVER,
    SB_AB_CPU_MACHINE,
    SB_AB_NFIGS
};

struct sb_ab_fig_def {
    const char *key;          /* --primary value and JSON name */
    const char *name;         /* in the table */
    enum sb_point_result_fig fig;
    double pct;               /* latency percentile */
    bool higher_is_better;
};

/* The figures, indexed by enum sb_ab_fig. */
extern const struct sb_ab_fig_def sb_ab_figs[SB_AB_NFIGS];

/* The two targets. */
enum { SB_AB_A = 0, SB_AB_B = 1 };

struct sb_ab_args {
    enum sb_ab_mode mode;
    bool mode_given;
    double budget_s;          /* --budget; 600 by default */
    double margin;            /* --margin as a fraction; 0.02 by default */
    int primary;              /* enum sb_ab_fig, or -1: by the mode */
    bool aa;                  /* --aa: A's options on both sides */
    size_t max_rounds;        /* --rounds; 0: as many as the budget allows */
    bool stop_at_end;         /* --stop=end: one look, after the last round */
    char *spec[2];            /* --a, --b as given (owned copies once parsed) */
    char **opts[2];           /* the words of spec (owned, NULL-ended) */
    size_t nopts[2];
    const char *before[2];    /* --a-before, --b-before (borrowed) */
    const char *label[2];     /* "a", "b" or --labels (owned copies) */
    const char *json;         /* --json, or NULL */
    const char *plot;         /* --plot, or NULL */
    const char *keep_dir;     /* --ab-dir: keep every run's files there */
    char **common;            /* options for every run (in order; owned
                                 copies once parsed) */
    size_t ncommon;
    bool owns_copies;         /* spec[] and common[i] are copies to free */
    const char *script, *command;
    double time_s;            /* --time of a round */
    unsigned threads;         /* --threads, for the duet's first lead */
    double warmup_s;          /* --warmup-time */
    uint64_t seed;            /* --rand-seed, or from the clock */
    bool rated;               /* --tx-rate or --rate given */
    bool help;
};

/*
 * Parses argv. Returns 0, or -1 with one line in err. a owns its
 * opts[], label[], spec[] and common[] (sb_ab_args_free); the rest is
 * borrowed from argv. Once parsed, the values of password options in argv,
 * given on their own or inside --a/--b, are overwritten with 'x' (as a
 * run's own options are), so that ps does not show them for the whole
 * comparison; a keeps the copies it passes to the runs.
 */
int sb_ab_args_parse(struct sb_ab_args *a, int argc, char **argv, char *err, size_t errlen);
void sb_ab_args_free(struct sb_ab_args *a);

/*
 * Splits a shell-like option string into words: blanks separate them,
 * single and double quotes group, a backslash escapes the next byte
 * (outside single quotes). Returns a NULL-ended owned array and its
 * length in *n, or NULL with one line in err (an unclosed quote, out of
 * memory).
 */
char **sb_ab_split_words(const char *s, size_t *n, char *err, size_t errlen);

/* Parses a duration "90", "90s", "10m", "1.5h"; returns seconds, or NaN. */
double sb_ab_parse_duration(const char *s);

/* What one target's run of a round gave. */
struct sb_ab_side {
    double fig[SB_AB_NFIGS];  /* NaN when not measured */
    double start_unix_s;      /* measurement start, wall clock */
    double wall_s;            /* the process's own wall time */
    bool flagged;             /* its self-check is not ok */
    char flags[96];           /* the flags, comma-separated */
    char server[160];         /* the server's identity, "" when unknown */
};

struct sb_ab_round {
    unsigned index;           /* from 1 */
    bool a_first;             /* A started (duet) or ran (interleaved) first */
    uint64_t seed;
    double started_unix_s;    /* when the round began */
    double wall_s;            /* the round's wall time, set-up included */
    struct sb_ab_side side[2];
};

/* A figure's analysis over the rounds. */
struct sb_ab_figure {
    bool present;             /* both sides had it in every used round */
    double value[2];          /* each side's geometric mean, orders
                                 weighted alike, so value[1] / value[0]
                                 is the ratio */
    struct sb_seq_est est;
    struct sb_seq_decision dec;
    const char *verdict;      /* better, worse, equivalent, inconclusive */
};

/* The primary figure at one look, for the JSON and the chart. */
struct sb_ab_look {
    size_t round;
    double nominal;
    double ratio, lo, hi;
};

/* The state of a comparison: its rounds, its looks and the result. */
struct sb_ab {
    struct sb_ab_args *args;
    int primary;              /* enum sb_ab_fig decided after round 1 */
    const char *primary_why;  /* why that figure */
    struct sb_ab_round *rounds;
    size_t nrounds, cap;
    size_t planned;           /* rounds the budget allows (the plan) */
    size_t last_look;         /* round of the last look, 0: none */
    struct sb_ab_look *looks; /* owned, nlooks of them */
    size_t nlooks;
    struct sb_seq_design design;
    double spend;             /* the alpha the looks spend, calibrated so
                                 that the procedure keeps 5% */
    double nominal;           /* level of the last look */
    bool decided;             /* the primary figure decided before the end */
    bool final;               /* the last look was the final one */
    int signal;               /* 0, or the signal that stopped it */
    double started_unix_s;
    double lead_s;            /* duet: start-at this far after spawning */
    struct sb_ab_figure figs[SB_AB_NFIGS];
    size_t nsecondary;        /* figures judged besides the primary */
    bool same_server;         /* a and b look like one server */
    char tmpdir[4096];        /* the runs' files */
};

/* The log ratio of figure f in round r (NaN when a side lacks it). */
double sb_ab_log_ratio(const struct sb_ab_round *r, int f);

/* Analyses every figure over the rounds so far (the primary at the
 * last look's level, the others with Bonferroni at the end). */
void sb_ab_analyse(struct sb_ab *ab, bool final);

/*
 * Runs round r (index, order and seed set) of the comparison: both
 * targets' processes, each writing its JSON in ab->tmpdir, then reads
 * their figures into r. Returns 0; 1 when a duet run was not set up by
 * the common start instant (the round does not count; ab->lead_s was
 * doubled for the next try); or -1 with one line in err (a target
 * failed: its FATAL line; a signal stopped the round: err empty).
 */
int sb_ab_run_round(struct sb_ab *ab, struct sb_ab_round *r, char *err, size_t errlen);

/*
 * Runs `command` (prepare, cleanup, or a command of the script's) for
 * both targets, with the comparison's seed: at once in duet mode, one
 * after the other (each after its before hook) when interleaved. Prints
 * each target's output, every line after its label. Returns 0, or -1
 * with one line in err (a target failed: its FATAL line; after a signal
 * err may be empty).
 */
int sb_ab_run_command(struct sb_ab *ab, FILE *out, char *err, size_t errlen);

/* The path of round r's file of target t with suffix ("json", "log"). */
void sb_ab_round_path(const struct sb_ab *ab, unsigned round, int t, const char *suffix,
                      char *buf, size_t len);

/* Prints the per-round progress line. */
void sb_ab_print_progress(const struct sb_ab *ab, FILE *out);

/* Prints the final report. */
void sb_ab_print_report(const struct sb_ab *ab, FILE *out);

/* Writes the --json document. Returns 0, or -1 with one line in err. */
int sb_ab_write_json(const struct sb_ab *ab, int argc, char **argv, char *err, size_t errlen);

/* Wall-clock time, seconds since the epoch. */
double sb_ab_now(void);

#endif /* SB_AB_INT_H */
