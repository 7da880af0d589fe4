/* vendor_gemm.c - one square GEMM through the backend interface, timed:
 * the vendor-achievable ("matrix-unit") ceiling of `kbench peaks`, for
 * the GPUs (gpu_peaks.c) and the CPU (cpu_gemm_peaks.c) alike. */
#include "drivers/common/clock.h"
#include "machine/machine.h"

#include "backends/backend.h"
#include "kernels/tensors.h"
#include "reference/reference.h"

#include <stdio.h>

int kb_vendor_gemm_gflops(const struct kb_backend *b, kb_dtype dt, int size, int reps,
                          double *gflops, char *why, size_t len)
{
    kb_settings set;
    kb_settings_default(&set);
    set.dt = (kb_dts)KB_DTS_INIT(dt);
    set.fpmath = KB_FPMATH_STRICT;
    char desc[64];
    kb_problem p;
    snprintf(desc, sizeof desc, "m%dn%dk%d", size, size, size);
    if (kb_problem_parse(desc, &set, &p, why, len) != 0)
        return -1;
    if (!b->supports(&p, why, len))
        return 0;
    uint64_t free_bytes = 0;
    size_t need = b->device_bytes ? b->device_bytes(&p) : kb_problem_tensor_bytes(&p);
    if (b->device_free && b->device_free(&free_bytes, why, len) == 0 && need > free_bytes) {
        snprintf(why, len, "%s needs %.2f GiB of device memory, %.2f GiB free", desc,
                 need / 1073741824.0, free_bytes / 1073741824.0);
        return 0;
    }
    kb_tensors t;
    if (kb_tensors_alloc(&p, &t) != 0) {
        snprintf(why, len, "%s: out of host memory for its %.2f GiB of tensors", desc,
                 kb_problem_tensor_bytes(&p) / 1073741824.0);
        return -1;
    }
    kb_fill_inputs(&p, &t, KB_FILL_RANDOM, 1);
    void *plan = NULL;
    int rc = -1;
    if (b->prepare(&p, &t, &plan, why, len) != 0)
        goto out;
    double best = 0;
    for (int r = 0; r <= reps; r++) {
        double elapsed = -1, t0 = kb_now();
        if (b->run(plan, &elapsed, why, len) != 0)
            goto out;
        if (elapsed < 0)   /* run() is synchronous: the host clock is fine */
            elapsed = kb_now() - t0;
        if (r > 0 && elapsed > 0 && (best == 0 || elapsed < best))
            best = elapsed;   /* run 0 warms up */
    }
    if (!(best > 0)) {
        snprintf(why, len, "%s: every run timed at 0 s", desc);
        goto out;
    }
    *gflops = kb_problem_flops(&p) / best * 1e-9;
    rc = 1;
out:
    if (plan)
        b->release(plan);
    kb_tensors_free(&t);
    return rc;
}

