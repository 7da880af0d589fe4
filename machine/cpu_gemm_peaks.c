/* cpu_gemm_peaks.c - the CPU's vendor-GEMM ceilings: each vendor
 * library's best large GEMM per precision, through the backend interface,
 * as the GPUs have theirs (gpu_peaks.c).  A library that beats the FMA
 * ceiling shows that the FMA ceiling is wrong (kb_device_check_fma). */
#include "machine/machine.h"

#include "backends/backend.h"

#include <math.h>
#include <omp.h>
#include <string.h>

static const struct {
    kb_dtype dt;
    const char *level;
} precisions[] = {{KB_F64, "fp64"}, {KB_F32, "fp32"}, {KB_BF16, "bf16"}, {KB_F16, "fp16"}};

/* One GEMM of about this many seconds at the FMA ceiling: large enough
 * for the libraries' best blocking, short enough for a 2-core machine. */
#define GEMM_TARGET_S 0.25
#define GEMM_MIN 1024
#define GEMM_MAX 8192
#define GEMM_QUICK 512
#define GEMM_REPS 3

/* m=n=k for level: 2 n^3 flops in GEMM_TARGET_S at the FMA ceiling of the
 * level (else fp32's), a multiple of 256 within [GEMM_MIN, GEMM_MAX]. */
static int gemm_size(const kb_device *d, const char *level)
{
    const kb_ceiling *fma = NULL;
    for (int i = 0; i < d->nceilings; i++) {
        const kb_ceiling *c = &d->ceilings[i];
        if (c->kind == KB_CEIL_COMPUTE && !c->vendor_gemm &&
            (strcmp(c->level, level) == 0 || (!fma && strcmp(c->level, "fp32") == 0)))
            fma = c;
    }
    double n = fma ? cbrt(GEMM_TARGET_S * fma->value * 1e9 / 2) : GEMM_MIN;
    int size = (int)(n / 256) * 256;
    return size < GEMM_MIN ? GEMM_MIN : size > GEMM_MAX ? GEMM_MAX : size;
}

int kb_cpu_vendor_gemm(kb_device *d, bool quick, FILE *out)
{
    int rc = 0, found = 0;
    if (d->threads > 0)
        omp_set_num_threads(d->threads);   /* oneDNN's team is OpenMP's */
    for (int i = 0; i < kb_backend_count(); i++) {
        const kb_backend *b = kb_backend_at(i);
        char why[512], kernel[48];
        if (strcmp(b->kind, "vendor") != 0 || strcmp(b->device, "cpu") != 0)
            continue;
        kb_backend_config cfg = {.device = 0, .tuning = NULL, .launches = 1,
                                 .flush_l2 = false};
        if (b->configure && b->configure(&cfg, why, sizeof why) != 0) {
            fprintf(stderr, "kbench peaks: %s: %s\n", b->name, why);
            rc = -1;
            continue;
        }
        /* as many threads as the FMA ceiling had: OpenBLAS would
         * otherwise take every core (128.8 against a 1-thread 66.7 seen) */
        if (b->set_threads && d->threads > 0)
            b->set_threads(d->threads);
        snprintf(kernel, sizeof kernel, "%s-gemm", b->name);
        for (size_t p = 0; p < sizeof precisions / sizeof precisions[0]; p++) {
            int size = quick ? GEMM_QUICK : gemm_size(d, precisions[p].level);
            double g = 0;
            int got = kb_vendor_gemm_gflops(b, precisions[p].dt, size, GEMM_REPS, &g, why,
                                            sizeof why);
            if (got < 0) {
                fprintf(stderr, "kbench peaks: %s %s: %s\n", kernel, precisions[p].level, why);
                rc = -1;
                continue;
            }
            if (got == 0)
                continue;   /* the library has no such GEMM: not a ceiling */
            kb_ceiling *c = kb_device_add_ceiling(d, KB_CEIL_COMPUTE, kernel,
                                                  precisions[p].level, g, 0);
            if (!c) {
                fprintf(stderr, "kbench peaks: more than %d ceilings\n", KB_MAX_CEILINGS);
                return -1;
            }
            c->vendor_gemm = true;
            c->cores_used = d->cores < d->threads ? d->cores : d->threads;
            fprintf(out, "cpu: %s %s best %.1f GFLOP/s at m=n=k=%d\n", kernel,
                    precisions[p].level, g, size);
            found++;
        }
    }
    if (!found)
        fprintf(out, "cpu: no vendor GEMM built (openblas, onednn): no vendor-GEMM ceiling\n");
    return rc;
}
