/* test_compare.c - validation: correct outputs pass, a single wrong or
 * unwritten element is caught, the mode (full, projected, sampled) is
 * chosen by cost and exactness, samples are distinct points, and the
 * tolerance model behaves.  tests/reference/test_projected.c tests the projected
 * check itself. */
#include <stdlib.h>

#include "kernels/convert.h"
#include "reference/ref_internal.h"
#include "tests/check.h"

/* ic 4, oc 6, g 2, 2x 7x7 images, 3x3 kernel, pad 1, with bias: out 7x7.
 * 588 outputs x 18 MACs: small enough for a full comparison. */
static kb_problem conv(kb_dtype dt)
{
    kb_problem p = {
        .kind = KB_CONV,
        .conv = {.ndims = 2, .mb = 2, .g = 2, .ic = 4, .oc = 6, .id = 1,
                 .ih = 7, .iw = 7, .od = 1, .oh = 7, .ow = 7, .kd = 1,
                 .kh = 3, .kw = 3, .sd = 1, .sh = 1, .sw = 1, .ph = 1,
                 .pw = 1},
        .count = 1, .dt = KB_DTS_INIT(dt), .layout = KB_LAYOUT_NXC, .dir = KB_FWD_B};
    return p;
}

/* Allocate, fill, poison and compute the reference into t, as a correct
 * backend would.  Returns 0, or -1 when the allocation fails. */
static int prepare_correct(const kb_problem *p, kb_tensors *t)
{
    if (kb_tensors_alloc(p, t) != 0)
        return -1;
    kb_fill_inputs(p, t, KB_FILL_VALIDATION, 11);
    kb_poison_outputs(p, t, true);
    kb_ref_run(p, t, t);
    return 0;
}

static void test_correct_passes(void)
{
    kb_problem p = conv(KB_F32);
    kb_tensors t;
    kb_validation v;
    CHECK(prepare_correct(&p, &t) == 0);
    if (!t.ptr[KB_ARG_DST])
        return;
    CHECK(kb_validate(&p, &t, &t, NULL, &v));
    CHECK(v.mode == KB_CHECK_FULL);
    CHECK(v.points == 2 * 6 * 7 * 7 && v.checked == v.points);
    CHECK(v.mismatches == 0 && v.nonfinite == 0);
    CHECK(v.max_abs_err == 0.0);   /* integer data: fp32 is exact */
    CHECK_STR(v.first_mismatch, "");
    kb_tensors_free(&t);
}

static void test_wrong_element_caught(void)
{
    kb_problem p = conv(KB_F32);
    kb_tensors t;
    kb_validation v;
    char want[192];
    CHECK(prepare_correct(&p, &t) == 0);
    if (!t.ptr[KB_ARG_DST])
        return;
    int64_t idx[4] = {1, 4, 2, 5};
    int64_t off = kb_arg_offset(&p, KB_ARG_DST, idx);
    float *dst = t.ptr[KB_ARG_DST];
    float right = dst[off];
    dst[off] = right + 1;
    CHECK(!kb_validate(&p, &t, &t, NULL, &v));
    CHECK(v.mismatches == 1 && v.nonfinite == 0);
    CHECK(v.max_abs_err == 1.0);
    snprintf(want, sizeof want, "dst[1,4,2,5]: got %.9g, expected %.9g",
             (double)(right + 1), (double)right);
    CHECK_STR(v.first_mismatch, want);

    /* One ulp off passes; an error far above the tolerance fails. */
    dst[off] = nextafterf(right, INFINITY);
    CHECK(kb_validate(&p, &t, &t, NULL, &v));
    CHECK(v.max_rel_err > 0 && v.max_rel_err <= v.tolerance);
    dst[off] = right + 1e-2f;
    CHECK(!kb_validate(&p, &t, &t, NULL, &v));
    kb_tensors_free(&t);
}

/* Allocate, fill with RANDOM data (not integers: the projected check
 * would not be exact, so a problem past the full budget is sampled) and
 * compute the reference into t.  Returns 0, or -1 when allocation fails. */
static int prepare_random(const kb_problem *p, kb_tensors *t)
{
    if (kb_tensors_alloc(p, t) != 0)
        return -1;
    kb_fill_inputs(p, t, KB_FILL_RANDOM, 11);
    kb_poison_outputs(p, t, true);
    kb_ref_run(p, t, t);
    return 0;
}

static void test_nan_outside_sample(void)
{
    kb_problem p = conv(KB_F32);
    kb_tensors t;
    kb_validation v;
    /* Force sampling: one random point plus the first and the last. */
    kb_validate_opts o = {.full_max_macs = 1, .sample_points = 1, .seed = 5};
    CHECK(prepare_random(&p, &t) == 0);
    if (!t.ptr[KB_ARG_DST])
        return;
    CHECK(kb_validate(&p, &t, &t, &o, &v));
    CHECK(v.mode == KB_CHECK_SAMPLED && v.points == 3 && v.checked == 3);
    ((float *)t.ptr[KB_ARG_DST])[100] = NAN;
    CHECK(!kb_validate(&p, &t, &t, &o, &v));
    CHECK(v.nonfinite == 1);
    CHECK(strstr(v.first_mismatch, "dst[") == v.first_mismatch);
    kb_tensors_free(&t);
}

/* GEMM 256x256 with K = 2048: 2^27 MACs, past the default 2^26, so the
 * default policy checks it by projection, every element covered.  A is
 * zero and beta is 0, so the correct dst is all zeros and no full
 * reference has to be computed here. */
static void test_projected_for_large(void)
{
    kb_problem p = {
        .kind = KB_GEMM,
        .gemm = {.m = 256, .n = 256, .k = 2048, .alpha = 1, .beta = 0},
        .count = 1, .dt = KB_DTS_INIT(KB_F32), .layout = KB_LAYOUT_NCX, .dir = KB_FWD_D};
    kb_tensors t;
    kb_validation v;
    CHECK(kb_tensors_alloc(&p, &t) == 0);
    if (!t.ptr[KB_ARG_DST])
        return;
    kb_fill_inputs(&p, &t, KB_FILL_VALIDATION, 2);
    memset(t.ptr[KB_ARG_SRC], 0, 256 * 2048 * sizeof(float));
    memset(t.ptr[KB_ARG_DST], 0, 256 * 256 * sizeof(float));
    CHECK(kb_validate(&p, &t, &t, NULL, &v));
    CHECK(v.mode == KB_CHECK_PROJECTED && v.points == 256 * 256);
    CHECK(v.checked == 0 && v.mismatches == 0);
    /* An interior element: its row fails, and the row's point-by-point
     * comparison names it. */
    ((float *)t.ptr[KB_ARG_DST])[17 * 256 + 123] = 1;
    CHECK(!kb_validate(&p, &t, &t, NULL, &v));
    CHECK(v.mismatches == 1 && v.checked == 256);
    /* With A zero every exact value is 0, so 1 is wrong on its own. */
    CHECK_STR(v.first_mismatch, "projected check failed in dst row 17 (an "
                                "element is not near any possible exact "
                                "value); dst[17,123]: got 1, expected 0");
    kb_tensors_free(&t);
}

/* Samples are distinct points: with all points but one in the sample,
 * exactly one of the single-element corruptions goes unseen (drawn with
 * replacement, about a third would). */
static void test_sample_distinct(void)
{
    kb_problem p = {
        .kind = KB_GEMM,
        .gemm = {.m = 6, .n = 10, .k = 3, .alpha = 1, .beta = 0},
        .count = 1, .dt = KB_DTS_INIT(KB_F32), .layout = KB_LAYOUT_NCX, .dir = KB_FWD_D};
    kb_validate_opts o = {.full_max_macs = 1, .sample_points = 60 - 3,
                          .seed = 9};
    kb_tensors t;
    kb_validation v;
    int caught = 0;
    CHECK(prepare_random(&p, &t) == 0);
    if (!t.ptr[KB_ARG_DST])
        return;
    float *dst = t.ptr[KB_ARG_DST];
    for (int i = 0; i < 60; i++) {
        float right = dst[i];
        dst[i] = right + 1;
        caught += !kb_validate(&p, &t, &t, &o, &v);
        CHECK(v.mode == KB_CHECK_SAMPLED && v.points == 59);
        dst[i] = right;
    }
    CHECK(caught == 59);
    kb_tensors_free(&t);
}

/* GEMM with beta != 0: dst starts as C, so the validation needs the
 * inputs as they were before the run. */
static void test_gemm_beta(void)
{
    kb_problem p = {
        .kind = KB_GEMM,
        .gemm = {.m = 9, .n = 7, .k = 5, .ta = true, .tb = true,
                 .alpha = 1.5, .beta = -0.5},
        .count = 1, .dt = KB_DTS_INIT(KB_F32), .layout = KB_LAYOUT_NCX, .dir = KB_FWD_D};
    kb_tensors in, t;
    kb_validation v;
    CHECK(kb_tensors_alloc(&p, &in) == 0);
    CHECK(kb_tensors_alloc(&p, &t) == 0);
    if (!in.ptr[KB_ARG_DST] || !t.ptr[KB_ARG_DST])
        return;
    kb_fill_inputs(&p, &in, KB_FILL_VALIDATION, 4);
    kb_fill_inputs(&p, &t, KB_FILL_VALIDATION, 4);
    kb_ref_run(&p, &in, &t);
    CHECK(kb_validate(&p, &in, &t, NULL, &v));
    CHECK(v.checked == 9 * 7 && v.max_abs_err == 0.0);
    /* Validating against the overwritten dst as "initial C" fails. */
    CHECK(!kb_validate(&p, &t, &t, NULL, &v));
    kb_tensors_free(&in);
    kb_tensors_free(&t);
}

static void test_bnorm_training(void)
{
    kb_problem p = {
        .kind = KB_BNORM,
        .bnorm = {.ndims = 3, .mb = 2, .ic = 5, .id = 3, .ih = 4, .iw = 3,
                  .eps = 1e-5},
        .count = 1, .dt = KB_DTS_INIT(KB_F32), .layout = KB_LAYOUT_NXC, .dir = KB_FWD_D};
    kb_tensors t;
    kb_validation v;
    CHECK(prepare_correct(&p, &t) == 0);
    if (!t.ptr[KB_ARG_DST])
        return;
    CHECK(kb_validate(&p, &t, &t, NULL, &v));
    CHECK(v.checked == 2 * 5 * 36 + 5 + 5);   /* dst, mean, var */
    /* bnorm's reference is O(elements): full whatever the budget. */
    kb_validate_opts tight = {.full_max_macs = 1};
    CHECK(kb_validate(&p, &t, &t, &tight, &v));
    CHECK(v.mode == KB_CHECK_FULL && v.points == 2 * 5 * 36 + 5 + 5);
    /* A wrong variance is caught. */
    ((float *)t.ptr[KB_ARG_VAR])[3] *= 1.01f;
    CHECK(!kb_validate(&p, &t, &t, NULL, &v));
    CHECK(v.mismatches == 1);
    CHECK(strstr(v.first_mismatch, "var[3]: ") == v.first_mismatch);
    kb_tensors_free(&t);
}

static void test_tolerance_model(void)
{
    kb_problem small = conv(KB_F32), big = conv(KB_F32), f64 = conv(KB_F64);
    big.conv.ic = 2048;
    big.conv.g = 1;
    CHECK(kb_tolerance(&big) > kb_tolerance(&small));
    CHECK(kb_tolerance(&f64) < kb_tolerance(&small));
    CHECK(kb_tolerance(&small) > 0x1p-24 && kb_tolerance(&small) < 1e-4);
    CHECK(kb_tolerance(&f64) > 0x1p-53 && kb_tolerance(&f64) < 1e-12);
}


/* Output a's first element of magnitude >= 1 moved one step of its
 * storage type away from zero (the 16-bit patterns are sign-magnitude,
 * so one more is the next value out).  Returns its offset, or -1. */
static int64_t bump_one_step(const kb_problem *p, kb_tensors *t, kb_arg a)
{
    kb_arg_info info[KB_ARG_MAX];
    kb_problem_args(p, info);
    for (int64_t i = 0; i < info[a].nelems; i++) {
        if (fabs(kb_load(info[a].dt, t->ptr[a], i)) < 1.0)
            continue;
        if (info[a].dt == KB_F32) {
            float *x = t->ptr[a];
            x[i] = nextafterf(x[i], x[i] > 0 ? INFINITY : -INFINITY);
        } else {
            ((uint16_t *)t->ptr[a])[i]++;
        }
        return i;
    }
    return -1;
}

/* Every direction in every storage type: the reference's own outputs,
 * stored in their types, pass with no error at all (the exact values
 * rounded once, as compared); one step of the storage type off fails
 * for bf16 and f16 (the exact value being known, nothing else rounds to
 * it); the backward passes are never projected. */
static void test_directions_and_types(void)
{
    static const kb_dts types[] = {
        KB_DTS_INIT(KB_F32), KB_DTS_INIT(KB_BF16), KB_DTS_INIT(KB_F16),
        {KB_BF16, KB_BF16, KB_F32}};
    static const kb_dir conv_dirs[] = {KB_FWD_B, KB_BWD_D, KB_BWD_W, KB_BWD_WB};
    static const kb_dir bnorm_dirs[] = {KB_FWD_D, KB_FWD_I, KB_BWD_D, KB_BWD_DW};
    kb_problem bn = {
        .kind = KB_BNORM,
        .bnorm = {.ndims = 2, .mb = 3, .ic = 4, .id = 1, .ih = 5, .iw = 3,
                  .eps = 1e-5},
        .count = 1, .layout = KB_LAYOUT_NXC};
    kb_validate_opts tight = {.full_max_macs = 1, .sample_points = 50};

    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++)
        for (size_t k = 0; k < 2; k++)
            for (size_t di = 0; di < 4; di++) {
                kb_problem p = k == 0 ? conv(KB_F32) : bn;
                kb_tensors t;
                kb_validation v;
                kb_arg_info info[KB_ARG_MAX];
                p.dt = types[ti];
                p.dir = k == 0 ? conv_dirs[di] : bnorm_dirs[di];
                if (k == 1 && !kb_dts_all(&p.dt, p.dt.src))
                    continue;   /* bnorm takes one type */
                CHECK(prepare_correct(&p, &t) == 0);
                if (!t.ptr[KB_ARG_SRC] && !t.ptr[KB_ARG_DIFF_DST])
                    continue;
                CHECK(kb_validate(&p, &t, &t, NULL, &v));
                CHECK(v.mode == KB_CHECK_FULL && v.mismatches == 0);
                /* conv's are exact; bnorm's statistics and their
                 * gradients are f32, compared unrounded */
                CHECK(v.max_abs_err == 0.0 || k == 1);
                CHECK(v.max_rel_err <= v.tolerance);
                CHECK(kb_validate(&p, &t, &t, &tight, &v));
                CHECK(v.mode == (k == 1 ? KB_CHECK_FULL
                                 : kb_dir_is_backward(p.dir) ? KB_CHECK_SAMPLED
                                                              : KB_CHECK_PROJECTED));
                kb_problem_args(&p, info);
                for (int a = 0; a < KB_ARG_MAX; a++) {
                    if (!info[a].is_output || info[a].dt == KB_F32 ||
                        bump_one_step(&p, &t, (kb_arg)a) < 0)
                        continue;
                    CHECK(!kb_validate(&p, &t, &t, NULL, &v));
                    CHECK(v.mismatches == 1);
                    CHECK(strstr(v.first_mismatch, info[a].name) ==
                          v.first_mismatch);
                    kb_ref_run(&p, &t, &t);   /* repaired */
                }
                kb_tensors_free(&t);
            }
}

/* f32 then truncated to bf16 (round toward zero) instead of rounded to
 * nearest: caught wherever the two differ other than at a tie, which on
 * integer data needs values of 512 and more (bf16 steps of 4 and more).
 * A GEMM of 16384-term dot products of values up to 8: results of a few
 * hundred, a third above 512. */
static void test_bf16_truncation_caught(void)
{
    kb_problem p = {
        .kind = KB_GEMM, .gemm = {.m = 4, .n = 64, .k = 16384, .alpha = 1},
        .count = 1, .dt = KB_DTS_INIT(KB_BF16), .dir = KB_FWD_D};
    kb_tensors t;
    kb_validation v;
    int64_t differ = 0;
    CHECK(prepare_correct(&p, &t) == 0);
    kb_ref_ctx ctx;
    kb_ref_ctx_init(&ctx, &p, &t);
    const kb_arg_info *d = &ctx.info[KB_ARG_DST];
    for (int64_t i = 0; i < d->nelems; i++) {
        int64_t idx[KB_MAX_DIMS];
        kb_ref_unravel(d, i, idx);
        float x = (float)kb_ref_expected(&ctx, KB_ARG_DST, idx);
        uint16_t *y = (uint16_t *)t.ptr[KB_ARG_DST] +
                      kb_arg_offset(&p, KB_ARG_DST, idx);
        uint16_t trunc = (uint16_t)(kb_f32_bits(x) >> 16);
        differ += trunc != *y;
        *y = trunc;
    }
    CHECK(differ > 10);
    CHECK(!kb_validate(&p, &t, &t, NULL, &v));
    CHECK(v.mismatches > 0 && v.mismatches <= differ);
    CHECK(strstr(v.first_mismatch, "in bf16)") != NULL);
    kb_tensors_free(&t);
}

static const check_test tests[] = {
    CHECK_TEST(correct_passes),
    CHECK_TEST(wrong_element_caught),
    CHECK_TEST(nan_outside_sample),
    CHECK_TEST(projected_for_large),
    CHECK_TEST(sample_distinct),
    CHECK_TEST(gemm_beta),
    CHECK_TEST(bnorm_training),
    CHECK_TEST(tolerance_model),
    CHECK_TEST(directions_and_types),
    CHECK_TEST(bf16_truncation_caught),
    CHECK_END,
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, tests);
}
