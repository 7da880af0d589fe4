/* report_verb.c - `kbench report`: the verb's record and handler; read
 * the result files and ceilings, place the cases, draw the charts, then
 * render every output and write each whole into --outdir (report.h). */
#define _GNU_SOURCE   /* open_memstream */
#include "drivers/report/report.h"

#include "drivers/commands.h"
#include "drivers/common/atomic_file.h"
#include "drivers/common/options.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
    kb_strlist peaks;
    const char *level;
    const char *outdir;
} options;

static const kb_option report_options[] = {
    {.name = "peaks", .type = KB_OPT_LIST, .metavar = "FILE",
     .offset = offsetof(options, peaks),
     .help = "the ceilings (kbench peaks --json FILE): once for\n"
             "every result file, or once each"},
    {.name = "level", .type = KB_OPT_CUSTOM, .parse = kb_roofline_level_opt,
     .metavar = "L", .offset = offsetof(options, level),
     .def = "auto",
     .help = "memory roof: auto (default: the smallest cache\n"
             "that holds the case's bytes, else DRAM), L1, L2,\nL3 or DRAM"},
    {.name = "outdir", .type = KB_OPT_STRING, .metavar = "DIR",
     .offset = offsetof(options, outdir),
     .help = "the folder written (required; created when missing)"},
    {KB_OPTION_RENAMED("out", "outdir")},
    {0},
};

/* Document fmt of r rendered into *text (free it).  Returns 0, or -1
 * after a message (out of memory). */
static int render(const kb_report_format *fmt, const kb_report *r, char **text)
{
    size_t len = 0;
    FILE *f = open_memstream(text, &len);
    int rc = f ? kb_report_write_doc(f, fmt, r) : -1;
    if ((f && fclose(f) != 0) || rc) {
        fprintf(stderr, "kbench report: out of memory rendering the report\n");
        free(*text);
        *text = NULL;
        return -1;
    }
    return 0;
}

/* dir/name written whole with text.  Returns 0, or -1 after a message. */
static int put(const char *dir, const char *name, const char *text)
{
    char path[PATH_MAX], err[PATH_MAX + 256];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) {
        fprintf(stderr, "kbench report: %s/%s: path too long\n", dir, name);
        return -1;
    }
    if (kb_write_atomic(path, text, strlen(text), err, sizeof err)) {
        fprintf(stderr, "kbench report: %s\n", err);
        return -1;
    }
    return 0;
}

/* The charts, report.md, report.html and training.svg into dir, both
 * documents rendered before any file is written.  Returns an exit code. */
static int write_outputs(const char *dir, const kb_report *r)
{
    char *md = NULL, *html = NULL;
    int rc = KB_EXIT_RUNTIME;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "kbench report: cannot create %s: %s\n", dir, strerror(errno));
        return rc;
    }
    if (render(&kb_report_md, r, &md) || render(&kb_report_html, r, &html))
        goto out;
    for (int i = 0; i < r->ncharts; i++)
        if (r->charts[i].file[0] && put(dir, r->charts[i].file, r->charts[i].svg))
            goto out;
    if (put(dir, "report.md", md) || put(dir, "report.html", html) ||
        (r->nsteps > 0 && put(dir, "training.svg", r->training_svg)))
        goto out;
    printf("kbench report: wrote %s/", dir);
    for (int i = 0; i < r->ncharts; i++)
        if (r->charts[i].file[0])
            printf("%s, ", r->charts[i].file);
    printf("report.md, report.html%s (%zu cases on %d device(s), %zu training "
           "steps)\n", r->nsteps > 0 ? ", training.svg" : "", r->ncases,
           r->ncharts, r->nsteps);
    rc = KB_EXIT_OK;
out:
    free(md);
    free(html);
    return rc;
}

static int report_main(void *opts, int nfiles, char **files)
{
    const options *o = opts;
    if (!o->outdir) {
        fprintf(stderr, "kbench report: --outdir DIR is required\n");
        kb_verb_usage(stderr, &kb_verb_report, NULL);
        return KB_EXIT_USAGE;
    }
    if (o->peaks.n > KB_SVG_MAX_SERIES) {
        fprintf(stderr, "kbench report: --peaks given %d times: once for every "
                "result file, or once each (at most %d)\n", o->peaks.n,
                KB_SVG_MAX_SERIES);
        return KB_EXIT_USAGE;
    }
    kb_report r = {.nseries = nfiles, .npeaks = o->peaks.n, .level = o->level};
    for (int k = 0; k < nfiles; k++)
        r.s[k].path = files[k];
    for (int p = 0; p < o->peaks.n; p++)
        r.peaks_path[p] = o->peaks.v[p];
    int rc = kb_report_load(&r);
    if (rc == KB_EXIT_OK && kb_report_assign_charts(&r))
        rc = KB_EXIT_USAGE;
    if (rc == KB_EXIT_OK) {
        kb_report_place(&r);
        rc = kb_report_draw(&r) ? KB_EXIT_RUNTIME : write_outputs(o->outdir, &r);
    }
    kb_report_free(&r);
    return rc;
}

const kb_verb kb_verb_report = {
    .name = "report",
    .summary = "result files on the roofline: SVG charts, Markdown, HTML",
    .synopsis = "RESULTS.jsonl [RESULTS2.jsonl] [--peaks FILE]... [--level L]\n"
                " --outdir DIR",
    .description =
        "Place every PASSED case of the result files on the roofline of the\n"
        "ceilings file (from `kbench peaks --json FILE`) of the device it ran on\n"
        "and write DIR/roofline.svg (roofline-2.svg, ... for more devices),\n"
        "DIR/report.md and DIR/report.html (self-contained), and DIR/training.svg\n"
        "(stacked bars) when the files hold training steps (run --training;\n"
        "cases are coloured by precision).  Two result files are overlaid on\n"
        "one chart; give --peaks once for both or once each.  Without --peaks\n"
        "the chart and tables show no roofs: no ceiling is invented.  --level\n"
        "picks the memory ceiling: auto (default) takes the smallest cache that\n"
        "holds each case's bytes, else DRAM.  The result files are read as\n"
        "compare and check read them: another schema, or a malformed record, is\n"
        "refused with its file and line.",
    .min_args = 1,
    .max_args = KB_SVG_MAX_SERIES,
    .opts_size = sizeof(options),
    .tables = (const kb_option *const[]){report_options, NULL},
    .run = report_main,
    .exit_codes = "  0    written\n"
                  "  2    usage or bad input (FILE:LINE named)\n"
                  "  3    outputs not written\n",
};
