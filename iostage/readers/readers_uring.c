/* readers_uring.c - the io_uring engine (liburing): keeps `depth` requests
 * of `chunk` bytes in flight per thread; latency is submit to completion. */
#include "drivers/common/clock.h"
#include "iostage/readers/engine.h"
#include "iostage/stage.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#ifdef KB_IO_HAVE_URING
#include <liburing.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct {
    struct io_uring ring;
    unsigned depth;
    struct req { size_t off, n; double t0; bool busy; } *reqs;
    unsigned *free_slots;
} uring_state;

static int uring_open(void **state, unsigned depth, char *err, size_t len)
{
    uring_state *u = calloc(1, sizeof *u);
    if (u) {
        u->reqs = calloc(depth, sizeof *u->reqs);
        u->free_slots = calloc(depth, sizeof *u->free_slots);
    }
    if (!u || !u->reqs || !u->free_slots) {
        if (u) {
            free(u->reqs);
            free(u->free_slots);
        }
        free(u);
        snprintf(err, len, "out of memory for an io_uring of depth %u", depth);
        return KB_IO_ERROR;
    }
    int rc = io_uring_queue_init(depth, &u->ring, 0);
    if (rc < 0) {
        snprintf(err, len, "io_uring_queue_init(%u) failed: %s (kernel or "
                 "seccomp may forbid io_uring; try --engine pread)", depth,
                 strerror(-rc));
        free(u->reqs);
        free(u->free_slots);
        free(u);
        return KB_IO_ERROR;
    }
    u->depth = depth;
    *state = u;
    return 0;
}

/* Finish a short transfer synchronously: rare (signals, page-cache
 * pressure) and not worth a resubmission path. */
static ssize_t finish_sync(int fd, uint8_t *buf, size_t off, size_t n,
                           bool write)
{
    size_t done = 0;
    while (done < n) {
        ssize_t r = write ? pwrite(fd, buf + off + done, n - done,
                                   (off_t)(off + done))
                          : pread(fd, buf + off + done, n - done,
                                  (off_t)(off + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -errno;
        if (r == 0)
            break;
        done += (size_t)r;
    }
    return (ssize_t)done;
}

/* End of the prefix of [0, size) that has fully arrived: requests go
 * out in offset order, so it is where the lowest one in flight starts. */
static size_t arrived(const uring_state *u, size_t next)
{
    size_t lowest = next;
    for (unsigned i = 0; i < u->depth; i++)
        if (u->reqs[i].busy && u->reqs[i].off < lowest)
            lowest = u->reqs[i].off;
    return lowest;
}

/* Read or write [0, size) with depth requests in flight. */
static int uring_rw(uring_state *u, int fd, uint8_t *buf, size_t size,
                    size_t chunk, bool write, kb_io_lat *lat,
                    const kb_io_progress *prog, char *err, size_t len)
{
    unsigned nfree = u->depth, inflight = 0;
    for (unsigned i = 0; i < u->depth; i++)
        u->free_slots[i] = i;
    size_t next = 0;
    int rc = 0;
    while ((next < size && !rc) || inflight) {
        while (!rc && inflight < u->depth && next < size) {
            struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);
            if (!sqe)
                break;
            unsigned slot = u->free_slots[--nfree];
            size_t left = size - next;
            /* reads ask for whole aligned blocks (O_DIRECT) within buf */
            if (!write)
                left = (left + KB_IO_ALIGN - 1) / KB_IO_ALIGN * KB_IO_ALIGN;
            size_t n = left < chunk ? left : chunk;
            u->reqs[slot] = (struct req){next, n, kb_now(), true};
            if (write)
                io_uring_prep_write(sqe, fd, buf + next, (unsigned)n, next);
            else
                io_uring_prep_read(sqe, fd, buf + next, (unsigned)n, next);
            io_uring_sqe_set_data64(sqe, slot);
            next += n;
            inflight++;
        }
        int s = io_uring_submit_and_wait(&u->ring, 1);
        if (s < 0 && s != -EINTR) {
            snprintf(err, len, "io_uring_submit failed: %s", strerror(-s));
            return s;
        }
        struct io_uring_cqe *cqe;
        while (inflight && io_uring_peek_cqe(&u->ring, &cqe) == 0) {
            unsigned slot = (unsigned)io_uring_cqe_get_data64(cqe);
            struct req *q = &u->reqs[slot];
            int res = cqe->res;
            io_uring_cqe_seen(&u->ring, cqe);
            inflight--;
            u->free_slots[nfree++] = slot;
            q->busy = false;
            double t1 = kb_now();
            size_t want = q->off + q->n > size ? size - q->off : q->n;
            if (res >= 0 && (size_t)res < want) {
                ssize_t more = finish_sync(fd, buf, q->off + (size_t)res,
                                           want - (size_t)res, write);
                res = more < 0 ? (int)more : res + (int)more;
            }
            if (res < 0 || (size_t)res < want) {
                if (!rc) {
                    rc = res < 0 ? res : -EIO;
                    snprintf(err, len, "offset %zu: io_uring %s failed: %s",
                             q->off, write ? "write" : "read",
                             res < 0 ? strerror(-res) : "unexpected end of file");
                }
                continue;
            }
            if (lat) {
                if (kb_io_lat_add(lat, t1 - q->t0) && !rc) {
                    snprintf(err, len, "out of memory for latencies");
                    rc = -ENOMEM;
                }
                lat->bytes += (uint64_t)res;
            }
        }
        if (prog && !rc) {
            size_t ready = arrived(u, next);
            prog->fn(prog->ctx, ready < size ? ready : size);
        }
    }
    return rc;
}

static int uring_read(void *state, int fd, uint8_t *buf, size_t size,
                      size_t chunk, kb_io_lat *lat, const kb_io_progress *prog,
                      char *err, size_t len)
{
    return uring_rw(state, fd, buf, size, chunk, false, lat, prog, err, len);
}

static int uring_write(void *state, int fd, const uint8_t *buf, size_t size,
                       size_t chunk, char *err, size_t len)
{
    /* the buffer is only read by a write; the cast serves the shared path */
    return uring_rw(state, fd, (uint8_t *)buf, size, chunk, true, NULL, NULL,
                    err, len);
}

static void uring_close(void *state)
{
    uring_state *u = state;
    if (!u)
        return;
    io_uring_queue_exit(&u->ring);
    free(u->reqs);
    free(u->free_slots);
    free(u);
}

const kb_io_engine kb_io_engine_uring = {
    .name = "io_uring",
    .read_call = "io_uring read",
    .write_call = "io_uring write",
    .open = uring_open,
    .read = uring_read,
    .write = uring_write,
    .close = uring_close,
};
#else
const kb_io_engine kb_io_engine_uring = {
    .name = "io_uring",
    .missing = "built without liburing (Debian: liburing-dev)",
};
#endif
