/* report_cmd.c - the `kbench report` verb: read result files (JSON Lines),
 * place each PASSED case on the roofline and write roofline.svg,
 * report.md and a self-contained report.html into the output folder, and
 * training.svg when the files hold training steps. */
#define _GNU_SOURCE   /* getline, open_memstream, strdup */
#include "drivers/roofline/report.h"

#include "drivers/commands.h"
#include "drivers/roofline/placement.h"
#include "drivers/roofline/svg.h"
#include "drivers/roofline/training_chart.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_COLS 12

typedef struct {
    char *model, *layer, *kernel, *backend, *dtype, *status, *reason;
    double flops, bytes, gflops;
    int series;
    bool placed;
    kb_placement pl;
    char why[200];          /* why a PASSED case was not placed */
} report_case;

typedef struct {
    const char *path;
    char name[200];         /* legend label: host @ commit */
    cJSON *run;             /* the file's run record, or NULL */
    const kb_ceilings *ceil;
} series;

typedef struct {
    int nseries;
    series s[KB_SVG_MAX_SERIES];
    int npeaks;
    const char *peaks_path[KB_SVG_MAX_SERIES];
    kb_ceilings *peaks[KB_SVG_MAX_SERIES];
    const char *level;
    const char *out;
    report_case *cases;
    size_t ncases, cap;
    cJSON *step_records;    /* the training_step records, owned */
    kb_step_bar *steps;     /* read from them */
    size_t nsteps, step_cap;
    char *training_svg;     /* their chart, when nsteps > 0 */
} report;

static void usage(FILE *f)
{
    fprintf(f,
        "usage: kbench report RESULTS.jsonl [RESULTS2.jsonl] [--peaks FILE]...\n"
        "                     [--level auto|L1|L2|L3|DRAM] --out DIR\n"
        "Place every PASSED case of the result files on the roofline of the\n"
        "ceilings file (from `kbench peaks --out FILE`) and write DIR/roofline.svg,\n"
        "DIR/report.md and DIR/report.html (self-contained), and DIR/training.svg\n"
        "(stacked bars) when the files hold training steps (run --training;\n"
        "cases are coloured by precision).  Two result files\n"
        "are overlaid on one chart; give --peaks once for both or once each.\n"
        "Without --peaks the chart and tables show no roofs: no ceiling is\n"
        "invented.  --level picks the memory ceiling: auto (default) takes the\n"
        "smallest cache that holds each case's bytes, else DRAM.\n"
        "Exit codes: 0 written, 2 usage or input error, 3 outputs not written\n"
        "(kbench --help lists them all).\n");
}

/* ---- reading results -------------------------------------------------- */

/* strdup of the string member key, "" when absent; NULL when out of memory. */
static char *dup_str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return strdup(cJSON_IsString(v) ? v->valuestring : "");
}

static double get_num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* Append a case record.  Returns 0, or -1 with err set (a required field
 * missing, out of memory). */
static int add_case(report *r, const cJSON *o, int series, char *err, size_t errlen)
{
    static const char *const required[] = {"kernel", "backend", "dtype", "status"};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, required[i]))) {
            snprintf(err, errlen, "case record without a string \"%s\"", required[i]);
            return -1;
        }
    if (r->ncases == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        report_case *v = realloc(r->cases, cap * sizeof *v);
        if (!v) {
            snprintf(err, errlen, "out of memory for %zu cases", cap);
            return -1;
        }
        r->cases = v, r->cap = cap;
    }
    report_case *c = &r->cases[r->ncases++];
    memset(c, 0, sizeof *c);
    c->model = dup_str(o, "model"), c->layer = dup_str(o, "layer");
    c->kernel = dup_str(o, "kernel"), c->backend = dup_str(o, "backend");
    c->dtype = dup_str(o, "dtype"), c->status = dup_str(o, "status");
    c->reason = dup_str(o, "reason");
    c->flops = get_num(o, "flops"), c->bytes = get_num(o, "bytes");
    c->gflops = get_num(o, "gflops");
    c->series = series;
    if (!c->model || !c->layer || !c->kernel || !c->backend || !c->dtype ||
        !c->status || !c->reason) {
        snprintf(err, errlen, "out of memory reading a case");
        return -1;
    }
    return 0;
}

/* Append a training_step record, taking o.  Returns 0, or -1 with err
 * (a field missing, out of memory; o is then the caller's). */
static int add_step(report *r, cJSON *o, int series, char *err, size_t errlen)
{
    if (!r->step_records && !(r->step_records = cJSON_CreateArray())) {
        snprintf(err, errlen, "out of memory for training steps");
        return -1;
    }
    if (r->nsteps == r->step_cap) {
        size_t cap = r->step_cap ? 2 * r->step_cap : 16;
        kb_step_bar *v = realloc(r->steps, cap * sizeof *v);
        if (!v) {
            snprintf(err, errlen, "out of memory for %zu training steps", cap);
            return -1;
        }
        r->steps = v, r->step_cap = cap;
    }
    if (kb_step_bar_read(o, r->s[series].path, &r->steps[r->nsteps], err,
                         errlen) != 0)
        return -1;
    r->nsteps++;
    cJSON_AddItemToArray(r->step_records, o);
    return 0;
}

/* The legend label of a result file: host @ short commit, else its path. */
static void name_series(series *s)
{
    const cJSON *host = cJSON_GetObjectItemCaseSensitive(s->run, "host");
    const cJSON *commit = cJSON_GetObjectItemCaseSensitive(s->run, "git_commit");
    if (cJSON_IsString(host) && cJSON_IsString(commit))
        snprintf(s->name, sizeof s->name, "%s @ %.12s (%s)", host->valuestring,
                 commit->valuestring, s->path);
    else
        snprintf(s->name, sizeof s->name, "%s", s->path);
}

/* Read one JSON Lines result file as series k.  Returns 0, or -1 after a
 * message naming the file and line. */
static int read_results(report *r, int k)
{
    series *s = &r->s[k];
    FILE *f = fopen(s->path, "r");
    if (!f) {
        fprintf(stderr, "kbench report: cannot open %s: %s\n", s->path, strerror(errno));
        return -1;
    }
    char *line = NULL, err[256];
    size_t cap = 0;
    long lineno = 0;
    int rc = 0;
    while (rc == 0 && getline(&line, &cap, f) > 0) {
        lineno++;
        if (line[strspn(line, " \t\r\n")] == '\0')
            continue;
        cJSON *o = cJSON_Parse(line);
        const cJSON *type = cJSON_GetObjectItemCaseSensitive(o, "type");
        if (!o || !cJSON_IsString(type)) {
            snprintf(err, sizeof err, o ? "a record without a string \"type\""
                                        : "not a JSON object");
            rc = -1;
        } else if (strcmp(type->valuestring, "case") == 0) {
            rc = add_case(r, o, k, err, sizeof err);
        } else if (strcmp(type->valuestring, "training_step") == 0) {
            rc = add_step(r, o, k, err, sizeof err);
            if (rc == 0)
                o = NULL;   /* kept in r->step_records */
        } else if (strcmp(type->valuestring, "run") == 0 && !s->run) {
            s->run = o;
            o = NULL;
        }
        cJSON_Delete(o);
        if (rc)
            fprintf(stderr, "kbench report: %s:%ld: %s\n", s->path, lineno, err);
    }
    if (rc == 0 && ferror(f)) {
        fprintf(stderr, "kbench report: cannot read %s: %s\n", s->path, strerror(errno));
        rc = -1;
    }
    if (rc == 0 && lineno == 0) {
        fprintf(stderr, "kbench report: %s is empty; expected kbench JSON Lines results\n",
                s->path);
        rc = -1;
    }
    free(line);
    fclose(f);
    name_series(s);
    return rc;
}

/* ---- placement -------------------------------------------------------- */

/* The device kind ("cpu", "cuda", ...) of a backend, from the run record's
 * "backends" object; "cpu" when the record does not say. */
static const char *backend_device(const series *s, const char *backend)
{
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(s->run, "backends");
    const cJSON *dev = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(b, backend), "device");
    return cJSON_IsString(dev) ? dev->valuestring : "cpu";
}

static void place_all(report *r)
{
    for (size_t i = 0; i < r->ncases; i++) {
        report_case *c = &r->cases[i];
        const series *s = &r->s[c->series];
        if (strcmp(c->status, "PASSED") != 0)
            continue;
        if (!s->ceil) {
            snprintf(c->why, sizeof c->why, "no ceilings file (--peaks)");
            continue;
        }
        kb_roofline_case q = {backend_device(s, c->backend), c->dtype, r->level,
                              c->flops, c->bytes, c->gflops};
        c->placed = kb_roofline_place(s->ceil, &q, &c->pl, c->why, sizeof c->why) == 0;
    }
}

/* ---- writing ---------------------------------------------------------- */

static char *fmt(char *buf, size_t len, double v)
{
    if (!isfinite(v))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, fabs(v) >= 100 ? "%.0f" : fabs(v) >= 1 ? "%.2f" : "%.3g", v);
    return buf;
}

static void text(FILE *f, bool html, const char *s)
{
    if (html)
        kb_xml_escape(f, s);
    else
        kb_md_escape(f, s);
}

static void heading(FILE *f, bool html, const char *s)
{
    fprintf(f, html ? "<h2>" : "\n## ");
    text(f, html, s);
    fprintf(f, html ? "</h2>\n" : "\n\n");
}

static void para(FILE *f, bool html, const char *s)
{
    fprintf(f, html ? "<p>" : "");
    text(f, html, s);
    fprintf(f, html ? "</p>\n" : "\n\n");
}

/* One table row; a header row in Markdown is followed by its rule. */
static void row(FILE *f, bool html, const char *const *cells, int n, bool head)
{
    fprintf(f, html ? "<tr>" : "|");
    for (int i = 0; i < n; i++) {
        fprintf(f, html ? (head ? "<th>" : "<td>") : " ");
        text(f, html, cells[i]);
        fprintf(f, html ? (head ? "</th>" : "</td>") : " |");
    }
    fprintf(f, html ? "</tr>\n" : "\n");
    if (head && !html) {
        fprintf(f, "|");
        for (int i = 0; i < n; i++)
            fprintf(f, "---|");
        fprintf(f, "\n");
    }
}

static void table_begin(FILE *f, bool html) { fprintf(f, html ? "<table>\n" : ""); }
static void table_end(FILE *f, bool html) { fprintf(f, html ? "</table>\n" : "\n"); }

static void ceilings_section(FILE *f, bool html, const report *r)
{
    static const char *const head[] = {"file", "device", "kind", "level", "kernel",
                                       "measured", "unit", "theoretical", "STREAM rule"};
    heading(f, html, "Ceilings");
    if (r->npeaks == 0) {
        para(f, html, "No ceilings file was given (--peaks): there are no roofs, and "
             "no attainable, % of attainable or bound figures. kbench never invents "
             "ceilings; measure them with `kbench peaks --out FILE`.");
        return;
    }
    table_begin(f, html);
    row(f, html, head, 9, true);
    for (int p = 0; p < r->npeaks; p++) {
        for (int d = 0; d < r->peaks[p]->ndevices; d++) {
            const kb_device *dev = &r->peaks[p]->devices[d];
            for (int i = 0; i < dev->nceilings; i++) {
                const kb_ceiling *e = &dev->ceilings[i];
                char v[32], t[32];
                const char *cells[] = {r->peaks_path[p], dev->kind,
                    e->kind == KB_CEIL_COMPUTE ? "compute" : "memory", e->level, e->kernel,
                    fmt(v, sizeof v, e->value), e->unit,
                    e->theoretical > 0 ? fmt(t, sizeof t, e->theoretical) : "-",
                    e->kind == KB_CEIL_COMPUTE ? "" : e->stream_rule ? "yes" : "no"};
                row(f, html, cells, 9, false);
            }
        }
    }
    table_end(f, html);
    para(f, html, "Memory bytes are counted as STREAM does (write-allocate traffic not "
         "counted); theoretical compute = cores x lanes x 2 x FMA ports x observed clock.");
}

/* "compute", or "memory (LEVEL)". */
static const char *bound_cell(char *buf, size_t len, const kb_placement *p)
{
    if (p->bound == KB_BOUND_COMPUTE)
        return kb_bound_name(p->bound);
    snprintf(buf, len, "memory (%s)", p->memory->level);
    return buf;
}

/* The table of placed cases and the list of those that were not. */
static void cases_section(FILE *f, bool html, const report *r, int *above)
{
    const char *head[MAX_COLS] = {"model", "layer", "kernel", "backend", "dtype",
                                  "GFLOP/s", "AI (FLOP/B)", "attainable", "% of attainable",
                                  "bound", "note", "results"};
    int ncol = r->nseries > 1 ? 12 : 11;
    char line[400];
    heading(f, html, "Cases");
    if (strcmp(r->level, "auto") == 0)
        snprintf(line, sizeof line, "Attainable = min(compute ceiling of the precision, "
                 "AI x bandwidth of the smallest memory level that holds the case's "
                 "bytes, named under bound). A case above its roof is flagged: its FLOP "
                 "or byte count or its timing is wrong.");
    else
        snprintf(line, sizeof line, "Attainable = min(compute ceiling of the precision, "
                 "AI x %s bandwidth). A case above its roof is flagged: its FLOP or byte "
                 "count or its timing is wrong, or its data stayed in a cache above %s.",
                 r->level, r->level);
    para(f, html, line);
    para(f, html, "FLOP and bytes as the result files count them (kbench's "
         "results/COUNTING.md): conv FLOPs count only the taps that fall inside "
         "the input, as benchdnn does; bytes are the minimum compulsory traffic, "
         "with a training bnorm's src read twice when it does not fit in the "
         "last-level cache.");
    table_begin(f, html);
    row(f, html, head, ncol, true);
    *above = 0;
    for (size_t i = 0; i < r->ncases; i++) {
        const report_case *c = &r->cases[i];
        if (strcmp(c->status, "PASSED") != 0)
            continue;
        char g[32], ai[32], att[32], pct[32], bound[32];
        *above += c->placed && c->pl.above_roof;
        const char *cells[MAX_COLS] = {c->model, c->layer, c->kernel, c->backend, c->dtype,
            fmt(g, sizeof g, c->gflops), fmt(ai, sizeof ai, c->flops / c->bytes),
            c->placed ? fmt(att, sizeof att, c->pl.attainable) : "-",
            c->placed ? fmt(pct, sizeof pct, c->pl.pct) : "-",
            c->placed ? bound_cell(bound, sizeof bound, &c->pl) : "-",
            c->placed ? (c->pl.above_roof ? "ABOVE ROOF: counting or timing error" : "")
                      : c->why,
            r->s[c->series].path};
        row(f, html, cells, ncol, false);
    }
    table_end(f, html);
    snprintf(line, sizeof line, "%d case(s) measured above their roof.", *above);
    para(f, html, line);

    heading(f, html, "Cases not placed (not PASSED)");
    int n = 0;
    for (size_t i = 0; i < r->ncases; i++) {
        const report_case *c = &r->cases[i];
        if (strcmp(c->status, "PASSED") == 0)
            continue;
        snprintf(line, sizeof line, "%s %s %s on %s: %s%s%s", c->model, c->layer, c->kernel,
                 c->backend, c->status, c->reason[0] ? ": " : "", c->reason);
        fprintf(f, html ? "<li>" : "- ");
        text(f, html, line);
        fprintf(f, html ? "</li>\n" : "\n");
        n++;
    }
    if (n == 0)
        para(f, html, "None.");
}

/* "FWD 35.1%, BWD_D 30.0%" of a stack, shares of the measured time. */
static const char *shares_cell(char *buf, size_t len, const kb_step_stack *s,
                               double total)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < s->n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s %.1f%%",
                                 i ? ", " : "", s->name[i],
                                 total > 0 ? 100 * s->t[i] / total : 0.0);
    return buf;
}

/* The training steps: a table and the stacked bars. */
static void training_section(FILE *f, bool html, const report *r)
{
    const char *head[] = {"model", "backend", "dtype", "step (s)", "measured (s)",
                          "by pass", "by kind", "missing passes", "results"};
    heading(f, html, "Training steps");
    para(f, html, "Kernel time per training step (kbench run --training): the sum "
         "over the model's layers of count x median of every pass the step needs. "
         "A step with a pass that did not run and validate has no step time: "
         "only what was measured is shown, and the passes missing are counted. "
         "Shares are of the measured time.");
    table_begin(f, html);
    row(f, html, head, 9, true);
    for (size_t i = 0; i < r->nsteps; i++) {
        const kb_step_bar *s = &r->steps[i];
        char step[32], meas[32], bp[200], bk[200], miss[16];
        snprintf(miss, sizeof miss, "%d", s->missing);
        snprintf(meas, sizeof meas, "%.4g", s->measured_s);
        if (s->complete)
            snprintf(step, sizeof step, "%.4g", s->measured_s);
        else
            snprintf(step, sizeof step, "INCOMPLETE");
        const char *cells[] = {s->model, s->backend, s->dtype, step, meas,
                               shares_cell(bp, sizeof bp, &s->by_pass, s->measured_s),
                               shares_cell(bk, sizeof bk, &s->by_kind, s->measured_s),
                               miss, s->series};
        row(f, html, cells, 9, false);
    }
    table_end(f, html);
    if (html)
        fputs(r->training_svg, f);
    else
        fprintf(f, "![Training steps](training.svg)\n\n");
}

static void write_doc(FILE *f, bool html, const report *r, const char *svg)
{
    char line[400];
    int above;
    if (html)
        fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>"
                "<title>kbench roofline report</title>\n<style>body{font-family:Helvetica,"
                "Arial,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;"
                "font-size:13px}td,th{border:1px solid #bbb;padding:3px 6px}"
                "th{background:#eee}svg{max-width:100%%;height:auto}</style></head>\n<body>\n"
                "<h1>kbench roofline report</h1>\n");
    else
        fprintf(f, "# kbench roofline report\n");
    heading(f, html, "Results");
    for (int k = 0; k < r->nseries; k++) {
        const cJSON *date = cJSON_GetObjectItemCaseSensitive(r->s[k].run, "date");
        const cJSON *cpu = cJSON_GetObjectItemCaseSensitive(r->s[k].run, "cpu_model");
        snprintf(line, sizeof line, "%s%s: %s, %s, %s", r->nseries > 1 ? (k ? "hollow " : "filled ") : "",
                 r->s[k].path, r->s[k].name,
                 cJSON_IsString(cpu) ? cpu->valuestring : "CPU unknown",
                 cJSON_IsString(date) ? date->valuestring : "date unknown");
        para(f, html, line);
    }
    ceilings_section(f, html, r);
    heading(f, html, "Roofline");
    if (html)
        fputs(svg, f);
    else
        fprintf(f, "![Roofline chart](roofline.svg)\n\n");
    cases_section(f, html, r, &above);
    if (r->nsteps > 0)
        training_section(f, html, r);
    if (html)
        fprintf(f, "</body></html>\n");
}

/* Write path from the writer fn.  Returns 0, or -1 after a message. */
static int write_file(const char *dir, const char *name, const report *r,
                      const char *svg, int kind)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "kbench report: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (kind == 0)
        fputs(svg, f);
    else
        write_doc(f, kind == 2, r, svg);
    int bad = ferror(f);
    bad |= fclose(f) != 0;
    if (bad)
        fprintf(stderr, "kbench report: cannot write %s: %s\n", path, strerror(errno));
    return bad ? -1 : 0;
}

/* The chart as text.  Returns it (free it), or NULL after a message. */
static char *make_svg(const report *r)
{
    kb_svg_point *pts = calloc(r->ncases + 1, sizeof *pts);
    char *labels = calloc(r->ncases + 1, 200);
    char *text = NULL;
    size_t len = 0;
    FILE *f = pts && labels ? open_memstream(&text, &len) : NULL;
    if (!f) {
        fprintf(stderr, "kbench report: out of memory for the chart of %zu cases\n", r->ncases);
        free(pts);
        free(labels);
        return NULL;
    }
    kb_svg_chart chart = {"kbench roofline", r->nseries, {NULL, NULL}, {NULL, NULL}};
    for (int k = 0; k < r->nseries; k++) {
        chart.series_names[k] = r->s[k].name;
        chart.devices[k] = r->s[k].ceil ? kb_ceilings_device(r->s[k].ceil, "cpu") : NULL;
    }
    int n = 0;
    for (size_t i = 0; i < r->ncases; i++) {
        const report_case *c = &r->cases[i];
        if (strcmp(c->status, "PASSED") != 0)
            continue;
        char *label = labels + 200 * (size_t)n;
        snprintf(label, 200, "%s %s", c->model, c->layer);
        pts[n++] = (kb_svg_point){c->flops / c->bytes, c->gflops, c->backend, c->kernel,
                                  c->dtype, label, c->series, c->placed && c->pl.above_roof};
    }
    int rc = kb_svg_write(f, &chart, pts, n);
    if (fclose(f) != 0 || rc < 0) {
        fprintf(stderr, "kbench report: out of memory writing the chart\n");
        free(text);
        text = NULL;
    }
    free(pts);
    free(labels);
    return text;
}

/* The training steps' chart as text.  Returns it (free it), or NULL
 * after a message. */
static char *make_training_svg(const report *r)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        fprintf(stderr, "kbench report: out of memory for the training chart\n");
        return NULL;
    }
    int rc = kb_training_chart_write(f, r->steps, (int)r->nsteps);
    if (fclose(f) != 0 || rc < 0) {
        fprintf(stderr, "kbench report: out of memory writing the training chart\n");
        free(text);
        text = NULL;
    }
    return text;
}

/* Returns 0 to run, 1 after --help, -1 after a usage message. */
static int parse_opts(int argc, char **argv, report *r)
{
    r->level = "auto";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 1;
        } else if (strcmp(a, "--out") == 0 && v) {
            r->out = argv[++i];
        } else if (strcmp(a, "--level") == 0 && v) {
            if (!(r->level = kb_roofline_level_name(argv[++i]))) {
                fprintf(stderr, "kbench report: --level '%s': expected %s\n",
                        v, KB_ROOFLINE_LEVELS);
                return -1;
            }
        } else if (strcmp(a, "--peaks") == 0 && v && r->npeaks < KB_SVG_MAX_SERIES) {
            r->peaks_path[r->npeaks++] = argv[++i];
        } else if (a[0] != '-' && r->nseries < KB_SVG_MAX_SERIES) {
            r->s[r->nseries++].path = a;
        } else {
            fprintf(stderr, "kbench report: unexpected \"%s\" (at most %d result files "
                    "and %d --peaks; options need a value)\n", a, KB_SVG_MAX_SERIES,
                    KB_SVG_MAX_SERIES);
            usage(stderr);
            return -1;
        }
    }
    if (r->nseries == 0 || !r->out) {
        fprintf(stderr, "kbench report: %s\n", r->nseries ? "--out DIR is required"
                                                           : "no result file given");
        usage(stderr);
        return -1;
    }
    return 0;
}

/* Load the ceilings and read the results.  Returns an exit code. */
static int load_inputs(report *r)
{
    char err[600];
    for (int p = 0; p < r->npeaks; p++) {
        r->peaks[p] = malloc(sizeof *r->peaks[p]);
        if (!r->peaks[p]) {
            fprintf(stderr, "kbench report: out of memory\n");
            return KB_EXIT_RUNTIME;
        }
        if (kb_ceilings_load(r->peaks_path[p], r->peaks[p], err, sizeof err)) {
            fprintf(stderr, "kbench report: bad ceilings file: %s\n", err);
            return KB_EXIT_USAGE;
        }
    }
    for (int k = 0; k < r->nseries; k++) {
        if (read_results(r, k))
            return KB_EXIT_USAGE;
        r->s[k].ceil = r->npeaks == 0 ? NULL
                     : r->peaks[k < r->npeaks ? k : r->npeaks - 1];
    }
    return KB_EXIT_OK;
}

static void free_report(report *r)
{
    for (size_t i = 0; i < r->ncases; i++) {
        report_case *c = &r->cases[i];
        free(c->model), free(c->layer), free(c->kernel), free(c->backend);
        free(c->dtype), free(c->status), free(c->reason);
    }
    free(r->cases);
    free(r->steps);
    cJSON_Delete(r->step_records);
    for (int k = 0; k < r->nseries; k++)
        cJSON_Delete(r->s[k].run);
    for (int p = 0; p < r->npeaks; p++)
        free(r->peaks[p]);
}

int kb_cmd_report(int argc, char **argv)
{
    report r = {0};
    int rc = parse_opts(argc, argv, &r);
    if (rc)
        return rc > 0 ? KB_EXIT_OK : KB_EXIT_USAGE;
    rc = load_inputs(&r);
    char *svg = NULL;
    if (rc == KB_EXIT_OK) {
        place_all(&r);
        svg = make_svg(&r);
        if (!svg || (r.nsteps > 0 && !(r.training_svg = make_training_svg(&r))))
            rc = KB_EXIT_RUNTIME;
    }
    if (rc == KB_EXIT_OK && mkdir(r.out, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "kbench report: cannot create %s: %s\n", r.out, strerror(errno));
        rc = KB_EXIT_RUNTIME;
    }
    if (rc == KB_EXIT_OK && (write_file(r.out, "roofline.svg", &r, svg, 0) ||
                             write_file(r.out, "report.md", &r, svg, 1) ||
                             write_file(r.out, "report.html", &r, svg, 2) ||
                             (r.nsteps > 0 &&
                              write_file(r.out, "training.svg", &r, r.training_svg, 0))))
        rc = KB_EXIT_RUNTIME;
    if (rc == KB_EXIT_OK)
        printf("kbench report: wrote %s/roofline.svg, report.md, report.html%s (%zu cases, "
               "%zu training steps)\n", r.out, r.nsteps > 0 ? ", training.svg" : "",
               r.ncases, r.nsteps);
    free(svg);
    free(r.training_svg);
    free_report(&r);
    return rc;
}
