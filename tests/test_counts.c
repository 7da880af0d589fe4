/* test_counts.c - FLOP and byte counts against hand-computed values. */
#include "kernels/problem.h"
#include "tests/check.h"

static kb_problem parse(const char *text, const char *dir, kb_dtype dt)
{
    kb_settings s;
    kb_problem p;
    char err[512];
    kb_settings_default(&s);
    s.dt = dt;
    if (dir) {
        CHECK(kb_dir_parse(dir, &s.dir) == 0);
        s.dir_given = true;
    }
    memset(&p, 0, sizeof p);
    int rc = kb_problem_parse(text, &s, &p, err, sizeof err);
    CHECK(rc == 0);
    if (rc)
        fprintf(stderr, "  '%s': %s\n", text, err);
    return p;
}

static void test_conv(void)
{
    /* N2 C4 5x5 -> K3 3x3 (k3, no pad), default FWD_B (bias).
     * FLOPs 2*N*K*P*Q*C*R*S = 2*2*3*9*4*9 = 3888, bias N*K*P*Q = 54.
     * bytes 4*(src 2*4*25=200 + wei 3*4*9=108 + dst 2*3*9=54 + bias 3) = 1460 */
    kb_problem p = parse("mb2ic4ih5oc3kh3", NULL, KB_F32);
    CHECK(kb_problem_has_bias(&p));
    CHECK_NEAR(kb_problem_flops_nobias(&p), 3888, 0);
    CHECK_NEAR(kb_problem_flops(&p), 3942, 0);
    CHECK_NEAR(kb_problem_bytes(&p), 1460, 0);
    CHECK(kb_problem_accumulation_length(&p) == 36);
    /* FWD_D: no bias, 3888 FLOPs, 4*(200+108+54) = 1448 bytes */
    p = parse("mb2ic4ih5oc3kh3", "FWD_D", KB_F32);
    CHECK(!kb_problem_has_bias(&p));
    CHECK_NEAR(kb_problem_flops(&p), 3888, 0);
    CHECK_NEAR(kb_problem_bytes(&p), 1448, 0);
    /* groups 2, C/G = 2, N1 K2 3x3 1x1 kernel: 2*1*2*9*2*1 = 72 FLOPs;
     * f64 bytes 8*(src 36 + wei 2*2 + dst 18) = 464 */
    p = parse("mb1g2ic4ih3oc2kh1", "FWD_I", KB_F64);
    CHECK_NEAR(kb_problem_flops(&p), 72, 0);
    CHECK_NEAR(kb_problem_bytes(&p), 464, 0);
    CHECK(kb_problem_accumulation_length(&p) == 2);
    /* 3D: N1 C2 4^3 -> K1 2^3 with 3^3 kernel: 2*1*1*8*2*27 = 864;
     * bytes 4*(src 128 + wei 54 + dst 8) = 760 */
    p = parse("mb1ic2id4oc1kd3", "FWD_D", KB_F32);
    CHECK_NEAR(kb_problem_flops(&p), 864, 0);
    CHECK_NEAR(kb_problem_bytes(&p), 760, 0);
    CHECK(kb_problem_accumulation_length(&p) == 54);
}

static void test_gemm(void)
{
    /* 2*M*N*K = 2*2*3*4 = 48; bytes 4*(MK 8 + KN 12 + MN 6) = 104 */
    kb_problem p = parse("m2n3k4", NULL, KB_F32);
    CHECK(!kb_problem_has_bias(&p));
    CHECK_NEAR(kb_problem_flops(&p), 48, 0);
    CHECK_NEAR(kb_problem_bytes(&p), 104, 0);
    CHECK(kb_problem_accumulation_length(&p) == 4);
    /* beta != 0: + M*N = 54 FLOPs; C read and written: 4*(8+12+12) = 128 */
    p = parse("m2n3k4beta0.5", NULL, KB_F32);
    CHECK_NEAR(kb_problem_flops(&p), 54, 0);
    CHECK_NEAR(kb_problem_flops_nobias(&p), 54, 0);
    CHECK_NEAR(kb_problem_bytes(&p), 128, 0);
}

static void test_bnorm(void)
{
    /* N2 C3 4x5: 120 elements.  Training 5/elem = 600, inference 2/elem =
     * 240; bytes 4*(2*120 + 4*3) = 1008 either way; mean over N*H*W = 40 */
    kb_problem p = parse("mb2ic3ih4iw5", NULL, KB_F32);
    CHECK(p.dir == KB_FWD_D && !kb_problem_has_bias(&p));
    CHECK_NEAR(kb_problem_flops(&p), 600, 0);
    CHECK_NEAR(kb_problem_bytes(&p), 1008, 0);
    CHECK(kb_problem_accumulation_length(&p) == 40);
    p = parse("mb2ic3ih4iw5", "FWD_I", KB_F32);
    CHECK_NEAR(kb_problem_flops(&p), 240, 0);
    CHECK_NEAR(kb_problem_bytes(&p), 1008, 0);
}

/* Pointwise convolutions: the ones whose input is already the GEMM's
 * column matrix (both GEMM-based backends skip the transform for them). */
static bool pointwise(const char *desc)
{
    kb_problem p = parse(desc, "FWD_D", KB_F32);
    return kb_conv_is_pointwise(&p.conv);
}

static void test_pointwise(void)
{
    CHECK(pointwise("mb2ic8ih6oc16kh1"));
    CHECK(pointwise("mb1ic4id4ih4oc8kd1kh1"));
    CHECK(!pointwise("mb2ic8ih6oc16kh1sh2"));
    CHECK(!pointwise("mb2ic8ih6oc16kh1ph1"));
    CHECK(!pointwise("mb2ic8ih6oc16kh3ph1"));
    CHECK(!pointwise("mb1ic4id4ih4oc8kd3kh1pd1"));
}

int main(void)
{
    test_pointwise();
    test_conv();
    test_gemm();
    test_bnorm();
    return CHECK_DONE();
}
