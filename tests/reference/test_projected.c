/* test_projected.c - the projected check covers every output element: one
 * wrong interior element, or one wrong pixel per channel, fails on every
 * seed, for conv (grouped, strided, padded, dilated, 3D, NXC, bias, f64)
 * and GEMM; correct outputs, and outputs off by an ulp, pass on every
 * seed; the check is much cheaper than the full comparison; and it falls
 * back where it would not be exact. */
#include <omp.h>
#include <stdlib.h>
#include <time.h>

#include "kernels/random.h"
#include "reference/ref_internal.h"
#include "tests/check.h"

#define SEEDS 20

/* full_max_macs of 1 puts every case past the full comparison's budget:
 * the mode then depends only on exactness and cost. */
static const kb_validate_opts beyond_full = {.full_max_macs = 1};

/* A problem, its inputs as filled for validation, and a correct output
 * (the reference's) in `ok`; `got` is the output under test. */
typedef struct {
    kb_problem p;
    kb_arg_info dst;
    kb_tensors in, ok, got;
} fixture;

static int fixture_make(fixture *f, const char *desc, kb_layout layout,
                        kb_dir dir, kb_dtype dt, kb_fill_mode fill)
{
    kb_settings s;
    kb_arg_info info[KB_ARG_MAX];
    char err[256];
    memset(f, 0, sizeof *f);
    kb_settings_default(&s);
    s.layout = layout;
    s.dir = dir;
    s.dir_given = true;
    s.dt = kb_dts_uniform(dt);
    if (kb_problem_parse(desc, &s, &f->p, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", desc, err);
        return -1;
    }
    kb_problem_args(&f->p, info);
    f->dst = info[KB_ARG_DST];
    if (kb_tensors_alloc(&f->p, &f->in) != 0 ||
        kb_tensors_alloc(&f->p, &f->ok) != 0 ||
        kb_tensors_alloc(&f->p, &f->got) != 0)
        return -1;
    kb_fill_inputs(&f->p, &f->in, fill, 3);
    kb_ref_run(&f->p, &f->in, &f->ok);
    return 0;
}

static void fixture_free(fixture *f)
{
    kb_tensors_free(&f->in);
    kb_tensors_free(&f->ok);
    kb_tensors_free(&f->got);
}

/* Reset got's dst to the correct output. */
static void reset(fixture *f)
{
    memcpy(f->got.ptr[KB_ARG_DST], f->ok.ptr[KB_ARG_DST],
           (size_t)f->dst.nelems * kb_dtype_size(f->p.dt.src));
}

static bool validate(fixture *f, uint64_t seed, kb_validation *v)
{
    kb_validate_opts o = beyond_full;
    o.seed = seed;
    return kb_validate(&f->p, &f->in, &f->got, &o, v);
}

/* A random interior index of dst: spatial coordinates (GEMM: row and
 * column) away from the borders wherever the dim allows it. */
static void interior_index(const fixture *f, uint64_t *rng, int64_t *idx)
{
    const int first_inner = f->p.kind == KB_GEMM ? 0 : 2;
    for (int d = 0; d < f->dst.ndims; d++) {
        int64_t n = f->dst.dims[d];
        bool inner = d >= first_inner && n >= 3;
        idx[d] = inner ? 1 + (int64_t)(kb_splitmix64(rng) % (uint64_t)(n - 2))
                       : (int64_t)(kb_splitmix64(rng) % (uint64_t)n);
    }
}

/* Add delta to got's dst at idx; returns the new value. */
static double bump(fixture *f, const int64_t *idx, double delta)
{
    int64_t off = kb_arg_offset(&f->p, KB_ARG_DST, idx);
    double x = kb_load(f->p.dt.src, f->got.ptr[KB_ARG_DST], off) + delta;
    kb_store(f->p.dt.src, f->got.ptr[KB_ARG_DST], off, x);
    return x;
}

/* "dst[1,4,2,5]: got" of idx, as the message names the element. */
static void element_text(const fixture *f, const int64_t *idx, char *buf,
                         size_t len)
{
    kb_ref_format_index(&f->dst, idx, buf, len);
    strncat(buf, ": got", len - strlen(buf) - 1);
}

/* On every seed: the correct output passes in `mode`, covering every
 * element; one wrong interior element fails, and the message names it; a
 * wrong interior pixel per channel (GEMM: element per row) fails.  On
 * every fourth seed (it is the slowest step) an f32 output off by an ulp
 * everywhere, as a correct kernel's may be, passes. */
static void check_fixture(fixture *f, kb_check_mode mode)
{
    kb_validation v;
    static const double deltas[] = {1, -1, 0.5, 3, -7};
    const int line_dim = f->p.kind == KB_GEMM ? 0 : 1;
    int fails = 0;
    for (uint64_t seed = 1; seed <= SEEDS; seed++) {
        uint64_t rng = seed * 7919;
        int64_t idx[KB_MAX_DIMS];
        char want[96];

        reset(f);
        fails += !validate(f, seed, &v);
        CHECK(v.mode == mode && v.points == f->dst.nelems);
        CHECK(v.mismatches == 0 && v.max_abs_err == 0.0);

        if (f->p.dt.src == KB_F32 && seed % 4 == 1) {
            float *d = f->got.ptr[KB_ARG_DST];
            for (int64_t i = 0; i < f->dst.nelems; i++)
                d[i] = nextafterf(d[i], (seed & 1) ? INFINITY : -INFINITY);
            fails += !validate(f, seed, &v);
            CHECK(v.max_abs_err > 0 && v.max_rel_err <= v.tolerance);
        }

        reset(f);
        interior_index(f, &rng, idx);
        bump(f, idx, deltas[seed % 5]);
        CHECK(!validate(f, seed, &v));
        CHECK(v.mismatches == 1);
        element_text(f, idx, want, sizeof want);
        CHECK(strstr(v.first_mismatch, want) != NULL);
        if (mode == KB_CHECK_PROJECTED)
            CHECK(strncmp(v.first_mismatch, "projected check failed in ",
                          26) == 0);

        reset(f);
        for (int64_t l = 0; l < f->dst.dims[line_dim]; l++) {
            interior_index(f, &rng, idx);
            idx[line_dim] = l;
            bump(f, idx, 1);
        }
        CHECK(!validate(f, seed, &v));
        CHECK(v.mismatches >= 1);
    }
    if (fails)
        fprintf(stderr, "%s: %d false failures\n", f->p.name, fails);
    CHECK(fails == 0);
}

static void check_case(const char *desc, kb_layout layout, kb_dir dir,
                       kb_dtype dt, kb_check_mode mode)
{
    fixture f;
    if (fixture_make(&f, desc, layout, dir, dt, KB_FILL_VALIDATION) == 0)
        check_fixture(&f, mode);
    else
        CHECK(!"fixture");
    fixture_free(&f);
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) +
           1e-9 * (double)(t1.tv_nsec - t0->tv_nsec);
}

/* The case: ResNet-50's res2 1x1 conv, 64 channels x 56x56
 * (200,704 outputs), wrong at one random interior pixel per channel, or
 * at one element: sampling 4096 points passed that for 5 seeds in 20.
 * Then the projected check against the full comparison, timed on one
 * thread (so the ratio is the work's, not how busy the machine's other
 * cores are), best of three for the projected one, which is cheap. */
static void test_resnet_res2(void)
{
    fixture f;
    kb_validation v;
    kb_validate_opts full = {.full_max_macs = INT64_MAX};
    struct timespec t0;
    double proj = INFINITY, all;
    if (fixture_make(&f, "mb1ic64ih56iw56oc64kh1", KB_LAYOUT_NCX, KB_FWD_D,
                     KB_F32, KB_FILL_VALIDATION) != 0) {
        CHECK(!"fixture");
        fixture_free(&f);
        return;
    }
    check_fixture(&f, KB_CHECK_PROJECTED);

    /* One element off by one: its pixel's sum is off by its weight. */
    reset(&f);
    int64_t idx[4] = {0, 5, 20, 30};
    char want[160];
    double got = bump(&f, idx, 1);
    CHECK(!validate(&f, 1, &v));
    CHECK(strncmp(v.first_mismatch, "projected check failed in "
                  "dst[0,0..63,20,30] (sum differs by ", 61) == 0);
    snprintf(want, sizeof want, "); dst[0,5,20,30]: got %.9g, expected %.9g",
             got, got - 1);
    CHECK(strstr(v.first_mismatch, want) != NULL);
    CHECK(v.checked == 64 && v.mismatches == 1);

    reset(&f);
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    for (int r = 0; r < 3; r++) {
        clock_gettime(CLOCK_MONOTONIC, &t0);
        CHECK(validate(&f, 1, &v) && v.mode == KB_CHECK_PROJECTED);
        proj = fmin(proj, seconds_since(&t0));
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK(kb_validate(&f.p, &f.in, &f.got, &full, &v));
    all = seconds_since(&t0);
    omp_set_num_threads(threads);
    CHECK(v.mode == KB_CHECK_FULL && v.points == f.dst.nelems);
    printf("res2 1x1: projected %.4f s, full %.4f s\n", proj, all);
    /* About 13x fewer multiply-adds (kb_proj_cost); 4x leaves room for a
     * busy machine. */
    CHECK(proj * 4 < all);
    fixture_free(&f);
}

/* ResNet-50's 3x3 conv of the same stage, under the default policy: its
 * reference costs 116M MACs, past the full budget, and the projected
 * check about 27x less.  Zero src makes the correct output zero, so no
 * reference run is needed; a single wrong element still fails. */
static void test_default_policy(void)
{
    kb_problem p;
    kb_settings s;
    kb_tensors t;
    kb_validation v;
    char err[128];
    kb_settings_default(&s);
    s.dir = KB_FWD_D;
    s.dir_given = true;
    CHECK(kb_problem_parse("mb1ic64ih56iw56oc64kh3ph1", &s, &p, err,
                           sizeof err) == 0);
    const double full = 56.0 * 56 * 64 * 64 * 9;
    CHECK(kb_proj_cost(&p) * 16 < full);
    if (kb_tensors_alloc(&p, &t) != 0) {
        CHECK(!"alloc");
        return;
    }
    kb_fill_inputs(&p, &t, KB_FILL_VALIDATION, 1);
    memset(t.ptr[KB_ARG_SRC], 0, 64 * 56 * 56 * sizeof(float));
    memset(t.ptr[KB_ARG_DST], 0, 64 * 56 * 56 * sizeof(float));
    for (uint64_t seed = 1; seed <= SEEDS; seed++) {
        kb_validate_opts o = {.seed = seed};
        float *d = t.ptr[KB_ARG_DST];
        int64_t at = 56 * 56 + 57 + (int64_t)(kb_mix64(seed) % 150000);
        CHECK(kb_validate(&p, &t, &t, &o, &v));
        CHECK(v.mode == KB_CHECK_PROJECTED && v.points == 64 * 56 * 56);
        d[at] = 2;
        CHECK(!kb_validate(&p, &t, &t, &o, &v) && v.mismatches == 1);
        d[at] = 0;
    }
    kb_tensors_free(&t);
}

/* Every kind of conv indexing, both layouts, bias, 3D, f64, and GEMM
 * with transposes, alpha and beta (alpha 1.5: exact values are halves). */
static void test_shapes(void)
{
    const char *grouped = "g2mb2ic16ih11iw13oc32kh3kw3sh2ph1pw2dh1";
    check_case(grouped, KB_LAYOUT_NCX, KB_FWD_D, KB_F32, KB_CHECK_PROJECTED);
    check_case(grouped, KB_LAYOUT_NXC, KB_FWD_D, KB_F32, KB_CHECK_PROJECTED);
    check_case("mb2ic8id6ih7iw5oc16kd3kh3kw2sd2pd1ph1dw1", KB_LAYOUT_NCX,
               KB_FWD_B, KB_F32, KB_CHECK_PROJECTED);
    check_case("mb2ic8id6ih7iw5oc16kd3kh3kw2sd2pd1ph1dw1", KB_LAYOUT_NXC,
               KB_FWD_D, KB_F32, KB_CHECK_PROJECTED);
    check_case("mb2ic16ih9iw9oc24kh3ph1", KB_LAYOUT_NXC, KB_FWD_B, KB_F32,
               KB_CHECK_PROJECTED);
    check_case("g4mb1ic32ih10iw10oc64kh3ph2dh1", KB_LAYOUT_NCX, KB_FWD_B,
               KB_F64, KB_CHECK_PROJECTED);
    check_case("m37n45k29", KB_LAYOUT_NCX, KB_FWD_D, KB_F32,
               KB_CHECK_PROJECTED);
    check_case("m37n45k29tatbalpha1.5beta-0.5", KB_LAYOUT_NCX, KB_FWD_D,
               KB_F32, KB_CHECK_PROJECTED);
    check_case("m20n33k17tbbeta2", KB_LAYOUT_NCX, KB_FWD_D, KB_F64,
               KB_CHECK_PROJECTED);
    /* Depthwise: one channel per group, so projecting saves nothing and
     * the full comparison, which also covers every element, is chosen. */
    check_case("g32mb1ic32ih20iw20oc32kh3ph1", KB_LAYOUT_NXC, KB_FWD_B,
               KB_F32, KB_CHECK_FULL);
}

/* Where the sums would not be exact the check falls back to a sample of
 * distinct points: non-integer (RANDOM) data; an alpha whose exact
 * results are not on a grid coarse enough for the tolerance; or an
 * accumulation so long (K = 40000: results up to 8 * 40000, tolerance
 * 36 * 2^-24) that a correct fp32 result may lie half a unit away. */
static void test_fallback_sampled(void)
{
    struct {
        const char *desc;
        kb_fill_mode fill;
    } cases[] = {
        {"mb1ic16ih12iw12oc32kh3ph1", KB_FILL_RANDOM},
        {"m40n40k40alpha0.1", KB_FILL_VALIDATION},
        {"m12n12k40000", KB_FILL_VALIDATION},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fixture f;
        kb_validation v;
        kb_validate_opts o = {.full_max_macs = 1, .sample_points = 100};
        if (fixture_make(&f, cases[i].desc, KB_LAYOUT_NCX, KB_FWD_D, KB_F32,
                         cases[i].fill) != 0) {
            CHECK(!"fixture");
            fixture_free(&f);
            continue;
        }
        reset(&f);
        CHECK(kb_validate(&f.p, &f.in, &f.got, &o, &v));
        CHECK(v.mode == KB_CHECK_SAMPLED);
        CHECK(v.points == 102 && v.checked == 102);
        fixture_free(&f);
    }
}


/* bf16 and f16 dst: projected only while every possible exact value is
 * exact in the type (condition 4 of projected.c): a GEMM with K = 8 has
 * results of at most 4*2*8 = 64, projected in both; with K = 40 (up to
 * 320) bf16 (exact integers up to 256) falls back to sampled and f16 (up
 * to 2048) is still projected.  Either way the correct output passes and
 * a one-step error fails. */
static void test_low_precision(void)
{
    static const struct {
        const char *desc;
        kb_dtype dt;
        kb_check_mode mode;
    } cases[] = {
        {"m40n40k8", KB_BF16, KB_CHECK_PROJECTED},
        {"m40n40k8", KB_F16, KB_CHECK_PROJECTED},
        {"m40n40k40", KB_BF16, KB_CHECK_SAMPLED},
        {"m40n40k40", KB_F16, KB_CHECK_PROJECTED},
        {"mb1ic8ih6oc16kh3ph1", KB_BF16, KB_CHECK_SAMPLED},
        {"mb1ic8ih6oc16kh3ph1", KB_F16, KB_CHECK_PROJECTED},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fixture f;
        kb_validation v;
        kb_validate_opts o = {.full_max_macs = 1, .sample_points = 1u << 20};
        if (fixture_make(&f, cases[i].desc, KB_LAYOUT_NXC, KB_FWD_D,
                         cases[i].dt, KB_FILL_VALIDATION) != 0) {
            CHECK(!"fixture");
            fixture_free(&f);
            continue;
        }
        reset(&f);
        CHECK(kb_validate(&f.p, &f.in, &f.got, &o, &v));
        CHECK(v.mode == cases[i].mode);
        CHECK(v.max_abs_err == 0.0);
        /* the next value out from the last element (16-bit patterns are
         * sign-magnitude) */
        ((uint16_t *)f.got.ptr[KB_ARG_DST])[f.dst.nelems - 1] += 1;
        CHECK(!kb_validate(&f.p, &f.in, &f.got, &o, &v));
        CHECK(v.mismatches == 1);
        fixture_free(&f);
    }
}

static const check_test tests[] = {
    CHECK_TEST(resnet_res2),
    CHECK_TEST(default_policy),
    CHECK_TEST(shapes),
    CHECK_TEST(fallback_sampled),
    CHECK_TEST(low_precision),
    CHECK_END,
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, tests);
}
