/* registry.c - the backends this build has, found by name.
 *
 * The built-in table is made at configure time: each backend folder that
 * builds backend NAME says so (kb_backend_built, cmake/KbBackends.cmake),
 * and backends_built.h lists them, in the order of backends/backends.txt,
 * as KB_BACKEND(NAME) lines; each folder defines kb_backend_NAME.  Tests
 * may add more at run time with kb_backend_register. */
#include "backend.h"

#include <string.h>

#include "gpu/gpu_registry.h"

#define KB_BACKEND(name) extern const kb_backend kb_backend_##name;
#include "backends_built.h"
#undef KB_BACKEND

static const kb_backend *const builtin[] = {
#define KB_BACKEND(name) &kb_backend_##name,
#include "backends_built.h"
#undef KB_BACKEND
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
#ifdef KB_HAVE_GPUSIM
    &kb_gpusim_runtime,
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
