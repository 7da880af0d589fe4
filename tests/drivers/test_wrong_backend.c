/* test_wrong_backend.c - the driver must catch a backend that computes
 * the wrong answer, or that does not compute when it is timed.
 * Deliberately broken backends, registered only in this test, wrap the
 * omp backend: "wrong" perturbs one output element, "unwritten" leaves
 * one element as the driver poisoned it (NaN), "lazy" computes on its
 * first run only, and "lazy_private" does the same on private copies of
 * every tensor (as a GPU backend keeps device buffers), reaching the host
 * only through read_output and write_input; "lazy_onednn" does it on
 * oneDNN's plan and private copies.  Each must exit 1 with the case
 * FAILED; "private", the honest version of "lazy_private", PASSES,
 * each case prepared once.  A case measured far above the roof of a
 * --peaks file is MISTRUSTED with exit 0, and the memory check sees the
 * --threads count.  Every built-in backend that has read_output has
 * write_input.
 * Low precision: "lowp" computes a GEMM as a correct bf16/f16 kernel does
 * (f32 accumulation, one rounding to nearest even into dst) and PASSES in
 * bf16, f16 and bf16:bf16:f32; its broken modes FAIL: every partial sum
 * rounded to bf16, the f32 result truncated to bf16, an f32 dst rounded
 * through bf16, and the sum stored in f16 before alpha is applied, which
 * overflows to inf where the scaled result fits.
 * fp32 means fp32: "lowp" with its f32 inputs rounded to TF32 (10
 * mantissa bits, as a tensor core reads them) and accumulated in f32
 * PASSES on the integer validation data, which TF32 holds exactly (the
 * blind spot), and FAILS with --fill fine; honest f32 (lowp's right mode)
 * PASSES with it. */
#define _GNU_SOURCE   /* getline */
#include "check.h"

#include "backends/backend.h"
#include "drivers/commands.h"
#include "drivers/record.h"

#include "machine/ceilings/ceilings.h"
#include "kernels/convert.h"
#include "reference/reference.h"

#include <cjson/cJSON.h>
#include <omp.h>
#include <stdlib.h>
#include <unistd.h>

static const kb_backend *omp, *onednn;   /* onednn: NULL when not built */

/* The wrapped omp plan plus what is needed to reach the host output. */
typedef struct {
    const kb_backend *inner_b; /* omp, or onednn for "lazy_onednn" */
    void *inner;
    const kb_problem *p;
    const kb_tensors *host;
    kb_tensors priv;           /* the "private" backends' own copies */
    int64_t runs;
} wrong_plan;

/* What the driver asked of the test backends, summed over a case. */
static struct {
    int prepares, write_inputs;
    int64_t runs;
    int threads_at_extra_bytes;   /* at the first extra_bytes call */
} calls;

static bool wrong_supports(const kb_problem *p, char *why, size_t len)
{
    return omp->supports(p, why, len);
}

/* The omp plan over the tensors `over` (the host's or private ones). */
static int wrap_prepare(const kb_problem *p, const kb_tensors *host,
                        wrong_plan *w, const kb_tensors *over, void **plan,
                        char *err, size_t len)
{
    calls.prepares++;
    w->p = p;
    w->host = host;
    if (w->inner_b->prepare(p, over, &w->inner, err, len) != 0)
        return -1;
    *plan = w;
    return 0;
}

/* A plan of `inner` straight over the host tensors. */
static int host_prepare(const kb_backend *inner, const kb_problem *p,
                        const kb_tensors *host, void **plan, char *err,
                        size_t len)
{
    wrong_plan *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    w->inner_b = inner;
    if (wrap_prepare(p, host, w, host, plan, err, len) != 0) {
        free(w);
        return -1;
    }
    return 0;
}

static int wrong_prepare(const kb_problem *p, const kb_tensors *host,
                         void **plan, char *err, size_t len)
{
    return host_prepare(omp, p, host, plan, err, len);
}

/* Copy the tensors selected (every one, or the outputs) between the host
 * and the private copies. */
static void copy_tensors(const wrong_plan *w, bool to_host, bool outputs_only)
{
    kb_arg_info info[KB_ARG_MAX];
    kb_problem_args(w->p, info);
    for (int a = 0; a < KB_ARG_MAX; a++) {
        if (!info[a].used || (outputs_only && !info[a].is_output))
            continue;
        size_t bytes = (size_t)info[a].nelems * kb_dtype_size(w->p->dt.src);
        if (to_host)
            memcpy(w->host->ptr[a], w->priv.ptr[a], bytes);
        else
            memcpy(w->priv.ptr[a], w->host->ptr[a], bytes);
    }
}

/* Private copies of every tensor, filled from the host like a device
 * upload; the omp plan computes on them. */
static int private_prepare(const kb_problem *p, const kb_tensors *host,
                           void **plan, char *err, size_t len)
{
    wrong_plan *w = calloc(1, sizeof *w);
    if (!w || kb_tensors_alloc(p, &w->priv) != 0) {
        free(w);
        snprintf(err, len, "out of memory");
        return -1;
    }
    w->inner_b = omp;
    w->p = p;
    w->host = host;
    copy_tensors(w, false, false);
    if (wrap_prepare(p, host, w, &w->priv, plan, err, len) != 0) {
        kb_tensors_free(&w->priv);
        free(w);
        return -1;
    }
    return 0;
}

static int wrong_run(void *plan, double *elapsed, char *err, size_t len)
{
    wrong_plan *w = plan;
    w->runs++;
    calls.runs++;
    return w->inner_b->run(w->inner, elapsed, err, len);
}

/* Computes once, then returns at once: a timing of nothing. */
static int lazy_run(void *plan, double *elapsed, char *err, size_t len)
{
    wrong_plan *w = plan;
    if (w->runs > 0) {
        w->runs++;
        calls.runs++;
        *elapsed = -1;
        return 0;
    }
    return wrong_run(plan, elapsed, err, len);
}

static int private_read_output(void *plan, char *err, size_t len)
{
    (void)err, (void)len;
    copy_tensors(plan, true, true);
    return 0;
}

static int private_write_input(void *plan, char *err, size_t len)
{
    (void)err, (void)len;
    calls.write_inputs++;
    copy_tensors(plan, false, false);
    return 0;
}

static void wrong_release(void *plan)
{
    wrong_plan *w = plan;
    w->inner_b->release(w->inner);
    kb_tensors_free(&w->priv);
    free(w);
}

/* Records the thread count the memory check runs under. */
static size_t counting_extra_bytes(const kb_problem *p)
{
    if (!calls.threads_at_extra_bytes)
        calls.threads_at_extra_bytes = omp_get_max_threads();
    return omp->extra_bytes ? omp->extra_bytes(p) : 0;
}

static void wrong_describe(kb_info *info)
{
    kb_info_add(info, "purpose", "test only: deliberately wrong results");
}

/* "lazy_onednn": oneDNN's plan, its run idle after the first, its own
 * read_output and write_input: the check of the last timed repetition
 * must see the poison that write_input put into oneDNN's private
 * (blocked) dst. */
static int onednn_prepare(const kb_problem *p, const kb_tensors *host,
                          void **plan, char *err, size_t len)
{
    return host_prepare(onednn, p, host, plan, err, len);
}

static bool onednn_supports(const kb_problem *p, char *why, size_t len)
{
    return onednn->supports(p, why, len);
}

static int onednn_read_output(void *plan, char *err, size_t len)
{
    wrong_plan *w = plan;
    return onednn->read_output(w->inner, err, len);
}

static int onednn_write_input(void *plan, char *err, size_t len)
{
    wrong_plan *w = plan;
    calls.write_inputs++;
    return onednn->write_input(w->inner, err, len);
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
    double v = kb_load(w->p->dt.src, dst, off);
    kb_store(w->p->dt.src, dst, off, nan ? NAN : v + 1.0 + 0.5 * fabs(v));
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

/* ---- low precision: GEMM computed from the host tensors ---- */
typedef enum {
    LOWP_RIGHT, LOWP_BF16_ACC, LOWP_TRUNCATE, LOWP_DST_BF16, LOWP_F16_PRESCALE,
    LOWP_TF32_INPUTS
} lowp_bug;

typedef struct {
    const kb_problem *p;
    const kb_tensors *t;
    lowp_bug bug;
} lowp_plan;

static lowp_bug lowp_mode;
static const char *const lowp_names[] = {
    [LOWP_RIGHT] = "right", [LOWP_BF16_ACC] = "bf16 partial sums",
    [LOWP_TRUNCATE] = "truncated to bf16", [LOWP_DST_BF16] = "f32 dst through bf16",
    [LOWP_F16_PRESCALE] = "f16 sum before alpha",
    [LOWP_TF32_INPUTS] = "f32 inputs rounded to TF32"};

static bool lowp_supports(const kb_problem *p, char *why, size_t len)
{
    if (p->kind != KB_GEMM || kb_dts_has(&p->dt, KB_F64)) {
        snprintf(why, len, "test backend: GEMM in f32, bf16 and f16 only");
        return false;
    }
    return true;
}

static int lowp_prepare_bug(lowp_bug bug, const kb_problem *p,
                            const kb_tensors *host, void **plan, char *err,
                            size_t len)
{
    lowp_plan *l = malloc(sizeof *l);
    if (!l) {
        snprintf(err, len, "out of memory");
        return -1;
    }
    *l = (lowp_plan){p, host, bug};
    *plan = l;
    return 0;
}

static float to_bf16(float x)
{
    return kb_bf16_to_f32(kb_f32_to_bf16(x));
}

/* x rounded to nearest even at 10 mantissa bits (TF32's), dropping the
 * low 13 of f32's 23 (finite x: the test data). */
static float to_tf32(float x)
{
    uint32_t b = kb_f32_bits(x);
    b += 0x0fffu + ((b >> 13) & 1u);
    b &= ~0x1fffu;
    float r;
    memcpy(&r, &b, sizeof r);
    return r;
}

/* One dst element: the dot product in f32 (or with every partial sum in
 * bf16), alpha and beta applied in f32 (or alpha after the sum was
 * stored as f16). */
static float lowp_element(const lowp_plan *l, int64_t m, int64_t n)
{
    const kb_problem *p = l->p;
    const kb_gemm_desc *g = &p->gemm;
    float acc = 0.0f;
    for (int64_t k = 0; k < g->k; k++) {
        int64_t ai[2] = {m, k}, bi[2] = {k, n};
        float a = (float)kb_load(p->dt.src, l->t->ptr[KB_ARG_SRC],
                                 kb_arg_offset(p, KB_ARG_SRC, ai));
        float b = (float)kb_load(p->dt.wei, l->t->ptr[KB_ARG_WEI],
                                 kb_arg_offset(p, KB_ARG_WEI, bi));
        if (l->bug == LOWP_TF32_INPUTS) {
            a = to_tf32(a);
            b = to_tf32(b);
        }
        acc = fmaf(a, b, acc);
        if (l->bug == LOWP_BF16_ACC)
            acc = to_bf16(acc);
    }
    if (l->bug == LOWP_F16_PRESCALE)
        acc = kb_f16_to_f32(kb_f32_to_f16(acc));
    float r = (float)g->alpha * acc;
    if (g->beta != 0.0) {
        int64_t ci[2] = {m, n};
        r += (float)g->beta * (float)kb_load(p->dt.dst, l->t->ptr[KB_ARG_DST],
                                             kb_arg_offset(p, KB_ARG_DST, ci));
    }
    return r;
}

static int lowp_run(void *plan, double *elapsed, char *err, size_t len)
{
    const lowp_plan *l = plan;
    const kb_problem *p = l->p;
    (void)err, (void)len;
    for (int64_t m = 0; m < p->gemm.m; m++)
        for (int64_t n = 0; n < p->gemm.n; n++) {
            int64_t ci[2] = {m, n};
            int64_t off = kb_arg_offset(p, KB_ARG_DST, ci);
            float r = lowp_element(l, m, n);
            if (l->bug == LOWP_TRUNCATE && p->dt.dst == KB_BF16)
                ((uint16_t *)l->t->ptr[KB_ARG_DST])[off] =
                    (uint16_t)(kb_f32_bits(r) >> 16);
            else
                kb_store(p->dt.dst, l->t->ptr[KB_ARG_DST], off,
                         l->bug == LOWP_DST_BF16 ? to_bf16(r) : r);
        }
    *elapsed = -1;
    return 0;
}

static void lowp_release(void *plan)
{
    free(plan);
}

/* The registry has room for few test backends, so one serves every
 * variant: the test sets lowp_mode before each case. */
static int lowp_prepare(const kb_problem *p, const kb_tensors *host,
                        void **plan, char *err, size_t len)
{
    return lowp_prepare_bug(lowp_mode, p, host, plan, err, len);
}

static const kb_backend lowp = {
    .name = "lowp", .kind = "hand", .device = "cpu",
    .supports = lowp_supports, .prepare = lowp_prepare, .run = lowp_run,
    .release = lowp_release, .describe = wrong_describe,
};

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
static const kb_backend lazy = {
    .name = "lazy", .kind = "hand", .device = "cpu",
    .supports = wrong_supports, .prepare = wrong_prepare, .run = lazy_run,
    .release = wrong_release, .describe = wrong_describe,
};
static const kb_backend lazy_private = {
    .name = "lazy_private", .kind = "hand", .device = "cpu",
    .supports = wrong_supports, .prepare = private_prepare, .run = lazy_run,
    .read_output = private_read_output, .write_input = private_write_input,
    .release = wrong_release, .describe = wrong_describe,
};
static const kb_backend private = {
    .name = "private", .kind = "hand", .device = "cpu",
    .supports = wrong_supports, .extra_bytes = counting_extra_bytes,
    .prepare = private_prepare, .run = wrong_run,
    .read_output = private_read_output, .write_input = private_write_input,
    .release = wrong_release, .describe = wrong_describe,
};

static const kb_backend lazy_onednn = {
    .name = "lazy_onednn", .kind = "vendor", .device = "cpu",
    .supports = onednn_supports, .prepare = onednn_prepare, .run = lazy_run,
    .read_output = onednn_read_output, .write_input = onednn_write_input,
    .release = wrong_release, .describe = wrong_describe,
};

/* A field of the first record of `type` in a JSON Lines file: a string
 * into out, or a number printed with %g ("" if none). */
static void first_field(const char *path, const char *type, const char *key,
                        char *out, size_t len)
{
    snprintf(out, len, "%s", "");
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, f) > 0) {
        cJSON *o = cJSON_Parse(line);
        const char *t = cJSON_GetStringValue(cJSON_GetObjectItem(o, "type"));
        if (t && strcmp(t, type) == 0) {
            const cJSON *v = cJSON_GetObjectItem(o, key);
            if (cJSON_IsString(v))
                snprintf(out, len, "%s", v->valuestring);
            else if (cJSON_IsNumber(v))
                snprintf(out, len, "%g", v->valuedouble);
            cJSON_Delete(o);
            break;
        }
        cJSON_Delete(o);
    }
    free(line);
    fclose(f);
}

typedef struct {
    const char *json;      /* JSON Lines output */
    const char *dt;        /* --dt T, or NULL */
    const char *peaks;     /* --peaks FILE, or NULL */
    const char *threads;   /* --threads N, or NULL */
    const char *fill;      /* --fill F, or NULL */
    char status[32], reason[256];
} run_result;

/* kbench run on one backend and descriptor, 2 timed repetitions; returns
 * the exit code, with the case's status and reason in res.  calls counts
 * what the run asked of the test backends. */
static int run_case(const char *backend, const char *desc, run_result *res)
{
    char *argv[24] = {"kbench", "run", "--backend", (char *)backend, "--desc",
                      (char *)desc, "--reps", "2", "--min-time", "0",
                      "--warmup-time", "0", "--quiet", "--json",
                      (char *)res->json};
    int argc = 15;
    if (res->dt) {
        argv[argc++] = "--dt";
        argv[argc++] = (char *)res->dt;
    }
    if (res->peaks) {
        argv[argc++] = "--peaks";
        argv[argc++] = (char *)res->peaks;
    }
    if (res->threads) {
        argv[argc++] = "--threads";
        argv[argc++] = (char *)res->threads;
    }
    if (res->fill) {
        argv[argc++] = "--fill";
        argv[argc++] = (char *)res->fill;
    }
    unlink(res->json);   /* no stale record from the previous run */
    memset(&calls, 0, sizeof calls);
    int rc = kb_main(argc, argv);
    first_field(res->json, "case", "status", res->status, sizeof res->status);
    first_field(res->json, "case", "reason", res->reason, sizeof res->reason);
    fprintf(stderr, "%s on %s: exit %d, status %s (%s)\n", desc, backend, rc,
            res->status, res->reason);
    return rc;
}

static const char *const descs[] = {"m8n12k16", "m9n7k3_beta1",
                                    "mb1ic4ih8oc8kh3ph1"};
#define NDESCS (sizeof descs / sizeof descs[0])

/* Wrong values on the first run: FAILED by the first check. */
static void wrong_first_run(run_result *res)
{
    for (size_t i = 0; i < NDESCS; i++) {
        CHECK(run_case("omp", descs[i], res) == KB_EXIT_OK);
        CHECK_STR(res->status, "PASSED");
        CHECK(run_case("wrong", descs[i], res) == KB_EXIT_VALIDATION);
        CHECK_STR(res->status, "FAILED");
        CHECK(run_case("unwritten", descs[i], res) == KB_EXIT_VALIDATION);
        CHECK_STR(res->status, "FAILED");
    }
}

/* Right on the first run, idle when timed: FAILED by the check of the
 * last timed repetition, with a reason that says so.  Pure outputs are
 * left as poisoned (NaN); GEMM's dst with beta != 0 as restored. */
static void idle_timed_runs(run_result *res)
{
    static const kb_backend *const idle[] = {&lazy, &lazy_private};
    for (size_t k = 0; k < 2; k++)
        for (size_t i = 0; i < NDESCS; i++) {
            CHECK(run_case(idle[k]->name, descs[i], res) == KB_EXIT_VALIDATION);
            CHECK_STR(res->status, "FAILED");
            CHECK(strstr(res->reason, "the last timed repetition") != NULL);
            CHECK(strstr(res->reason, "did not do the") != NULL);
            bool accumulates = strstr(descs[i], "beta") != NULL;
            CHECK(accumulates == (strstr(res->reason, "NaN or Inf") == NULL));
            CHECK(calls.prepares == 1);
            CHECK(calls.write_inputs == (idle[k] == &lazy_private));
        }
}

/* oneDNN's write_input reaches its private copies: idle timed runs over
 * them FAIL too (a conv, whose dst oneDNN keeps blocked where it can). */
static void idle_onednn(run_result *res)
{
    if (!onednn) {
        fprintf(stderr, "oneDNN not built: lazy_onednn not run\n");
        return;
    }
    const char *conv = "mb1ic16ih14oc32kh3ph1";
    CHECK(run_case("lazy_onednn", conv, res) == KB_EXIT_VALIDATION);
    CHECK_STR(res->status, "FAILED");
    CHECK(strstr(res->reason, "NaN or Inf") != NULL);
    CHECK(calls.prepares == 1 && calls.write_inputs == 1);
    CHECK(run_case("onednn", conv, res) == KB_EXIT_OK);
    CHECK_STR(res->status, "PASSED");
}

/* The honest backend with private copies: PASSED, prepared once, every
 * run (first, warm-up, 2 timed) on that plan, write_input once. */
static void honest_private(run_result *res)
{
    for (size_t i = 0; i < NDESCS; i++) {
        CHECK(run_case("private", descs[i], res) == KB_EXIT_OK);
        CHECK_STR(res->status, "PASSED");
        CHECK(calls.prepares == 1);
        CHECK(calls.runs == 1 + 1 + 2);
        CHECK(calls.write_inputs == 1);
    }
}

/* A ceilings file for the cpu: an fp32 peak and a DRAM bandwidth, no
 * cache sizes.  Returns 0, or -1 (printed). */
static int write_ceilings(const char *path, double gflops, double gbps)
{
    kb_ceilings *c = calloc(1, sizeof *c);
    if (!c)
        return -1;
    snprintf(c->host, sizeof c->host, "test");
    c->ndevices = 1;
    kb_device *d = &c->devices[0];
    snprintf(d->kind, sizeof d->kind, "cpu");
    kb_device_add_ceiling(d, KB_CEIL_COMPUTE, "fake", "fp32", gflops, 0);
    kb_device_add_ceiling(d, KB_CEIL_MEMORY, "fake", "DRAM", gbps, 0);
    char err[512];
    int rc = kb_ceilings_save(c, path, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "%s\n", err);
    free(c);
    return rc;
}

/* Under a DRAM roof of 1e-6 GB/s every case is far above it: MISTRUSTED
 * (counted, exit 0) when it validated, FAILED when it did not; so is it
 * under a compute roof of 1e-6 GFLOP/s; under roofs of 1e9 it stays
 * PASSED. */
static void mistrusted(run_result *res, const char *peaks)
{
    CHECK(write_ceilings(peaks, 1e9, 1e-6) == 0);
    res->peaks = peaks;
    char n[32];
    CHECK(run_case("omp", descs[0], res) == KB_EXIT_OK);
    CHECK_STR(res->status, "MISTRUSTED");
    CHECK(strstr(res->reason, "of its roof (DRAM bandwidth") != NULL);
    first_field(res->json, "summary", "mistrusted", n, sizeof n);
    CHECK_STR(n, "1");
    first_field(res->json, "summary", "passed", n, sizeof n);
    CHECK_STR(n, "0");
    CHECK(run_case("lazy", descs[0], res) == KB_EXIT_VALIDATION);
    CHECK_STR(res->status, "FAILED");

    CHECK(write_ceilings(peaks, 1e-6, 1e9) == 0);
    CHECK(run_case("omp", descs[2], res) == KB_EXIT_OK);
    CHECK_STR(res->status, "MISTRUSTED");
    CHECK(strstr(res->reason, "of its roof (fp32 peak") != NULL);

    CHECK(write_ceilings(peaks, 1e9, 1e9) == 0);
    CHECK(run_case("omp", descs[0], res) == KB_EXIT_OK);
    CHECK_STR(res->status, "PASSED");
    first_field(res->json, "summary", "mistrusted", n, sizeof n);
    CHECK_STR(n, "0");
    res->peaks = NULL;
}

/* Through kbench run, on VALIDATION data: K = 16384 makes bf16 partial
 * sums far off, and results of a few hundred, a third above 512, where
 * truncation differs from rounding (bf16 steps of 4 and more, and not
 * only at ties); an f32 dst rounded through bf16 loses 16 bits. */
static void low_precision(run_result *res)
{
    static const struct {
        lowp_bug mode;
        const char *dt;
    } cases[] = {
        {LOWP_RIGHT, "bf16"},
        {LOWP_RIGHT, "f16"},
        {LOWP_RIGHT, "bf16:bf16:f32"},
        {LOWP_RIGHT, "f16:f16:f32"},
        {LOWP_BF16_ACC, "bf16"},
        {LOWP_TRUNCATE, "bf16"},
        {LOWP_DST_BF16, "bf16:bf16:f32"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const bool passes = cases[i].mode == LOWP_RIGHT;
        lowp_mode = cases[i].mode;
        res->dt = cases[i].dt;
        fprintf(stderr, "lowp, %s, --dt %s:\n", lowp_names[lowp_mode],
                res->dt);
        int rc = run_case("lowp", "m4n64k16384", res);
        CHECK(rc == (passes ? KB_EXIT_OK : KB_EXIT_VALIDATION));
        CHECK_STR(res->status, passes ? "PASSED" : "FAILED");
    }
    res->dt = NULL;
    lowp_mode = LOWP_RIGHT;
}

/* TF32 inputs in an f32 GEMM (K = 256, alpha and beta, so the epilogue
 * is covered too): unnoticed on the integer data, FAILED on the fine
 * data, whose fractions below TF32's precision it rounds away; the honest
 * f32 kernel PASSES both.  The run record says which fill it used. */
static void tf32_inputs(run_result *res)
{
    static const struct {
        lowp_bug mode;
        const char *fill;
        bool passes;
    } cases[] = {
        {LOWP_RIGHT, "integer", true},
        {LOWP_RIGHT, "fine", true},
        {LOWP_TF32_INPUTS, "integer", true},   /* the blind spot */
        {LOWP_TF32_INPUTS, "fine", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        lowp_mode = cases[i].mode;
        res->fill = cases[i].fill;
        fprintf(stderr, "lowp, %s, --fill %s:\n", lowp_names[lowp_mode],
                res->fill);
        int rc = run_case("lowp", "m16n24k256_alpha0.5_beta1", res);
        CHECK(rc == (cases[i].passes ? KB_EXIT_OK : KB_EXIT_VALIDATION));
        CHECK_STR(res->status, cases[i].passes ? "PASSED" : "FAILED");
        char fill[16];
        first_field(res->json, "run", "fill", fill, sizeof fill);
        CHECK_STR(fill, cases[i].fill);
    }
    res->fill = NULL;
    lowp_mode = LOWP_RIGHT;
}

/* f16 overflow: all of A 4 and of B 2, K = 16384, alpha 1/8, so the
 * result 16384 fits in f16 but the unscaled sum 131072 does not: the
 * backend that stores the sum before scaling it writes inf, which FAILS
 * (as non-finite, every element); the honest one PASSES.  Direct calls
 * (the driver's prepare, run, validate), as VALIDATION data cannot make
 * such a sum. */
static void f16_overflow(void)
{
    kb_problem p = {
        .kind = KB_GEMM, .gemm = {.m = 2, .n = 3, .k = 16384, .alpha = 0.125},
        .count = 1, .dt = KB_DTS_INIT(KB_F16), .dir = KB_FWD_D};
    static const lowp_bug modes[] = {LOWP_F16_PRESCALE, LOWP_RIGHT};
    for (size_t b = 0; b < 2; b++) {
        kb_tensors t;
        kb_validation v;
        void *plan = NULL;
        double elapsed;
        char err[128];
        CHECK(kb_tensors_alloc(&p, &t) == 0);
        for (int64_t i = 0; i < p.gemm.k * 3; i++) {
            kb_store(KB_F16, t.ptr[KB_ARG_SRC], i % (2 * p.gemm.k), 4.0);
            kb_store(KB_F16, t.ptr[KB_ARG_WEI], i, 2.0);
        }
        kb_poison_outputs(&p, &t, true);
        lowp_mode = modes[b];
        CHECK(lowp.prepare(&p, &t, &plan, err, sizeof err) == 0);
        CHECK(lowp.run(plan, &elapsed, err, sizeof err) == 0);
        lowp.release(plan);
        bool ok = kb_validate(&p, &t, &t, NULL, &v);
        fprintf(stderr, "lowp, %s, f16 sum past 65504: %s (%s)\n",
                lowp_names[lowp_mode], ok ? "PASSED" : "FAILED",
                v.first_mismatch);
        CHECK(ok == (modes[b] == LOWP_RIGHT));
        CHECK(v.nonfinite == (modes[b] == LOWP_RIGHT ? 0 : 6));
        CHECK(ok || strstr(v.first_mismatch, "inf") != NULL);
        kb_tensors_free(&t);
    }
    lowp_mode = LOWP_RIGHT;
}

/* The memory check (the first extra_bytes call) already sees --threads.
 * Last: the thread count stays set for the rest of the process. */
static void threads_before_memory(run_result *res)
{
    int want = omp_get_max_threads() == 1 ? 2 : 1;
    char arg[16];
    snprintf(arg, sizeof arg, "%d", want);
    res->threads = arg;
    CHECK(run_case("private", descs[0], res) == KB_EXIT_OK);
    CHECK(calls.threads_at_extra_bytes == want);
    res->threads = NULL;
}

static char dir[] = "/tmp/kb_wrong_XXXXXX", json[64], peaks[64];
static run_result res;
static int nbuiltin;   /* the backends built in: before main registers mine */

/* A backend that reads its outputs back keeps them privately, so it
 * must be able to write the poison there too (this test's `unwritten`
 * has not on purpose). */
static void test_read_output_has_write_input(void)
{
    for (int i = 0; i < nbuiltin; i++) {
        const kb_backend *b = kb_backend_at(i);
        if (b->read_output && !b->write_input)
            fprintf(stderr, "%s has read_output but no write_input\n", b->name);
        CHECK(!b->read_output || b->write_input);
    }
}

static void test_wrong_first_run(void) { wrong_first_run(&res); }
static void test_idle_timed_runs(void) { idle_timed_runs(&res); }
static void test_idle_onednn(void) { idle_onednn(&res); }
static void test_honest_private(void) { honest_private(&res); }
static void test_mistrusted(void) { mistrusted(&res, peaks); }
static void test_low_precision(void) { low_precision(&res); }
static void test_tf32_inputs(void) { tf32_inputs(&res); }
static void test_f16_overflow(void) { f16_overflow(); }
static void test_threads_before_memory(void) { threads_before_memory(&res); }

static const check_test tests[] = {
    CHECK_TEST(read_output_has_write_input), CHECK_TEST(wrong_first_run),
    CHECK_TEST(idle_timed_runs), CHECK_TEST(idle_onednn),
    CHECK_TEST(honest_private), CHECK_TEST(mistrusted),
    CHECK_TEST(low_precision), CHECK_TEST(tf32_inputs),
    CHECK_TEST(f16_overflow), CHECK_TEST(threads_before_memory), CHECK_END};

int main(int argc, char **argv)
{
    omp = kb_backend_find("omp");
    CHECK(omp != NULL);
    if (!omp)
        return CHECK_DONE();
    nbuiltin = kb_backend_count();
    /* the test's backends, registered once for every sub-test */
    static const kb_backend *const mine[] = {
        &wrong, &unwritten, &lazy, &lazy_private, &private, &lowp};
    for (size_t i = 0; i < sizeof mine / sizeof mine[0]; i++)
        CHECK(kb_backend_register(mine[i]) == 0);
    onednn = kb_backend_find("onednn");
    if (onednn)
        CHECK(kb_backend_register(&lazy_onednn) == 0);
    CHECK(kb_backend_register(&wrong) != 0);   /* names are unique */

    CHECK(mkdtemp(dir) != NULL);
    snprintf(json, sizeof json, "%s/r.jsonl", dir);
    snprintf(peaks, sizeof peaks, "%s/peaks.json", dir);
    res = (run_result){.json = json};

    int status = check_main(argc, argv, tests);
    unlink(json);
    unlink(peaks);
    rmdir(dir);
    return status;
}
