/* test_onednn.c - what the oneDNN backend sets and says beyond its
 * numerics (those run in backends.cmake): the fpmath mode each primitive
 * gets, and that every SKIPPED case names what oneDNN lacks, the version
 * and the ISA, exactly when creating its primitive descriptor says
 * "unimplemented". */
#include <string.h>

#include "backends/onednn/onednn_internal.h"
#include "tests/check.h"

static const kb_backend *be;

/* desc parsed under dt (a --dt string), dir and fpmath. */
static kb_problem problem(const char *desc, const char *dt, kb_dir dir,
                          kb_fpmath fpmath)
{
    kb_settings s;
    kb_problem p;
    char err[256];
    kb_settings_default(&s);
    CHECK(kb_dts_parse(dt, &s.dt, err, sizeof err) == 0);
    s.dir = dir;
    s.dir_given = true;
    s.fpmath = fpmath;
    CHECK(kb_problem_parse(desc, &s, &p, err, sizeof err) == 0);
    return p;
}

/* strict is set explicitly too, so no environment default can relax it. */
static void test_fpmath_attr(void)
{
    static const struct {
        kb_fpmath in;
        dnnl_fpmath_mode_t out;
    } modes[] = {{KB_FPMATH_STRICT, dnnl_fpmath_mode_strict},
                 {KB_FPMATH_BF16, dnnl_fpmath_mode_bf16},
                 {KB_FPMATH_ANY, dnnl_fpmath_mode_any}};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        kb_problem p = problem("m8n8k8", "f32", KB_FWD_D, modes[i].in);
        dnnl_primitive_attr_t attr = NULL;
        dnnl_fpmath_mode_t got = dnnl_fpmath_mode_any;
        char err[256];
        CHECK(dn_attr_create(&p, &attr, err, sizeof err) == 0);
        CHECK(attr && dnnl_primitive_attr_get_fpmath_mode(attr, &got) == dnnl_success);
        CHECK(got == modes[i].out);
        if (attr)
            dnnl_primitive_attr_destroy(attr);
    }
}

/* What oneDNN cannot express at all: f64, and tf32 before 3.0. */
static void test_refused(void)
{
    char why[256] = "";
    dnnl_fpmath_mode_t mode = dnnl_fpmath_mode_strict;
    kb_problem p = problem("m8n8k8", "f64", KB_FWD_D, KB_FPMATH_STRICT);
    CHECK(!be->supports(&p, why, sizeof why) && strstr(why, "no f64"));
    p = problem("m8n8k8", "f32", KB_FWD_D, KB_FPMATH_TF32);
    bool tf32 = dn_fpmath_mode(KB_FPMATH_TF32, &mode);
    CHECK(tf32 == (DNNL_VERSION_MAJOR >= 3));
    CHECK(be->supports(&p, why, sizeof why) == tf32);
    if (!tf32)
        CHECK(strstr(why, "no tf32"));
    /* tf32 changes nothing where there is no f32 to compute: bf16 is
     * refused only where this oneDNN has no bf16 matmul at all (2.6 on
     * aarch64), and then not for tf32. */
    p = problem("m8n8k8", "bf16", KB_FWD_D, KB_FPMATH_TF32);
    kb_problem strict = problem("m8n8k8", "bf16", KB_FWD_D, KB_FPMATH_STRICT);
    char why_strict[256] = "";
    CHECK(be->supports(&p, why, sizeof why) ==
          be->supports(&strict, why_strict, sizeof why_strict));
}

/* Each case: SKIPPED exactly when the library has no implementation, and
 * then with the type, the operation, the version and the ISA in the
 * reason.  Which are missing depends on the library and the CPU, so the
 * test asks oneDNN, not a list. */
static void test_unimplemented_reasons(void)
{
    static const struct {
        const char *desc, *dt, *what;
        kb_dir dir;
    } cases[] = {
        {"mb2ic16ih8oc16kh3ph1", "f16", "convolution forward", KB_FWD_B},
        {"mb2ic16ih8oc16kh3ph1", "f16", "convolution forward_training", KB_BWD_D},
        {"mb2ic16ih8oc16kh3ph1", "bf16:bf16:f32", "convolution backward_data",
         KB_BWD_D},
        {"mb2ic16ih8oc16kh3ph1", "bf16:bf16:f32", "convolution backward_weights",
         KB_BWD_WB},
        {"m8n8k8", "f16", "matmul", KB_FWD_D},
        {"mb2ic16ih4iw4", "f16", "batch_normalization forward_training", KB_BWD_DW},
    };
    const dnnl_version_t *v = dnnl_version();
    char version[32];
    snprintf(version, sizeof version, "oneDNN %d.%d.%d", v->major, v->minor,
             v->patch);
    int skipped = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kb_problem p = problem(cases[i].desc, cases[i].dt, cases[i].dir,
                               KB_FPMATH_STRICT);
        char why[256] = "", err[256] = "";
        dn_desc d;
        int rc = dn_make_desc(&p, &d, err, sizeof err);
        bool ok = be->supports(&p, why, sizeof why);
        CHECK(ok == (rc != DN_UNIMPLEMENTED));
        if (rc == 0)
            dn_desc_free(&d);
        if (ok)
            continue;
        skipped++;
        /* a backward pass whose forward hint is itself missing names the
         * hint: "forward_training (backward_data's hint)" */
        const char *dir = strchr(cases[i].what, ' ');
        char hint[64];
        snprintf(hint, sizeof hint, "forward_training (%s's hint)",
                 dir ? dir + 1 : cases[i].what);
        CHECK(strstr(why, version) && strstr(why, cases[i].dt) &&
              (strstr(why, cases[i].what) || strstr(why, hint)) &&
              strstr(why, dn_isa_name()));
        if (!strstr(why, cases[i].what) && !strstr(why, hint))
            fprintf(stderr, "reason \"%s\" lacks \"%s\"\n", why, cases[i].what);
    }
    printf("%d of %zu cases SKIPPED by this oneDNN on %s\n", skipped,
           sizeof cases / sizeof cases[0], dn_isa_name());
}

/* The facts name the oneDNN that runs (dnnl_version(), not the headers
 * built against), as every record's backend entry does. */
static void test_describe(void)
{
    kb_info info = {0};
    bool fpmath = false, version = false;
    const dnnl_version_t *v = dnnl_version();
    char runs[32];
    snprintf(runs, sizeof runs, "%d.%d.%d ", v->major, v->minor, v->patch);
    be->describe(&info);
    for (int i = 0; i < info.n; i++) {
        fpmath |= strcmp(info.kv[i].key, "fpmath") == 0 &&
                  strstr(info.kv[i].value, "strict") != NULL;
        version |= strcmp(info.kv[i].key, "version") == 0 &&
                   strncmp(info.kv[i].value, runs, strlen(runs)) == 0;
    }
    CHECK(fpmath);
    CHECK(version);
}

static const check_test tests[] = {
    CHECK_TEST(fpmath_attr),
    CHECK_TEST(refused),
    CHECK_TEST(unimplemented_reasons),
    CHECK_TEST(describe),
    CHECK_END,
};

int main(int argc, char **argv)
{
    be = kb_backend_find("onednn");
    CHECK(be != NULL);
    if (!be)
        return CHECK_DONE();
    return check_main(argc, argv, tests);
}
