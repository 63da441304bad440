/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fileio: sysbench 1.0's file I/O test. prepare makes --file-num files
 * test_file.0 .. test_file.N-1 of --file-total-size / --file-num bytes
 * in the current directory; run does one read, write or fsync per event
 * on them (sb_bi_fileio_io.c); cleanup removes exactly those files.
 * Options, defaults, header lines and report sections follow 1.0.20's
 * `sysbench fileio help` and its output, observed as facts.
 */
#define _GNU_SOURCE /* O_DIRECT */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin/sb_bi_fileio.h"
#include "builtin/sb_bi_fileio_int.h"
#include "core/sb_clock.h"
#include "config/sb_config.h"
#include "core/sb_log.h"
#include "results/sb_point_result.h"
#include "measure/sb_stats.h"

static const struct sb_opt_def fileio_options[] = {
    { "file-num", "number of files to create", "128", SB_ARG_INT },
    { "file-block-size", "block size to use in all IO operations", "16384", SB_ARG_INT },
    { "file-total-size", "total size of files to create", "2G", SB_ARG_SIZE },
    { "file-test-mode", "test mode {seqwr, seqrewr, seqrd, rndrd, rndwr, rndrw}", NULL,
      SB_ARG_STRING },
    { "file-io-mode", "file operations mode {sync,async,mmap}", "sync", SB_ARG_STRING },
    { "file-async-backlog", "number of asynchronous operatons to queue per thread", "128",
      SB_ARG_INT },
    { "file-extra-flags", "list of additional flags to use to open files {sync,dsync,direct}",
      "", SB_ARG_LIST },
    { "file-fsync-freq", "do fsync() after this number of requests (0 - don't use fsync())",
      "100", SB_ARG_INT },
    { "file-fsync-all", "do fsync() after each write operation", "off", SB_ARG_BOOL },
    { "file-fsync-end", "do fsync() at the end of test", "on", SB_ARG_BOOL },
    { "file-fsync-mode", "which method to use for synchronization {fsync, fdatasync}", "fsync",
      SB_ARG_STRING },
    { "file-merged-requests",
      "merge at most this number of IO requests if possible (0 - don't merge)", "0", SB_ARG_INT },
    { "file-rw-ratio", "reads/writes ratio for combined test", "1.5", SB_ARG_DOUBLE },
    { NULL, NULL, NULL, 0 }
};

static const char *const mode_names[] = {
    "seqwr", "seqrewr", "seqrd", "rndrd", "rndwr", "rndrw", NULL
};
static const char *const mode_titles[] = {
    "sequential write (creation)", "sequential rewrite", "sequential read",
    "random read", "random write", "random r/w"
};

static int word_index(const char *v, const char *const *words)
{
    for (int i = 0; v != NULL && words[i] != NULL; i++)
        if (strcmp(v, words[i]) == 0)
            return i;
    return -1;
}

/* --file-extra-flags: sync, dsync, direct (any order, repeats allowed). */
static int parse_flags(const struct sb_optset *opts, struct fio_config *cfg, char *err,
                       size_t errlen)
{
    size_t n;
    char *const *items = sb_optset_list(opts, "file-extra-flags", &n);

    cfg->flag_sync = cfg->flag_dsync = cfg->flag_direct = false;
    cfg->open_flags = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(items[i], "sync") == 0) {
            cfg->flag_sync = true;
            cfg->open_flags |= O_SYNC;
        } else if (strcmp(items[i], "dsync") == 0) {
            cfg->flag_dsync = true;
            cfg->open_flags |= O_DSYNC;
        } else if (strcmp(items[i], "direct") == 0) {
            cfg->flag_direct = true;
            cfg->open_flags |= O_DIRECT;
        } else if (items[i][0] != '\0') {
            return sb_bi_bad_option(err, errlen, "file-extra-flags", items[i],
                                    "a list of sync, dsync, direct");
        }
    }
    return 0;
}

/* The sizes: counts, and files at least one block long. */
static int parse_sizes(const struct sb_optset *opts, struct fio_config *cfg, char *err,
                       size_t errlen)
{
    int64_t num = sb_optset_int(opts, "file-num");
    int64_t bs = sb_optset_int(opts, "file-block-size");
    int64_t total = sb_optset_int(opts, "file-total-size");

    if (num < 1 || num > 1000000)
        return sb_bi_bad_option(err, errlen, "file-num", sb_optset_str(opts, "file-num"),
                                "1 to 1000000");
    if (bs < 1 || bs > (1LL << 30))
        return sb_bi_bad_option(err, errlen, "file-block-size",
                                sb_optset_str(opts, "file-block-size"), "1 to 1073741824");
    if (total < 0)
        return sb_bi_bad_option(err, errlen, "file-total-size",
                                sb_optset_str(opts, "file-total-size"), "a size");
    cfg->nfiles = (unsigned)num;
    cfg->block_size = (uint64_t)bs;
    cfg->total_size = (uint64_t)total;
    cfg->file_size = (uint64_t)total / (uint64_t)num;
    cfg->blocks_per_file = cfg->file_size / cfg->block_size;
    return 0;
}

static int parse_sync(const struct sb_optset *opts, struct fio_config *cfg, char *err,
                      size_t errlen)
{
    static const char *const sync_modes[] = { "fsync", "fdatasync", NULL };
    int64_t freq = sb_optset_int(opts, "file-fsync-freq");
    int sm = word_index(sb_optset_str(opts, "file-fsync-mode"), sync_modes);

    if (freq < 0)
        return sb_bi_bad_option(err, errlen, "file-fsync-freq",
                                sb_optset_str(opts, "file-fsync-freq"), "0 (never) or more");
    if (sm < 0)
        return sb_bi_bad_option(err, errlen, "file-fsync-mode",
                                sb_optset_str(opts, "file-fsync-mode"), "fsync or fdatasync");
    cfg->fsync_freq = (uint64_t)freq;
    cfg->fdatasync = sm == 1;
    cfg->fsync_all = sb_optset_bool(opts, "file-fsync-all");
    cfg->fsync_end = sb_optset_bool(opts, "file-fsync-end");
    return 0;
}

/* --file-merged-requests: as 1.0.20 merges (its src/tests/fileio), a
 * sequential request of that many blocks, cut at the end of a file; the
 * random modes do one block a request whatever it says. */
static int parse_merge(const struct sb_optset *opts, struct fio_config *cfg, char *err,
                       size_t errlen)
{
    int64_t merged = sb_optset_int(opts, "file-merged-requests");
    uint64_t bpf = cfg->blocks_per_file;

    if (merged < 0 || (merged > 0 && (uint64_t)merged * cfg->block_size > (1ULL << 30)))
        return sb_bi_bad_option(err, errlen, "file-merged-requests",
                                sb_optset_str(opts, "file-merged-requests"),
                                "0 (no merging) or more, up to 1 GiB a request");
    cfg->merge_blocks = merged > 1 && cfg->mode <= FIO_SEQRD ? (uint64_t)merged : 1;
    if (cfg->merge_blocks > bpf && bpf > 0)
        cfg->merge_blocks = bpf;
    cfg->chunks_per_file = (bpf + cfg->merge_blocks - 1) / cfg->merge_blocks;
    cfg->request_max = cfg->merge_blocks * cfg->block_size;
    return 0;
}

/* Checks the options into cfg: 0, or -1 with one line in err. */
static int fileio_options_check(const struct sb_optset *opts, struct fio_config *cfg, char *err,
                                size_t errlen)
{
    static const char *const io_modes[] = { "sync", "async", "mmap", NULL };
    const char *mode = sb_optset_str(opts, "file-test-mode");
    int io = word_index(sb_optset_str(opts, "file-io-mode"), io_modes);
    int64_t backlog = sb_optset_int(opts, "file-async-backlog");

    if (parse_sizes(opts, cfg, err, errlen) != 0 || parse_flags(opts, cfg, err, errlen) != 0 ||
        parse_sync(opts, cfg, err, errlen) != 0)
        return -1;
    cfg->mode_given = mode != NULL && mode[0] != '\0';
    if (cfg->mode_given) {
        int m = word_index(mode, mode_names);
        if (m < 0 && sb_compat10()) /* 1.0.20's wording */
            return sb_opt_fail(err, errlen, "Invalid IO operations mode: %s.", mode);
        if (m < 0)
            return sb_bi_bad_option(err, errlen, "file-test-mode", mode,
                                    "seqwr, seqrewr, seqrd, rndrd, rndwr or rndrw");
        cfg->mode = (enum fio_mode)m;
    }
    if (io < 0)
        return sb_bi_bad_option(err, errlen, "file-io-mode", sb_optset_str(opts, "file-io-mode"),
                                "sync, async or mmap");
    cfg->io = (enum fio_io)io;
    if (cfg->io == FIO_IO_ASYNC && !fio_async_available())
        return sb_opt_fail(err, errlen, "--file-io-mode=async is not available in this build "
                           "(it needs io_uring through liburing at build time)");
    if (backlog < 1 || backlog > 4096)
        return sb_bi_bad_option(err, errlen, "file-async-backlog",
                                sb_optset_str(opts, "file-async-backlog"), "1 to 4096");
    cfg->async_backlog = (unsigned)backlog;
    if (parse_merge(opts, cfg, err, errlen) != 0)
        return -1;
    cfg->rw_ratio = sb_optset_double(opts, "file-rw-ratio");
    if (!(cfg->rw_ratio >= 0) || cfg->rw_ratio > 1e9)
        return sb_bi_bad_option(err, errlen, "file-rw-ratio", sb_optset_str(opts, "file-rw-ratio"),
                                "0 or more");
    return 0;
}

static void *fileio_configure(const struct sb_optset *opts, char *err, size_t errlen)
{
    struct fio_ctx *x = calloc(1, sizeof(*x));

    if (x == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (fileio_options_check(opts, &x->cfg, err, errlen) != 0) {
        free(x);
        return NULL;
    }
    pthread_mutex_init(&x->ft.lock, NULL);
    return x;
}

static void fileio_finish(void *ctx)
{
    struct fio_ctx *x = ctx;

    if (x == NULL)
        return;
    pthread_mutex_destroy(&x->ft.lock);
    free(x);
}

static void print_flags(const struct fio_config *cfg, FILE *out)
{
    fprintf(out, "Extra file open flags: ");
    if (cfg->open_flags == 0)
        fprintf(out, "(none)");
    if (cfg->flag_sync)
        fprintf(out, "sync ");
    if (cfg->flag_dsync)
        fprintf(out, "dsync ");
    if (cfg->flag_direct)
        fprintf(out, "directio");
    fprintf(out, "\n");
}

static void fileio_header(const void *ctx, FILE *out)
{
    const struct fio_config *cfg = &((const struct fio_ctx *)ctx)->cfg;
    static const char *const io_titles[] = {
        "synchronous", "asynchronous", "fast mmaped"
    };
    char a[32], b[32], c[32];
    bool rnd = cfg->mode >= FIO_RNDRD;

    print_flags(cfg, out);
    fprintf(out, "%u files, %s each\n%s total file size\nBlock size %s\n", cfg->nfiles,
            sb_bi_size_str(cfg->file_size, a, sizeof(a)),
            sb_bi_size_str(cfg->total_size, b, sizeof(b)),
            sb_bi_size_str(cfg->block_size, c, sizeof(c)));
    if (cfg->merge_blocks > 1)
        fprintf(out, "Merging requests up to %s for sequential IO.\n",
                sb_bi_size_str(cfg->request_max, a, sizeof(a)));
    if (rnd) {
        fprintf(out, "Number of IO requests: %llu\n", (unsigned long long)sb_cfg->events_limit);
        fprintf(out, "Read/Write ratio for combined random IO test: %.2f\n", cfg->rw_ratio);
    }
    if (cfg->fsync_all)
        fprintf(out, "Calling fsync() after each write operation.\n");
    else if (cfg->fsync_freq > 0)
        fprintf(out, "Periodic FSYNC enabled, calling fsync() each %llu requests.\n",
                (unsigned long long)cfg->fsync_freq);
    if (cfg->fsync_end && !cfg->fsync_all)
        fprintf(out, "Calling fsync() at the end of test, Enabled.\n");
    if (cfg->io == FIO_IO_ASYNC)
        fprintf(out, "Using %s I/O mode (io_uring, backlog %u per thread)\n", io_titles[1],
                cfg->async_backlog);
    else
        fprintf(out, "Using %s I/O mode\n", io_titles[cfg->io]);
    fprintf(out, "Doing %s test\n", mode_titles[cfg->mode]);
}

/* Writes zeros from `from` to the file's size; adds the bytes to *done. */
static int fill_file(const struct fio_config *cfg, int fd, const char *name, uint64_t from,
                     void *buf, uint64_t *done, char *err, size_t errlen)
{
    uint64_t bs = cfg->block_size;

    while (from < cfg->file_size) {
        size_t n = (size_t)(cfg->file_size - from < bs ? cfg->file_size - from : bs);
        ssize_t w = pwrite(fd, buf, n, (off_t)from);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            snprintf(err, errlen, "cannot write %s at offset %llu: %s", name,
                     (unsigned long long)from, w < 0 ? strerror(errno) : "nothing written");
            return -1;
        }
        from += (uint64_t)w;
        *done += (uint64_t)w;
    }
    if (fsync(fd) != 0) {
        snprintf(err, errlen, "cannot fsync %s: %s", name, strerror(errno));
        return -1;
    }
    return 0;
}

/* prepare's and cleanup's progress lines are notices: --verbosity=2 and
 * below hide them, as in sysbench 1.0.20. */
static bool notice(void)
{
    return sb_cfg->verbosity >= SB_LOG_NOTICE;
}

/* Creates or extends one file to its size. */
static int prepare_file(const struct fio_config *cfg, unsigned i, void *buf, uint64_t *done,
                        char *err, size_t errlen)
{
    char name[64];
    struct stat st;
    int fd, rc;
    bool exists;

    fio_file_name(i, name, sizeof(name));
    exists = stat(name, &st) == 0;
    if (notice())
        printf("%s file %s\n", exists ? "Reusing existing" : "Creating", name);
    fd = open(name, O_CREAT | O_WRONLY | cfg->open_flags, 0600);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create %s in the current directory: %s%s", name,
                 strerror(errno), errno == EINVAL && cfg->flag_direct
                 ? " (the filesystem refuses O_DIRECT: --file-extra-flags=direct)" : "");
        return -1;
    }
    rc = fill_file(cfg, fd, name, exists ? (uint64_t)st.st_size / cfg->block_size * cfg->block_size
                   : 0, buf, done, err, errlen);
    close(fd);
    return rc;
}

static int fileio_prepare(const void *ctx, unsigned threads, char *err, size_t errlen)
{
    const struct fio_config *cfg = &((const struct fio_ctx *)ctx)->cfg;
    uint64_t done = 0;
    uint64_t t0 = sb_now_ns();
    void *buf;
    double secs;

    (void)threads;
    if (notice()) {
        printf("%u files, %lluKb each, %lluMb total\n", cfg->nfiles,
               (unsigned long long)(cfg->file_size / 1024),
               (unsigned long long)(cfg->total_size / (1024 * 1024)));
        printf("Creating files for the test...\n");
        print_flags(cfg, stdout);
    }
    buf = aligned_alloc(4096, (cfg->block_size + 4095) / 4096 * 4096);
    if (buf == NULL)
        return sb_opt_fail(err, errlen, "out of memory for a block of %llu bytes",
                           (unsigned long long)cfg->block_size);
    memset(buf, 0, (size_t)cfg->block_size);
    for (unsigned i = 0; i < cfg->nfiles; i++)
        if (prepare_file(cfg, i, buf, &done, err, errlen) != 0) {
            free(buf);
            return -1;
        }
    free(buf);
    secs = (double)(sb_now_ns() - t0) / 1e9;
    if (!notice())
        return 0;
    if (done == 0)
        printf("No bytes written.\n");
    else
        printf("%llu bytes written in %.2f seconds (%.2f MiB/sec).\n", (unsigned long long)done,
               secs, (double)done / (1024.0 * 1024.0) / (secs > 0 ? secs : 1e-9));
    return 0;
}

/* Removes test_file.0 .. test_file.N-1 (a missing one is no error). */
static int fileio_cleanup(const void *ctx, char *err, size_t errlen)
{
    const struct fio_config *cfg = &((const struct fio_ctx *)ctx)->cfg;

    if (notice())
        printf("Removing test files...\n");
    for (unsigned i = 0; i < cfg->nfiles; i++) {
        char name[64];
        fio_file_name(i, name, sizeof(name));
        if (unlink(name) != 0 && errno != ENOENT) {
            snprintf(err, errlen, "cannot remove %s: %s", name, strerror(errno));
            return -1;
        }
    }
    return 0;
}

static void fileio_report(const void *ctx, const struct sb_point_result *p, FILE *out)
{
    const struct fio_config *cfg = &((const struct fio_ctx *)ctx)->cfg;
    const struct sb_stats *t = p->total;
    double secs = p->time_s > 0 ? p->time_s : 1;
    double mib = 1024.0 * 1024.0;

    fprintf(out, "\nFile operations:\n");
    fprintf(out, "    reads/s:                      %.2f\n", (double)t->c[SB_STAT_READS] / secs);
    fprintf(out, "    writes/s:                     %.2f\n", (double)t->c[SB_STAT_WRITES] / secs);
    fprintf(out, "    fsyncs/s:                     %.2f\n", (double)t->c[SB_STAT_OTHER] / secs);
    fprintf(out, "\nThroughput:\n");
    fprintf(out, "    read, MiB/s:                  %.2f\n",
            (double)fio_bytes_of(cfg, t->c[SB_STAT_READS]) / mib / secs);
    fprintf(out, "    written, MiB/s:               %.2f\n",
            (double)fio_bytes_of(cfg, t->c[SB_STAT_WRITES]) / mib / secs);
}

/* run needs a test mode; prepare and cleanup do not (as in 1.0). */
static int fileio_check_run(const void *ctx, char *err, size_t errlen)
{
    const struct fio_config *cfg = &((const struct fio_ctx *)ctx)->cfg;

    if (!cfg->mode_given && sb_compat10()) /* 1.0.20's wording */
        return sb_opt_fail(err, errlen, "Missing required argument: --file-test-mode");
    if (!cfg->mode_given)
        return sb_opt_fail(err, errlen, "missing required argument: --file-test-mode "
                           "(seqwr, seqrewr, seqrd, rndrd, rndwr or rndrw)");
    if (cfg->blocks_per_file == 0)
        return sb_opt_fail(err, errlen, "each file (--file-total-size / --file-num = %llu "
                           "bytes) is smaller than --file-block-size (%llu)",
                           (unsigned long long)cfg->file_size,
                           (unsigned long long)cfg->block_size);
    return 0;
}

const struct sb_builtin sb_bi_fileio = {
    .name = "fileio",
    .description = "File I/O test",
    .options = fileio_options,
    .configure = fileio_configure,
    .print_header = fileio_header,
    .prepare = fileio_prepare,
    .cleanup = fileio_cleanup,
    .check_run = fileio_check_run,
    .thread_init = fio_thread_init,
    .event = fio_event,
    .thread_done = fio_thread_done,
    .report = fileio_report,
    .finish = fileio_finish,
};
