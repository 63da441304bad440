/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SB_BI_FILEIO_INT_H
#define SB_BI_FILEIO_INT_H

/*
 * What the two halves of the fileio test share: sb_bi_fileio.c (options,
 * header, prepare, cleanup, report) and sb_bi_fileio_io.c (the open file
 * set of a run and the per-thread events).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "builtin/sb_builtin.h"

enum fio_mode {
    FIO_SEQWR, FIO_SEQREWR, FIO_SEQRD, FIO_RNDRD, FIO_RNDWR, FIO_RNDRW
};

enum fio_io { FIO_IO_SYNC, FIO_IO_ASYNC, FIO_IO_MMAP };

/* The checked options; written by configure() before threads start. */
struct fio_config {
    unsigned nfiles;
    uint64_t total_size, file_size, block_size, blocks_per_file;
    /* --file-merged-requests: blocks per request of the sequential modes
     * (1 when not merging), requests per file, and the largest request's
     * bytes (what a buffer must hold). */
    uint64_t merge_blocks, chunks_per_file, request_max;
    enum fio_mode mode;
    bool mode_given;          /* --file-test-mode is required for run */
    enum fio_io io;
    unsigned async_backlog;
    bool flag_sync, flag_dsync, flag_direct;
    int open_flags;           /* O_SYNC / O_DSYNC / O_DIRECT from the above */
    uint64_t fsync_freq;
    bool fsync_all, fsync_end, fdatasync;
    double rw_ratio;
};

extern struct fio_config fio_cfg;

/* The bytes that `ops` requests of a sequential mode moved: every request
 * is merge_blocks blocks but a file's last, and they go through the files
 * in order from the first (the shared position of a run), so the count
 * fixes the bytes. Random modes: ops blocks. */
uint64_t fio_bytes_of(uint64_t ops);

/* Whether the mode writes (and so fsyncs). */
bool fio_mode_writes(enum fio_mode m);

/* "test_file.N", as sysbench 1.0 names the files (in the current
 * directory). */
void fio_file_name(unsigned i, char *buf, size_t len);

/* The run's per-thread life (sb_bi_fileio_io.c). */
int fio_thread_init(void **ctx, const struct sb_bi_thread *t);
int fio_event(void *ctx);
int fio_thread_done(void *ctx);

/* Whether this build has --file-io-mode=async (io_uring). */
bool fio_async_available(void);

#endif /* SB_BI_FILEIO_INT_H */
