/* epoch_report.h - one epoch of `kbench io run` as the consumer measured
 * it (pipeline.c), and its figures, table line and io_epoch record
 * (epoch_report.c). */
#ifndef KB_IO_EPOCH_REPORT_H
#define KB_IO_EPOCH_REPORT_H

#include "iostage/compute_model.h"
#include "iostage/run_opts.h"
#include "iostage/profile.h"
#include "iostage/readers/direct.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* One of DLIO's blocks: the steps between two checkpoints that held the
 * loop (DLIO ends a block before each checkpoint and starts the next one
 * after it, so checkpoint time is in no block's window). */
typedef struct {
    double start, end;          /* block start; end of its last step */
    double first_proc;          /* its first step's load + compute */
    double compute_rest;        /* compute DLIO records for the others */
    int64_t steps;
} kb_io_block;

typedef struct {
    int64_t epoch;                      /* 0-based */
    int64_t files, files_total;         /* this rank's / the dataset's */
    int64_t samples_total, sample_lo, sample_hi;
    int64_t steps_limit;                /* 0: none */
    int64_t steps, samples;             /* computed; delivered */
    /* the shard's samples that were not delivered, by reason */
    int64_t holes, dropped_last, skipped_files, skipped_samples;
    int64_t not_reached;
    int64_t files_direct, files_buffered;
    uint64_t bytes;
    double *lat;                        /* read latencies, sorted here */
    size_t nlat;
    double wall, wait, residency, cpu;
    double stall;                       /* checkpoints held the loop */
    double compute_all, steady_compute; /* measured, all / after step 1 */
    uint64_t h2d_bytes;                 /* a device backend's batch copies, */
    double h2d_s;                       /* inside compute_all */
    double first_step, steady;          /* kbench's two windows */
    int64_t steady_samples;
    /* DLIO's blocks, summed (the AU and throughput weighted by steps) */
    int64_t blocks, block_steps;
    double dlio_window, dlio_first, dlio_compute;
    double dlio_au_steps, dlio_tput_steps;
    const uint8_t *bits;                /* delivered: bit i is id i */
} kb_io_epoch;

/* Close block b into e, for steps of `batch` samples (DLIO counts every
 * step as a full batch).  Cannot fail. */
void kb_io_epoch_add_block(kb_io_epoch *e, const kb_io_block *b,
                           int64_t batch);

/* The table line on stdout (unless quiet) and, when json is not NULL,
 * the epoch's io_epoch record, flushed.  model and dio may be NULL.
 * 0, or KB_IO_ERROR (out of memory, write failed) with a message. */
int kb_io_epoch_report(const kb_io_profile *p, const kb_io_run_opts *o,
                       kb_io_model *model, const kb_io_direct *dio,
                       kb_io_epoch *e, FILE *json, char *err, size_t len);

#endif
