/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fileio's run: the file set a run's threads share (opened by the first
 * thread of a point, closed by the last, which also does the end-of-test
 * fsync) and the per-thread events. One event is one read or one write
 * of --file-block-size bytes (a sequential mode's of up to
 * --file-merged-requests blocks), or one file's fsync of a periodic round
 * (every --file-fsync-freq requests of a writing mode, every file is
 * synced, each sync an event, as 1.0.20 counts them); with
 * --file-fsync-all the fsync after a write belongs to the write's event,
 * and the end-of-test fsyncs are counted as fsyncs but not as events
 * (1.0.20's counts, observed: --events=1000 rndrw made 578 reads, 386
 * writes and 36 periodic fsyncs, plus 4 at the end).
 *
 * Reads, writes and fsyncs go to the worker's reads, writes and other
 * counters, so the report, the interval lines and the result files carry
 * them. The event path allocates nothing; the sequential position and the
 * periodic fsync count are shared atomics, as the files are.
 */
#define _GNU_SOURCE /* O_DIRECT */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#ifdef HAVE_LIBURING
#include <liburing.h>
#endif

#include "builtin/sb_bi_fileio_int.h"
#include "builtin/sb_builtin.h"
#include "core/sb_log.h"
#include "drivers/sb_driver.h"
#include "pure/sb_rand.h"

/* The configuration sb_bi_fileio.c parses from the options, and the
 * names both halves use: defined in this, the lower half, so the run
 * does not call back into the option parser's file. */
struct fio_config fio_cfg;

bool fio_mode_writes(enum fio_mode m)
{
    return m != FIO_SEQRD && m != FIO_RNDRD;
}

void fio_file_name(unsigned i, char *buf, size_t len)
{
    snprintf(buf, len, "test_file.%u", i);
}

uint64_t fio_bytes_of(uint64_t ops)
{
    uint64_t m = fio_cfg.merge_blocks, cpf = fio_cfg.chunks_per_file;
    uint64_t bpf = fio_cfg.blocks_per_file, k;

    if (m <= 1 || cpf == 0)
        return ops * fio_cfg.block_size;
    /* Whole files, then k requests into the next one. */
    k = ops % cpf;
    return (ops / cpf * bpf + (k * m < bpf ? k * m : bpf)) * fio_cfg.block_size;
}

/* The open files of the point being run: shared by its threads. */
static struct {
    pthread_mutex_t lock;
    unsigned users;
    int *fds;
    unsigned char **maps;     /* --file-io-mode=mmap */
    uint64_t next_block;      /* sequential modes: the next request, atomic */
    uint64_t requests;        /* periodic fsync: requests so far, atomic */
} ft = { .lock = PTHREAD_MUTEX_INITIALIZER };

struct fio_async;

struct fio_thread {
    struct sb_rand *rand;
    struct sb_db_counters *c;
    char *err;
    size_t errlen;
    unsigned char *buf;       /* one block, aligned for O_DIRECT */
    unsigned fsync_left;      /* files left in this thread's fsync round */
    uint64_t reads, writes;   /* this thread's, for --file-rw-ratio */
    struct fio_async *as;     /* --file-io-mode=async: the thread's ring */
};

static int io_error(struct fio_thread *t, bool write, unsigned file, uint64_t off, size_t len,
                    ssize_t got);

#ifdef HAVE_LIBURING
/*
 * --file-io-mode=async: each thread has an io_uring of --file-async-backlog
 * entries, and a buffer per entry. An event submits one request (first
 * waiting for a completion when the backlog is full), as 1.0's async
 * mode counts an event at submission; reads and writes are counted when
 * they complete (so the counts are what the kernel did), and a thread
 * waits for all of its requests before an fsync and at its end.
 */
struct fio_slot {
    unsigned file;
    uint64_t off;
    size_t len;
    bool write;
};

struct fio_async {
    struct io_uring ring;
    unsigned inflight, nfree;
    unsigned *free_slots;
    struct fio_slot *slots;
    unsigned char *bufs;
    size_t buf_len;
};

bool fio_async_available(void)
{
    return true;
}

static void async_free(struct fio_async *as, bool ring)
{
    if (as == NULL)
        return;
    if (ring)
        io_uring_queue_exit(&as->ring);
    free(as->free_slots);
    free(as->slots);
    free(as->bufs);
    free(as);
}

static int async_init(struct fio_thread *t)
{
    unsigned depth = fio_cfg.async_backlog;
    struct fio_async *as = calloc(1, sizeof(*as));
    int rc;

    if (as == NULL)
        return SB_BI_ERROR;
    as->buf_len = (size_t)((fio_cfg.request_max + 4095) / 4096 * 4096);
    as->free_slots = malloc(depth * sizeof(*as->free_slots));
    as->slots = calloc(depth, sizeof(*as->slots));
    as->bufs = aligned_alloc(4096, as->buf_len * depth);
    if (as->free_slots == NULL || as->slots == NULL || as->bufs == NULL) {
        async_free(as, false);
        return SB_BI_ERROR;
    }
    memset(as->bufs, 0x5a, as->buf_len * depth);
    for (unsigned i = 0; i < depth; i++)
        as->free_slots[i] = depth - 1 - i;
    as->nfree = depth;
    rc = io_uring_queue_init(depth, &as->ring, 0);
    if (rc < 0) {
        snprintf(t->err, t->errlen, "cannot set up io_uring for --file-io-mode=async: %s "
                 "(a kernel or a sandbox without io_uring: use --file-io-mode=sync)",
                 strerror(-rc));
        async_free(as, false);
        return SB_BI_ERROR;
    }
    t->as = as;
    return 0;
}

/* Takes the completions there are (with wait: at least one). */
static int async_reap(struct fio_thread *t, bool wait)
{
    struct fio_async *as = t->as;
    struct io_uring_cqe *cqe;
    int rc = wait ? io_uring_wait_cqe(&as->ring, &cqe) : io_uring_peek_cqe(&as->ring, &cqe);

    while (rc == -EINTR && wait)
        rc = io_uring_wait_cqe(&as->ring, &cqe);
    while (rc == 0) {
        unsigned slot = (unsigned)(uintptr_t)io_uring_cqe_get_data(cqe);
        struct fio_slot *sl = &as->slots[slot];
        int res = cqe->res;

        io_uring_cqe_seen(&as->ring, cqe);
        as->free_slots[as->nfree++] = slot;
        as->inflight--;
        if (res != (int)sl->len) {
            errno = res < 0 ? -res : 0;
            return io_error(t, sl->write, sl->file, sl->off, sl->len, res < 0 ? -1 : res);
        }
        if (sl->write)
            t->c->writes++;
        else
            t->c->reads++;
        rc = io_uring_peek_cqe(&as->ring, &cqe);
    }
    if (rc != -EAGAIN && rc != 0) {
        snprintf(t->err, t->errlen, "io_uring: waiting for a completion failed: %s",
                 strerror(-rc));
        return SB_BI_ERROR;
    }
    return SB_BI_OK;
}

static int async_drain(struct fio_thread *t)
{
    while (t->as != NULL && t->as->inflight > 0)
        if (async_reap(t, true) != SB_BI_OK)
            return SB_BI_ERROR;
    return SB_BI_OK;
}

static int async_submit(struct fio_thread *t, bool write, unsigned file, uint64_t off,
                        size_t len)
{
    struct fio_async *as = t->as;
    struct io_uring_sqe *sqe;
    unsigned slot;
    int rc;

    if (async_reap(t, as->nfree == 0) != SB_BI_OK)
        return SB_BI_ERROR;
    slot = as->free_slots[--as->nfree];
    as->slots[slot] = (struct fio_slot){ file, off, len, write };
    sqe = io_uring_get_sqe(&as->ring);
    if (write)
        io_uring_prep_write(sqe, ft.fds[file], as->bufs + slot * as->buf_len, (unsigned)len,
                            off);
    else
        io_uring_prep_read(sqe, ft.fds[file], as->bufs + slot * as->buf_len, (unsigned)len,
                           off);
    io_uring_sqe_set_data(sqe, (void *)(uintptr_t)slot);
    as->inflight++;
    rc = io_uring_submit(&as->ring);
    if (rc < 0) {
        snprintf(t->err, t->errlen, "io_uring: submitting a request failed: %s", strerror(-rc));
        return SB_BI_ERROR;
    }
    return SB_BI_OK;
}

static void async_done(struct fio_thread *t)
{
    if (t->as != NULL)
        async_free(t->as, true);
    t->as = NULL;
}
#else
bool fio_async_available(void)
{
    return false;
}

static int async_init(struct fio_thread *t)
{
    (void)t;
    return SB_BI_ERROR;
}

static int async_drain(struct fio_thread *t)
{
    (void)t;
    return SB_BI_OK;
}

static int async_submit(struct fio_thread *t, bool write, unsigned file, uint64_t off,
                        size_t len)
{
    (void)t, (void)write, (void)file, (void)off, (void)len;
    return SB_BI_ERROR;
}

static void async_done(struct fio_thread *t)
{
    (void)t;
}
#endif

static void close_all(void)
{
    for (unsigned i = 0; ft.fds != NULL && i < fio_cfg.nfiles; i++) {
        if (ft.maps != NULL && ft.maps[i] != NULL)
            munmap(ft.maps[i], (size_t)fio_cfg.file_size);
        if (ft.fds[i] >= 0)
            close(ft.fds[i]);
    }
    free(ft.fds);
    free(ft.maps);
    ft.fds = NULL;
    ft.maps = NULL;
}

static int open_error(const char *name, char *err, size_t errlen)
{
    int e = errno;

    if (sb_compat10()) /* 1.0.20's two lines */
        snprintf(err, errlen, "Cannot open file '%s' errno = %d (%s)\nWARNING: Did you forget "
                 "to run the prepare step?", name, e, strerror(e));
    else if (e == ENOENT)
        snprintf(err, errlen, "cannot open %s: No such file or directory (run 'sysbench fileio "
                 "prepare' in this directory with the same --file-num first)", name);
    else if (e == EINVAL && fio_cfg.flag_direct)
        snprintf(err, errlen, "cannot open %s with O_DIRECT: the filesystem refuses direct "
                 "I/O (--file-extra-flags=direct)", name);
    else
        snprintf(err, errlen, "cannot open %s: %s", name, strerror(e));
    return -1;
}

/* Opens (and for mmap maps) file i; checks it is large enough. */
static int open_one(unsigned i, char *err, size_t errlen)
{
    char name[64];
    struct stat st;
    bool create = fio_cfg.mode == FIO_SEQWR;
    int fd;

    fio_file_name(i, name, sizeof(name));
    fd = open(name, O_RDWR | (create ? O_CREAT : 0) | fio_cfg.open_flags, 0600);
    if (fd < 0)
        return open_error(name, err, errlen);
    ft.fds[i] = fd;
    if (fstat(fd, &st) != 0)
        return sb_opt_fail(err, errlen, "cannot stat %s: %s", name, strerror(errno));
    if ((uint64_t)st.st_size < fio_cfg.file_size && !create && sb_compat10()) {
        char have[32], want[32];
        return sb_opt_fail(err, errlen, "Size of file '%s' is %s, but at least %s is "
                           "expected.\nWARNING: Did you run 'prepare' with different "
                           "--file-total-size or --file-num values?", name,
                           sb_bi_size_str((uint64_t)st.st_size, have, sizeof(have)),
                           sb_bi_size_str(fio_cfg.file_size, want, sizeof(want)));
    }
    if ((uint64_t)st.st_size < fio_cfg.file_size && !create)
        return sb_opt_fail(err, errlen, "%s is %lld bytes, smaller than the %llu the options "
                           "ask for: run 'sysbench fileio prepare' with the same --file-num "
                           "and --file-total-size", name, (long long)st.st_size,
                           (unsigned long long)fio_cfg.file_size);
    if (fio_cfg.io != FIO_IO_MMAP)
        return 0;
    if ((uint64_t)st.st_size < fio_cfg.file_size && ftruncate(fd, (off_t)fio_cfg.file_size) != 0)
        return sb_opt_fail(err, errlen, "cannot extend %s: %s", name, strerror(errno));
    ft.maps[i] = mmap(NULL, (size_t)fio_cfg.file_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (ft.maps[i] == MAP_FAILED) {
        ft.maps[i] = NULL;
        return sb_opt_fail(err, errlen, "cannot mmap %s: %s", name, strerror(errno));
    }
    return 0;
}

static int open_all(char *err, size_t errlen)
{
    ft.fds = malloc(fio_cfg.nfiles * sizeof(*ft.fds));
    ft.maps = calloc(fio_cfg.nfiles, sizeof(*ft.maps));
    if (ft.fds == NULL || ft.maps == NULL) {
        close_all();
        return sb_opt_fail(err, errlen, "out of memory for %u files", fio_cfg.nfiles);
    }
    for (unsigned i = 0; i < fio_cfg.nfiles; i++)
        ft.fds[i] = -1;
    for (unsigned i = 0; i < fio_cfg.nfiles; i++)
        if (open_one(i, err, errlen) != 0) {
            close_all();
            return -1;
        }
    ft.next_block = 0;
    ft.requests = 0;
    return 0;
}

int fio_thread_init(void **ctx, const struct sb_bi_thread *t)
{
    struct fio_thread *f = calloc(1, sizeof(*f));
    size_t len = (size_t)((fio_cfg.request_max + 4095) / 4096 * 4096);
    int rc = 0;

    if (f == NULL || (f->buf = aligned_alloc(4096, len)) == NULL) {
        free(f);
        return SB_BI_ERROR;
    }
    memset(f->buf, 0x5a, len);
    f->rand = t->rand;
    f->c = t->counters;
    f->err = t->err;
    f->errlen = t->errlen;
    pthread_mutex_lock(&ft.lock);
    if (ft.users == 0)
        rc = open_all(t->err, t->errlen);
    if (rc == 0)
        ft.users++;
    pthread_mutex_unlock(&ft.lock);
    if (rc != 0) {
        free(f->buf);
        free(f);
        return SB_BI_ERROR;
    }
    *ctx = f;
    if (fio_cfg.io == FIO_IO_ASYNC && async_init(f) != 0)
        return SB_BI_ERROR; /* fio_thread_done(*ctx) still runs */
    return 0;
}

static int sync_file(struct fio_thread *t, unsigned i)
{
    int rc;
    char name[64];

    if (fio_cfg.io == FIO_IO_MMAP)
        rc = msync(ft.maps[i], (size_t)fio_cfg.file_size, MS_SYNC);
    else
        rc = fio_cfg.fdatasync ? fdatasync(ft.fds[i]) : fsync(ft.fds[i]);
    if (rc == 0) {
        t->c->other++;
        return SB_BI_OK;
    }
    fio_file_name(i, name, sizeof(name));
    snprintf(t->err, t->errlen, "%s of %s failed: %s",
             fio_cfg.io == FIO_IO_MMAP ? "msync" : fio_cfg.fdatasync ? "fdatasync" : "fsync",
             name, strerror(errno));
    return SB_BI_ERROR;
}

static int io_error(struct fio_thread *t, bool write, unsigned file, uint64_t off, size_t len,
                    ssize_t got)
{
    char name[64];

    fio_file_name(file, name, sizeof(name));
    if (got >= 0)
        snprintf(t->err, t->errlen, "short %s of %s at offset %llu: %zd of %llu bytes (is it "
                 "shorter than the options say?)", write ? "write" : "read", name,
                 (unsigned long long)off, got, (unsigned long long)len);
    else
        snprintf(t->err, t->errlen, "%s of %s at offset %llu failed: %s%s",
                 write ? "write" : "read", name, (unsigned long long)off, strerror(errno),
                 errno == EINVAL && fio_cfg.flag_direct
                 ? " (direct I/O needs --file-block-size a multiple of the device's block size)"
                 : "");
    return SB_BI_ERROR;
}

/* n bytes at (file, off), whole or an error. */
static int do_io(struct fio_thread *t, bool write, unsigned file, uint64_t off, size_t n)
{
    ssize_t r;

    if (fio_cfg.io == FIO_IO_MMAP) {
        if (write)
            memcpy(ft.maps[file] + off, t->buf, n);
        else
            memcpy(t->buf, ft.maps[file] + off, n);
        return SB_BI_OK;
    }
    do
        r = write ? pwrite(ft.fds[file], t->buf, n, (off_t)off)
                  : pread(ft.fds[file], t->buf, n, (off_t)off);
    while (r < 0 && errno == EINTR);
    return r == (ssize_t)n ? SB_BI_OK : io_error(t, write, file, off, n, r);
}

/* Read or write: fixed by the mode; rndrw keeps this thread's reads at
 * --file-rw-ratio times its writes. */
static bool pick_write(struct fio_thread *t)
{
    switch (fio_cfg.mode) {
    case FIO_SEQRD:
    case FIO_RNDRD:
        return false;
    case FIO_RNDRW:
        return (double)t->reads >= fio_cfg.rw_ratio * (double)(t->writes + 1);
    default:
        return true;
    }
}

/* Where the next request goes; returns its length in bytes. */
static size_t pick_place(struct fio_thread *t, unsigned *file, uint64_t *off)
{
    uint64_t bpf = fio_cfg.blocks_per_file, m = fio_cfg.merge_blocks;

    if (fio_cfg.mode <= FIO_SEQRD) {
        /* Sequential: one position over all files, shared, wrapping; a
         * request of m blocks, the last of a file cut at its end. */
        uint64_t cpf = fio_cfg.chunks_per_file;
        uint64_t c = __atomic_fetch_add(&ft.next_block, 1, __ATOMIC_RELAXED) %
                     (cpf * fio_cfg.nfiles);
        uint64_t first = c % cpf * m;
        *file = (unsigned)(c / cpf);
        *off = first * fio_cfg.block_size;
        return (size_t)((bpf - first < m ? bpf - first : m) * fio_cfg.block_size);
    }
    *file = (unsigned)(sb_rand_next_u64(t->rand) % fio_cfg.nfiles);
    *off = sb_rand_next_u64(t->rand) % bpf * fio_cfg.block_size;
    return (size_t)fio_cfg.block_size;
}

int fio_event(void *ctx)
{
    struct fio_thread *t = ctx;
    unsigned file;
    uint64_t off;
    size_t len;
    bool write;

    if (t->fsync_left > 0)
        return async_drain(t) != SB_BI_OK ? SB_BI_ERROR
                                          : sync_file(t, fio_cfg.nfiles - t->fsync_left--);
    write = pick_write(t);
    len = pick_place(t, &file, &off);
    if (write)
        t->writes++;
    else
        t->reads++;
    if (t->as != NULL) {
        /* Counted when the request completes (async_reap). */
        if (async_submit(t, write, file, off, len) != SB_BI_OK)
            return SB_BI_ERROR;
    } else {
        if (do_io(t, write, file, off, len) != SB_BI_OK)
            return SB_BI_ERROR;
        if (write)
            t->c->writes++;
        else
            t->c->reads++;
    }
    if (write && fio_cfg.fsync_all)
        return async_drain(t) != SB_BI_OK ? SB_BI_ERROR : sync_file(t, file);
    if (fio_cfg.fsync_freq > 0 && !fio_cfg.fsync_all && fio_mode_writes(fio_cfg.mode) &&
        __atomic_add_fetch(&ft.requests, 1, __ATOMIC_RELAXED) % fio_cfg.fsync_freq == 0)
        t->fsync_left = fio_cfg.nfiles;
    return SB_BI_OK;
}

int fio_thread_done(void *ctx)
{
    struct fio_thread *t = ctx;
    /* This thread's requests in flight complete (and count) first. */
    int rc = async_drain(t) != SB_BI_OK ? SB_BI_ERROR : 0;

    async_done(t);
    pthread_mutex_lock(&ft.lock);
    if (--ft.users == 0) {
        /* The last thread of the point: the end-of-test fsync (counted
         * as fsyncs, not events), then the files close. */
        if (fio_cfg.fsync_end && !fio_cfg.fsync_all && fio_mode_writes(fio_cfg.mode))
            for (unsigned i = 0; i < fio_cfg.nfiles && rc == 0 && ft.fds != NULL; i++)
                rc = sync_file(t, i);
        close_all();
    }
    pthread_mutex_unlock(&ft.lock);
    free(t->buf);
    free(t);
    return rc;
}
