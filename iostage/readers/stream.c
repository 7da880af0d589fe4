/* stream.c - a reader's pread thread and the pool of chunk buffers it
 * shares with the reader (stream.h). */
#define _GNU_SOURCE   /* O_DIRECT (through kb_io_open) */
#include "iostage/readers/stream.h"
#include "drivers/common/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct kb_io_stream {
    size_t chunk, room;
    unsigned nslots;
    uint8_t *mem;
    kb_io_chunk *c;            /* one per slot */
    pthread_mutex_t mu;
    pthread_cond_t cv_free, cv_full;
    unsigned *free_slots, nfree;
    unsigned *fifo, head, count;   /* filled chunks, in order */
    bool stop, done, running;
    pthread_t t;
    kb_io_stream_src src;
    kb_io_lat *lat;
};

kb_io_stream *kb_io_stream_new(size_t chunk, unsigned nslots, size_t room)
{
    kb_io_stream *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->chunk = chunk;
    s->room = room;
    s->nslots = nslots;
    s->mem = aligned_alloc(KB_IO_ALIGN, (size_t)nslots * (room + chunk));
    s->c = calloc(nslots, sizeof *s->c);
    s->free_slots = calloc(nslots, sizeof *s->free_slots);
    s->fifo = calloc(nslots, sizeof *s->fifo);
    if (!s->mem || !s->c || !s->free_slots || !s->fifo) {
        kb_io_stream_free(s);
        return NULL;
    }
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv_free, NULL);
    pthread_cond_init(&s->cv_full, NULL);
    for (unsigned i = 0; i < nslots; i++) {
        s->c[i].slot = i;
        s->c[i].room = room;
        s->c[i].data = s->mem + (size_t)i * (room + chunk) + room;
        s->free_slots[i] = i;
    }
    s->nfree = nslots;
    return s;
}

void kb_io_stream_free(kb_io_stream *s)
{
    if (!s)
        return;
    if (s->mem) {   /* fully made */
        pthread_cond_destroy(&s->cv_full);
        pthread_cond_destroy(&s->cv_free);
        pthread_mutex_destroy(&s->mu);
    }
    free(s->mem);
    free(s->c);
    free(s->free_slots);
    free(s->fifo);
    free(s);
}

/* A free slot, or NULL when told to stop. */
static kb_io_chunk *take_free(kb_io_stream *s)
{
    pthread_mutex_lock(&s->mu);
    while (!s->stop && s->nfree == 0)
        pthread_cond_wait(&s->cv_free, &s->mu);
    kb_io_chunk *c = s->stop ? NULL : &s->c[s->free_slots[--s->nfree]];
    pthread_mutex_unlock(&s->mu);
    return c;
}

static void push(kb_io_stream *s, kb_io_chunk *c)
{
    pthread_mutex_lock(&s->mu);
    s->fifo[(s->head + s->count++) % s->nslots] = c->slot;
    pthread_cond_signal(&s->cv_full);
    pthread_mutex_unlock(&s->mu);
}

/* Send a chunk with no data: kind, and err when it is an error. */
static int send(kb_io_stream *s, kb_io_chunk_kind kind, int64_t tag,
                const char *path, uint64_t off, bool direct, const char *err)
{
    kb_io_chunk *c = take_free(s);
    if (!c)
        return -1;
    c->kind = kind;
    c->tag = tag;
    c->path = path;
    c->off = off;
    c->n = 0;
    c->direct = direct;
    snprintf(c->err, sizeof c->err, "%s", err ? err : "");
    push(s, c);
    return 0;
}

/* One pread of up to `want` bytes at off, EINTR retried: bytes (0 at the
 * end of the file) or -errno. */
static ssize_t pread_once(int fd, uint8_t *buf, size_t want, uint64_t off)
{
    for (;;) {
        ssize_t r = pread(fd, buf, want, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        return r < 0 ? -errno : r;
    }
}

/* Read one file into chunks, then END.  0, or -1 after an ERROR (or when
 * stopped). */
static int read_one(kb_io_stream *s, int64_t tag, const char *path)
{
    bool direct = s->src.want_direct(s->src.ctx);
    char err[KB_IO_ERRLEN];
    for (;;) {
        bool asked = direct;
        int fd = kb_io_open(path, O_RDONLY, &direct);
        if (fd >= 0 && asked && !direct)
            s->src.refused(s->src.ctx, "open", path, strerror(EINVAL));
        struct stat st;
        if (fd < 0 || fstat(fd, &st) < 0) {
            snprintf(err, sizeof err, "cannot open: %s", strerror(errno));
            if (fd >= 0)
                close(fd);
            send(s, KB_IO_CHUNK_ERROR, tag, path, 0, direct, err);
            return -1;
        }
        uint64_t size = (uint64_t)st.st_size, off = 0;
        /* a refused attempt's requests are not part of the measurement */
        size_t lat_n = s->lat->n;
        uint64_t lat_bytes = s->lat->bytes;
        int rc = 0;
        while (off < size && !rc) {
            kb_io_chunk *c = take_free(s);
            if (!c) {
                close(fd);
                return -1;
            }
            /* whole aligned requests (O_DIRECT); the file end makes the
             * last one short */
            uint64_t left = (size - off + KB_IO_ALIGN - 1) / KB_IO_ALIGN *
                            KB_IO_ALIGN;
            size_t want = left < s->chunk ? (size_t)left : s->chunk;
            double t0 = kb_now();
            ssize_t r = pread_once(fd, c->data, want, off);
            double t1 = kb_now();
            if (r <= 0) {
                snprintf(err, sizeof err, "offset %" PRIu64 ": pread failed: "
                         "%s", off, r ? strerror((int)-r)
                                      : "unexpected end of file");
                rc = r ? (int)r : -EIO;
            } else if (kb_io_lat_add(s->lat, t1 - t0)) {
                snprintf(err, sizeof err, "out of memory for latencies");
                rc = -ENOMEM;
            }
            if (rc) {   /* the slot goes back unsent */
                pthread_mutex_lock(&s->mu);
                s->free_slots[s->nfree++] = c->slot;
                pthread_mutex_unlock(&s->mu);
                break;
            }
            if ((uint64_t)r > size - off)   /* the file grew: its size */
                r = (ssize_t)(size - off);
            s->lat->bytes += (uint64_t)r;
            c->kind = KB_IO_CHUNK_DATA;
            c->tag = tag;
            c->path = path;
            c->off = off;
            c->n = (size_t)r;
            push(s, c);
            off += (uint64_t)r;
        }
        close(fd);
        if (rc == -EINVAL && direct) {
            s->lat->n = lat_n;
            s->lat->bytes = lat_bytes;
            s->src.refused(s->src.ctx, "read", path, err);
            if (send(s, KB_IO_CHUNK_RESTART, tag, path, 0, false, NULL))
                return -1;
            direct = false;
            continue;
        }
        if (rc) {
            send(s, KB_IO_CHUNK_ERROR, tag, path, off, direct, err);
            return -1;
        }
        return send(s, KB_IO_CHUNK_END, tag, path, size, direct, NULL);
    }
}

static void *io_main(void *arg)
{
    kb_io_stream *s = arg;
    int64_t tag;
    const char *path;
    while (s->src.next(s->src.ctx, &tag, &path))
        if (read_one(s, tag, path))
            break;
    pthread_mutex_lock(&s->mu);
    s->done = true;
    pthread_cond_broadcast(&s->cv_full);
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

int kb_io_stream_start(kb_io_stream *s, const kb_io_stream_src *src,
                       kb_io_lat *lat)
{
    s->src = *src;
    s->lat = lat;
    s->stop = s->done = false;
    s->head = s->count = 0;
    s->nfree = s->nslots;
    for (unsigned i = 0; i < s->nslots; i++)
        s->free_slots[i] = i;
    s->running = pthread_create(&s->t, NULL, io_main, s) == 0;
    return s->running ? 0 : KB_IO_ERROR;
}

kb_io_chunk *kb_io_stream_get(kb_io_stream *s)
{
    pthread_mutex_lock(&s->mu);
    while (!s->count && !s->done && !s->stop)
        pthread_cond_wait(&s->cv_full, &s->mu);
    kb_io_chunk *c = NULL;
    if (s->count) {
        c = &s->c[s->fifo[s->head]];
        s->head = (s->head + 1) % s->nslots;
        s->count--;
    }
    pthread_mutex_unlock(&s->mu);
    return c;
}

void kb_io_stream_put(kb_io_stream *s, kb_io_chunk *c)
{
    pthread_mutex_lock(&s->mu);
    s->free_slots[s->nfree++] = c->slot;
    pthread_cond_signal(&s->cv_free);
    pthread_mutex_unlock(&s->mu);
}

void kb_io_stream_join(kb_io_stream *s)
{
    if (!s || !s->running)
        return;
    pthread_mutex_lock(&s->mu);
    s->stop = true;
    pthread_cond_broadcast(&s->cv_free);
    pthread_cond_broadcast(&s->cv_full);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->t, NULL);
    s->running = false;
}
