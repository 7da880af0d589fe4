/* test_reference.c - the reference kernels against tiny cases computed by
 * hand (the arithmetic is in the comments), and the backward passes
 * against the forward ones: conv's as its adjoints, bnorm's as the
 * derivative of the training forward pass. */
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
    kb_poison_outputs(p, &t, true);
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
        kb_poison_outputs(&p, &t, true);
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
    kb_poison_outputs(&p, &t, true);
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
    kb_poison_outputs(&p, &t, true);
    kb_ref_run(&p, &t, &t);
    CHECK_NEAR(get(&p, &t, KB_ARG_MEAN, 0), 4, 1e-15);
    CHECK_NEAR(get(&p, &t, KB_ARG_VAR, 0), 5, 1e-15);
    for (int i = 0; i < 4; i++)
        CHECK_NEAR(get(&p, &t, KB_ARG_DST, i), (2 * i - 3) / sqrt(5.0),
                   1e-15);
    kb_tensors_free(&t);
}


/* Sum over the logical elements of a (in p's tensors t) times b (in q's
 * tensors u), two tensors of one logical shape. */
static double dot(const kb_problem *p, const kb_tensors *t, kb_arg a,
                  const kb_problem *q, const kb_tensors *u, kb_arg b)
{
    int64_t idx[KB_MAX_DIMS];
    double sum = 0.0;
    CHECK(nelems(p, a) == nelems(q, b));
    for (int64_t i = 0; i < nelems(p, a); i++) {
        unravel(p, a, i, idx);
        sum += kb_load(p->dt.src, t->ptr[a], kb_arg_offset(p, a, idx)) *
               kb_load(q->dt.src, u->ptr[b], kb_arg_offset(q, b, idx));
    }
    return sum;
}

/* The conv of p in direction dir over VALIDATION data (seed 3), its
 * reference outputs computed.  Returns 0, or -1 when allocation fails. */
static int run_dir(const kb_problem *p, kb_dir dir, kb_problem *q,
                   kb_tensors *t)
{
    *q = *p;
    q->dir = dir;
    if (kb_tensors_alloc(q, t) != 0)
        return -1;
    kb_fill_inputs(q, t, KB_FILL_VALIDATION, 3);
    kb_poison_outputs(q, t, true);
    kb_ref_run(q, t, t);
    return 0;
}

/* The backward passes are the forward's adjoints: with the same src, wei
 * and diff_dst (the fill depends on the role, not the direction),
 * <diff_dst, conv(src, wei)> = <src, BWD_D(diff_dst, wei)>
 *                            = <wei, BWD_W(src, diff_dst)>,
 * and <diff_dst, bia broadcast> = <bia, diff_bia>.  Exact in double on
 * integer data; every geometry (groups, stride, padding, dilation, 3D,
 * layout) enters each side differently. */
static void check_adjoint(const kb_problem *p)
{
    kb_problem fwd, bd, bw, fb;
    kb_tensors tf, td, tw, tb;
    CHECK(run_dir(p, KB_FWD_D, &fwd, &tf) == 0);
    CHECK(run_dir(p, KB_BWD_D, &bd, &td) == 0);
    CHECK(run_dir(p, KB_BWD_WB, &bw, &tw) == 0);
    CHECK(run_dir(p, KB_FWD_B, &fb, &tb) == 0);
    double y = dot(&bd, &td, KB_ARG_DIFF_DST, &fwd, &tf, KB_ARG_DST);
    double xd = dot(&fwd, &tf, KB_ARG_SRC, &bd, &td, KB_ARG_DIFF_SRC);
    double wd = dot(&fwd, &tf, KB_ARG_WEI, &bw, &tw, KB_ARG_DIFF_WEI);
    double bias = dot(&fb, &tb, KB_ARG_BIA, &bw, &tw, KB_ARG_DIFF_BIA);
    /* conv with bias minus without: bia broadcast over dst. */
    double with = dot(&bd, &td, KB_ARG_DIFF_DST, &fb, &tb, KB_ARG_DST);
    CHECK(y != 0.0);   /* a vacuous identity would prove nothing */
    CHECK_NEAR(xd, y, 0.0);
    CHECK_NEAR(wd, y, 0.0);
    CHECK_NEAR(bias, with - y, 0.0);
    kb_tensors_free(&tf);
    kb_tensors_free(&td);
    kb_tensors_free(&tw);
    kb_tensors_free(&tb);
}

static void test_conv_backward_adjoint(void)
{
    /* groups, stride 2, pad 1, dilation 1 (taps 2 apart), odd sizes */
    kb_problem p = conv2d(4, 6, 7, 6, 3, 2, 3, 3);
    p.conv.mb = 2;
    p.conv.g = 2;
    p.conv.sh = p.conv.sw = 2;
    p.conv.ph = p.conv.pw = 1;
    p.conv.dh = 1;
    p.conv.oh = (7 + 2 - (2 * 2 + 1)) / 2 + 1;      /* 3 */
    p.conv.ow = (6 + 2 - 2) / 2 + 1;                /* 4 */
    for (kb_layout l = KB_LAYOUT_NCX; l <= KB_LAYOUT_NXC; l++) {
        p.layout = l;
        check_adjoint(&p);
    }
    /* 3D, depthwise, stride 3 in depth with a dilated kernel, padding
     * that leaves outputs reading only the padding at the border */
    kb_problem q = conv2d(3, 3, 4, 5, 2, 3, 4, 5);
    q.conv.g = 3;
    q.conv.ndims = 3;
    q.conv.id = 8;
    q.conv.kd = 2;
    q.conv.sd = 3;
    q.conv.pd = 2;
    q.conv.dd = 1;
    q.conv.od = (8 + 4 - 3) / 3 + 1;                /* 4 */
    q.conv.ph = 1;
    q.conv.pw = 1;
    q.conv.oh = 4 + 2 - 2 + 1;                      /* 5 */
    q.conv.ow = 5 + 2 - 3 + 1;                      /* 5 */
    for (kb_layout l = KB_LAYOUT_NCX; l <= KB_LAYOUT_NXC; l++) {
        q.layout = l;
        check_adjoint(&q);
    }
}

static void test_conv_backward_by_hand(void)
{
    /* 1 channel, 3x3 input, 2x2 kernel wei22, out 2x2, diff_dst
     * [1 0; 0 2].  diff_src[i,j] = sum over outputs (p,q) with taps
     * (i-p, j-q) of dd[p,q] wei[i-p, j-q]: dd[0,0] spreads wei22 over
     * rows/cols 0..1, dd[1,1] = 2 spreads 2*wei22 over 1..2:
     * [1 2 0; 3 4+2 4; 0 6 8].  diff_wei[t] = sum dd[p,q] src[p+t]:
     * src33[t] + 2 src33[t + (1,1)]: [1+10 2+12; 4+16 5+18]. */
    kb_problem p = conv2d(1, 1, 3, 3, 2, 2, 2, 2);
    const double dd[4] = {1, 0, 0, 2};
    const double want_src[9] = {1, 2, 0, 3, 6, 4, 0, 6, 8};
    const double want_wei[4] = {11, 14, 20, 23};
    kb_tensors t;
    p.dir = KB_BWD_D;
    CHECK(kb_tensors_alloc(&p, &t) == 0);
    put(&p, &t, KB_ARG_DIFF_DST, dd);
    put(&p, &t, KB_ARG_WEI, wei22);
    kb_poison_outputs(&p, &t, true);
    kb_ref_run(&p, &t, &t);
    for (int i = 0; i < 9; i++)
        CHECK_NEAR(get(&p, &t, KB_ARG_DIFF_SRC, i), want_src[i], 0.0);
    kb_tensors_free(&t);
    p.dir = KB_BWD_WB;
    CHECK(kb_tensors_alloc(&p, &t) == 0);
    put(&p, &t, KB_ARG_DIFF_DST, dd);
    put(&p, &t, KB_ARG_SRC, src33);
    kb_poison_outputs(&p, &t, true);
    kb_ref_run(&p, &t, &t);
    for (int i = 0; i < 4; i++)
        CHECK_NEAR(get(&p, &t, KB_ARG_DIFF_WEI, i), want_wei[i], 0.0);
    CHECK_NEAR(get(&p, &t, KB_ARG_DIFF_BIA, 0), 3, 0.0);
    kb_tensors_free(&t);
}

/* L(x, scale, shift) = sum diff_dst * bnorm_training(x): the backward
 * pass, given the batch statistics of x as mean and var, is its gradient.
 * Central differences of the FWD_D reference (f64, step 1e-4: error
 * O(h^2) = 1e-8 times third derivatives of order 1) against BWD_DW. */
static void test_bnorm_backward_gradient(void)
{
    kb_problem f = bnorm(3, 2, 5, KB_FWD_D), b = f;
    kb_tensors tf, tb;
    const double h = 1e-4;
    f.bnorm.eps = b.bnorm.eps = 0.25;
    b.dir = KB_BWD_DW;
    CHECK(kb_tensors_alloc(&f, &tf) == 0 && kb_tensors_alloc(&b, &tb) == 0);
    kb_fill_inputs(&b, &tb, KB_FILL_VALIDATION, 5);
    kb_fill_inputs(&f, &tf, KB_FILL_VALIDATION, 5);   /* src, scale, shift */
    kb_ref_run(&f, &tf, &tf);
    /* The backward pass's statistics are the forward's batch ones. */
    memcpy(tb.ptr[KB_ARG_MEAN], tf.ptr[KB_ARG_MEAN], 2 * sizeof(double));
    memcpy(tb.ptr[KB_ARG_VAR], tf.ptr[KB_ARG_VAR], 2 * sizeof(double));
    CHECK(memcmp(tb.ptr[KB_ARG_SRC], tf.ptr[KB_ARG_SRC], 30 * sizeof(double)) == 0);
    CHECK(memcmp(tb.ptr[KB_ARG_SCALE], tf.ptr[KB_ARG_SCALE], 2 * sizeof(double)) == 0);
    kb_ref_run(&b, &tb, &tb);

    struct { kb_arg in, grad; int n; } vars[] = {
        {KB_ARG_SRC, KB_ARG_DIFF_SRC, 30},
        {KB_ARG_SCALE, KB_ARG_DIFF_SCALE, 2},
        {KB_ARG_SHIFT, KB_ARG_DIFF_SHIFT, 2},
    };
    for (size_t v = 0; v < sizeof vars / sizeof vars[0]; v++)
        for (int i = 0; i < vars[v].n; i++) {
            double *x = (double *)tf.ptr[vars[v].in] + i, x0 = *x, l[2];
            for (int s = 0; s < 2; s++) {
                *x = x0 + (s ? h : -h);
                kb_ref_run(&f, &tf, &tf);
                l[s] = dot(&b, &tb, KB_ARG_DIFF_DST, &f, &tf, KB_ARG_DST);
            }
            *x = x0;
            CHECK_NEAR(((double *)tb.ptr[vars[v].grad])[i],
                       (l[1] - l[0]) / (2 * h), 1e-6);
        }
    kb_tensors_free(&tf);
    kb_tensors_free(&tb);
}

static const check_test tests[] = {
    CHECK_TEST(conv_basic),
    CHECK_TEST(conv_bias),
    CHECK_TEST(conv_padding),
    CHECK_TEST(conv_stride),
    CHECK_TEST(conv_dilation),
    CHECK_TEST(conv_groups),
    CHECK_TEST(conv_depthwise),
    CHECK_TEST(conv_3d),
    CHECK_TEST(conv_layouts_agree),
    CHECK_TEST(gemm),
    CHECK_TEST(bnorm_inference),
    CHECK_TEST(bnorm_training),
    CHECK_TEST(conv_backward_adjoint),
    CHECK_TEST(conv_backward_by_hand),
    CHECK_TEST(bnorm_backward_gradient),
    CHECK_END,
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, tests);
}
