/* test_gpusim_ceilings.c - the GPU ceiling kernels (gpu_stream.cu,
 * gpu_fma.cu) on gpusim at small sizes: BabelStream's five kernels give
 * the results its check expects (checked by its own check kernel), and
 * the FMA kernels of every precision run and count some flops.  The mode
 * comes from KBENCH_GPUSIM_MODE (tests/backends/gpu/gpusim.cmake). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backends/gpu/gpu_registry.h"
#include "tests/check.h"

static const kb_gpu_runtime *sim(void)
{
    const kb_gpu_runtime *r = kb_gpu_runtime_find("gpusim");
    CHECK(r != NULL && r->correctness_only);
    return r;
}

/* 3 x 10000 fp64, two passes: more than one block, a partial last one */
static void test_stream(void)
{
    const kb_gpu_runtime *r = sim();
    kb_gpu_stream_result out[KB_GPU_STREAM_KERNELS];
    char err[512] = "";
    CHECK(r && r->select(0, err, sizeof err) == 0);
    int rc = r ? r->stream(10000, 2, out, err, sizeof err) : -1;
    if (rc != 0)
        fprintf(stderr, "stream: %s\n", err);
    CHECK(rc == 0);
    for (int k = 0; rc == 0 && k < KB_GPU_STREAM_KERNELS; k++)
        CHECK(out[k].name && out[k].gbps > 0 && isfinite(out[k].gbps));
}

static void test_fma(void)
{
    const kb_gpu_runtime *r = sim();
    kb_gpu_fma_result out[8];
    char err[512] = "";
    int n = r ? r->fma_peak(out, 8, err, sizeof err) : -1;
    if (n < 0)
        fprintf(stderr, "fma_peak: %s\n", err);
    CHECK(n == 4);   /* fp64, fp32, fp16 and bf16: the device has them all */
    for (int i = 0; i < n; i++) {
        printf("%s %s %.3g GFLOP/s (meaningless: simulated)\n",
               out[i].precision, out[i].kernel, out[i].gflops);
        CHECK(out[i].gflops > 0 && isfinite(out[i].gflops));
    }
}

static const check_test tests[] = {CHECK_TEST(stream), CHECK_TEST(fma),
                                   CHECK_END};

int main(int argc, char **argv)
{
    return check_main(argc, argv, tests);
}
