/* cmd_run.c - `kbench run`: parse and check every option and problem,
 * refuse what does not fit in memory, then hand over to run.c.  Nothing
 * is written anywhere until all of it has been checked. */
#include "drivers/commands.h"
#include "drivers/memory.h"
#include "drivers/peaks/peaks.h"
#include "drivers/roofline/placement.h"
#include "drivers/run.h"
#include "drivers/training/passes.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

static const char *const kernel_names[] = {"conv2d", "conv3d", "gemm",
                                           "bnorm"};
#define NKERNELS (sizeof kernel_names / sizeof kernel_names[0])

/* A problem source, in command-line order. */
typedef struct {
    enum { SRC_MODEL, SRC_DESC, SRC_BATCH } kind;
    const char *arg;
} source;

typedef struct {
    kb_run_opts run;
    source *sources;           /* argc entries at most */
    int nsources;
    bool kernel_on[NKERNELS];  /* --kernel filter; all false: no filter */
    bool have_layer;
    regex_t layer;             /* --layer, compiled */
    const char *backends;      /* --backend list, NULL: all */
    int64_t mb;                /* --mb, 0: not given */
    kb_settings settings;      /* --dt, --dir, --fpmath, --layout */
} cmdline;

enum {
    OPT_MODEL = 256, OPT_KERNEL, OPT_LAYER, OPT_DESC, OPT_BATCH,
    OPT_BACKEND, OPT_MB, OPT_DT, OPT_DIR, OPT_FPMATH, OPT_LAYOUT, OPT_THREADS, OPT_REPS,
    OPT_MIN_TIME, OPT_MAX_REPS, OPT_WARMUP, OPT_SEED, OPT_CHECK_POINTS, OPT_JSON,
    OPT_CSV, OPT_RESULT_LINES, OPT_DUMP, OPT_QUIET, OPT_PEAKS, OPT_ROOF_LEVEL,
    OPT_TRAINING, OPT_DEVICE, OPT_TUNING, OPT_LAUNCHES, OPT_FLUSH_L2,
    OPT_FILL,
};

static const struct option long_opts[] = {
    {"model", required_argument, NULL, OPT_MODEL},
    {"kernel", required_argument, NULL, OPT_KERNEL},
    {"layer", required_argument, NULL, OPT_LAYER},
    {"desc", required_argument, NULL, OPT_DESC},
    {"batch", required_argument, NULL, OPT_BATCH},
    {"backend", required_argument, NULL, OPT_BACKEND},
    {"mb", required_argument, NULL, OPT_MB},
    {"dt", required_argument, NULL, OPT_DT},
    {"dir", required_argument, NULL, OPT_DIR},
    {"fpmath", required_argument, NULL, OPT_FPMATH},
    {"layout", required_argument, NULL, OPT_LAYOUT},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"reps", required_argument, NULL, OPT_REPS},
    {"min-time", required_argument, NULL, OPT_MIN_TIME},
    {"max-reps", required_argument, NULL, OPT_MAX_REPS},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"seed", required_argument, NULL, OPT_SEED},
    {"fill", required_argument, NULL, OPT_FILL},
    {"check-points", required_argument, NULL, OPT_CHECK_POINTS},
    {"json", required_argument, NULL, OPT_JSON},
    {"csv", required_argument, NULL, OPT_CSV},
    {"result-lines", no_argument, NULL, OPT_RESULT_LINES},
    {"dump", required_argument, NULL, OPT_DUMP},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"peaks", required_argument, NULL, OPT_PEAKS},
    {"roof-level", required_argument, NULL, OPT_ROOF_LEVEL},
    {"training", no_argument, NULL, OPT_TRAINING},
    {"device", required_argument, NULL, OPT_DEVICE},
    {"tuning", required_argument, NULL, OPT_TUNING},
    {"launches", required_argument, NULL, OPT_LAUNCHES},
    {"flush-l2", required_argument, NULL, OPT_FLUSH_L2},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static void usage(FILE *out)
{
    fputs(
        "usage: kbench run [options]\n"
        "Run problems on backends: validate each case against the reference,\n"
        "then time it on the same plan and validate its last timed run too.\n"
        "Without --model, --desc or --batch: every model's catalog at mb 1.\n"
        "\nselection:\n"
        "  --model M[,M...]     model catalogs (repeatable; kbench list models)\n"
        "  --desc STRING        a benchdnn-style descriptor (repeatable)\n"
        "  --batch FILE         a batch file of descriptors (repeatable)\n"
        "  --kernel K[,K...]    keep only conv2d, conv3d, gemm, bnorm\n"
        "  --layer REGEX        keep layers whose name matches (POSIX ERE)\n"
        "  --backend B[,B...]   backends to run (default: all built)\n"
        "  --mb N               batch size for every problem (catalogs: 1)\n"
        "  --dt T               data type: f32 (default), f64, bf16, f16, or\n"
        "                       SRC:WEI:DST as bf16:bf16:f32\n"
        "  --dir D              direction: FWD_B (conv's default), FWD_D\n"
        "                       (bnorm's), FWD_I, BWD_D, BWD_W, BWD_WB, BWD_DW;\n"
        "                       catalog layers without it are left out\n"
        "  --fpmath M           what f32 may use inside: strict (default: f32\n"
        "                       arithmetic), tf32, bf16 or any\n"
        "  --layout L           nchw, nhwc, ncdhw or ndhwc (default: NCX)\n"
        "  --training           the models' training steps: every layer's\n"
        "                       forward and backward passes, then the kernel\n"
        "                       time per step (needs --model or no source;\n"
        "                       not with --desc, --batch or --dir)\n"
        "\nmeasurement:\n"
        "  --threads N          OpenMP and library threads (default: OpenMP's)\n"
        "  --reps N             timed repetitions, at least (default 5)\n"
        "  --min-time SEC       seconds of timed running, at least (default 0.2)\n"
        "  --max-reps N         timed repetitions, at most, before --min-time is\n"
        "                       reached (default 10000; 0: no cap; never below\n"
        "                       --reps)\n"
        "  --warmup N           untimed runs first (default 1)\n"
        "  --seed S             data and sampling seed (default 42)\n"
        "  --fill integer|fine  validation data: small integers (default), or\n"
        "                       fine: f32 strict conv and GEMM get fractional\n"
        "                       bits that TF32 or bf16 inputs round away\n"
        "                       (other problems keep the integers)\n"
        "  --check-points N     output points per tensor when validation is\n"
        "                       sampled (large problems)\n"
        "\nGPU backends (cuda, hip, cublas, cudnn, rocblas, miopen):\n"
        "  --device N           the visible device to run on (default 0;\n"
        "                       CUDA_VISIBLE_DEVICES/HIP_VISIBLE_DEVICES apply)\n"
        "  --tuning NAME        the hand-written kernels' block and tile sizes\n"
        "                       (kbench list backends shows each one's)\n"
        "  --launches N         back-to-back launches per timed sample, the\n"
        "                       sample being their time / N (microsecond\n"
        "                       kernels; default 1)\n"
        "  --flush-l2 yes|no    flush the device's L2 before each sample,\n"
        "                       untimed (default yes)\n"
        "\noutput:\n"
        "  --json FILE          JSON Lines records\n"
        "  --csv FILE           CSV, one row per case\n"
        "  --result-lines       a RESULT key=value line per case on stdout\n"
        "  --dump DIR           tensors as .npy files and DIR/manifest.jsonl\n"
        "  --quiet              no table on stdout\n"
        "  --peaks FILE         place every case on the roofline of these\n"
        "                       ceilings (kbench peaks --out FILE)\n"
        "  --roof-level L       memory roof: auto (the smallest cache that holds\n"
        "                       the case's bytes, else DRAM; default), L1, L2,\n"
        "                       L3 or DRAM\n"
        "  -h, --help           this help\n\n",
        out);
    kb_print_exit_codes(out);
}

/* ---- option values ---- */

/* Parse a whole decimal integer in [min, max].  Returns 0, or -1 after
 * printing the option, the value and the range expected. */
static int parse_int(const char *opt, const char *text, int64_t min,
                     int64_t max, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || end == text || *end || v < min || v > max) {
        fprintf(stderr,
                "kbench run: %s '%s': expected an integer from %" PRId64
                " to %" PRId64 "\n", opt, text, min, max);
        return -1;
    }
    *out = v;
    return 0;
}

/* --min-time: a finite number of seconds >= 0.  Returns 0 or -1
 * (printed). */
static int parse_seconds(const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end || !isfinite(v) || v < 0) {
        fprintf(stderr, "kbench run: --min-time '%s': expected seconds, "
                        "a number >= 0\n", text);
        return -1;
    }
    *out = v;
    return 0;
}

/* --seed: an unsigned 64-bit integer.  Returns 0 or -1 (printed). */
static int parse_seed(const char *text, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || end == text || *end || text[strspn(text, " \t")] == '-') {
        fprintf(stderr, "kbench run: --seed '%s': expected an unsigned "
                        "64-bit integer\n", text);
        return -1;
    }
    *out = v;
    return 0;
}

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
static int parse_kernels(cmdline *cl, const char *list)
{
    char name[32];
    bool bad = false;
    const char *cur = list;
    while (next_item(&cur, name, sizeof name, &bad)) {
        size_t k = 0;
        while (k < NKERNELS && strcmp(name, kernel_names[k]) != 0)
            k++;
        if (bad || k == NKERNELS) {
            fprintf(stderr, "kbench run: --kernel '%s': unknown kernel "
                            "'%s'; expected conv2d, conv3d, gemm or bnorm\n",
                    list, name);
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
        for (int i = 0; i < kb_backend_count() && i < KB_RUN_MAX_BACKENDS;
             i++)
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

/* ---- command line ---- */

/* --roof-level: one of the names kb_roofline_place takes. */
static int parse_roof_level(const char *arg, const char **out)
{
    if ((*out = kb_roofline_level_name(arg)))
        return 0;
    fprintf(stderr, "kbench run: --roof-level '%s': expected %s\n", arg,
            KB_ROOFLINE_LEVELS);
    return -1;
}

/* --peaks FILE: the ceilings every case is placed under.  A missing or
 * malformed file is an input error, reported before anything runs.
 * Returns 0, or -1 after printing what was wrong. */
static int load_peaks(kb_run_opts *o, const char *path)
{
    char err[512];
    if (!o->ceilings && !(o->ceilings = malloc(sizeof *o->ceilings))) {
        fputs("kbench run: out of memory for --peaks\n", stderr);
        return -1;
    }
    if (kb_ceilings_load(path, o->ceilings, err, sizeof err) != 0) {
        fprintf(stderr, "kbench run: --peaks: %s\n", err);
        return -1;
    }
    o->peaks_path = path;
    return 0;
}

/* Handle one option.  Returns 0, or -1 after printing what was wrong. */
static int take_option(cmdline *cl, int c, const char *arg)
{
    kb_run_opts *o = &cl->run;
    int64_t v;
    switch (c) {
    case OPT_MODEL: cl->sources[cl->nsources++] = (source){SRC_MODEL, arg}; break;
    case OPT_DESC: cl->sources[cl->nsources++] = (source){SRC_DESC, arg}; break;
    case OPT_BATCH: cl->sources[cl->nsources++] = (source){SRC_BATCH, arg}; break;
    case OPT_KERNEL: return parse_kernels(cl, arg);
    case OPT_LAYER: {
        if (cl->have_layer) {
            regfree(&cl->layer);
            cl->have_layer = false;
        }
        int rc = regcomp(&cl->layer, arg, REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char why[128];
            regerror(rc, &cl->layer, why, sizeof why);
            fprintf(stderr, "kbench run: --layer '%s': bad regular "
                            "expression (%s); expected POSIX ERE\n", arg, why);
            return -1;
        }
        cl->have_layer = true;
        break;
    }
    case OPT_BACKEND: cl->backends = arg; break;
    case OPT_MB:
        return parse_int("--mb", arg, 1, INT32_MAX, &cl->mb);
    case OPT_DT: {
        char why[256];
        if (kb_dts_parse(arg, &cl->settings.dt, why, sizeof why) != 0) {
            fprintf(stderr, "kbench run: --dt %s\n", why);
            return -1;
        }
        break;
    }
    case OPT_DIR: {
        kb_dir d;
        if (kb_dir_parse(arg, &d) != 0) {
            fprintf(stderr, "kbench run: --dir '%s': expected FWD_B, FWD_D, "
                            "FWD_I, BWD_D, BWD_W, BWD_WB or BWD_DW\n", arg);
            return -1;
        }
        cl->settings.dir = d;
        cl->settings.dir_given = true;
        break;
    }
    case OPT_FPMATH:
        if (kb_fpmath_parse(arg, &cl->settings.fpmath) != 0) {
            fprintf(stderr, "kbench run: --fpmath '%s': expected strict, "
                            "tf32, bf16 or any\n", arg);
            return -1;
        }
        break;
    case OPT_LAYOUT:
        if (kb_layout_parse(arg, &cl->settings.layout) != 0) {
            fprintf(stderr, "kbench run: --layout '%s': expected nchw, "
                            "nhwc, ncdhw or ndhwc\n", arg);
            return -1;
        }
        break;
    case OPT_THREADS:
        if (parse_int("--threads", arg, 1, 65536, &v) != 0)
            return -1;
        o->threads = (int)v;
        break;
    case OPT_REPS: return parse_int("--reps", arg, 1, INT32_MAX, &o->reps);
    case OPT_WARMUP:
        return parse_int("--warmup", arg, 0, INT32_MAX, &o->warmup);
    case OPT_CHECK_POINTS:
        return parse_int("--check-points", arg, 1, INT32_MAX,
                         &o->check_points);
    case OPT_MIN_TIME: return parse_seconds(arg, &o->min_time);
    case OPT_MAX_REPS:
        return parse_int("--max-reps", arg, 0, INT64_MAX, &o->max_reps);
    case OPT_SEED: return parse_seed(arg, &o->seed);
    case OPT_FILL:
        if (kb_fill_mode_parse(arg, &o->fill) != 0) {
            fprintf(stderr, "kbench run: --fill '%s': expected integer or "
                            "fine\n", arg);
            return -1;
        }
        break;
    case OPT_JSON: o->json_path = arg; break;
    case OPT_CSV: o->csv_path = arg; break;
    case OPT_DUMP: o->dump_dir = arg; break;
    case OPT_PEAKS: return load_peaks(o, arg);
    case OPT_ROOF_LEVEL: return parse_roof_level(arg, &o->roof_level);
    case OPT_RESULT_LINES: o->result_lines = true; break;
    case OPT_QUIET: o->quiet = true; break;
    case OPT_TRAINING: o->training = true; break;
    case OPT_DEVICE:
        if (parse_int("--device", arg, 0, 1023, &v) != 0)
            return -1;
        o->device.device = (int)v;
        break;
    case OPT_TUNING: o->device.tuning = arg; break;
    case OPT_LAUNCHES:
        if (parse_int("--launches", arg, 1, 1000000, &v) != 0)
            return -1;
        o->device.launches = (int)v;
        break;
    case OPT_FLUSH_L2:
        if (strcmp(arg, "yes") != 0 && strcmp(arg, "no") != 0) {
            fprintf(stderr, "kbench run: --flush-l2 '%s': expected yes or "
                    "no\n", arg);
            return -1;
        }
        o->device.flush_l2 = strcmp(arg, "yes") == 0;
        break;
    }
    return 0;
}

/* getopt_long over argv.  Returns 0, 1 for --help (printed), or -1 after
 * printing the bad option. */
static int parse_args(cmdline *cl, int argc, char **argv)
{
    optind = 0;        /* glibc: full re-initialisation */
    opterr = 0;        /* our messages name the option and what it wants */
    int c;
    /* '+': stop at the first non-option instead of permuting argv, which
     * provenance records as given; ':': report missing arguments. */
    while ((c = getopt_long(argc, argv, "+:h", long_opts, NULL)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return 1;
        }
        if (c == ':') {
            fprintf(stderr, "kbench run: %s needs a value\n",
                    argv[optind - 1]);
            return -1;
        }
        if (c == '?') {
            fprintf(stderr, "kbench run: unknown option '%s'; see "
                            "kbench run --help\n", argv[optind - 1]);
            return -1;
        }
        if (take_option(cl, c, optarg) != 0)
            return -1;
    }
    if (optind < argc) {
        fprintf(stderr, "kbench run: unexpected argument '%s'; problems "
                        "are given with --model, --desc or --batch\n",
                argv[optind]);
        return -1;
    }
    return 0;
}

/* ---- problems ---- */

/* Does p pass the --kernel and --layer filters? */
static bool selected(const cmdline *cl, const kb_problem *p)
{
    bool any = false, on = false;
    for (size_t k = 0; k < NKERNELS; k++) {
        any = any || cl->kernel_on[k];
        on = on || (cl->kernel_on[k] &&
                    strcmp(kb_problem_kernel_name(p), kernel_names[k]) == 0);
    }
    if (any && !on)
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

/* Everything before running: options, backends, problems, threads,
 * memory.  Returns 0 to run, 1 for --help, -1 for a usage or input error. */
static int prepare_run(cmdline *cl, int argc, char **argv)
{
    int rc = parse_args(cl, argc, argv);
    if (rc != 0)
        return rc;
    if (check_training(cl) != 0 || select_backends(cl) != 0 ||
        kb_run_configure_backends(&cl->run) != 0)
        return -1;
    if (cl->nsources == 0)
        rc = load_default_suite(cl);
    for (int i = 0; rc == 0 && i < cl->nsources; i++)
        rc = load_source(cl, &cl->sources[i]);
    if (rc != 0)
        return -1;
    if (cl->run.problems.n == 0) {
        fputs("kbench run: no problem selected (the --kernel/--layer "
              "filters left none); expected at least one\n", stderr);
        return -1;
    }
    /* Threads first: per-thread workspaces count in the memory check. */
    kb_run_apply_threads(&cl->run);
    cl->run.llc_bytes = llc_bytes(&cl->run);
    return check_memory(&cl->run);
}

int kb_cmd_run(int argc, char **argv)
{
    cmdline cl;
    memset(&cl, 0, sizeof cl);
    kb_run_opts_init(&cl.run);
    kb_settings_default(&cl.settings);
    cl.run.argc = argc;
    cl.run.argv = argv;
    cl.sources = calloc((size_t)argc + 1, sizeof *cl.sources);
    if (!cl.sources) {
        fputs("kbench run: out of memory\n", stderr);
        return KB_EXIT_RUNTIME;
    }

    int rc = prepare_run(&cl, argc, argv);
    int code = rc > 0 ? KB_EXIT_OK
             : rc < 0 ? KB_EXIT_USAGE
                      : kb_run_execute(&cl.run);

    if (cl.have_layer)
        regfree(&cl.layer);
    free(cl.sources);
    kb_run_opts_free(&cl.run);
    return code;
}
