/* compare_verb.c - `kbench compare`: two result files (or two
 * backends of one), matched case by case and judged; the Markdown on
 * stdout and every file output rendered first, then each written whole. */
#define _GNU_SOURCE   /* open_memstream, strndup */
#include "drivers/common/atomic_file.h"
#include "drivers/commands.h"
#include "drivers/common/options.h"
#include "drivers/compare/compare.h"
#include "drivers/results/relative_link.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *paths[2];
    int npaths;
    char *backends[2];             /* --backends X,Y, else NULL */
    const char *md, *json, *svg;   /* NULL: not asked for */
    double fail_pct;               /* NAN: no gate */
    bool summary;
} options;

/* --backends X,Y into two new strings.  Returns 0, or -1 after a message. */
static int parse_backends(void *opts, const char *v, const char *verb,
                          const kb_option *opt)
{
    options *o = opts;
    const char *comma = strchr(v, ',');
    if (o->backends[0]) {
        fprintf(stderr, "kbench %s: --%s given twice\n", verb, opt->name);
        return -1;
    }
    if (!comma || comma == v || !comma[1] || strchr(comma + 1, ',')) {
        fprintf(stderr, "kbench %s: --%s '%s': expected X,Y (two backend "
                        "names)\n", verb, opt->name, v);
        return -1;
    }
    o->backends[0] = strndup(v, (size_t)(comma - v));
    o->backends[1] = strdup(comma + 1);
    if (!o->backends[0] || !o->backends[1]) {
        fprintf(stderr, "kbench %s: out of memory\n", verb);
        return -1;
    }
    if (strcmp(o->backends[0], o->backends[1]) == 0) {
        fprintf(stderr, "kbench %s: --%s %s: two different backends are "
                        "needed\n", verb, opt->name, v);
        return -1;
    }
    return 0;
}

static const kb_option compare_options[] = {
    {KB_OPTION_OUTPUT(json, options, json, "the figures (results/SCHEMA.md)")},
    {KB_OPTION_OUTPUT(md, options, md, "the Markdown, also printed on stdout")},
    {KB_OPTION_OUTPUT(svg, options, svg, "the ratios with their intervals")},
    {.name = "backends", .type = KB_OPT_CUSTOM, .parse = parse_backends,
     .metavar = "X,Y", .help = "compare two backends within one result file"},
    {.name = "fail-if-slower", .type = KB_OPT_DOUBLE, .metavar = "PCT",
     .min = 0, .max = HUGE_VAL, .offset = offsetof(options, fail_pct),
     .help = "exit 1 when a case is slower in B by more than\nPCT %"},
    {.name = "summary", .type = KB_OPT_FLAG, .offset = offsetof(options, summary),
     .help = "gate --fail-if-slower on the overall geometric\nmean instead"},
    {0},
};

/* One file with --backends, else two; --summary only with a gate.
 * Returns 0, or -1 after naming what is wrong. */
static int check_options(const options *o)
{
    int want = o->backends[0] ? 1 : 2;
    if (o->npaths != want) {
        fprintf(stderr, "kbench compare: %s, got %d\n",
                want == 1 ? "--backends X,Y compares within one result file"
                          : "two result files are needed (or one with --backends X,Y)",
                o->npaths);
        kb_verb_usage(stderr, &kb_verb_compare, NULL);
        return -1;
    }
    if (o->summary && isnan(o->fail_pct)) {
        fprintf(stderr, "kbench compare: --summary goes with --fail-if-slower PCT\n");
        return -1;
    }
    return 0;
}

/* A backend of --backends that file f has no case of is a usage error:
 * nothing would be compared.  Returns 0, or -1 after a message. */
static int check_backend(const kb_result_file *f, const char *backend)
{
    for (size_t i = 0; i < f->ncases; i++)
        if (strcmp(f->cases[i].backend, backend) == 0)
            return 0;
    fprintf(stderr, "kbench compare: %s has no case of backend '%s'; its cases "
                    "are of:", f->path, backend);
    for (size_t i = 0; i < f->ncases; i++) {
        size_t j = 0;
        while (j < i && strcmp(f->cases[j].backend, f->cases[i].backend) != 0)
            j++;
        if (j == i)
            fprintf(stderr, " %s", f->cases[i].backend);
    }
    fputs(f->ncases ? "\n" : " (none)\n", stderr);
    return -1;
}

typedef enum { OUT_MD, OUT_JSON, OUT_SVG, NOUT } out_kind;

/* Output k rendered into *text (free it).  Returns 0, or -1 when out of
 * memory. */
static int render(out_kind k, const kb_compare *c, char **text)
{
    if (k == OUT_JSON) {
        *text = kb_compare_json(c);
        return *text ? 0 : -1;
    }
    size_t len = 0;
    FILE *f = open_memstream(text, &len);
    if (!f)
        return -1;
    int rc = k == OUT_MD ? kb_compare_markdown(c, f) : kb_compare_svg(c, f);
    if (fclose(f) != 0 || rc) {
        free(*text);
        *text = NULL;
        return -1;
    }
    return 0;
}

/* Render the Markdown and every file output, then print the Markdown and
 * write each file whole (kb_write_atomic): a failure leaves no partial
 * file.  Returns an exit code (the gate's when all is written). */
static int write_outputs(const options *o, kb_compare *c)
{
    const char *paths[NOUT] = {o->md, o->json, o->svg};
    char *text[NOUT] = {NULL};
    char link[PATH_MAX + 1], err[PATH_MAX + 256];
    if (o->md && o->svg) {
        kb_relative_link(o->md, o->svg, link, sizeof link);
        c->svg_link = link;
    }
    int rc = KB_EXIT_OK;
    for (int k = 0; k < NOUT && rc == KB_EXIT_OK; k++)
        if ((k == OUT_MD || paths[k]) && render((out_kind)k, c, &text[k])) {
            fprintf(stderr, "kbench compare: out of memory rendering the report\n");
            rc = KB_EXIT_RUNTIME;
        }
    for (int k = 0; k < NOUT && rc == KB_EXIT_OK; k++)
        if (paths[k] && kb_write_atomic(paths[k], text[k], strlen(text[k]), err,
                                        sizeof err)) {
            fprintf(stderr, "kbench compare: %s\n", err);
            rc = KB_EXIT_RUNTIME;
        }
    if (rc == KB_EXIT_OK && (fputs(text[OUT_MD], stdout) < 0 || fflush(stdout) != 0)) {
        fprintf(stderr, "kbench compare: cannot write the report to stdout\n");
        rc = KB_EXIT_RUNTIME;
    }
    for (int k = 0; k < NOUT; k++)
        free(text[k]);
    c->svg_link = NULL;
    if (rc == KB_EXIT_OK && c->gate_failed)
        rc = KB_EXIT_VALIDATION;
    return rc;
}

/* Load the files and compare.  Returns an exit code. */
static int compare(const options *o, kb_result_file files[2])
{
    char err[PATH_MAX + 512];
    for (int i = 0; i < o->npaths; i++)
        if (kb_result_file_load(o->paths[i], &files[i], err, sizeof err)) {
            fprintf(stderr, "kbench compare: %s\n", err);
            return KB_EXIT_USAGE;
        }
    kb_compare c = {.fa = &files[0], .fb = &files[o->npaths - 1],
                    .backend_a = o->backends[0], .backend_b = o->backends[1],
                    .gate_pct = o->fail_pct, .gate_summary = o->summary};
    int rc = KB_EXIT_OK;
    if (o->backends[0] &&
        (check_backend(c.fa, o->backends[0]) || check_backend(c.fa, o->backends[1])))
        rc = KB_EXIT_USAGE;
    else if (kb_compare_build(&c) || kb_compare_provenance(&c)) {
        fprintf(stderr, "kbench compare: out of memory comparing the cases\n");
        rc = KB_EXIT_RUNTIME;
    } else if (c.nrows == 0) {
        fprintf(stderr, "kbench compare: no case of A (%s) matches a case of B "
                        "(%s): nothing to compare\n", c.fa->path, c.fb->path);
        rc = KB_EXIT_USAGE;
    } else {
        rc = write_outputs(o, &c);
    }
    kb_compare_free(&c);
    return rc;
}

static int compare_main(void *opts, int npaths, char **paths)
{
    options *o = opts;
    kb_result_file files[2] = {{0}};
    for (int i = 0; i < npaths; i++)
        o->paths[i] = paths[i];
    o->npaths = npaths;
    if (check_options(o))
        return KB_EXIT_USAGE;
    int rc = compare(o, files);
    for (int i = 0; i < 2; i++)
        kb_result_file_free(&files[i]);
    return rc;
}

static void compare_init(void *opts)
{
    ((options *)opts)->fail_pct = NAN;
}

static void compare_fini(void *opts)
{
    options *o = opts;
    free(o->backends[0]);
    free(o->backends[1]);
}

const kb_verb kb_verb_compare = {
    .name = "compare",
    .summary = "two runs case by case: ratios, intervals, Mann-Whitney p",
    .synopsis = "A.jsonl B.jsonl [--json FILE] [--md FILE] [--svg FILE]\n"
                " [--fail-if-slower PCT [--summary]]\n"
                "RESULTS.jsonl --backends X,Y [options as above]",
    .description =
        "Match the cases of two runs (two builds, two machines) by descriptor,\n"
        "kernel, backend, dtype, layout and direction, or those of backends X and\n"
        "Y within one run, and judge each pair: both medians, ratio = A's median\n"
        "time / B's (above 1: B is faster) with a 95 % Hodges-Lehmann interval\n"
        "on log times, the two-sided Mann-Whitney U p-value (exact without ties\n"
        "and up to " KB_XSTR(KB_MW_EXACT_MAX)
        " samples a side, else the normal approximation with tie and\n"
        "continuity corrections), and a verdict: faster, slower, or ~ when\n"
        "p >= " KB_XSTR(KB_COMPARE_ALPHA) " or the interval holds 1.  Warns below "
        KB_XSTR(KB_COMPARE_MIN_SAMPLES) " samples a side and\n"
        "lists every provenance field in which the runs differ; geometric means\n"
        "per model and overall.  Unmatched cases are listed, not dropped.\n"
        "The Markdown goes to stdout and to --md; --json writes the figures\n"
        "(results/SCHEMA.md, \"kbench compare JSON\"), --svg a chart of the\n"
        "ratios with their intervals, linked from --md.\n"
        "--fail-if-slower PCT: exit 1 when a case is significantly slower in B\n"
        "(verdict slower) by more than PCT %; with --summary, when the overall\n"
        "geometric mean is slower by more than PCT % instead.",
    .min_args = 1,
    .max_args = 2,
    .opts_size = sizeof(options),
    .init = compare_init,
    .fini = compare_fini,
    .tables = (const kb_option *const[]){compare_options, NULL},
    .run = compare_main,
    .exit_codes = "  0    compared (and the gate passed)\n"
                  "  1    the gate failed\n"
                  "  2    usage or bad input (FILE:LINE named; or no case matched)\n"
                  "  3    outputs not written\n",
};
