/* test_catalog.c - the model catalogs: shapes, layers and per-sample FLOPs
 * (the totals the catalogs' headers state), and where they are found: the build tree's
 * staged share/kbench/catalog, $KBENCH_DATA_DIR, $KBENCH_CATALOG_DIR. */
#include "kernels/batch.h"
#include "kernels/data_dir.h"
#include "tests/check.h"

#include <stdlib.h>
#include <string.h>

/* Shapes, layers (weighted by count) and GFLOP without bias, per kind. */
typedef struct {
    int shapes[3];
    int64_t layers[3];
    double gflop[3];
} totals;

static totals load(const char *model)
{
    kb_settings s;
    kb_problem_list l = {0};
    char err[512];
    totals t;
    memset(&t, 0, sizeof t);
    kb_settings_default(&s);
    int rc = kb_catalog_load(model, 1, &s, &l, err, sizeof err);
    CHECK(rc == 0);
    if (rc) {
        fprintf(stderr, "  %s: %s\n", model, err);
        return t;
    }
    for (size_t i = 0; i < l.n; i++) {
        const kb_problem *p = &l.items[i];
        char buf[512];
        kb_problem q;
        t.shapes[p->kind]++;
        t.layers[p->kind] += p->count;
        t.gflop[p->kind] += kb_problem_flops_dense_nobias(p) * (double)p->count / 1e9;
        /* batch 1 everywhere; every line round-trips through its text */
        CHECK((p->kind == KB_CONV ? p->conv.mb : p->kind == KB_GEMM ? p->gemm.m
                                                          : p->bnorm.mb) == 1);
        CHECK(p->name[0] != '\0');
        kb_problem_format(p, buf, sizeof buf);
        s.mb = 1;
        s.dir = p->dir;
        s.dir_given = true;
        CHECK(kb_problem_parse(buf, &s, &q, err, sizeof err) == 0);
        CHECK(q.count == p->count && kb_problem_flops(&q) == kb_problem_flops(p));
        kb_settings_default(&s);
    }
    kb_problem_list_free(&l);
    return t;
}

static void test_resnet50(void)
{
    totals t = load("resnet50");
    CHECK(t.shapes[KB_CONV] == 23 && t.layers[KB_CONV] == 53);
    CHECK(t.shapes[KB_BNORM] == 12 && t.layers[KB_BNORM] == 53);
    CHECK(t.shapes[KB_GEMM] == 1 && t.layers[KB_GEMM] == 1);
    CHECK(fabs(t.gflop[KB_CONV] - 8.17) < 0.005);
    CHECK(fabs(t.gflop[KB_CONV] + t.gflop[KB_GEMM] - 8.18) < 0.005);
    printf("resnet50: conv %.4f GFLOP, with FC %.4f\n", t.gflop[KB_CONV],
           t.gflop[KB_CONV] + t.gflop[KB_GEMM]);
}

static void test_cosmoflow(void)
{
    totals t = load("cosmoflow");
    CHECK(t.shapes[KB_CONV] == 5 && t.layers[KB_CONV] == 5);
    CHECK(t.shapes[KB_GEMM] == 3 && t.shapes[KB_BNORM] == 0);
    CHECK(fabs(t.gflop[KB_CONV] - 68.85) < 0.005);
    printf("cosmoflow: conv %.4f GFLOP\n", t.gflop[KB_CONV]);
}

static void test_deepcam(void)
{
    totals t = load("deepcam");
    CHECK(t.shapes[KB_CONV] == 42 && t.layers[KB_CONV] == 142);
    CHECK(t.shapes[KB_BNORM] == 14 && t.layers[KB_BNORM] == 76);
    CHECK(t.shapes[KB_GEMM] == 1);
    CHECK(fabs(t.gflop[KB_CONV] - 566.7) < 0.05);
    printf("deepcam: conv %.4f GFLOP\n", t.gflop[KB_CONV]);
}

static void test_models_and_errors(void)
{
    char names[8][KB_MODEL_NAME_MAX], err[512];
    kb_settings s;
    kb_problem_list l = {0};
    kb_settings_default(&s);
    int n = kb_catalog_models(names, 8, err, sizeof err);
    CHECK(n == 3);
    if (n == 3) {
        CHECK_STR(names[0], "cosmoflow");
        CHECK_STR(names[1], "deepcam");
        CHECK_STR(names[2], "resnet50");
    }
    CHECK(kb_catalog_models(names, 2, err, sizeof err) == 2);
    CHECK_STR(names[1], "deepcam");
    CHECK(kb_catalog_load("alexnet", 1, &s, &l, err, sizeof err) == -1);
    CHECK(strstr(err, "'alexnet'") && strstr(err, "cosmoflow, deepcam, resnet50"));
    CHECK(kb_catalog_load("../catalog/resnet50", 1, &s, &l, err, sizeof err) == -1);
    CHECK(kb_catalog_load("resnet50", 0, &s, &l, err, sizeof err) == -1);
    CHECK(l.n == 0);
    /* --mb supplies every batch, GEMM M included */
    CHECK(kb_catalog_load("resnet50", 64, &s, &l, err, sizeof err) == 0);
    CHECK(l.n == 36 && l.items[0].conv.mb == 64 && l.items[35].gemm.m == 64);
    kb_problem_list_free(&l);
    /* $KBENCH_CATALOG_DIR wins */
    setenv("KBENCH_CATALOG_DIR", "/nonexistent-kb", 1);
    CHECK_STR(kb_catalog_dir(err, sizeof err), "/nonexistent-kb");
    CHECK(kb_catalog_models(names, 8, err, sizeof err) == -1);
    CHECK(strstr(err, "/nonexistent-kb") != NULL);
    unsetenv("KBENCH_CATALOG_DIR");
}

/* The data directory: staged beside the build tree's executables, or
 * $KBENCH_DATA_DIR, and the catalogs inside it. */
static void test_data_dir(void)
{
    char path[4096], err[512];
    const char *dir = kb_data_dir();
    /* this test runs from build/tests/: ../share/kbench was staged */
    CHECK(dir && strstr(dir, "/share/kbench"));
    CHECK(kb_data_path("catalog", path, sizeof path, err, sizeof err) == 0);
    CHECK(dir && strncmp(path, dir, strlen(dir)) == 0);
    setenv("KBENCH_DATA_DIR", "/nonexistent-data", 1);
    CHECK_STR(kb_data_dir(), "/nonexistent-data");
    CHECK(kb_data_path("catalog", path, sizeof path, err, sizeof err) == 0);
    CHECK_STR(path, "/nonexistent-data/catalog");
    CHECK_STR(kb_catalog_dir(err, sizeof err), "/nonexistent-data/catalog");
    /* errors name the directory looked at */
    char names[8][KB_MODEL_NAME_MAX];
    CHECK(kb_catalog_models(names, 8, err, sizeof err) == -1);
    CHECK(strstr(err, "/nonexistent-data/catalog") != NULL);
    CHECK(kb_data_path("io/profiles.conf", path, 20, err, sizeof err) == -1);
    CHECK(strstr(err, "too long") != NULL);
    unsetenv("KBENCH_DATA_DIR");
}

static const check_test tests[] = {
    CHECK_TEST(resnet50), CHECK_TEST(cosmoflow), CHECK_TEST(deepcam),
    CHECK_TEST(models_and_errors), CHECK_TEST(data_dir), CHECK_END};

int main(int argc, char **argv)
{
    /* the staged data directory must be enough on its own */
    unsetenv("KBENCH_CATALOG_DIR");
    unsetenv("KBENCH_DATA_DIR");
    return check_main(argc, argv, tests);
}
