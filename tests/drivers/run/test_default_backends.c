/* test_default_backends.c - `kbench run` without --backend leaves out
 * every backend whose device is absent and says so once, at the start;
 * the summary counts those cases as left out, apart from SKIPPED.  Named
 * with --backend, such a backend is run and its cases are SKIPPED with
 * the reason.  "absent", registered only here, is a backend whose device
 * is never present, so this holds on every build; a GPU backend built on
 * a machine without its GPU is left out the same way, and counted. */
#define _GNU_SOURCE   /* getline */
#include "check.h"

#include "backends/backend.h"
#include "drivers/commands.h"

#include <cjson/cJSON.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#define WHY "no FAKE device: there is none in this test"

static bool absent_supports(const kb_problem *p, char *why, size_t len)
{
    (void)p;
    snprintf(why, len, "%s", WHY);
    return false;
}

static void absent_describe(kb_info *info)
{
    kb_info_add(info, "device", "none");
    kb_info_add(info, "no_device", "%s", WHY);
}

static const kb_backend absent = {
    .name = "absent", .kind = "hand", .device = "fake",
    .supports = absent_supports, .describe = absent_describe};

static char dir[] = "/tmp/kb_default_XXXXXX", json[64], out[64], err[64];

/* kbench run ARGS... --reps 1 --min-time 0 --json json, stdout and
 * stderr into out and err.  Returns the exit code. */
static int run(const char *const *args, int nargs)
{
    char *argv[24] = {"kbench", "run"};
    int argc = 2;
    for (int i = 0; i < nargs; i++)
        argv[argc++] = (char *)args[i];
    const char *tail[] = {"--reps", "1", "--min-time", "0", "--json", json};
    for (size_t i = 0; i < sizeof tail / sizeof tail[0]; i++)
        argv[argc++] = (char *)tail[i];
    unlink(json);
    fflush(stdout);
    fflush(stderr);
    int saved_out = dup(STDOUT_FILENO), saved_err = dup(STDERR_FILENO);
    int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int fe = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fo, STDOUT_FILENO);
    dup2(fe, STDERR_FILENO);
    int rc = kb_main(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, STDOUT_FILENO);
    dup2(saved_err, STDERR_FILENO);
    close(fo), close(fe), close(saved_out), close(saved_err);
    return rc;
}

/* Lines of path that contain every one of parts (NULL-ended). */
static int lines_with(const char *path, const char *const *parts)
{
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    int n = 0;
    while (f && getline(&line, &cap, f) > 0) {
        bool all = true;
        for (int i = 0; parts[i] && all; i++)
            all = strstr(line, parts[i]) != NULL;
        n += all;
    }
    free(line);
    if (f)
        fclose(f);
    return n;
}

/* What a run's JSON Lines file holds: case records per backend name and
 * status, the first case's reason, and the summary record. */
typedef struct {
    int cases, cases_absent, skipped_absent;
    char absent_reason[256];
    cJSON *summary;   /* owned; NULL when missing */
} results;

/* Whether the backend named name has no device here (describe()). */
static bool no_device(const char *name)
{
    const kb_backend *b = kb_backend_find(name);
    kb_info info = {0};
    if (b && b->describe)
        b->describe(&info);
    return kb_info_no_device(&info);
}

static results read_results(void)
{
    results r = {0};
    FILE *f = fopen(json, "r");
    char *line = NULL;
    size_t cap = 0;
    while (f && getline(&line, &cap, f) > 0) {
        cJSON *o = cJSON_Parse(line);
        const char *type = cJSON_GetStringValue(cJSON_GetObjectItem(o, "type"));
        if (type && strcmp(type, "summary") == 0) {
            r.summary = o;
            continue;
        }
        if (type && strcmp(type, "case") == 0) {
            const char *b = cJSON_GetStringValue(cJSON_GetObjectItem(o, "backend"));
            const char *st = cJSON_GetStringValue(cJSON_GetObjectItem(o, "status"));
            const char *why = cJSON_GetStringValue(cJSON_GetObjectItem(o, "reason"));
            r.cases++;
            if (b && no_device(b)) {
                r.cases_absent++;
                r.skipped_absent += st && strcmp(st, "SKIPPED") == 0;
                snprintf(r.absent_reason, sizeof r.absent_reason, "%s",
                         why ? why : "");
            }
        }
        cJSON_Delete(o);
    }
    free(line);
    if (f)
        fclose(f);
    return r;
}

static double summary_number(const results *r, const char *key)
{
    return cJSON_GetNumberValue(cJSON_GetObjectItem(r->summary, key));
}

/* The default set: every backend with its device runs each problem;
 * those without are left out, named once on stderr, counted apart. */
static void test_default_leaves_out(void)
{
    const char *args[] = {"--desc", "m8n8k8", "--desc", "mb1ic4ih8oc4kh3"};
    CHECK(run(args, 4) == 0);
    int present = 0, missing = 0;
    for (int i = 0; i < kb_backend_count(); i++)
        if (!kb_backend_at(i)->correctness_only)   /* gpusim: never by default */
            no_device(kb_backend_at(i)->name) ? missing++ : present++;
    CHECK(missing >= 1);   /* "absent", and GPU backends without a GPU */
    results r = read_results();
    CHECK(r.cases == 2 * present);
    CHECK(r.cases_absent == 0);
    CHECK(r.summary != NULL);
    CHECK(summary_number(&r, "left_out") == 2 * missing);
    CHECK(summary_number(&r, "passed") + summary_number(&r, "skipped") ==
          2 * present);
    const cJSON *names = cJSON_GetObjectItem(r.summary, "left_out_backends");
    CHECK(cJSON_GetArraySize(names) == missing);
    const cJSON *n;
    cJSON_ArrayForEach(n, names)
        CHECK(no_device(cJSON_GetStringValue(n)));
    /* said once, before anything ran, with the reason */
    CHECK(lines_with(err, (const char *[]){"left out of the default backends",
                                           "absent", WHY, NULL}) == 1);
    CHECK(lines_with(err, (const char *[]){"absent", NULL}) == 1);
    char counted[64];
    snprintf(counted, sizeof counted, "0 mistrusted, %d left out (no device:",
             2 * missing);
    CHECK(lines_with(out, (const char *[]){counted, "absent)", NULL}) == 1);
    cJSON_Delete(r.summary);
}

/* Named, it runs: every case SKIPPED with the reason, nothing left out
 * (with the registry's first backend, which has its device). */
static void test_named_is_skipped(void)
{
    char both[64];
    snprintf(both, sizeof both, "%s,absent", kb_backend_at(0)->name);
    CHECK(!no_device(kb_backend_at(0)->name));
    const char *args[] = {"--desc", "m8n8k8", "--backend", both};
    CHECK(run(args, 4) == 0);
    results r = read_results();
    CHECK(r.cases == 2);
    CHECK(r.cases_absent == 1 && r.skipped_absent == 1);
    CHECK_STR(r.absent_reason, WHY);
    CHECK(r.summary != NULL);
    CHECK(summary_number(&r, "skipped") == 1);
    CHECK(summary_number(&r, "left_out") == 0);
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(r.summary,
                                                 "left_out_backends")) == 0);
    CHECK(lines_with(err, (const char *[]){"left out", NULL}) == 0);
    CHECK(lines_with(out, (const char *[]){"left out", NULL}) == 0);
    cJSON_Delete(r.summary);
}

static const check_test tests[] = {CHECK_TEST(default_leaves_out),
                                   CHECK_TEST(named_is_skipped), CHECK_END};

int main(int argc, char **argv)
{
    CHECK(kb_backend_register(&absent) == 0);
    CHECK(mkdtemp(dir) != NULL);
    snprintf(json, sizeof json, "%s/r.jsonl", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(err, sizeof err, "%s/err", dir);
    int rc = check_main(argc, argv, tests);
    unlink(json), unlink(out), unlink(err), rmdir(dir);
    return rc;
}
