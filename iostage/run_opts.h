/* run_opts.h - what a `kbench io run` is asked to do: the options the
 * pipeline (pipeline.c), the dataset it opens (run_dataset.c) and its
 * records (epoch_report.c) read. */
#ifndef KB_IO_RUN_OPTS_H
#define KB_IO_RUN_OPTS_H

#include "drivers/provenance.h"
#include "iostage/checkpoint/options.h"
#include "iostage/decode/decoder.h"
#include "iostage/formats/format.h"
#include "iostage/rank.h"
#include "iostage/readers/engine.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *dir;
    const char *json;             /* JSON Lines path or NULL */
    const kb_io_engine *engine;
    const kb_io_decoder *decoder;
    int64_t epochs;
    int64_t readers;
    int64_t prefetch;
    int64_t batch;
    uint64_t seed;
    size_t chunk;
    unsigned depth;               /* io_uring queue depth */
    bool direct, cold, skip_corrupt, quiet;
    double compute_sleep;         /* seconds per step, or < 0 */
    const char *compute_backend;  /* backend name, or NULL */
    kb_io_rank rank;              /* this process's shard */
    /* checkpoints between steps on ckpt.plan (p->ckpt with the command
     * line's changes) when ckpt.dir is set */
    kb_io_ckpt_opts ckpt;
    const kb_provenance *prov;    /* for the records; NULL: see record.h */
    kb_io_verify verify;          /* --verify: checksums checked or not */
} kb_io_run_opts;

#endif
