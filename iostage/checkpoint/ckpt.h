/* ckpt.h - what the checkpoint files of iostage/checkpoint/ share: the write and
 * read-back path (checkpoint.c), DLIO's schedule, shares and the state a
 * checkpoint holds (ckpt_plan.c), the schedule's extra calls for the verb
 * (ckpt_schedule.c), the background writer (ckpt_writer.c) and the
 * emulated training loop (ckpt_loop.c). */
#ifndef KB_IO_CKPT_H
#define KB_IO_CKPT_H

#include "iostage/io_internal.h"

/* ---- one file written or read back (checkpoint.c) ---- */
/* What one direction measured, and how. */
typedef struct {
    kb_io_direct dio;
    bool direct;        /* the measured attempt used O_DIRECT throughout */
    bool synced;        /* write: fsync inside the timed window */
    double seconds;     /* open to close of the measured attempt */
} kb_io_ckpt_side;

/* n rounded up to whole O_DIRECT blocks: a checkpoint buffer's capacity. */
size_t kb_io_ckpt_round_up(size_t n);

/* Write buf[0, n) to path through o->engine (state eng), timed from the
 * open to the close, honouring o->direct and o->fsync; buf holds
 * kb_io_ckpt_round_up(n) bytes, zero past n.  A refused O_DIRECT is
 * recorded in w->dio (the first only) and the file written buffered with
 * fsync in the window.  0 or KB_IO_ERROR with a message naming the file
 * and the call. */
int kb_io_ckpt_write_file(const kb_io_ckpt_opts *o, void *eng,
                          const char *path, const uint8_t *buf, size_t n,
                          kb_io_ckpt_side *w, char *err, size_t len);
/* Read the n bytes of path into buf (capacity kb_io_ckpt_round_up(n)),
 * timed, O_DIRECT when asked and allowed.  0, KB_IO_CORRUPT (size) or
 * KB_IO_ERROR with a message. */
int kb_io_ckpt_read_file(const kb_io_ckpt_opts *o, void *eng,
                         const char *path, uint8_t *buf, size_t n,
                         kb_io_ckpt_side *r, char *err, size_t len);
/* 0, or KB_IO_CORRUPT naming path and the first differing offset. */
int kb_io_ckpt_compare(const char *path, const uint8_t *got,
                       const uint8_t *want, size_t n, char *err, size_t len);
/* "direct", "direct+fsync", "buffered+fsync" or "buffered". */
const char *kb_io_ckpt_write_mode(const kb_io_ckpt_side *w);

/* ---- the state a checkpoint holds (ckpt_plan.c) ---- */
/* DLIO writes a file a layer (layer-L-E-S-R); kbench writes the same
 * bytes of every layer in one file, "layers-E-S-R". */
typedef enum { KB_IO_CKPT_MODEL, KB_IO_CKPT_OPTIMIZER, KB_IO_CKPT_LAYERS,
               KB_IO_CKPT_KINDS } kb_io_ckpt_kind;
/* "model", "optimizer", "layers": the file name prefixes. */
extern const char *const kb_io_ckpt_kind_name[KB_IO_CKPT_KINDS];
/* Extension of the files (raw bytes, not DLIO's torch pickles). */
#define KB_IO_CKPT_EXT "kbckpt"

/* The bytes of rank `rank`'s `kind` state before any step: random words
 * from the seed. */
void kb_io_ckpt_state_fill(uint8_t *buf, size_t n, uint64_t seed,
                           kb_io_ckpt_kind kind, int64_t rank);
/* What a training step changes: the first 16 bytes (fewer when n is
 * smaller) become epoch and step, little-endian, so a checkpoint shows
 * which step's state it holds. */
void kb_io_ckpt_state_stamp(uint8_t *buf, size_t n, int64_t epoch,
                            int64_t step);

/* ---- DLIO's schedule and who writes what (ckpt_plan.c) ---- */
/* Whether DLIO checkpoints after step `step` (1-based in the epoch) of
 * epoch `epoch` (1-based), `last` when the step ended the epoch: by
 * steps, at every every_steps-th step of each epoch (DLIO restarts its
 * count each epoch); else at the end of epoch after_epoch (1 when 0, DLIO's
 * default) and every every_epochs-th after it.  Cannot fail. */
bool kb_io_ckpt_due(const kb_io_ckpt_plan *p, int64_t epoch, int64_t step,
                    bool last);
/* The bytes [*lo, *lo + *n) of `total` that rank r writes: sharded, its
 * 1/ranks share (the remainder to the last rank); else all of it on rank
 * 0 and nothing on the others (DLIO's rank_zero).  Cannot fail. */
void kb_io_ckpt_share(uint64_t total, const kb_io_rank *r, bool sharded,
                      uint64_t *lo, uint64_t *n);

/* ---- beyond io_internal.h's hook, for the verb (ckpt_schedule.c) ---- */
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

/* ---- one job at a time in the background (ckpt_writer.c) ---- */
typedef struct kb_io_ckpt_writer kb_io_ckpt_writer;
typedef int (*kb_io_ckpt_job)(void *arg, char *err, size_t len);

/* Start the thread (signals blocked in it: SIGINT reaches the loop).  0 or
 * KB_IO_ERROR with a message. */
int kb_io_ckpt_writer_start(kb_io_ckpt_writer **w, char *err, size_t len);
/* Run fn(arg) on the thread; the writer must be idle (after a wait). */
void kb_io_ckpt_writer_post(kb_io_ckpt_writer *w, kb_io_ckpt_job fn,
                            void *arg);
/* Block until the writer is idle; the posted job's result (0 when none
 * was posted since the last wait) and its message. */
int kb_io_ckpt_writer_wait(kb_io_ckpt_writer *w, char *err, size_t len);
/* Wait, then stop and join the thread and free w (NULL allowed). */
void kb_io_ckpt_writer_stop(kb_io_ckpt_writer *w);

/* ---- `kbench io checkpoint` with a schedule (ckpt_loop.c) ---- */
/* Epochs x steps of compute_sleep, checkpoints where o->plan puts them,
 * every file read back and compared, then removed; the records and the
 * loop's figures to o->json and stdout.  0 or a stage error. */
int kb_io_ckpt_loop(const kb_io_ckpt_opts *o, char *err, size_t len);

#endif
