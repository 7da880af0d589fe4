/* test_descriptor.c - descriptor parsing, benchdnn semantics, errors, round trips. */
#include "kernels/problem.h"
#include "tests/check.h"

#include <stdarg.h>
#include <string.h>

static kb_settings defaults(void)
{
    kb_settings s;
    kb_settings_default(&s);
    return s;
}

/* Field-by-field equality (a union and padding rule out memcmp). */
static bool same_problem(const kb_problem *a, const kb_problem *b)
{
    if (a->kind != b->kind || strcmp(a->name, b->name) || a->count != b->count ||
        memcmp(&a->dt, &b->dt, sizeof a->dt) != 0 || a->layout != b->layout || a->dir != b->dir)
        return false;
    if (a->kind == KB_CONV) {
        const kb_conv_desc *x = &a->conv, *y = &b->conv;
        return x->ndims == y->ndims && x->mb == y->mb && x->g == y->g &&
               x->ic == y->ic && x->oc == y->oc && x->id == y->id &&
               x->ih == y->ih && x->iw == y->iw && x->od == y->od &&
               x->oh == y->oh && x->ow == y->ow && x->kd == y->kd &&
               x->kh == y->kh && x->kw == y->kw && x->sd == y->sd &&
               x->sh == y->sh && x->sw == y->sw && x->pd == y->pd &&
               x->ph == y->ph && x->pw == y->pw && x->dd == y->dd &&
               x->dh == y->dh && x->dw == y->dw;
    }
    if (a->kind == KB_GEMM) {
        const kb_gemm_desc *x = &a->gemm, *y = &b->gemm;
        return x->m == y->m && x->n == y->n && x->k == y->k &&
               x->m_is_mb == y->m_is_mb && x->ta == y->ta && x->tb == y->tb &&
               x->alpha == y->alpha && x->beta == y->beta;
    }
    const kb_bnorm_desc *x = &a->bnorm, *y = &b->bnorm;
    return x->ndims == y->ndims && x->mb == y->mb && x->ic == y->ic &&
           x->id == y->id && x->ih == y->ih && x->iw == y->iw &&
           x->eps == y->eps;
}

/* parse -> format -> parse gives the same problem, and formatting again
 * gives the same text. */
static void round_trip(const char *text, const kb_settings *s)
{
    kb_problem a, b;
    char err[512], buf[512], buf2[512];
    int rc = kb_problem_parse(text, s, &a, err, sizeof err);
    CHECK(rc == 0);
    if (rc) {
        fprintf(stderr, "  '%s': %s\n", text, err);
        return;
    }
    int n = kb_problem_format(&a, buf, sizeof buf);
    CHECK(n > 0 && (size_t)n == strlen(buf));
    rc = kb_problem_parse(buf, s, &b, err, sizeof err);
    CHECK(rc == 0);
    if (rc) {
        fprintf(stderr, "  '%s' -> '%s': %s\n", text, buf, err);
        return;
    }
    CHECK(same_problem(&a, &b));
    kb_problem_format(&b, buf2, sizeof buf2);
    CHECK_STR(buf2, buf);
}

static void test_round_trips(void)
{
    static const char *const descs[] = {
        "mb2ic3ih224oc64oh112kh7sh2ph3nconv1",
        "ic16ih768iw1152oc32oh384ow576kh3sh2ph1_nD1_conv1",
        "mb1_ic4id128oc32od128kd3pd1_nconv3d_1",
        "ic4id9ih8iw7oc2kd3kh2kw1sd2sh1sw3pd1ph0pw1dd1dh0dw2",
        "id17kd2ic2oc2",
        "g2ic4ih10oc6kh3",
        "g8ic8ih12oc8kh3ph1_ndepthwise",
        "ic2ih20oc3kh3ph6dh5",
        "g2mb2ic8oc12ih9iw8kh3kw2sh2sw1ph1pw0dh1dw0",   /* dw0 kept */
        "ic2ih15iw9oc3kh3kw2sh2sw3",
        "ic2ih9oc3oh7kh3",
        "ic3ih8oc4kh3_nres2a_branch2b*3",
        "ic3ih8oc4kh3_nblock:1:x*7",
        "ic3ih8oc4kh3n\"1st\"",
        "ic3ih8oc4kh3n\"quoted*2\"*5",
        "m64n32k16",
        "m64n32k16_ta_tb",
        "mb8n1000k2048_tb_nfc",
        "n1000k2048_tb_nfc",
        "64x32:32x16",
        "64x32:32x16_nmm*2",
        "m4n5k6_alpha0.5_beta1",
        "m4n5k6alpha-2.25e-3beta0.1",
        "mb2ic64ih56",
        "ic32ih384iw576_nbn_32x384x576*2",
        "mb3ic5id4ih3iw2",
        "ic8id6",
        "ic8ih4eps0.001",
        "ic8ih4eps1e-3_nbn",
    };
    kb_settings s = defaults();
    for (size_t i = 0; i < sizeof descs / sizeof descs[0]; i++)
        round_trip(descs[i], &s);
    /* with settings: they are applied, and the same settings read back */
    s.mb = 7;
    s.dt = kb_dts_uniform(KB_F64);
    s.layout = KB_LAYOUT_NXC;
    s.dir = KB_FWD_I;
    s.dir_given = true;
    for (size_t i = 0; i < sizeof descs / sizeof descs[0]; i++)
        round_trip(descs[i], &s);
}

static kb_problem parse_ok(const char *text, const kb_settings *s)
{
    kb_problem p;
    char err[512];
    memset(&p, 0, sizeof p);
    int rc = kb_problem_parse(text, s, &p, err, sizeof err);
    CHECK(rc == 0);
    if (rc)
        fprintf(stderr, "  '%s': %s\n", text, err);
    return p;
}

static void test_conv_semantics(void)
{
    kb_settings s = defaults();
    /* defaults: mb 2, g 1, W copies H, stride 1, pad 0, no dilation,
     * conv defaults to FWD_B (bias) like benchdnn */
    kb_problem p = parse_ok("ic3ih224oc64oh112kh7sh2ph3nconv1", &s);
    CHECK(p.kind == KB_CONV && p.conv.ndims == 2);
    CHECK(p.conv.mb == 2 && p.conv.g == 1);
    CHECK(p.conv.iw == 224 && p.conv.kw == 7 && p.conv.sw == 2 && p.conv.pw == 3);
    CHECK(p.conv.ow == 112 && p.conv.oh == 112);
    CHECK(p.conv.id == 1 && p.conv.od == 1 && p.conv.kd == 1 && p.conv.sd == 1);
    CHECK(p.conv.pd == 0 && p.conv.dd == 0 && p.conv.dh == 0);
    CHECK(p.dir == KB_FWD_B && p.dt.src == KB_F32 && p.layout == KB_LAYOUT_NCX);
    CHECK_STR(p.name, "conv1");
    CHECK(p.count == 1);
    CHECK_STR(kb_problem_kernel_name(&p), "conv2d");
    CHECK_STR(kb_layout_name(&p), "NCHW");

    /* output inference: (5 + 0 - 3)/1 + 1 = 3 */
    p = parse_ok("ic1ih5oc1kh3", &s);
    CHECK(p.conv.oh == 3 && p.conv.ow == 3);
    /* dilation is 0-based: dh5 = dilation 6, extent 6*2+1 = 13;
     * (20 + 2*6 - 13)/1 + 1 = 20 */
    p = parse_ok("ic2ih20oc3kh3ph6dh5", &s);
    CHECK(p.conv.dh == 5 && p.conv.dw == 5 && p.conv.oh == 20);
    /* floor: (10 + 2 - 3)/2 + 1 = 4.5 -> 5 */
    p = parse_ok("ic1ih10oc1kh3sh2ph1", &s);
    CHECK(p.conv.oh == 5);
    /* iw given: ow is inferred from it, not copied from oh */
    p = parse_ok("ic16ih768iw1152oc32oh384kh3sh2ph1", &s);
    CHECK(p.conv.ow == 576 && p.conv.oh == 384);
    /* 3D, D only: H and W copy D */
    p = parse_ok("id17kd2ic2oc2", &s);
    CHECK(p.conv.ndims == 3 && p.conv.ih == 17 && p.conv.iw == 17);
    CHECK(p.conv.kh == 2 && p.conv.kw == 2 && p.conv.od == 16 && p.conv.ow == 16);
    CHECK_STR(kb_problem_kernel_name(&p), "conv3d");
    /* --mb overrides, other settings apply */
    s.mb = 5;
    s.layout = KB_LAYOUT_NXC;
    s.dir = KB_FWD_D;
    s.dir_given = true;
    p = parse_ok("mb3ic4id8oc4kd3", &s);
    CHECK(p.conv.mb == 5 && p.dir == KB_FWD_D);
    CHECK_STR(kb_layout_name(&p), "NDHWC");
    kb_problem_set_mb(&p, 9);
    CHECK(p.conv.mb == 9);
}

static void test_gemm_bnorm_semantics(void)
{
    kb_settings s = defaults();
    kb_problem p = parse_ok("m64n32k16_ta_tb", &s);
    CHECK(p.kind == KB_GEMM && p.gemm.m == 64 && p.gemm.n == 32 && p.gemm.k == 16);
    CHECK(p.gemm.ta && p.gemm.tb && !p.gemm.m_is_mb);
    CHECK(p.gemm.alpha == 1.0 && p.gemm.beta == 0.0);
    CHECK_STR(kb_layout_name(&p), "row-major");
    p = parse_ok("64x32:32x16nmm", &s);
    CHECK(p.kind == KB_GEMM && p.gemm.m == 64 && p.gemm.k == 32 && p.gemm.n == 16);
    CHECK_STR(p.name, "mm");
    /* `n` then a non-digit starts the name, which keeps `_` and `:` */
    p = parse_ok("m2n3k4_nfc_1:x", &s);
    CHECK(p.gemm.n == 3);
    CHECK_STR(p.name, "fc_1:x");
    p = parse_ok("m2n3k4tbnfc*12", &s);
    CHECK(p.gemm.tb && p.count == 12);
    CHECK_STR(p.name, "fc");
    /* mb: M is the batch and --mb replaces it; m is not replaced */
    p = parse_ok("mb8n10k20", &s);
    CHECK(p.gemm.m_is_mb && p.gemm.m == 8);
    p = parse_ok("n10k20", &s);
    CHECK(p.gemm.m_is_mb && p.gemm.m == 2);
    s.mb = 32;
    p = parse_ok("mb8n10k20", &s);
    CHECK(p.gemm.m == 32);
    p = parse_ok("m8n10k20", &s);
    CHECK(p.gemm.m == 8);
    /* bnorm: eps default 1e-5, FWD_D (training) by default */
    s = defaults();
    p = parse_ok("mb4ic8ih5iw6", &s);
    CHECK(p.kind == KB_BNORM && p.bnorm.ndims == 2 && p.bnorm.mb == 4);
    CHECK(p.bnorm.ih == 5 && p.bnorm.iw == 6 && p.bnorm.id == 1);
    CHECK(p.bnorm.eps == 1e-5 && p.dir == KB_FWD_D);
    CHECK_STR(kb_problem_kernel_name(&p), "bnorm");
    p = parse_ok("ic8id3eps0.5", &s);
    CHECK(p.bnorm.ndims == 3 && p.bnorm.ih == 3 && p.bnorm.iw == 3);
    CHECK(p.bnorm.mb == 2 && p.bnorm.eps == 0.5);
}

/* Parsing must fail, and the message must contain every one of the
 * (NULL-terminated) fragments. */
static void parse_fails(const char *text, const kb_settings *s, ...)
{
    kb_problem p;
    char err[512];
    va_list ap;
    int rc = kb_problem_parse(text, s, &p, err, sizeof err);
    CHECK(rc == -1);
    if (rc != -1) {
        fprintf(stderr, "  '%s' parsed\n", text);
        return;
    }
    va_start(ap, s);
    for (const char *frag; (frag = va_arg(ap, const char *)) != NULL;) {
        bool has = strstr(err, frag) != NULL;
        CHECK(has);
        if (!has)
            fprintf(stderr, "  '%s': '%s' lacks '%s'\n", text, err, frag);
    }
    va_end(ap);
}

static void test_errors(void)
{
    kb_settings s = defaults();
    parse_fails("ic3oc4qx3ih5kh3", &s, "column 7:", "unknown token 'qx3'",
                "conv descriptor", "expected one of g mb ic", NULL);
    parse_fails("ic3ihx5oc4kh3", &s, "column 6:", "after 'ih'", "found 'x5", NULL);
    parse_fails("ic3ih5.5oc4kh3", &s, "column 6:", "expected an integer",
                "'5.5'", NULL);
    parse_fails("ic3ih5oc4kh3ic4", &s, "column 13:", "'ic' given twice", NULL);
    parse_fails("ic3ih2oc4kh3", &s, "column 10:", "<= 0", NULL);
    parse_fails("ic3ih5oc4kh3dh2", &s, "<= 0", "dh 2", NULL);
    parse_fails("g2ic3ih5oc4kh3", &s, "column 1:", "g 2", "ic 3", NULL);
    parse_fails("g2ic4ih5oc3kh3", &s, "do not divide", NULL);
    parse_fails("ic3ih5oc4oh4kh3", &s, "column 10:", "'oh' is 4", "oh 3", NULL);
    parse_fails("ic3ih5oc4kh3sh0", &s, "column 13:", "'sh' is 0", NULL);
    parse_fails("ic0ih5oc4kh3", &s, "'ic' is 0", NULL);
    parse_fails("ic3oc4kh3", &s, "missing 'ih'", NULL);
    parse_fails("ic3ih4kh3", &s, "missing 'oc'", NULL);
    parse_fails("ic3ih4oc3", &s, "missing 'kh'", NULL);
    parse_fails("ic3ih4oc3kd1", &s, "missing 'id'", NULL);
    parse_fails("ic3ih5oc4kh3mb0", &s, "'mb' is 0", NULL);
    parse_fails("ic3ih2000000000000oc4kh3", &s, "column 6:", "too large", NULL);
    /* padding alone must not take the output past the largest value */
    parse_fails("ic3ih5oc4kh3ph1000000000000", &s, "column 13:",
                "output 'oh' would be 2000000000003", NULL);
    parse_fails("ic3ih5oc4kh3dh1099511627776kh3", &s, "given twice", NULL);
    parse_fails("ic3ih5oc4kh3n", &s, "column 13:", "layer name", NULL);
    parse_fails("ic3ih5oc4kh3nx*0", &s, "column 15:", "count", NULL);
    parse_fails("ic3ih5oc4kh3n\"x", &s, "unterminated", NULL);
    /* a huge batch times a big image overflows no counter */
    parse_fails("mb1099511627776ic1099511627776ih1oc1kh1", &s, "too large", NULL);
    /* GEMM */
    parse_fails("64x32:16x8", &s, "column 7:", "K mismatch", "32", "16", NULL);
    parse_fails("64x32x16", &s, "column 6:", "expected ':'", NULL);
    parse_fails("64x32:32x16q", &s, "column 12:", "unexpected 'q'", NULL);
    parse_fails("m4n5k6_ta3", &s, "column 8:", "takes no value", NULL);
    parse_fails("m4n5k6ic3", &s, "column 7:", "unknown token 'ic3'",
                "gemm descriptor", NULL);
    parse_fails("m4mb4n5k6", &s, "column 3:", "both", NULL);
    parse_fails("m4k6", &s, "missing 'n'", NULL);
    parse_fails("m4n5k6alphax", &s, "column 12:", "expected a number", NULL);
    parse_fails("m4n5k6beta1e999", &s, "finite", NULL);
    parse_fails("m0n5k6", &s, "'m' is 0", NULL);
    /* bnorm */
    parse_fails("mb2ic8ih4eps0", &s, "'eps' is 0", NULL);
    parse_fails("mb2ic8ih4zz1", &s, "unknown token 'zz1'", "bnorm", NULL);
    parse_fails("mb2ih4", &s, "unknown token 'ih4'", "gemm", NULL);
    parse_fails("ic8", &s, "missing 'ih'", NULL);
    parse_fails("", &s, "column 1:", "empty", NULL);
    s.dir = KB_FWD_B;
    s.dir_given = true;
    parse_fails("ic8ih4", &s, "FWD_B", NULL);
}

static void test_names(void)
{
    kb_dtype dt;
    kb_layout l;
    kb_dir d;
    CHECK(kb_dtype_parse("f64", &dt) == 0 && dt == KB_F64);
    CHECK(kb_dtype_parse("F32", &dt) == 0 && dt == KB_F32);
    CHECK(kb_dtype_parse("bf16", &dt) == 0 && dt == KB_BF16);
    CHECK(kb_dtype_parse("f16", &dt) == 0 && dt == KB_F16);
    CHECK(kb_dtype_parse("f8", &dt) == -1);
    CHECK(kb_dtype_size(KB_BF16) == 2 && kb_dtype_size(KB_F16) == 2);
    CHECK(kb_dtype_size(KB_F64) == 8 && kb_dtype_size(KB_F32) == 4);
    CHECK_STR(kb_dtype_name(KB_F64), "f64");
    CHECK(kb_layout_parse("NDHWC", &l) == 0 && l == KB_LAYOUT_NXC);
    CHECK(kb_layout_parse("axb", &l) == 0 && l == KB_LAYOUT_NXC);
    CHECK(kb_layout_parse("abx", &l) == 0 && l == KB_LAYOUT_NCX);
    CHECK(kb_layout_parse("nchw", &l) == 0 && l == KB_LAYOUT_NCX);
    CHECK(kb_layout_parse("nchw16c", &l) == -1);
    CHECK(kb_dir_parse("fwd_i", &d) == 0 && d == KB_FWD_I);
    CHECK(kb_dir_parse("BWD_D", &d) == 0 && d == KB_BWD_D);
    CHECK(kb_dir_parse("bwd_wb", &d) == 0 && d == KB_BWD_WB);
    CHECK(kb_dir_parse("BWD_X", &d) == -1);
    CHECK(kb_dir_applies(KB_CONV, KB_BWD_W) && !kb_dir_applies(KB_GEMM, KB_BWD_W));
    CHECK(kb_dir_applies(KB_BNORM, KB_BWD_DW) && !kb_dir_applies(KB_BNORM, KB_BWD_W));
    CHECK_STR(kb_dir_list(KB_BNORM), "FWD_D, FWD_I, BWD_D, BWD_DW");
    CHECK_STR(kb_dir_name(KB_FWD_B), "FWD_B");
}

static const check_test tests[] = {
    CHECK_TEST(round_trips),
    CHECK_TEST(conv_semantics),
    CHECK_TEST(gemm_bnorm_semantics),
    CHECK_TEST(errors),
    CHECK_TEST(names),
    CHECK_END,
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, tests);
}
