/* pipeline.c - `kbench io run`: reader threads read whole files through an
 * engine, parse and verify their records, shuffle them, decode them into
 * the prefetch ring's batches; the consumer (this thread) checks
 * exactly-once delivery with a bitmap, computes (sleeps, or runs the
 * model on a backend: compute_model.c) and measures. */
#include "io_internal.h"

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
    const kb_io_profile *p;
    const kb_io_run_opts *o;
    const kb_io_format *fmt;
    char **paths;
    int64_t nfiles, spf, total, epoch;
    int64_t *order;                 /* this epoch's file order */
    atomic_int_fast64_t next_file;
    kb_io_ring *ring;
    size_t out_bytes;
    kb_io_model *model;             /* --compute backend:, else NULL */
    pthread_mutex_t mu;             /* guards the fields below */
    int rc;
    char err[3 * KB_IO_ERRLEN];     /* "path: message" */
    int64_t skipped_files, skipped_samples, holes;
    uint64_t bytes;
    kb_io_lat lat;                  /* merged latencies of the epoch */
    kb_io_direct dio;               /* how --direct fared in the run */
    int64_t files_direct, files_buffered;   /* read each way, this epoch */
    atomic_bool direct;             /* reads still ask for O_DIRECT */
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
    int64_t file;                   /* for messages */
    /* verification while the file is still being read (parse_part) */
    size_t parsed;                  /* bytes of whole records walked */
    int parse_rc;                   /* first failure, then no more walks */
    char parse_err[KB_IO_ERRLEN];
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

/* Parser callback: keep the sample, checking its id is in the dataset. */
static int collect(void *ctx, const kb_io_sample *s)
{
    reader *r = ctx;
    if (s->id >= (uint64_t)r->c->total)
        return KB_IO_CORRUPT;
    if (r->ns == r->scap) {
        size_t cap = r->scap ? 2 * r->scap : 64;
        kb_io_sample *n = realloc(r->s, cap * sizeof *n);
        if (!n)
            return KB_IO_ERROR;
        r->s = n;
        r->scap = cap;
    }
    r->s[r->ns++] = *s;
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
        r->parse_rc = r->c->fmt->parse_part(r->buf, ready, &r->parsed, false,
                                            collect, r, r->parse_err,
                                            sizeof r->parse_err);
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
                                    &r->lat, c->fmt->parse_part ? &prog : NULL,
                                    err, len);
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
        pthread_mutex_lock(&c->mu);
        if (direct)
            c->files_direct++;
        else
            c->files_buffered++;
        pthread_mutex_unlock(&c->mu);
        return (int64_t)size;
    }
}

/* A corrupt file: counted and skipped, or the end of the epoch. */
static void corrupt_file(reader *r, const char *path, const char *msg)
{
    run_ctx *c = r->c;
    if (!c->o->skip_corrupt) {
        fail(c, KB_IO_CORRUPT, path, msg);
        return;
    }
    fprintf(stderr, "kbench io: skipping corrupt %s: %s\n", path, msg);
    pthread_mutex_lock(&c->mu);
    c->skipped_files++;
    c->skipped_samples += c->spf;
    pthread_mutex_unlock(&c->mu);
    kb_io_ring_shrink(c->ring, c->spf);
}

/* Decode sample s into position pos of b.  0, or a stage error after
 * which the epoch ends (a dropped sample under --skip-corrupt is 0). */
static int deliver_one(reader *r, const char *path, kb_io_batch *b,
                       int64_t pos, const kb_io_sample *s)
{
    run_ctx *c = r->c;
    char err[KB_IO_ERRLEN];
    uint64_t rng = kb_io_epoch_seed(c->o->seed, c->epoch, (int64_t)s->id);
    int rc = c->o->decoder->decode(c->p, s, rng,
                                   b->data + (size_t)pos * c->out_bytes,
                                   &r->scratch, err, sizeof err);
    b->ids[pos] = s->id;
    if (rc == KB_IO_CORRUPT && c->o->skip_corrupt) {
        fprintf(stderr, "kbench io: dropping sample in %s: %s\n", path, err);
        b->ids[pos] = KB_IO_HOLE;
        pthread_mutex_lock(&c->mu);
        c->holes++;
        pthread_mutex_unlock(&c->mu);
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

/* Read, verify, shuffle and deliver one file.  0, or -1 to stop. */
static int process_file(reader *r, int64_t f)
{
    run_ctx *c = r->c;
    const char *path = c->paths[f];
    char err[KB_IO_ERRLEN];
    int64_t size = read_file(r, path, err, sizeof err);
    if (size < 0) {
        fail(c, KB_IO_ERROR, path, err);
        return -1;
    }
    err[0] = '\0';
    int rc;
    if (!c->fmt->parse_part) {
        rc = c->fmt->parse(r->buf, (size_t)size, collect, r, err, sizeof err);
    } else if (r->parse_rc) {
        rc = r->parse_rc;
        snprintf(err, sizeof err, "%s", r->parse_err);
    } else {   /* the rest, and a truncated last record */
        rc = c->fmt->parse_part(r->buf, (size_t)size, &r->parsed, true,
                                collect, r, err, sizeof err);
    }
    if (rc == KB_IO_ERROR) {
        fail(c, rc, path, "out of memory for the sample list");
        return -1;
    }
    if (rc == 0 && r->ns != (size_t)c->spf) {
        snprintf(err, sizeof err, "offset %" PRId64 ": holds %zu samples, "
                 "expected %" PRId64 " (truncated?)", size, r->ns, c->spf);
        rc = KB_IO_CORRUPT;
    } else if (rc) {
        /* collect() refused an id, or the parser found damage */
        if (!err[0])
            snprintf(err, sizeof err, "sample id out of range 0..%" PRId64,
                     c->total - 1);
    }
    if (rc) {
        corrupt_file(r, path, err);
        return c->o->skip_corrupt ? 0 : -1;
    }
    kb_io_shuffle(r->s, r->ns, sizeof *r->s,
                  kb_io_epoch_seed(c->o->seed, c->epoch, f + 1));
    return deliver(r, path);
}

static void *reader_main(void *arg)
{
    reader *r = arg;
    run_ctx *c = r->c;
    char err[KB_IO_ERRLEN];
    if (c->o->engine->open(&r->engine, c->o->depth, err, sizeof err)) {
        fail(c, KB_IO_ERROR, c->o->engine->name, err);
        return NULL;
    }
    for (;;) {
        int64_t k = atomic_fetch_add(&c->next_file, 1);
        if (k >= c->nfiles || kb_io_interrupted)
            break;
        if (process_file(r, c->order[k]))
            break;
    }
    c->o->engine->close(r->engine);
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

/* What the consumer measured in one epoch. */
typedef struct {
    double wall, window, compute, wait, residency, cpu;
    double compute_all;             /* compute seconds, first step too */
    int64_t steps, samples, window_samples;
} epoch_stats;

/* Sleep for s seconds (emulated compute). */
static void sleep_for(double s)
{
    if (s <= 0)
        return;
    struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&t, &t) < 0 && errno == EINTR && !kb_io_interrupted)
        ;
}

/* Mark a batch's ids in the bitmap.  0, or KB_IO_CORRUPT naming a
 * duplicate. */
static int mark(uint8_t *bits, const kb_io_batch *b, int64_t n, char *err,
                size_t len)
{
    for (int64_t i = 0; i < n; i++) {
        uint64_t id = b->ids[i];
        if (id == KB_IO_HOLE)
            continue;
        if (bits[id / 8] & (1u << (id % 8))) {
            snprintf(err, len, "sample %" PRIu64 " delivered twice in one "
                     "epoch", id);
            return KB_IO_CORRUPT;
        }
        bits[id / 8] |= (uint8_t)(1u << (id % 8));
    }
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

/* Consume the epoch's batches.  0, KB_IO_CORRUPT (duplicate) or
 * KB_IO_ERROR (the model failed). */
static int consume(run_ctx *c, uint8_t *bits, epoch_stats *st, char *err,
                   size_t len)
{
    double t_start = kb_io_now(), win_start = t_start;
    kb_io_batch *b;
    int64_t n;
    int rc = 0;
    for (;;) {
        double t0 = kb_io_now();
        if (!(b = kb_io_ring_pop(c->ring, &n)))
            break;
        double t1 = kb_io_now();
        st->wait += t1 - t0;
        if (!rc)
            rc = mark(bits, b, n, err, len);
        if (!rc)
            rc = compute(c, b, n, err, len);
        double t2 = kb_io_now();
        kb_io_ring_release(c->ring, b);
        st->compute_all += t2 - t1;
        st->steps++;
        st->samples += n;
        /* DLIO's AU leaves the first step out */
        if (st->steps == 1) {
            win_start = t2;
        } else {
            st->compute += t2 - t1;
            st->window_samples += n;
        }
        if (rc)
            break;
    }
    double t_end = kb_io_now();
    st->wall = t_end - t_start;
    st->window = t_end - win_start;
    if (st->steps <= 1) {   /* one step: the whole epoch is the window */
        st->window = st->wall;
        st->window_samples = st->samples;
    }
    if (rc)
        kb_io_ring_abort(c->ring);
    return rc;
}

/* Every sample not skipped was delivered.  0 or KB_IO_CORRUPT. */
static int check_complete(const run_ctx *c, const uint8_t *bits,
                          int64_t delivered, char *err, size_t len)
{
    int64_t expect = c->total - c->skipped_samples - c->holes;
    if (delivered == expect)
        return 0;
    for (int64_t id = 0; id < c->total; id++)
        if (!(bits[id / 8] & (1u << (id % 8)))) {
            snprintf(err, len, "epoch %" PRId64 ": %" PRId64 " of %" PRId64
                     " samples delivered; sample %" PRId64 " never was",
                     c->epoch, delivered, expect, id);
            break;
        }
    return KB_IO_CORRUPT;
}

/* GFLOP/s the model reached over all of the epoch's compute. */
static double model_gflops(const kb_io_model_info *m, const epoch_stats *st)
{
    return st->compute_all > 0
               ? (double)st->steps * m->flops / st->compute_all / 1e9 : 0;
}

/* The consumer's description in an epoch record: the sleep, or the model
 * on its backend with the GFLOP/s it reached.  0, or -1 out of memory. */
static int add_compute(const run_ctx *c, const epoch_stats *st, cJSON *o)
{
    if (!c->model) {
        return !cJSON_AddStringToObject(o, "compute", "sleep") ||
               !cJSON_AddNumberToObject(o, "compute_sleep_s",
                                        c->o->compute_sleep) ? -1 : 0;
    }
    kb_io_model_info m;
    kb_io_model_describe(c->model, &m);
    return !cJSON_AddStringToObject(o, "compute", "backend") ||
           !cJSON_AddStringToObject(o, "compute_backend", m.backend) ||
           !cJSON_AddStringToObject(o, "compute_model", m.model) ||
           !cJSON_AddNumberToObject(o, "compute_layers", (double)m.layers) ||
           !cJSON_AddNumberToObject(o, "compute_layers_unsupported",
                                    (double)m.skipped) ||
           !cJSON_AddBoolToObject(o, "compute_fed", m.fed) ||
           !cJSON_AddNumberToObject(o, "compute_gflop_per_step",
                                    m.flops / 1e9) ||
           !cJSON_AddNumberToObject(o, "compute_gflops",
                                    model_gflops(&m, st)) ? -1 : 0;
}

/* With --direct, how this epoch's files were read, under the table line. */
static void print_direct(const run_ctx *c)
{
    int64_t files = c->files_direct + c->files_buffered;
    if (!c->dio.at) {
        printf("  reads: direct, %" PRId64 " files with O_DIRECT\n", files);
        return;
    }
    char what[2 * KB_IO_ERRLEN];
    kb_io_direct_describe(&c->dio, what, sizeof what);
    printf("  reads: %" PRId64 " of %" PRId64 " files with O_DIRECT, the rest "
           "buffered: %s\n", c->files_direct, files, what);
}

/* One JSON Lines record (and a table line on stdout) for the epoch. */
static int report(run_ctx *c, const epoch_stats *st, FILE *json, char *err,
                  size_t len)
{
    const kb_io_profile *p = c->p;
    double p50 = kb_io_quantile(c->lat.lat, c->lat.n, 0.50) * 1e3;
    double p99 = kb_io_quantile(c->lat.lat, c->lat.n, 0.99) * 1e3;
    double au = st->window > 0 ? 100.0 * st->compute / st->window : 0;
    double sps = st->window > 0 ? (double)st->window_samples / st->window : 0;
    double mbs = st->wall > 0 ? (double)c->bytes / st->wall / 1e6 : 0;
    double nominal = st->wall > 0 ? (double)st->samples *
                                        (double)p->sample_bytes / st->wall / 1e6
                                  : 0;
    if (!c->o->quiet)
        printf("epoch %" PRId64 ": %" PRId64 " samples in %.3f s  AU %.1f %%  "
               "%.1f samples/s  %.1f MB/s read (%.1f nominal)  lat p50 %.3f "
               "p99 %.3f ms  wait %.3f s  resident %.0f %%  CPU %.0f %%\n",
               c->epoch, st->samples, st->wall, au, sps, mbs, nominal, p50,
               p99, st->wait, 100 * st->residency, st->cpu);
    if (!c->o->quiet && c->o->direct)
        print_direct(c);
    if (!c->o->quiet && c->model && st->compute_all > 0) {
        kb_io_model_info m;
        kb_io_model_describe(c->model, &m);
        printf("  compute: %s on %s, %" PRId64 " steps, %.1f GFLOP/s\n",
               m.model, m.backend, st->steps, model_gflops(&m, st));
    }
    if (!json)
        return 0;
    cJSON *o = cJSON_CreateObject();
    if (!o)
        goto oom;
    cJSON_AddStringToObject(o, "record", "io_epoch");
    cJSON_AddStringToObject(o, "profile", p->name);
    cJSON_AddNumberToObject(o, "epoch", (double)c->epoch);
    cJSON_AddStringToObject(o, "engine", c->o->engine->name);
    cJSON_AddStringToObject(o, "decode", c->o->decoder->name);
    cJSON_AddNumberToObject(o, "readers", (double)c->o->readers);
    cJSON_AddNumberToObject(o, "batch", (double)c->o->batch);
    cJSON_AddNumberToObject(o, "prefetch", (double)c->o->prefetch);
    cJSON_AddBoolToObject(o, "direct_asked", c->o->direct);
    cJSON_AddBoolToObject(o, "direct", c->o->direct && !c->files_buffered);
    cJSON_AddNumberToObject(o, "files_direct", (double)c->files_direct);
    cJSON_AddNumberToObject(o, "files_buffered", (double)c->files_buffered);
    if (kb_io_direct_json(&c->dio, "direct", "buffered", o)) {
        cJSON_Delete(o);
        goto oom;
    }
    cJSON_AddBoolToObject(o, "cold", c->o->cold);
    cJSON_AddNumberToObject(o, "files", (double)c->nfiles);
    cJSON_AddNumberToObject(o, "samples", (double)st->samples);
    cJSON_AddNumberToObject(o, "steps", (double)st->steps);
    cJSON_AddNumberToObject(o, "wall_s", st->wall);
    cJSON_AddNumberToObject(o, "train_au_percentage", au);
    cJSON_AddNumberToObject(o, "au_target_percentage", p->au_target);
    cJSON_AddNumberToObject(o, "train_throughput_samples_per_second", sps);
    /* DLIO's figure: samples/s times the nominal record size */
    cJSON_AddNumberToObject(o, "train_io_mean_MB_per_second",
                            sps * (double)p->sample_bytes / 1e6);
    cJSON_AddNumberToObject(o, "io_measured_MB_per_second", mbs);
    cJSON_AddNumberToObject(o, "io_nominal_MB_per_second", nominal);
    cJSON_AddNumberToObject(o, "bytes_read", (double)c->bytes);
    cJSON_AddNumberToObject(o, "read_requests", (double)c->lat.n);
    cJSON_AddNumberToObject(o, "read_latency_p50_ms", p50);
    cJSON_AddNumberToObject(o, "read_latency_p99_ms", p99);
    cJSON_AddNumberToObject(o, "compute_s", st->compute);
    if (add_compute(c, st, o)) {
        cJSON_Delete(o);
        goto oom;
    }
    cJSON_AddNumberToObject(o, "compute_wait_s", st->wait);
    cJSON_AddNumberToObject(o, "residency_before", st->residency);
    cJSON_AddNumberToObject(o, "cpu_percent", st->cpu);
    cJSON_AddNumberToObject(o, "skipped_files", (double)c->skipped_files);
    cJSON_AddNumberToObject(o, "dropped_samples", (double)c->holes);
    cJSON_AddBoolToObject(o, "exactly_once", true);
    char *s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!s)
        goto oom;
    int bad = fprintf(json, "%s\n", s) < 0 || fflush(json) != 0;
    cJSON_free(s);
    if (bad) {
        snprintf(err, len, "cannot write %s: %s", c->o->json, strerror(errno));
        return KB_IO_ERROR;
    }
    return 0;
oom:
    snprintf(err, len, "out of memory for a JSON record");
    return KB_IO_ERROR;
}

/* Run the readers and the consumer for epoch c->epoch. */
static int run_epoch(run_ctx *c, reader *rd, uint8_t *bits, FILE *json,
                     char *err, size_t len)
{
    epoch_stats st = {0};
    if (c->o->cold && kb_io_evict(c->paths, c->nfiles, err, len))
        return KB_IO_ERROR;
    st.residency = kb_io_residency(c->paths, c->nfiles, err, len);
    if (st.residency < 0)
        return KB_IO_ERROR;
    for (int64_t i = 0; i < c->nfiles; i++)
        c->order[i] = i;
    kb_io_shuffle(c->order, (size_t)c->nfiles, sizeof *c->order,
                  kb_io_epoch_seed(c->o->seed, c->epoch, 0));
    memset(bits, 0, (size_t)(c->total + 7) / 8);
    atomic_store(&c->next_file, 0);
    c->rc = 0;
    c->skipped_files = c->skipped_samples = c->holes = 0;
    c->files_direct = c->files_buffered = 0;
    c->bytes = 0;
    c->lat.n = 0;
    kb_io_ring_reset(c->ring, c->total);

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
        rc = consume(c, bits, &st, err, len);
    }
    for (int64_t i = 0; i < started; i++)
        pthread_join(t[i], NULL);
    free(t);
    st.cpu = st.wall > 0 ? 100 * (kb_io_cpu_seconds() - cpu0) / st.wall : 0;
    if (c->rc) {   /* a reader's error explains an early end best */
        snprintf(err, len, "%s", c->err);
        return c->rc;
    }
    if (kb_io_interrupted) {
        snprintf(err, len, "interrupted in epoch %" PRId64, c->epoch);
        return KB_IO_ERROR;
    }
    if (rc)
        return rc;
    rc = check_complete(c, bits, st.samples - c->holes, err, len);
    return rc ? rc : report(c, &st, json, err, len);
}

/* Paths of the dataset's files, checked against the manifest. */
static int dataset_paths(run_ctx *c, const char *dir, char *err, size_t len)
{
    char name[64];
    int rc = kb_io_manifest_read(dir, name, sizeof name, &c->nfiles, &c->spf,
                                 err, len);
    if (rc)
        return rc;
    if (strcmp(name, c->p->name) != 0) {
        snprintf(err, len, "%s holds a %s dataset, not %s", dir, name,
                 c->p->name);
        return KB_IO_USAGE;
    }
    /* guard: the bitmap and id space are sized by files x samples */
    if (c->nfiles > INT64_MAX / c->spf || c->nfiles * c->spf > (1LL << 40)) {
        snprintf(err, len, "manifest in %s: %" PRId64 " x %" PRId64
                 " samples is too many", dir, c->nfiles, c->spf);
        return KB_IO_USAGE;
    }
    c->total = c->nfiles * c->spf;
    c->paths = calloc((size_t)c->nfiles, sizeof *c->paths);
    c->order = malloc((size_t)c->nfiles * sizeof *c->order);
    if (!c->paths || !c->order) {
        snprintf(err, len, "out of memory for %" PRId64 " files", c->nfiles);
        return KB_IO_ERROR;
    }
    for (int64_t i = 0; i < c->nfiles; i++) {
        c->paths[i] = kb_io_file_path(dir, c->p, i);
        if (!c->paths[i]) {
            snprintf(err, len, "out of memory for file names");
            return KB_IO_ERROR;
        }
        if (access(c->paths[i], R_OK) < 0) {
            snprintf(err, len, "%s: %s (dataset incomplete?)", c->paths[i],
                     strerror(errno));
            return KB_IO_USAGE;
        }
    }
    return 0;
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
    fprintf(stderr, "kbench io: compute: %s model on %s, batch %" PRId64
            ", %" PRId64 " layers (%" PRId64 " unsupported, left out), "
            "%.2f GFLOP a step; decoded samples %s\n", m.model, m.backend,
            c->o->batch, m.layers, m.skipped, m.flops / 1e9,
            m.fed ? "feed the first layer"
                  : "do not match the first layer's input and are not fed");
    return 0;
}

int kb_io_run(const kb_io_profile *p, const kb_io_run_opts *o, char *err,
              size_t len)
{
    run_ctx c = {.p = p, .o = o, .fmt = kb_io_format_find(p->format)};
    pthread_mutex_init(&c.mu, NULL);
    atomic_init(&c.direct, o->direct);
    if (o->direct && o->engine->no_direct)
        direct_refused(&c, "engine", o->engine->name, o->dir,
                       o->engine->no_direct);
    reader *rd = NULL;
    uint8_t *bits = NULL;
    FILE *json = NULL;
    int rc = dataset_paths(&c, o->dir, err, len);
    if (!rc)
        rc = make_ring(&c, err, len);
    if (!rc && o->compute_backend)
        rc = open_model(&c, err, len);
    if (rc)
        goto out;
    rd = calloc((size_t)o->readers, sizeof *rd);
    bits = malloc((size_t)(c.total + 7) / 8);
    if (!rd || !bits) {
        snprintf(err, len, "out of memory for %" PRId64 " readers and a "
                 "%" PRId64 "-sample bitmap", o->readers, c.total);
        rc = KB_IO_ERROR;
        goto out;
    }
    for (int64_t i = 0; i < o->readers; i++)
        rd[i].c = &c;
    if (o->json && !(json = fopen(o->json, "w"))) {
        snprintf(err, len, "cannot create %s: %s", o->json, strerror(errno));
        rc = KB_IO_ERROR;
        goto out;
    }
    for (c.epoch = 0; c.epoch < o->epochs && !rc; c.epoch++)
        rc = run_epoch(&c, rd, bits, json, err, len);
out:
    if (json && fclose(json) != 0 && !rc) {
        snprintf(err, len, "cannot write %s: %s", o->json, strerror(errno));
        rc = KB_IO_ERROR;
    }
    for (int64_t i = 0; rd && i < o->readers; i++) {
        free(rd[i].buf);
        free(rd[i].lat.lat);
        free(rd[i].scratch.p);
        free(rd[i].s);
    }
    free(rd);
    free(bits);
    for (int64_t i = 0; c.paths && i < c.nfiles; i++)
        free(c.paths[i]);
    free(c.paths);
    free(c.order);
    free(c.lat.lat);
    kb_io_ring_free(c.ring);
    kb_io_model_close(c.model);
    pthread_mutex_destroy(&c.mu);
    return rc;
}
