/* test_bands.c - bands from synthetic results worked out by hand (one
 * node's samples, several nodes' medians, the roofline fraction, cases
 * left out), the bands file written and read back, and every kind of bad
 * bands file refused with its line. */
#define _GNU_SOURCE   /* mkstemp */
#include "drivers/acceptance/bands.h"

#include "check.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

static kb_result_case mk(const char *desc, const char *status, double gflops,
                         double *samples, int64_t n)
{
    return (kb_result_case){
        .line = 2, .seq = 1, .desc = (char *)desc, .model = "", .layer = "",
        .kernel = "gemm", .backend = "omp", .dtype = "f32",
        .layout = "row-major", .dir = "FWD_D", .status = (char *)status,
        .reason = "", .count = 1, .flops = 1e9, .samples = samples,
        .nsamples = n, .gflops = gflops, .roof_pct = NAN};
}

static kb_result_file file(const char *host, kb_result_case *c, size_t n)
{
    return (kb_result_file){.path = (char *)host, .host = host, .cases = c,
                            .ncases = n, .complete = true};
}

static const kb_band_rule mad3 = {"mad", 3.0, NAN, 0.01};

/* One file: the samples' GFLOP/s are pooled.  1e9 FLOP in {1, 0.5, 0.25,
 * 0.2, 0.01} s is {1, 2, 4, 5, 100} GFLOP/s: median 4, deviations
 * {3, 2, 0, 1, 96}, MAD 2 x 1.4826. */
static void test_one_node_samples(void)
{
    double s[] = {1, 0.5, 0.25, 0.2, 0.01};
    kb_result_case c = mk("m1", "PASSED", 4, s, 5);
    kb_result_file f = file("n1", &c, 1);
    kb_band_set set;
    char err[256];
    CHECK(kb_bands_make(&f, 1, &mad3, &set, err, sizeof err) == 0);
    CHECK(set.nbands == 1 && set.nleft == 0);
    kb_band *b = &set.bands[0];
    CHECK_NEAR(b->centre, 4.0, 1e-15);
    CHECK_NEAR(b->spread, 2 * 1.4826, 1e-15);
    CHECK_NEAR(b->lower, 4.0 - 3 * 2 * 1.4826, 1e-14);
    CHECK_NEAR(b->upper, 4.0 + 3 * 2 * 1.4826, 1e-14);
    CHECK_STR(b->over, "samples");
    CHECK(b->n == 5 && isnan(b->attainable));
    CHECK_STR(b->key, "m1|gemm|omp|f32|row-major|FWD_D");
    kb_band_set_free(&set);

    /* Samples mostly equal: the MAD is 0, the spread 1 % of the centre. */
    double q[] = {0.5, 0.5, 0.5, 0.25, 0.5};   /* {2, 2, 2, 4, 2} GFLOP/s */
    c = mk("m1", "PASSED", 2, q, 5);
    CHECK(kb_bands_make(&f, 1, &mad3, &set, err, sizeof err) == 0);
    CHECK_NEAR(set.bands[0].centre, 2.0, 1e-15);
    CHECK_NEAR(set.bands[0].spread, 0.02, 1e-15);
    CHECK_NEAR(set.bands[0].lower, 2.0 - 3 * 0.02, 1e-15);
    kb_band_set_free(&set);
}

/* Three nodes: their medians {10, 11, 30} are pooled, whatever their
 * samples: centre 11, deviations {1, 0, 19}, MAD 1.4826.  A case only one
 * node ran falls back on that node's samples; MISTRUSTED records are not
 * pooled; a case no node PASSED is left out, naming a node's status. */
static void test_several_nodes(void)
{
    double one[] = {1.0}, two[] = {0.5, 0.25};
    kb_result_case a[] = {mk("m1", "PASSED", 10, one, 1),
                          mk("only", "PASSED", 3, two, 2)};
    kb_result_case b[] = {mk("m1", "PASSED", 11, one, 1),
                          mk("bad", "FAILED", NAN, NULL, 0)};
    kb_result_case c[] = {mk("m1", "PASSED", 30, one, 1),
                          mk("m1", "MISTRUSTED", 1000, one, 1)};
    b[1].reason = "dst[0]: got 1, expected 2";
    kb_result_file f[] = {file("n1", a, 2), file("n2", b, 2), file("n3", c, 2)};
    kb_band_set set;
    char err[256];
    CHECK(kb_bands_make(f, 3, &mad3, &set, err, sizeof err) == 0);
    CHECK(set.nbands == 2 && set.nleft == 1);
    /* In the order the cases first appear, not sorted by key. */
    CHECK_STR(set.bands[0].desc, "m1");
    CHECK_STR(set.bands[1].desc, "only");
    CHECK_NEAR(set.bands[0].centre, 11.0, 1e-15);
    CHECK_NEAR(set.bands[0].spread, 1.4826, 1e-15);
    CHECK_NEAR(set.bands[0].lower, 11.0 - 3 * 1.4826, 1e-14);
    CHECK_STR(set.bands[0].over, "nodes");
    CHECK(set.bands[0].n == 3);
    CHECK_STR(set.bands[1].over, "samples");
    CHECK_NEAR(set.bands[1].centre, 3.0, 1e-15);   /* {2, 4} GFLOP/s */
    CHECK(set.bands[1].n == 2);
    CHECK_STR(set.left[0].desc, "bad");
    CHECK(set.left[0].why && strstr(set.left[0].why, "n2 has it FAILED: dst[0]"));
    kb_band_set_free(&set);
}

/* Roofline fraction: 10 GFLOP/s at 50 % is an attainable of 20; the
 * median over nodes of {20, 40} (one node unplaced is not counted: 10 at
 * 25 % gives 40) is 30; lower = 0.5 x 30, upper = 30.  No placed record:
 * left out. */
static void test_roof_fraction(void)
{
    double one[] = {1.0};
    kb_result_case a[] = {mk("m1", "PASSED", 10, one, 1),
                          mk("unplaced", "PASSED", 10, one, 1)};
    kb_result_case b[] = {mk("m1", "PASSED", 10, one, 1)};
    kb_result_case c[] = {mk("m1", "PASSED", 12, one, 1)};
    a[0].roof_pct = 50, b[0].roof_pct = 25;
    kb_result_file f[] = {file("n1", a, 2), file("n2", b, 1), file("n3", c, 1)};
    kb_band_rule rule = {"roof-fraction", NAN, 0.5, 0.01};
    kb_band_set set;
    char err[256];
    CHECK(kb_bands_make(f, 3, &rule, &set, err, sizeof err) == 0);
    CHECK(set.nbands == 1 && set.nleft == 1);
    CHECK_NEAR(set.bands[0].attainable, 30.0, 1e-15);
    CHECK_NEAR(set.bands[0].lower, 15.0, 1e-15);
    CHECK_NEAR(set.bands[0].upper, 30.0, 1e-15);
    CHECK_NEAR(set.bands[0].centre, 10.0, 1e-15);   /* nodes {10, 10, 12} */
    CHECK(strstr(set.left[0].why, "not placed on the roofline") != NULL);
    kb_band_set_free(&set);
}

/* A temporary file holding text; its path in path[]. */
static void write_tmp(char *path, const char *text)
{
    strcpy(path, "/tmp/kb_bands_test.XXXXXX");
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void test_round_trip(void)
{
    double s[] = {1, 0.5, 0.25};
    kb_result_case c[] = {mk("m1", "PASSED", 2, s, 3),
                          mk("m2", "SKIPPED", NAN, NULL, 0)};
    c[1].reason = "unsupported \"layout\"";
    kb_result_file f = file("n1", c, 2);
    kb_band_set set, back;
    char err[256], path[64];
    CHECK(kb_bands_make(&f, 1, &mad3, &set, err, sizeof err) == 0);
    set.header = cJSON_Parse("{\"type\":\"bands\",\"schema\":\"" KB_BANDS_SCHEMA
                             "\",\"method\":\"mad\",\"k\":3}");
    write_tmp(path, "");
    CHECK(kb_bands_write(&set, path, err, sizeof err) == 0);
    CHECK(kb_bands_read(path, &back, err, sizeof err) == 0);
    CHECK(back.nbands == 1 && back.nleft == 1);
    if (back.nbands == 1 && back.nleft == 1) {
        CHECK(back.bands[0].centre == set.bands[0].centre);   /* exact */
        CHECK(back.bands[0].lower == set.bands[0].lower);
        CHECK(back.bands[0].upper == set.bands[0].upper);
        CHECK(back.bands[0].spread == set.bands[0].spread);
        CHECK(back.bands[0].n == 3 && isnan(back.bands[0].attainable));
        CHECK_STR(back.bands[0].key, set.bands[0].key);
        CHECK(back.bands[0].line == 2);
        CHECK_STR(back.left[0].why, set.left[0].why);
        CHECK_STR(cJSON_GetObjectItem(back.header, "method")->valuestring, "mad");
    }
    kb_band_set_free(&back);
    kb_band_set_free(&set);
    unlink(path);
}

#define HEAD "{\"type\":\"bands\",\"schema\":\"kbench.bands/1\"}\n"
#define BAND(desc, lower) "{\"type\":\"band\",\"desc\":\"" desc "\",\"kernel\":" \
    "\"gemm\",\"backend\":\"omp\",\"dtype\":\"f32\",\"layout\":\"row-major\"," \
    "\"dir\":\"FWD_D\",\"centre\":2,\"spread\":0.1,\"lower\":" lower        \
    ",\"upper\":3,\"attainable\":null,\"over\":\"samples\",\"n\":10}\n"
#define END(n) "{\"type\":\"end\",\"bands\":" n ",\"left_out\":0}\n"

/* Each bad file is refused, naming its line. */
static void test_bad_files(void)
{
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"", ":1: empty"},
        {HEAD BAND("a", "1") "{not json\n" END("1"), ":3: not JSON"},
        {HEAD BAND("a", "1") "{\"type\":\"end\",\"ba", ":3: truncated"},
        {HEAD BAND("a", "1"), ":2: truncated: no end record"},
        {"{\"type\":\"bands\",\"schema\":\"kbench.bands/0\"}\n" END("0"),
         ":1: schema \"kbench.bands/0\""},
        {"{\"type\":\"run\",\"schema\":\"kbench.results/2\"}\n", ":1: first record is \"run\""},
        {HEAD BAND("a", "\"x\"") END("1"), ":2: band without a number \"lower\""},
        {HEAD BAND("a", "5") END("1"), ":2: band lower 5 above its upper 3"},
        {HEAD BAND("a", "1") BAND("b", "1") BAND("a", "1") END("3"),
         ":4: a second band for case a|gemm|omp|f32|row-major|FWD_D (the first is on line 2)"},
        {HEAD BAND("a", "1") END("2"), ":3: end record counts 2 bands"},
        {HEAD END("0") BAND("a", "1"), ":3: a record after the end record"},
        {HEAD "{\"type\":\"band\",\"desc\":\"a\"}\n" END("1"), ":2: record without a string \"kernel\""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char path[64], err[512] = "";
        kb_band_set set;
        write_tmp(path, bad[i].text);
        int rc = kb_bands_read(path, &set, err, sizeof err);
        CHECK(rc == -1);
        if (!strstr(err, bad[i].want) || strncmp(err, path, strlen(path)) != 0) {
            fprintf(stderr, "bad file %zu: got \"%s\", want \"%s\"\n", i, err,
                    bad[i].want);
            CHECK(0);
        }
        unlink(path);
    }
    /* The good version of those files reads. */
    char path[64], err[512];
    kb_band_set set;
    write_tmp(path, HEAD BAND("a", "1") "{\"type\":\"later\",\"x\":1}\n" END("1"));
    CHECK(kb_bands_read(path, &set, err, sizeof err) == 0);
    CHECK(set.nbands == 1);
    kb_band_set_free(&set);
    unlink(path);
}

static const check_test tests[] = {
    CHECK_TEST(one_node_samples),
    CHECK_TEST(several_nodes),
    CHECK_TEST(roof_fraction),
    CHECK_TEST(round_trip),
    CHECK_TEST(bad_files),
    CHECK_END,
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, tests);
}
