/* test_wrong_backend.c - the driver must catch a backend that computes
 * the wrong answer.  Two deliberately broken backends, registered only in
 * this test, wrap the omp backend: "wrong" perturbs one output element,
 * "unwritten" leaves one element as the driver poisoned it (NaN).  A run
 * on either must exit 1 with the case FAILED; the same run on omp passes. */
#define _GNU_SOURCE   /* getline */
#include "check.h"

#include "backends/backend.h"
#include "drivers/commands.h"
#include "drivers/record.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <unistd.h>

static const kb_backend *omp;

/* The wrapped omp plan plus what is needed to reach the host output. */
typedef struct {
    void *inner;
    const kb_problem *p;
    const kb_tensors *host;
} wrong_plan;

static bool wrong_supports(const kb_problem *p, char *why, size_t len)
{
    return omp->supports(p, why, len);
}

static int wrong_prepare(const kb_problem *p, const kb_tensors *host,
                         void **plan, char *err, size_t len)
{
    wrong_plan *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    w->p = p;
    w->host = host;
    if (omp->prepare(p, host, &w->inner, err, len) != 0) {
        free(w);
        return -1;
    }
    *plan = w;
    return 0;
}

static int wrong_run(void *plan, double *elapsed, char *err, size_t len)
{
    return omp->run(((wrong_plan *)plan)->inner, elapsed, err, len);
}

static void wrong_release(void *plan)
{
    wrong_plan *w = plan;
    omp->release(w->inner);
    free(w);
}

static void wrong_describe(kb_info *info)
{
    kb_info_add(info, "purpose", "test only: deliberately wrong results");
}

/* Offset of the last logical element of dst. */
static int64_t last_dst_offset(const kb_problem *p)
{
    kb_arg_info info[KB_ARG_MAX];
    kb_problem_args(p, info);
    int64_t idx[KB_MAX_DIMS];
    for (int d = 0; d < info[KB_ARG_DST].ndims; d++)
        idx[d] = info[KB_ARG_DST].dims[d] - 1;
    return kb_arg_offset(p, KB_ARG_DST, idx);
}

/* Bring the omp results back, then break one: `nan` restores the poison
 * (an element never written), otherwise the element is moved far beyond
 * any tolerance. */
static int break_output(void *plan, bool nan, char *err, size_t len)
{
    wrong_plan *w = plan;
    if (omp->read_output && omp->read_output(w->inner, err, len) != 0)
        return -1;
    void *dst = w->host->ptr[KB_ARG_DST];
    int64_t off = last_dst_offset(w->p);
    double v = kb_load(w->p->dt, dst, off);
    kb_store(w->p->dt, dst, off, nan ? NAN : v + 1.0 + 0.5 * fabs(v));
    return 0;
}

static int perturb_output(void *plan, char *err, size_t len)
{
    return break_output(plan, false, err, len);
}

static int unwrite_output(void *plan, char *err, size_t len)
{
    return break_output(plan, true, err, len);
}

/* Static: the registry may keep the pointers for the whole process. */
static const kb_backend wrong = {
    .name = "wrong", .kind = "hand", .device = "cpu",
    .supports = wrong_supports, .prepare = wrong_prepare, .run = wrong_run,
    .read_output = perturb_output, .release = wrong_release,
    .describe = wrong_describe,
};
static const kb_backend unwritten = {
    .name = "unwritten", .kind = "hand", .device = "cpu",
    .supports = wrong_supports, .prepare = wrong_prepare, .run = wrong_run,
    .read_output = unwrite_output, .release = wrong_release,
    .describe = wrong_describe,
};

/* Status of the first case record in a JSON Lines file ("" if none). */
static void first_case_status(const char *path, char *status, size_t len)
{
    snprintf(status, len, "%s", "");
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, f) > 0) {
        cJSON *o = cJSON_Parse(line);
        const char *type = cJSON_GetStringValue(cJSON_GetObjectItem(o, "type"));
        if (type && strcmp(type, "case") == 0) {
            const char *s = cJSON_GetStringValue(cJSON_GetObjectItem(o, "status"));
            snprintf(status, len, "%s", s ? s : "");
            cJSON_Delete(o);
            break;
        }
        cJSON_Delete(o);
    }
    free(line);
    fclose(f);
}

/* kbench run on one backend and descriptor; returns the exit code and
 * the case's status. */
static int run_case(const char *backend, const char *desc, const char *json,
                    char *status, size_t len)
{
    char *argv[] = {"kbench", "run", "--backend", (char *)backend, "--desc",
                    (char *)desc, "--reps", "1", "--min-time", "0", "--quiet",
                    "--json", (char *)json, NULL};
    unlink(json);   /* no stale record from the previous run */
    int rc = kb_main(13, argv);
    first_case_status(json, status, len);
    fprintf(stderr, "%s on %s: exit %d, status %s\n", desc, backend, rc, status);
    return rc;
}

int main(void)
{
    omp = kb_backend_find("omp");
    CHECK(omp != NULL);
    if (!omp)
        return CHECK_DONE();
    CHECK(kb_backend_register(&wrong) == 0);
    CHECK(kb_backend_register(&unwritten) == 0);
    CHECK(kb_backend_register(&wrong) != 0);   /* names are unique */

    char json[] = "/tmp/kb_wrong_XXXXXX";
    int fd = mkstemp(json);
    CHECK(fd >= 0);
    if (fd < 0)
        return CHECK_DONE();
    close(fd);

    static const char *const descs[] = {"m8n12k16", "mb1ic4ih8oc8kh3ph1"};
    char status[32];
    for (size_t i = 0; i < sizeof descs / sizeof descs[0]; i++) {
        CHECK(run_case("omp", descs[i], json, status, sizeof status) == KB_EXIT_OK);
        CHECK_STR(status, "PASSED");
        CHECK(run_case("wrong", descs[i], json, status, sizeof status) ==
              KB_EXIT_VALIDATION);
        CHECK_STR(status, "FAILED");
        CHECK(run_case("unwritten", descs[i], json, status, sizeof status) ==
              KB_EXIT_VALIDATION);
        CHECK_STR(status, "FAILED");
    }
    unlink(json);
    return CHECK_DONE();
}
