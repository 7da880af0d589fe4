/* test_verdict.c - check's verdict on each kind of case (within, above and
 * below the band, every status, missing, unbanded), one node's cases
 * matched to the bands, and the nodes' names. */
#include "drivers/acceptance/verdict.h"

#include "check.h"

#include <math.h>

static kb_result_case mk(const char *desc, const char *status, double gflops)
{
    static double one[] = {0.5};
    bool ran = strcmp(status, "SKIPPED") != 0 && strcmp(status, "ERROR") != 0;
    return (kb_result_case){
        .line = 2, .seq = 1, .desc = (char *)desc, .model = "", .layer = "",
        .kernel = "gemm", .backend = "omp", .dtype = "f32",
        .layout = "row-major", .dir = "FWD_D", .status = (char *)status,
        .reason = "", .count = 1, .flops = 1e9, .samples = ran ? one : NULL,
        .nsamples = ran ? 1 : 0, .gflops = ran ? gflops : NAN,
        .roof_pct = NAN};
}

static kb_band band(const char *desc, char *key, double lower, double upper)
{
    return (kb_band){.line = 7, .desc = (char *)desc, .key = key,
                     .centre = (lower + upper) / 2, .lower = lower,
                     .upper = upper, .attainable = NAN, .n = 10};
}

static void test_one_case(void)
{
    kb_band b = band("m1", "m1|gemm|omp|f32|row-major|FWD_D", 10, 20);
    kb_check_item it;
    kb_result_case c = mk("m1", "PASSED", 15);

    kb_check_case(&b, &c, &it);
    CHECK(it.result == KB_CHECK_PASS && it.value == 15);
    CHECK_STR(it.what, "within band");

    c.gflops = 10;   /* on the bound: inside */
    kb_check_case(&b, &c, &it);
    CHECK(it.result == KB_CHECK_PASS);

    c.gflops = 9.5;
    kb_check_case(&b, &c, &it);
    CHECK(it.result == KB_CHECK_FAIL);
    CHECK_STR(it.what, "below band");
    CHECK_STR(it.reason, "below band: 9.5 GFLOP/s < lower bound 10 (centre 15)");

    c.gflops = 25;   /* above: flagged, still PASS */
    kb_check_case(&b, &c, &it);
    CHECK(it.result == KB_CHECK_PASS);
    CHECK_STR(it.what, "above band");
    CHECK(strstr(it.reason, "25 GFLOP/s > upper bound 20") != NULL);

    /* Correctness fails whatever the band, even a band the figure is in. */
    c = mk("m1", "FAILED", 15);
    c.reason = "dst[0,1]: got 1, expected 2";
    kb_check_case(&b, &c, &it);
    CHECK(it.result == KB_CHECK_FAIL);
    CHECK_STR(it.reason, "validation failed: dst[0,1]: got 1, expected 2");
    kb_check_case(NULL, &c, &it);
    CHECK(it.result == KB_CHECK_FAIL);

    c = mk("m1", "ERROR", 0);
    c.reason = "dnnl_primitive_create: out of memory";
    kb_check_case(&b, &c, &it);
    CHECK(it.result == KB_CHECK_ERROR);
    CHECK_STR(it.reason, "error: dnnl_primitive_create: out of memory");

    c = mk("m1", "MISTRUSTED", 15);
    c.reason = "180 % of its roof";
    kb_check_case(&b, &c, &it);
    CHECK(it.result == KB_CHECK_FAIL);
    CHECK_STR(it.reason, "mistrusted: 180 % of its roof");
    kb_check_case(NULL, &c, &it);
    CHECK(it.result == KB_CHECK_FAIL);

    c = mk("m1", "SKIPPED", 0);
    c.reason = "layout unsupported";
    kb_check_case(&b, &c, &it);
    CHECK(it.result == KB_CHECK_FAIL);
    CHECK_STR(it.reason, "skipped: layout unsupported");
    kb_check_case(NULL, &c, &it);   /* no band: not judged */
    CHECK(it.result == KB_CHECK_UNJUDGED);

    c = mk("m1", "PASSED", 15);
    kb_check_case(NULL, &c, &it);
    CHECK(it.result == KB_CHECK_UNJUDGED);
    CHECK_STR(it.what, "no band");

    kb_check_case(&b, NULL, &it);
    CHECK(it.result == KB_CHECK_FAIL && isnan(it.value));
    CHECK_STR(it.what, "missing");
    CHECK(strstr(it.reason, "line 7") != NULL);
}

/* Bands A, B, C against a node holding B, D (no band), E (FAILED, no
 * band) and A twice: A judged twice, B, C missing, then D and E in file
 * order. */
static void test_one_node(void)
{
    kb_band b[] = {band("A", "A|gemm|omp|f32|row-major|FWD_D", 1, 100),
                   band("B", "B|gemm|omp|f32|row-major|FWD_D", 1, 100),
                   band("C", "C|gemm|omp|f32|row-major|FWD_D", 1, 100)};
    kb_band_set set = {.bands = b, .nbands = 3};
    kb_result_case c[] = {mk("B", "PASSED", 50), mk("D", "PASSED", 50),
                          mk("E", "FAILED", 50), mk("A", "PASSED", 50),
                          mk("A", "PASSED", 0.5)};
    kb_result_file f = {.path = "n1.jsonl", .host = "n1", .cases = c,
                        .ncases = 5, .complete = true};
    kb_check_node n;
    CHECK(kb_check_node_judge(&f, &set, &n) == 0);
    CHECK(n.nitems == 6);
    if (n.nitems == 6) {
        CHECK(n.items[0].c == &c[3] && n.items[0].repeated);
        CHECK(n.items[1].c == &c[4] && n.items[1].result == KB_CHECK_FAIL);
        CHECK(n.items[2].c == &c[0] && !n.items[2].repeated);
        CHECK(n.items[3].band == &b[2] && !n.items[3].c);
        CHECK(n.items[4].c == &c[1] && n.items[4].result == KB_CHECK_UNJUDGED);
        CHECK(n.items[5].c == &c[2] && n.items[5].result == KB_CHECK_FAIL);
    }
    CHECK(n.passed == 2 && n.failed == 3 && n.errors == 0 && n.unjudged == 1);
    CHECK(!kb_check_node_passed(&n));
    kb_check_node_free(&n);
}

static void test_names(void)
{
    kb_result_file f[] = {{.path = "a.jsonl", .host = "n1"},
                          {.path = "b.jsonl", .host = "n2"},
                          {.path = "c.jsonl", .host = "n1"},
                          {.path = "d.jsonl", .host = ""}};
    kb_check_node n[4] = {{.file = &f[0]}, {.file = &f[1]}, {.file = &f[2]},
                          {.file = &f[3]}};
    CHECK(kb_check_name_nodes(n, 4) == 0);
    CHECK_STR(n[0].name, "n1 (a.jsonl)");
    CHECK_STR(n[1].name, "n2");
    CHECK_STR(n[2].name, "n1 (c.jsonl)");
    CHECK_STR(n[3].name, "d.jsonl");
    for (int i = 0; i < 4; i++)
        kb_check_node_free(&n[i]);
}

static const check_test tests[] = {
    CHECK_TEST(one_case),
    CHECK_TEST(one_node),
    CHECK_TEST(names),
    CHECK_END,
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, tests);
}
