/* gpu_backend.c - the hand-written GPU backends `cuda`, `hip` and
 * `gpusim` (the same kernels on the CPU) behind backends/backend.h: one
 * file, compiled once per runtime.
 *
 * prepare() allocates a device buffer per tensor, and the workspace a
 * kernel needs (bnorm training's partial statistics), and uploads the host
 * tensors (untimed); run() times the kernel with events
 * (gpu_device.h); read_output() downloads the outputs.  The kernels are
 * in gpu_gemm.cu, gpu_conv.cu and gpu_bnorm.cu (gpu_kernels.h). */
#include "backends/gpu/gpu_kernels.h"
#include "backends/gpu/gpu_device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The run's --tuning, when this backend has it; NULL: the default. */
static const kb_gpu_tuning *tuning;

typedef struct {
    const kb_problem *p;
    kb_gpu_tensors d;          /* the device copies of p's tensors */
    const kb_gpu_tuning *t;
    int launches;              /* per sample: the run's, or 1 (see prepare) */
    const char *kernel;        /* which kernel runs, for plan_info */
    kb_gpu_bnorm_split split;  /* bnorm: how the kernels cut p */
    void *ws;                  /* workspace on the device, NULL when none */
    size_t ws_bytes;
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

/* Device bytes a kernel needs beyond p's tensors. */
static size_t workspace_bytes(const kb_problem *p)
{
    if (p->kind != KB_BNORM)
        return 0;
    kb_gpu_bnorm_split s;
    KB_GPU(bnorm_split)(p, &s);
    return s.workspace_bytes;
}

/* Every tensor of p and the workspace, on the device; SIZE_MAX when the
 * sum overflows, as kb_problem_tensor_bytes does (a shape that size is
 * not split: its index arithmetic could overflow too). */
static size_t gpu_device_bytes(const kb_problem *p)
{
    size_t tensors = kb_problem_tensor_bytes(p), total;
    if (tensors == SIZE_MAX ||
        __builtin_add_overflow(tensors, workspace_bytes(p), &total))
        return SIZE_MAX;
    return total;
}

/* "a, b, c": the tunings compiled in, for describe() and --tuning's
 * error. */
static void tuning_names(char *dst, size_t len)
{
    dst[0] = '\0';
    for (int i = 0; i < KB_GPU(tuning_count)(); i++) {
        size_t n = strlen(dst);
        snprintf(dst + n, len - n, "%s%s", i ? ", " : "",
                 KB_GPU(tuning_at)(i)->name);
    }
}

static void gpu_release(void *plan)
{
    gpu_plan *g = plan;
    if (!g)
        return;
    KB_GPU(tensors_free)(&g->d);
    KB_GPU(free)(g->ws);
    free(g);
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
    g->t = chosen_tuning();
    g->launches = KB_GPU(plan_launches)(p);
    g->kernel = p->kind == KB_GEMM ? "tiled GEMM"
              : p->kind == KB_BNORM ? (p->dir == KB_FWD_I
                                           ? "bnorm inference"
                                           : "bnorm training (reduction)")
              : KB_GPU(conv_is_depthwise)(p) ? "direct depthwise"
                                             : "implicit GEMM";
    if (p->kind == KB_BNORM)
        KB_GPU(bnorm_split)(p, &g->split);
    g->ws_bytes = g->split.workspace_bytes;   /* 0 for the other kinds */
    char why[192];
    if (g->ws_bytes && KB_GPU(alloc)(&g->ws, g->ws_bytes, why,
                                     sizeof why) != 0) {
        snprintf(err, len, "workspace: %s", why);
        gpu_release(g);
        return -1;
    }
    if (KB_GPU(tensors_alloc)(p, host, ~0u, &g->d, err, len) != 0 ||
        KB_GPU(tensors_upload)(&g->d, true, err, len) != 0) {
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
        return KB_GPU(gemm)(g->p, g->t, g->d.dev, err, len);
    case KB_BNORM:
        return KB_GPU(bnorm_fwd)(g->p, g->d.dev, g->ws, err, len);
    case KB_CONV:
        if (KB_GPU(conv_is_depthwise)(g->p))
            return KB_GPU(conv_depthwise)(g->p, g->d.dev, err, len);
        return KB_GPU(conv_fwd)(g->p, g->t, g->d.dev, err, len);
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
    return KB_GPU(tensors_download)(&g->d, err, len);
}

static int gpu_write_input(void *plan, char *err, size_t len)
{
    gpu_plan *g = plan;
    return KB_GPU(tensors_upload)(&g->d, true, err, len);
}

static int gpu_configure(const kb_backend_config *cfg, char *err,
                         size_t len)
{
    if (KB_GPU(configure)(cfg, err, len) != 0)
        return -1;
    tuning = NULL;
    if (!cfg->tuning)
        return 0;
    for (int i = 0; i < KB_GPU(tuning_count)(); i++)
        if (strcmp(KB_GPU(tuning_at)(i)->name, cfg->tuning) == 0) {
            tuning = KB_GPU(tuning_at)(i);
            return 0;
        }
    char names[256];
    tuning_names(names, sizeof names);
    snprintf(err, len, "--tuning %s: %s has %s", cfg->tuning, KB_GPU_NAME,
             names);
    return -1;
}

static void gpu_describe(kb_info *info)
{
    kb_info_add(info, "kernels", "one CUDA C source (backends/gpu) built by "
#if defined(KB_GPU_HIP)
                "hipcc"
#elif defined(KB_GPU_SIM)
                "the host C++ compiler, run on the CPU (gpusim)"
#else
                "nvcc"
#endif
    );
    char names[256];
    tuning_names(names, sizeof names);
    kb_info_add(info, "tunings", "%s (default %s)", names,
                KB_GPU(tuning_at)(0)->name);
    if (tuning)
        kb_info_add(info, "tuning", "%s (--tuning)", tuning->name);
    KB_GPU(describe)(info);
}

static void gpu_plan_info(void *plan, kb_info *info)
{
    gpu_plan *g = plan;
    kb_info_add(info, "kernel", "%s", g->kernel);
    const kb_gpu_bnorm_split *s = &g->split;
    if (g->p->kind == KB_BNORM)
        kb_info_add(info, "block", "%d threads as %dx%d (channels x rows), "
                    "%d loads a thread in flight; a channel's rows in "
                    "%lldx%lld (parts x rows)", s->tx * s->ty, s->tx, s->ty,
                    s->rows, (long long)s->parts, (long long)s->part_rows);
    else if (g->p->kind == KB_CONV && KB_GPU(conv_is_depthwise)(g->p))
        kb_info_add(info, "block", "%d threads", KB_GPU_BNORM_THREADS);
    else
        kb_info_add(info, "tuning", "%s (block tile %dx%dx%d, thread tile "
                    "%dx%d)", g->t->name, g->t->bm, g->t->bn, g->t->bk,
                    g->t->tm, g->t->tn);
    if (g->ws_bytes)
        kb_info_add(info, "workspace", "%zu bytes (per channel and part: "
                    "sum, squared deviations)", g->ws_bytes);
    kb_info_add(info, "math", "%s FMA, no tensor cores",
                kb_dtype_name(g->p->dt.src));
    KB_GPU(timing_info)(g->launches, info);
}

const kb_backend KB_GPU_BACKEND = {
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
    .device_free = KB_GPU(device_free),
    .plan_info = gpu_plan_info,
#if defined(KB_GPU_SIM)
    .correctness_only = true,
#endif
};
