/* ckpt_schedule.c - DLIO's checkpoint schedule inside a training loop (the
 * hook `kbench io run` and ckpt_loop.c call after each step): the state
 * the steps change, the write of model-E-S-R and optimizer-E-S-R where
 * ckpt_plan.c says (in the loop, or on the writer thread after a
 * snapshot), what each one cost the loop, and a record each. */
#include "drivers/common/clock.h"
#include "iostage/checkpoint/file.h"
#include "iostage/checkpoint/options.h"
#include "iostage/checkpoint/plan.h"
#include "iostage/checkpoint/schedule.h"
#include "iostage/checkpoint/writer.h"
#include "iostage/metrics.h"
#include "iostage/profile.h"
#include "iostage/rank.h"
#include "iostage/readers/direct.h"
#include "iostage/stage.h"
#include "iostage/record.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include <stdio.h>

/* One checkpoint of this rank. */
typedef struct {
    int64_t epoch, step;
    char *path[KB_IO_CKPT_KINDS];   /* NULL: nothing of that kind here */
    kb_io_ckpt_side side;           /* mode and refusal of the writes */
    double write_s;                 /* first open to last close */
    double snapshot_s;              /* async: the copy for the writer */
    double wait_s;                  /* async: the loop waited for this
                                     * write (next checkpoint or drain) */
    double stall_s;                 /* the loop held by this checkpoint */
    bool done, verified;
} ckpt_rec;

struct kb_io_ckpt_sched {
    kb_io_ckpt_opts o;
    kb_io_rank rank;
    void *eng;
    uint64_t lo[KB_IO_CKPT_KINDS];  /* this rank's share of each state */
    size_t n[KB_IO_CKPT_KINDS];
    uint8_t *state[KB_IO_CKPT_KINDS];   /* what the steps change */
    uint8_t *snap[KB_IO_CKPT_KINDS];    /* async: the writer's copy */
    kb_io_ckpt_writer *writer;          /* NULL: sync */
    ckpt_rec *recs;
    size_t nrecs, cap;
    ckpt_rec *inflight;   /* posted to the writer, not yet waited for */
};

/* The files of r, from the buffers buf: the writer thread's job (async) or
 * the loop's (sync).  0 or KB_IO_ERROR naming the file. */
static int write_rec(kb_io_ckpt_sched *s, ckpt_rec *r,
                     uint8_t *const *buf, char *err, size_t len)
{
    double t0 = kb_now();
    for (int k = 0; k < KB_IO_CKPT_KINDS; k++)
        if (r->path[k] &&
            kb_io_ckpt_write_file(&s->o, s->eng, r->path[k], buf[k], s->n[k],
                                  &r->side, err, len))
            return KB_IO_ERROR;
    r->write_s = kb_now() - t0;
    r->done = true;
    return 0;
}

static int write_job(void *arg, char *err, size_t len)
{
    kb_io_ckpt_sched *s = arg;
    return write_rec(s, s->inflight, s->snap, err, len);
}

/* Wait for the write in flight; the wait is the stall it causes.  0 or
 * the write's error. */
static int wait_inflight(kb_io_ckpt_sched *s, char *err, size_t len)
{
    if (!s->inflight)
        return 0;
    double t0 = kb_now();
    int rc = kb_io_ckpt_writer_wait(s->writer, err, len);
    s->inflight->wait_s = kb_now() - t0;
    s->inflight->stall_s += s->inflight->wait_s;
    s->inflight = NULL;
    return rc;
}

/* A new record for (epoch, step) with its file names.  The writer is idle
 * (no job points into recs while it grows).  0 or KB_IO_ERROR. */
static int add_rec(kb_io_ckpt_sched *s, int64_t epoch, int64_t step,
                   ckpt_rec **out, char *err, size_t len)
{
    if (s->nrecs == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        ckpt_rec *p = realloc(s->recs, cap * sizeof *p);
        if (!p) {
            snprintf(err, len, "out of memory for checkpoint records");
            return KB_IO_ERROR;
        }
        s->recs = p;
        s->cap = cap;
    }
    ckpt_rec *r = &s->recs[s->nrecs];
    memset(r, 0, sizeof *r);
    r->epoch = epoch;
    r->step = step;
    for (int k = 0; k < KB_IO_CKPT_KINDS; k++) {
        if (!s->n[k])
            continue;
        size_t plen = strlen(s->o.dir) + 96;
        if (!(r->path[k] = malloc(plen))) {
            snprintf(err, len, "out of memory for a checkpoint file name");
            for (int j = 0; j < k; j++)
                free(r->path[j]);
            return KB_IO_ERROR;
        }
        /* DLIO's names: {model,optimizer}-{epoch}-{step}-{rank} */
        snprintf(r->path[k], plen, "%s/%s-%" PRId64 "-%" PRId64 "-%" PRId64
                 "." KB_IO_CKPT_EXT, s->o.dir, kb_io_ckpt_kind_name[k],
                 epoch, step, s->rank.rank);
        if (s->o.direct && s->o.engine->no_direct)
            kb_io_direct_refuse(&r->side.dio, "engine", s->o.engine->name,
                                r->path[k], s->o.engine->no_direct);
    }
    s->nrecs++;
    *out = r;
    return 0;
}

static void sched_free(kb_io_ckpt_sched *s)
{
    kb_io_ckpt_writer_stop(s->writer);
    if (s->eng)
        s->o.engine->close(s->eng);
    for (int k = 0; k < KB_IO_CKPT_KINDS; k++) {
        free(s->state[k]);
        free(s->snap[k]);
    }
    for (size_t i = 0; i < s->nrecs; i++)
        for (int k = 0; k < KB_IO_CKPT_KINDS; k++)
            free(s->recs[i].path[k]);
    free(s->recs);
    free(s);
}

/* An aligned buffer of n bytes (capacity rounded up for O_DIRECT, zero
 * past n), every page touched so that copying into it later is a copy, not
 * page faults.  NULL when out of memory. */
static uint8_t *state_alloc(size_t n)
{
    size_t cap = kb_io_ckpt_round_up(n);
    uint8_t *p = aligned_alloc(KB_IO_ALIGN, cap);
    if (p)
        memset(p, 0, cap);
    return p;
}

/* The whole state of kind k, before it is shared out between ranks. */
static uint64_t kind_total(const kb_io_ckpt_opts *o, int k)
{
    switch (k) {
    case KB_IO_CKPT_MODEL: return o->bytes;
    case KB_IO_CKPT_OPTIMIZER: return o->plan.optimizer_bytes;
    default: return o->plan.layer_bytes;
    }
}

/* "<kind>_size_bytes" (the whole state), "<kind>_bytes" and
 * "<kind>_offset" (this rank's share) of every kind.  0, or -1 out of
 * memory. */
static int add_kinds(cJSON *j, const kb_io_ckpt_sched *s)
{
    for (int k = 0; k < KB_IO_CKPT_KINDS; k++) {
        char key[48];
        const char *name = kb_io_ckpt_kind_name[k];
        snprintf(key, sizeof key, "%s_size_bytes", name);
        if (!cJSON_AddNumberToObject(j, key, (double)kind_total(&s->o, k)))
            return -1;
        snprintf(key, sizeof key, "%s_bytes", name);
        if (!cJSON_AddNumberToObject(j, key, (double)s->n[k]))
            return -1;
        snprintf(key, sizeof key, "%s_offset", name);
        if (!cJSON_AddNumberToObject(j, key, (double)s->lo[k]))
            return -1;
    }
    return 0;
}

int kb_io_ckpt_sched_open(const kb_io_ckpt_opts *o, kb_io_ckpt_sched **out,
                          char *err, size_t len)
{
    *out = NULL;
    if ((o->plan.every_steps <= 0 && o->plan.every_epochs <= 0) || !o->dir)
        return 0;
    if (!o->engine || !o->bytes) {
        snprintf(err, len, "checkpoint schedule: no %s given",
                 o->engine ? "model size (--bytes)" : "engine");
        return KB_IO_USAGE;
    }
    kb_io_ckpt_sched *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, len, "out of memory for the checkpoint schedule");
        return KB_IO_ERROR;
    }
    s->o = *o;
    s->rank = o->rank;
    if (s->rank.ranks < 1)   /* no rank detected: a single process */
        s->rank = (kb_io_rank){.rank = 0, .ranks = 1, .source = "single"};
    int rc = 0;
    for (int k = 0; k < KB_IO_CKPT_KINDS && !rc; k++) {
        uint64_t n;
        kb_io_ckpt_share(kind_total(o, k), &s->rank, o->sharded, &s->lo[k],
                         &n);
        s->n[k] = (size_t)n;
        if (!n)
            continue;
        if (!(s->state[k] = state_alloc(s->n[k])) ||
            (o->async && !(s->snap[k] = state_alloc(s->n[k])))) {
            snprintf(err, len, "out of memory for %s %s state of %zu bytes",
                     o->async ? "two copies of the" : "the",
                     kb_io_ckpt_kind_name[k], s->n[k]);
            rc = KB_IO_ERROR;
            break;
        }
        kb_io_ckpt_state_fill(s->state[k], s->n[k], o->seed, k,
                              s->rank.rank);
    }
    if (!rc)
        rc = o->engine->open(&s->eng, 8, err, len);
    if (!rc && o->async)
        rc = kb_io_ckpt_writer_start(&s->writer, err, len);
    if (rc) {
        sched_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

int kb_io_ckpt_sched_step(kb_io_ckpt_sched *s, int64_t epoch, int64_t step,
                          bool last, double *stall, char *err, size_t len)
{
    *stall = 0;
    if (!s)
        return 0;
    /* the step changed the weights: what a snapshot must not miss */
    for (int k = 0; k < KB_IO_CKPT_KINDS; k++)
        if (s->n[k])
            kb_io_ckpt_state_stamp(s->state[k], s->n[k], epoch, step);
    if (!kb_io_ckpt_due(&s->o.plan, epoch, step, last))
        return 0;
    double t0 = kb_now();
    ckpt_rec *r;
    int rc = s->writer ? wait_inflight(s, err, len) : 0;
    if (!rc)
        rc = add_rec(s, epoch, step, &r, err, len);
    if (!rc && s->writer) {
        double t1 = kb_now();
        for (int k = 0; k < KB_IO_CKPT_KINDS; k++)
            if (s->n[k])
                memcpy(s->snap[k], s->state[k], s->n[k]);
        r->snapshot_s = r->stall_s = kb_now() - t1;
        s->inflight = r;
        kb_io_ckpt_writer_post(s->writer, write_job, s);
    } else if (!rc) {
        double t1 = kb_now();
        rc = write_rec(s, r, s->state, err, len);
        r->stall_s = kb_now() - t1;
    }
    *stall = kb_now() - t0;
    return rc;
}

int kb_io_ckpt_sched_drain(kb_io_ckpt_sched *s, double *stall, char *err,
                           size_t len)
{
    *stall = 0;
    if (!s || !s->writer)
        return 0;
    double t0 = kb_now();
    int rc = wait_inflight(s, err, len);
    *stall = kb_now() - t0;
    return rc;
}

int kb_io_ckpt_sched_verify(kb_io_ckpt_sched *s, char *err, size_t len)
{
    if (!s)
        return 0;
    size_t most = 0;
    for (int k = 0; k < KB_IO_CKPT_KINDS; k++)
        most = s->n[k] > most ? s->n[k] : most;
    uint8_t *got = most ? aligned_alloc(KB_IO_ALIGN,
                                        kb_io_ckpt_round_up(most)) : NULL;
    if (most && !got) {
        snprintf(err, len, "out of memory for a %zu-byte read-back buffer",
                 most);
        return KB_IO_ERROR;
    }
    int rc = 0;
    for (size_t i = 0; i < s->nrecs && !rc; i++) {
        ckpt_rec *r = &s->recs[i];
        for (int k = 0; k < KB_IO_CKPT_KINDS && r->done && !rc; k++) {
            if (!r->path[k])
                continue;
            kb_io_ckpt_side side = {0};
            rc = kb_io_evict(&r->path[k], 1, err, len);
            if (!rc)
                rc = kb_io_ckpt_read_file(&s->o, s->eng, r->path[k], got,
                                          s->n[k], &side, err, len);
            /* the loop is over: the state may take each step's stamp */
            kb_io_ckpt_state_stamp(s->state[k], s->n[k], r->epoch, r->step);
            if (!rc)
                rc = kb_io_ckpt_compare(r->path[k], got, s->state[k],
                                        s->n[k], err, len);
        }
        r->verified = r->done && !rc;
    }
    free(got);
    return rc;
}

void kb_io_ckpt_sched_remove(kb_io_ckpt_sched *s)
{
    for (size_t i = 0; s && i < s->nrecs; i++)
        for (int k = 0; k < KB_IO_CKPT_KINDS; k++)
            if (s->recs[i].path[k])
                unlink(s->recs[i].path[k]);
}

static uint64_t rec_bytes(const kb_io_ckpt_sched *s)
{
    uint64_t n = 0;
    for (int k = 0; k < KB_IO_CKPT_KINDS; k++)
        n += s->n[k];
    return n;
}

void kb_io_ckpt_sched_totals(const kb_io_ckpt_sched *s, kb_io_ckpt_totals *t)
{
    memset(t, 0, sizeof *t);
    for (size_t i = 0; s && i < s->nrecs; i++) {
        const ckpt_rec *r = &s->recs[i];
        if (!r->done)
            continue;
        t->checkpoints++;
        t->bytes += rec_bytes(s);
        t->write_s += r->write_s;
        t->stall_s += r->stall_s;
    }
}

/* "every 3 steps" / "every 2 epochs from epoch 5" into buf. */
static void describe_plan(const kb_io_ckpt_plan *p, char *buf, size_t len)
{
    if (p->every_steps > 0)
        snprintf(buf, len, "every %" PRId64 " steps", p->every_steps);
    else
        snprintf(buf, len, "every %" PRId64 " epochs from epoch %" PRId64,
                 p->every_epochs, p->after_epoch > 0 ? p->after_epoch : 1);
}

static const char *placement(const kb_io_ckpt_sched *s)
{
    return s->o.sharded ? "sharded" : "rank_zero";
}

/* Bytes over seconds in units of `unit`, or null when nothing was
 * written.  0 or -1 out of memory. */
static int add_rate(cJSON *j, const char *key, uint64_t bytes, double s,
                    double unit)
{
    return (bytes && s > 0
                ? cJSON_AddNumberToObject(j, key, (double)bytes / s / unit)
                : cJSON_AddNullToObject(j, key)) ? 0 : -1;
}

/* "files": the names of r's files in the directory.  0 or -1 out of
 * memory. */
static int add_files(cJSON *j, const ckpt_rec *r)
{
    cJSON *files = cJSON_AddArrayToObject(j, "files");
    for (int k = 0; files && k < KB_IO_CKPT_KINDS; k++)
        if (r->path[k] &&
            !cJSON_AddItemToArray(files, cJSON_CreateString(
                                             strrchr(r->path[k], '/') + 1)))
            return -1;
    return files ? 0 : -1;
}

/* Record r as a JSON object; NULL when out of memory. */
static cJSON *rec_json(const kb_io_ckpt_sched *s, const ckpt_rec *r)
{
    const kb_io_ckpt_opts *o = &s->o;
    char plan[96];
    describe_plan(&o->plan, plan, sizeof plan);
    uint64_t bytes = rec_bytes(s), pad = 0;
    for (int k = 0; k < KB_IO_CKPT_KINDS; k++)
        if (r->path[k] && r->side.direct)
            pad += kb_io_ckpt_round_up(s->n[k]) - s->n[k];
    cJSON *j = kb_io_record_new("io_checkpoint", o->prov);
    bool bad = !j || !cJSON_AddStringToObject(j, "schedule", plan) ||
          !cJSON_AddStringToObject(j, "engine", o->engine->name) ||
          !cJSON_AddStringToObject(j, "dir", o->dir) ||
          !cJSON_AddNumberToObject(j, "epoch", (double)r->epoch) ||
          !cJSON_AddNumberToObject(j, "step", (double)r->step) ||
          !cJSON_AddNumberToObject(j, "rank", (double)s->rank.rank) ||
          !cJSON_AddNumberToObject(j, "ranks", (double)s->rank.ranks) ||
          !cJSON_AddStringToObject(j, "placement", placement(s)) ||
          !cJSON_AddBoolToObject(j, "sharded", o->sharded) ||
          !cJSON_AddBoolToObject(j, "async", o->async) ||
          add_kinds(j, s) ||
          !cJSON_AddNumberToObject(j, "bytes", (double)bytes) ||
          add_files(j, r) ||
          !cJSON_AddBoolToObject(j, "direct_asked", o->direct) ||
          !cJSON_AddBoolToObject(j, "fsync_asked", o->fsync) ||
          !(bytes ? cJSON_AddStringToObject(j, "write_mode",
                                            kb_io_ckpt_write_mode(&r->side))
                  : cJSON_AddNullToObject(j, "write_mode")) ||
          !cJSON_AddNumberToObject(j, "write_s", r->write_s) ||
          add_rate(j, "write_GB_per_second", bytes, r->write_s, 1e9) ||
          add_rate(j, "write_GiB_per_second", bytes, r->write_s,
                   1024.0 * 1024 * 1024) ||
          !cJSON_AddNumberToObject(j, "write_padded_bytes", (double)pad) ||
          kb_io_direct_json(&r->side.dio, "write_direct", "buffered+fsync",
                            j) ||
          !cJSON_AddNumberToObject(j, "snapshot_s", r->snapshot_s) ||
          !cJSON_AddNumberToObject(j, "wait_s", r->wait_s) ||
          !cJSON_AddNumberToObject(j, "stall_s", r->stall_s) ||
          !cJSON_AddBoolToObject(j, "verified", r->verified);
    if (bad) {
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

/* One record a completed checkpoint into json.  0 or KB_IO_ERROR. */
static int write_records(const kb_io_ckpt_sched *s, FILE *json, char *err,
                         size_t len)
{
    for (size_t i = 0; i < s->nrecs; i++) {
        if (!s->recs[i].done)
            continue;
        cJSON *j = rec_json(s, &s->recs[i]);
        char *txt = j ? cJSON_PrintUnformatted(j) : NULL;
        cJSON_Delete(j);
        if (!txt) {
            snprintf(err, len, "out of memory for a JSON record");
            return KB_IO_ERROR;
        }
        bool bad = fprintf(json, "%s\n", txt) < 0;
        cJSON_free(txt);
        if (bad || fflush(json) != 0) {
            snprintf(err, len, "cannot write the checkpoint records to %s: "
                     "%s", s->o.json ? s->o.json : "the JSON file",
                     strerror(errno));
            return KB_IO_ERROR;
        }
    }
    return 0;
}

/* The checkpoints on one line of stdout. */
static void print_summary(const kb_io_ckpt_sched *s)
{
    kb_io_ckpt_totals t;
    kb_io_ckpt_sched_totals(s, &t);
    if (!t.checkpoints)
        return;
    char plan[96];
    describe_plan(&s->o.plan, plan, sizeof plan);
    const ckpt_rec *last = &s->recs[s->nrecs - 1];
    printf("checkpoints: %" PRId64 " (%s), rank %" PRId64 " of %" PRId64
           " (%s) writes %" PRIu64 " B each (", t.checkpoints, plan,
           s->rank.rank, s->rank.ranks, placement(s), rec_bytes(s));
    for (int k = 0; k < KB_IO_CKPT_KINDS; k++)
        printf("%s%s %zu", k ? " + " : "", kb_io_ckpt_kind_name[k], s->n[k]);
    printf(")");
    if (t.bytes && t.write_s > 0)
        printf(", write %.3f GB/s = %.3f GiB/s (%.3f s, %s)",
               (double)t.bytes / t.write_s / 1e9,
               (double)t.bytes / t.write_s / (1024.0 * 1024 * 1024),
               t.write_s, kb_io_ckpt_write_mode(&last->side));
    printf(", stall %.3f s (%s)\n", t.stall_s,
           s->o.async ? "async: snapshots and waits for the writer"
                      : "sync: the writes");
}

int kb_io_ckpt_sched_close(kb_io_ckpt_sched *s, FILE *json, double *stall,
                           char *err, size_t len)
{
    *stall = 0;
    if (!s)
        return 0;
    int rc = kb_io_ckpt_sched_drain(s, stall, err, len);
    /* the records of the checkpoints done, even after a failed one */
    char jerr[KB_IO_ERRLEN];
    int jrc = json ? write_records(s, json, jerr, sizeof jerr) : 0;
    if (jrc && !rc) {
        snprintf(err, len, "%s", jerr);
        rc = jrc;
    }
    print_summary(s);
    sched_free(s);
    return rc;
}
