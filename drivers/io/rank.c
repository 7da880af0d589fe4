/* rank.c - this process's rank and the number of ranks, from the engine
 * that launched it (Slurm, Open MPI, PMIx) or from --rank/--ranks, and
 * the shard of samples a rank reads (DLIO's split). */
#include "io_internal.h"

#include <errno.h>
#include <inttypes.h>
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

/* The launchers in the order they are believed: Slurm first, because an
 * Open MPI run inside an allocation sets both and srun's are the step's. */
static const struct {
    const char *source, *rank, *size;
} launchers[] = {
    {"slurm", "SLURM_PROCID", "SLURM_NTASKS"},
    {"openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
    /* PMIx exports no size: one of the others', or PMIX_SIZE where a
     * launcher sets it */
    {"pmix", "PMIX_RANK", "PMIX_SIZE"},
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
        int got = env_i64(launchers[i].rank, &rk, err, len);
        if (got < 0)
            return KB_IO_USAGE;
        if (!got)
            continue;
        int have = env_i64(launchers[i].size, &sz, err, len);
        for (size_t j = 0; have == 0 && j < sizeof launchers /
                                               sizeof launchers[0]; j++)
            have = env_i64(launchers[j].size, &sz, err, len);
        if (have < 0)
            return KB_IO_USAGE;
        if (!have || sz < 1 || rk >= sz) {
            snprintf(err, len, "%s=%" PRId64 " but the number of ranks is %s "
                     "(%s)", launchers[i].rank, rk, have ? "smaller" : "unset",
                     launchers[i].size);
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
