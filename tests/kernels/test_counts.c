/* test_counts.c - FLOP and byte counts against hand-computed values: conv
 * taps in bounds and dense, the model overstatements issue 9 names,
 * training bnorm bytes with src in and out of the last-level cache, and
 * the backward passes: conv's multiply-adds enumerated the way each
 * direction gathers them, bnorm's counts and bytes. */
#include "kernels/problem.h"
#include "tests/check.h"

static kb_problem parse(const char *text, const char *dir, kb_dtype dt)
{
    kb_settings s;
    kb_problem p;
    char err[512];
    kb_settings_default(&s);
    s.dt = kb_dts_uniform(dt);
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
    CHECK_NEAR(kb_problem_bytes(&p, 0), 1460, 0);
    CHECK(kb_problem_accumulation_length(&p) == 36);
    /* FWD_D: no bias, 3888 FLOPs, 4*(200+108+54) = 1448 bytes */
    p = parse("mb2ic4ih5oc3kh3", "FWD_D", KB_F32);
    CHECK(!kb_problem_has_bias(&p));
    CHECK_NEAR(kb_problem_flops(&p), 3888, 0);
    CHECK_NEAR(kb_problem_bytes(&p, 0), 1448, 0);
    /* groups 2, C/G = 2, N1 K2 3x3 1x1 kernel: 2*1*2*9*2*1 = 72 FLOPs;
     * f64 bytes 8*(src 36 + wei 2*2 + dst 18) = 464 */
    p = parse("mb1g2ic4ih3oc2kh1", "FWD_I", KB_F64);
    CHECK_NEAR(kb_problem_flops(&p), 72, 0);
    CHECK_NEAR(kb_problem_bytes(&p, 0), 464, 0);
    CHECK(kb_problem_accumulation_length(&p) == 2);
    /* 3D: N1 C2 4^3 -> K1 2^3 with 3^3 kernel: 2*1*1*8*2*27 = 864;
     * bytes 4*(src 128 + wei 54 + dst 8) = 760 */
    p = parse("mb1ic2id4oc1kd3", "FWD_D", KB_F32);
    CHECK_NEAR(kb_problem_flops(&p), 864, 0);
    CHECK_NEAR(kb_problem_bytes(&p, 0), 760, 0);
    CHECK(kb_problem_accumulation_length(&p) == 54);
}

/* Taps inside the input, by direct enumeration of every output position
 * and every tap: the oracle for the separable count. */
static double brute_taps(const kb_conv_desc *c)
{
    const int64_t in[3] = {c->id, c->ih, c->iw}, k[3] = {c->kd, c->kh, c->kw},
                  s[3] = {c->sd, c->sh, c->sw}, pad[3] = {c->pd, c->ph, c->pw},
                  dil[3] = {c->dd + 1, c->dh + 1, c->dw + 1};
    double n = 0;
    for (int64_t od = 0; od < c->od; od++)
        for (int64_t oh = 0; oh < c->oh; oh++)
            for (int64_t ow = 0; ow < c->ow; ow++)
                for (int64_t kd = 0; kd < k[0]; kd++)
                    for (int64_t kh = 0; kh < k[1]; kh++)
                        for (int64_t kw = 0; kw < k[2]; kw++) {
                            const int64_t o[3] = {od, oh, ow}, t[3] = {kd, kh, kw};
                            bool inside = true;
                            for (int d = 0; d < 3; d++) {
                                int64_t i = o[d] * s[d] - pad[d] + t[d] * dil[d];
                                inside = inside && i >= 0 && i < in[d];
                            }
                            n += inside;
                        }
    return n;
}

/* FWD_D conv: FLOPs in bounds and dense, and the bytes, which padding
 * does not change. */
static void check_conv(const char *desc, double flops, double dense)
{
    kb_problem p = parse(desc, "FWD_D", KB_F32);
    const kb_conv_desc *c = &p.conv;
    CHECK_NEAR(kb_problem_flops(&p), flops, 0);
    CHECK_NEAR(kb_problem_flops_nobias(&p), flops, 0);
    CHECK_NEAR(kb_problem_flops_dense(&p), dense, 0);
    CHECK_NEAR(kb_problem_flops_dense_nobias(&p), dense, 0);
    CHECK_NEAR(kb_problem_flops(&p),
               2.0 * c->mb * c->oc * (c->ic / c->g) * brute_taps(c), 0);
    double src = (double)c->mb * c->ic * c->id * c->ih * c->iw;
    double wei = (double)c->oc * (c->ic / c->g) * c->kd * c->kh * c->kw;
    CHECK_NEAR(kb_problem_bytes(&p, 0),
               4 * (src + wei + (double)c->mb * c->oc * c->od * c->oh * c->ow), 0);
    if (kb_problem_flops(&p) != flops)
        fprintf(stderr, "  in '%s'\n", desc);
}

static void test_conv_padded(void)
{
    /* 3x3 pad 1 on 4x4: per dim outputs 0..3 see 2, 3, 3, 2 taps = 10, so
     * 100 of 144 positions (corners 4 taps, edges 6, interior 9:
     * 16 + 48 + 36).  N2 K3 C2: 2*2*3*2*100 = 2400; dense 2*2*3*2*144. */
    check_conv("mb2ic2ih4oc3kh3ph1", 2400, 3456);
    /* groups 2 (C/G 2, K 2) and depthwise (C/G 1, K 4): 2*2*2*100, 2*4*1*100 */
    check_conv("mb1g2ic4ih4oc2kh3ph1", 800, 1152);
    check_conv("mb1g4ic4ih4oc4kh3ph1", 800, 1152);
    /* dilation 2 (dh1), pad 2, 5x6 -> 5x6: taps at o - 2 + 2k.  H: k=0
     * for o >= 2 (3), k=1 always (5), k=2 for o < 3 (3) = 11; W: 4 + 6 + 4
     * = 14.  2*154 = 308; dense 2*30*9 = 540 */
    check_conv("mb1ic1ih5iw6oc1kh3dh1ph2", 308, 540);
    /* stride 2, pad 1, 6x5 -> 3x3: H taps at 2o - 1 + k: 2 + 3 + 3 = 8 (the
     * last window ends inside); W: 2 + 3 + 2 = 7.  2*56 = 112; dense 2*81 */
    check_conv("mb1ic1ih6iw5oc1kh3sh2ph1", 112, 162);
    /* 1x1 with pad 2 on 2x2 -> 6x6: only the 4 outputs over the input */
    check_conv("mb1ic1ih2oc1kh1ph2", 8, 72);
    /* 3D, 3^3 pad 1 on 3^3: 2 + 3 + 2 = 7 per dim, 343 of 729; C2 K1 */
    check_conv("mb1ic2id3oc1kd3pd1", 2 * 2 * 343, 2 * 2 * 729);
    /* 3D with its own kernel, stride, pad and dilation per dim (D strided,
     * H dilated and over-padded, W unpadded), against the enumeration */
    kb_problem p = parse("mb1ic3id5ih7iw4oc2kd3kh2kw3sd2sh1sw1pd1ph3pw0dd0dh2dw0",
                         "FWD_D", KB_F32);
    CHECK_NEAR(kb_problem_flops(&p), 2.0 * 2 * 3 * brute_taps(&p.conv), 0);
    CHECK(kb_problem_flops(&p) < kb_problem_flops_dense(&p));

    /* FWD_B: the bias adds one FLOP per output element to both counts */
    p = parse("mb1ic1ih4oc1kh3ph1", "FWD_B", KB_F32);
    CHECK_NEAR(kb_problem_flops(&p), 200 + 16, 0);
    CHECK_NEAR(kb_problem_flops_nobias(&p), 200, 0);
    CHECK_NEAR(kb_problem_flops_dense(&p), 288 + 16, 0);
    CHECK_NEAR(kb_problem_flops_dense_nobias(&p), 288, 0);
    /* the tolerance model's dot-product length stays the dense one */
    CHECK(kb_problem_accumulation_length(&p) == 9);
}

/* Unpadded convolutions (strided and dilated too) have no tap outside the
 * input: both counts agree. */
static void test_conv_unpadded(void)
{
    static const char *const descs[] = {
        "mb2ic4ih5oc3kh3", "mb2ic4ih9oc3kh3sh2dh1", "mb1ic2id4oc1kd3",
        "mb1g2ic4ih7iw5oc4kh3kw2sh2sw3", "mb2ic8ih6oc16kh1",
    };
    for (size_t i = 0; i < sizeof descs / sizeof descs[0]; i++) {
        kb_problem p = parse(descs[i], "FWD_D", KB_F32);
        const kb_conv_desc *c = &p.conv;
        CHECK_NEAR(kb_problem_flops(&p), kb_problem_flops_dense(&p), 0);
        CHECK_NEAR(kb_problem_flops(&p),
                   2.0 * c->mb * c->oc * (c->ic / c->g) * brute_taps(c), 0);
    }
}

/* dense / in bounds for a catalog layer (its line, verbatim). */
static double overstatement(const char *desc)
{
    kb_problem p = parse(desc, NULL, KB_F32);
    return kb_problem_flops_dense_nobias(&p) / kb_problem_flops_nobias(&p);
}

/* The overstatements issue 9 names, to its rounding (whole percent):
 * CosmoFlow conv3d_5 (8^3, pad 1: (24/22)^3), DeepCAM ASPP rate 12 and 18
 * (48x72, 3x3 dilated by the rate, padded by it). */
static void test_model_deltas(void)
{
    CHECK(fabs(overstatement("ic256id8oc512od8kd3pd1_nconv3d_5") - 1.30) < 0.005);
    CHECK(fabs(overstatement("ic2048ih48iw72oc256oh48ow72kh3ph12dh11_nD35_aspp_rate12") -
               1.35) < 0.005);
    CHECK(fabs(overstatement("ic2048ih48iw72oc256oh48ow72kh3ph18dh17_nD36_aspp_rate18") -
               1.60) < 0.005);
    /* rate 6 and the pointwise rate 1 for contrast: 1.14 and exactly 1 */
    CHECK(fabs(overstatement("ic2048ih48iw72oc256oh48ow72kh3ph6dh5_nD34_aspp_rate6") -
               (144.0 / 132) * (216.0 / 204)) < 1e-12);
    CHECK(overstatement("ic2048ih48iw72oc256oh48ow72kh1ph0_nD33_aspp_rate1") == 1.0);
}

static void test_gemm(void)
{
    /* 2*M*N*K = 2*2*3*4 = 48; bytes 4*(MK 8 + KN 12 + MN 6) = 104 */
    kb_problem p = parse("m2n3k4", NULL, KB_F32);
    CHECK(!kb_problem_has_bias(&p));
    CHECK_NEAR(kb_problem_flops(&p), 48, 0);
    CHECK_NEAR(kb_problem_bytes(&p, 0), 104, 0);
    CHECK(kb_problem_accumulation_length(&p) == 4);
    /* beta != 0: + M*N = 54 FLOPs; C read and written: 4*(8+12+12) = 128 */
    p = parse("m2n3k4beta0.5", NULL, KB_F32);
    CHECK_NEAR(kb_problem_flops(&p), 54, 0);
    CHECK_NEAR(kb_problem_flops_nobias(&p), 54, 0);
    CHECK_NEAR(kb_problem_bytes(&p, 0), 128, 0);
}

static void test_bnorm(void)
{
    /* N2 C3 4x5: 120 elements.  Training 5/elem = 600, inference 2/elem =
     * 240; bytes 4*(2*120 + 4*3) = 1008 either way; mean over N*H*W = 40 */
    kb_problem p = parse("mb2ic3ih4iw5", NULL, KB_F32);
    CHECK(p.dir == KB_FWD_D && !kb_problem_has_bias(&p));
    CHECK_NEAR(kb_problem_flops(&p), 600, 0);
    CHECK_NEAR(kb_problem_bytes(&p, 0), 1008, 0);
    CHECK(kb_problem_accumulation_length(&p) == 40);
    p = parse("mb2ic3ih4iw5", "FWD_I", KB_F32);
    CHECK_NEAR(kb_problem_flops(&p), 240, 0);
    CHECK_NEAR(kb_problem_bytes(&p, 0), 1008, 0);
}

/* Training bnorm reads src in the statistics pass and again in the
 * normalise pass: from memory when one channel's slice (here 4*2*20 = 160
 * bytes) does not fit in the last-level cache, 4*(3*120 + 12) = 1488
 * bytes. */
static void test_bnorm_llc(void)
{
    kb_problem p = parse("mb2ic3ih4iw5", NULL, KB_F32);
    static const struct {
        double llc, bytes;
        bool reread;
    } cases[] = {
        {0, 1008, false},            /* unknown: the minimum, one read */
        {1 << 20, 1008, false},      /* fits */
        {480, 1008, false},          /* the whole tensor fits */
        {160, 1008, false},          /* one channel's slice fits exactly */
        {159, 1488, true},           /* one byte short */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK_NEAR(kb_problem_bytes(&p, cases[i].llc), cases[i].bytes, 0);
        CHECK(kb_problem_bytes_reread(&p, cases[i].llc) == cases[i].reread);
    }
    /* f64: a slice is 320 bytes, so 160 no longer holds it */
    p = parse("mb2ic3ih4iw5", NULL, KB_F64);
    CHECK_NEAR(kb_problem_bytes(&p, 160), 8 * (3 * 120 + 12), 0);
    /* inference reads src once; conv and GEMM do not depend on the cache */
    p = parse("mb2ic3ih4iw5", "FWD_I", KB_F32);
    CHECK_NEAR(kb_problem_bytes(&p, 1), 1008, 0);
    CHECK(!kb_problem_bytes_reread(&p, 1));
    p = parse("mb2ic4ih5oc3kh3", NULL, KB_F32);
    CHECK_NEAR(kb_problem_bytes(&p, 1), 1460, 0);
    p = parse("m2n3k4", NULL, KB_F32);
    CHECK_NEAR(kb_problem_bytes(&p, 1), 104, 0);
    /* DeepCAM's largest training bnorm, 256x384x576 (226 MB at mb 1),
     * against a 32 MiB L3: at mb 1 a channel is 885 KB and stays in cache;
     * at mb 64 (57 MB a channel) src is read twice */
    p = parse("mb1ic256ih384iw576", NULL, KB_F32);
    CHECK(!kb_problem_bytes_reread(&p, 32.0 * (1 << 20)));
    p = parse("mb64ic256ih384iw576", NULL, KB_F32);
    CHECK(kb_problem_bytes_reread(&p, 32.0 * (1 << 20)));
    CHECK_NEAR(kb_problem_bytes(&p, 32.0 * (1 << 20)),
               4 * (3.0 * 64 * 256 * 384 * 576 + 4 * 256), 0);
}


/* BWD_D's multiply-adds, enumerated as BWD_D gathers them: for every
 * input position and tap, whether an output position reads it there
 * (i = o*s - p + t*dil for an integral, in-range o).  Per (image, input
 * channel, output channel of its group). */
static double brute_taps_bwd_d(const kb_conv_desc *c)
{
    const int64_t in[3] = {c->id, c->ih, c->iw}, out[3] = {c->od, c->oh, c->ow},
                  k[3] = {c->kd, c->kh, c->kw}, s[3] = {c->sd, c->sh, c->sw},
                  pad[3] = {c->pd, c->ph, c->pw},
                  dil[3] = {c->dd + 1, c->dh + 1, c->dw + 1};
    double n = 0;
    for (int64_t id = 0; id < in[0]; id++)
        for (int64_t ih = 0; ih < in[1]; ih++)
            for (int64_t iw = 0; iw < in[2]; iw++)
                for (int64_t kd = 0; kd < k[0]; kd++)
                    for (int64_t kh = 0; kh < k[1]; kh++)
                        for (int64_t kw = 0; kw < k[2]; kw++) {
                            const int64_t i[3] = {id, ih, iw}, t[3] = {kd, kh, kw};
                            bool reads = true;
                            for (int d = 0; d < 3; d++) {
                                int64_t num = i[d] + pad[d] - t[d] * dil[d];
                                reads = reads && num >= 0 && num % s[d] == 0 &&
                                        num / s[d] < out[d];
                            }
                            n += reads;
                        }
    return n;
}

/* The three conv directions of desc count the same multiply-adds (BWD_D
 * enumerated by input element), BWD_WB one more FLOP per diff_dst
 * element; bytes are each direction's tensors in their storage types
 * (bf16:bf16:f32: diff_src as src, diff_wei as wei, diff_dst and
 * diff_bia as dst); accumulation lengths are each direction's sums. */
static void check_conv_backward(const char *desc)
{
    kb_problem f = parse(desc, "FWD_D", KB_F32);
    const kb_conv_desc *c = &f.conv;
    const double macs = (double)c->mb * c->ic * (c->oc / c->g) * brute_taps_bwd_d(c);
    const double src = (double)c->mb * c->ic * c->id * c->ih * c->iw;
    const double wei = (double)c->oc * (c->ic / c->g) * c->kd * c->kh * c->kw;
    const double dst = (double)c->mb * c->oc * c->od * c->oh * c->ow;
    static const char *const dirs[] = {"BWD_D", "BWD_W", "BWD_WB"};
    CHECK_NEAR(kb_problem_flops(&f), 2 * macs, 0);
    for (int i = 0; i < 3; i++) {
        kb_problem p = parse(desc, dirs[i], KB_F32);
        bool wb = i == 2;
        CHECK_NEAR(kb_problem_flops(&p), 2 * macs + (wb ? dst : 0), 0);
        CHECK_NEAR(kb_problem_flops_nobias(&p), 2 * macs, 0);
        CHECK_NEAR(kb_problem_flops_dense_nobias(&p),
                   kb_problem_flops_dense_nobias(&f), 0);
        p.dt = (kb_dts){KB_BF16, KB_BF16, KB_F32};
        double bytes = i == 0 ? 4 * dst + 2 * wei + 2 * src
                              : 2 * src + 4 * dst + 2 * wei + (wb ? 4.0 * c->oc : 0);
        CHECK_NEAR(kb_problem_bytes(&p, 1), bytes, 0);
        CHECK(kb_problem_accumulation_length(&p) ==
              (i == 0 ? c->oc / c->g * c->kd * c->kh * c->kw
                      : c->mb * c->od * c->oh * c->ow));
        if (kb_problem_flops_nobias(&p) != 2 * macs)
            fprintf(stderr, "  in '%s' %s\n", desc, dirs[i]);
    }
}

static void test_conv_backward(void)
{
    check_conv_backward("mb2ic4ih5oc3kh3");
    check_conv_backward("mb2g2ic4oc6ih7iw6kh3kw2sh2sw2ph1pw1dh1");
    check_conv_backward("mb1g3ic3oc3id8ih4iw5kd2kh2kw3sd3pd2dd1ph1pw1");
    check_conv_backward("mb1ic2ih9oc2kh3sh3ph4");    /* rows of padding only */
}

/* bnorm backward, N2 C3 4x5 (120 elements), 7 FLOPs each = 840 in both
 * directions; bytes: src, diff_dst, diff_src (4*360) + mean, var, scale
 * (4*9) = 1476, BWD_DW also diff_scale and diff_shift: 1500; in bf16 the
 * activations take 2 bytes and the per-channel tensors stay f32: 756.
 * A channel's slices of src and diff_dst are 2*4*40 = 320 bytes: one byte
 * less of cache and both are read twice, 1476 + 4*240. */
static void test_bnorm_backward(void)
{
    kb_problem p = parse("mb2ic3ih4iw5", "BWD_D", KB_F32);
    CHECK_NEAR(kb_problem_flops(&p), 840, 0);
    CHECK_NEAR(kb_problem_bytes(&p, 0), 1476, 0);
    CHECK(kb_problem_accumulation_length(&p) == 40);
    CHECK(!kb_problem_bytes_reread(&p, 320));
    CHECK(kb_problem_bytes_reread(&p, 319));
    CHECK_NEAR(kb_problem_bytes(&p, 319), 1476 + 960, 0);
    p = parse("mb2ic3ih4iw5", "BWD_DW", KB_F32);
    CHECK_NEAR(kb_problem_flops(&p), 840, 0);
    CHECK_NEAR(kb_problem_bytes(&p, 0), 1500, 0);
    p = parse("mb2ic3ih4iw5", "BWD_D", KB_BF16);
    CHECK_NEAR(kb_problem_bytes(&p, 0), 756, 0);
    CHECK(!kb_problem_bytes_reread(&p, 160));
    CHECK(kb_problem_bytes_reread(&p, 159));
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

static const check_test tests[] = {
    CHECK_TEST(pointwise),
    CHECK_TEST(conv),
    CHECK_TEST(conv_padded),
    CHECK_TEST(conv_unpadded),
    CHECK_TEST(model_deltas),
    CHECK_TEST(gemm),
    CHECK_TEST(bnorm),
    CHECK_TEST(bnorm_llc),
    CHECK_TEST(conv_backward),
    CHECK_TEST(bnorm_backward),
    CHECK_END,
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, tests);
}
