/* registry.c - the backends this build has, found by name.
 *
 * The built-in table is fixed at compile time: one line per backend,
 * guarded by the KB_HAVE_<NAME> definition its CMake fragment adds.
 * Tests may add more at run time with kb_backend_register. */
#include "backend.h"

#include <string.h>

#include "omp/omp_backend.h"
#ifdef KB_HAVE_OPENBLAS
#include "openblas/openblas_backend.h"
#endif
#ifdef KB_HAVE_ONEDNN
#include "onednn/onednn_backend.h"
#endif
#include "gpu/gpu_registry.h"

static const kb_backend *const builtin[] = {
    &kb_backend_omp,           /* always built */
#ifdef KB_HAVE_OPENBLAS
    &kb_backend_openblas,
#endif
#ifdef KB_HAVE_ONEDNN
    &kb_backend_onednn,
    &kb_backend_onednn_reorder,
#endif
#ifdef KB_HAVE_CUDA
    &kb_cuda_backend,
#endif
#ifdef KB_HAVE_CUBLAS
    &kb_backend_cublas,
#endif
#ifdef KB_HAVE_CUDNN
    &kb_backend_cudnn,
#endif
#ifdef KB_HAVE_HIP
    &kb_hip_backend,
#endif
#ifdef KB_HAVE_ROCBLAS
    &kb_backend_rocblas,
#endif
#ifdef KB_HAVE_MIOPEN
    &kb_backend_miopen,
#endif
};

/* The GPU runtimes built in, for the drivers that use a device without
 * a backend (peaks, the I/O stage's copies). */
static const kb_gpu_runtime *const runtimes[] = {
#ifdef KB_HAVE_CUDA
    &kb_cuda_runtime,
#endif
#ifdef KB_HAVE_HIP
    &kb_hip_runtime,
#endif
    NULL,
};

#define NBUILTIN ((int)(sizeof(builtin) / sizeof(builtin[0])))
#define MAX_EXTRA 8

static const kb_backend *extra[MAX_EXTRA];
static int nextra;

/* This function can't fail. */
int kb_backend_count(void)
{
    return NBUILTIN + nextra;
}

/* Returns NULL when i is out of range. */
const kb_backend *kb_backend_at(int i)
{
    if (i < 0 || i >= kb_backend_count())
        return NULL;
    return i < NBUILTIN ? builtin[i] : extra[i - NBUILTIN];
}

/* Returns NULL when no backend has that name. */
const kb_backend *kb_backend_find(const char *name)
{
    if (!name)
        return NULL;
    for (int i = 0; i < kb_backend_count(); i++)
        if (strcmp(kb_backend_at(i)->name, name) == 0)
            return kb_backend_at(i);
    return NULL;
}

int kb_gpu_runtime_count(void)
{
    return (int)(sizeof runtimes / sizeof runtimes[0]) - 1;
}

const kb_gpu_runtime *kb_gpu_runtime_at(int i)
{
    return i >= 0 && i < kb_gpu_runtime_count() ? runtimes[i] : NULL;
}

const kb_gpu_runtime *kb_gpu_runtime_find(const char *name)
{
    for (int i = 0; name && i < kb_gpu_runtime_count(); i++)
        if (strcmp(runtimes[i]->name, name) == 0)
            return runtimes[i];
    return NULL;
}

/* Returns -1 when b or its name is missing, the name is taken, or
 * MAX_EXTRA backends were already added.  Not thread-safe: register
 * before running anything. */
int kb_backend_register(const kb_backend *b)
{
    if (!b || !b->name || kb_backend_find(b->name) || nextra >= MAX_EXTRA)
        return -1;
    extra[nextra++] = b;
    return 0;
}
