/* test_merge_inputs.c - `kbench merge` refuses every class of bad input
 * with exit code 2 and a message naming the file and line (malformed,
 * truncated, another schema, empty, killed before its summary, no case),
 * and bad usage with exit code 2 naming the option; none of them writes
 * an output.  --k=v works as --k v; --out, the old spelling of --md,
 * still works and says so. */
#define _GNU_SOURCE   /* mkdtemp */
#include "drivers/commands.h"
#include "drivers/common/options.h"
#include "tests/capture.h"
#include "tests/check.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

static char dir[] = "/tmp/kb_merge_in_XXXXXX";

static char *at(const char *name)
{
    static char buf[32][256];
    static int k;
    k = (k + 1) % 32;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static char *put(const char *name, const char *text)
{
    char *path = at(name);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    return path;
}

#define RUN "{\"type\":\"run\",\"schema\":\"kbench.results/2\",\"host\":\"h\"}\n"
#define CASE "{\"type\":\"case\",\"seq\":1,\"desc\":\"m8n8k8\",\"count\":1,\"kernel\":" \
             "\"gemm\",\"backend\":\"omp\",\"dtype\":\"f32\",\"layout\":\"row-major\","  \
             "\"dir\":\"FWD_D\",\"flops\":1024,\"bytes\":768,\"samples_s\":[1e-6],"      \
             "\"status\":\"PASSED\"}\n"
#define SUMMARY "{\"type\":\"summary\"}\n"

/* Run merge with stderr captured into err (its text).  Returns its code. */
static int merge(int n, char **args, char *err, size_t len)
{
    char *argv[16] = {"merge"};
    for (int i = 0; i < n; i++)
        argv[i + 1] = args[i];
    check_capture c;
    check_capture_begin(&c, 2);
    int rc = kb_verb_main(&kb_verb_merge, NULL, n + 1, argv);
    check_capture_end(&c, err, len);
    return rc;
}

static bool exists(const char *path)
{
    return access(path, F_OK) == 0;
}

/* A good file and a bad one: exit 2, the bad one named at its line, and
 * no output (nor a temporary) left. */
static void refused(const char *name, const char *text, const char *where,
                    const char *why)
{
    char err[2048], expect[256];
    char *args[] = {put("good.jsonl", RUN CASE SUMMARY), put(name, text),
                    "--md", at("t.md"), "--svg", at("t.svg"), "--json", at("t.json")};
    CHECK(merge(8, args, err, sizeof err) == KB_EXIT_USAGE);
    snprintf(expect, sizeof expect, "%s:%s:", at(name), where);
    if (!strstr(err, expect) || !strstr(err, why))
        fprintf(stderr, "%s: expected \"%s\" and \"%s\" in: %s\n", name, expect, why, err);
    CHECK(strstr(err, expect) != NULL);
    CHECK(strstr(err, why) != NULL);
    CHECK(!exists(at("t.md")) && !exists(at("t.svg")) && !exists(at("t.json")));
}

static void usage_refused(int n, char **args, const char *why)
{
    char err[2048];
    CHECK(merge(n, args, err, sizeof err) == KB_EXIT_USAGE);
    if (!strstr(err, why))
        fprintf(stderr, "expected \"%s\" in: %s\n", why, err);
    CHECK(strstr(err, why) != NULL);
    CHECK(!exists(at("t.md")));
}

/* every class of bad file */
static void test_bad_files(void)
{
    refused("malformed.jsonl", RUN "{\"type\":\"case\",}\n" SUMMARY, "2", "not JSON");
    refused("truncated.jsonl", RUN CASE "{\"type\":\"case\",\"seq\":2,\"desc", "3",
            "truncated");
    refused("schema.jsonl",
            "{\"type\":\"run\",\"schema\":\"kbench.results/1\",\"host\":\"h\"}\n" CASE SUMMARY,
            "1", "schema");
    refused("empty.jsonl", "", "1", "empty");
    refused("killed.jsonl", RUN CASE, "2", "summary");
    refused("nocase.jsonl", RUN SUMMARY, "1", "no case record");
    refused("field.jsonl", RUN "{\"type\":\"case\",\"seq\":1,\"status\":\"PASSED\"}\n" SUMMARY,
            "2", "without");
}

/* bad usage: exit 2 naming the option */
static void test_bad_usage(void)
{
    char good[256];   /* a copy: at()'s buffers are reused */
    snprintf(good, sizeof good, "%s", put("good.jsonl", RUN CASE SUMMARY));
    char *none[] = {"--md", at("t.md")};
    usage_refused(2, none, "0 arguments given");
    char *zero[] = {good, "--z", "0", "--md", at("t.md")};
    usage_refused(5, zero, "--z '0': expected a number >= 0.01");
    char *word[] = {good, "--z", "abc", "--md", at("t.md")};
    usage_refused(5, word, "--z 'abc'");
    char *range[] = {good, "--z=inf", "--md", at("t.md")};
    usage_refused(4, range, "--z 'inf': expected a number >= 0.01");
    char *bare[] = {good, "--md"};
    usage_refused(2, bare, "--md needs a value");
    char *twice[] = {good, at("./good.jsonl"), "--md", at("t.md")};
    usage_refused(4, twice, "the same file");
    char *unknown[] = {good, "--bogus", "--md", at("t.md")};
    usage_refused(4, unknown, "unknown option '--bogus'");
    char *missing[] = {good, at("absent.jsonl"), "--md", at("t.md")};
    usage_refused(4, missing, "absent.jsonl");
}

/* a good merge writes only what was asked; --k=v; --out as --md */
static void test_good_merge(void)
{
    char good[256];   /* a copy: at()'s buffers are reused */
    snprintf(good, sizeof good, "%s", put("good.jsonl", RUN CASE SUMMARY));
    /* and a good merge still works, writing only what was asked */
    char err[2048];
    char *ok[] = {good, "--md", at("t.md")};
    CHECK(merge(3, ok, err, sizeof err) == KB_EXIT_OK);
    CHECK(exists(at("t.md")) && !exists(at("t.svg")) && !exists(at("t.json")));

    /* --k=v as --k v, for every option */
    char md_eq[300];
    snprintf(md_eq, sizeof md_eq, "--md=%s", at("eq.md"));
    char *eq[] = {good, "--z=3", md_eq};
    CHECK(merge(3, eq, err, sizeof err) == KB_EXIT_OK);
    CHECK(exists(at("eq.md")));

    /* the old spelling of --md still writes the table, with a notice */
    char *old[] = {good, "--out", at("old.md")};
    CHECK(merge(3, old, err, sizeof err) == KB_EXIT_OK);
    CHECK(strstr(err, "kbench merge: --out is now --md") != NULL);
    CHECK(exists(at("old.md")));
}

static const check_test tests[] = {
    CHECK_TEST(bad_files), CHECK_TEST(bad_usage), CHECK_TEST(good_merge),
    CHECK_END};

int main(int argc, char **argv)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    int status = check_main(argc, argv, tests);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "warning: could not remove %s\n", dir);
    return status;
}
