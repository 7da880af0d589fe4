/* test_backend.c - one backend against the reference on the edge shapes
 * of the batch files in tests/inputs/, running exactly the settings its
 * coverage declares.
 *
 *   test_backend BACKEND COVERAGE FILE...
 *
 * Every problem of the files runs in every setting of its kind's sweep
 * (the tables below: layout x direction x data type), each setting one
 * case.  COVERAGE (backends/FOLDER/coverage.txt, beside the backend)
 * says, per backend, which (kernel, direction, type, layout) settings it
 * runs; every other one it must SKIP, saying why.  Every covered case must run and pass, so the
 * cases expected are the input lines of each kernel (read by kbench's
 * batch parser) times the covered settings: nothing is typed by hand, a
 * new input line adds its cases, and a path that starts skipping (or a
 * shape that stops parsing as the kernel it was written for) fails,
 * naming the setting that ran fewer cases than expected.  A coverage
 * line of `+` asks for at least one case of its kernels instead (the GPU
 * backends, whose exact coverage only a machine with the device can
 * measure).  Exits 77 (ctest's SKIP_RETURN_CODE) when the backend's
 * describe() says it has no device ("device" "none"): its cases would
 * all be SKIPPED.
 *
 * A coverage file's lines, after # comments:
 *   BACKEND  KERNELS  DIRECTIONS  TYPES  LAYOUTS
 *   BACKEND  KERNELS  +
 * either one optionally followed by `if KEY=GLOB,GLOB... [KEY=...]`: the
 * line counts only where each KEY of the backend's describe() facts
 * matches one of its globs (fnmatch), e.g. `if version=3.*`.  Each of KERNELS, DIRECTIONS, TYPES and LAYOUTS is a comma list of names
 * or `*` (every one this test sweeps): kernels as in `kbench list
 * kernels`; directions FWD_B FWD_D FWD_I BWD_D BWD_W BWD_WB BWD_DW (conv
 * sweeps FWD_B FWD_D BWD_D BWD_W BWD_WB, GEMM FWD_D, bnorm FWD_I FWD_D
 * BWD_D BWD_DW); types f32 f64 bf16 f16 bf16:bf16:f32 (bnorm has no mixed
 * one); layouts NCX NXC (GEMM has NCX only).  A built backend without a
 * line fails its test. */
#include <fnmatch.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "kernels/batch.h"
#include "kernels/kernel_table.h"
#include "reference/reference.h"
#include "tests/check.h"

static const kb_backend *be;

enum { DTS_MAX = 5, LAYOUTS = 2 };
static const char *const layout_names[LAYOUTS] = {
    [KB_LAYOUT_NCX] = "NCX", [KB_LAYOUT_NXC] = "NXC"};

/* One line of the coverage file for this backend: the kernels, and the
 * directions, types and layouts they run in (each a comma list of names,
 * or "*" for all of the sweep), or `some`: at least one case. */
enum { COVER_MAX = 32, FIELD_LEN = 128 };
typedef struct {
    char kernels[FIELD_LEN], dirs[FIELD_LEN], types[FIELD_LEN],
        layouts[FIELD_LEN];
    bool some;
    int line;
} cover_line;
static cover_line cover[COVER_MAX];
static int ncover;

/* Cases per kernel and setting: how many the coverage expects (every
 * covered case of the inputs) and how many ran. */
typedef struct {
    long expected, ran;
} tally;
static tally tallies[KB_KERNEL_COUNT][KB_DIR_COUNT][DTS_MAX][LAYOUTS];
static long cases[KB_KERNEL_COUNT], ran[KB_KERNEL_COUNT];
static bool some[KB_KERNEL_COUNT];   /* `+`: at least one, not exact */

/* Whether name is one of the comma list's items, or the list is "*". */
static bool in_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    if (strcmp(list, "*") == 0)
        return true;
    for (const char *s = list; *s;) {
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        if (len == n && strncmp(s, name, n) == 0)
            return true;
        s += len + (end != NULL);
    }
    return false;
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
    kb_poison_outputs(p, t, true);
    if (be->write_input) {
        bool ok = be->write_input(plan, err, sizeof(err)) == 0;
        CHECK(ok);
        if (!ok)
            fprintf(stderr, "write_input failed: %s\n", err);
    }
}

/* The settings every problem runs under, per kind: each layout that
 * changes the computation, each direction that does (conv's FWD_I is its
 * FWD_D, GEMM's forward passes are all alike), each data type. */
typedef struct {
    kb_layout layouts[LAYOUTS];
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

/* Whether tok names something of the given column in some sweep. */
static bool known(int column, const char *tok)
{
    char types[32];
    if (strcmp(tok, "*") == 0)
        return true;
    if (column == 0)
        return kb_kernel_find(tok) >= 0;
    for (size_t k = 0; k < sizeof sweeps / sizeof sweeps[0]; k++) {
        const sweep *sw = &sweeps[k];
        for (size_t i = 0; column == 1 && i < sw->ndirs; i++)
            if (strcmp(kb_dir_name(sw->dirs[i]), tok) == 0)
                return true;
        for (size_t i = 0; column == 2 && i < sw->ndts; i++) {
            kb_dts_format(&sw->dts[i], types, sizeof types);
            if (strcmp(types, tok) == 0)
                return true;
        }
    }
    return column == 3 && (strcmp(tok, "NCX") == 0 || strcmp(tok, "NXC") == 0);
}

/* Every item of the comma list is known in its column.  Returns the
 * first unknown one (in bad), or false. */
static bool list_unknown(int column, const char *list, char *bad, size_t len)
{
    char buf[FIELD_LEN];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t;
         t = strtok_r(NULL, ",", &save))
        if (!known(column, t)) {
            snprintf(bad, len, "%s", t);
            return true;
        }
    return false;
}

/* Whether every condition of a coverage line (`KEY=GLOB,GLOB...`, after
 * its `if`) holds for the backend's describe() facts: the value of KEY
 * matches one of the globs.  A library's coverage can depend on its
 * version and on the CPU it finds (oneDNN 3 runs f16 where it finds
 * AVX512-FP16), and this says so in the data, not in the test.  Prints
 * the first that fails, and returns -1 (printed) on a malformed one. */
static int conditions_hold(char **conds, int n, const char *where)
{
    kb_info info = {0};
    if (be->describe)
        be->describe(&info);
    for (int i = 0; i < n; i++) {
        char *eq = strchr(conds[i], '=');
        if (!eq || eq == conds[i] || !eq[1]) {
            fprintf(stderr, "%s: expected KEY=GLOB[,GLOB...] after if, got "
                    "\"%s\"\n", where, conds[i]);
            return -1;
        }
        *eq = '\0';
        const char *value = kb_info_value(&info, conds[i]);
        bool match = false;
        char globs[FIELD_LEN];
        snprintf(globs, sizeof globs, "%s", eq + 1);
        for (char *save = NULL, *g = strtok_r(globs, ",", &save);
             g && value && !match; g = strtok_r(NULL, ",", &save))
            match = fnmatch(g, value, 0) == 0;
        if (!match) {
            printf("%s: does not apply: %s is %s%s%s, not %s\n", where,
                   conds[i], value ? "\"" : "", value ? value : "not described",
                   value ? "\"" : "", eq + 1);
            return 0;
        }
        printf("%s: applies: %s is \"%s\"\n", where, conds[i], value);
    }
    return 1;
}

/* Reads the lines of path for backend name: "BACKEND KERNELS DIRECTIONS
 * TYPES LAYOUTS" or "BACKEND KERNELS +", either followed by "if
 * KEY=GLOB..." conditions; '#' starts a comment.  Returns 0, or -1
 * (printed) on a malformed line, a name no sweep has, or no line for the
 * backend. */
static int load_coverage(const char *path, const char *name)
{
    static const char *const columns[] = {"kernel", "direction", "type",
                                          "layout"};
    enum { TOKENS_MAX = 16 };
    FILE *f = fopen(path, "r");
    char line[1024], where[PATH_MAX + 16];
    int lineno = 0;
    if (!f) {
        perror(path);
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        char *tok[TOKENS_MAX], *save = NULL;
        int ntok = 0, nf;
        lineno++;
        snprintf(where, sizeof where, "%s:%d", path, lineno);
        line[strcspn(line, "#\n")] = '\0';
        for (char *t = strtok_r(line, " \t", &save); t && ntok < TOKENS_MAX;
             t = strtok_r(NULL, " \t", &save))
            tok[ntok++] = t;
        if (ntok == 0)
            continue;
        for (nf = 1; nf < ntok && strcmp(tok[nf], "if") != 0; nf++)
            ;
        char **fields = tok + 1, **conds = tok + nf + 1;
        int nconds = ntok - nf - 1;
        nf -= 1;   /* the fields after BACKEND, before any `if` */
        bool plus = nf == 2 && strcmp(fields[1], "+") == 0;
        if ((nf != 4 && !plus) || nconds == 0 || ntok == TOKENS_MAX) {
            fprintf(stderr, "%s: expected BACKEND KERNELS DIRECTIONS TYPES "
                    "LAYOUTS, or BACKEND KERNELS +, then optionally if "
                    "KEY=GLOB...\n", where);
            fclose(f);
            return -1;
        }
        if (strcmp(tok[0], name) != 0)
            continue;
        int holds = nconds < 0 ? 1 : conditions_hold(conds, nconds, where);
        if (holds <= 0) {
            if (holds == 0)
                continue;
            fclose(f);
            return -1;
        }
        if (ncover == COVER_MAX) {
            fprintf(stderr, "%s: more than %d lines for %s\n", where,
                    COVER_MAX, name);
            fclose(f);
            return -1;
        }
        cover_line *c = &cover[ncover++];
        char *dst[4] = {c->kernels, c->dirs, c->types, c->layouts};
        c->some = plus;
        c->line = lineno;
        for (int i = 0; i < (plus ? 1 : 4); i++) {
            char bad[FIELD_LEN];
            snprintf(dst[i], FIELD_LEN, "%s", fields[i]);
            if (list_unknown(i, dst[i], bad, sizeof bad)) {
                fprintf(stderr, "%s: unknown %s \"%s\"\n", where,
                        columns[i], bad);
                fclose(f);
                return -1;
            }
        }
    }
    fclose(f);
    if (ncover == 0) {
        fprintf(stderr, "%s: no coverage declared for backend %s (add its "
                "lines: which kernels, directions, types and layouts it "
                "runs)\n", path, name);
        return -1;
    }
    return 0;
}

/* Whether the coverage has p's setting; sets *at_least_one when that is
 * by a `+` line. */
static bool covered(const kb_problem *p, const char *types, bool *at_least_one)
{
    const char *kernel = kb_problem_kernel_name(p);
    for (int i = 0; i < ncover; i++) {
        const cover_line *c = &cover[i];
        if (!in_list(c->kernels, kernel))
            continue;
        if (c->some) {
            *at_least_one = true;
            return true;
        }
        if (in_list(c->dirs, kb_dir_name(p->dir)) &&
            in_list(c->types, types) &&
            in_list(c->layouts, layout_names[p->layout]))
            return true;
    }
    return false;
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
    kb_kernel_id k = kb_kernel_of(p);
    bool at_least_one = false;

    kb_problem_format(p, desc, sizeof(desc));
    kb_dts_format(&p->dt, types, sizeof types);
    tally *tl = &tallies[k][p->dir][dts][p->layout];
    bool want = covered(p, types, &at_least_one);
    cases[k]++;
    some[k] |= at_least_one;
    if (want && !at_least_one)
        tl->expected++;
    if (!be->supports(p, why, sizeof(why))) {
        CHECK(why[0] != '\0');   /* a SKIPPED case always says why */
        return;
    }
    ran[k]++;
    tl->ran++;
    if (kb_tensors_alloc(p, &in) != 0 || kb_tensors_alloc(p, &t) != 0) {
        CHECK(!"tensor allocation");
        goto out;
    }
    kb_fill_inputs(p, &in, KB_FILL_VALIDATION, 7);
    kb_fill_inputs(p, &t, KB_FILL_VALIDATION, 7);
    kb_poison_outputs(p, &t, true);

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
                be->name, types, layout_names[p->layout],
                kb_dir_name(p->dir), (long long)v.mismatches,
                v.first_mismatch);
out:
    kb_tensors_free(&in);
    kb_tensors_free(&t);
}

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

/* Compares what kernel k ran, setting by setting, with its coverage,
 * printing "kernel DIR type LAYOUT ran N, expected M" for each that
 * differs.  Returns the number that differ. */
static int compare_settings(kb_kernel_id k)
{
    const sweep *sw = &sweeps[kb_kernel_table[k].kind];
    int bad = 0;
    long expected = 0;
    for (size_t i = 0; i < sw->ndirs; i++)
        for (size_t d = 0; d < sw->ndts; d++)
            for (size_t l = 0; l < sw->nlayouts; l++) {
                const tally *tl = &tallies[k][sw->dirs[i]][d][sw->layouts[l]];
                char types[32];
                expected += tl->expected;
                if (some[k] || tl->ran == tl->expected)
                    continue;
                kb_dts_format(&sw->dts[d], types, sizeof types);
                fprintf(stderr, "%s: %s %s %s %s ran %ld case(s), expected "
                        "%ld (%s)\n", be->name, kb_kernel_table[k].name,
                        kb_dir_name(sw->dirs[i]), types,
                        layout_names[sw->layouts[l]], tl->ran, tl->expected,
                        tl->ran < tl->expected ? "the others SKIPPED"
                                               : "not in its coverage");
                bad++;
            }
    if (some[k])
        printf("%s: ran %ld of %ld %s cases, expected at least 1\n",
               be->name, ran[k], cases[k], kb_kernel_table[k].name);
    else
        printf("%s: ran %ld of %ld %s cases, expected %ld (its coverage)\n",
               be->name, ran[k], cases[k], kb_kernel_table[k].name, expected);
    return bad;
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
    return kb_info_no_device(&info);
}

static char **files;   /* the batch files named on the command line */
static int nfiles;

/* Every problem of every file, once, by the first sub-test that needs
 * them: what they ran is tallied for the coverage. */
static void run_cases(void)
{
    static int done;
    if (done++)
        return;
    for (int i = 0; i < nfiles; i++)
        CHECK(check_file(files[i]) == 0);
}

/* each case against the reference */
static void test_cases(void)
{
    if (no_device(be))
        CHECK_SKIP("%s: no device", be->name);
    run_cases();
}

/* what ran, setting by setting, against the backend's coverage */
static void test_coverage(void)
{
    if (no_device(be))
        CHECK_SKIP("%s: no device", be->name);
    run_cases();
    for (int k = 0; k < KB_KERNEL_COUNT; k++) {
        CHECK(compare_settings((kb_kernel_id)k) == 0);
        if (some[k])
            CHECK(ran[k] > 0);
    }
}

static const check_test tests[] = {
    CHECK_TEST(cases), CHECK_TEST(coverage), CHECK_END};

/* test_backend BACKEND COVERAGE FILE... [-- SUB-TEST...] */
int main(int argc, char **argv)
{
    int own = check_nargs(argc, argv);
    if (own < 3) {
        fprintf(stderr, "usage: test_backend BACKEND COVERAGE FILE... "
                "[-- SUB-TEST...]\n");
        return 2;
    }
    be = kb_backend_find(argv[1]);
    CHECK(be != NULL);
    if (!be)
        return CHECK_DONE();
    if (load_coverage(argv[2], be->name) != 0)
        return 2;
    files = argv + 3;
    nfiles = own - 2;
    return check_main_args(argc, argv, own, tests);
}
