/* rank.c - this process's rank and the number of ranks, from the engine
 * that launched it (Slurm, Open MPI, PMIx) or from --rank/--ranks, the
 * shard of samples a rank reads (DLIO's split) and DLIO's steps an epoch
 * a rank. */
#include "iostage/rank.h"
#include "iostage/stage.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Non-negative integer environment variable: 1 found, 0 unset, -1 bad. */
static int env_i64(const char *name, int64_t *v, char *err, size_t len)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return 0;
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (errno || *end || x < 0) {
        snprintf(err, len, "%s='%s': expected a non-negative integer", name,
                 s);
        return -1;
    }
    *v = x;
    return 1;
}

/* The launchers in the order they are believed.  Open MPI first: mpirun
 * in a Slurm job leaves every rank the SLURM_PROCID and SLURM_NTASKS of
 * the srun step that started its daemons (one a node), not the rank's own
 * (seen on integrations/slurm/local-cluster.sh). */
static const struct {
    const char *source, *rank, *size;
    /* believed only where this is set too, or NULL: a Slurm batch script
     * has the job's SLURM_PROCID 0 and SLURM_NTASKS but is no step's task
     * (no SLURM_STEP_ID), so a kbench run there is one rank */
    const char *inside;
} launchers[] = {
    {"openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", NULL},
    {"slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_STEP_ID"},
    /* PMIx exports no size: one of the others', or PMIX_SIZE where a
     * launcher sets it */
    {"pmix", "PMIX_RANK", "PMIX_SIZE", NULL},
};

int kb_io_rank_detect(int64_t rank, int64_t ranks, kb_io_rank *r, char *err,
                      size_t len)
{
    *r = (kb_io_rank){0, 1, "single"};
    if (rank >= 0 || ranks > 0) {
        if (rank < 0 || ranks < 1 || rank >= ranks) {
            snprintf(err, len, "--rank %" PRId64 " --ranks %" PRId64 ": give "
                     "both, with 0 <= rank < ranks", rank, ranks);
            return KB_IO_USAGE;
        }
        *r = (kb_io_rank){rank, ranks, "--rank"};
        return 0;
    }
    for (size_t i = 0; i < sizeof launchers / sizeof launchers[0]; i++) {
        int64_t rk, sz = 0;
        if (launchers[i].inside && !getenv(launchers[i].inside))
            continue;
        int got = env_i64(launchers[i].rank, &rk, err, len);
        if (got < 0)
            return KB_IO_USAGE;
        if (!got)
            continue;
        /* the size from its own variable, else the first one set */
        const char *size = launchers[i].size;
        int have = env_i64(size, &sz, err, len);
        for (size_t j = 0; have == 0 && j < sizeof launchers /
                                               sizeof launchers[0]; j++)
            have = env_i64(size = launchers[j].size, &sz, err, len);
        if (have < 0)
            return KB_IO_USAGE;
        if (!have) {
            snprintf(err, len, "%s=%" PRId64 " but the number of ranks is "
                     "unset (%s)", launchers[i].rank, rk, launchers[i].size);
            return KB_IO_USAGE;
        }
        if (rk >= sz) {
            snprintf(err, len, "%s=%" PRId64 " but %s=%" PRId64 ": expected "
                     "a rank below the number of ranks", launchers[i].rank,
                     rk, size, sz);
            return KB_IO_USAGE;
        }
        *r = (kb_io_rank){rk, sz, launchers[i].source};
        return 0;
    }
    return 0;
}

void kb_io_rank_shard(const kb_io_rank *r, int64_t total, int64_t *lo,
                      int64_t *hi)
{
    int64_t per = (total + r->ranks - 1) / r->ranks;
    *lo = per * r->rank < total ? per * r->rank : total;
    *hi = *lo + per < total ? *lo + per : total;
}

int64_t kb_io_dlio_steps(int64_t total, int64_t batch, int64_t ranks,
                         int64_t max_steps)
{
    int64_t steps = batch > 0 && ranks > 0 ? total / batch / ranks : 0;
    return max_steps > 0 && max_steps < steps ? max_steps : steps;
}
