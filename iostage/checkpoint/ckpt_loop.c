/* ckpt_loop.c - `kbench io checkpoint` with a schedule: DLIO's training
 * loop without the data, epochs of steps of emulated compute with the
 * checkpoints where the schedule puts them, and what they cost it: the
 * stall, against the wall and compute time. */
#include "drivers/common/clock.h"
#include "iostage/checkpoint/loop.h"
#include "iostage/checkpoint/options.h"
#include "iostage/checkpoint/schedule.h"
#include "iostage/stage.h"
#include "iostage/record.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>
#include <cjson/cJSON.h>
#include <stdio.h>

/* Sleep `seconds` (the step's compute); a signal ends it early.  Returns
 * the seconds slept. */
static double compute(double seconds)
{
    double t0 = kb_now();
    struct timespec t = {(time_t)seconds,
                         (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&t, &t) < 0 && errno == EINTR && !kb_io_interrupted)
        ;
    return kb_now() - t0;
}

/* What the loop measured. */
typedef struct {
    int64_t epochs, steps;      /* done (the last epoch maybe partly) */
    double wall_s, compute_s, stall_s;
    bool interrupted, verified;
} loop_stats;

/* The "io_checkpoint_loop" record.  0 or KB_IO_ERROR. */
static int loop_json(const kb_io_ckpt_opts *o, const loop_stats *st,
                     const kb_io_ckpt_totals *t, FILE *json, char *err,
                     size_t len)
{
    cJSON *j = kb_io_record_new("io_checkpoint_loop", o->prov);
    bool bad = !j ||
        !cJSON_AddStringToObject(j, "engine", o->engine->name) ||
        !cJSON_AddNumberToObject(j, "rank", (double)o->rank.rank) ||
        !cJSON_AddNumberToObject(j, "ranks", (double)o->rank.ranks) ||
        !cJSON_AddBoolToObject(j, "async", o->async) ||
        !cJSON_AddBoolToObject(j, "sharded", o->sharded) ||
        !cJSON_AddNumberToObject(j, "epochs", (double)o->epochs) ||
        !cJSON_AddNumberToObject(j, "steps_per_epoch", (double)o->steps) ||
        !cJSON_AddNumberToObject(j, "steps_done", (double)st->steps) ||
        !cJSON_AddNumberToObject(j, "compute_sleep_s", o->compute_sleep) ||
        !cJSON_AddNumberToObject(j, "checkpoints", (double)t->checkpoints) ||
        !cJSON_AddNumberToObject(j, "bytes_written", (double)t->bytes) ||
        !cJSON_AddNumberToObject(j, "wall_s", st->wall_s) ||
        !cJSON_AddNumberToObject(j, "compute_s", st->compute_s) ||
        !cJSON_AddNumberToObject(j, "stall_s", st->stall_s) ||
        !cJSON_AddNumberToObject(j, "write_s", t->write_s) ||
        !cJSON_AddBoolToObject(j, "interrupted", st->interrupted) ||
        !cJSON_AddBoolToObject(j, "verified", st->verified);
    char *s = bad ? NULL : cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    if (!s) {
        snprintf(err, len, "out of memory for a JSON record");
        return KB_IO_ERROR;
    }
    bad = fprintf(json, "%s\n", s) < 0;
    cJSON_free(s);
    if (bad) {
        snprintf(err, len, "cannot write %s: %s", o->json, strerror(errno));
        return KB_IO_ERROR;
    }
    return 0;
}

/* The steps with their checkpoints, then the last write waited for (the
 * training is not over before its checkpoint is).  0 or the schedule's
 * error; an interrupt stops at a step boundary. */
static int train(const kb_io_ckpt_opts *o, kb_io_ckpt_sched *s,
                 loop_stats *st, char *err, size_t len)
{
    double t0 = kb_now(), stall;
    int rc = 0;
    for (int64_t e = 1; e <= o->epochs && !rc && !kb_io_interrupted; e++) {
        st->epochs = e;
        for (int64_t i = 1; i <= o->steps && !rc; i++) {
            st->compute_s += compute(o->compute_sleep);
            if (kb_io_interrupted)
                break;   /* this step's compute was cut short */
            st->steps++;
            rc = kb_io_ckpt_sched_step(s, e, i, i == o->steps, &stall, err,
                                       len);
            st->stall_s += stall;
        }
    }
    char derr[KB_IO_ERRLEN];
    int drc = kb_io_ckpt_sched_drain(s, &stall, derr, sizeof derr);
    st->stall_s += stall;
    if (drc && !rc) {
        snprintf(err, len, "%s", derr);
        rc = drc;
    }
    st->wall_s = kb_now() - t0;
    st->interrupted = kb_io_interrupted != 0;
    return rc;
}

int kb_io_ckpt_loop(const kb_io_ckpt_opts *o, char *err, size_t len)
{
    if (o->steps < 1) {
        snprintf(err, len, "a checkpoint schedule needs the steps of an "
                 "epoch: give --steps N (or a --dlio-config whose dataset "
                 "and batch size make them)");
        return KB_IO_USAGE;
    }
    FILE *json = NULL;
    if (o->json && !(json = fopen(o->json, "w"))) {
        snprintf(err, len, "cannot create %s: %s", o->json, strerror(errno));
        return KB_IO_ERROR;
    }
    kb_io_ckpt_sched *s;
    int rc = kb_io_ckpt_sched_open(o, &s, err, len);
    loop_stats st = {0};
    if (!rc)
        rc = train(o, s, &st, err, len);
    if (!rc && !st.interrupted) {
        rc = kb_io_ckpt_sched_verify(s, err, len);
        st.verified = !rc;
    }
    kb_io_ckpt_totals t;
    kb_io_ckpt_sched_totals(s, &t);
    /* the files were a measurement, as the plain verb's is */
    kb_io_ckpt_sched_remove(s);
    double drain;
    char cerr[KB_IO_ERRLEN];
    int crc = kb_io_ckpt_sched_close(s, json, &drain, cerr, sizeof cerr);
    if (crc && !rc) {
        snprintf(err, len, "%s", cerr);
        rc = crc;
    }
    if (st.steps && (!rc || st.interrupted)) {
        printf("training loop: %" PRId64 " of %" PRId64 " epochs x %" PRId64
               " steps of %.3f s compute%s: wall %.3f s, compute %.3f s, "
               "checkpoint stall %.3f s (%.1f %% of the wall), %s\n",
               st.epochs, o->epochs, o->steps, o->compute_sleep,
               st.interrupted ? " (interrupted)" : "", st.wall_s,
               st.compute_s, st.stall_s,
               st.wall_s > 0 ? 100 * st.stall_s / st.wall_s : 0,
               st.verified ? "every checkpoint file read back, verified and "
                             "removed"
                           : "checkpoint files removed unverified");
        if (json && !rc)
            rc = loop_json(o, &st, &t, json, err, len);
    }
    if (json && fclose(json) != 0 && !rc) {
        snprintf(err, len, "cannot write %s: %s", o->json, strerror(errno));
        rc = KB_IO_ERROR;
    }
    if (!rc && st.interrupted) {
        snprintf(err, len, "interrupted after %" PRId64 " steps (epoch %"
                 PRId64 "); the records of the %" PRId64 " checkpoints done "
                 "are written", st.steps, st.epochs, t.checkpoints);
        rc = KB_IO_ERROR;
    }
    return rc;
}
