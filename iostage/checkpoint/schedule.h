/* schedule.h - DLIO's checkpoint schedule inside a training loop
 * (ckpt_schedule.c): used by `kbench io run` and by ckpt_loop.c. */
#ifndef KB_IO_CHECKPOINT_SCHEDULE_H
#define KB_IO_CHECKPOINT_SCHEDULE_H

#include "iostage/checkpoint/options.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The schedule inside a training loop (ckpt_schedule.c), for `kbench io
 * run`.  open: *s is NULL when the plan has no checkpoints or o->dir is
 * NULL.  step: after step `step` (1-based in the epoch) of epoch `epoch`
 * (1-based), `last` when it ended the epoch, writes what the schedule
 * asks for (or, async, hands it to the writer thread, first waiting for
 * the previous one); *stall gets the seconds the loop was held.  close:
 * waits for a write in flight (its wait added to *stall), writes one
 * "io_checkpoint" record a checkpoint to json (may be NULL), a line on
 * stdout when there was one, and frees s (the files stay; the records:
 * results/SCHEMA.md).  Each returns 0 or a stage error with a message; a
 * NULL s is a no-op. */
typedef struct kb_io_ckpt_sched kb_io_ckpt_sched;
int kb_io_ckpt_sched_open(const kb_io_ckpt_opts *o, kb_io_ckpt_sched **s,
                          char *err, size_t len);
int kb_io_ckpt_sched_step(kb_io_ckpt_sched *s, int64_t epoch, int64_t step,
                          bool last, double *stall, char *err, size_t len);
int kb_io_ckpt_sched_close(kb_io_ckpt_sched *s, FILE *json, double *stall,
                           char *err, size_t len);

/* What a schedule did so far (the verb's summary). */
typedef struct {
    int64_t checkpoints;        /* completed */
    uint64_t bytes;             /* written by this rank, all files */
    double write_s, stall_s;    /* sums over the checkpoints */
} kb_io_ckpt_totals;

/* Wait for the write in flight (async), its wait added to *stall.  0 or
 * the write's error. */
int kb_io_ckpt_sched_drain(kb_io_ckpt_sched *s, double *stall, char *err,
                           size_t len);
/* After a drain: evict, read back and compare every file written with the
 * state of its step.  0, KB_IO_CORRUPT or KB_IO_ERROR naming the file. */
int kb_io_ckpt_sched_verify(kb_io_ckpt_sched *s, char *err, size_t len);
/* After a drain: unlink every file written.  Cannot fail. */
void kb_io_ckpt_sched_remove(kb_io_ckpt_sched *s);
void kb_io_ckpt_sched_totals(const kb_io_ckpt_sched *s, kb_io_ckpt_totals *t);

#endif
