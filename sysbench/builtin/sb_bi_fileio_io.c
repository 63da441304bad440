/*
 * fileio's run: the file set a run's threads share (opened by the first
 * thread of a point, closed by the last, which also does the end-of-test
 * fsync) and the per-thread events. One event is one read or one write
 * of --file-block-size bytes, or one file's fsync of a periodic round
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
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sb_bi_fileio_int.h"
#include "sb_driver.h"
#include "sb_rand.h"

/* The open files of the point being run: shared by its threads. */
static struct {
    pthread_mutex_t lock;
    unsigned users;
    int *fds;
    unsigned char **maps;     /* --file-io-mode=mmap */
    uint64_t next_block;      /* sequential modes: the next block, atomic */
    uint64_t requests;        /* periodic fsync: requests so far, atomic */
} ft = { .lock = PTHREAD_MUTEX_INITIALIZER };

struct fio_thread {
    struct sb_rand *rand;
    struct sb_db_counters *c;
    char *err;
    size_t errlen;
    unsigned char *buf;       /* one block, aligned for O_DIRECT */
    unsigned fsync_left;      /* files left in this thread's fsync round */
    uint64_t reads, writes;   /* this thread's, for --file-rw-ratio */
};

bool fio_async_available(void)
{
    return false;
}

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

    if (e == ENOENT)
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
    size_t len = (size_t)((fio_cfg.block_size + 4095) / 4096 * 4096);
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

static int io_error(struct fio_thread *t, bool write, unsigned file, uint64_t off, ssize_t got)
{
    char name[64];

    fio_file_name(file, name, sizeof(name));
    if (got >= 0)
        snprintf(t->err, t->errlen, "short %s of %s at offset %llu: %zd of %llu bytes (is it "
                 "shorter than the options say?)", write ? "write" : "read", name,
                 (unsigned long long)off, got, (unsigned long long)fio_cfg.block_size);
    else
        snprintf(t->err, t->errlen, "%s of %s at offset %llu failed: %s%s",
                 write ? "write" : "read", name, (unsigned long long)off, strerror(errno),
                 errno == EINVAL && fio_cfg.flag_direct
                 ? " (direct I/O needs --file-block-size a multiple of the device's block size)"
                 : "");
    return SB_BI_ERROR;
}

/* One block at (file, off), whole or an error. */
static int do_io(struct fio_thread *t, bool write, unsigned file, uint64_t off)
{
    size_t n = (size_t)fio_cfg.block_size;
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
    return r == (ssize_t)n ? SB_BI_OK : io_error(t, write, file, off, r);
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

static void pick_place(struct fio_thread *t, unsigned *file, uint64_t *off)
{
    uint64_t bpf = fio_cfg.blocks_per_file;

    if (fio_cfg.mode <= FIO_SEQRD) {
        /* Sequential: one position over all files, shared, wrapping. */
        uint64_t b = __atomic_fetch_add(&ft.next_block, 1, __ATOMIC_RELAXED) %
                     (bpf * fio_cfg.nfiles);
        *file = (unsigned)(b / bpf);
        *off = b % bpf * fio_cfg.block_size;
        return;
    }
    *file = (unsigned)(sb_rand_next_u64(t->rand) % fio_cfg.nfiles);
    *off = sb_rand_next_u64(t->rand) % bpf * fio_cfg.block_size;
}

int fio_event(void *ctx)
{
    struct fio_thread *t = ctx;
    unsigned file;
    uint64_t off;
    bool write;

    if (t->fsync_left > 0)
        return sync_file(t, fio_cfg.nfiles - t->fsync_left--);
    write = pick_write(t);
    pick_place(t, &file, &off);
    if (do_io(t, write, file, off) != SB_BI_OK)
        return SB_BI_ERROR;
    if (write) {
        t->writes++;
        t->c->writes++;
    } else {
        t->reads++;
        t->c->reads++;
    }
    if (write && fio_cfg.fsync_all)
        return sync_file(t, file);
    if (fio_cfg.fsync_freq > 0 && !fio_cfg.fsync_all && fio_mode_writes(fio_cfg.mode) &&
        __atomic_add_fetch(&ft.requests, 1, __ATOMIC_RELAXED) % fio_cfg.fsync_freq == 0)
        t->fsync_left = fio_cfg.nfiles;
    return SB_BI_OK;
}

int fio_thread_done(void *ctx)
{
    struct fio_thread *t = ctx;
    int rc = 0;

    pthread_mutex_lock(&ft.lock);
    if (--ft.users == 0) {
        /* The last thread of the point: the end-of-test fsync (counted
         * as fsyncs, not events), then the files close. */
        if (fio_cfg.fsync_end && !fio_cfg.fsync_all && fio_mode_writes(fio_cfg.mode))
            for (unsigned i = 0; i < fio_cfg.nfiles && rc == 0; i++)
                rc = sync_file(t, i);
        close_all();
    }
    pthread_mutex_unlock(&ft.lock);
    free(t->buf);
    free(t);
    return rc;
}
