/* test_training.c - the training step as problems: GEMM descriptors whose
 * K is the batch, every model's step from the real catalogs (the first
 * conv without BWD_D, each backward GEMM doing its forward's work), and
 * training catalogs that contradict their model refused by name. */
#include "drivers/training/passes.h"
#include "tests/check.h"

#include <stdlib.h>
#include <unistd.h>

static char dir[] = "/tmp/kb_training_XXXXXX";

/* m given, k left out: K is the batch, --mb sets it, and the canonical
 * text parses back to the same problem. */
static void test_k_is_mb(void)
{
    kb_settings s;
    kb_problem p, q;
    char err[512], buf[256];
    kb_settings_default(&s);
    CHECK(kb_problem_parse("m1000n2048_ta_nfc:BWD_W", &s, &p, err, sizeof err) == 0);
    CHECK(p.kind == KB_GEMM && p.gemm.k_is_mb && !p.gemm.m_is_mb);
    CHECK(p.gemm.m == 1000 && p.gemm.n == 2048 && p.gemm.k == 2 && p.gemm.ta);
    kb_problem_set_mb(&p, 8);
    CHECK(p.gemm.k == 8 && p.gemm.m == 1000);
    kb_problem_format(&p, buf, sizeof buf);
    CHECK(strcmp(buf, "m1000n2048mb8_ta_nfc:BWD_W") == 0);
    CHECK(kb_problem_parse(buf, &s, &q, err, sizeof err) == 0);
    CHECK(q.gemm.k_is_mb && q.gemm.k == 8 && q.gemm.m == 1000 &&
          strcmp(q.name, "fc:BWD_W") == 0);
    /* the batch must be left out of m or k, not given beside both */
    CHECK(kb_problem_parse("m4n4k4mb2", &s, &p, err, sizeof err) != 0);
    CHECK(strstr(err, "'mb'") != NULL);
    /* the forward convention is unchanged: no m, M is the batch */
    CHECK(kb_problem_parse("n5k7", &s, &p, err, sizeof err) == 0);
    CHECK(p.gemm.m_is_mb && !p.gemm.k_is_mb && p.gemm.k == 7);
}

/* The pass of a problem and the layer it belongs to, from its name. */
static void test_pass_names(void)
{
    kb_settings s;
    kb_problem p;
    char err[256], layer[KB_NAME_MAX];
    kb_settings_default(&s);
    CHECK(kb_problem_parse("n256k5_nfc:BWD_D", &s, &p, err, sizeof err) == 0);
    CHECK(kb_training_pass(&p) == KB_BWD_D);
    CHECK(strcmp(kb_training_layer(&p, layer, sizeof layer), "fc") == 0);
    CHECK(kb_problem_parse("n5k256_nfc", &s, &p, err, sizeof err) == 0);
    CHECK(kb_training_pass(&p) == KB_FWD_D);
    CHECK(strcmp(kb_training_layer(&p, layer, sizeof layer), "fc") == 0);
    /* a conv's pass is its direction whatever its name */
    CHECK(kb_problem_parse("ic4ih8oc4kh3_nc:BWD_W", &s, &p, err, sizeof err) == 0);
    CHECK(kb_training_pass(&p) == KB_FWD_B);
}

/* Every catalog's step: each conv has FWD, BWD_D (but the first) and
 * BWD_W or BWD_WB by its bias; each bnorm FWD_D and BWD_DW; each GEMM of
 * the step its two backward GEMMs, of the forward's FLOPs, with M or K
 * the batch. */
static void test_catalog_steps(void)
{
    static const char *const models[] = {"resnet50", "cosmoflow", "deepcam"};
    for (size_t m = 0; m < 3; m++) {
        kb_settings s;
        kb_problem_list l = {0}, fwd = {0};
        char err[512];
        FILE *notes = tmpfile();
        kb_settings_default(&s);
        CHECK(kb_catalog_load(models[m], 3, &s, &fwd, err, sizeof err) == 0);
        int rc = kb_training_load(models[m], 3, &s, &l, notes, err, sizeof err);
        CHECK(rc == 0);
        if (rc)
            fprintf(stderr, "  %s: %s\n", models[m], err);
        size_t convs = 0, bnorms = 0, gemms = 0, bwd_d = 0, first_bwd_d = 0;
        for (size_t i = 0; i < fwd.n; i++) {
            convs += fwd.items[i].kind == KB_CONV;
            bnorms += fwd.items[i].kind == KB_BNORM;
        }
        const kb_problem *first = NULL, *fc = NULL, *conv = NULL;
        for (size_t i = 0; i < l.n; i++) {
            const kb_problem *p = &l.items[i];
            kb_dir pass = kb_training_pass(p);
            if (p->kind == KB_CONV && !first)
                first = p;
            if (p->kind == KB_CONV && !kb_dir_is_backward(pass))
                conv = p;
            if (p->kind == KB_CONV && pass == KB_BWD_D) {
                bwd_d++;
                first_bwd_d += strcmp(p->name, first->name) == 0;
            }
            /* the weights' pass has the bias exactly when the forward has */
            if (p->kind == KB_CONV && (pass == KB_BWD_W || pass == KB_BWD_WB))
                CHECK(strcmp(p->name, conv->name) == 0 &&
                      (pass == KB_BWD_WB) == (conv->dir == KB_FWD_B));
            if (p->kind == KB_BNORM)
                CHECK(pass == KB_FWD_D || pass == KB_BWD_DW);
            if (p->kind == KB_GEMM && !kb_dir_is_backward(pass)) {
                fc = p;
                gemms++;
            }
            if (p->kind == KB_GEMM && kb_dir_is_backward(pass)) {
                CHECK(fc && kb_problem_flops(p) == kb_problem_flops(fc));
                CHECK(fc && p->count == fc->count);
                CHECK(pass == KB_BWD_D ? p->gemm.m_is_mb && p->gemm.m == 3
                                       : p->gemm.k_is_mb && p->gemm.k == 3);
            }
        }
        CHECK(first_bwd_d == 0);          /* the first conv: no BWD_D */
        CHECK(bwd_d == convs - 1);        /* every other conv has one */
        /* resnet50: 23 convs + 12 bnorms twice, conv BWD_D, fc x 3 */
        if (m == 0)
            CHECK(l.n == 23 * 2 + 22 + 12 * 2 + 3 && gemms == 1);
        if (m == 1)
            CHECK(gemms == 3 && bnorms == 0 && l.n == 5 * 3 - 1 + 9);
        /* deepcam's GEMM is a conv in another form: left out, with a note */
        if (m == 2) {
            char text[512] = "";
            rewind(notes);
            text[fread(text, 1, sizeof text - 1, notes)] = '\0';
            CHECK(gemms == 0 && strstr(text, "D37_aspp_pool_gemm") != NULL);
        }
        fclose(notes);
        kb_problem_list_free(&l);
        kb_problem_list_free(&fwd);
    }
}

static void put(const char *name, const char *text)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* Loads model "t" with this training file; returns kb_training_load's
 * result with its message in err. */
static int load_with(const char *training, char *err, size_t len)
{
    kb_settings s;
    kb_problem_list l = {0};
    kb_settings_default(&s);
    put("t.training", training);
    int rc = kb_training_load("t", 2, &s, &l, stderr, err, len);
    kb_problem_list_free(&l);
    return rc;
}

/* A training file that does not fit its model is an error naming the
 * descriptor and what was expected. */
static void test_bad_training_catalogs(void)
{
    char err[512];
    setenv("KBENCH_CATALOG_DIR", dir, 1);
    put("t.txt", "ic3ih8oc4kh3_nc1\nn5k256_tb_nfc\n");
    CHECK(load_with("n256k5_nfc:BWD_D\nm5n256_ta_nfc:BWD_W\n", err, sizeof err) == 0);
    /* dX of the wrong shape */
    CHECK(load_with("n255k5_nfc:BWD_D\nm5n256_ta_nfc:BWD_W\n", err, sizeof err) != 0);
    CHECK(strstr(err, "fc:BWD_D") && strstr(err, "mbn256k5"));
    /* dW without ta */
    CHECK(load_with("n256k5_nfc:BWD_D\nm5n256_nfc:BWD_W\n", err, sizeof err) != 0);
    CHECK(strstr(err, "fc:BWD_W") && strstr(err, "m5n256_ta"));
    /* one backward GEMM without the other */
    CHECK(load_with("n256k5_nfc:BWD_D\n", err, sizeof err) != 0);
    CHECK(strstr(err, "but not 'fc:BWD_W'") != NULL);
    /* a backward GEMM of no layer, or of no pass */
    CHECK(load_with("n256k5_nfc:BWD_D\nm5n256_ta_nfc:BWD_W\nn4k4_nfc9:BWD_D\n",
                    err, sizeof err) != 0);
    CHECK(strstr(err, "fc9:BWD_D") != NULL);
    CHECK(load_with("n256k5_nfc:BWD_D\nm5n256_ta_nfc:BWD_W\nn4k4_nfc:BWD_X\n",
                    err, sizeof err) != 0);
    CHECK(strstr(err, "fc:BWD_X") != NULL);
    /* twice */
    CHECK(load_with("n256k5_nfc:BWD_D\nn256k5_nfc:BWD_D\nm5n256_ta_nfc:BWD_W\n",
                    err, sizeof err) != 0);
    CHECK(strstr(err, "twice") != NULL);
    unsetenv("KBENCH_CATALOG_DIR");
    char path[128];
    snprintf(path, sizeof path, "%s/t.txt", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/t.training", dir);
    unlink(path);
    rmdir(dir);
}

static const check_test tests[] = {
    CHECK_TEST(k_is_mb),
    CHECK_TEST(pass_names),
    CHECK_TEST(catalog_steps),
    CHECK_TEST(bad_training_catalogs),
    CHECK_END,
};

int main(int argc, char **argv)
{
    if (!mkdtemp(dir))
        return 1;
    return check_main(argc, argv, tests);
}
