/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Result files written to a temporary name and renamed; see sb_safefile.h.
 */
#include "config.h"
#include "core/sb_safefile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

/* The extended attribute that marks a file sb_safefile_open_marked wrote. */
#define SB_SAFEFILE_XATTR "user.sysbench.result"

/* Whether the regular file at path carries mark: 1 yes, 0 no, -1 the file
 * system keeps no user extended attributes (the recogniser decides). */
static int has_mark(const char *path, const char *mark)
{
    char v[64];
    ssize_t n = lgetxattr(path, SB_SAFEFILE_XATTR, v, sizeof(v));

    if (n < 0)
        return errno == ENOTSUP ? -1 : 0;
    return (size_t)n == strlen(mark) && memcmp(v, mark, (size_t)n) == 0;
}

/* The kind of thing at path, for a refusal message; NULL when it may be
 * replaced. A regular file is read (without following a symlink and
 * without blocking on a FIFO swapped in meanwhile) to see whether it is
 * ours. */
static const char *refusal(const char *path, sb_safefile_ours_fn ours, const char *mark)
{
    struct stat st;
    char head[4096];
    ssize_t n;
    int fd;

    if (lstat(path, &st) != 0)
        return errno == ENOENT ? NULL : "unreadable";
    if (S_ISLNK(st.st_mode))
        return "a symbolic link";
    if (S_ISDIR(st.st_mode))
        return "a directory";
    if (!S_ISREG(st.st_mode))
        return "not a regular file";
    if (st.st_size == 0)
        return NULL;
    if (mark != NULL) {
        int m = has_mark(path, mark);
        if (m >= 0)
            return m ? NULL : "not a sysbench result file";
    }
    fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return "unreadable";
    n = read(fd, head, sizeof(head));
    close(fd);
    if (n > 0 && ours(head, (size_t)n))
        return NULL;
    return "not a sysbench result file";
}

/*
 * The stream writes through these, so that the first failed write's
 * errno is kept: stdio only keeps an error flag, and a later fclose then
 * says EIO for what was ENOSPC (a full disk reported twice, once wrongly).
 */
static ssize_t cookie_write(void *c, const char *buf, size_t size)
{
    struct sb_safefile *f = c;
    ssize_t n;

    do
        n = write(f->fd, buf, size);
    while (n < 0 && errno == EINTR);
    if (n < 0 && f->err_no == 0)
        f->err_no = errno;
    return n < 0 ? -1 : n;
}

static int cookie_close(void *c)
{
    struct sb_safefile *f = c;
    int rc = close(f->fd);

    if (rc != 0 && f->err_no == 0)
        f->err_no = errno;
    f->fd = -1;
    return rc;
}

static FILE *open_stream(struct sb_safefile *f, int fd)
{
    cookie_io_functions_t io = {NULL, cookie_write, NULL, cookie_close};

    f->fd = fd;
    return fopencookie(f, "w", io);
}

int sb_safefile_open(struct sb_safefile *f, const char *path, const char *what,
                     sb_safefile_ours_fn ours, char *err, size_t errlen)
{
    return sb_safefile_open_marked(f, path, what, ours, NULL, err, errlen);
}

int sb_safefile_open_marked(struct sb_safefile *f, const char *path, const char *what,
                            sb_safefile_ours_fn ours, const char *mark, char *err,
                            size_t errlen)
{
    static unsigned seq;
    const char *why, *slash;
    int fd = -1;

    memset(f, 0, sizeof(*f));
    f->what = what;
    f->ours = ours;
    f->mark = mark;
    if (snprintf(f->final, sizeof(f->final), "%s", path) >= (int)sizeof(f->final)) {
        snprintf(err, errlen, "the %s file name is too long", what);
        return -1;
    }
    why = refusal(path, ours, mark);
    if (why != NULL) {
        snprintf(err, errlen, "refusing to replace the %s file '%s': it is %s "
                 "(remove it or choose another name)", what, path, why);
        return -1;
    }
    slash = strrchr(path, '/');
    for (int tries = 0; fd < 0 && tries < 100; tries++) {
        int len = slash ? (int)(slash - path + 1) : 0;
        if (snprintf(f->tmp, sizeof(f->tmp), "%.*s.%s.tmp.%ld.%u", len, path,
                     slash ? slash + 1 : path, (long)getpid(), seq++) >= (int)sizeof(f->tmp)) {
            snprintf(err, errlen, "the %s file name is too long", what);
            return -1;
        }
        fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0 || (f->fp = open_stream(f, fd)) == NULL) {
        snprintf(err, errlen, "cannot write the %s file '%s': %s", what, path,
                 strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(f->tmp);
        }
        return -1;
    }
    /* The mark travels with the file through the rename. A file system
     * without user attributes refuses it; the recogniser serves there. */
    if (mark != NULL)
        (void)fsetxattr(fd, SB_SAFEFILE_XATTR, mark, strlen(mark), 0);
    return 0;
}

int sb_safefile_commit(struct sb_safefile *f, char *err, size_t errlen)
{
    const char *why;
    int failed;

    if (f->fp == NULL)
        return 0;
    failed = ferror(f->fp);
    errno = 0;
    if (fclose(f->fp) != 0 || failed) {
        f->fp = NULL;
        snprintf(err, errlen, "cannot write the %s file '%s': %s", f->what, f->final,
                 strerror(sb_safefile_errno(f)));
        unlink(f->tmp);
        return -1;
    }
    f->fp = NULL;
    /* The final name may have changed during the run. */
    why = refusal(f->final, f->ours, f->mark);
    if (why != NULL) {
        snprintf(err, errlen, "refusing to replace the %s file '%s': it is now %s; "
                 "the results are in '%s'", f->what, f->final, why, f->tmp);
        return -1;
    }
    if (rename(f->tmp, f->final) != 0) {
        snprintf(err, errlen, "cannot write the %s file '%s': %s; the results are in '%s'",
                 f->what, f->final, strerror(errno), f->tmp);
        return -1;
    }
    return 0;
}

int sb_safefile_errno(const struct sb_safefile *f)
{
    return f->err_no != 0 ? f->err_no : errno != 0 ? errno : EIO;
}

void sb_safefile_abandon(struct sb_safefile *f)
{
    if (f->fp == NULL)
        return;
    fclose(f->fp);
    f->fp = NULL;
    unlink(f->tmp);
}

bool sb_safefile_is_result_json(const char *head, size_t len)
{
    static const char tag[] = "\"sysbench-result\"";
    size_t i = 0;

    while (i < len && (head[i] == ' ' || head[i] == '\n' || head[i] == '\t' ||
                       head[i] == '\r'))
        i++;
    if (i == len || head[i] != '{')
        return false;
    /* The "format" member is the first one we write. */
    for (; i + sizeof(tag) - 1 <= len && i < 256; i++)
        if (memcmp(head + i, tag, sizeof(tag) - 1) == 0)
            return true;
    return false;
}

bool sb_safefile_is_result_csv(const char *head, size_t len)
{
    static const char hdr[] = "point,threads,target_tps,";
    return len >= sizeof(hdr) - 1 && memcmp(head, hdr, sizeof(hdr) - 1) == 0;
}

bool sb_safefile_is_txlog(const char *head, size_t len)
{
    unsigned fields = 1;

    if (len == 0 || head[0] < '0' || head[0] > '9')
        return false;
    /* Every format of the log has at least 6 fields a line (pgbench's
     * per-transaction and aggregate lines): a PID file or a list of
     * numbers is not one. */
    for (size_t i = 0; i < len && head[i] != '\n'; i++)
        fields += head[i] == ' ';
    if (fields < 6)
        return false;
    /* The head may end inside a line: every byte read is checked, none
     * has to end a line. */
    for (size_t i = 0; i < len; i++)
        if ((head[i] < '0' || head[i] > '9') && head[i] != ' ' && head[i] != '\n')
            return false;
    return true;
}

bool sb_safefile_is_hgrm(const char *head, size_t len)
{
    static const char value[] = "Value", pct[] = "Percentile";
    size_t i = 0;

    while (i < len && head[i] == ' ')
        i++;
    if (len - i < sizeof(value) - 1 || memcmp(head + i, value, sizeof(value) - 1) != 0)
        return false;
    i += sizeof(value) - 1;
    if (i == len || head[i] != ' ')
        return false;
    while (i < len && head[i] == ' ')
        i++;
    return len - i >= sizeof(pct) - 1 && memcmp(head + i, pct, sizeof(pct) - 1) == 0;
}
