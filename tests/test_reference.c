/* test_reference.c - the reference kernels against tiny cases computed by
 * hand (the arithmetic is in the comments). */
#include <stdlib.h>

#include "reference/reference.h"
#include "tests/check.h"

/* A 2D conv with one image, one group, unit strides, no padding or
 * dilation, f32 NCHW forward without bias; tests change what they need
 * and set the output sizes themselves. */
static kb_problem conv2d(int64_t ic, int64_t oc, int64_t ih, int64_t iw,
                         int64_t kh, int64_t kw, int64_t oh, int64_t ow)
{
    kb_problem p = {
        .kind = KB_CONV,
        .conv = {.ndims = 2, .mb = 1, .g = 1, .ic = ic, .oc = oc,
                 .id = 1, .ih = ih, .iw = iw, .od = 1, .oh = oh, .ow = ow,
                 .kd = 1, .kh = kh, .kw = kw, .sd = 1, .sh = 1, .sw = 1},
        .count = 1, .dt = KB_DTS_INIT(KB_F32), .layout = KB_LAYOUT_NCX, .dir = KB_FWD_D};
    return p;
}

/* Logical index of element number i in row-major order over a's dims. */
static void unravel(const kb_problem *p, kb_arg a, int64_t i, int64_t *idx)
{
    kb_arg_info info[KB_ARG_MAX];
    kb_problem_args(p, info);
    for (int d = info[a].ndims - 1; d >= 0; d--) {
        idx[d] = i % info[a].dims[d];
        i /= info[a].dims[d];
    }
}

static int64_t nelems(const kb_problem *p, kb_arg a)
{
    kb_arg_info info[KB_ARG_MAX];
    kb_problem_args(p, info);
    return info[a].nelems;
}

/* Set tensor a from values listed in logical row-major order. */
static void put(const kb_problem *p, kb_tensors *t, kb_arg a,
                const double *vals)
{
    int64_t idx[KB_MAX_DIMS];
    for (int64_t i = 0; i < nelems(p, a); i++) {
        unravel(p, a, i, idx);
        kb_store(p->dt.src, t->ptr[a], kb_arg_offset(p, a, idx), vals[i]);
    }
}

/* Logical element number i (row-major) of tensor a. */
static double get(const kb_problem *p, const kb_tensors *t, kb_arg a,
                  int64_t i)
{
    int64_t idx[KB_MAX_DIMS];
    unravel(p, a, i, idx);
    return kb_load(p->dt.src, t->ptr[a], kb_arg_offset(p, a, idx));
}

/* Allocate, set src/wei (and bias when given), poison, run the reference
 * and check dst against want (logical order, n values). */
static void run_conv(const kb_problem *p, const double *src, const double *wei,
                     const double *bia, const double *want, int n)
{
    kb_tensors t;
    CHECK(kb_tensors_alloc(p, &t) == 0);
    if (!t.ptr[KB_ARG_DST])
        return;
    CHECK(nelems(p, KB_ARG_DST) == n);
    put(p, &t, KB_ARG_SRC, src);
    put(p, &t, KB_ARG_WEI, wei);
    if (bia)
        put(p, &t, KB_ARG_BIA, bia);
    kb_poison_outputs(p, &t);
    kb_ref_run(p, &t, &t);
    for (int i = 0; i < n; i++)
        CHECK_NEAR(get(p, &t, KB_ARG_DST, i), want[i], 0.0);
    kb_tensors_free(&t);
}

/* src 3x3 = 1..9 row-major, wei 2x2 = [1 2; 3 4]. */
static const double src33[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
static const double wei22[4] = {1, 2, 3, 4};

static void test_conv_basic(void)
{
    /* dst[p,q] = s[p,q] + 2 s[p,q+1] + 3 s[p+1,q] + 4 s[p+1,q+1]:
     * [0,0] 1+4+12+20 = 37, [0,1] 2+6+15+24 = 47,
     * [1,0] 4+10+21+32 = 67, [1,1] 5+12+24+36 = 77. */
    kb_problem p = conv2d(1, 1, 3, 3, 2, 2, 2, 2);
    const double want[4] = {37, 47, 67, 77};
    run_conv(&p, src33, wei22, NULL, want, 4);
}

static void test_conv_bias(void)
{
    /* Same as basic plus bias 10. */
    kb_problem p = conv2d(1, 1, 3, 3, 2, 2, 2, 2);
    const double bia[1] = {10};
    const double want[4] = {47, 57, 77, 87};
    p.dir = KB_FWD_B;
    run_conv(&p, src33, wei22, bia, want, 4);
}

static void test_conv_padding(void)
{
    /* Pad 1: out 4x4 (3 + 2 - 2 + 1).  Row 0 sees input rows -1, 0:
     * [0,0] = s[0,0]*4 = 4; [0,1] = s[0,0]*3 + s[0,1]*4 = 3+8 = 11;
     * [0,2] = 2*3 + 3*4 = 18; [0,3] = s[0,2]*3 = 9.
     * Row 1 is the unpadded row 0 shifted: [1,0] = s[0,0]*2 + s[1,0]*4
     * = 2+16 = 18; [1,1] = 37; [1,2] = 47; [1,3] = s[0,2]*1 + s[1,2]*3
     * = 3+18 = 21.  Row 2: [2,0] = 4*2 + 7*4 = 36; 67; 77;
     * [2,3] = 6 + 27 = 33.  Row 3: [3,0] = 7*2 = 14; [3,1] = 7+16 = 23;
     * [3,2] = 8+18 = 26; [3,3] = 9. */
    kb_problem p = conv2d(1, 1, 3, 3, 2, 2, 4, 4);
    const double want[16] = {4,  11, 18, 9,  18, 37, 47, 21,
                             36, 67, 77, 33, 14, 23, 26, 9};
    p.conv.ph = p.conv.pw = 1;
    run_conv(&p, src33, wei22, NULL, want, 16);
}

static void test_conv_stride(void)
{
    /* Stride 2, pad 1: out 2x2 ((3 + 2 - 2) / 2 + 1).
     * [0,0]: rows -1,0 cols -1,0 -> s[0,0]*4 = 4
     * [0,1]: rows -1,0 cols 1,2 -> s[0,1]*3 + s[0,2]*4 = 6+12 = 18
     * [1,0]: rows 1,2 cols -1,0 -> s[1,0]*2 + s[2,0]*4 = 8+28 = 36
     * [1,1]: rows 1,2 cols 1,2 -> 5*1 + 6*2 + 8*3 + 9*4 = 77 */
    kb_problem p = conv2d(1, 1, 3, 3, 2, 2, 2, 2);
    const double want[4] = {4, 18, 36, 77};
    p.conv.sh = p.conv.sw = 2;
    p.conv.ph = p.conv.pw = 1;
    run_conv(&p, src33, wei22, NULL, want, 4);
}

static void test_conv_dilation(void)
{
    /* dh = dw = 1 (0-based: taps 2 apart), a 3x3 footprint, out 1x1:
     * s[0,0]*1 + s[0,2]*2 + s[2,0]*3 + s[2,2]*4 = 1+6+21+36 = 64 */
    kb_problem p = conv2d(1, 1, 3, 3, 2, 2, 1, 1);
    const double want[1] = {64};
    p.conv.dh = p.conv.dw = 1;
    run_conv(&p, src33, wei22, NULL, want, 1);
}

static void test_conv_groups(void)
{
    /* g = 2, ic 4, oc 2, 1x1 image and kernel.  src = [1,2,3,4],
     * wei[k][c] = [[1,10],[100,1000]].  Output 0 reads channels 0,1:
     * 1 + 20 = 21; output 1 reads channels 2,3: 300 + 4000 = 4300. */
    kb_problem p = conv2d(4, 2, 1, 1, 1, 1, 1, 1);
    const double src[4] = {1, 2, 3, 4};
    const double wei[4] = {1, 10, 100, 1000};
    const double want[2] = {21, 4300};
    p.conv.g = 2;
    run_conv(&p, src, wei, NULL, want, 2);
}

static void test_conv_depthwise(void)
{
    /* g = ic = oc = 3, 1x2 image, 1x2 kernel, out 1x1.
     * channel 0: [1,2].[1,1] = 3; 1: [3,4].[2,-1] = 2; 2: [5,6].[0,3] = 18 */
    kb_problem p = conv2d(3, 3, 1, 2, 1, 2, 1, 1);
    const double src[6] = {1, 2, 3, 4, 5, 6};
    const double wei[6] = {1, 1, 2, -1, 0, 3};
    const double want[3] = {3, 2, 18};
    p.conv.g = 3;
    run_conv(&p, src, wei, NULL, want, 3);
}

static void test_conv_3d(void)
{
    /* 2x2x2 input 1..8, 2x2x2 kernel 1..8, depth padding 1: od = 3
     * (2 + 2 - 2 + 1), oh = ow = 1.
     * od 0 sees depths -1,0: tap t=1 on depth 0: 1*5+2*6+3*7+4*8 = 70
     * od 1 sees depths 0,1: sum i*i for i = 1..8 = 204
     * od 2 sees depths 1,2: tap t=0 on depth 1: 5*1+6*2+7*3+8*4 = 70 */
    kb_problem p = conv2d(1, 1, 2, 2, 2, 2, 1, 1);
    const double v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    const double want[3] = {70, 204, 70};
    p.conv.ndims = 3;
    p.conv.id = 2;
    p.conv.kd = 2;
    p.conv.od = 3;
    p.conv.pd = 1;
    run_conv(&p, v, v, NULL, want, 3);
}

/* NHWC must give the same logical result as NCHW: the fill follows the
 * logical order, so both layouts get the same logical data. */
static void test_conv_layouts_agree(void)
{
    /* ic 4, oc 6, g 2, 5x5, 3x3 kernel, stride 2, pad 1: out 3x3. */
    kb_problem p = conv2d(4, 6, 5, 5, 3, 3, 3, 3);
    kb_problem q;
    kb_tensors a, b;
    p.conv.mb = 2;
    p.conv.g = 2;
    p.conv.sh = p.conv.sw = 2;
    p.conv.ph = p.conv.pw = 1;
    p.dir = KB_FWD_B;
    q = p;
    q.layout = KB_LAYOUT_NXC;
    CHECK(kb_tensors_alloc(&p, &a) == 0);
    CHECK(kb_tensors_alloc(&q, &b) == 0);
    if (!a.ptr[KB_ARG_DST] || !b.ptr[KB_ARG_DST])
        return;
    kb_fill_inputs(&p, &a, KB_FILL_VALIDATION, 7);
    kb_fill_inputs(&q, &b, KB_FILL_VALIDATION, 7);
    kb_ref_run(&p, &a, &a);
    kb_ref_run(&q, &b, &b);
    int64_t n = nelems(&p, KB_ARG_DST), same = 0, moved = 0;
    for (int64_t i = 0; i < n; i++) {
        same += get(&p, &a, KB_ARG_DST, i) == get(&q, &b, KB_ARG_DST, i);
        moved += ((float *)a.ptr[KB_ARG_DST])[i] !=
                 ((float *)b.ptr[KB_ARG_DST])[i];
    }
    CHECK(same == n);
    CHECK(moved > 0);    /* the layouts really differ physically */
    kb_tensors_free(&a);
    kb_tensors_free(&b);
}

static kb_problem gemm(bool ta, bool tb, double alpha, double beta)
{
    kb_problem p = {
        .kind = KB_GEMM,
        .gemm = {.m = 2, .n = 2, .k = 3, .ta = ta, .tb = tb, .alpha = alpha,
                 .beta = beta},
        .count = 1, .dt = KB_DTS_INIT(KB_F64), .layout = KB_LAYOUT_NCX, .dir = KB_FWD_D};
    return p;
}

/* A = [1 2 3; 4 5 6], B = [1 0; 0 1; 1 1]: A*B = [4 5; 10 11].
 * The physical arrays are written by hand, transposed where asked. */
static void run_gemm(bool ta, bool tb, double alpha, double beta,
                     const double *want)
{
    static const double a_rows[6] = {1, 2, 3, 4, 5, 6};
    static const double a_cols[6] = {1, 4, 2, 5, 3, 6};   /* [K,M] */
    static const double b_rows[6] = {1, 0, 0, 1, 1, 1};
    static const double b_cols[6] = {1, 0, 1, 0, 1, 1};   /* [N,K] */
    static const double c0[4] = {2, 4, 6, 8};
    kb_problem p = gemm(ta, tb, alpha, beta);
    kb_tensors t, out;

    CHECK(kb_tensors_alloc(&p, &t) == 0);
    CHECK(kb_tensors_alloc(&p, &out) == 0);
    if (!t.ptr[KB_ARG_DST] || !out.ptr[KB_ARG_DST])
        return;
    memcpy(t.ptr[KB_ARG_SRC], ta ? a_cols : a_rows, sizeof a_rows);
    memcpy(t.ptr[KB_ARG_WEI], tb ? b_cols : b_rows, sizeof b_rows);
    memcpy(t.ptr[KB_ARG_DST], c0, sizeof c0);
    if (beta == 0.0)    /* dst is then no input: poison must not leak */
        kb_poison_outputs(&p, &t);
    kb_ref_run(&p, &t, &out);
    for (int i = 0; i < 4; i++)
        CHECK_NEAR(((double *)out.ptr[KB_ARG_DST])[i], want[i], 0.0);
    kb_tensors_free(&t);
    kb_tensors_free(&out);
}

static void test_gemm(void)
{
    const double plain[4] = {4, 5, 10, 11};
    /* 2 * [4 5; 10 11] + 0.5 * [2 4; 6 8] = [9 12; 23 26] */
    const double scaled[4] = {9, 12, 23, 26};
    const double twice[4] = {8, 10, 20, 22};
    run_gemm(false, false, 1, 0, plain);
    run_gemm(true, false, 1, 0, plain);
    run_gemm(false, true, 1, 0, plain);
    run_gemm(true, true, 2, 0.5, scaled);
    run_gemm(false, false, 2, 0.5, scaled);
    run_gemm(true, true, 2, 0, twice);
}

static kb_problem bnorm(int64_t mb, int64_t ic, int64_t iw, kb_dir dir)
{
    kb_problem p = {
        .kind = KB_BNORM,
        .bnorm = {.ndims = 2, .mb = mb, .ic = ic, .id = 1, .ih = 1,
                  .iw = iw, .eps = 0},
        .count = 1, .dt = KB_DTS_INIT(KB_F64), .layout = KB_LAYOUT_NCX, .dir = dir};
    return p;
}

static void test_bnorm_inference(void)
{
    /* C = 2, W = 2, eps 0.  ch0: src [1,3], mean 2, var 1, scale 2,
     * shift 1: 2*(-1)+1 = -1, 2*1+1 = 3.  ch1: src [2,6], mean 4, var 4
     * (sqrt 2), scale 0.5, shift 0: 0.5*(-2/2) = -0.5, 0.5. */
    kb_problem p = bnorm(1, 2, 2, KB_FWD_I);
    const double src[4] = {1, 3, 2, 6}, mean[2] = {2, 4}, var[2] = {1, 4};
    const double scale[2] = {2, 0.5}, shift[2] = {1, 0};
    const double want[4] = {-1, 3, -0.5, 0.5};
    kb_tensors t;
    CHECK(kb_tensors_alloc(&p, &t) == 0);
    if (!t.ptr[KB_ARG_DST])
        return;
    put(&p, &t, KB_ARG_SRC, src);
    put(&p, &t, KB_ARG_MEAN, mean);
    put(&p, &t, KB_ARG_VAR, var);
    put(&p, &t, KB_ARG_SCALE, scale);
    put(&p, &t, KB_ARG_SHIFT, shift);
    kb_poison_outputs(&p, &t);
    kb_ref_run(&p, &t, &t);
    for (int i = 0; i < 4; i++)
        CHECK_NEAR(get(&p, &t, KB_ARG_DST, i), want[i], 1e-15);
    kb_tensors_free(&t);
}

static void test_bnorm_training(void)
{
    /* N = 2, C = 1, W = 2, eps 0, scale 1, shift 0.  src n0 [1,3],
     * n1 [5,7]: mean 4, biased var (9+1+1+9)/4 = 5, so
     * dst = (x - 4)/sqrt(5) = [-3, -1, 1, 3] / sqrt(5). */
    kb_problem p = bnorm(2, 1, 2, KB_FWD_D);
    const double src[4] = {1, 3, 5, 7}, one[1] = {1}, zero[1] = {0};
    kb_tensors t;
    CHECK(kb_tensors_alloc(&p, &t) == 0);
    if (!t.ptr[KB_ARG_DST])
        return;
    put(&p, &t, KB_ARG_SRC, src);
    put(&p, &t, KB_ARG_SCALE, one);
    put(&p, &t, KB_ARG_SHIFT, zero);
    kb_poison_outputs(&p, &t);
    kb_ref_run(&p, &t, &t);
    CHECK_NEAR(get(&p, &t, KB_ARG_MEAN, 0), 4, 1e-15);
    CHECK_NEAR(get(&p, &t, KB_ARG_VAR, 0), 5, 1e-15);
    for (int i = 0; i < 4; i++)
        CHECK_NEAR(get(&p, &t, KB_ARG_DST, i), (2 * i - 3) / sqrt(5.0),
                   1e-15);
    kb_tensors_free(&t);
}

int main(void)
{
    test_conv_basic();
    test_conv_bias();
    test_conv_padding();
    test_conv_stride();
    test_conv_dilation();
    test_conv_groups();
    test_conv_depthwise();
    test_conv_3d();
    test_conv_layouts_agree();
    test_gemm();
    test_bnorm_inference();
    test_bnorm_training();
    return CHECK_DONE();
}
