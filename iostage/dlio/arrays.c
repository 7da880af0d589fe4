/* arrays.c - DLIO's sample shapes and the arrays its npz and hdf5
 * generators fill (derive_configurations, and random bytes a sample). */
#include "iostage/dlio/arrays.h"
#include "iostage/profile.h"
#include "iostage/sample.h"
#include "iostage/stage.h"
#include "kernels/random.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

uint64_t kb_io_dlio_dimension(const kb_io_profile *p)
{
    uint64_t r = p->sample_bytes > 0 ? (uint64_t)p->sample_bytes : 1;
    uint64_t d = (uint64_t)sqrt((double)r);
    while (d * d > r)           /* int(math.sqrt()), exactly */
        d--;
    while ((d + 1) * (d + 1) <= r)
        d++;
    return d ? d : 1;
}

void kb_io_dlio_dims(const kb_io_profile *p, uint64_t seed, int64_t i,
                     uint64_t *dim1, uint64_t *dim2)
{
    double dim = (double)kb_io_dlio_dimension(p);
    double stdev = p->sample_bytes > 0
                       ? (double)p->sample_stddev / 2.0 /
                             sqrt((double)p->sample_bytes)
                       : 0;
    if (stdev <= 0) {
        *dim1 = *dim2 = (uint64_t)dim;
        return;
    }
    /* Box-Muller: two normals from two uniforms in (0, 1] */
    uint64_t s = kb_mix64(seed ^ 0x646c696f64696d73ull) ^
                 kb_mix64((uint64_t)i);
    double u1 = ((double)(kb_splitmix64(&s) >> 11) + 1) / 9007199254740992.0;
    double u2 = (double)(kb_splitmix64(&s) >> 11) / 9007199254740992.0;
    double r = sqrt(-2 * log(u1)), t = 2 * M_PI * u2;
    double a = dim + stdev * r * cos(t), b = dim + stdev * r * sin(t);
    /* max(int(d), 1): int() truncates toward zero */
    *dim1 = a >= 2 ? (uint64_t)a : 1;
    *dim2 = b >= 2 ? (uint64_t)b : 1;
}

int kb_io_dlio_arrays_make(const kb_io_profile *p, uint64_t seed, int64_t i,
                           const char *what, kb_io_dlio_arrays *a, char *err,
                           size_t len)
{
    *a = (kb_io_dlio_arrays){.ns = (uint64_t)p->samples_per_file};
    kb_io_dlio_dims(p, seed, i, &a->d1, &a->d2);
    if (a->ns < 1 || a->d1 > SIZE_MAX / a->d2 ||
        a->d1 * a->d2 > SIZE_MAX / a->ns || a->ns > SIZE_MAX / 8) {
        snprintf(err, len, "profile %s: %" PRIu64 " samples of %" PRIu64
                 "x%" PRIu64 " bytes do not fit in memory", p->name, a->ns,
                 a->d1, a->d2);
        return KB_IO_USAGE;
    }
    a->xn = (size_t)(a->d1 * a->d2 * a->ns);
    a->x = malloc(a->xn ? a->xn : 1);
    a->labels = calloc((size_t)a->ns, sizeof *a->labels);  /* [0] * ns */
    if (!a->x || !a->labels) {
        kb_io_dlio_arrays_free(a);
        snprintf(err, len, "out of memory for a %zu-byte %s file", a->xn,
                 what);
        return KB_IO_ERROR;
    }
    kb_io_fill_random(a->x, a->xn, kb_mix64(seed) ^ kb_mix64((uint64_t)i));
    return 0;
}

void kb_io_dlio_arrays_free(kb_io_dlio_arrays *a)
{
    free(a->x);
    free(a->labels);
    a->x = NULL;
    a->labels = NULL;
}
