/* test_omp_direct.c - the direct convolution's tile loop
 * (backends/omp/omp_conv_direct.c) against plain loops, on integer data
 * (every sum exact in f32), with its cache budget small enough that the
 * reduction is cut into several slices and the column tiles into several
 * blocks: the paths the catalog layers take but the edge shapes of
 * backend_omp are too small to reach.  Each case is one layout of the
 * tile loop's operands, not a convolution: off[] is random. */
#include <stdint.h>
#include <stdlib.h>

#include "backends/omp/omp_kernels.h"
#include "kernels/random.h"
#include "tests/check.h"

enum { NR = KB_OMP_NR };

/* A small integer in [-4, 4] from kbench's generator. */
static float small_int(uint64_t *state)
{
    return (float)((int)(kb_splitmix64(state) % 9) - 4);
}

/* Runs the loop on random operands of these sizes and compares every
 * output element, and that no element past the output was written. */
static void check_direct(int64_t m, int64_t k, int64_t od, int64_t oh,
                         int64_t ow, int64_t rows, int64_t row_w,
                         int64_t img_elems, int64_t reread_bytes,
                         bool bias, int nthreads)
{
    uint64_t state = 42;
    kb_omp_direct_args a = {
        .img_elems = img_elems, .m = m, .k = k, .od = od, .oh = oh,
        .ow = ow, .rows = rows, .row_w = row_w,
        .reread_bytes = reread_bytes,
    };
    int64_t cols = kb_omp_direct_cols(&a), out_px = od * oh * ow;
    float *img = malloc((size_t)(img_elems + NR) * sizeof(float));
    int64_t *off = malloc((size_t)k * sizeof(int64_t));
    float *wei = malloc((size_t)(m * k) * sizeof(float));
    float *b = malloc((size_t)m * sizeof(float));
    float *dst = malloc((size_t)(m * out_px + 1) * sizeof(float));
    for (int64_t i = 0; i < img_elems + NR; i++)
        img[i] = small_int(&state);
    for (int64_t i = 0; i < k; i++)
        off[i] = (int64_t)(kb_splitmix64(&state) %
                           (uint64_t)(img_elems - cols + 1));
    for (int64_t i = 0; i < m * k; i++)
        wei[i] = small_int(&state);
    for (int64_t i = 0; i < m; i++)
        b[i] = small_int(&state);
    for (int64_t i = 0; i <= m * out_px; i++)
        dst[i] = 1e30f;   /* poison: every output must be written */
    a.img = img, a.off = off, a.wei = wei, a.bias = bias ? b : NULL,
    a.dst = dst, a.dst_cs = out_px;

    kb_omp_conv_direct(&a, nthreads);

    long bad = 0;
    for (int64_t i = 0; i < m; i++)
        for (int64_t z = 0; z < od; z++)
            for (int64_t y = 0; y < oh; y++)
                for (int64_t x = 0; x < ow; x++) {
                    int64_t j = (z * rows + y) * row_w + x;
                    double want = bias ? b[i] : 0.0;
                    for (int64_t t = 0; t < k; t++)
                        want += (double)wei[i * k + t] * img[off[t] + j];
                    float got = dst[i * out_px + (z * oh + y) * ow + x];
                    if (got != (float)want && bad++ < 3)
                        fprintf(stderr, "m%lld k%lld: dst[%lld][%lld,%lld,%lld] "
                                "= %g, expected %g\n", (long long)m,
                                (long long)k, (long long)i, (long long)z,
                                (long long)y, (long long)x, got, want);
                }
    CHECK(bad == 0);
    CHECK(dst[m * out_px] == 1e30f);
    free(img), free(off), free(wei), free(b), free(dst);
}

/* the weights bigger: row blocks split among the threads, the image
 * read again, in 5 slices (a 4 KB budget of a 20 KB image) */
static void test_rows_outer_sliced(void)
{
    check_direct(64, 900, 1, 9, 11, 11, 13, 5000, 4096, true, 2);
    check_direct(64, 900, 1, 9, 11, 11, 13, 5000, 4096, false, 1);
}

/* the image bigger: column blocks of 4 tiles (4 KB of 8-row sums) split
 * among the threads, the weights read again in 3 slices */
static void test_cols_outer_blocked(void)
{
    check_direct(8, 300, 2, 7, 40, 9, 42, 60000, 4096, true, 2);
    check_direct(8, 300, 2, 7, 40, 9, 42, 60000, 4096, false, 3);
}

/* no slicing, one block: the budget above everything */
static void test_unsliced(void)
{
    check_direct(16, 27, 3, 5, 6, 7, 8, 4000, 1 << 20, true, 2);
}

static const check_test tests[] = {
    CHECK_TEST(rows_outer_sliced), CHECK_TEST(cols_outer_blocked),
    CHECK_TEST(unsliced), CHECK_END};

int main(int argc, char **argv)
{
    return check_main(argc, argv, tests);
}
