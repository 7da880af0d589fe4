/* cmd_list.c - `kbench list`: the models (catalogs), kernels and backends
 * this build knows, and a model's layers with their work and totals. */
#include "drivers/commands.h"

#include "backends/backend.h"
#include "kernels/batch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MODELS 64

static void list_usage(FILE *out)
{
    fputs("Usage: kbench list models | kernels | backends\n"
          "       kbench list layers --model M [--mb N]\n\n"
          "  models    each catalog with its number of shapes and layers\n"
          "  kernels   the kernel families kbench measures\n"
          "  backends  the backends of this build and what they report\n"
          "  layers    one row per catalog entry: layer, kernel, count,\n"
          "            descriptor, GFLOP per execution (at mb 1, or --mb N)\n"
          "            and GFLOP x count, counting the conv taps inside the\n"
          "            input (what GFLOP/s use) and every tap (dense); then\n"
          "            the model's forward totals per sample, bias excluded,\n"
          "            both ways (results/COUNTING.md)\n\n",
          out);
    kb_print_exit_codes(out);
}

/* Each catalog with how many distinct shapes it lists and how many layers
 * they stand for (the sum of counts).  Returns 0, or 2 when the catalog
 * directory or a catalog cannot be read. */
static int list_models(void)
{
    char names[MAX_MODELS][KB_MODEL_NAME_MAX], err[512];
    int n = kb_catalog_models(names, MAX_MODELS, err, sizeof err);
    if (n < 0) {
        fprintf(stderr, "kbench list: %s\n", err);
        return KB_EXIT_USAGE;
    }
    kb_settings s;
    kb_settings_default(&s);
    printf("%-16s %8s %8s\n", "model", "shapes", "layers");
    for (int i = 0; i < n; i++) {
        kb_problem_list l = {0};
        if (kb_catalog_load(names[i], 1, &s, &l, err, sizeof err) != 0) {
            fprintf(stderr, "kbench list: %s\n", err);
            return KB_EXIT_USAGE;
        }
        int64_t layers = 0;
        for (size_t j = 0; j < l.n; j++)
            layers += l.items[j].count;
        printf("%-16s %8zu %8lld\n", names[i], l.n, (long long)layers);
        kb_problem_list_free(&l);
    }
    return KB_EXIT_OK;
}

static int list_kernels(void)
{
    static const char *const kernels[][2] = {
        {"conv2d", "2D convolution forward (NCHW/NHWC; groups, stride, padding, dilation, bias)"},
        {"conv3d", "3D convolution forward (NCDHW/NDHWC)"},
        {"gemm", "matrix multiply C = alpha*op(A)*op(B) + beta*C, row-major"},
        {"bnorm", "batch normalisation forward: training (batch statistics) or inference"},
    };
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
        printf("%-8s %s\n", kernels[i][0], kernels[i][1]);
    return KB_EXIT_OK;
}

static int list_backends(void)
{
    for (int i = 0; i < kb_backend_count(); i++) {
        const kb_backend *b = kb_backend_at(i);
        kb_info info = {0};
        if (b->describe)
            b->describe(&info);
        /* a GPU backend without its device says so on its first line */
        bool none = false;
        for (int j = 0; j < info.n; j++)
            none |= strcmp(info.kv[j].key, "device") == 0 &&
                    strcmp(info.kv[j].value, "none") == 0;
        printf("%-10s kind=%s device=%s%s\n", b->name, b->kind, b->device,
               none ? " (no device)" : "");
        for (int j = 0; j < info.n; j++)
            printf("    %-20s %s\n", info.kv[j].key, info.kv[j].value);
    }
    return KB_EXIT_OK;
}

/* Forward work of a catalog per kind, bias excluded, weighted by counts:
 * [kind][0] in bounds, [kind][1] dense. */
typedef struct {
    double flops[3][2];
} kb_totals;

static void add_totals(const kb_problem_list *l, kb_totals *t)
{
    for (size_t i = 0; i < l->n; i++) {
        const kb_problem *p = &l->items[i];
        t->flops[p->kind][0] += kb_problem_flops_nobias(p) * (double)p->count;
        t->flops[p->kind][1] += kb_problem_flops_dense_nobias(p) * (double)p->count;
    }
}

static void print_totals(const kb_totals *t)
{
    static const struct {
        const char *name;
        unsigned kinds;        /* bit k: kb_kind k is summed */
    } rows[] = {{"conv", 1u << KB_CONV}, {"gemm", 1u << KB_GEMM},
                {"bnorm", 1u << KB_BNORM},
                {"conv+gemm", 1u << KB_CONV | 1u << KB_GEMM}};
    printf("\nforward GFLOP per sample (weighted by count, bias excluded;\n"
           "in bounds: conv taps on the padding not counted):\n"
           "  %-10s %10s %10s\n", "", "in bounds", "dense");
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        double f[2] = {0, 0};
        for (int k = 0; k < 3; k++) {
            if (!(rows[r].kinds & 1u << k))
                continue;
            f[0] += t->flops[k][0];
            f[1] += t->flops[k][1];
        }
        printf("  %-10s %10.2f %10.2f\n", rows[r].name, f[0] * 1e-9, f[1] * 1e-9);
    }
}

static void print_layer_rows(const kb_problem_list *l)
{
    char desc[512];
    int width = 10;
    for (size_t i = 0; i < l->n; i++) {
        int len = kb_problem_format(&l->items[i], desc, sizeof desc);
        if (len > width)
            width = len < (int)sizeof desc ? len : (int)sizeof desc - 1;
    }
    printf("%-24s %-7s %6s  %-*s %12s %12s %12s\n", "layer", "kernel", "count",
           width, "descriptor", "GFLOP", "GFLOP*count", "dense*count");
    for (size_t i = 0; i < l->n; i++) {
        const kb_problem *p = &l->items[i];
        double g = kb_problem_flops_nobias(p) * 1e-9;
        double n = (double)p->count;
        kb_problem_format(p, desc, sizeof desc);
        printf("%-24s %-7s %6lld  %-*s %12.4f %12.4f %12.4f\n",
               p->name[0] ? p->name : "-", kb_problem_kernel_name(p),
               (long long)p->count, width, desc, g, g * n,
               kb_problem_flops_dense_nobias(p) * 1e-9 * n);
    }
}

/* Parse "--model M [--mb N]" (also --model=M, --mb=N).  Returns 0, or 2
 * after naming the bad argument. */
static int parse_layers_args(int argc, char **argv, const char **model,
                             int64_t *mb)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        bool is_model = strncmp(a, "--model", 7) == 0 && (a[7] == '\0' || a[7] == '=');
        bool is_mb = strncmp(a, "--mb", 4) == 0 && (a[4] == '\0' || a[4] == '=');
        if (!is_model && !is_mb) {
            fprintf(stderr, "kbench list layers: unknown option '%s'; expected "
                    "--model M [--mb N]\n", a);
            return KB_EXIT_USAGE;
        }
        size_t optlen = is_model ? 7 : 4;
        if (a[optlen] == '=')
            v = a + optlen + 1;
        else if (i + 1 < argc)
            v = argv[++i];
        if (!v || !*v) {
            fprintf(stderr, "kbench list layers: %s needs a value\n",
                    is_model ? "--model" : "--mb");
            return KB_EXIT_USAGE;
        }
        if (is_model) {
            *model = v;
            continue;
        }
        char *end;
        errno = 0;
        long long n = strtoll(v, &end, 10);
        if (errno || *end || n < 1) {
            fprintf(stderr, "kbench list layers: --mb '%s': expected a "
                    "positive integer\n", v);
            return KB_EXIT_USAGE;
        }
        *mb = n;
    }
    if (!*model) {
        fprintf(stderr, "kbench list layers: --model M is required "
                "(see kbench list models)\n");
        return KB_EXIT_USAGE;
    }
    return KB_EXIT_OK;
}

/* Returns 0, or 2 for bad arguments or an unknown/unreadable model (the
 * catalog's message lists the valid ones). */
static int list_layers(int argc, char **argv)
{
    const char *model = NULL;
    int64_t mb = 1;
    int rc = parse_layers_args(argc, argv, &model, &mb);
    if (rc != KB_EXIT_OK)
        return rc;

    kb_settings s;
    kb_settings_default(&s);
    char err[1024];
    kb_problem_list at_mb = {0}, per_sample = {0};
    if (kb_catalog_load(model, mb, &s, &at_mb, err, sizeof err) != 0 ||
        kb_catalog_load(model, 1, &s, &per_sample, err, sizeof err) != 0) {
        fprintf(stderr, "kbench list layers: %s\n", err);
        kb_problem_list_free(&at_mb);
        return KB_EXIT_USAGE;
    }
    printf("model %s, mb %lld\n", model, (long long)mb);
    print_layer_rows(&at_mb);

    /* Totals come from the mb-1 catalog so they are per sample whatever
     * --mb says (not every entry need scale with the batch). */
    kb_totals t = {0};
    add_totals(&per_sample, &t);
    print_totals(&t);
    kb_problem_list_free(&at_mb);
    kb_problem_list_free(&per_sample);
    return KB_EXIT_OK;
}

int kb_cmd_list(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        list_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? KB_EXIT_USAGE : KB_EXIT_OK;
    }
    const char *what = argv[1];
    if (strcmp(what, "layers") == 0)
        return list_layers(argc - 1, argv + 1);
    if (argc > 2) {
        fprintf(stderr, "kbench list %s: unexpected argument '%s'\n", what, argv[2]);
        return KB_EXIT_USAGE;
    }
    if (strcmp(what, "models") == 0)
        return list_models();
    if (strcmp(what, "kernels") == 0)
        return list_kernels();
    if (strcmp(what, "backends") == 0)
        return list_backends();
    fprintf(stderr, "kbench list: unknown list '%s'; expected models, kernels, "
            "backends or layers\n", what);
    return KB_EXIT_USAGE;
}
