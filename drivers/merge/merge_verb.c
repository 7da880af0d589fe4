/* merge_verb.c - `kbench merge`: read every node's results, build
 * the node x case table, flag outliers, and write the Markdown, SVG and
 * JSON, all rendered before any is written, each written whole. */
#define _GNU_SOURCE   /* open_memstream */
#include "drivers/common/atomic_file.h"
#include "drivers/results/results.h"
#include "drivers/commands.h"
#include "drivers/common/options.h"
#include "drivers/merge/merge.h"
#include "drivers/results/relative_link.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
    char **paths;
    size_t npaths;
    const char *md, *svg, *json;   /* NULL: not asked for (md: stdout) */
    double z;
} options;

static const kb_option merge_options[] = {
    {KB_OPTION_OUTPUT(md, options, md, "the table (default: stdout)")},
    {KB_OPTION_RENAMED("out", "md")},
    {KB_OPTION_OUTPUT(svg, options, svg, "a strip per case, a dot per node")},
    {KB_OPTION_OUTPUT(json, options, json, "the table and flags (results/SCHEMA.md)")},
    /* Z must be above 0 (at 0 every node is an outlier), and the parser's
     * bounds are inclusive: the least value that still means something. */
    {.name = "z", .type = KB_OPT_DOUBLE, .metavar = "Z",
     .def = KB_XSTR(KB_MERGE_Z_DEFAULT), .min = 0.01, .max = HUGE_VAL,
     .offset = offsetof(options, z), .help = "the outlier cut-off on |z|"},
    {0},
};

/* True when a and b name the same file (or the same string). */
static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (strcmp(a, b) == 0)
        return true;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* Each node once: a file given twice would count one node twice.
 * Returns 0, or -1 after naming the two. */
static int distinct(const options *o)
{
    for (size_t i = 0; i < o->npaths; i++)
        for (size_t j = i + 1; j < o->npaths; j++)
            if (same_file(o->paths[i], o->paths[j])) {
                fprintf(stderr, "kbench merge: %s and %s are the same file: each node "
                        "once\n", o->paths[i], o->paths[j]);
                return -1;
            }
    return 0;
}

typedef enum { OUT_SVG, OUT_JSON, OUT_MD, NOUT } out_kind;

/* Output k rendered into *text (free it).  Returns 0, or -1 out of
 * memory. */
static int render(out_kind k, const options *o, const kb_merge *m, char **text)
{
    char link[PATH_MAX + 1];
    size_t len = 0;
    FILE *f = open_memstream(text, &len);
    if (!f)
        return -1;
    if (k == OUT_MD && o->svg)
        kb_relative_link(o->md, o->svg, link, sizeof link);
    int rc = k == OUT_SVG ? kb_merge_write_svg(f, m)
           : k == OUT_JSON ? kb_merge_write_json(f, m)
           : kb_merge_write_md(f, m, o->svg ? link : NULL);
    if (fclose(f) != 0 || rc) {
        free(*text);
        *text = NULL;
        return -1;
    }
    return 0;
}

/* Render every file output, then write each whole (kb_write_atomic), so
 * a failure leaves no partial file.  Returns an exit code. */
static int write_outputs(const options *o, const kb_merge *m)
{
    const char *paths[NOUT] = {o->svg, o->json, o->md};
    char *text[NOUT] = {NULL};
    char err[PATH_MAX + 256];
    int rc = KB_EXIT_OK;
    for (int k = 0; k < NOUT && rc == KB_EXIT_OK; k++)
        if (paths[k] && render((out_kind)k, o, m, &text[k])) {
            fprintf(stderr, "kbench merge: out of memory rendering %s\n", paths[k]);
            rc = KB_EXIT_RUNTIME;
        }
    for (int k = 0; k < NOUT && rc == KB_EXIT_OK; k++)
        if (paths[k] && kb_write_atomic(paths[k], text[k], strlen(text[k]), err,
                                        sizeof err)) {
            fprintf(stderr, "kbench merge: %s\n", err);
            rc = KB_EXIT_RUNTIME;
        }
    for (int k = 0; k < NOUT; k++)
        free(text[k]);
    return rc;
}

/* One line for a log: the outliers found and the files written. */
static void summary(const options *o, const kb_merge *m)
{
    size_t nodes = 0, cells = 0;
    for (size_t i = 0; i < m->nnodes; i++)
        nodes += m->nodes[i].flag != 0;
    for (size_t c = 0; c < m->ncases * m->nnodes; c++)
        cells += m->cells[c].flag != 0;
    printf("kbench merge: %zu nodes, %zu cases; at |z| > %g, %zu outlier node(s)",
           m->nnodes, m->ncases, m->zmax, nodes);
    const char *sep = " (";
    for (size_t i = 0; i < m->nnodes; i++)
        if (m->nodes[i].flag) {
            printf("%s%s %s", sep, m->nodes[i].name, kb_merge_flag_name(m->nodes[i].flag));
            sep = ", ";
        }
    printf("%s and %zu outlier cell(s); wrote %s", nodes ? ")" : "", cells, o->md);
    if (o->svg)
        printf(", %s", o->svg);
    if (o->json)
        printf(", %s", o->json);
    printf("\n");
}

static int merge_main(void *opts, int npaths, char **paths)
{
    options *o = opts;
    o->paths = paths;
    o->npaths = (size_t)npaths;
    if (distinct(o))
        return KB_EXIT_USAGE;
    kb_result_file *files = calloc(o->npaths, sizeof *files);
    int rc = KB_EXIT_OK;
    size_t nloaded = 0;
    kb_merge m = {0};
    char err[256];
    if (!files) {
        fprintf(stderr, "kbench merge: out of memory for %zu files\n", o->npaths);
        rc = KB_EXIT_RUNTIME;
    } else if (kb_result_files_load("merge", o->paths, (int)o->npaths, files)) {
        rc = KB_EXIT_USAGE;
    } else {
        nloaded = o->npaths;
    }
    if (rc == KB_EXIT_OK && kb_merge_build(&m, files, nloaded, err, sizeof err)) {
        fprintf(stderr, "kbench merge: %s\n", err);
        rc = KB_EXIT_RUNTIME;
    } else if (rc == KB_EXIT_OK && kb_merge_outliers(&m, o->z)) {
        fprintf(stderr, "kbench merge: out of memory judging %zu cases\n", m.ncases);
        rc = KB_EXIT_RUNTIME;
    }
    if (rc == KB_EXIT_OK)
        rc = write_outputs(o, &m);
    if (rc == KB_EXIT_OK && o->md)
        summary(o, &m);
    else if (rc == KB_EXIT_OK &&
             (kb_merge_write_md(stdout, &m, o->svg) || fflush(stdout) != 0)) {
        fprintf(stderr, "kbench merge: cannot write the table to stdout\n");
        rc = KB_EXIT_RUNTIME;
    }
    kb_merge_free(&m);
    kb_result_files_free(files, (int)nloaded);
    free(files);
    return rc;
}

const kb_verb kb_verb_merge = {
    .name = "merge",
    .summary = "many nodes' results as one table, outlier nodes flagged",
    .synopsis = "NODE-RESULTS.jsonl... [--md TABLE.md] [--svg FILE]\n"
                " [--json FILE] [--z Z]",
    .description =
        "Merge the result files of many nodes (one `kbench run --json` file per\n"
        "node, named by its host) into a node x case table of median GFLOP/s, and\n"
        "flag outlier nodes per case and overall with a robust z-score:\n"
        "z = (x - median over nodes) / max(1.4826 x MAD, "
        KB_XSTR(KB_MERGE_MIN_SPREAD_PCT) " % of the median),\n"
        "an outlier when |z| > Z (default " KB_XSTR(KB_MERGE_Z_DEFAULT)
        ", Iglewicz-Hoaglin); a case needs " KB_XSTR(KB_MERGE_MIN_NODES) "\n"
        "nodes with a figure to be judged.  A node's overall z is the median of its\n"
        "per-case z.  Missing and unpassed cases are listed.  The table goes to\n"
        "--md (else stdout), the figure (one strip per case, a dot per node) to\n"
        "--svg, the table and flags to --json (results/SCHEMA.md).  Files are\n"
        "refused as `kbench check` refuses them: not kbench JSON Lines, truncated,\n"
        "another schema, empty, killed before the summary record, no case record.",
    .min_args = 1,
    .max_args = -1,
    .opts_size = sizeof(options),
    .tables = (const kb_option *const[]){merge_options, NULL},
    .run = merge_main,
    .exit_codes = "  0    merged (outliers do not fail: `kbench check` gives the\n"
                  "       verdict)\n"
                  "  2    usage or bad input (FILE:LINE named)\n"
                  "  3    outputs not written\n",
};
