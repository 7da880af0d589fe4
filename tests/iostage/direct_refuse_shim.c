/* direct_refuse_shim.c - an LD_PRELOAD library for the tests: makes the
 * filesystem refuse O_DIRECT the way some do, so kbench io's fallback and
 * its record of the refusal can be tested on a filesystem that accepts it.
 *
 * $KB_REFUSE_DIRECT lists what to refuse, comma-separated:
 *   open   an open with O_DIRECT fails with EINVAL (tmpfs before 6.6);
 *   read   the open succeeds, a read on the O_DIRECT fd fails with EINVAL
 *          (filesystems that accept the flag but not the transfer);
 *   read-tail  only reads past offset 0 fail: the first block arrives
 *          before the refusal, as when only a file's later extents are
 *          refused;
 *   write  like read, for writes.
 * Unset or empty, every call passes through.  The fd's O_DIRECT flag is
 * read with fcntl, so no state is kept.  io_uring requests never pass
 * through libc: the shim wraps io_uring_submit_and_wait and turns each
 * pending read or write on an O_DIRECT fd into a request the kernel
 * itself completes with -EINVAL (an opcode it does not know), which is
 * what kbench sees when the kernel refuses an O_DIRECT transfer.
 *
 * Under ASan, libasan must come first in LD_PRELOAD (tests/iostage/iostage.cmake puts
 * it there); calls then go executable -> ASan -> this shim -> libc. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#ifdef KB_SHIM_URING
#include <liburing.h>
#endif

/* The test checks that it runs under the shim with dlsym of this. */
int kb_direct_refuse_shim = 1;

/* Whether $KB_REFUSE_DIRECT lists `what`. */
static bool refusing(const char *what)
{
    const char *v = getenv("KB_REFUSE_DIRECT");
    size_t n = strlen(what);
    for (const char *p = v; p && *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, what, n) == 0)
            return true;
        p = end ? end + 1 : NULL;
    }
    return false;
}

static bool is_direct(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl >= 0 && (fl & O_DIRECT);
}

/* The next definition of name (libc's, or ASan's interceptor). */
static void *next(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f)
        abort();   /* a shim that cannot pass calls on must not go on */
    return f;
}

/* ---- opens ---- */
/* Whether an open with these flags is refused (errno set). */
static bool refuse_open(int flags)
{
    if (!(flags & O_DIRECT) || !refusing("open"))
        return false;
    errno = EINVAL;
    return true;
}

/* The mode of an open that creates: only then was one passed. */
#define OPEN_MODE(flags, mode)                                              \
    do {                                                                    \
        if ((flags) & (O_CREAT | O_TMPFILE)) {                              \
            va_list ap;                                                     \
            va_start(ap, flags);                                            \
            mode = (mode_t)va_arg(ap, int);                                 \
            va_end(ap);                                                     \
        }                                                                   \
    } while (0)

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);

int open(const char *path, int flags, ...)
{
    mode_t mode = 0;
    OPEN_MODE(flags, mode);
    return refuse_open(flags) ? -1
                              : ((open_fn)next("open"))(path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
    mode_t mode = 0;
    OPEN_MODE(flags, mode);
    return refuse_open(flags) ? -1
                              : ((open_fn)next("open64"))(path, flags, mode);
}

int openat(int dir, const char *path, int flags, ...)
{
    mode_t mode = 0;
    OPEN_MODE(flags, mode);
    return refuse_open(flags)
               ? -1 : ((openat_fn)next("openat"))(dir, path, flags, mode);
}

int openat64(int dir, const char *path, int flags, ...)
{
    mode_t mode = 0;
    OPEN_MODE(flags, mode);
    return refuse_open(flags)
               ? -1 : ((openat_fn)next("openat64"))(dir, path, flags, mode);
}

/* ---- reads and writes on an O_DIRECT fd ---- */
/* Whether a read at off on fd is refused. */
static bool refuse_read(int fd, off_t off)
{
    return (refusing("read") || (refusing("read-tail") && off > 0)) &&
           is_direct(fd);
}

#define REFUSE(refused)                                                     \
    do {                                                                    \
        if (refused) {                                                      \
            errno = EINVAL;                                                 \
            return -1;                                                      \
        }                                                                   \
    } while (0)

ssize_t read(int fd, void *buf, size_t n)
{
    REFUSE(refuse_read(fd, lseek(fd, 0, SEEK_CUR)));
    return ((ssize_t(*)(int, void *, size_t))next("read"))(fd, buf, n);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
    REFUSE(refuse_read(fd, off));
    return ((ssize_t(*)(int, void *, size_t, off_t))next("pread"))(fd, buf, n,
                                                                   off);
}

ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
    REFUSE(refuse_read(fd, off));
    return ((ssize_t(*)(int, void *, size_t, off_t))next("pread64"))(
        fd, buf, n, off);
}

ssize_t preadv(int fd, const struct iovec *v, int cnt, off_t off)
{
    REFUSE(refuse_read(fd, off));
    return ((ssize_t(*)(int, const struct iovec *, int, off_t))next(
        "preadv"))(fd, v, cnt, off);
}

ssize_t write(int fd, const void *buf, size_t n)
{
    REFUSE(refusing("write") && is_direct(fd));
    return ((ssize_t(*)(int, const void *, size_t))next("write"))(fd, buf, n);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    REFUSE(refusing("write") && is_direct(fd));
    return ((ssize_t(*)(int, const void *, size_t, off_t))next("pwrite"))(
        fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
    REFUSE(refusing("write") && is_direct(fd));
    return ((ssize_t(*)(int, const void *, size_t, off_t))next("pwrite64"))(
        fd, buf, n, off);
}

ssize_t pwritev(int fd, const struct iovec *v, int cnt, off_t off)
{
    REFUSE(refusing("write") && is_direct(fd));
    return ((ssize_t(*)(int, const struct iovec *, int, off_t))next(
        "pwritev"))(fd, v, cnt, off);
}

#ifdef KB_SHIM_URING
/* The requests queued since the last submission are sq.sqes[i & mask]
 * for i in [sqe_head, sqe_tail) (liburing's io_uring_get_sqe hands them
 * out in that order). */
int io_uring_submit_and_wait(struct io_uring *ring, unsigned wait_nr)
{
    struct io_uring_sq *sq = &ring->sq;
    for (unsigned i = sq->sqe_head; i != sq->sqe_tail; i++) {
        struct io_uring_sqe *sqe = &sq->sqes[i & sq->ring_mask];
        if (sqe->flags & IOSQE_FIXED_FILE)
            continue;
        bool refuse = false;
        if (sqe->opcode == IORING_OP_READ || sqe->opcode == IORING_OP_READV)
            refuse = refuse_read(sqe->fd, (off_t)sqe->off);
        else if (sqe->opcode == IORING_OP_WRITE ||
                 sqe->opcode == IORING_OP_WRITEV)
            refuse = refusing("write") && is_direct(sqe->fd);
        if (refuse)
            sqe->opcode = 0xff;   /* the kernel answers -EINVAL */
    }
    return ((int (*)(struct io_uring *, unsigned))next(
        "io_uring_submit_and_wait"))(ring, wait_nr);
}
#endif
