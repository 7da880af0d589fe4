/* list_verb.c - `kbench list`: the models (catalogs), kernels and
 * backends this build knows, and a model's layers with their work and
 * totals; each list is a sub-verb. */
#include "drivers/commands.h"
#include "drivers/common/options.h"

#include "backends/backend.h"
#include "kernels/batch.h"
#include "kernels/kernel_table.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MODELS 64

/* Each catalog with how many distinct shapes it lists and how many layers
 * they stand for (the sum of counts).  Returns 0, or 2 when the catalog
 * directory or a catalog cannot be read. */
static int list_models(void *opts, int argc, char **argv)
{
    (void)opts, (void)argc, (void)argv;
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

static int list_kernels(void *opts, int argc, char **argv)
{
    (void)opts, (void)argc, (void)argv;
    for (int i = 0; i < KB_KERNEL_COUNT; i++)
        printf("%-8s %s; directions %s\n", kb_kernel_table[i].name,
               kb_kernel_table[i].description,
               kb_dir_list(kb_kernel_table[i].kind));
    return KB_EXIT_OK;
}

typedef struct {
    bool json;
} backends_opts;

/* The backends as one JSON array on stdout: name, kind, device, whether
 * its device is present, and its facts.  What tests, the ReFrame checks
 * and the Spack recipe read instead of spelling backend names. */
static int list_backends_json(void)
{
    cJSON *all = cJSON_CreateArray();
    for (int i = 0; all && i < kb_backend_count(); i++) {
        const kb_backend *b = kb_backend_at(i);
        kb_info info = {0};
        if (b->describe)
            b->describe(&info);
        cJSON *o = cJSON_CreateObject(), *facts = cJSON_CreateObject();
        for (int j = 0; j < info.n; j++)
            cJSON_AddStringToObject(facts, info.kv[j].key, info.kv[j].value);
        cJSON_AddStringToObject(o, "name", b->name);
        cJSON_AddStringToObject(o, "kind", b->kind);
        cJSON_AddStringToObject(o, "device", b->device);
        cJSON_AddBoolToObject(o, "device_present", !kb_info_no_device(&info));
        /* its timings are not performance: run only when named */
        cJSON_AddBoolToObject(o, "performance", !b->correctness_only);
        cJSON_AddItemToObject(o, "facts", facts);
        cJSON_AddItemToArray(all, o);
    }
    char *text = all ? cJSON_PrintUnformatted(all) : NULL;
    cJSON_Delete(all);
    if (!text) {
        fprintf(stderr, "kbench list backends: out of memory\n");
        return KB_EXIT_RUNTIME;
    }
    puts(text);
    free(text);
    return KB_EXIT_OK;
}

static int list_backends(void *opts, int argc, char **argv)
{
    (void)argc, (void)argv;
    if (((backends_opts *)opts)->json)
        return list_backends_json();
    for (int i = 0; i < kb_backend_count(); i++) {
        const kb_backend *b = kb_backend_at(i);
        kb_info info = {0};
        if (b->describe)
            b->describe(&info);
        /* a GPU backend without its device says so on its first line */
        printf("%-10s kind=%s device=%s%s%s\n", b->name, b->kind, b->device,
               kb_info_no_device(&info) ? " (no device)" : "",
               b->correctness_only ? " (correctness only: not in the "
                                     "default set)" : "");
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
    } rows[] = {{NULL, 1u << KB_CONV}, {NULL, 1u << KB_GEMM},
                {NULL, 1u << KB_BNORM},
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
        /* a single kind's row is named after it */
        const char *name = rows[r].name ? rows[r].name
                                        : kb_kind_name(__builtin_ctz(rows[r].kinds));
        printf("  %-10s %10.2f %10.2f\n", name, f[0] * 1e-9, f[1] * 1e-9);
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

typedef struct {
    const char *model;
    int64_t mb;
} layers_opts;

/* Returns 0, or 2 for bad arguments or an unknown/unreadable model (the
 * catalog's message lists the valid ones). */
static int list_layers(void *opts, int argc, char **argv)
{
    (void)argc, (void)argv;
    const char *model = ((layers_opts *)opts)->model;
    int64_t mb = ((layers_opts *)opts)->mb;
    if (!model) {
        fprintf(stderr, "kbench list layers: --model M is required "
                "(see kbench list models)\n");
        return KB_EXIT_USAGE;
    }

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

static const kb_verb list_models_verb = {
    .name = "models", .synopsis = "",
    .summary = "each catalog with its number of shapes and layers",
    .run = list_models,
};

static const kb_verb list_kernels_verb = {
    .name = "kernels", .synopsis = "",
    .summary = "the kernel families kbench measures, with their directions",
    .run = list_kernels,
};

static const kb_option backends_options[] = {
    {.name = "json", .type = KB_OPT_FLAG, .offset = offsetof(backends_opts, json),
     .help = "one JSON array on stdout: name, kind, device, device_present,\n"
             "performance (false: correctness only, not in the\n"
             "default set), facts (what scripts read instead of\n"
             "spelling backend names)"},
    {0},
};

static const kb_verb list_backends_verb = {
    .name = "backends", .synopsis = "[--json]",
    .summary = "the backends of this build and what they report",
    .opts_size = sizeof(backends_opts),
    .tables = (const kb_option *const[]){backends_options, NULL},
    .run = list_backends,
};

static const kb_option layers_options[] = {
    {.name = "model", .type = KB_OPT_STRING, .metavar = "M",
     .offset = offsetof(layers_opts, model),
     .help = "the model's catalog (kbench list models); required"},
    {.name = "mb", .type = KB_OPT_INT, .metavar = "N", .def = "1",
     .offset = offsetof(layers_opts, mb), .min = 1, .max = INT64_MAX,
     .help = "batch size"},
    {0},
};

static const kb_verb list_layers_verb = {
    .name = "layers", .synopsis = "--model M [--mb N]",
    .summary = "one row per catalog entry: layer, kernel, count, descriptor,\n"
               "GFLOP per execution and GFLOP x count, counting the conv taps\n"
               "inside the input (what GFLOP/s use) and every tap (dense);\n"
               "then the model's forward totals per sample, bias excluded,\n"
               "both ways (results/COUNTING.md)",
    .opts_size = sizeof(layers_opts),
    .tables = (const kb_option *const[]){layers_options, NULL},
    .run = list_layers,
};

const kb_verb kb_verb_list = {
    .name = "list", .synopsis = "models | kernels | backends [--json]\nlayers --model M [--mb N]",
    .summary = "list models, kernels, backends or a model's layers",
    .subverbs = (const kb_verb *const[]){&list_models_verb, &list_kernels_verb,
                                          &list_backends_verb, &list_layers_verb,
                                          NULL},
};
