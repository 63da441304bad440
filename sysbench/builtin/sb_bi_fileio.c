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
#include "results/sb_stats.h"

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
static int parse_flags(const struct sb_optset *opts, char *err, size_t errlen)
{
    size_t n;
    char *const *items = sb_optset_list(opts, "file-extra-flags", &n);

    fio_cfg.flag_sync = fio_cfg.flag_dsync = fio_cfg.flag_direct = false;
    fio_cfg.open_flags = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(items[i], "sync") == 0) {
            fio_cfg.flag_sync = true;
            fio_cfg.open_flags |= O_SYNC;
        } else if (strcmp(items[i], "dsync") == 0) {
            fio_cfg.flag_dsync = true;
            fio_cfg.open_flags |= O_DSYNC;
        } else if (strcmp(items[i], "direct") == 0) {
            fio_cfg.flag_direct = true;
            fio_cfg.open_flags |= O_DIRECT;
        } else if (items[i][0] != '\0') {
            return sb_bi_bad_option(err, errlen, "file-extra-flags", items[i],
                                    "a list of sync, dsync, direct");
        }
    }
    return 0;
}

/* The sizes: counts, and files at least one block long. */
static int parse_sizes(const struct sb_optset *opts, char *err, size_t errlen)
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
    fio_cfg.nfiles = (unsigned)num;
    fio_cfg.block_size = (uint64_t)bs;
    fio_cfg.total_size = (uint64_t)total;
    fio_cfg.file_size = (uint64_t)total / (uint64_t)num;
    fio_cfg.blocks_per_file = fio_cfg.file_size / fio_cfg.block_size;
    return 0;
}

static int parse_sync(const struct sb_optset *opts, char *err, size_t errlen)
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
    fio_cfg.fsync_freq = (uint64_t)freq;
    fio_cfg.fdatasync = sm == 1;
    fio_cfg.fsync_all = sb_optset_bool(opts, "file-fsync-all");
    fio_cfg.fsync_end = sb_optset_bool(opts, "file-fsync-end");
    return 0;
}

/* --file-merged-requests: as 1.0.20 merges (its src/tests/fileio), a
 * sequential request of that many blocks, cut at the end of a file; the
 * random modes do one block a request whatever it says. */
static int parse_merge(const struct sb_optset *opts, char *err, size_t errlen)
{
    int64_t merged = sb_optset_int(opts, "file-merged-requests");
    uint64_t bpf = fio_cfg.blocks_per_file;

    if (merged < 0 || (merged > 0 && (uint64_t)merged * fio_cfg.block_size > (1ULL << 30)))
        return sb_bi_bad_option(err, errlen, "file-merged-requests",
                                sb_optset_str(opts, "file-merged-requests"),
                                "0 (no merging) or more, up to 1 GiB a request");
    fio_cfg.merge_blocks = merged > 1 && fio_cfg.mode <= FIO_SEQRD ? (uint64_t)merged : 1;
    if (fio_cfg.merge_blocks > bpf && bpf > 0)
        fio_cfg.merge_blocks = bpf;
    fio_cfg.chunks_per_file = (bpf + fio_cfg.merge_blocks - 1) / fio_cfg.merge_blocks;
    fio_cfg.request_max = fio_cfg.merge_blocks * fio_cfg.block_size;
    return 0;
}

static int fileio_configure(const struct sb_optset *opts, char *err, size_t errlen)
{
    static const char *const io_modes[] = { "sync", "async", "mmap", NULL };
    const char *mode = sb_optset_str(opts, "file-test-mode");
    int io = word_index(sb_optset_str(opts, "file-io-mode"), io_modes);
    int64_t backlog = sb_optset_int(opts, "file-async-backlog");

    memset(&fio_cfg, 0, sizeof(fio_cfg));
    if (parse_sizes(opts, err, errlen) != 0 || parse_flags(opts, err, errlen) != 0 ||
        parse_sync(opts, err, errlen) != 0)
        return -1;
    fio_cfg.mode_given = mode != NULL && mode[0] != '\0';
    if (fio_cfg.mode_given) {
        int m = word_index(mode, mode_names);
        if (m < 0 && sb_compat10()) /* 1.0.20's wording */
            return sb_opt_fail(err, errlen, "Invalid IO operations mode: %s.", mode);
        if (m < 0)
            return sb_bi_bad_option(err, errlen, "file-test-mode", mode,
                                    "seqwr, seqrewr, seqrd, rndrd, rndwr or rndrw");
        fio_cfg.mode = (enum fio_mode)m;
    }
    if (io < 0)
        return sb_bi_bad_option(err, errlen, "file-io-mode", sb_optset_str(opts, "file-io-mode"),
                                "sync, async or mmap");
    fio_cfg.io = (enum fio_io)io;
    if (fio_cfg.io == FIO_IO_ASYNC && !fio_async_available())
        return sb_opt_fail(err, errlen, "--file-io-mode=async is not available in this build "
                           "(it needs io_uring through liburing at build time)");
    if (backlog < 1 || backlog > 4096)
        return sb_bi_bad_option(err, errlen, "file-async-backlog",
                                sb_optset_str(opts, "file-async-backlog"), "1 to 4096");
    fio_cfg.async_backlog = (unsigned)backlog;
    if (parse_merge(opts, err, errlen) != 0)
        return -1;
    fio_cfg.rw_ratio = sb_optset_double(opts, "file-rw-ratio");
    if (!(fio_cfg.rw_ratio >= 0) || fio_cfg.rw_ratio > 1e9)
        return sb_bi_bad_option(err, errlen, "file-rw-ratio", sb_optset_str(opts, "file-rw-ratio"),
                                "0 or more");
    return 0;
}

static void print_flags(FILE *out)
{
    fprintf(out, "Extra file open flags: ");
    if (fio_cfg.open_flags == 0)
        fprintf(out, "(none)");
    if (fio_cfg.flag_sync)
        fprintf(out, "sync ");
    if (fio_cfg.flag_dsync)
        fprintf(out, "dsync ");
    if (fio_cfg.flag_direct)
        fprintf(out, "directio");
    fprintf(out, "\n");
}

static void fileio_header(FILE *out)
{
    static const char *const io_titles[] = {
        "synchronous", "asynchronous", "fast mmaped"
    };
    char a[32], b[32], c[32];
    bool rnd = fio_cfg.mode >= FIO_RNDRD;

    print_flags(out);
    fprintf(out, "%u files, %s each\n%s total file size\nBlock size %s\n", fio_cfg.nfiles,
            sb_bi_size_str(fio_cfg.file_size, a, sizeof(a)),
            sb_bi_size_str(fio_cfg.total_size, b, sizeof(b)),
            sb_bi_size_str(fio_cfg.block_size, c, sizeof(c)));
    if (fio_cfg.merge_blocks > 1)
        fprintf(out, "Merging requests up to %s for sequential IO.\n",
                sb_bi_size_str(fio_cfg.request_max, a, sizeof(a)));
    if (rnd) {
        fprintf(out, "Number of IO requests: %llu\n", (unsigned long long)sb_cfg->events_limit);
        fprintf(out, "Read/Write ratio for combined random IO test: %.2f\n", fio_cfg.rw_ratio);
    }
    if (fio_cfg.fsync_all)
        fprintf(out, "Calling fsync() after each write operation.\n");
    else if (fio_cfg.fsync_freq > 0)
        fprintf(out, "Periodic FSYNC enabled, calling fsync() each %llu requests.\n",
                (unsigned long long)fio_cfg.fsync_freq);
    if (fio_cfg.fsync_end && !fio_cfg.fsync_all)
        fprintf(out, "Calling fsync() at the end of test, Enabled.\n");
    if (fio_cfg.io == FIO_IO_ASYNC)
        fprintf(out, "Using %s I/O mode (io_uring, backlog %u per thread)\n", io_titles[1],
                fio_cfg.async_backlog);
    else
        fprintf(out, "Using %s I/O mode\n", io_titles[fio_cfg.io]);
    fprintf(out, "Doing %s test\n", mode_titles[fio_cfg.mode]);
}

/* Writes zeros from `from` to the file's size; adds the bytes to *done. */
static int fill_file(int fd, const char *name, uint64_t from, void *buf, uint64_t *done,
                     char *err, size_t errlen)
{
    uint64_t bs = fio_cfg.block_size;

    while (from < fio_cfg.file_size) {
        size_t n = (size_t)(fio_cfg.file_size - from < bs ? fio_cfg.file_size - from : bs);
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
static int prepare_file(unsigned i, void *buf, uint64_t *done, char *err, size_t errlen)
{
    char name[64];
    struct stat st;
    int fd, rc;
    bool exists;

    fio_file_name(i, name, sizeof(name));
    exists = stat(name, &st) == 0;
    if (notice())
        printf("%s file %s\n", exists ? "Reusing existing" : "Creating", name);
    fd = open(name, O_CREAT | O_WRONLY | fio_cfg.open_flags, 0600);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create %s in the current directory: %s%s", name,
                 strerror(errno), errno == EINVAL && fio_cfg.flag_direct
                 ? " (the filesystem refuses O_DIRECT: --file-extra-flags=direct)" : "");
        return -1;
    }
    rc = fill_file(fd, name, exists ? (uint64_t)st.st_size / fio_cfg.block_size * fio_cfg.block_size
                   : 0, buf, done, err, errlen);
    close(fd);
    return rc;
}

static int fileio_prepare(unsigned threads, char *err, size_t errlen)
{
    uint64_t done = 0;
    uint64_t t0 = sb_now_ns();
    void *buf;
    double secs;

    (void)threads;
    if (notice()) {
        printf("%u files, %lluKb each, %lluMb total\n", fio_cfg.nfiles,
               (unsigned long long)(fio_cfg.file_size / 1024),
               (unsigned long long)(fio_cfg.total_size / (1024 * 1024)));
        printf("Creating files for the test...\n");
        print_flags(stdout);
    }
    buf = aligned_alloc(4096, (fio_cfg.block_size + 4095) / 4096 * 4096);
    if (buf == NULL)
        return sb_opt_fail(err, errlen, "out of memory for a block of %llu bytes",
                           (unsigned long long)fio_cfg.block_size);
    memset(buf, 0, (size_t)fio_cfg.block_size);
    for (unsigned i = 0; i < fio_cfg.nfiles; i++)
        if (prepare_file(i, buf, &done, err, errlen) != 0) {
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
static int fileio_cleanup(char *err, size_t errlen)
{
    if (notice())
        printf("Removing test files...\n");
    for (unsigned i = 0; i < fio_cfg.nfiles; i++) {
        char name[64];
        fio_file_name(i, name, sizeof(name));
        if (unlink(name) != 0 && errno != ENOENT) {
            snprintf(err, errlen, "cannot remove %s: %s", name, strerror(errno));
            return -1;
        }
    }
    return 0;
}

static void fileio_report(const struct sb_point_result *p, FILE *out)
{
    const struct sb_stats *t = p->total;
    double secs = p->time_s > 0 ? p->time_s : 1;
    double mib = 1024.0 * 1024.0;

    fprintf(out, "\nFile operations:\n");
    fprintf(out, "    reads/s:                      %.2f\n", (double)t->c[SB_STAT_READS] / secs);
    fprintf(out, "    writes/s:                     %.2f\n", (double)t->c[SB_STAT_WRITES] / secs);
    fprintf(out, "    fsyncs/s:                     %.2f\n", (double)t->c[SB_STAT_OTHER] / secs);
    fprintf(out, "\nThroughput:\n");
    fprintf(out, "    read, MiB/s:                  %.2f\n",
            (double)fio_bytes_of(t->c[SB_STAT_READS]) / mib / secs);
    fprintf(out, "    written, MiB/s:               %.2f\n",
            (double)fio_bytes_of(t->c[SB_STAT_WRITES]) / mib / secs);
}

/* run needs a test mode; prepare and cleanup do not (as in 1.0). */
static int fileio_check_run(char *err, size_t errlen)
{
    if (!fio_cfg.mode_given && sb_compat10()) /* 1.0.20's wording */
        return sb_opt_fail(err, errlen, "Missing required argument: --file-test-mode");
    if (!fio_cfg.mode_given)
        return sb_opt_fail(err, errlen, "missing required argument: --file-test-mode "
                           "(seqwr, seqrewr, seqrd, rndrd, rndwr or rndrw)");
    if (fio_cfg.blocks_per_file == 0)
        return sb_opt_fail(err, errlen, "each file (--file-total-size / --file-num = %llu "
                           "bytes) is smaller than --file-block-size (%llu)",
                           (unsigned long long)fio_cfg.file_size,
                           (unsigned long long)fio_cfg.block_size);
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
};
