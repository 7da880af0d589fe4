/* rank.h - scale-out (rank.c): one process a node, sharded by rank. */
#ifndef KB_IO_RANK_H
#define KB_IO_RANK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    int64_t rank, ranks;          /* 0 <= rank < ranks */
    const char *source;           /* "--rank", "slurm", "openmpi", "pmix",
                                   * or "single" (no launcher) */
} kb_io_rank;

/* Rank and size from the launcher's environment (OMPI_COMM_WORLD_RANK and
 * _SIZE, SLURM_PROCID and SLURM_NTASKS, PMIX_RANK with a size from one of
 * them, in that order), else a single rank.  Explicit --rank/--ranks
 * (rank >= 0) win.  0, or KB_IO_USAGE naming the variable that is malformed or
 * inconsistent. */
int kb_io_rank_detect(int64_t rank, int64_t ranks, kb_io_rank *r, char *err,
                      size_t len);

/* Global samples [*lo, *hi) of rank r out of `total`: DLIO's split,
 * ceil(total / ranks) consecutive samples a rank, the last one short. */
void kb_io_rank_shard(const kb_io_rank *r, int64_t total, int64_t *lo,
                      int64_t *hi);

/* DLIO's steps an epoch a rank, its partial last batch dropped:
 * floor(total / batch / ranks), at most max_steps when that is > 0.  0
 * when batch or ranks is not positive. */
int64_t kb_io_dlio_steps(int64_t total, int64_t batch, int64_t ranks,
                         int64_t max_steps);

#endif
