/* test_fill_fine.c - the FINE validation fill (reference/fill.c): which
 * problems get it and with how many fractional bits (its exactness
 * bound), that its values are what the bound assumes, and that every
 * problem of the fp32 strict batch file gets it.
 *
 *   test_fill_fine FP32_STRICT_BATCH_FILE */
#include "tests/check.h"

#include "kernels/batch.h"
#include "reference/reference.h"

#include <stdlib.h>

static kb_problem parse(const char *desc, kb_dtype dt, kb_dir dir,
                        bool dir_given)
{
    kb_settings s;
    kb_problem p;
    char err[256];
    kb_settings_default(&s);
    s.dt = kb_dts_uniform(dt);
    s.dir = dir;
    s.dir_given = dir_given;
    if (kb_problem_parse(desc, &s, &p, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", desc, err);
        CHECK(!"descriptor parses");
        memset(&p, 0, sizeof p);
    }
    return p;
}

static int bits(const char *desc)
{
    kb_problem p = parse(desc, KB_F32, KB_FWD_D, false);
    return kb_fill_fine_bits(&p);
}

/* The bound 9 L < 2^(24-s), E < 2^24 q at its edges. */
static void test_bound(void)
{
    CHECK(bits("m4n4k455") == 12);          /* 9 L = 4095 */
    CHECK(bits("m4n4k456") == 11);
    CHECK(bits("m4n4k455_beta1") == 11);    /* E = 4095 + 8 */
    CHECK(bits("m4n4k3640") == 9);          /* 9 L = 32760 < 2^15 */
    CHECK(bits("m4n4k3641") == 0);          /* too long: the integers */
    CHECK(bits("m4n4k100_alpha0.5") == 12); /* E = 450 < 2^12 / 2 */
    CHECK(bits("m4n4k300_alpha1.5") == 11); /* E = 4050 >= 2^12 / 2 */
    CHECK(bits("m4n4k16_alpha0.3") == 0);   /* 0.3: 54 fractional bits */
    /* conv FWD_B: L = IC/G taps, E = 9 L + 8 with the bias */
    CHECK(bits("mb1ic50ih3oc4kh3ph1") == 12);   /* L = 450, E = 4058 */
    CHECK(bits("mb1ic51ih3oc4kh3ph1") == 11);   /* L = 459 */
    kb_problem w = parse("mb2ic4ih8oc4kh3ph1", KB_F32, KB_BWD_W, true);
    CHECK(kb_fill_fine_bits(&w) == 12);          /* L = N O P = 128 */

    /* Only f32 strict conv and GEMM. */
    kb_problem p = parse("m8n8k8", KB_BF16, KB_FWD_D, false);
    CHECK(kb_fill_fine_bits(&p) == 0);
    p = parse("m8n8k8", KB_F64, KB_FWD_D, false);
    CHECK(kb_fill_fine_bits(&p) == 0);
    p = parse("m8n8k8", KB_F32, KB_FWD_D, false);
    p.fpmath = KB_FPMATH_TF32;
    CHECK(kb_fill_fine_bits(&p) == 0);
    p = parse("mb2ic3ih5iw7", KB_F32, KB_FWD_D, false);
    CHECK(p.kind == KB_BNORM && kb_fill_fine_bits(&p) == 0);
}

/* Whether x survives rounding to TF32 (11 significant bits). */
static bool tf32_exact(double x)
{
    int e;
    double m = frexp(x, &e);   /* |m| in [1/2, 1) */
    return ldexp(m, 11) == nearbyint(ldexp(m, 11));
}

/* Tensor a of a filled problem: every value a multiple of 2^-s below
 * `max` in size; with `fine`, most not integers and most beyond TF32,
 * else all integers. */
static void values(const kb_problem *p, const kb_tensors *t, kb_arg a,
                   bool fine, double max)
{
    kb_arg_info info[KB_ARG_MAX];
    kb_problem_args(p, info);
    const int s = kb_fill_fine_bits(p);
    int64_t fractional = 0, beyond_tf32 = 0, bad = 0;
    for (int64_t i = 0; i < info[a].nelems; i++) {
        double x = kb_load(info[a].dt, t->ptr[a], i);
        if (ldexp(x, s) != nearbyint(ldexp(x, s)) || !(fabs(x) < max))
            bad++;
        fractional += x != nearbyint(x);
        beyond_tf32 += !tf32_exact(x);
    }
    CHECK(bad == 0);
    if (fine) {
        CHECK(fractional == info[a].nelems);   /* f != 0 always */
        CHECK(beyond_tf32 > info[a].nelems / 2);
    } else {
        CHECK(fractional == 0);
    }
}

/* One operand of each product carries the fractions: GEMM's A, conv's
 * src (forward, BWD_W) or diff_dst (BWD_D); the other stays integer. */
static void test_operands(void)
{
    static const struct {
        const char *desc;
        kb_dir dir;
        kb_arg fine, integer;
        double max;
    } cases[] = {
        {"m16n8k64_beta1", KB_FWD_D, KB_ARG_SRC, KB_ARG_WEI, 4.5},
        {"mb2ic8ih6oc8kh3ph1", KB_FWD_B, KB_ARG_SRC, KB_ARG_WEI, 4.5},
        {"mb2ic8ih6oc8kh3ph1", KB_BWD_W, KB_ARG_SRC, KB_ARG_DIFF_DST, 4.5},
        {"mb2ic8ih6oc8kh3ph1", KB_BWD_D, KB_ARG_DIFF_DST, KB_ARG_WEI, 2.5},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kb_problem p = parse(cases[i].desc, KB_F32, cases[i].dir, true);
        kb_tensors t, v;
        CHECK(kb_fill_fine_bits(&p) == 12);
        CHECK(kb_tensors_alloc(&p, &t) == 0 && kb_tensors_alloc(&p, &v) == 0);
        kb_fill_inputs(&p, &t, KB_FILL_FINE, 5);
        values(&p, &t, cases[i].fine, true, cases[i].max);
        values(&p, &t, cases[i].integer, false, 4.5);
        /* the integer parts are the VALIDATION values, to within 1/2 */
        kb_fill_inputs(&p, &v, KB_FILL_VALIDATION, 5);
        kb_arg_info info[KB_ARG_MAX];
        kb_problem_args(&p, info);
        int64_t off = 0;
        for (int64_t e = 0; e < info[cases[i].integer].nelems; e++)
            off += kb_load(KB_F32, t.ptr[cases[i].integer], e) !=
                   kb_load(KB_F32, v.ptr[cases[i].integer], e);
        CHECK(off == 0);
        kb_tensors_free(&t);
        kb_tensors_free(&v);
    }
    /* A problem the fill leaves alone gets the VALIDATION data exactly. */
    kb_problem q = parse("m8n8k32", KB_BF16, KB_FWD_D, false);
    kb_tensors a, b;
    CHECK(kb_tensors_alloc(&q, &a) == 0 && kb_tensors_alloc(&q, &b) == 0);
    kb_fill_inputs(&q, &a, KB_FILL_FINE, 5);
    kb_fill_inputs(&q, &b, KB_FILL_VALIDATION, 5);
    CHECK(memcmp(a.ptr[KB_ARG_SRC], b.ptr[KB_ARG_SRC], 8 * 32 * 2) == 0);
    kb_tensors_free(&a);
    kb_tensors_free(&b);
}

/* Every problem of the batch file gets the fine data, or its check
 * would not be one. */
static const char *batch_path_;   /* argv[1] */

static void test_batch_file(void)
{
    const char *path = batch_path_;
    kb_settings s;
    kb_problem_list l = {0};
    char err[512];
    kb_settings_default(&s);
    CHECK(kb_batch_load(path, &s, &l, err, sizeof err) == 0);
    CHECK(l.n > 0);
    for (size_t i = 0; i < l.n; i++) {
        char desc[256];
        kb_problem_format(&l.items[i], desc, sizeof desc);
        int b = kb_fill_fine_bits(&l.items[i]);
        printf("%-44s %s: %d fractional bits\n", desc,
               kb_dir_name(l.items[i].dir), b);
        CHECK(b >= 9);
    }
    kb_problem_list_free(&l);
}

static void test_mode_names(void)
{
    kb_fill_mode m;
    CHECK(kb_fill_mode_parse("fine", &m) == 0 && m == KB_FILL_FINE);
    CHECK(kb_fill_mode_parse("integer", &m) == 0 && m == KB_FILL_VALIDATION);
    CHECK(kb_fill_mode_parse("random", &m) != 0);
    CHECK_STR(kb_fill_mode_name(KB_FILL_FINE), "fine");
}

static const check_test tests[] = {
    CHECK_TEST(bound), CHECK_TEST(operands), CHECK_TEST(batch_file),
    CHECK_TEST(mode_names), CHECK_END};

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_fill_fine FP32_STRICT_BATCH_FILE [SUB-TEST...]\n");
        return 2;
    }
    batch_path_ = argv[1];
    return check_main_args(argc, argv, 1, tests);
}
