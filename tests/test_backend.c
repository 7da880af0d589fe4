/* test_backend.c - one backend (named on the command line) against the
 * reference on small shapes of every kernel: GEMM transposes, alpha/beta
 * and sizes off the tile grid and past one block in each dimension; conv
 * groups, depthwise, dilation, stride, padding, 3D, the 1x1 path, bias or
 * not, both layouts; bnorm inference and training, 2D and 3D, both
 * layouts; each in f32 and f64.  A case the backend does not support must
 * say why; at least one case of each kernel must run. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "reference/reference.h"
#include "tests/check.h"

static const kb_backend *be;
static int ran[3];             /* cases run per kernel kind */

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
                          kb_dtype dt, int runs)
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
    p.dt = dt;
    if (!be->supports(&p, why, sizeof(why))) {
        CHECK(why[0] != '\0');   /* a SKIPPED case always says why */
        return;
    }
    ran[p.kind]++;
    if (kb_tensors_alloc(&p, &in) != 0 || kb_tensors_alloc(&p, &t) != 0) {
        CHECK(!"tensor allocation");
        goto out;
    }
    kb_fill_inputs(&p, &in, KB_FILL_VALIDATION, 7);
    kb_fill_inputs(&p, &t, KB_FILL_VALIDATION, 7);
    kb_poison_outputs(&p, &t);

    CHECK(be->prepare(&p, &t, &plan, err, sizeof(err)) == 0);
    if (!plan) {
        fprintf(stderr, "%s: prepare failed: %s\n", desc, err);
        goto out;
    }
    for (int r = 0; r < runs; r++) {
        CHECK(be->run(plan, &elapsed, err, sizeof(err)) == 0);
        CHECK(elapsed == -1.0 || elapsed >= 0.0);
    }
    if (be->read_output)
        CHECK(be->read_output(plan, err, sizeof(err)) == 0);
    be->release(plan);

    bool ok = kb_validate(&p, &in, &t, &opts, &v);
    CHECK(ok);
    CHECK(!v.sampled);
    CHECK(v.checked > 0);
    if (!ok)
        fprintf(stderr, "%s [%s %s %s %s]: %lld mismatches, %s\n", desc,
                be->name, kb_dtype_name(dt), kb_layout_name(&p), kb_dir_name(dir),
                (long long)v.mismatches, v.first_mismatch);
out:
    kb_tensors_free(&in);
    kb_tensors_free(&t);
}

static void test_gemm(kb_dtype dt)
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
        /* Fully connected shapes (M below the 8-row tile): B read in
         * place, row-major (several 1024-column blocks, strided A) or
         * transposed (K in several blocks), and the fallback to the
         * packed engine when both operands are transposed. */
        "m5n2085k70_alpha2_beta0.5",
        "m2n50k9_ta",
        "m4n40k2100_tb_beta1",
        "m7n33k300_ta_tb",
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        check_problem(cases[i], KB_LAYOUT_NCX, KB_FWD_D, dt, 1);
}

static void test_conv(kb_layout layout, kb_dtype dt)
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
        check_problem(cases[i], layout, KB_FWD_B, dt, 2);
        check_problem(cases[i], layout, KB_FWD_D, dt, 2);
    }
}

static void test_bnorm(kb_layout layout, kb_dtype dt)
{
    static const char *const cases[] = {
        "mb2ic3ih5iw7",
        "mb1ic17ih1iw1",
        "mb3ic5id4ih3iw2",
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        check_problem(cases[i], layout, KB_FWD_I, dt, 2);
        check_problem(cases[i], layout, KB_FWD_D, dt, 2);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_backend BACKEND\n");
        return 2;
    }
    be = kb_backend_find(argv[1]);
    CHECK(be != NULL);
    if (!be)
        return CHECK_DONE();
    for (kb_dtype dt = KB_F32; dt <= KB_F64; dt++) {
        test_gemm(dt);
        test_conv(KB_LAYOUT_NCX, dt);
        test_conv(KB_LAYOUT_NXC, dt);
        test_bnorm(KB_LAYOUT_NCX, dt);
        test_bnorm(KB_LAYOUT_NXC, dt);
    }
    /* Every backend implements GEMM and convolution; batchnorm is
     * optional (OpenBLAS has none). */
    CHECK(ran[KB_GEMM] > 0);
    CHECK(ran[KB_CONV] > 0);
    printf("%s: ran %d gemm, %d conv, %d bnorm cases\n", be->name,
           ran[KB_GEMM], ran[KB_CONV], ran[KB_BNORM]);
    return CHECK_DONE();
}
