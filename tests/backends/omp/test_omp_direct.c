/* test_omp_direct.c - the direct convolution's tile loop
 * (backends/omp/omp_conv_direct.c) against plain loops, on integer data
 * (every sum exact in f32), with its cache budget small enough that the
 * reduction is cut into several slices and the column tiles into several
 * blocks: the paths the catalog layers take but the edge shapes of
 * backend_omp are too small to reach.  Each case is one layout of the
 * tile loop's operands, not a convolution: off[] is random.  In f32, and
 * in bf16 pairs into f32 and bf16 dst. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/omp/omp_kernels.h"
#include "kernels/random.h"
#include "tests/check.h"

enum { NR = KB_OMP_NR };

/* A small integer in [-4, 4] from kbench's generator. */
static float small_int(uint64_t *state)
{
    return (float)((int)(kb_splitmix64(state) % 9) - 4);
}

/* The operands' words: an f32 value, or a pair of bf16 values (low,
 * high), each a small integer (exact in bf16); v gives the word's value
 * times another word's (the dot product of the pairs). */
typedef struct {
    bool pairs;
    kb_dtype dst_dt;
    bool part;   /* partial sums outside dst (a 16-bit dst's slices) */
} direct_format;

static uint32_t random_word(const direct_format *f, uint64_t *state)
{
    if (!f->pairs) {
        float x = small_int(state);
        uint32_t w;
        memcpy(&w, &x, sizeof w);
        return w;
    }
    return kb_f32_to_bf16(small_int(state)) |
           (uint32_t)kb_f32_to_bf16(small_int(state)) << 16;
}

static double word_product(const direct_format *f, uint32_t a, uint32_t b)
{
    if (!f->pairs) {
        float x, y;
        memcpy(&x, &a, sizeof x);
        memcpy(&y, &b, sizeof y);
        return (double)x * y;
    }
    return (double)kb_bf16_to_f32(a & 0xffff) * kb_bf16_to_f32(b & 0xffff) +
           (double)kb_bf16_to_f32(a >> 16) * kb_bf16_to_f32(b >> 16);
}

/* dst element i as f32. */
static float dst_value(kb_dtype dt, const void *dst, int64_t i)
{
    return dt == KB_F32 ? ((const float *)dst)[i]
                        : kb_bf16_to_f32(((const uint16_t *)dst)[i]);
}

/* v as dt stores it. */
static float rounded(kb_dtype dt, float v)
{
    return dt == KB_F32 ? v : kb_bf16_to_f32(kb_f32_to_bf16(v));
}

/* Runs the loop on random operands of these sizes and compares every
 * output element (rounded as dst is stored), and that no element past
 * the output was written. */
static void check_direct(const direct_format *f, int64_t m, int64_t k,
                         int64_t od, int64_t oh, int64_t ow, int64_t rows,
                         int64_t row_w, int64_t plane_gap, int64_t img_elems,
                         int64_t reread_bytes, bool bias, int nthreads)
{
    uint64_t state = 42;
    kb_omp_direct_args a = {
        .img_elems = img_elems, .m = m, .k = k, .od = od, .oh = oh,
        .ow = ow, .rows = rows, .row_w = row_w, .plane_gap = plane_gap,
        .dst_dt = f->dst_dt,
        .reread_bytes = reread_bytes,
        .kernel = f->pairs ? kb_omp_ukernel_for(KB_BF16, KB_BF16)->direct
                           : NULL,
    };
    int64_t cols = kb_omp_direct_cols(&a), out_px = od * oh * ow;
    int64_t span = cols + (od - 1) * plane_gap;   /* the words B's rows span */
    size_t es = kb_dtype_size(f->dst_dt);
    uint32_t *img = malloc((size_t)(img_elems + NR) * sizeof(uint32_t));
    int64_t *off = malloc((size_t)k * sizeof(int64_t));
    uint32_t *wei = malloc((size_t)(m * k) * sizeof(uint32_t));
    float *b = malloc((size_t)m * sizeof(float));
    char *bias_st = malloc((size_t)m * es);   /* b stored as dst is */
    char *dst = malloc((size_t)(m * out_px + 1) * es);
    float *part = malloc((size_t)(m * out_px) * sizeof(float));
    for (int64_t i = 0; i < img_elems + NR; i++)
        img[i] = random_word(f, &state);
    for (int64_t i = 0; i < k; i++)
        off[i] = (int64_t)(kb_splitmix64(&state) %
                           (uint64_t)(img_elems - span + 1));
    for (int64_t i = 0; i < m * k; i++)
        wei[i] = random_word(f, &state);
    for (int64_t i = 0; i < m; i++)
        b[i] = small_int(&state);
    kb_omp_narrow(f->dst_dt, b, m, bias_st, 0);
    memset(dst, 0x7f, (size_t)(m * out_px + 1) * es);   /* poison */
    a.img = img, a.off = off, a.wei = wei, a.bias = bias ? bias_st : NULL,
    a.dst = dst, a.dst_cs = out_px, a.part = f->part ? part : NULL;

    kb_omp_conv_direct(&a, nthreads);

    long bad = 0;
    for (int64_t i = 0; i < m; i++)
        for (int64_t z = 0; z < od; z++)
            for (int64_t y = 0; y < oh; y++)
                for (int64_t x = 0; x < ow; x++) {
                    int64_t j = (z * rows + y) * row_w + x + z * plane_gap;
                    double want = bias ? b[i] : 0.0;
                    for (int64_t t = 0; t < k; t++)
                        want += word_product(f, wei[i * k + t], img[off[t] + j]);
                    /* (float)want is exact: small integers */
                    int64_t o = i * out_px + (z * oh + y) * ow + x;
                    float got = dst_value(f->dst_dt, dst, o);
                    if (got != rounded(f->dst_dt, (float)want) && bad++ < 3)
                        fprintf(stderr, "m%lld k%lld: dst[%lld][%lld,%lld,%lld] "
                                "= %g, expected %g\n", (long long)m,
                                (long long)k, (long long)i, (long long)z,
                                (long long)y, (long long)x, got, want);
                }
    CHECK(bad == 0);
    const char *past = dst + (size_t)(m * out_px) * es;
    CHECK(past[0] == 0x7f && past[es - 1] == 0x7f);
    free(img), free(off), free(wei), free(b), free(bias_st), free(dst),
        free(part);
}

/* The formats: f32; bf16 pairs into f32, and into bf16 with its partial
 * sums in part or, without part, in one slice. */
static const direct_format f32 = { false, KB_F32, false };
static const direct_format pairs_f32 = { true, KB_F32, false };
static const direct_format pairs_bf16 = { true, KB_BF16, true };
static const direct_format pairs_bf16_unsliced = { true, KB_BF16, false };

/* the weights bigger: row blocks split among the threads, the image
 * read again, in 5 slices (a 4 KB budget of a 20 KB image) */
static void test_rows_outer_sliced(void)
{
    check_direct(&f32, 64, 900, 1, 9, 11, 11, 13, 0, 5000, 4096, true, 2);
    check_direct(&f32, 64, 900, 1, 9, 11, 11, 13, 0, 5000, 4096, false, 1);
}

/* the image bigger: column blocks of 4 tiles (4 KB of 8-row sums) split
 * among the threads, the weights read again in 3 slices */
static void test_cols_outer_blocked(void)
{
    check_direct(&f32, 8, 300, 2, 7, 40, 9, 42, 0, 60000, 4096, true, 2);
    check_direct(&f32, 8, 300, 2, 7, 40, 9, 42, 0, 60000, 4096, false, 3);
}

/* no slicing, one block: the budget above everything */
static void test_unsliced(void)
{
    check_direct(&f32, 16, 27, 3, 5, 6, 7, 8, 0, 4000, 1 << 20, true, 2);
}

/* The same loops on bf16 pairs, with the CPU's direct kernel for them
 * (AVX512-BF16's), where the start-up choice has one. */
static void test_bf16_pairs(void)
{
    if (!kb_omp_ukernel_for(KB_BF16, KB_BF16)->direct)
        CHECK_SKIP("the bf16 micro-kernel chosen here (%s) has no direct "
                   "kernel", kb_omp_ukernel_for(KB_BF16, KB_BF16)->isa);
    const direct_format *fs[] = { &pairs_f32, &pairs_bf16,
                                  &pairs_bf16_unsliced };
    for (int i = 0; i < 3; i++) {
        check_direct(fs[i], 64, 450, 1, 9, 11, 11, 13, 0, 5000, 4096, true, 2);
        check_direct(fs[i], 8, 150, 2, 7, 40, 9, 42, 0, 60000, 4096, false, 3);
        check_direct(fs[i], 16, 27, 3, 5, 6, 7, 8, 0, 4000, 1 << 20, true, 2);
    }
}

/* planes of 2 tiles with 24 words between them (a ROW_TAPS copy's rows
 * past the output's), in f32 and, where the CPU has the kernel, pairs */
static void test_plane_gap(void)
{
    check_direct(&f32, 16, 100, 3, 4, 16, 4, 16, 24, 3000, 4096, true, 2);
    if (kb_omp_ukernel_for(KB_BF16, KB_BF16)->direct)
        check_direct(&pairs_bf16, 16, 100, 3, 4, 16, 4, 16, 24, 3000, 1024,
                     false, 2);
}

static const check_test tests[] = {
    CHECK_TEST(rows_outer_sliced), CHECK_TEST(cols_outer_blocked),
    CHECK_TEST(unsliced), CHECK_TEST(bf16_pairs), CHECK_TEST(plane_gap),
    CHECK_END};

int main(int argc, char **argv)
{
    return check_main(argc, argv, tests);
}
