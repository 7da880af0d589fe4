/* gpu_backend.c - the hand-written GPU backends `cuda` and `hip` behind
 * backends/backend.h: one file, compiled once per runtime.
 *
 * prepare() allocates a device buffer per tensor and uploads the host
 * tensors (untimed); run() times the kernel with events
 * (gpu_device.h); read_output() downloads the outputs.  The kernels are
 * in gpu_gemm.cu, gpu_conv.cu and gpu_bnorm.cu (gpu_kernels.h). */
#include "backends/gpu/gpu_device.h"
#include "backends/gpu/gpu_kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The run's --tuning, when this backend has it; NULL: the default. */
static const kb_gpu_tuning *tuning;

typedef struct {
    const kb_problem *p;
    const kb_tensors *host;
    kb_arg_info info[KB_ARG_MAX];
    void *dev[KB_ARG_MAX];
    const kb_gpu_tuning *t;
    int launches;              /* per sample: the run's, or 1 (see prepare) */
    const char *kernel;        /* which kernel runs, for plan_info */
} gpu_plan;

static const kb_gpu_tuning *chosen_tuning(void)
{
    return tuning ? tuning : KB_GPU(tuning_at)(0);
}

static bool gpu_supports(const kb_problem *p, char *why, size_t len)
{
    if (!KB_GPU(ready)(why, len))
        return false;
    if (!kb_dts_all(&p->dt, KB_F32) && !kb_dts_all(&p->dt, KB_F64)) {
        char dts[32];
        kb_dts_format(&p->dt, dts, sizeof dts);
        snprintf(why, len, "%s: f32 and f64 only, not %s", KB_GPU_NAME, dts);
        return false;
    }
    if (kb_dir_is_backward(p->dir)) {
        snprintf(why, len, "%s: forward passes only, not %s", KB_GPU_NAME,
                 kb_dir_name(p->dir));
        return false;
    }
    if (p->fpmath != KB_FPMATH_STRICT && p->fpmath != KB_FPMATH_ANY) {
        /* the kernels compute in the storage type: strict is exact */
        snprintf(why, len, "%s: computes f32 in f32; --fpmath %s asks for "
                 "a reduced-precision path it does not have", KB_GPU_NAME,
                 kb_fpmath_name(p->fpmath));
        return false;
    }
    return true;
}

/* Every tensor of p, on the device. */
static size_t gpu_device_bytes(const kb_problem *p)
{
    return kb_problem_tensor_bytes(p);
}

static int gpu_device_free(uint64_t *bytes, char *why, size_t len)
{
    return KB_GPU(free_bytes)(bytes, NULL, why, len);
}

static size_t arg_bytes(const kb_arg_info *a)
{
    return (size_t)a->nelems * kb_dtype_size(a->dt);
}

/* Upload the host tensors: every input, and with `outputs` the output
 * buffers too (poisoned by the driver, so that a kernel that writes
 * nothing cannot pass). */
static int upload(gpu_plan *g, bool outputs, char *err, size_t len)
{
    for (int a = 0; a < KB_ARG_MAX; a++) {
        const kb_arg_info *i = &g->info[a];
        if (!i->used || (!i->is_input && !outputs))
            continue;
        if (KB_GPU(upload)(g->dev[a], g->host->ptr[a], arg_bytes(i), err,
                           len) != 0)
            return -1;
    }
    return 0;
}

static void gpu_release(void *plan)
{
    gpu_plan *g = plan;
    if (!g)
        return;
    for (int a = 0; a < KB_ARG_MAX; a++)
        KB_GPU(free)(g->dev[a]);
    free(g);
}

/* Back-to-back launches must each do the same work: a GEMM that
 * accumulates into dst (beta != 0) would not, so it is timed one launch
 * per sample. */
static bool repeatable(const kb_problem *p)
{
    return !(p->kind == KB_GEMM && p->gemm.beta != 0);
}

static int gpu_prepare(const kb_problem *p, const kb_tensors *host,
                       void **plan, char *err, size_t len)
{
    gpu_plan *g = calloc(1, sizeof *g);
    if (!g) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    g->p = p;
    g->host = host;
    g->t = chosen_tuning();
    kb_problem_args(p, g->info);
    g->launches = repeatable(p) ? KB_GPU(config)()->launches : 1;
    g->kernel = p->kind == KB_GEMM ? "tiled GEMM"
              : p->kind == KB_BNORM ? (p->dir == KB_FWD_I
                                           ? "bnorm inference"
                                           : "bnorm training (reduction)")
              : KB_GPU(conv_is_depthwise)(p) ? "direct depthwise"
                                             : "implicit GEMM";
    for (int a = 0; a < KB_ARG_MAX; a++) {
        if (!g->info[a].used)
            continue;
        char why[192];
        if (KB_GPU(alloc)(&g->dev[a], arg_bytes(&g->info[a]), why,
                          sizeof why) != 0) {
            snprintf(err, len, "%s: %s", g->info[a].name, why);
            gpu_release(g);
            return -1;
        }
    }
    if (upload(g, true, err, len) != 0) {
        gpu_release(g);
        return -1;
    }
    *plan = g;
    return 0;
}

/* One launch of the plan's kernel (kb_gpu_launch_fn). */
static int launch(void *ctx, char *err, size_t len)
{
    gpu_plan *g = ctx;
    switch (g->p->kind) {
    case KB_GEMM:
        return KB_GPU(gemm)(g->p, g->t, g->dev, err, len);
    case KB_BNORM:
        return KB_GPU(bnorm_fwd)(g->p, g->dev, err, len);
    case KB_CONV:
        if (KB_GPU(conv_is_depthwise)(g->p))
            return KB_GPU(conv_depthwise)(g->p, g->dev, err, len);
        return KB_GPU(conv_fwd)(g->p, g->t, g->dev, err, len);
    }
    snprintf(err, len, "unknown kernel kind");
    return -1;
}

static int gpu_run(void *plan, double *elapsed, char *err, size_t len)
{
    gpu_plan *g = plan;
    return KB_GPU(time_launches)(launch, g, g->launches, elapsed, err, len);
}

static int gpu_read_output(void *plan, char *err, size_t len)
{
    gpu_plan *g = plan;
    for (int a = 0; a < KB_ARG_MAX; a++) {
        const kb_arg_info *i = &g->info[a];
        if (i->used && i->is_output &&
            KB_GPU(download)(g->host->ptr[a], g->dev[a], arg_bytes(i), err,
                             len) != 0)
            return -1;
    }
    return 0;
}

static int gpu_write_input(void *plan, char *err, size_t len)
{
    return upload(plan, true, err, len);
}

static int gpu_configure(const kb_backend_config *cfg, char *err,
                         size_t len)
{
    if (KB_GPU(configure)(cfg, err, len) != 0)
        return -1;
    tuning = NULL;
    if (!cfg->tuning)
        return 0;
    char names[256] = "";
    for (int i = 0; i < KB_GPU(tuning_count)(); i++) {
        const kb_gpu_tuning *t = KB_GPU(tuning_at)(i);
        if (strcmp(t->name, cfg->tuning) == 0) {
            tuning = t;
            return 0;
        }
        size_t n = strlen(names);
        snprintf(names + n, sizeof names - n, "%s%s", i ? ", " : "", t->name);
    }
    snprintf(err, len, "--tuning %s: %s has %s", cfg->tuning, KB_GPU_NAME,
             names);
    return -1;
}

static void gpu_describe(kb_info *info)
{
    kb_info_add(info, "kernels", "one CUDA C source (backends/gpu) built by "
#if defined(KB_GPU_HIP)
                "hipcc"
#else
                "nvcc"
#endif
    );
    char names[256] = "";
    for (int i = 0; i < KB_GPU(tuning_count)(); i++) {
        size_t n = strlen(names);
        snprintf(names + n, sizeof names - n, "%s%s", i ? ", " : "",
                 KB_GPU(tuning_at)(i)->name);
    }
    kb_info_add(info, "tunings", "%s (default %s)", names,
                chosen_tuning()->name);
    KB_GPU(describe)(info);
}

static void gpu_plan_info(void *plan, kb_info *info)
{
    gpu_plan *g = plan;
    kb_info_add(info, "kernel", "%s", g->kernel);
    if (g->p->kind == KB_BNORM || KB_GPU(conv_is_depthwise)(g->p))
        kb_info_add(info, "block", "%d threads", KB_GPU_BNORM_THREADS);
    else
        kb_info_add(info, "tuning", "%s (block tile %dx%dx%d, thread tile "
                    "%dx%d)", g->t->name, g->t->bm, g->t->bn, g->t->bk,
                    g->t->tm, g->t->tn);
    kb_info_add(info, "math", "%s FMA, no tensor cores",
                kb_dtype_name(g->p->dt.src));
    KB_GPU(timing_info)(g->launches, info);
    if (g->launches != KB_GPU(config)()->launches)
        kb_info_add(info, "launches_note", "beta != 0 accumulates into dst: "
                    "one launch per sample");
}

const kb_backend KB_GPU(backend) = {
    .name = KB_GPU_NAME,
    .kind = "hand",
    .device = KB_GPU_NAME,
    .supports = gpu_supports,
    .prepare = gpu_prepare,
    .run = gpu_run,
    .read_output = gpu_read_output,
    .write_input = gpu_write_input,
    .release = gpu_release,
    .describe = gpu_describe,
    .configure = gpu_configure,
    .device_bytes = gpu_device_bytes,
    .device_free = gpu_device_free,
    .plan_info = gpu_plan_info,
};
