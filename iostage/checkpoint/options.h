/* options.h - what a checkpoint is asked to do: the options of
 * `kbench io checkpoint` and of run's schedule. */
#ifndef KB_IO_CHECKPOINT_OPTIONS_H
#define KB_IO_CHECKPOINT_OPTIONS_H

#include "drivers/provenance.h"
#include "iostage/profile.h"
#include "iostage/rank.h"
#include "iostage/readers/engine.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *dir;
    const char *json;             /* JSON Lines path or NULL */
    uint64_t bytes;
    const kb_io_engine *engine;
    bool fsync, direct;
    uint64_t seed;
    /* DLIO's schedule: `kbench io checkpoint` emulates its training loop
     * (steps of compute_sleep seconds) when plan.every_steps or
     * plan.every_epochs is set, else writes and reads back one. */
    kb_io_ckpt_plan plan;
    int64_t steps, epochs;        /* the emulated loop */
    double compute_sleep;
    bool async;                   /* the write overlaps the next steps */
    bool sharded;                 /* each rank writes its 1/ranks share;
                                   * else rank 0 writes it all (DLIO's
                                   * rank_zero) */
    kb_io_rank rank;
    /* what the records say of the run; NULL: gathered without a command
     * line (iostage/record.h) */
    const kb_provenance *prov;
} kb_io_ckpt_opts;

#endif
