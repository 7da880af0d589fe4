/* test_fill.c - data fill: deterministic, in range, independent of the
 * thread count; poison reaches exactly the pure outputs. */
#include <omp.h>
#include <stdlib.h>

#include "reference/reference.h"
#include "tests/check.h"

/* A 2D conv big enough for several fill chunks per tensor: src 2x8x40x40
 * = 25600 elements, wei 16x8x3x3, bias 16; pad 1 keeps 40x40. */
static kb_problem conv(void)
{
    kb_problem p = {
        .kind = KB_CONV,
        .conv = {.ndims = 2, .mb = 2, .g = 1, .ic = 8, .oc = 16, .id = 1,
                 .ih = 40, .iw = 40, .od = 1, .oh = 40, .ow = 40, .kd = 1,
                 .kh = 3, .kw = 3, .sd = 1, .sh = 1, .sw = 1, .ph = 1,
                 .pw = 1},
        .count = 1, .dt = KB_DTS_INIT(KB_F32), .layout = KB_LAYOUT_NCX, .dir = KB_FWD_B};
    return p;
}

static kb_problem bnorm(kb_dir dir)
{
    kb_problem p = {
        .kind = KB_BNORM,
        .bnorm = {.ndims = 2, .mb = 2, .ic = 64, .id = 1, .ih = 5, .iw = 5,
                  .eps = 1e-5},
        .count = 1, .dt = KB_DTS_INIT(KB_F32), .layout = KB_LAYOUT_NCX, .dir = dir};
    return p;
}

static kb_problem gemm(double beta)
{
    kb_problem p = {
        .kind = KB_GEMM,
        .gemm = {.m = 16, .n = 24, .k = 8, .alpha = 1, .beta = beta},
        .count = 1, .dt = KB_DTS_INIT(KB_F32), .layout = KB_LAYOUT_NCX, .dir = KB_FWD_D};
    return p;
}

static const float *f32(const kb_tensors *t, kb_arg a)
{
    return (const float *)t->ptr[a];
}

/* Every element of tensor a is an integer in [lo, hi]. */
static bool ints_in(const kb_problem *p, const kb_tensors *t, kb_arg a,
                    int lo, int hi)
{
    kb_arg_info info[KB_ARG_MAX];
    kb_problem_args(p, info);
    for (int64_t i = 0; i < info[a].nelems; i++) {
        float x = f32(t, a)[i];
        if (x != floorf(x) || x < lo || x > hi)
            return false;
    }
    return true;
}

/* Every element of tensor a lies in [lo, hi]. */
static bool reals_in(const kb_problem *p, const kb_tensors *t, kb_arg a,
                     double lo, double hi)
{
    kb_arg_info info[KB_ARG_MAX];
    kb_problem_args(p, info);
    for (int64_t i = 0; i < info[a].nelems; i++)
        if (!(f32(t, a)[i] >= lo && f32(t, a)[i] <= hi))
            return false;
    return true;
}

static size_t bytes(const kb_problem *p, kb_arg a)
{
    kb_arg_info info[KB_ARG_MAX];
    kb_problem_args(p, info);
    return (size_t)info[a].nelems * kb_dtype_size(p->dt.src);
}

static void test_deterministic(void)
{
    kb_problem p = conv();
    kb_tensors a, b, c;
    CHECK(kb_tensors_alloc(&p, &a) == 0);
    CHECK(kb_tensors_alloc(&p, &b) == 0);
    CHECK(kb_tensors_alloc(&p, &c) == 0);
    if (!a.ptr[KB_ARG_SRC] || !b.ptr[KB_ARG_SRC] || !c.ptr[KB_ARG_SRC])
        return;
    for (int mode = KB_FILL_VALIDATION; mode <= KB_FILL_RANDOM; mode++) {
        kb_fill_inputs(&p, &a, (kb_fill_mode)mode, 42);
        kb_fill_inputs(&p, &b, (kb_fill_mode)mode, 42);
        kb_fill_inputs(&p, &c, (kb_fill_mode)mode, 43);
        for (kb_arg r = KB_ARG_SRC; r <= KB_ARG_BIA; r++) {
            CHECK(memcmp(a.ptr[r], b.ptr[r], bytes(&p, r)) == 0);
            CHECK(memcmp(a.ptr[r], c.ptr[r], bytes(&p, r)) != 0);
        }
    }
    /* Different roles get different streams under one seed. */
    CHECK(memcmp(a.ptr[KB_ARG_SRC], a.ptr[KB_ARG_WEI],
                 bytes(&p, KB_ARG_WEI)) != 0);
    kb_tensors_free(&a);
    kb_tensors_free(&b);
    kb_tensors_free(&c);
}

static void test_validation_ranges(void)
{
    kb_problem p = conv(), q = bnorm(KB_FWD_I), g = gemm(1);
    kb_tensors t, u, v;
    CHECK(kb_tensors_alloc(&p, &t) == 0);
    CHECK(kb_tensors_alloc(&q, &u) == 0);
    CHECK(kb_tensors_alloc(&g, &v) == 0);
    if (!t.ptr[KB_ARG_SRC] || !u.ptr[KB_ARG_SRC] || !v.ptr[KB_ARG_SRC])
        return;
    kb_fill_inputs(&p, &t, KB_FILL_VALIDATION, 1);
    CHECK(ints_in(&p, &t, KB_ARG_SRC, -4, 4));
    CHECK(ints_in(&p, &t, KB_ARG_WEI, -2, 2));
    CHECK(ints_in(&p, &t, KB_ARG_BIA, -8, 8));
    /* The whole range is used, not a constant. */
    CHECK(!ints_in(&p, &t, KB_ARG_SRC, -3, 4) && !ints_in(&p, &t, KB_ARG_SRC, -4, 3));

    kb_fill_inputs(&g, &v, KB_FILL_VALIDATION, 1);
    CHECK(ints_in(&g, &v, KB_ARG_SRC, -4, 4));
    CHECK(ints_in(&g, &v, KB_ARG_DST, -8, 8));   /* initial C */

    kb_fill_inputs(&q, &u, KB_FILL_VALIDATION, 1);
    /* bnorm src: an integer channel mean in [-2, 2] plus mirrored integer
     * deviations in [-4, 4], so every channel's mean is exact: its sum is
     * a multiple of the N*H*W = 50 values (NCHW: channel c holds
     * elements n*64*25 + c*25 + s). */
    CHECK(ints_in(&q, &u, KB_ARG_SRC, -6, 6));
    bool exact_means = true, varied = false;
    for (int c = 0; c < q.bnorm.ic; c++) {
        double sum = 0;
        for (int n = 0; n < 2; n++)
            for (int s = 0; s < 25; s++) {
                float x = f32(&u, KB_ARG_SRC)[(n * 64 + c) * 25 + s];
                sum += x;
                varied |= x != f32(&u, KB_ARG_SRC)[c * 25];
            }
        exact_means &= fmod(sum, 50.0) == 0.0;
    }
    CHECK(exact_means);
    CHECK(varied);
    CHECK(ints_in(&q, &u, KB_ARG_MEAN, -2, 2));
    CHECK(ints_in(&q, &u, KB_ARG_SHIFT, -2, 2));
    for (int c = 0; c < q.bnorm.ic; c++) {
        float var = f32(&u, KB_ARG_VAR)[c], sc = f32(&u, KB_ARG_SCALE)[c];
        int e;
        /* a power of two in [1/4, 4] */
        CHECK(frexpf(var, &e) == 0.5f && e >= -1 && e <= 3);
        /* a nonzero half in [-2, 2] */
        CHECK(sc != 0 && fabsf(sc) <= 2 && 2 * sc == floorf(2 * sc));
    }

    kb_fill_inputs(&q, &u, KB_FILL_RANDOM, 1);
    CHECK(reals_in(&q, &u, KB_ARG_SRC, -1, 1));
    CHECK(!ints_in(&q, &u, KB_ARG_SRC, -1, 1));
    CHECK(reals_in(&q, &u, KB_ARG_VAR, 0.5, 1.5));
    kb_tensors_free(&t);
    kb_tensors_free(&u);
    kb_tensors_free(&v);
}


/* The backward passes' inputs: conv diff_dst integers in [-2, 2] (so the
 * products of every pass stay within 8); in bf16 and f16 the same
 * logical values as in f32 (small integers are exact in both); bnorm's
 * backward mean is each channel's exact mean, the one a training forward
 * pass would have saved. */
static void test_backward_inputs(void)
{
    kb_problem p = conv(), q = bnorm(KB_BWD_DW);
    kb_tensors t, u;
    p.dir = KB_BWD_W;
    CHECK(kb_tensors_alloc(&p, &t) == 0 && kb_tensors_alloc(&q, &u) == 0);
    kb_fill_inputs(&p, &t, KB_FILL_VALIDATION, 1);
    CHECK(ints_in(&p, &t, KB_ARG_DIFF_DST, -2, 2));
    CHECK(!ints_in(&p, &t, KB_ARG_DIFF_DST, -1, 2));
    CHECK(ints_in(&p, &t, KB_ARG_SRC, -4, 4));

    for (kb_dtype dt = KB_BF16; dt <= KB_F16; dt++) {
        kb_problem r = p;
        kb_tensors w;
        kb_arg_info info[KB_ARG_MAX];
        r.dt = kb_dts_uniform(dt);
        CHECK(kb_tensors_alloc(&r, &w) == 0);
        kb_fill_inputs(&r, &w, KB_FILL_VALIDATION, 1);
        kb_problem_args(&r, info);
        for (kb_arg a = KB_ARG_SRC; a < KB_ARG_MAX; a++) {
            if (!info[a].is_input)
                continue;
            bool same = true;
            for (int64_t i = 0; i < info[a].nelems; i++)
                same &= kb_load(dt, w.ptr[a], i) == f32(&t, a)[i];
            CHECK(same);
        }
        kb_tensors_free(&w);
    }

    kb_fill_inputs(&q, &u, KB_FILL_VALIDATION, 1);
    CHECK(ints_in(&q, &u, KB_ARG_DIFF_DST, -2, 2));
    bool saved = true;
    for (int c = 0; c < q.bnorm.ic; c++) {
        double sum = 0;
        for (int n = 0; n < 2; n++)
            for (int s = 0; s < 25; s++)
                sum += f32(&u, KB_ARG_SRC)[(n * 64 + c) * 25 + s];
        saved &= f32(&u, KB_ARG_MEAN)[c] == sum / 50.0;
    }
    CHECK(saved);
    kb_tensors_free(&t);
    kb_tensors_free(&u);
}

static void test_thread_independent(void)
{
    kb_problem p = conv();
    kb_tensors a, b;
    CHECK(kb_tensors_alloc(&p, &a) == 0);
    CHECK(kb_tensors_alloc(&p, &b) == 0);
    if (!a.ptr[KB_ARG_SRC] || !b.ptr[KB_ARG_SRC])
        return;
    int saved = omp_get_max_threads();
    for (int mode = KB_FILL_VALIDATION; mode <= KB_FILL_RANDOM; mode++) {
        omp_set_num_threads(1);
        kb_fill_inputs(&p, &a, (kb_fill_mode)mode, 9);
        omp_set_num_threads(2);
        kb_fill_inputs(&p, &b, (kb_fill_mode)mode, 9);
        for (kb_arg r = KB_ARG_SRC; r <= KB_ARG_BIA; r++)
            CHECK(memcmp(a.ptr[r], b.ptr[r], bytes(&p, r)) == 0);
    }
    omp_set_num_threads(saved);
    kb_tensors_free(&a);
    kb_tensors_free(&b);
}

/* Number of NaN elements of tensor a. */
static int64_t nans(const kb_problem *p, const kb_tensors *t, kb_arg a)
{
    kb_arg_info info[KB_ARG_MAX];
    int64_t n = 0;
    kb_problem_args(p, info);
    for (int64_t i = 0; i < info[a].nelems; i++)
        n += isnan(f32(t, a)[i]);
    return n;
}

static void test_poison(void)
{
    kb_problem p = conv(), train = bnorm(KB_FWD_D), g0 = gemm(0),
               g1 = gemm(0.5);
    kb_tensors t, u, v, w;
    CHECK(kb_tensors_alloc(&p, &t) == 0);
    CHECK(kb_tensors_alloc(&train, &u) == 0);
    CHECK(kb_tensors_alloc(&g0, &v) == 0);
    CHECK(kb_tensors_alloc(&g1, &w) == 0);
    if (!t.ptr[KB_ARG_DST] || !u.ptr[KB_ARG_DST] || !v.ptr[KB_ARG_DST] ||
        !w.ptr[KB_ARG_DST])
        return;

    kb_fill_inputs(&p, &t, KB_FILL_VALIDATION, 3);
    kb_poison_outputs(&p, &t, true);
    CHECK(nans(&p, &t, KB_ARG_DST) == 2 * 16 * 40 * 40);
    CHECK(nans(&p, &t, KB_ARG_SRC) == 0);

    /* Training: the statistics are outputs, poisoned with dst. */
    kb_fill_inputs(&train, &u, KB_FILL_VALIDATION, 3);
    kb_poison_outputs(&train, &u, true);
    CHECK(nans(&train, &u, KB_ARG_DST) == 2 * 64 * 25);
    CHECK(nans(&train, &u, KB_ARG_MEAN) == 64);
    CHECK(nans(&train, &u, KB_ARG_VAR) == 64);
    CHECK(nans(&train, &u, KB_ARG_SCALE) == 0);

    /* GEMM: dst is poisoned when beta == 0; with beta != 0 it is also
     * an input and keeps its initial C. */
    kb_fill_inputs(&g0, &v, KB_FILL_VALIDATION, 3);
    kb_poison_outputs(&g0, &v, true);
    CHECK(nans(&g0, &v, KB_ARG_DST) == 16 * 24);
    kb_fill_inputs(&g1, &w, KB_FILL_VALIDATION, 3);
    kb_poison_outputs(&g1, &w, true);
    CHECK(nans(&g1, &w, KB_ARG_DST) == 0);
    CHECK(ints_in(&g1, &w, KB_ARG_DST, -8, 8));
    kb_tensors_free(&t);
    kb_tensors_free(&u);
    kb_tensors_free(&v);
    kb_tensors_free(&w);
}

static const check_test tests[] = {
    CHECK_TEST(deterministic),
    CHECK_TEST(validation_ranges),
    CHECK_TEST(backward_inputs),
    CHECK_TEST(thread_independent),
    CHECK_TEST(poison),
    CHECK_END,
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, tests);
}
