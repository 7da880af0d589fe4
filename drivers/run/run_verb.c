/* run_verb.c - `kbench run`: its option table, then every problem checked,
 * and what does not fit in memory refused, before run.c runs them.
 * Nothing is written anywhere until all of it has been checked. */
#include "drivers/commands.h"
#include "drivers/common/options.h"
#include "drivers/memory.h"
#include "machine/machine.h"
#include "drivers/roofline/placement.h"
#include "drivers/run.h"
#include "drivers/training/passes.h"
#include "kernels/kernel_table.h"

#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A problem source, in command-line order. */
typedef struct {
    enum { SRC_MODEL, SRC_DESC, SRC_BATCH } kind;
    const char *arg;
} source;

typedef struct {
    kb_run_opts run;
    source *sources;           /* --model, --desc, --batch in order */
    int nsources;
    bool kernel_on[KB_KERNEL_COUNT];   /* --kernel filter; none: no filter */
    bool have_layer;
    regex_t layer;             /* --layer, compiled */
    const char *backends;      /* --backend list, NULL: all */
    int64_t mb;                /* --mb, 0: not given */
    kb_settings settings;      /* --dt, --dir, --fpmath, --layout */
    int64_t threads, device, launches;
    int flush_l2;              /* index of --flush-l2's choices */
} cmdline;

/* Next item of a comma list into buf; false at the end.  Sets *bad when
 * an item is empty or longer than len - 1. */
static bool next_item(const char **cur, char *buf, size_t len, bool *bad)
{
    if (!*cur)
        return false;
    size_t n = strcspn(*cur, ",");
    if (n == 0 || n >= len)
        *bad = true;
    snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), *cur);
    *cur = (*cur)[n] ? *cur + n + 1 : NULL;
    return true;
}

/* --kernel list into cl->kernel_on.  Returns 0, or -1 after printing the
 * bad name and the valid ones. */
static int parse_kernels(void *opts, const char *list, const char *verb,
                         const kb_option *o)
{
    cmdline *cl = opts;
    char name[32];
    bool bad = false;
    const char *cur = list;
    while (next_item(&cur, name, sizeof name, &bad)) {
        int k = bad ? -1 : kb_kernel_find(name);
        if (k < 0) {
            fprintf(stderr, "kbench %s: --%s '%s': unknown kernel '%s'; "
                            "expected", verb, o->name, list, name);
            for (int i = 0; i < KB_KERNEL_COUNT; i++)
                fprintf(stderr, "%s %s", i ? "," : "", kb_kernel_table[i].name);
            fputc('\n', stderr);
            return -1;
        }
        cl->kernel_on[k] = true;
    }
    return 0;
}

/* Print the names of the registered backends after msg. */
static void list_backends(const char *msg)
{
    fputs(msg, stderr);
    for (int i = 0; i < kb_backend_count(); i++)
        fprintf(stderr, "%s%s", i ? ", " : "", kb_backend_at(i)->name);
    fputc('\n', stderr);
}

/* --backend list (or every registered backend) into cl->run.backends,
 * each once.  Returns 0, or -1 after printing the unknown name and the
 * valid ones. */
static int select_backends(cmdline *cl)
{
    kb_run_opts *o = &cl->run;
    if (!cl->backends) {
        /* a correctness-only backend (gpusim) runs only when named */
        for (int i = 0; i < kb_backend_count() && i < KB_RUN_MAX_BACKENDS;
             i++)
            if (!kb_backend_at(i)->correctness_only)
                o->backends[o->nbackends++] = kb_backend_at(i);
        if (o->nbackends == 0) {
            fputs("kbench run: this build has no backends\n", stderr);
            return -1;
        }
        return 0;
    }
    char name[64];
    bool bad = false;
    const char *cur = cl->backends;
    while (next_item(&cur, name, sizeof name, &bad)) {
        const kb_backend *b = bad ? NULL : kb_backend_find(name);
        if (!b) {
            fprintf(stderr, "kbench run: --backend '%s': unknown backend "
                            "'%s'; ", cl->backends, name);
            list_backends("this build has: ");
            return -1;
        }
        int j = 0;
        while (j < o->nbackends && o->backends[j] != b)
            j++;
        if (j == o->nbackends && o->nbackends < KB_RUN_MAX_BACKENDS)
            o->backends[o->nbackends++] = b;
    }
    return 0;
}

/* The default set (no --backend) leaves out every backend whose device is
 * absent, a GPU backend built on a machine without its GPU: each of its
 * cases would be SKIPPED for that one reason, burying those that ran.
 * Said once, before anything runs, for each reason with the backends it
 * applies to; the summary counts their cases as left out.  Named with
 * --backend, such a backend stays and its cases are SKIPPED.  Returns 0,
 * or -1 when no backend is left (printed). */
static int leave_out_absent(kb_run_opts *o)
{
    char why[KB_RUN_MAX_BACKENDS][sizeof ((kb_info *)0)->kv[0].value];
    int kept = 0;
    for (int i = 0; i < o->nbackends; i++) {
        const kb_backend *b = o->backends[i];
        kb_info info = {0};
        if (b->describe)
            b->describe(&info);
        const char *absent = kb_info_no_device_why(&info);
        if (!absent) {
            o->backends[kept++] = b;
            continue;
        }
        snprintf(why[o->nleft_out], sizeof why[0], "%s", absent);
        o->left_out[o->nleft_out++] = b;
    }
    o->nbackends = kept;
    for (int i = 0; i < o->nleft_out; i++) {
        int first = 0;
        while (strcmp(why[first], why[i]) != 0)
            first++;
        if (first < i)
            continue;   /* said with an earlier backend */
        char names[512] = "";
        for (int j = i; j < o->nleft_out; j++)
            if (strcmp(why[j], why[i]) == 0) {
                size_t n = strlen(names);
                snprintf(names + n, sizeof names - n, "%s%s", n ? ", " : "",
                         o->left_out[j]->name);
            }
        fprintf(stderr, "kbench run: note: %s left out of the default "
                "backends: %s (name them with --backend to record their "
                "cases SKIPPED)\n", names, why[i]);
    }
    if (o->nbackends == 0) {
        fputs("kbench run: no backend of this build has its device; name "
              "one with --backend to record its cases SKIPPED\n", stderr);
        return -1;
    }
    return 0;
}

/* ---- command line ---- */

/* --model, --desc and --batch, kept in command-line order. */
static int add_source(cmdline *cl, int kind, const char *arg)
{
    source *v = realloc(cl->sources, (size_t)(cl->nsources + 1) * sizeof *v);
    if (!v) {
        fputs("kbench run: out of memory\n", stderr);
        return -1;
    }
    cl->sources = v;
    cl->sources[cl->nsources++] = (source){kind, arg};
    return 0;
}

static int opt_model(void *cl, const char *v, const char *verb, const kb_option *o)
{
    (void)verb, (void)o;
    return add_source(cl, SRC_MODEL, v);
}

static int opt_desc(void *cl, const char *v, const char *verb, const kb_option *o)
{
    (void)verb, (void)o;
    return add_source(cl, SRC_DESC, v);
}

static int opt_batch(void *cl, const char *v, const char *verb, const kb_option *o)
{
    (void)verb, (void)o;
    return add_source(cl, SRC_BATCH, v);
}

static int opt_layer(void *opts, const char *arg, const char *verb,
                     const kb_option *o)
{
    cmdline *cl = opts;
    if (cl->have_layer) {
        regfree(&cl->layer);
        cl->have_layer = false;
    }
    int rc = regcomp(&cl->layer, arg, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char why[128];
        regerror(rc, &cl->layer, why, sizeof why);
        fprintf(stderr, "kbench %s: --%s '%s': bad regular expression (%s); "
                        "expected POSIX ERE\n", verb, o->name, arg, why);
        return -1;
    }
    cl->have_layer = true;
    return 0;
}

static int opt_dt(void *opts, const char *arg, const char *verb, const kb_option *o)
{
    char why[256];
    if (kb_dts_parse(arg, &((cmdline *)opts)->settings.dt, why, sizeof why) == 0)
        return 0;
    fprintf(stderr, "kbench %s: --%s %s\n", verb, o->name, why);
    return -1;
}

static int opt_dir(void *opts, const char *arg, const char *verb, const kb_option *o)
{
    cmdline *cl = opts;
    if (kb_dir_parse(arg, &cl->settings.dir) != 0) {
        fprintf(stderr, "kbench %s: --%s '%s': expected FWD_B, FWD_D, FWD_I, "
                        "BWD_D, BWD_W, BWD_WB or BWD_DW\n", verb, o->name, arg);
        return -1;
    }
    cl->settings.dir_given = true;
    return 0;
}

static int opt_fpmath(void *opts, const char *arg, const char *verb,
                      const kb_option *o)
{
    if (kb_fpmath_parse(arg, &((cmdline *)opts)->settings.fpmath) == 0)
        return 0;
    fprintf(stderr, "kbench %s: --%s '%s': expected strict, tf32, bf16 or "
                    "any\n", verb, o->name, arg);
    return -1;
}

static int opt_layout(void *opts, const char *arg, const char *verb,
                      const kb_option *o)
{
    if (kb_layout_parse(arg, &((cmdline *)opts)->settings.layout) == 0)
        return 0;
    fprintf(stderr, "kbench %s: --%s '%s': expected nchw, nhwc, ncdhw or "
                    "ndhwc\n", verb, o->name, arg);
    return -1;
}

/* --seed: an unsigned 64-bit integer. */
static int opt_seed(void *opts, const char *arg, const char *verb,
                    const kb_option *o)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(arg, &end, 10);
    if (errno || end == arg || *end || arg[strspn(arg, " \t")] == '-') {
        fprintf(stderr, "kbench %s: --%s '%s': expected an unsigned 64-bit "
                        "integer\n", verb, o->name, arg);
        return -1;
    }
    ((cmdline *)opts)->run.seed = v;
    return 0;
}

static int opt_fill(void *opts, const char *arg, const char *verb,
                    const kb_option *o)
{
    if (kb_fill_mode_parse(arg, &((cmdline *)opts)->run.fill) == 0)
        return 0;
    fprintf(stderr, "kbench %s: --%s '%s': expected integer or fine\n", verb,
            o->name, arg);
    return -1;
}

/* --peaks FILE: the ceilings every case is placed under.  A missing or
 * malformed file is an input error, reported before anything runs. */
static int opt_peaks(void *opts, const char *path, const char *verb,
                     const kb_option *o)
{
    kb_run_opts *r = &((cmdline *)opts)->run;
    char err[512];
    if (!r->ceilings && !(r->ceilings = malloc(sizeof *r->ceilings))) {
        fprintf(stderr, "kbench %s: out of memory for --%s\n", verb, o->name);
        return -1;
    }
    if (kb_ceilings_load(path, r->ceilings, err, sizeof err) != 0) {
        fprintf(stderr, "kbench %s: --%s: %s\n", verb, o->name, err);
        return -1;
    }
    r->peaks_path = path;
    return 0;
}

#define RUN(F) offsetof(cmdline, run.F)
#define CUSTOM(NAME, FN) .name = NAME, .type = KB_OPT_CUSTOM, .parse = FN
static const char *const no_yes[] = {"no", "yes", NULL};

static const kb_option run_options[] = {
    {CUSTOM("model", opt_model), .metavar = "M[,M...]", .section = "selection",
     .help = "model catalogs (repeatable; kbench list models)"},
    {CUSTOM("desc", opt_desc), .metavar = "STRING",
     .help = "a benchdnn-style descriptor (repeatable)"},
    {CUSTOM("batch", opt_batch), .metavar = "FILE",
     .help = "a batch file of descriptors (repeatable)"},
    {CUSTOM("kernel", parse_kernels), .metavar = "K[,K...]",
     .help = "keep only these kernels (kbench list kernels)"},
    {CUSTOM("layer", opt_layer), .metavar = "REGEX",
     .help = "keep layers whose name matches (POSIX ERE)"},
    {.name = "backend", .type = KB_OPT_STRING, .metavar = "B[,B...]",
     .offset = offsetof(cmdline, backends),
     .help = "backends to run (default: all built whose\n"
             "device is present, but the correctness-only\n"
             "ones; kbench list backends)"},
    {.name = "mb", .type = KB_OPT_INT, .metavar = "N", .min = 1, .max = INT32_MAX,
     .offset = offsetof(cmdline, mb),
     .help = "batch size for every problem (catalogs: 1)"},
    {CUSTOM("dt", opt_dt), .metavar = "T",
     .help = "data type: f32 (default), f64, bf16, f16, or\n"
             "SRC:WEI:DST as bf16:bf16:f32"},
    {CUSTOM("dir", opt_dir), .metavar = "D",
     .help = "direction: FWD_B (conv's default), FWD_D\n"
             "(bnorm's), FWD_I, BWD_D, BWD_W, BWD_WB, BWD_DW;\n"
             "catalog layers without it are left out"},
    {CUSTOM("fpmath", opt_fpmath), .metavar = "M",
     .help = "what f32 may use inside: strict (default: f32\n"
             "arithmetic), tf32, bf16 or any"},
    {CUSTOM("layout", opt_layout), .metavar = "L",
     .help = "nchw, nhwc, ncdhw or ndhwc (default: NCX)"},
    {.name = "training", .type = KB_OPT_FLAG, .offset = RUN(training),
     .help = "the models' training steps: every layer's\n"
             "forward and backward passes, then the kernel\n"
             "time per step (needs --model or no source;\n"
             "not with --desc, --batch or --dir)"},
    {KB_OPTION_THREADS(cmdline, threads), .section = "measurement"},
    {.name = "reps", .type = KB_OPT_INT, .metavar = "N", .def = "5", .min = 1,
     .max = INT32_MAX, .offset = RUN(reps), .help = "timed repetitions, at least"},
    {.name = "min-time", .type = KB_OPT_DOUBLE, .metavar = "SEC", .def = "0.2",
     .min = 0, .max = HUGE_VAL, .offset = RUN(min_time),
     .help = "seconds of timed running, at least"},
    {.name = "max-reps", .type = KB_OPT_INT, .metavar = "N", .def = "10000",
     .min = 0, .max = INT64_MAX, .offset = RUN(max_reps),
     .help = "timed repetitions, at most, before --min-time is\n"
             "reached (default 10000; 0: no cap; never below\n--reps)"},
    {.name = "warmup", .type = KB_OPT_INT, .metavar = "N", .def = "1", .min = 0,
     .max = INT32_MAX, .offset = RUN(warmup),
     .help = "untimed runs first, at least (0: none)"},
    {.name = "warmup-time", .type = KB_OPT_DOUBLE, .metavar = "SEC",
     .def = "0.01", .min = 0, .max = 3600, .offset = RUN(warmup_time),
     .help = "... and untimed running for SEC seconds, at\n"
             "least (with --warmup above 0)"},
    {.name = "settle", .type = KB_OPT_DOUBLE, .metavar = "SEC", .def = "1",
     .min = 0, .max = 3600, .offset = RUN(settle),
     .help = "before the warm-up, wait up to SEC seconds\n"
             "for kbench's other threads (a library's idle\n"
             "pool, still spinning) to go idle (0: don't)"},
    {CUSTOM("seed", opt_seed), .metavar = "S", .def = "42",
     .help = "data and sampling seed"},
    {CUSTOM("fill", opt_fill), .metavar = "integer|fine",
     .help = "validation data: small integers (default), or\n"
             "fine: f32 strict conv and GEMM get fractional\n"
             "bits that TF32 or bf16 inputs round away\n"
             "(other problems keep the integers)"},
    {.name = "check-points", .type = KB_OPT_INT, .metavar = "N", .min = 1,
     .max = INT32_MAX, .offset = RUN(check_points),
     .help = "output points per tensor when validation is\n"
             "sampled (large problems)"},
    {.name = "device", .type = KB_OPT_INT, .metavar = "N", .def = "0", .min = 0,
     .max = 1023, .offset = offsetof(cmdline, device), .section = "GPU backends",
     .help = "the visible device to run on (default 0;\n"
             "CUDA_VISIBLE_DEVICES/HIP_VISIBLE_DEVICES apply)"},
    {.name = "tuning", .type = KB_OPT_STRING, .metavar = "NAME",
     .offset = RUN(device.tuning),
     .help = "the hand-written kernels' block and tile sizes\n"
             "(kbench list backends shows each one's)"},
    {.name = "launches", .type = KB_OPT_INT, .metavar = "N", .def = "1", .min = 1,
     .max = 1000000, .offset = offsetof(cmdline, launches),
     .help = "back-to-back launches per timed sample, the\n"
             "sample being their time / N (microsecond\n"
             "kernels; default 1)"},
    {.name = "flush-l2", .type = KB_OPT_CHOICE, .choices = no_yes, .def = "yes",
     .offset = offsetof(cmdline, flush_l2),
     .help = "flush the device's L2 before each sample,\nuntimed (default yes)"},
    {KB_OPTION_OUTPUT(json, cmdline, run.json_path, "JSON Lines records"),
     .section = "output"},
    {KB_OPTION_OUTPUT(csv, cmdline, run.csv_path, "CSV, one row per case")},
    {.name = "result-lines", .type = KB_OPT_FLAG, .offset = RUN(result_lines),
     .help = "a RESULT key=value line per case on stdout"},
    {.name = "dump", .type = KB_OPT_STRING, .metavar = "DIR", .offset = RUN(dump_dir),
     .help = "tensors as .npy files and DIR/manifest.jsonl"},
    {KB_OPTION_QUIET(cmdline, run.quiet)},
    {CUSTOM("peaks", opt_peaks), .metavar = "FILE",
     .help = "place every case on the roofline of these\n"
             "ceilings (kbench peaks --json FILE)"},
    {CUSTOM("roof-level", kb_roofline_level_opt), .metavar = "L",
     .offset = RUN(roof_level),
     .help = "memory roof: auto (the smallest cache that holds\n"
             "the case's bytes, else DRAM; default), L1, L2,\nL3 or DRAM"},
    {0},
};

/* ---- problems ---- */

/* Does p pass the --kernel and --layer filters? */
static bool selected(const cmdline *cl, const kb_problem *p)
{
    bool any = false;
    for (int k = 0; k < KB_KERNEL_COUNT; k++)
        any = any || cl->kernel_on[k];
    if (any && !cl->kernel_on[kb_kernel_of(p)])
        return false;
    return !cl->have_layer || regexec(&cl->layer, p->name, 0, NULL, 0) == 0;
}

/* Filter l, apply --mb, and add what is left to the run.  Returns 0, or
 * -1 when out of memory (printed). */
static int add_selected(cmdline *cl, kb_problem_list *l, const char *model)
{
    size_t kept = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (cl->mb > 0)
            kb_problem_set_mb(&l->items[i], cl->mb);
        if (selected(cl, &l->items[i]))
            l->items[kept++] = l->items[i];
    }
    cl->run.training_filtered |= cl->run.training && kept < l->n;
    l->n = kept;
    if (kb_run_add(&cl->run, l, model) != 0) {
        fputs("kbench run: out of memory listing problems\n", stderr);
        return -1;
    }
    return 0;
}

/* Load catalog `model` into l with the run's settings: with --training,
 * its training step (drivers/training/passes.h).  A catalog mixes
 * kinds, so --dir applies to the layers that have that direction and the
 * others are left out, with a note; a descriptor or batch file that asks
 * for a direction its kernel lacks is an error instead.  Returns 0, or -1
 * after printing the catalog's error. */
static int load_catalog(cmdline *cl, const char *model, kb_problem_list *l)
{
    char err[512] = "";
    kb_settings s = cl->settings;
    s.dir_given = false;
    int64_t mb = cl->mb > 0 ? cl->mb : 1;
    if ((cl->run.training
             ? kb_training_load(model, mb, &s, l, stderr, err, sizeof err)
             : kb_catalog_load(model, mb, &s, l, err, sizeof err)) != 0) {
        fprintf(stderr, "kbench run: --model '%s': %s\n", model, err);
        return -1;
    }
    if (!cl->settings.dir_given)
        return 0;
    size_t kept = 0, dropped[KB_KIND_COUNT] = {0};
    for (size_t i = 0; i < l->n; i++) {
        kb_problem *p = &l->items[i];
        if (kb_dir_applies(p->kind, cl->settings.dir)) {
            p->dir = cl->settings.dir;
            l->items[kept++] = *p;
        } else {
            dropped[p->kind]++;
        }
    }
    for (int k = 0; k < KB_KIND_COUNT; k++)
        if (dropped[k])
            fprintf(stderr, "kbench run: note: --dir %s: %s's %zu %s "
                    "layer(s) left out (%s has %s)\n",
                    kb_dir_name(cl->settings.dir), model, dropped[k],
                    kb_kind_name((kb_kind)k), kb_kind_name((kb_kind)k),
                    kb_dir_list((kb_kind)k));
    l->n = kept;
    return 0;
}

/* Load one source into the run.  Returns 0, or -1 after printing the
 * parser's message (file, line, column, token). */
static int load_source(cmdline *cl, const source *s)
{
    char err[512] = "", model[KB_MODEL_NAME_MAX];
    kb_problem_list l = {0};
    int rc = 0;
    if (s->kind == SRC_DESC) {
        kb_problem p;
        rc = kb_problem_parse(s->arg, &cl->settings, &p, err, sizeof err);
        if (rc == 0 && kb_problem_list_push(&l, &p) != 0)
            rc = -1, snprintf(err, sizeof err, "out of memory");
        if (rc != 0)
            fprintf(stderr, "kbench run: --desc '%s': %s\n", s->arg, err);
    } else if (s->kind == SRC_BATCH) {
        rc = kb_batch_load(s->arg, &cl->settings, &l, err, sizeof err);
        if (rc != 0)
            fprintf(stderr, "kbench run: --batch: %s\n", err);
    } else {
        bool bad = false;
        const char *cur = s->arg;
        while (rc == 0 && next_item(&cur, model, sizeof model, &bad)) {
            if (bad) {
                fprintf(stderr, "kbench run: --model '%s': empty or too "
                                "long model name '%s'\n", s->arg, model);
                rc = -1;
                break;
            }
            l.n = 0;
            rc = load_catalog(cl, model, &l);
            if (rc == 0)
                rc = add_selected(cl, &l, model);
        }
        kb_problem_list_free(&l);
        return rc;
    }
    if (rc == 0)
        rc = add_selected(cl, &l, "");
    kb_problem_list_free(&l);
    return rc;
}

/* No source given: every model's catalog.  Returns 0 or -1 (printed). */
static int load_default_suite(cmdline *cl)
{
    char names[64][KB_MODEL_NAME_MAX], err[512] = "";
    int n = kb_catalog_models(names, 64, err, sizeof err);
    if (n < 0) {
        fprintf(stderr, "kbench run: model catalogs: %s\n", err);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        source s = {SRC_MODEL, names[i]};
        if (load_source(cl, &s) != 0)
            return -1;
    }
    return 0;
}

/* Refuse any case whose device buffers do not fit in its device's free
 * memory.  A backend with no device is left alone: its cases are SKIPPED
 * (supports() says why).  Returns 0, or -1 after printing the first case
 * that does not fit. */
static int check_device_memory(const kb_run_opts *o)
{
    char desc[256], err[512], why[256];
    for (int j = 0; j < o->nbackends; j++) {
        const kb_backend *b = o->backends[j];
        uint64_t avail;
        if (!b->device_bytes || !b->device_free ||
            b->device_free(&avail, why, sizeof why) != 0)
            continue;
        for (size_t i = 0; i < o->problems.n; i++) {
            const kb_problem *p = &o->problems.items[i];
            kb_problem_format(p, desc, sizeof desc);
            if (kb_device_memory_check(p, b, avail, desc, err,
                                       sizeof err) != 0) {
                fprintf(stderr, "kbench run: %s\n", err);
                return -1;
            }
        }
    }
    return 0;
}

/* Refuse any case that needs more memory than is available.  Returns 0,
 * or -1 after printing the first that does not fit. */
static int check_memory(const kb_run_opts *o)
{
    uint64_t avail;
    if (kb_memory_available(&avail) != 0) {
        fputs("kbench run: warning: available memory unknown; not "
              "checking problem sizes\n", stderr);
        return 0;
    }
    char desc[256], err[512];
    for (size_t i = 0; i < o->problems.n; i++)
        for (int j = 0; j < o->nbackends; j++) {
            const kb_problem *p = &o->problems.items[i];
            kb_problem_format(p, desc, sizeof desc);
            if (kb_memory_check(p, o->backends[j], avail, desc, err,
                                sizeof err) != 0) {
                fprintf(stderr, "kbench run: %s\n", err);
                return -1;
            }
        }
    return check_device_memory(o);
}

/* The last cache level of these sizes that is known, or 0. */
static double last_level(const double cache_bytes[3])
{
    for (int l = 2; l >= 0; l--)
        if (cache_bytes[l] > 0)
            return cache_bytes[l];
    return 0;
}

/* The last-level cache the byte counts assume (kernels/problem.h): the
 * --peaks file's cpu device, else this machine's topology, all instances
 * together.  Returns 0 after a warning when neither knows it. */
static double llc_bytes(const kb_run_opts *o)
{
    const kb_device *d = o->ceilings ? kb_ceilings_device(o->ceilings, "cpu") : NULL;
    double llc = d ? last_level(d->cache_bytes) : 0;
    kb_topology t;
    char err[256] = "no cache sizes in hwloc or sysfs";
    if (llc > 0)
        return llc;
    if (kb_topology_detect(&t, err, sizeof err) == 0) {
        double total[3];
        for (int l = 0; l < 3; l++)
            total[l] = t.cache_bytes[l] * t.cache_count[l];
        llc = last_level(total);
    }
    if (llc <= 0)
        fprintf(stderr, "kbench run: warning: last-level cache size unknown "
                "(%s); training bnorm bytes assume src stays in cache\n", err);
    return llc;
}

/* --training expands model catalogs into their steps: a descriptor, a
 * batch file or a --dir has no step to expand into.  Returns 0, or -1
 * after naming the first that conflicts. */
static int check_training(const cmdline *cl)
{
    if (!cl->run.training)
        return 0;
    if (cl->settings.dir_given) {
        fprintf(stderr, "kbench run: --training runs every pass of a step; "
                "--dir %s cannot be given with it\n",
                kb_dir_name(cl->settings.dir));
        return -1;
    }
    for (int i = 0; i < cl->nsources; i++)
        if (cl->sources[i].kind != SRC_MODEL) {
            fprintf(stderr, "kbench run: --training works on model catalogs "
                    "(--model); %s '%s' has no training step (run its "
                    "passes with --dir instead)\n",
                    cl->sources[i].kind == SRC_DESC ? "--desc" : "--batch",
                    cl->sources[i].arg);
            return -1;
        }
    return 0;
}

/* Everything before running, once the options are parsed: backends,
 * problems, threads, memory.  Returns 0 to run, or -1 for a usage or
 * input error (printed). */
static int prepare_run(cmdline *cl)
{
    kb_run_opts *o = &cl->run;
    int rc = 0;
    o->threads = (int)cl->threads;
    o->device.device = (int)cl->device;
    o->device.launches = (int)cl->launches;
    o->device.flush_l2 = cl->flush_l2 == 1;
    kb_verb_command_line(&o->argc, &o->argv);
    /* configure() first: a device is chosen (--device) before it is
     * asked whether it is there */
    if (check_training(cl) != 0 || select_backends(cl) != 0 ||
        kb_run_configure_backends(o) != 0 ||
        (!cl->backends && leave_out_absent(o) != 0))
        return -1;
    if (cl->nsources == 0)
        rc = load_default_suite(cl);
    for (int i = 0; rc == 0 && i < cl->nsources; i++)
        rc = load_source(cl, &cl->sources[i]);
    if (rc != 0)
        return -1;
    if (o->problems.n == 0) {
        fputs("kbench run: no problem selected (the --kernel/--layer "
              "filters left none); expected at least one\n", stderr);
        return -1;
    }
    /* Threads first: per-thread workspaces count in the memory check. */
    kb_run_apply_threads(o);
    o->llc_bytes = llc_bytes(o);
    return check_memory(o);
}

static int run_main(void *opts, int argc, char **argv)
{
    (void)argc, (void)argv;
    cmdline *cl = opts;
    return prepare_run(cl) != 0 ? KB_EXIT_USAGE : kb_run_execute(&cl->run);
}

static void run_init(void *opts)
{
    cmdline *cl = opts;
    kb_run_opts_init(&cl->run);
    kb_settings_default(&cl->settings);
}

static void run_fini(void *opts)
{
    cmdline *cl = opts;
    if (cl->have_layer)
        regfree(&cl->layer);
    free(cl->sources);
    kb_run_opts_free(&cl->run);
}

const kb_verb kb_verb_run = {
    .name = "run",
    .summary = "run problems on backends, validate, time, record",
    .synopsis = "[--model M] [--kernel K] [--layer REGEX] [--desc D]...\n"
                " [--batch FILE]... [--backend B] [--mb N] [--dt T] [--dir D]\n"
                " [--threads N] [--reps N] [--min-time SEC] [--json FILE]\n"
                " [--csv FILE] [--result-lines] [--quiet] [--peaks FILE] ...",
    .description =
        "Run problems on backends: validate each case against the reference,\n"
        "then time it on the same plan and validate its last timed run too.\n"
        "Without --model, --desc or --batch: every model's catalog at mb 1.",
    .opts_size = sizeof(cmdline),
    .init = run_init,
    .fini = run_fini,
    .tables = (const kb_option *const[]){run_options, NULL},
    .run = run_main,
};
