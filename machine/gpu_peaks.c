/* gpu_peaks.c - the GPU half of `kbench peaks`: for each visible device of
 * each runtime built in (kb_gpu_runtime), device-memory bandwidth
 * (BabelStream's five kernels), the FMA peak per precision, the vendor
 * GEMM's best large shape per precision through the backend interface
 * (the matrix-unit, "vendor-achievable" ceiling), and the theoretical
 * figures from the device's attributes and gpu_arch.conf. */
#include "machine/machine.h"

#include "backends/backend.h"
#include "backends/gpu/gpu_registry.h"
#include "kernels/data_dir.h"

#include <math.h>
#include <string.h>

/* BabelStream's default of 100 passes; each is a few ms on HBM. */
#define STREAM_PASSES 100
#define STREAM_PASSES_QUICK 3
#define MAX_FMA 8

/* The precisions of the matrix-unit ceiling.  f32 is strict (no TF32):
 * placement has no tf32 level (kb_roofline_precision), so a TF32 GEMM
 * would only raise the fp32 roof above what strict fp32 can reach. */
static const struct {
    kb_dtype dt;
    const char *level;
} gemm_precisions[] = {
    {KB_F64, "fp64"}, {KB_F32, "fp32"}, {KB_BF16, "bf16"}, {KB_F16, "fp16"}};

/* Square shapes, large enough for the library's best kernels. */
static const int gemm_shapes[] = {4096, 8192};
static const int gemm_shapes_quick[] = {1024};
#define GEMM_REPS 5
#define GEMM_REPS_QUICK 2

size_t kb_gpu_stream_elements(double l2_bytes, bool quick)
{
    if (quick)
        return (size_t)1 << 20;
    size_t n = (size_t)1 << 28;
    double rule = 4.0 * l2_bytes / sizeof(double);
    return rule > (double)n ? (size_t)ceil(rule) : n;
}

/* The device entry's identity, from the runtime's attributes. */
static void fill_identity(kb_device *d, const kb_gpu_runtime *r,
                          const kb_gpu_props *p)
{
    snprintf(d->kind, sizeof d->kind, "%s", r->name);
    snprintf(d->model, sizeof d->model, "%s", p->name);
    d->have_gpu = true;
    d->index = p->index;
    snprintf(d->uuid, sizeof d->uuid, "%s", p->uuid);
    snprintf(d->pci_bus_id, sizeof d->pci_bus_id, "%s", p->pci_bus_id);
    snprintf(d->arch, sizeof d->arch, "%s", p->arch);
    d->sm_count = p->sm_count;
    d->clock_ghz = p->clock_ghz;
    d->memory_bytes = (double)p->mem_bytes;
    d->ecc = p->ecc;
    snprintf(d->driver, sizeof d->driver, "%s", p->driver);
    d->cache_bytes[1] = p->l2_bytes > 0 ? (double)p->l2_bytes : 0;
    snprintf(d->clock_source, sizeof d->clock_source, "device attribute");
}

/* The architecture's row, or have = false with why. */
typedef struct {
    bool have;
    kb_gpu_arch a;
    char why[384];
} arch_row;

static void find_arch(const kb_gpu_props *p, arch_row *row)
{
    char path[4096], why[sizeof row->why];
    memset(row, 0, sizeof *row);
    if (kb_data_path("peaks/gpu_arch.conf", path, sizeof path, why, sizeof why) != 0) {
        snprintf(row->why, sizeof row->why, "no GPU architecture table: %.300s", why);
        return;
    }
    int rc = kb_gpu_arch_lookup(path, p->arch, p->name, &row->a, why, sizeof why);
    row->have = rc == 1;
    if (rc < 0)
        snprintf(row->why, sizeof row->why, "unreadable GPU architecture table: %.300s",
                 why);
    else if (rc == 0)
        snprintf(row->why, sizeof row->why, "%s", why);
}

/* A compute ceiling with its theoretical figure, or the reason for none;
 * FLOP/cycle per SM at the device's peak clock beside it.  Returns the
 * entry, or NULL when d is full. */
static kb_ceiling *add_compute(kb_device *d, const arch_row *row, bool matrix,
                               const char *kernel, const char *level, double gflops)
{
    kb_ceiling *c = kb_device_add_ceiling(d, KB_CEIL_COMPUTE, kernel, level, gflops, 0);
    if (!c)
        return NULL;
    c->cores_used = d->sm_count;
    c->clock_ghz = d->clock_ghz;
    if (d->sm_count > 0 && d->clock_ghz > 0)
        c->flop_per_cycle_core = gflops / (d->clock_ghz * d->sm_count);
    if (!row->have) {
        snprintf(c->note, sizeof c->note, "%.*s", (int)sizeof c->note - 1, row->why);
        return c;
    }
    c->theoretical = kb_gpu_arch_peak(&row->a, matrix, level, d->sm_count,
                                      d->clock_ghz, c->note, sizeof c->note);
    if (c->theoretical > 0)
        c->peak_flop_per_cycle_core = c->theoretical / (d->clock_ghz * d->sm_count);
    return c;
}

/* BabelStream's kernels; theoretical = the datasheet bandwidth when the
 * table has one, else memory clock x 2 (DDR) x bus width / 8; the note
 * states both.  Returns 0, or -1 after a message. */
static int add_stream(kb_device *d, const kb_gpu_runtime *r, const kb_gpu_props *p,
                      const arch_row *row, bool quick, FILE *out)
{
    size_t n = kb_gpu_stream_elements(d->cache_bytes[1], quick);
    int passes = quick ? STREAM_PASSES_QUICK : STREAM_PASSES;
    kb_gpu_stream_result s[KB_GPU_STREAM_KERNELS];
    char err[512];
    if (quick)
        fprintf(out, "%s device %d: --quick: arrays of 2^20 fp64, not under the "
                "sizing rule (each array >= 4 x the L2)\n", r->name, d->index);
    if (r->stream(n, passes, s, err, sizeof err) != 0) {
        fprintf(stderr, "kbench peaks: %s device %d: %s\n", r->name, d->index, err);
        return -1;
    }
    double attr = p->mem_clock_ghz * 2 * p->mem_bus_bits / 8;
    double sheet = row->have ? row->a.dram_gbps : 0;
    char note[256];
    if (attr > 0)
        snprintf(note, sizeof note, "%.0f GB/s from the device (memory clock %.3f GHz x 2 x "
                 "%d-bit bus / 8)", attr, p->mem_clock_ghz, p->mem_bus_bits);
    else
        snprintf(note, sizeof note, "the device reports no memory clock or bus width");
    size_t at = strlen(note);
    if (sheet > 0)
        snprintf(note + at, sizeof note - at, "; %.0f GB/s datasheet (gpu_arch.conf, "
                 "taken as theoretical)", sheet);
    else
        snprintf(note + at, sizeof note - at, "; no datasheet figure (%.*s)",
                 (int)(sizeof note - at), row->have ? "gpu_arch.conf gives none for "
                 "this device" : row->why);
    for (int k = 0; k < KB_GPU_STREAM_KERNELS; k++) {
        char kernel[48];
        snprintf(kernel, sizeof kernel, "gpu-stream-%s", s[k].name);
        kb_ceiling *c = kb_device_add_ceiling(d, KB_CEIL_MEMORY, kernel, "DRAM", s[k].gbps,
                                              sheet > 0 ? sheet : attr);
        if (!c)
            return -1;
        /* 2 GiB per array against an L2 of at most ~100 MB */
        c->stream_rule = !quick && (double)n * sizeof(double) >= 4 * d->cache_bytes[1];
        snprintf(c->note, sizeof c->note, "%s", note);
        fprintf(out, "%s device %d: %-16s best %9.1f GB/s; pass min/avg/max %.3f/%.3f/%.3f "
                "ms (%d passes after an untimed first, %zu fp64 per array)\n", r->name,
                d->index, kernel, s[k].gbps, s[k].min_s * 1e3, s[k].avg_s * 1e3,
                s[k].max_s * 1e3, passes - 1, n);
    }
    return 0;
}

static int add_fma(kb_device *d, const kb_gpu_runtime *r, const arch_row *row)
{
    kb_gpu_fma_result f[MAX_FMA];
    char err[512];
    int n = r->fma_peak(f, MAX_FMA, err, sizeof err);
    if (n < 0) {
        fprintf(stderr, "kbench peaks: %s device %d: %s\n", r->name, d->index, err);
        return -1;
    }
    for (int i = 0; i < n; i++)
        if (!add_compute(d, row, false, f[i].kernel, f[i].precision, f[i].gflops))
            return -1;
    return 0;
}

/* The vendor GEMM of runtime r, from the registry: the first backend of
 * kind "vendor" on r's device that, configured for the device, supports
 * an f32 GEMM (one that cannot be configured is returned as it is, for
 * the caller's configure to report).  NULL when none is built. */
static const kb_backend *vendor_gemm(const kb_gpu_runtime *r,
                                     const kb_backend_config *cfg)
{
    kb_settings set;
    kb_problem p;
    char why[256];
    kb_settings_default(&set);
    if (kb_problem_parse("m1024n1024k1024", &set, &p, why, sizeof why) != 0)
        return NULL;
    for (int i = 0; i < kb_backend_count(); i++) {
        const kb_backend *b = kb_backend_at(i);
        if (strcmp(b->kind, "vendor") != 0 || strcmp(b->device, r->name) != 0)
            continue;
        if (b->configure && b->configure(cfg, why, sizeof why) != 0)
            return b;
        if (b->supports(&p, why, sizeof why))
            return b;
    }
    return NULL;
}

/* The matrix-unit ceilings: per precision the best of the shapes.
 * Returns 0, or -1 after a message. */
static int add_vendor_gemm(kb_device *d, const kb_gpu_runtime *r, const arch_row *row,
                           bool quick, FILE *out)
{
    char why[512];
    kb_backend_config cfg = {.device = d->index, .tuning = NULL, .launches = 1,
                             .flush_l2 = false};
    const kb_backend *b = vendor_gemm(r, &cfg);
    if (!b) {
        fprintf(out, "%s device %d: no vendor GEMM backend built for %s: no "
                "matrix-unit (vendor GEMM) ceiling\n", r->name, d->index, r->name);
        return 0;
    }
    const char *name = b->name;
    if (b->configure && b->configure(&cfg, why, sizeof why) != 0) {
        fprintf(stderr, "kbench peaks: %s device %d: %s: %s\n", r->name, d->index, name, why);
        return -1;
    }
    const int *shapes = quick ? gemm_shapes_quick : gemm_shapes;
    int nshapes = quick ? (int)(sizeof gemm_shapes_quick / sizeof gemm_shapes_quick[0])
                        : (int)(sizeof gemm_shapes / sizeof gemm_shapes[0]);
    int rc = 0;
    char kernel[48];
    snprintf(kernel, sizeof kernel, "%s-gemm", name);
    for (size_t i = 0; i < sizeof gemm_precisions / sizeof gemm_precisions[0]; i++) {
        double best = 0;
        int best_size = 0;
        for (int s = 0; s < nshapes; s++) {
            double g = 0;
            int got = kb_vendor_gemm_gflops(b, gemm_precisions[i].dt, shapes[s],
                                 quick ? GEMM_REPS_QUICK : GEMM_REPS, &g, why, sizeof why);
            if (got < 0) {
                fprintf(stderr, "kbench peaks: %s device %d: %s %s: %s\n", r->name,
                        d->index, kernel, gemm_precisions[i].level, why);
                rc = -1;
            } else if (got == 0) {
                fprintf(out, "%s device %d: %s %s %d^3 skipped: %s\n", r->name, d->index,
                        kernel, gemm_precisions[i].level, shapes[s], why);
            } else if (g > best) {
                best = g;
                best_size = shapes[s];
            }
        }
        if (best == 0)
            continue;
        if (!add_compute(d, row, true, kernel, gemm_precisions[i].level, best))
            return -1;
        fprintf(out, "%s device %d: %s %s best %.1f GFLOP/s at m=n=k=%d\n", r->name,
                d->index, kernel, gemm_precisions[i].level, best, best_size);
    }
    return rc;
}

/* One device: select it, read its identity, measure.  Returns 0, or -1
 * when something failed (after a message). */
static int measure_device(kb_device *d, const kb_gpu_runtime *r, int index, bool quick,
                          FILE *out)
{
    kb_gpu_props p;
    char err[512];
    if (r->select(index, err, sizeof err) != 0 || r->props(index, &p, err, sizeof err) != 0) {
        fprintf(stderr, "kbench peaks: %s device %d: %s\n", r->name, index, err);
        return -1;
    }
    fill_identity(d, r, &p);
    arch_row row;
    find_arch(&p, &row);
    int rc = 0;
    if (add_stream(d, r, &p, &row, quick, out) != 0)
        rc = -1;
    if (add_fma(d, r, &row) != 0)
        rc = -1;
    if (add_vendor_gemm(d, r, &row, quick, out) != 0)
        rc = -1;
    return rc;
}

int kb_gpu_peaks(kb_ceilings *c, bool quick, FILE *out)
{
    int rc = 0;
    int measurable = 0;   /* gpusim's simulated device has no ceilings */
    for (int i = 0; i < kb_gpu_runtime_count(); i++)
        measurable += !kb_gpu_runtime_at(i)->correctness_only;
    if (measurable == 0)
        fprintf(out, "no CUDA or HIP runtime built in (KBENCH_CUDA, KBENCH_HIP): "
                "GPU ceilings skipped\n");
    for (int i = 0; i < kb_gpu_runtime_count(); i++) {
        const kb_gpu_runtime *r = kb_gpu_runtime_at(i);
        if (r->correctness_only) {
            fprintf(out, "%s: a simulated device, for correctness only: no "
                    "ceilings\n", r->name);
            continue;
        }
        char why[256] = "";
        int n = r->device_count(why, sizeof why);
        if (n == 0) {
            fprintf(out, "%s: GPU ceilings skipped\n", why);
            continue;
        }
        for (int dev = 0; dev < n; dev++) {
            if (c->ndevices >= KB_MAX_DEVICES) {
                fprintf(stderr, "kbench peaks: %s device %d and later: the ceilings file "
                        "holds at most %d devices\n", r->name, dev, KB_MAX_DEVICES);
                return -1;
            }
            kb_device *d = &c->devices[c->ndevices];
            memset(d, 0, sizeof *d);
            if (measure_device(d, r, dev, quick, out) != 0)
                rc = -1;
            if (d->have_gpu)   /* its identity was read: keep what it measured */
                c->ndevices++;
        }
    }
    return rc;
}
