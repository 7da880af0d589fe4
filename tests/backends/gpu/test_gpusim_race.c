/* test_gpusim_race.c - gpusim finds a missing barrier.  Linked with a
 * GEMM whose tile engine lost its "step 0 in buffer 0" __syncthreads
 * (a copy of gpu_tile.cuh made by tests/backends/gpu/gpusim.cmake):
 *
 *   ordered mode: the threads of a block run one after another up to each
 *   barrier, so a thread reads the shared tile before the later threads
 *   have written their part: wrong results, the same every run.  Exits 0
 *   when C is wrong (the bug is seen), 1 when it is right.
 *
 *   threads mode: the result may be right or wrong; under
 *   ThreadSanitizer (the gpusim-tsan preset) the race is reported, which
 *   is what that test looks for.  Exits 0 either way. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/gpu/gpu_kernels.h"

int main(void)
{
    gpusim_mode mode;
    int warp;
    char err[512];
    if (gpusim_settings(&mode, &warp, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    kb_settings s;
    kb_problem p;
    kb_settings_default(&s);
    if (kb_problem_parse("m64n64k64", &s, &p, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    const int n = 64;
    float *a = malloc(sizeof(float) * n * n), *b = malloc(sizeof(float) * n * n),
          *c = malloc(sizeof(float) * n * n);
    if (!a || !b || !c)
        return 2;
    for (int i = 0; i < n * n; i++) {   /* small integers: exact sums */
        a[i] = (float)(i % 7 - 3);
        b[i] = (float)(i % 5 - 2);
        c[i] = -1.0f;
    }
    void *arg[KB_ARG_MAX] = {0};
    arg[KB_ARG_SRC] = a;   /* gpusim's device memory is host memory */
    arg[KB_ARG_WEI] = b;
    arg[KB_ARG_DST] = c;
    if (kb_gpusim_gemm(&p, kb_gpusim_tuning_at(0), arg, err, sizeof err) != 0) {
        fprintf(stderr, "gemm: %s\n", err);
        return 2;
    }
    long wrong = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            float want = 0;
            for (int k = 0; k < n; k++)
                want += a[i * n + k] * b[k * n + j];
            wrong += c[i * n + j] != want;
        }
    printf("%s mode: %ld of %d elements of C wrong with the barrier "
           "removed\n", gpusim_mode_name(mode), wrong, n * n);
    free(a), free(b), free(c);
    if (mode == GPUSIM_ORDERED && wrong == 0) {
        fprintf(stderr, "FAIL: ordered mode did not show the missing "
                        "barrier\n");
        return 1;
    }
    return 0;
}
