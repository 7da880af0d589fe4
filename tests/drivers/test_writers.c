/* test_writers.c - the result writers on synthetic records: JSON Lines
 * stays valid with NaN/Inf values, awkward strings and skipped cases; CSV
 * quotes as RFC 4180 says; RESULT lines have no spaces inside values and
 * the right SUITE_STATUS; the table prints reasons. */
#define _GNU_SOURCE   /* getline */
#include "check.h"

#include "drivers/record.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <unistd.h>

#define AWKWARD "a \"quoted\", back\\slash\nand newline"

static kb_problem gemm_problem(void)
{
    kb_problem p;
    memset(&p, 0, sizeof p);
    p.kind = KB_GEMM;
    p.gemm = (kb_gemm_desc){.m = 8, .n = 12, .k = 16, .alpha = 1, .beta = 0};
    snprintf(p.name, sizeof p.name, "fc \"x\",y\\z");
    p.count = 2;
    p.dt = kb_dts_uniform(KB_F32);
    p.layout = KB_LAYOUT_NCX;
    p.dir = KB_FWD_D;
    return p;
}

static double samples[3] = {1e-3, 0, 2e-3};

/* A case that ran, with a NaN sample and non-finite statistics. */
static kb_case_record passed_case(const kb_problem *p)
{
    kb_case_record r;
    memset(&r, 0, sizeof r);
    r.seq = 1;
    r.problem = p;
    snprintf(r.desc, sizeof r.desc, "m8n12k16n\"fc\"");
    r.model = "my model";
    r.backend = "omp";
    r.status = KB_PASSED;
    r.flops = 2.0 * 8 * 12 * 16;
    r.bytes = 4.0 * (8 * 16 + 16 * 12 + 8 * 12);
    samples[1] = NAN;
    r.nsamples = 3;
    r.samples = samples;
    r.warmup = 1;
    r.stats = (kb_stats){.min = 1e-3, .median = 1.5e-3, .mean = NAN,
                         .max = INFINITY, .stddev = NAN, .cv = -INFINITY};
    r.gflops = r.flops / r.stats.median * 1e-9;
    r.gbps = INFINITY;
    r.validated = true;
    r.validation = (kb_validation){.checked = 96, .max_abs_err = 0,
                                   .max_rel_err = NAN, .tolerance = 1e-6};
    return r;
}

static kb_case_record skipped_case(const kb_problem *p)
{
    kb_case_record r;
    memset(&r, 0, sizeof r);
    r.seq = 2;
    r.problem = p;
    snprintf(r.desc, sizeof r.desc, "m8n12k16");
    r.model = "";
    r.backend = "omp";
    r.status = KB_SKIPPED;
    snprintf(r.reason, sizeof r.reason, "%s", AWKWARD);
    r.flops = 1;
    r.bytes = 0;   /* ai must not become Inf/NaN in the output */
    return r;
}

static kb_provenance provenance(void)
{
    /* A verb's argv, as kb_cmd_run passes it: argv[0] is the verb. */
    char *argv[] = {"run", "--desc", "it's \"odd\" \\ here"};
    kb_provenance prov;
    kb_provenance_collect(&prov, 3, argv, 2, 42);
    return prov;
}

/* Drive a writer through a whole run.  Returns 0 when every call did. */
static int drive(kb_writer *w, const kb_case_record *cases, int n,
                 const kb_summary *s)
{
    kb_provenance prov = provenance();
    int rc = w->begin(w, &prov);
    for (int i = 0; i < n; i++)
        rc |= w->write_case(w, &cases[i]);
    rc |= w->end(w, s);
    w->close(w);
    return rc;
}

/* Whole file into a malloc'd string (NULL on failure). */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *text = NULL;
    size_t len = 0;
    ssize_t got = getdelim(&text, &len, '\0', f);
    fclose(f);
    if (got < 0) {
        free(text);
        return NULL;
    }
    return text;
}

static void test_provenance(void)
{
    kb_provenance p = provenance();
    CHECK(p.host[0] != '\0');
    CHECK(p.cores_online >= 1);
    CHECK(p.threads == 2 && p.seed == 42);
    CHECK(p.affinity[0] >= '0' && p.affinity[0] <= '9');
    CHECK(strlen(p.date) == 20 && p.date[19] == 'Z');
    CHECK_STR(p.command_line, "kbench run --desc 'it'\\''s \"odd\" \\ here'");

    /* A command line longer than the field is cut at a word, marked. */
    char *argv[400];
    for (int i = 0; i < 400; i++)
        argv[i] = "abcdefghij";
    kb_provenance_collect(&p, 400, argv, 1, 1);
    size_t len = strlen(p.command_line);
    CHECK(len < sizeof p.command_line);
    CHECK(len > 4 && strcmp(p.command_line + len - 4, " ...") == 0);
}

static char dir[] = "/tmp/kb_writers_XXXXXX", jsonl[64], csv[64];

static void test_jsonl(void)
{
    const char *path = jsonl;
    kb_problem p = gemm_problem();
    kb_case_record cases[2] = {passed_case(&p), skipped_case(&p)};
    kb_summary s = {.passed = 1, .skipped = 1};
    char err[256];
    kb_writer *w = kb_writer_jsonl(path, err, sizeof err);
    CHECK(w != NULL);
    if (!w)
        return;
    CHECK(drive(w, cases, 2, &s) == 0);

    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (!f)
        return;
    char *line = NULL;
    size_t cap = 0;
    cJSON *rec[4] = {0};
    int n = 0;
    while (n < 4 && getline(&line, &cap, f) > 0)
        rec[n++] = cJSON_Parse(line);
    free(line);
    fclose(f);
    CHECK(n == 4);
    for (int i = 0; i < n; i++)
        CHECK(cJSON_IsObject(rec[i]));
    if (n == 4 && rec[0] && rec[1] && rec[2] && rec[3]) {
        CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(rec[0], "type")), "run");
        CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(rec[0], "schema")),
                  KB_SCHEMA_VERSION);
        CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(rec[0], "command_line")),
                  "kbench run --desc 'it'\\''s \"odd\" \\ here'");
        /* The passed case: NaN/Inf became null, strings round-trip. */
        cJSON *c = rec[1];
        CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(c, "layer")), p.name);
        CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(c, "desc")), cases[0].desc);
        cJSON *sm = cJSON_GetObjectItem(c, "samples_s");
        CHECK(cJSON_GetArraySize(sm) == 3);
        CHECK(cJSON_IsNull(cJSON_GetArrayItem(sm, 1)));
        CHECK(cJSON_GetArrayItem(sm, 2)->valuedouble == 2e-3);
        cJSON *st = cJSON_GetObjectItem(c, "stats");
        CHECK(cJSON_IsNull(cJSON_GetObjectItem(st, "mean")));
        CHECK(cJSON_IsNull(cJSON_GetObjectItem(st, "max")));
        CHECK(cJSON_GetObjectItem(st, "median")->valuedouble == 1.5e-3);
        CHECK(cJSON_IsNull(cJSON_GetObjectItem(c, "gbps")));
        CHECK(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(c, "validation"),
                                               "max_rel_err")));
        CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(c, "status")), "PASSED");
        CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(c, "timer")), "driver");
        /* The skipped case: no samples or stats, reason intact. */
        c = rec[2];
        CHECK(cJSON_GetObjectItem(c, "samples_s") == NULL);
        CHECK(cJSON_GetObjectItem(c, "stats") == NULL);
        CHECK(cJSON_IsNull(cJSON_GetObjectItem(c, "ai")));
        CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(c, "reason")), AWKWARD);
        CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(c, "status")), "SKIPPED");
        CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(rec[3], "type")), "summary");
        CHECK(cJSON_GetObjectItem(rec[3], "skipped")->valuedouble == 1);
    }
    for (int i = 0; i < n; i++)
        cJSON_Delete(rec[i]);
    /* printf's spellings of non-finite numbers never reach the file. */
    char *text = slurp(path);
    CHECK(text && !strstr(text, ":nan") && !strstr(text, ":inf") &&
          !strstr(text, ":-inf") && !strstr(text, ",nan") && !strstr(text, "[nan"));
    free(text);
}

static void test_csv(void)
{
    const char *path = csv;
    kb_problem p = gemm_problem();
    kb_case_record cases[2] = {passed_case(&p), skipped_case(&p)};
    kb_summary s = {.passed = 1, .skipped = 1};
    char err[256];
    kb_writer *w = kb_writer_csv(path, err, sizeof err);
    CHECK(w != NULL);
    if (!w)
        return;
    CHECK(drive(w, cases, 2, &s) == 0);
    char *text = slurp(path);
    CHECK(text != NULL);
    if (!text)
        return;
    CHECK(strncmp(text, "seq,model,layer,count,kernel,backend,", 37) == 0);
    /* Comma, quote and backslash inside a field: quoted, quotes doubled. */
    CHECK(strstr(text, ",\"fc \"\"x\"\",y\\z\",") != NULL);
    CHECK(strstr(text, "\"a \"\"quoted\"\", back\\slash\nand newline\",") != NULL);
    CHECK(strstr(text, "1,my model,") != NULL);   /* spaces need no quotes */
    CHECK(!strstr(text, ",nan") && !strstr(text, ",inf") && !strstr(text, ",-inf"));
    /* Header + 2 rows; the quoted newline adds one physical line. */
    int lines = 0;
    for (char *c = text; *c; c++)
        lines += *c == '\n';
    CHECK(lines == 4);
    free(text);
}

static void test_result_lines(void)
{
    kb_problem p = gemm_problem();
    kb_case_record cases[2] = {passed_case(&p), skipped_case(&p)};
    struct {
        kb_summary s;
        const char *last;
    } runs[] = {
        {{.passed = 1, .skipped = 1}, "SUITE_STATUS PASS\n"},
        {{.passed = 1, .failed = 1}, "SUITE_STATUS FAIL\n"},
        {{.errors = 1}, "SUITE_STATUS FAIL\n"},
        {{.passed = 2, .interrupted = true}, "SUITE_STATUS FAIL\n"},
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        char *text = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&text, &len);
        CHECK(out != NULL);
        if (!out)
            return;
        kb_writer *w = kb_writer_result_lines(out);
        CHECK(w && drive(w, cases, 2, &runs[i].s) == 0);
        fclose(out);
        CHECK(strstr(text, "RESULT kernel=gemm model=my_model layer=fc_\"x\",y\\z "
                           "backend=omp dtype=f32 ") != NULL);
        /* no ceilings file: the roof is NA, never a made-up number */
        CHECK(strstr(text, "metric=gflops value=0.002048 unit=GFLOP/s "
                           "median_s=0.0015 pct_of_roof=NA valid=PASS "
                           "status=PASSED\n") != NULL);
        CHECK(strstr(text, "model=- ") && strstr(text, "value=NA ") &&
              strstr(text, "valid=SKIP status=SKIPPED\n"));
        CHECK(len >= strlen(runs[i].last) &&
              strcmp(text + len - strlen(runs[i].last), runs[i].last) == 0);
        free(text);
    }
}

/* A case placed on the roofline carries its % of roof in every writer. */
static void test_roofline_fields(void)
{
    kb_problem p = gemm_problem();
    kb_case_record r = passed_case(&p);
    kb_summary s = {.passed = 1};
    kb_ceiling dram = {.kind = KB_CEIL_MEMORY, .kernel = "stream-triad",
                       .level = "DRAM"};
    char *text = NULL;
    size_t len = 0;

    r.roof_placed = true;
    r.roof = (kb_placement){.attainable = 0.004, .pct = 51.2,
                            .bound = KB_BOUND_MEMORY, .memory = &dram};
    FILE *out = open_memstream(&text, &len);
    kb_writer *w = kb_writer_result_lines(out);
    CHECK(w && drive(w, &r, 1, &s) == 0);
    fclose(out);
    CHECK(strstr(text, " pct_of_roof=51.2 ") != NULL);
    free(text);

    out = open_memstream(&text, &len);
    w = kb_writer_table(out);
    CHECK(w && drive(w, &r, 1, &s) == 0);
    fclose(out);
    CHECK(strstr(text, " 51% M ") != NULL);
    free(text);
}

static void test_table(void)
{
    kb_problem p = gemm_problem();
    kb_case_record cases[2] = {passed_case(&p), skipped_case(&p)};
    kb_summary s = {.passed = 1, .skipped = 1};
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    CHECK(out != NULL);
    if (!out)
        return;
    kb_writer *w = kb_writer_table(out);
    CHECK(w && drive(w, cases, 2, &s) == 0);
    fclose(out);
    CHECK(strstr(text, "median_ms") && strstr(text, "GFLOP/s"));
    CHECK(strstr(text, "1.5000") != NULL);              /* median in ms */
    CHECK(strstr(text, "SKIPPED: a \"quoted\"") != NULL); /* reason line */
    CHECK(strstr(text, "1 passed, 0 failed, 1 skipped, 0 errors") != NULL);
    free(text);
}

/* a file that cannot be created: NULL, and the error names it */
static void test_unwritable(void)
{
    char err[256];
    CHECK(kb_writer_jsonl("/nonexistent-dir/x.jsonl", err, sizeof err) == NULL);
    CHECK(strstr(err, "/nonexistent-dir/x.jsonl") != NULL);
}

static const check_test tests[] = {
    CHECK_TEST(roofline_fields), CHECK_TEST(provenance), CHECK_TEST(jsonl),
    CHECK_TEST(csv), CHECK_TEST(result_lines), CHECK_TEST(table),
    CHECK_TEST(unwritable), CHECK_END};

int main(int argc, char **argv)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(jsonl, sizeof jsonl, "%s/r.jsonl", dir);
    snprintf(csv, sizeof csv, "%s/r.csv", dir);
    int status = check_main(argc, argv, tests);
    unlink(jsonl);
    unlink(csv);
    rmdir(dir);
    return status;
}
