/* test_backend.c - one backend against the reference on the edge shapes
 * of the batch files in tests/inputs/, with how many cases of each kernel
 * it must run.
 *
 *   test_backend BACKEND KERNEL=N[,KERNEL=N...] FILE...
 *
 * Every problem of the files runs in every setting of its kind's sweep
 * (the tables below: layout x direction x data type), each setting one
 * case.  A case the backend does not support must say why (SKIPPED);
 * every other case must pass, and the cases run per kernel (conv2d,
 * conv3d, gemm, bnorm: kb_problem_kernel_name) must equal the counts
 * given, so a path that starts skipping, or a shape that stops parsing as
 * the kernel it was written for, fails the test.  A count of `+` asks
 * for at least one case instead (the GPU backends, whose exact counts
 * only a machine with the device can measure).  The cases run per
 * direction and type are printed, to say where a count comes from.
 * Exits 77 (ctest's SKIP_RETURN_CODE) when the backend's describe() says
 * it has no device ("device" "none"): its cases would all be SKIPPED. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "kernels/batch.h"
#include "reference/reference.h"
#include "tests/check.h"

static const kb_backend *be;

/* Expected and actual cases run, per kernel name. */
enum { KERNELS_MAX = 8 };
enum { DTS_MAX = 5 };
typedef struct {
    char name[16];
    long expected, ran, cases;  /* expected -1: at least one (`+`) */
    long by_setting[KB_DIR_COUNT][DTS_MAX];   /* ran, per direction x type */
    kb_kind kind;              /* of the problems counted */
} kernel_count;
static kernel_count counts[KERNELS_MAX];
static int ncounts;

/* Parses "conv2d=96,gemm=40,bnorm=+" into counts.  Returns 0, or -1
 * (printed). */
static int parse_expect(const char *arg)
{
    const char *s = arg;
    while (*s) {
        const char *eq = strchr(s, '='), *end = strchr(s, ',');
        char *num_end;
        if (!end)
            end = s + strlen(s);
        if (!eq || eq > end || eq == s || (size_t)(eq - s) >= sizeof
            counts[0].name || ncounts == KERNELS_MAX) {
            fprintf(stderr, "bad expected counts \"%s\": expected up to %d "
                    "KERNEL=N, comma-separated\n", arg, KERNELS_MAX);
            return -1;
        }
        kernel_count *k = &counts[ncounts++];
        memcpy(k->name, s, (size_t)(eq - s));
        k->name[eq - s] = '\0';
        if (eq[1] == '+') {
            k->expected = -1;
            num_end = (char *)eq + 2;
        } else {
            k->expected = strtol(eq + 1, &num_end, 10);
        }
        if (num_end != end || num_end == eq + 1 || k->expected < -1 ||
            (k->expected == -1 && eq[1] != '+')) {
            fprintf(stderr, "bad count for %s in \"%s\": expected a "
                    "non-negative integer or +\n", k->name, arg);
            return -1;
        }
        s = *end ? end + 1 : end;
    }
    return 0;
}

/* The count of p's kernel, or NULL (printed) when none was given. */
static kernel_count *count_of(const kb_problem *p)
{
    const char *name = kb_problem_kernel_name(p);
    for (int i = 0; i < ncounts; i++)
        if (strcmp(counts[i].name, name) == 0)
            return &counts[i];
    fprintf(stderr, "no expected count given for kernel %s\n", name);
    return NULL;
}

/* The inputs of t as they were (from in), outputs poisoned, and the
 * backend's own copies rewritten, as the driver does before its checked
 * last repetition: only the run after this can make the outputs pass. */
static void reset_for_rerun(const kb_problem *p, const kb_tensors *in,
                            kb_tensors *t, void *plan)
{
    kb_arg_info info[KB_ARG_MAX];
    char err[256] = "";
    kb_problem_args(p, info);
    for (int a = 0; a < KB_ARG_MAX; a++)
        if (info[a].used && info[a].is_input)
            memcpy(t->ptr[a], in->ptr[a],
                   (size_t)info[a].nelems * kb_dtype_size(info[a].dt));
    kb_poison_outputs(p, t);
    if (be->write_input) {
        bool ok = be->write_input(plan, err, sizeof(err)) == 0;
        CHECK(ok);
        if (!ok)
            fprintf(stderr, "write_input failed: %s\n", err);
    }
}

/* Prepare p over validation data, run it, reset inputs and outputs, run
 * it again and compare every output point of the second run with the
 * reference: a run must not depend on what an earlier one left.  dts is
 * p's type's number in its kind's sweep. */
static void check_case(const kb_problem *p, size_t dts)
{
    kb_tensors in = {0}, t = {0};
    kb_validation v;
    kb_validate_opts opts = { .full_max_macs = INT64_MAX };
    void *plan = NULL;
    char err[256] = "", why[128] = "", desc[256], types[32];
    double elapsed = 0;
    kernel_count *k = count_of(p);

    kb_problem_format(p, desc, sizeof(desc));
    kb_dts_format(&p->dt, types, sizeof types);
    CHECK(k != NULL);
    if (k) {
        k->cases++;
        k->kind = p->kind;
    }
    if (!be->supports(p, why, sizeof(why))) {
        CHECK(why[0] != '\0');   /* a SKIPPED case always says why */
        return;
    }
    if (k) {
        k->ran++;
        k->by_setting[p->dir][dts]++;
    }
    if (kb_tensors_alloc(p, &in) != 0 || kb_tensors_alloc(p, &t) != 0) {
        CHECK(!"tensor allocation");
        goto out;
    }
    kb_fill_inputs(p, &in, KB_FILL_VALIDATION, 7);
    kb_fill_inputs(p, &t, KB_FILL_VALIDATION, 7);
    kb_poison_outputs(p, &t);

    CHECK(be->prepare(p, &t, &plan, err, sizeof(err)) == 0);
    if (!plan) {
        fprintf(stderr, "%s: prepare failed: %s\n", desc, err);
        goto out;
    }
    CHECK(be->run(plan, &elapsed, err, sizeof(err)) == 0);
    reset_for_rerun(p, &in, &t, plan);
    CHECK(be->run(plan, &elapsed, err, sizeof(err)) == 0);
    CHECK(elapsed == -1.0 || elapsed >= 0.0);
    if (be->read_output)
        CHECK(be->read_output(plan, err, sizeof(err)) == 0);
    be->release(plan);

    bool ok = kb_validate(p, &in, &t, &opts, &v);
    CHECK(ok);
    CHECK(v.mode == KB_CHECK_FULL);   /* full_max_macs forces it */
    CHECK(v.checked > 0);
    if (!ok)
        fprintf(stderr, "%s [%s %s %s %s]: %lld mismatches, %s\n", desc,
                be->name, types, kb_layout_name(p), kb_dir_name(p->dir),
                (long long)v.mismatches, v.first_mismatch);
out:
    kb_tensors_free(&in);
    kb_tensors_free(&t);
}

/* The settings every problem runs under, per kind: each layout that
 * changes the computation, each direction that does (conv's FWD_I is its
 * FWD_D, GEMM's forward passes are all alike), each data type. */
typedef struct {
    kb_layout layouts[2];
    size_t nlayouts;
    kb_dir dirs[5];
    size_t ndirs;
    kb_dts dts[DTS_MAX];
    size_t ndts;
} sweep;

#define ALL_TYPES                                                          \
    {KB_DTS_INIT(KB_F32), KB_DTS_INIT(KB_F64), KB_DTS_INIT(KB_BF16),        \
     KB_DTS_INIT(KB_F16), {KB_BF16, KB_BF16, KB_F32}}

static const sweep sweeps[3] = {
    [KB_CONV] = {{KB_LAYOUT_NCX, KB_LAYOUT_NXC}, 2,
                 {KB_FWD_B, KB_FWD_D, KB_BWD_D, KB_BWD_W, KB_BWD_WB}, 5,
                 ALL_TYPES, 5},
    [KB_GEMM] = {{KB_LAYOUT_NCX}, 1, {KB_FWD_D}, 1, ALL_TYPES, 5},
    /* bnorm takes one type for all its activations */
    [KB_BNORM] = {{KB_LAYOUT_NCX, KB_LAYOUT_NXC}, 2,
                  {KB_FWD_I, KB_FWD_D, KB_BWD_D, KB_BWD_DW}, 4,
                  {KB_DTS_INIT(KB_F32), KB_DTS_INIT(KB_F64),
                   KB_DTS_INIT(KB_BF16), KB_DTS_INIT(KB_F16)}, 4},
};

static void check_problem(const kb_problem *parsed)
{
    const sweep *sw = &sweeps[parsed->kind];
    for (size_t d = 0; d < sw->ndts; d++)
        for (size_t l = 0; l < sw->nlayouts; l++)
            for (size_t i = 0; i < sw->ndirs; i++) {
                kb_problem p = *parsed;
                p.dt = sw->dts[d];
                p.layout = sw->layouts[l];
                p.dir = sw->dirs[i];
                check_case(&p, d);
            }
}

/* "FWD_B f32 110 BWD_D bf16 20 ..." for the settings kernel k ran in:
 * where an expected count comes from. */
static void print_settings(const kernel_count *k)
{
    const sweep *sw = &sweeps[k->kind];
    printf("  ");
    for (size_t i = 0; i < sw->ndirs; i++)
        for (size_t d = 0; d < sw->ndts; d++) {
            char types[32];
            long n = k->by_setting[sw->dirs[i]][d];
            if (!n)
                continue;
            kb_dts_format(&sw->dts[d], types, sizeof types);
            printf(" %s %s %ld", kb_dir_name(sw->dirs[i]), types, n);
        }
    printf("\n");
}

/* Runs every problem of the batch file at path.  Returns 0, or -1 when
 * the file cannot be read or parsed (printed). */
static int check_file(const char *path)
{
    kb_settings s;
    kb_problem_list list = {0};
    char err[512];
    kb_settings_default(&s);
    if (kb_batch_load(path, &s, &list, err, sizeof(err)) != 0) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    for (size_t i = 0; i < list.n; i++)
        check_problem(&list.items[i]);
    kb_problem_list_free(&list);
    return 0;
}

/* Whether b's describe() says it has no device. */
static bool no_device(const kb_backend *b)
{
    kb_info info = {0};
    if (!b->describe)
        return false;
    b->describe(&info);
    for (int i = 0; i < info.n; i++)
        if (strcmp(info.kv[i].key, "device") == 0 &&
            strcmp(info.kv[i].value, "none") == 0)
            return true;
    return false;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: test_backend BACKEND KERNEL=N|+[,KERNEL=N|+...] "
                "FILE...\n");
        return 2;
    }
    if (parse_expect(argv[2]) != 0)
        return 2;
    be = kb_backend_find(argv[1]);
    CHECK(be != NULL);
    if (!be)
        return CHECK_DONE();
    if (no_device(be)) {
        printf("%s: no device: SKIPPED\n", be->name);
        return 77;
    }
    for (int i = 3; i < argc; i++)
        CHECK(check_file(argv[i]) == 0);
    for (int i = 0; i < ncounts; i++) {
        const kernel_count *k = &counts[i];
        if (k->expected < 0)
            printf("%s: ran %ld of %ld %s cases (the others SKIPPED), "
                   "expected at least 1\n", be->name, k->ran, k->cases,
                   k->name);
        else
            printf("%s: ran %ld of %ld %s cases (the others SKIPPED), "
                   "expected %ld\n", be->name, k->ran, k->cases, k->name,
                   k->expected);
        print_settings(k);
        CHECK(k->expected < 0 ? k->ran > 0 : k->ran == k->expected);
    }
    return CHECK_DONE();
}
