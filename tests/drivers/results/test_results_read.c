/* test_results_read.c - the results reader (drivers/results/results.h):
 * a valid file read field by field, and every kind of bad input refused
 * with "PATH:LINE: what is wrong". */
#include "check.h"

#include "drivers/record.h"
#include "drivers/results/results.h"

#include <stdlib.h>
#include <unistd.h>

#define RUN "{\"type\":\"run\",\"schema\":\"" KB_SCHEMA_VERSION "\",\"host\":\"n1\"}\n"
#define SUMMARY "{\"type\":\"summary\",\"passed\":1}\n"
/* A case record: its identity, then REST (HEAD), or the counts and REST
 * (CASE). */
#define HEAD(REST)                                                        \
    "{\"type\":\"case\",\"seq\":1,\"desc\":\"m4n4k4\",\"model\":null,"    \
    "\"layer\":\"\",\"count\":1,\"kernel\":\"gemm\",\"backend\":\"omp\"," \
    "\"dtype\":\"f32\",\"layout\":\"row-major\",\"dir\":\"FWD_D\"," REST "}\n"
#define CASE(REST) HEAD("\"flops\":128,\"bytes\":192," REST)
#define PASSED CASE("\"samples_s\":[2e-6,1e-6,4e-6],\"status\":\"PASSED\",\"reason\":\"\"")

static char dir[] = "/tmp/kb_results_read_XXXXXX";

static const char *path_of(const char *name)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

/* The path of a new file in dir holding text. */
static const char *write_file(const char *name, const char *text)
{
    const char *path = path_of(name);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    fputs(text, f);
    fclose(f);
    return path;
}

static void test_valid(void)
{
    const char *path = write_file("ok.jsonl",
        RUN "\n" PASSED "{\"type\":\"note\",\"text\":\"a later record type\"}\n"
        CASE("\"status\":\"SKIPPED\",\"reason\":\"no such layout\"")
        CASE("\"samples_s\":[1e-6],\"status\":\"MISTRUSTED\",\"reason\":\"x\","
             "\"roofline\":{\"placed\":true,\"pct_of_attainable\":120.5}")
        SUMMARY "{\"type\":\"note\"}\n");
    kb_result_file f;
    char err[512] = "";
    CHECK(kb_result_file_load(path, &f, err, sizeof err) == 0);
    CHECK_STR(err, "");
    CHECK_STR(f.host, "n1");
    CHECK(f.complete);
    CHECK(f.ncases == 3);
    if (f.ncases != 3)
        return;
    const kb_result_case *c = &f.cases[0];
    CHECK(c->line == 3);   /* after the blank line */
    CHECK_STR(c->model, "");   /* null */
    CHECK_STR(c->desc, "m4n4k4");
    CHECK(c->nsamples == 3);
    CHECK_NEAR(c->samples[2], 4e-6, 0);
    CHECK_NEAR(c->median_s, 2e-6, 0);
    CHECK_NEAR(c->gflops, 128 / 2e-6 * 1e-9, 1e-15);
    CHECK(isnan(c->roof_pct));
    CHECK(kb_result_case_timed(c, false));
    char key[256];
    CHECK_STR(kb_result_case_key(c, true, key, sizeof key),
              "m4n4k4|gemm|omp|f32|row-major|FWD_D");
    CHECK_STR(kb_result_case_key(c, false, key, sizeof key),
              "m4n4k4|gemm|f32|row-major|FWD_D");
    c = &f.cases[1];
    CHECK(c->nsamples == 0 && !c->samples && isnan(c->median_s));
    CHECK_STR(c->reason, "no such layout");
    CHECK(!kb_result_case_timed(c, true));
    c = &f.cases[2];
    CHECK_NEAR(c->roof_pct, 120.5, 0);
    CHECK(!kb_result_case_timed(c, false) && kb_result_case_timed(c, true));
    kb_result_file_free(&f);

    /* No summary record: an interrupted run, read with what it finished. */
    path = write_file("partial.jsonl", RUN PASSED);
    CHECK(kb_result_file_load(path, &f, err, sizeof err) == 0);
    CHECK(!f.complete && f.ncases == 1);
    kb_result_file_free(&f);
}

/* Each bad input and the "LINE: what" its message must hold. */
static const struct {
    const char *name, *text, *expect;
} bad[] = {
    {"empty", "", ":1: empty"},
    {"blank", "\n\n", ":2: empty"},
    {"not_json", "kbench results\n", ":1: not JSON"},
    {"truncated", RUN "{\"type\":\"case\",\"seq\":1,\"de", ":2: truncated"},
    {"garbage_after", RUN "{\"type\":\"summary\"} x\n", ":2: not JSON"},
    {"array", "[1,2]\n", ":1: not a record"},
    {"first_case", PASSED RUN, ":1: the first record is a \"case\" record"},
    {"schema", "{\"type\":\"run\",\"schema\":\"kbench.results/1\",\"host\":\"n\"}\n",
     ":1: schema \"kbench.results/1\", expected \"" KB_SCHEMA_VERSION "\""},
    {"no_schema", "{\"type\":\"run\",\"host\":\"n\"}\n", ":1: run record without a string \"schema\""},
    {"no_host", "{\"type\":\"run\",\"schema\":\"" KB_SCHEMA_VERSION "\"}\n",
     ":1: run record without a string \"host\""},
    {"second_run", RUN RUN, ":2: a second \"run\" record"},
    {"after_summary", RUN SUMMARY PASSED, ":3: a \"case\" record after the summary"},
    {"no_kernel", RUN "{\"type\":\"case\",\"seq\":1,\"desc\":\"m4n4k4\"}\n",
     ":2: case record without \"kernel\""},
    {"kernel_type", RUN "{\"type\":\"case\",\"desc\":\"d\",\"kernel\":3}\n",
     ":2: case field \"kernel\" is not a string"},
    {"status", RUN CASE("\"status\":\"GREAT\""), ":2: unknown status \"GREAT\""},
    {"flops_type", RUN HEAD("\"flops\":\"many\",\"bytes\":1,\"status\":\"SKIPPED\""),
     ":2: case field \"flops\" is not a number"},
    {"no_bytes", RUN HEAD("\"flops\":1,\"status\":\"SKIPPED\""),
     ":2: case record without \"bytes\""},
    {"no_samples", RUN CASE("\"status\":\"PASSED\""), ":2: PASSED case without \"samples_s\""},
    {"empty_samples", RUN CASE("\"samples_s\":[],\"status\":\"PASSED\""),
     ":2: PASSED case with no samples"},
    {"sample_type", RUN CASE("\"samples_s\":[1e-6,\"x\"],\"status\":\"PASSED\""),
     ":2: samples_s[1] is not a time"},
    {"sample_zero", RUN CASE("\"samples_s\":[0],\"status\":\"PASSED\""),
     ":2: samples_s[0] is not a time"},
    {"skipped_samples", RUN CASE("\"samples_s\":[1e-6],\"status\":\"SKIPPED\""),
     ":2: SKIPPED case with \"samples_s\""},
    {"seq", RUN "\n{\"type\":\"case\",\"seq\":0,\"desc\":\"d\",\"kernel\":\"k\","
     "\"backend\":\"b\",\"dtype\":\"f32\",\"layout\":\"l\",\"dir\":\"FWD_D\","
     "\"count\":1,\"flops\":1,\"bytes\":1,\"status\":\"SKIPPED\"}\n",
     ":3: case field \"seq\" is not a positive integer"},
    {"roof", RUN CASE("\"samples_s\":[1e-6],\"status\":\"PASSED\",\"roofline\":7"),
     ":2: case field \"roofline\" is not an object"},
};

static void test_refused(void)
{
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *path = write_file(bad[i].name, bad[i].text);
        char want[512], err[512] = "";
        snprintf(want, sizeof want, "%s%s", path, bad[i].expect);
        kb_result_file f;
        int rc = kb_result_file_load(path, &f, err, sizeof err);
        CHECK(rc == -1);
        if (strncmp(err, want, strlen(want)) != 0) {
            check_failed_++;
            fprintf(stderr, "%s: got \"%s\", want \"%s...\"\n", bad[i].name, err, want);
        } else {
            check_passed_++;
        }
        CHECK(f.ncases == 0 && !f.cases && !f.run);   /* nothing to free */
    }
    char err[512];
    kb_result_file f;
    CHECK(kb_result_file_load("/nonexistent/r.jsonl", &f, err, sizeof err) == -1);
    CHECK(strncmp(err, "/nonexistent/r.jsonl: cannot open", 33) == 0);
}

static const check_test tests[] = {
    CHECK_TEST(valid),
    CHECK_TEST(refused),
    CHECK_END,
};

int main(int argc, char **argv)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    int status = check_main(argc, argv, tests);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        unlink(path_of(bad[i].name));
    unlink(path_of("ok.jsonl"));
    unlink(path_of("partial.jsonl"));
    rmdir(dir);
    return status;
}
