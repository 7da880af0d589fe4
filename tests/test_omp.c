/* test_omp.c - the omp backend against the reference on small shapes of
 * every kernel: GEMM transposes, alpha/beta and sizes off the tile grid
 * and past one block in each dimension; conv groups, depthwise, dilation,
 * stride, padding, 3D, the 1x1 path, bias or not, both layouts; bnorm
 * inference and training, 2D and 3D, both layouts; the f64 refusal; and
 * the registry. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "reference/reference.h"
#include "tests/check.h"

static const kb_backend *omp;

/* Parse desc with the given layout and direction; 0 or -1 (printed). */
static int parse(const char *desc, kb_layout layout, kb_dir dir,
                 kb_problem *p)
{
    kb_settings s;
    char err[256];
    kb_settings_default(&s);
    s.layout = layout;
    s.dir = dir;
    s.dir_given = true;
    if (kb_problem_parse(desc, &s, p, err, sizeof(err)) != 0) {
        fprintf(stderr, "cannot parse \"%s\": %s\n", desc, err);
        return -1;
    }
    return 0;
}

/* Run p on omp `runs` times over validation data and compare every
 * output point with the reference.  The inputs are filled twice from the
 * same seed, so one copy stays untouched for GEMM's beta (dst is input
 * and output there).  Conv and bnorm run twice: a second run must not
 * depend on what the first left; GEMM with beta != 0 accumulates into
 * dst, so it runs once. */
static void check_problem(const char *desc, kb_layout layout, kb_dir dir,
                          int runs)
{
    kb_problem p;
    kb_tensors in = {0}, t = {0};
    kb_validation v;
    kb_validate_opts opts = { .full_max_macs = INT64_MAX };
    void *plan = NULL;
    char err[256] = "", why[128] = "";
    double elapsed = 0;

    if (parse(desc, layout, dir, &p) != 0) {
        CHECK(!"descriptor parses");
        return;
    }
    CHECK(omp->supports(&p, why, sizeof(why)));
    if (kb_tensors_alloc(&p, &in) != 0 || kb_tensors_alloc(&p, &t) != 0) {
        CHECK(!"tensor allocation");
        goto out;
    }
    kb_fill_inputs(&p, &in, KB_FILL_VALIDATION, 7);
    kb_fill_inputs(&p, &t, KB_FILL_VALIDATION, 7);
    kb_poison_outputs(&p, &t);

    CHECK(omp->prepare(&p, &t, &plan, err, sizeof(err)) == 0);
    if (!plan) {
        fprintf(stderr, "%s: prepare failed: %s\n", desc, err);
        goto out;
    }
    for (int r = 0; r < runs; r++) {
        CHECK(omp->run(plan, &elapsed, err, sizeof(err)) == 0);
        CHECK(elapsed == -1.0);
    }
    omp->release(plan);

    bool ok = kb_validate(&p, &in, &t, &opts, &v);
    CHECK(ok);
    CHECK(!v.sampled);
    CHECK(v.checked > 0);
    if (!ok)
        fprintf(stderr, "%s [%s %s]: %lld mismatches, %s\n", desc,
                kb_layout_name(&p), kb_dir_name(dir),
                (long long)v.mismatches, v.first_mismatch);
out:
    kb_tensors_free(&in);
    kb_tensors_free(&t);
}

static void test_gemm(void)
{
    static const char *const cases[] = {
        "m1n1k1",
        "m17n33k65",
        "m17n33k65_ta",
        "m17n33k65_tb_alpha1.5",
        "m17n33k65_ta_tb_alpha-2_beta0.5",
        "m9n7k3_beta1",
        /* Past one MC (192), NC (2048) and KC (256) block, off the
         * 8x32 tile grid. */
        "m201n2085k300",
        "m201n2085k300_ta_tb_alpha0.5_beta2",
        "m3n1000k20_tb",
        "m1000n3k20_ta",
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        check_problem(cases[i], KB_LAYOUT_NCX, KB_FWD_D, 1);
}

static void test_conv(kb_layout layout)
{
    static const char *const cases[] = {
        "mb2ic3oc5ih7iw9kh3kw3ph1pw1",          /* odd sizes, padding */
        "mb1ic8oc16ih6iw6kh1kw1",               /* 1x1 stride-1 path */
        "mb2ic8oc16ih7iw7kh1kw1sh2sw2",         /* strided 1x1 */
        "g2mb2ic8oc12ih9iw8kh3kw2sh2sw1ph1pw0dh1dw0", /* groups, dilation */
        "g4mb1ic4oc8ih9iw9kh3kw3ph2pw2dh1dw1",  /* depthwise x2 multiplier */
        "g6mb2ic6oc6ih10iw11kh3kw3sh2sw1ph1pw1dh1", /* depthwise strided */
        "g5mb1ic5oc5ih8iw8kh3kw3ph6dh5",        /* DeepCAM-like ASPP */
        "mb1ic40oc300ih20iw20kh3kw3ph1",        /* > KC deep, > MC high */
        "mb1ic3oc4id6ih5iw7kd2kh3kw2sd2sh1sw2pd1ph1pw0dd0dh1dw0", /* 3D */
        "g3mb2ic3oc6id5ih5iw5kd3kh3kw3pd1ph1pw1", /* 3D depthwise */
        "mb1ic4oc8id4ih4iw4kd1kh1kw1",          /* 3D 1x1 */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        check_problem(cases[i], layout, KB_FWD_B, 2);
        check_problem(cases[i], layout, KB_FWD_D, 2);
    }
}

static void test_bnorm(kb_layout layout)
{
    static const char *const cases[] = {
        "mb2ic3ih5iw7",
        "mb1ic17ih1iw1",
        "mb3ic5id4ih3iw2",
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        check_problem(cases[i], layout, KB_FWD_I, 2);
        check_problem(cases[i], layout, KB_FWD_D, 2);
    }
}

static void test_refuses_f64(void)
{
    static const char *const cases[] = {"m4n4k4", "mb1ic4oc4ih4kh3",
                                        "mb1ic4ih4"};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        kb_problem p;
        char why[128] = "", err[128] = "";
        void *plan = (void *)1;
        if (parse(cases[i], KB_LAYOUT_NCX, KB_FWD_D, &p) != 0) {
            CHECK(!"parse");
            continue;
        }
        p.dt = KB_F64;
        CHECK(!omp->supports(&p, why, sizeof(why)));
        CHECK(strstr(why, "f32 only") != NULL);
        kb_tensors none = {0};
        CHECK(omp->prepare(&p, &none, &plan, err, sizeof(err)) == -1);
        CHECK(plan == NULL);
        CHECK(err[0] != '\0');
    }
}

/* A second table that only needs a name for the registry. */
static const kb_backend fake = { .name = "fake", .kind = "hand",
                                 .device = "cpu" };

static void test_registry(void)
{
    int n = kb_backend_count();
    CHECK(n >= 1);
    CHECK(kb_backend_at(0) == omp);
    CHECK(kb_backend_at(-1) == NULL);
    CHECK(kb_backend_at(n) == NULL);
    CHECK(kb_backend_find("nonesuch") == NULL);
    CHECK_STR(omp->kind, "hand");
    CHECK_STR(omp->device, "cpu");
    CHECK(omp->read_output == NULL);

    CHECK(kb_backend_register(&fake) == 0);
    CHECK(kb_backend_count() == n + 1);
    CHECK(kb_backend_find("fake") == &fake);
    CHECK(kb_backend_register(&fake) == -1);          /* name taken */
    CHECK(kb_backend_register(kb_backend_at(0)) == -1);

    kb_info info = {0};
    omp->describe(&info);
    bool has_openmp = false, has_tile = false;
    for (int i = 0; i < info.n; i++) {
        has_openmp |= strcmp(info.kv[i].key, "openmp") == 0;
        has_tile |= strcmp(info.kv[i].key, "micro_kernel") == 0;
    }
    CHECK(has_openmp && has_tile);
}

int main(void)
{
    omp = kb_backend_find("omp");
    CHECK(omp != NULL);
    if (!omp)
        return CHECK_DONE();
    test_gemm();
    test_conv(KB_LAYOUT_NCX);
    test_conv(KB_LAYOUT_NXC);
    test_bnorm(KB_LAYOUT_NCX);
    test_bnorm(KB_LAYOUT_NXC);
    test_refuses_f64();
    test_registry();
    return CHECK_DONE();
}
