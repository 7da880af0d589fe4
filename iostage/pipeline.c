/* pipeline.c - `kbench io run`: reader threads read whole files of this
 * rank's shard through an engine, parse and verify their records, shuffle
 * them, decode them into the prefetch ring's batches (with pread, a format
 * whose records carry their ids and a decode that keeps no body, a reader
 * instead takes the file in chunks from its own pread thread, stream.h,
 * and verifies them as they come); the consumer (this
 * thread) checks exactly-once delivery with a bitmap, computes (sleeps, or
 * runs the model on a backend: compute_model.c), runs the checkpoint
 * schedule between steps and measures (epoch_report.c writes it down). */
#include "iostage/epoch_report.h"
#include "iostage/run_dataset.h"
#include "drivers/common/clock.h"
#include "iostage/checkpoint/schedule.h"
#include "iostage/compute_model.h"
#include "iostage/decode/decoder.h"
#include "iostage/metrics.h"
#include "iostage/pipeline.h"
#include "iostage/profile.h"
#include "iostage/readers/direct.h"
#include "iostage/readers/engine.h"
#include "iostage/readers/stream.h"
#include "iostage/ring.h"
#include "iostage/sample.h"
#include "iostage/shuffle.h"
#include "iostage/stage.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cjson/cJSON.h>

/* State shared by the readers of one run. */
typedef struct {
    kb_io_dataset d;                /* files, format, shard */
    const kb_io_profile *p;         /* &d.prof */
    const kb_io_run_opts *o;
    int64_t epoch;
    int64_t *order;                 /* this epoch's file order */
    atomic_int_fast64_t next_file;
    kb_io_ring *ring;
    size_t out_bytes;
    kb_io_model *model;             /* --compute backend:, else NULL */
    kb_io_ckpt_sched *sched;        /* --checkpoint-dir's schedule */
    pthread_mutex_t mu;             /* guards the fields below */
    int rc;
    char err[3 * KB_IO_ERRLEN];     /* "path: message" */
    int64_t skipped_files, skipped_samples;
    uint64_t bytes;
    kb_io_lat lat;                  /* merged latencies of the epoch */
    kb_io_direct dio;               /* how --direct fared in the run */
    int64_t files_direct, files_buffered;   /* read each way, this epoch */
    atomic_bool direct;             /* reads still ask for O_DIRECT */
    bool streaming;                 /* readers take chunks (stream.h) */
} run_ctx;

/* One reader thread's buffers. */
typedef struct {
    run_ctx *c;
    void *engine;
    uint8_t *buf;
    size_t cap;
    kb_io_lat lat;
    kb_io_scratch scratch;
    kb_io_sample *s;
    size_t ns, scap;
    int64_t file;                   /* being read: its ids, messages */
    char id_err[128];               /* why collect() refused an id */
    /* verification while the file is still being read (parse_part) */
    size_t parsed;                  /* bytes of whole records walked */
    int parse_rc;                   /* first failure, then no more walks */
    char parse_err[KB_IO_ERRLEN];
    /* streaming: the pread thread, and the bytes of a record cut by a
     * chunk boundary (the file's bytes from carry_base on) */
    kb_io_stream *st;
    uint8_t *carry;
    size_t ncarry, carry_cap;
    uint64_t carry_base;
} reader;

/* Record the first error and stop the epoch. */
static void fail(run_ctx *c, int rc, const char *path, const char *msg)
{
    pthread_mutex_lock(&c->mu);
    if (!c->rc) {
        c->rc = rc;
        snprintf(c->err, sizeof c->err, "%s: %s", path, msg);
    }
    pthread_mutex_unlock(&c->mu);
    kb_io_ring_abort(c->ring);
}

/* Parser callback: keep the sample under its global id, checking that it
 * belongs to the file: kbench's header ids are file x spf + k, records
 * without ids are numbered k by the parser and named so here. */
static int collect(void *ctx, const kb_io_sample *s)
{
    reader *r = ctx;
    bool positional = r->c->d.fmt->positional_ids;
    uint64_t spf = (uint64_t)r->c->d.spf, first = (uint64_t)r->file * spf;
    uint64_t base = positional ? 0 : first;   /* the record's own numbers */
    if (s->id < base || s->id - base >= spf) {
        snprintf(r->id_err, sizeof r->id_err, "offset %" PRIu64 ": sample "
                 "%s %" PRIu64 " outside this file's %" PRIu64 "..%" PRIu64,
                 s->offset, positional ? "index" : "id", s->id, base,
                 base + spf - 1);
        return KB_IO_CORRUPT;
    }
    kb_io_sample k = *s;
    k.id = first + (s->id - base);
    if (r->c->streaming)   /* the chunk goes back; the decode needs none */
        k.body = NULL;
    if (r->ns == r->scap) {
        size_t cap = r->scap ? 2 * r->scap : 64;
        kb_io_sample *n = realloc(r->s, cap * sizeof *n);
        if (!n)
            return KB_IO_ERROR;
        r->s = n;
        r->scap = cap;
    }
    r->s[r->ns++] = k;
    return 0;
}

/* Make buf hold size bytes rounded up to KB_IO_ALIGN (O_DIRECT). */
static int reserve_buf(reader *r, size_t size)
{
    size_t need = (size + KB_IO_ALIGN - 1) / KB_IO_ALIGN * KB_IO_ALIGN;
    if (need <= r->cap && r->buf)
        return 0;
    free(r->buf);
    r->buf = aligned_alloc(KB_IO_ALIGN, need ? need : KB_IO_ALIGN);
    r->cap = r->buf ? need : 0;
    return r->buf ? 0 : KB_IO_ERROR;
}

/* Progress callback: walk the records that have arrived. */
static void on_ready(void *ctx, size_t ready)
{
    reader *r = ctx;
    if (!r->parse_rc)
        r->parse_rc = r->c->d.fmt->parse_part(
            r->buf, ready, &r->parsed, false, r->c->o->verify, collect, r,
            r->parse_err, sizeof r->parse_err);
}

/* One file read whole, with O_DIRECT or through the page cache. */
static void count_file(run_ctx *c, bool direct)
{
    pthread_mutex_lock(&c->mu);
    if (direct)
        c->files_direct++;
    else
        c->files_buffered++;
    pthread_mutex_unlock(&c->mu);
}

/* O_DIRECT was refused (by the engine, at open or at read) on path:
 * recorded and said once, and every later read of the run is buffered,
 * so that a refusal costs one failed request, not one a file. */
static void direct_refused(run_ctx *c, const char *at, const char *call,
                           const char *path, const char *why)
{
    atomic_store(&c->direct, false);
    pthread_mutex_lock(&c->mu);
    if (kb_io_direct_refuse(&c->dio, at, call, path, why)) {
        char what[2 * KB_IO_ERRLEN];
        kb_io_direct_describe(&c->dio, what, sizeof what);
        fprintf(stderr, "kbench io: %s; reading buffered from here on\n",
                what);
    }
    pthread_mutex_unlock(&c->mu);
}

/* Read a whole file into r->buf, walking its records as they arrive when
 * the format can, with O_DIRECT while the run still asks for it.  A
 * filesystem may refuse O_DIRECT at open or only at transfer time (EINVAL
 * from the read): either way the file is read again buffered and the
 * refusal recorded.  Returns the size, or -1 with a message. */
static int64_t read_file(reader *r, const char *path, char *err, size_t len)
{
    run_ctx *c = r->c;
    bool direct = atomic_load(&c->direct);
    for (;;) {
        bool asked = direct;
        int fd = kb_io_open(path, O_RDONLY, &direct);
        if (fd >= 0 && asked && !direct)
            direct_refused(c, "open", "open", path, strerror(EINVAL));
        struct stat st;
        if (fd < 0 || fstat(fd, &st) < 0) {
            snprintf(err, len, "cannot open: %s", strerror(errno));
            if (fd >= 0)
                close(fd);
            return -1;
        }
        size_t size = (size_t)st.st_size;
        r->ns = r->parsed = 0;
        r->parse_rc = 0;
        r->parse_err[0] = '\0';
        kb_io_progress prog = {on_ready, r};
        /* a refused attempt's requests are not part of the measurement */
        size_t lat_n = r->lat.n;
        uint64_t lat_bytes = r->lat.bytes;
        int rc = reserve_buf(r, size);
        if (rc)
            snprintf(err, len, "out of memory for %zu bytes", size);
        else
            rc = c->o->engine->read(r->engine, fd, r->buf, size, c->o->chunk,
                                    &r->lat,
                                    c->d.fmt->parse_part ? &prog : NULL, err,
                                    len);
        close(fd);
        if (rc == -EINVAL && direct) {
            r->lat.n = lat_n;
            r->lat.bytes = lat_bytes;
            direct_refused(c, "read", c->o->engine->read_call, path, err);
            direct = false;
            continue;
        }
        if (rc)
            return -1;
        count_file(c, direct);
        return (int64_t)size;
    }
}

/* A corrupt file: counted and skipped, or the end of the epoch. */
static void corrupt_file(reader *r, int64_t f, const char *path,
                         const char *msg)
{
    run_ctx *c = r->c;
    if (!c->o->skip_corrupt) {
        fail(c, KB_IO_CORRUPT, path, msg);
        return;
    }
    fprintf(stderr, "kbench io: skipping corrupt %s: %s\n", path, msg);
    int64_t n = kb_io_dataset_shard_samples(&c->d, f);
    pthread_mutex_lock(&c->mu);
    c->skipped_files++;
    c->skipped_samples += n;
    pthread_mutex_unlock(&c->mu);
    kb_io_ring_shrink(c->ring, n);
}

/* Decode sample s into position pos of b.  0, or a stage error after
 * which the epoch ends (a dropped sample under --skip-corrupt is 0: a
 * hole, counted by the consumer if its batch is taken). */
static int deliver_one(reader *r, const char *path, kb_io_batch *b,
                       int64_t pos, const kb_io_sample *s)
{
    run_ctx *c = r->c;
    char err[KB_IO_ERRLEN];
    uint64_t rng = kb_io_epoch_seed(c->o->seed, c->epoch, (int64_t)s->id);
    /* a decode that keeps nothing has no batch memory (data is NULL) */
    void *out = c->out_bytes ? b->data + (size_t)pos * c->out_bytes : NULL;
    int rc = c->o->decoder->decode(c->p, s, rng, out, &r->scratch, err,
                                   sizeof err);
    b->ids[pos] = s->id;
    if (rc == KB_IO_CORRUPT && c->o->skip_corrupt) {
        fprintf(stderr, "kbench io: dropping sample in %s: %s\n", path, err);
        b->ids[pos] = KB_IO_HOLE;
        return 0;
    }
    if (rc)
        fail(c, rc, path, err);
    return rc;
}

/* Decode r->s (already shuffled) into the ring, a run of positions at a
 * time.  0, or -1 when the epoch ended early. */
static int deliver(reader *r, const char *path)
{
    run_ctx *c = r->c;
    for (size_t i = 0; i < r->ns;) {
        kb_io_batch *b;
        int64_t pos;
        int64_t got = kb_io_ring_claim(c->ring, (int64_t)(r->ns - i), &b,
                                       &pos);
        if (got < 0)
            return -1;
        int rc = 0;
        for (int64_t k = 0; k < got && !rc; k++, i++)
            rc = deliver_one(r, path, b, pos + k, &r->s[i]);
        /* all claimed positions count, so the ring's bookkeeping stays
         * whole even when an error ends the epoch */
        kb_io_ring_commit(c->ring, b, got);
        if (rc)
            return -1;
    }
    return 0;
}

/* Keep the samples of r->s that are in this rank's shard: a file at the
 * shard's edge is read (and verified) whole by both ranks, and each
 * delivers its own ids. */
static void keep_shard(reader *r)
{
    const run_ctx *c = r->c;
    size_t n = 0;
    for (size_t i = 0; i < r->ns; i++)
        if ((int64_t)r->s[i].id >= c->d.lo && (int64_t)r->s[i].id < c->d.hi)
            r->s[n++] = r->s[i];
    r->ns = n;
}

/* After file f (size bytes) was read and walked to its end with result
 * rc (err its message, or empty when collect() refused an id): check its
 * sample count, then shuffle and deliver it.  0, or -1 to stop. */
static int settle_file(reader *r, int64_t f, int64_t size, int rc,
                       char *err)
{
    run_ctx *c = r->c;
    const char *path = c->d.paths[f];
    if (rc == KB_IO_ERROR) {
        fail(c, rc, path, "out of memory for the sample list");
        return -1;
    }
    if (rc == 0 && r->ns != (size_t)c->d.spf) {
        snprintf(err, KB_IO_ERRLEN, "offset %" PRId64 ": holds %zu samples, "
                 "expected %" PRId64 " (truncated?)", size, r->ns, c->d.spf);
        rc = KB_IO_CORRUPT;
    } else if (rc && !err[0]) {   /* collect() refused an id */
        snprintf(err, KB_IO_ERRLEN, "%s", r->id_err);
    }
    if (rc) {
        corrupt_file(r, f, path, err);
        return c->o->skip_corrupt ? 0 : -1;
    }
    keep_shard(r);
    kb_io_shuffle(r->s, r->ns, sizeof *r->s,
                  kb_io_epoch_seed(c->o->seed, c->epoch, f + 1));
    return deliver(r, path);
}

/* Read, verify, shuffle and deliver one file.  0, or -1 to stop. */
static int process_file(reader *r, int64_t f)
{
    run_ctx *c = r->c;
    const char *path = c->d.paths[f];
    char err[KB_IO_ERRLEN];
    r->file = f;
    r->id_err[0] = '\0';
    int64_t size = read_file(r, path, err, sizeof err);
    if (size < 0) {
        fail(c, KB_IO_ERROR, path, err);
        return -1;
    }
    err[0] = '\0';
    int rc;
    if (!c->d.fmt->parse_part) {
        rc = c->d.fmt->parse(r->buf, (size_t)size, c->o->verify, collect, r,
                             err, sizeof err);
    } else if (r->parse_rc) {
        rc = r->parse_rc;
        snprintf(err, sizeof err, "%s", r->parse_err);
    } else {   /* the rest, and a truncated last record */
        rc = c->d.fmt->parse_part(r->buf, (size_t)size, &r->parsed, true,
                                  c->o->verify, collect, r, err, sizeof err);
    }
    return settle_file(r, f, size, rc, err);
}

/* The pread thread's source: the epoch's files, claimed as whole-file
 * readers claim them. */
static bool stream_next(void *ctx, int64_t *tag, const char **path)
{
    reader *r = ctx;
    run_ctx *c = r->c;
    if (kb_io_interrupted) {
        kb_io_ring_abort(c->ring);
        return false;
    }
    int64_t k = atomic_fetch_add(&c->next_file, 1);
    if (k >= c->d.nshard)
        return false;
    *tag = c->order[k];
    *path = c->d.paths[*tag];
    return true;
}

static bool stream_direct(void *ctx)
{
    return atomic_load(&((reader *)ctx)->c->direct);
}

static void stream_refused(void *ctx, const char *at, const char *path,
                           const char *why)
{
    run_ctx *c = ((reader *)ctx)->c;
    direct_refused(c, at, strcmp(at, "open") == 0 ? "open"
                                                  : c->o->engine->read_call,
                   path, why);
}

/* A new file (or the same one again, buffered): nothing walked yet. */
static void stream_begin(reader *r, int64_t f)
{
    r->file = f;
    r->id_err[0] = '\0';
    r->ns = 0;
    r->ncarry = 0;
    r->parse_rc = 0;
    r->parse_err[0] = '\0';
}

/* Room for n bytes of carry (what it holds is kept).  0 or KB_IO_ERROR. */
static int grow_carry(reader *r, size_t n)
{
    if (n <= r->carry_cap)
        return 0;
    size_t cap = r->carry_cap ? r->carry_cap : 4096;
    while (cap < n)
        cap *= 2;
    uint8_t *p = realloc(r->carry, cap);
    if (!p)
        return KB_IO_ERROR;
    r->carry = p;
    r->carry_cap = cap;
    return 0;
}

/* Keep buf[0, n) (the file's bytes from base on; buf may point into the
 * carry) as the carry.  0 or KB_IO_ERROR. */
static int keep_carry(reader *r, const uint8_t *buf, size_t n, uint64_t base)
{
    bool inside = r->carry && buf >= r->carry &&
                  buf < r->carry + r->carry_cap;   /* then n fits */
    if (!inside && grow_carry(r, n))
        return KB_IO_ERROR;
    if (n)
        memmove(r->carry, buf, n);
    r->ncarry = n;
    r->carry_base = base;
    return 0;
}

/* Walk the whole records of a chunk, joined to the carry: a short carry
 * is copied into the room before the chunk's data, a long one (a record
 * longer than the room) gets the chunk appended.  What is left of a
 * record cut by the chunk's end becomes the carry. */
static void stream_walk(reader *r, const kb_io_chunk *ch)
{
    run_ctx *c = r->c;
    if (r->parse_rc)
        return;   /* the file is corrupt: its remaining chunks are read */
    const uint8_t *win = ch->data;
    size_t n = ch->n;
    uint64_t base = ch->off;
    if (r->ncarry && r->ncarry <= ch->room) {
        memcpy(ch->data - r->ncarry, r->carry, r->ncarry);
        win = ch->data - r->ncarry;
        n += r->ncarry;
        base = r->carry_base;
    } else if (r->ncarry) {
        size_t had = r->ncarry;
        if (grow_carry(r, had + ch->n)) {
            r->parse_rc = KB_IO_ERROR;
            return;
        }
        memcpy(r->carry + had, ch->data, ch->n);
        win = r->carry;
        n = had + ch->n;
        base = r->carry_base;
    }
    size_t off = 0;
    r->parse_rc = c->d.fmt->parse_window(win, n, base, &off, false,
                                         c->o->verify, collect, r,
                                         r->parse_err, sizeof r->parse_err);
    if (!r->parse_rc && keep_carry(r, win + off, n - off, base + off))
        r->parse_rc = KB_IO_ERROR;
}

/* The file's end: its last record (a truncated one is an error), then
 * settle it as a whole-file reader does. */
static int stream_end(reader *r, int64_t size)
{
    run_ctx *c = r->c;
    char err[KB_IO_ERRLEN] = "";
    int rc = r->parse_rc;
    if (rc) {
        snprintf(err, sizeof err, "%s", r->parse_err);
    } else {
        size_t off = 0;
        rc = c->d.fmt->parse_window(r->carry, r->ncarry, r->carry_base, &off,
                                    true, c->o->verify, collect, r, err,
                                    sizeof err);
    }
    r->ncarry = 0;
    return settle_file(r, r->file, size, rc, err);
}

/* A streaming reader: take the pread thread's chunks in order and verify
 * them; a file's end is shuffled and delivered while the thread reads on
 * into the free buffers. */
static void stream_main(reader *r)
{
    run_ctx *c = r->c;
    kb_io_stream_src src = {stream_next, stream_direct, stream_refused, r};
    if (kb_io_stream_start(r->st, &src, &r->lat)) {
        fail(c, KB_IO_ERROR, c->o->engine->name,
             "cannot start a reader's pread thread");
        return;
    }
    int64_t cur = -1;
    kb_io_chunk *ch;
    while ((ch = kb_io_stream_get(r->st))) {
        if (ch->tag != cur || ch->kind == KB_IO_CHUNK_RESTART)
            stream_begin(r, cur = ch->tag);
        int stop = 0;
        switch (ch->kind) {
        case KB_IO_CHUNK_DATA:
            stream_walk(r, ch);
            kb_io_stream_put(r->st, ch);
            break;
        case KB_IO_CHUNK_RESTART:
            kb_io_stream_put(r->st, ch);
            break;
        case KB_IO_CHUNK_ERROR:
            fail(c, KB_IO_ERROR, ch->path, ch->err);
            kb_io_stream_put(r->st, ch);
            stop = -1;
            break;
        case KB_IO_CHUNK_END: {
            int64_t size = (int64_t)ch->off;
            bool direct = ch->direct;
            /* back before the delivery, which the thread reads through */
            kb_io_stream_put(r->st, ch);
            count_file(c, direct);
            stop = stream_end(r, size);
            cur = -1;
            break;
        }
        }
        if (stop)
            break;
    }
    kb_io_stream_join(r->st);
}

static void *reader_main(void *arg)
{
    reader *r = arg;
    run_ctx *c = r->c;
    char err[KB_IO_ERRLEN];
    if (c->streaming) {
        stream_main(r);
        goto merge;
    }
    if (c->o->engine->open(&r->engine, c->o->depth, err, sizeof err)) {
        fail(c, KB_IO_ERROR, c->o->engine->name, err);
        return NULL;
    }
    for (;;) {
        int64_t k = atomic_fetch_add(&c->next_file, 1);
        if (kb_io_interrupted) {
            /* the consumer would wait for batches no one fills */
            kb_io_ring_abort(c->ring);
            break;
        }
        if (k >= c->d.nshard || process_file(r, c->order[k]))
            break;
    }
    c->o->engine->close(r->engine);
merge:
    /* merge this thread's measurements */
    pthread_mutex_lock(&c->mu);
    c->bytes += r->lat.bytes;
    for (size_t i = 0; i < r->lat.n; i++)
        if (kb_io_lat_add(&c->lat, r->lat.lat[i]))
            break;   /* quantiles from fewer latencies; cannot mislead much */
    pthread_mutex_unlock(&c->mu);
    r->lat.n = 0;
    r->lat.bytes = 0;
    return NULL;
}

/* Sleep for s seconds (emulated compute). */
static void sleep_for(double s)
{
    if (s <= 0)
        return;
    struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&t, &t) < 0 && errno == EINTR && !kb_io_interrupted)
        ;
}

/* Mark a batch's ids in the bitmap, counting them and its holes; *got
 * gets how many were delivered.  0, or KB_IO_CORRUPT naming a
 * duplicate. */
static int mark(uint8_t *bits, const kb_io_batch *b, int64_t n,
                kb_io_epoch *e, int64_t *got, char *err, size_t len)
{
    *got = 0;
    for (int64_t i = 0; i < n; i++) {
        uint64_t id = b->ids[i];
        if (id == KB_IO_HOLE) {
            e->holes++;
            continue;
        }
        if (bits[id / 8] & (1u << (id % 8))) {
            snprintf(err, len, "sample %" PRIu64 " delivered twice in one "
                     "epoch", id);
            return KB_IO_CORRUPT;
        }
        bits[id / 8] |= (uint8_t)(1u << (id % 8));
        ++*got;
    }
    e->samples += *got;
    return 0;
}

/* One step's compute on batch b of n samples.  0 or a stage error. */
static int compute(run_ctx *c, const kb_io_batch *b, int64_t n, char *err,
                   size_t len)
{
    if (c->model)
        return kb_io_model_step(c->model, b->data, n, err, len);
    sleep_for(c->o->compute_sleep);
    return 0;
}

/* The next batch for a step, or NULL at the end of the epoch: with
 * drop_last a partial batch (the last one) is read but neither delivered
 * nor computed, as DLIO's loaders drop it. */
static kb_io_batch *take(run_ctx *c, kb_io_epoch *e, int64_t *n)
{
    kb_io_batch *b = kb_io_ring_pop(c->ring, n);
    if (!b || !c->p->drop_last || *n == c->o->batch)
        return b;
    for (int64_t i = 0; i < *n; i++)
        if (b->ids[i] == KB_IO_HOLE)
            e->holes++;
        else
            e->dropped_last++;
    kb_io_ring_release(c->ring, b);
    return NULL;
}

/* The consumer's clock over an epoch: DLIO's block in progress and
 * kbench's two windows. */
typedef struct {
    kb_io_block blk;
    double t_start, t_first, t_last;   /* epoch start; ends of steps */
    double held, held_before_last;     /* in the schedule's calls */
} clock_state;

/* After step e->steps: the checkpoint schedule.  A call that held the
 * loop ends DLIO's block (it ended at the step's end) and starts the next
 * one after it; its time is the epoch's checkpoint stall.  0 or a stage
 * error. */
static int checkpoint(run_ctx *c, kb_io_epoch *e, clock_state *k, bool last,
                      char *err, size_t len)
{
    if (!c->sched)
        return 0;
    double stall = 0, t = kb_now();
    int rc = kb_io_ckpt_sched_step(c->sched, c->epoch + 1, e->steps, last,
                                   &stall, err, len);
    double now = kb_now();
    /* a call that wrote nothing is the loop's own time, in the windows */
    if (stall > 0) {
        k->held += now - t;
        kb_io_epoch_add_block(e, &k->blk, c->o->batch);
        k->blk = (kb_io_block){.start = now};
    }
    return rc;
}

/* Consume the epoch's batches.  *capped: it stopped at c->d.limit with
 * samples left.  0, KB_IO_CORRUPT (duplicate) or a stage error (the
 * model, the schedule). */
static int consume(run_ctx *c, uint8_t *bits, kb_io_epoch *e, bool *capped,
                   char *err, size_t len)
{
    clock_state k = {.t_start = kb_now()};
    k.blk.start = k.t_start;
    *capped = false;
    int64_t n;
    double t0 = k.t_start;
    kb_io_batch *b = take(c, e, &n);
    double t1 = kb_now();
    int rc = 0;
    while (b) {
        int64_t got;
        double tc = kb_now();   /* after the schedule's call, if any */
        e->wait += t1 - t0;
        rc = mark(bits, b, n, e, &got, err, len);
        if (!rc)
            rc = compute(c, b, n, err, len);
        double t2 = kb_now();
        kb_io_ring_release(c->ring, b);
        b = NULL;
        if (rc)
            break;
        e->steps++;
        e->compute_all += t2 - tc;
        /* DLIO records the compute it asked for (its sleep) */
        double asked = c->model ? t2 - tc : c->o->compute_sleep;
        if (k.blk.steps++ == 0)
            k.blk.first_proc = (t1 - t0) + (t2 - tc);
        else
            k.blk.compute_rest += asked;
        if (e->steps == 1) {
            k.t_first = t2;
        } else {
            e->steady_compute += t2 - tc;
            e->steady_samples += got;
        }
        k.t_last = k.blk.end = t2;
        k.held_before_last = k.held;
        /* the next batch first: whether this step was the epoch's last is
         * what an epoch's checkpoint needs to know */
        t0 = kb_now();
        b = take(c, e, &n);
        t1 = kb_now();
        if (b && c->d.limit && e->steps == c->d.limit) {
            kb_io_ring_release(c->ring, b);
            b = NULL;
            *capped = true;
        }
        if ((rc = checkpoint(c, e, &k, !b, err, len)))
            break;
    }
    if (b)
        kb_io_ring_release(c->ring, b);
    double t_end = kb_now();
    if (c->model)
        kb_io_model_take_copied(c->model, &e->h2d_bytes, &e->h2d_s);
    if (k.blk.steps)
        kb_io_epoch_add_block(e, &k.blk, c->o->batch);
    e->wall = t_end - k.t_start;
    e->stall = k.held;
    e->first_step = k.t_first - k.t_start;
    e->steady = e->steps > 1 ? k.t_last - k.t_first - k.held_before_last
                             : 0;
    if (rc || *capped)
        kb_io_ring_abort(c->ring);
    return rc;
}

/* The shard's accounting after an epoch: every delivered sample once (the
 * bitmap saw to it), and every sample of the shard delivered, dropped,
 * skipped, or left at the step limit.  0 or KB_IO_CORRUPT. */
static int check_complete(const run_ctx *c, const uint8_t *bits,
                          kb_io_epoch *e, bool capped, char *err, size_t len)
{
    if (e->samples == 0) {
        snprintf(err, len, "epoch %" PRId64 ": nothing could be read: %"
                 PRId64 " of %" PRId64 " files skipped as corrupt, %" PRId64
                 " samples dropped%s", c->epoch, c->skipped_files, c->d.nshard,
                 e->holes, c->o->skip_corrupt ? " (--skip-corrupt)" : "");
        return KB_IO_CORRUPT;
    }
    e->not_reached = (c->d.hi - c->d.lo) - e->samples - e->holes -
                     e->dropped_last - c->skipped_samples;
    if (e->not_reached == 0 || (capped && e->not_reached > 0))
        return 0;
    int64_t expect = e->samples + e->not_reached;
    for (int64_t id = c->d.lo; id < c->d.hi; id++)
        if (!(bits[id / 8] & (1u << (id % 8)))) {
            snprintf(err, len, "epoch %" PRId64 ": %" PRId64 " of %" PRId64
                     " samples delivered; sample %" PRId64 " never was",
                     c->epoch, e->samples, expect, id);
            return KB_IO_CORRUPT;
        }
    snprintf(err, len, "epoch %" PRId64 ": %" PRId64 " samples delivered, "
             "more than the shard's %" PRId64 " less those dropped and "
             "skipped", c->epoch, e->samples, expect);
    return KB_IO_CORRUPT;
}

/* The schedule's end, inside the last epoch's wall time: the wait for a
 * write in flight holds the loop too.  0 or a stage error. */
static int close_schedule(run_ctx *c, FILE *json, kb_io_epoch *e, char *err,
                          size_t len)
{
    double stall = 0, t = kb_now();
    int rc = kb_io_ckpt_sched_close(c->sched, json, &stall, err, len);
    c->sched = NULL;
    double held = kb_now() - t;
    e->stall += held;
    e->wall += held;
    return rc;
}

/* Start the epoch's readers, consume, join them.  0 or a stage error. */
static int run_readers(run_ctx *c, reader *rd, uint8_t *bits, kb_io_epoch *e,
                       bool *capped, char *err, size_t len)
{
    double cpu0 = kb_io_cpu_seconds();
    pthread_t *t = calloc((size_t)c->o->readers, sizeof *t);
    if (!t) {
        snprintf(err, len, "out of memory for %" PRId64 " readers",
                 c->o->readers);
        return KB_IO_ERROR;
    }
    int64_t started = 0;
    for (; started < c->o->readers; started++)
        if (pthread_create(&t[started], NULL, reader_main, &rd[started]))
            break;
    int rc = 0;
    if (started == 0) {
        snprintf(err, len, "cannot start a reader thread");
        rc = KB_IO_ERROR;
        kb_io_ring_abort(c->ring);
    } else {
        rc = consume(c, bits, e, capped, err, len);
    }
    for (int64_t i = 0; i < started; i++)
        pthread_join(t[i], NULL);
    free(t);
    e->cpu = e->wall > 0 ? 100 * (kb_io_cpu_seconds() - cpu0) / e->wall : 0;
    if (c->rc) {   /* a reader's error explains an early end best */
        snprintf(err, len, "%s", c->err);
        return c->rc;
    }
    if (kb_io_interrupted) {
        snprintf(err, len, "interrupted in epoch %" PRId64, c->epoch);
        return KB_IO_ERROR;
    }
    return rc;
}

/* Run the readers and the consumer for epoch c->epoch, and report it. */
static int run_epoch(run_ctx *c, reader *rd, uint8_t *bits, FILE *json,
                     char *err, size_t len)
{
    kb_io_epoch e = {.epoch = c->epoch, .files = c->d.nshard,
                     .files_total = c->d.nfiles, .samples_total = c->d.total,
                     .sample_lo = c->d.lo, .sample_hi = c->d.hi,
                     .steps_limit = c->d.limit, .bits = bits};
    char **paths = c->d.paths + c->d.flo;
    if (c->o->cold && kb_io_evict(paths, c->d.nshard, err, len))
        return KB_IO_ERROR;
    e.residency = kb_io_residency(paths, c->d.nshard, err, len);
    if (e.residency < 0)
        return KB_IO_ERROR;
    for (int64_t i = 0; i < c->d.nshard; i++)
        c->order[i] = c->d.flo + i;
    kb_io_shuffle(c->order, (size_t)c->d.nshard, sizeof *c->order,
                  kb_io_epoch_seed(c->o->seed, c->epoch, 0));
    memset(bits, 0, (size_t)(c->d.total + 7) / 8);
    atomic_store(&c->next_file, 0);
    c->rc = 0;
    c->skipped_files = c->skipped_samples = 0;
    c->files_direct = c->files_buffered = 0;
    c->bytes = 0;
    c->lat.n = 0;
    kb_io_ring_reset(c->ring, c->d.hi - c->d.lo);

    bool capped = false;
    int rc = run_readers(c, rd, bits, &e, &capped, err, len);
    e.skipped_files = c->skipped_files;
    e.skipped_samples = c->skipped_samples;
    if (!rc)
        rc = check_complete(c, bits, &e, capped, err, len);
    if (rc)
        return rc;
    int crc = 0;
    char cerr[KB_IO_ERRLEN];
    if (c->sched && c->epoch == c->o->epochs - 1)
        crc = close_schedule(c, json, &e, cerr, sizeof cerr);
    e.files_direct = c->files_direct;
    e.files_buffered = c->files_buffered;
    e.bytes = c->bytes;
    e.lat = c->lat.lat;
    e.nlat = c->lat.n;
    rc = kb_io_epoch_report(c->p, c->o, c->model, &c->dio, &e, json, err,
                            len);
    if (crc)   /* the epoch is on record; then the schedule's failure */
        snprintf(err, len, "%s", cerr);
    return crc ? crc : rc;
}

/* The ring's memory, refused with the numbers when it cannot fit. */
static int make_ring(run_ctx *c, char *err, size_t len)
{
    c->out_bytes = c->o->decoder->out_bytes(c->p);
    int64_t slots = c->o->prefetch + 1;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    double need = (double)slots * (double)c->o->batch * (double)c->out_bytes;
    if (pages > 0 && need > 0.5 * (double)pages * (double)page) {
        snprintf(err, len, "prefetch ring of %" PRId64 " batches x %" PRId64
                 " samples x %zu bytes needs %.0f MB, over half of memory",
                 slots, c->o->batch, c->out_bytes, need / 1e6);
        return KB_IO_USAGE;
    }
    c->ring = kb_io_ring_new(slots, c->o->batch, c->out_bytes);
    if (!c->ring) {
        snprintf(err, len, "out of memory for the prefetch ring (%.0f MB)",
                 need / 1e6);
        return KB_IO_ERROR;
    }
    return 0;
}

/* The model for --compute backend:, described once on stderr. */
static int open_model(run_ctx *c, char *err, size_t len)
{
    int rc = kb_io_model_open(c->p, c->o->compute_backend, c->o->decoder,
                              c->o->batch, &c->model, err, len);
    if (rc)
        return rc;
    kb_io_model_info m;
    kb_io_model_describe(c->model, &m);
    char copy[96] = "";
    if (m.copies)
        snprintf(copy, sizeof copy, "; each step copies them to the %s "
                 "device through pinned memory", m.device);
    fprintf(stderr, "kbench io: compute: %s model on %s, batch %" PRId64
            ", %" PRId64 " layers (%" PRId64 " unsupported, left out), "
            "%.2f GFLOP a step; decoded samples %s%s\n", m.model, m.backend,
            c->o->batch, m.layers, m.skipped, m.flops / 1e9,
            m.fed ? "feed the first layer"
                  : "do not match the first layer's input and are not fed",
            copy);
    return 0;
}

/* Everything before the first epoch.  0 or a stage error. */
static int prepare(run_ctx *c, const kb_io_profile *p, reader **rd,
                   uint8_t **bits, FILE **json, char *err, size_t len)
{
    const kb_io_run_opts *o = c->o;
    int rc = kb_io_dataset_open(&c->d, p, o, err, len);
    if (!rc)
        rc = make_ring(c, err, len);
    if (!rc && o->compute_backend)
        rc = open_model(c, err, len);
    if (rc)
        return rc;
    *rd = calloc((size_t)o->readers, sizeof **rd);
    *bits = malloc((size_t)(c->d.total + 7) / 8);
    c->order = malloc((size_t)c->d.nshard * sizeof *c->order);
    if (!*rd || !*bits || !c->order) {
        snprintf(err, len, "out of memory for %" PRId64 " readers and a "
                 "%" PRId64 "-sample bitmap", o->readers, c->d.total);
        return KB_IO_ERROR;
    }
    for (int64_t i = 0; i < o->readers; i++)
        (*rd)[i].c = c;
    c->streaming = o->engine == &kb_io_engine_pread &&
                   c->d.fmt->parse_window && o->decoder->body_unused;
    if (c->streaming) {
        /* read ahead by up to KB_IO_STREAM_AHEAD: through a file's
         * shuffle and delivery */
        size_t ahead = (size_t)KB_IO_STREAM_AHEAD / o->chunk;
        unsigned nslots = ahead < 2 ? 2 : (unsigned)ahead;
        for (int64_t i = 0; i < o->readers; i++)
            if (!((*rd)[i].st = kb_io_stream_new(o->chunk, nslots,
                                                 KB_IO_STREAM_ROOM))) {
                snprintf(err, len, "out of memory for %u chunks of %zu "
                         "bytes", nslots, o->chunk);
                return KB_IO_ERROR;
            }
    }
    if (o->json && !(*json = fopen(o->json, "w"))) {
        snprintf(err, len, "cannot create %s: %s", o->json, strerror(errno));
        return KB_IO_ERROR;
    }
    return o->ckpt.dir ? kb_io_ckpt_sched_open(&o->ckpt, &c->sched, err, len)
                       : 0;
}

int kb_io_run(const kb_io_profile *p, const kb_io_run_opts *o, char *err,
              size_t len)
{
    run_ctx c = {.o = o};
    c.p = &c.d.prof;   /* filled when the dataset is opened */
    pthread_mutex_init(&c.mu, NULL);
    atomic_init(&c.direct, o->direct);
    if (o->direct && o->engine->no_direct)
        direct_refused(&c, "engine", o->engine->name, o->dir,
                       o->engine->no_direct);
    reader *rd = NULL;
    uint8_t *bits = NULL;
    FILE *json = NULL;
    int rc = prepare(&c, p, &rd, &bits, &json, err, len);
    for (c.epoch = 0; c.epoch < o->epochs && !rc; c.epoch++)
        rc = run_epoch(&c, rd, bits, json, err, len);
    if (c.sched) {   /* a failed run still records its checkpoints */
        double stall;
        char cerr[KB_IO_ERRLEN];
        int crc = kb_io_ckpt_sched_close(c.sched, json, &stall, cerr,
                                         sizeof cerr);
        if (crc && !rc) {
            snprintf(err, len, "%s", cerr);
            rc = crc;
        }
    }
    if (json && fclose(json) != 0 && !rc) {
        snprintf(err, len, "cannot write %s: %s", o->json, strerror(errno));
        rc = KB_IO_ERROR;
    }
    for (int64_t i = 0; rd && i < o->readers; i++) {
        free(rd[i].buf);
        free(rd[i].lat.lat);
        free(rd[i].scratch.p);
        free(rd[i].s);
        kb_io_stream_free(rd[i].st);
        free(rd[i].carry);
    }
    free(rd);
    free(bits);
    kb_io_dataset_close(&c.d);
    free(c.order);
    free(c.lat.lat);
    kb_io_ring_free(c.ring);
    kb_io_model_close(c.model);
    pthread_mutex_destroy(&c.mu);
    return rc;
}
