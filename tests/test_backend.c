/* test_backend.c - one backend against the reference on the edge shapes
 * of the batch files in tests/inputs/, with how many cases of each kernel
 * it must run.
 *
 *   test_backend BACKEND KERNEL=N[,KERNEL=N...] FILE...
 *
 * Every problem of the files runs in f32 and f64 and, where they change
 * the computation, in both layouts and both directions (conv: with and
 * without bias; bnorm: inference and training), each setting one case.
 * A case the backend does not support must say why (SKIPPED); every
 * other case must pass, and the cases run per kernel (conv2d, conv3d,
 * gemm, bnorm: kb_problem_kernel_name) must equal the counts given, so a
 * path that starts skipping, or a shape that stops parsing as the kernel
 * it was written for, fails the test. */
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
typedef struct {
    char name[16];
    long expected, ran, cases;
} kernel_count;
static kernel_count counts[KERNELS_MAX];
static int ncounts;

/* Parses "conv2d=96,gemm=40" into counts.  Returns 0, or -1 (printed). */
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
        k->expected = strtol(eq + 1, &num_end, 10);
        if (num_end != end || num_end == eq + 1 || k->expected < 0) {
            fprintf(stderr, "bad count for %s in \"%s\": expected a "
                    "non-negative integer\n", k->name, arg);
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
                   (size_t)info[a].nelems * kb_dtype_size(p->dt.src));
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
 * reference: a run must not depend on what an earlier one left. */
static void check_case(const kb_problem *p)
{
    kb_tensors in = {0}, t = {0};
    kb_validation v;
    kb_validate_opts opts = { .full_max_macs = INT64_MAX };
    void *plan = NULL;
    char err[256] = "", why[128] = "", desc[256];
    double elapsed = 0;
    kernel_count *k = count_of(p);

    kb_problem_format(p, desc, sizeof(desc));
    CHECK(k != NULL);
    if (k)
        k->cases++;
    if (!be->supports(p, why, sizeof(why))) {
        CHECK(why[0] != '\0');   /* a SKIPPED case always says why */
        return;
    }
    if (k)
        k->ran++;
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
                be->name, kb_dtype_name(p->dt.src), kb_layout_name(p),
                kb_dir_name(p->dir), (long long)v.mismatches,
                v.first_mismatch);
out:
    kb_tensors_free(&in);
    kb_tensors_free(&t);
}

/* The settings every problem runs under, per kind. */
typedef struct {
    kb_layout layout;
    kb_dir dir;
} variant;

static const variant conv_variants[] = {
    {KB_LAYOUT_NCX, KB_FWD_B}, {KB_LAYOUT_NCX, KB_FWD_D},
    {KB_LAYOUT_NXC, KB_FWD_B}, {KB_LAYOUT_NXC, KB_FWD_D},
};
static const variant bnorm_variants[] = {
    {KB_LAYOUT_NCX, KB_FWD_I}, {KB_LAYOUT_NCX, KB_FWD_D},
    {KB_LAYOUT_NXC, KB_FWD_I}, {KB_LAYOUT_NXC, KB_FWD_D},
};
static const variant gemm_variants[] = {{KB_LAYOUT_NCX, KB_FWD_D}};

static void check_problem(const kb_problem *parsed)
{
    const variant *vs = gemm_variants;
    size_t nv = 1;
    if (parsed->kind == KB_CONV) {
        vs = conv_variants;
        nv = sizeof(conv_variants) / sizeof(conv_variants[0]);
    } else if (parsed->kind == KB_BNORM) {
        vs = bnorm_variants;
        nv = sizeof(bnorm_variants) / sizeof(bnorm_variants[0]);
    }
    for (kb_dtype dt = KB_F32; dt <= KB_F64; dt++)
        for (size_t i = 0; i < nv; i++) {
            kb_problem p = *parsed;
            p.dt = kb_dts_uniform(dt);
            p.layout = vs[i].layout;
            p.dir = vs[i].dir;
            check_case(&p);
        }
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

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: test_backend BACKEND KERNEL=N[,KERNEL=N...] "
                "FILE...\n");
        return 2;
    }
    if (parse_expect(argv[2]) != 0)
        return 2;
    be = kb_backend_find(argv[1]);
    CHECK(be != NULL);
    if (!be)
        return CHECK_DONE();
    for (int i = 3; i < argc; i++)
        CHECK(check_file(argv[i]) == 0);
    for (int i = 0; i < ncounts; i++) {
        printf("%s: ran %ld of %ld %s cases (the others SKIPPED), "
               "expected %ld\n", be->name, counts[i].ran, counts[i].cases,
               counts[i].name, counts[i].expected);
        CHECK(counts[i].ran == counts[i].expected);
    }
    return CHECK_DONE();
}
