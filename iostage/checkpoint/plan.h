/* plan.h - the state a checkpoint holds, DLIO's schedule and who
 * writes what (ckpt_plan.c). */
#ifndef KB_IO_CHECKPOINT_PLAN_H
#define KB_IO_CHECKPOINT_PLAN_H

#include "iostage/profile.h"
#include "iostage/rank.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

#endif
