/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_MIX_H
#define SB_MIX_H

/*
 * A transaction mix: several scripts in one run, each with an integer
 * weight (`sysbench oltp_point_select@80 oltp_update_index@20 run`, as
 * pgbench's -b NAME@W). Each event draws its type from the weights with
 * the thread's generator, so a seed reproduces the sequence. Pure: no
 * threads, no I/O.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pure/sb_rand.h"

/* At most this many scripts in one mix. */
#define SB_MIX_MAX 16

struct sb_mix_type {
    char name[64];       /* as given, without the weight ("oltp_insert") */
    char *path;          /* the script file (owned; set by the caller) */
    unsigned weight;     /* > 0 */
};

struct sb_mix {
    unsigned n;          /* types; 0: not a mix */
    struct sb_mix_type t[SB_MIX_MAX];
    /* cum[i]: the sum of the weights of types 0..i; cum[n-1] the total.
     * With --tx-rate-per-type (sb_mix_set_rates) the sums of the rates in
     * thousandths of a transaction per second instead: the draw is the
     * same, only its shares change. */
    uint64_t cum[SB_MIX_MAX];
    /* --tx-rate-per-type: each type's rate, tx/s (all 0 without). */
    double rate[SB_MIX_MAX];
    bool rated;
};

/* True when word is a mix member: it has an '@' (the last one splits the
 * name from the weight). */
bool sb_mix_is_member(const char *word);

/*
 * Adds word ("NAME@WEIGHT") to m. Returns 0, or -1 with one line in err
 * (capacity errlen): a weight that is not a positive integer, an empty
 * name, too many types. m must be zeroed before the first call.
 */
int sb_mix_add(struct sb_mix *m, const char *word, char *err, size_t errlen);

/*
 * --tx-rate-per-type: spec is "NAME:RATE,NAME:RATE,..." with every type
 * of m named once (as given in the mix) and each RATE a positive number
 * of transactions per second (at least 0.001), summing to total (the
 * mix's whole rate, given by the option total_opt, "--tx-rate"). On
 * success each type's share of the draws becomes its rate's share of the
 * sum (the weights no longer count) and 0 is returned; else -1 with one
 * line in err (also when m is no mix or total is not positive) and m
 * unchanged.
 */
int sb_mix_set_rates(struct sb_mix *m, const char *spec, double total, const char *total_opt,
                     char *err, size_t errlen);

/* The type of the next event, from 0 to m->n - 1: one draw of r. */
unsigned sb_mix_pick(const struct sb_mix *m, struct sb_rand *r);

/* The Lua chunk that loads the mix's scripts (sysbench.mix's load with
 * each type's name and path, in type order), NUL-ended; the caller frees
 * it. NULL when out of memory. */
char *sb_mix_chunk(const struct sb_mix *m);

/* "name@weight name@weight ..." into buf (capacity len, truncated). */
void sb_mix_label(const struct sb_mix *m, char *buf, size_t len);

/* Frees the paths m owns; m stays valid (n kept, paths NULL). */
void sb_mix_free(struct sb_mix *m);

#endif /* SB_MIX_H */
