/* report_cmd.c - the `kbench report` verb: read result files (JSON Lines),
 * place each PASSED case on the roofline of the device it ran on (the
 * CPU, or its GPU by uuid) and write one chart per device (roofline.svg,
 * roofline-2.svg, ...), report.md and a self-contained report.html into
 * the output folder, and training.svg when the files hold training
 * steps. */
#define _GNU_SOURCE   /* getline, open_memstream, strdup */
#include "drivers/roofline/report.h"

#include "drivers/commands.h"
#include "drivers/roofline/placement.h"
#include "drivers/common/escape.h"
#include "drivers/roofline/svg.h"
#include "drivers/roofline/training_chart.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_COLS 12
/* Devices in one report: a CPU and a few GPUs for each result file. */
#define MAX_CHARTS 16

typedef struct {
    char *model, *layer, *kernel, *backend, *dtype, *status, *reason;
    double flops, bytes, gflops;
    int series;
    int chart;              /* the device it ran on: report.charts[chart] */
    bool placed;
    kb_placement pl;
    char why[400];          /* why a PASSED case was not placed; placed:
                               whose ceilings when not its own GPU's, "" */
} report_case;

/* What a backend's cases ran on, from the run record (strings in it). */
typedef struct {
    const char *kind;       /* "cpu", "cuda", "hip" */
    const char *id;         /* the GPU's uuid; "" for the CPU, unknown */
    const char *name;       /* describe()'s "0: NVIDIA H200"; "" */
} ran_on;

/* One device and its chart and section: the CPU, or one GPU by uuid. */
typedef struct {
    ran_on dev;
    bool has[KB_SVG_MAX_SERIES];                /* result file k ran here */
    const char *name[KB_SVG_MAX_SERIES];        /* its model as file k says */
    const kb_device *roof[KB_SVG_MAX_SERIES];   /* file k's ceilings; NULL */
    char title[200];        /* the device's model */
    char file[32];          /* roofline.svg, roofline-2.svg, ...; "": none */
    char *svg;              /* the chart, when file is set */
} chart;

typedef struct {
    const char *path;
    char name[200];         /* legend label: host @ commit */
    cJSON *run;             /* the file's run record, or NULL */
    const kb_ceilings *ceil;
    const char *ceil_path;  /* the --peaks file ceil came from */
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
    int ncharts;
    chart charts[MAX_CHARTS];
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
        "ceilings file (from `kbench peaks --json FILE`) and write DIR/roofline.svg,\n"
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

/* ---- devices and placement ------------------------------------------ */

/* The device backend's cases in file s ran on, from the run record's
 * "backends" object: "device_kind" (in files before it, "device" was the
 * kind), a GPU's "device_uuid" and describe()'s name for it ("device").
 * The CPU when the record does not say. */
static ran_on backend_device(const series *s, const char *backend)
{
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(s->run, "backends"), backend);
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(b, "device_kind");
    const cJSON *dev = cJSON_GetObjectItemCaseSensitive(b, "device");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(b, "device_uuid");
    ran_on d = {"cpu", "", ""};
    if (cJSON_IsString(kind))
        d.kind = kind->valuestring;
    else if (cJSON_IsString(dev))
        d.kind = dev->valuestring;
    /* without a uuid describe() found no device: "none", "unknown (...)" */
    if (strcmp(d.kind, "cpu") != 0 && cJSON_IsString(id) && id->valuestring[0]) {
        d.id = id->valuestring;
        if (cJSON_IsString(kind) && cJSON_IsString(dev))
            d.name = dev->valuestring;
    }
    return d;
}

/* The model of device d as file s names it: the run record's CPU model,
 * or a GPU's name without describe()'s index ("0: "); "" when unknown. */
static const char *device_model(const series *s, ran_on d)
{
    if (strcmp(d.kind, "cpu") == 0) {
        const cJSON *cpu = cJSON_GetObjectItemCaseSensitive(s->run, "cpu_model");
        return cJSON_IsString(cpu) ? cpu->valuestring : "";
    }
    const char *colon = strstr(d.name, ": ");
    return colon && isdigit((unsigned char)d.name[0]) ? colon + 2 : d.name;
}

/* The chart of device d, added when new.  Returns its index, or -1 when
 * the report already has MAX_CHARTS. */
static int chart_of(report *r, ran_on d)
{
    for (int i = 0; i < r->ncharts; i++)
        if (strcmp(r->charts[i].dev.kind, d.kind) == 0 &&
            strcmp(r->charts[i].dev.id, d.id) == 0)
            return i;
    if (r->ncharts == MAX_CHARTS)
        return -1;
    r->charts[r->ncharts].dev = d;
    return r->ncharts++;
}

/* The device's model as the files name it ("A vs B" when two files
 * name two), a CPU's from its ceilings when the files do not say. */
static void title_chart(chart *ch, int nseries)
{
    const char *m[KB_SVG_MAX_SERIES] = {"", ""};
    bool cpu = strcmp(ch->dev.kind, "cpu") == 0;
    for (int k = 0; k < nseries; k++)
        if (ch->has[k])
            m[k] = ch->name[k][0] ? ch->name[k]
                 : cpu && ch->roof[k] ? ch->roof[k]->model : "";
    if (m[0][0] && m[1][0] && strcmp(m[0], m[1]) != 0)
        snprintf(ch->title, sizeof ch->title, "%s vs %s", m[0], m[1]);
    else if (m[0][0] || m[1][0])
        snprintf(ch->title, sizeof ch->title, "%s", m[0][0] ? m[0] : m[1]);
    else
        snprintf(ch->title, sizeof ch->title, "%s",
                 cpu ? "CPU model not recorded" : "device not identified");
}

/* Group the cases by the device they ran on: the CPU's chart first (it
 * stays roofline.svg), the GPUs in the order they first appear; each
 * chart's ceilings per result file (kb_roofline_device: the GPU of the
 * same uuid, else the first of its kind) and its title.  Returns 0, or
 * -1 after a message when the cases ran on more than MAX_CHARTS devices. */
static int assign_charts(report *r)
{
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < r->ncases; i++) {
            report_case *c = &r->cases[i];
            const series *s = &r->s[c->series];
            ran_on d = backend_device(s, c->backend);
            if ((strcmp(d.kind, "cpu") == 0) != (pass == 0))
                continue;
            if ((c->chart = chart_of(r, d)) < 0) {
                fprintf(stderr, "kbench report: the cases ran on more than %d "
                        "devices; report fewer result files or backends at a "
                        "time\n", MAX_CHARTS);
                return -1;
            }
            chart *ch = &r->charts[c->chart];
            if (!ch->has[c->series]) {
                ch->has[c->series] = true;
                ch->name[c->series] = device_model(s, d);
                ch->roof[c->series] = s->ceil ? kb_roofline_device(s->ceil, d.kind, d.id)
                                              : NULL;
            }
        }
    if (r->ncharts == 0)    /* no case at all: still the (empty) chart */
        r->charts[r->ncharts++].dev = (ran_on){"cpu", "", ""};
    for (int i = 0; i < r->ncharts; i++)
        title_chart(&r->charts[i], r->nseries);
    return 0;
}

/* "cuda NVIDIA H200 GPU-...", a ceilings device for the reader. */
static const char *device_name(char *buf, size_t len, const kb_device *d)
{
    snprintf(buf, len, "%s%s%s%s%s", d->kind, d->model[0] ? " " : "", d->model,
             d->uuid[0] ? " " : "", d->uuid);
    return buf;
}

static void place_all(report *r)
{
    for (size_t i = 0; i < r->ncases; i++) {
        report_case *c = &r->cases[i];
        const series *s = &r->s[c->series];
        const ran_on *d = &r->charts[c->chart].dev;
        if (strcmp(c->status, "PASSED") != 0)
            continue;
        if (!s->ceil) {
            snprintf(c->why, sizeof c->why, "no ceilings file (--peaks)");
            continue;
        }
        kb_roofline_case q = {d->kind, c->dtype, r->level, c->flops, c->bytes,
                              c->gflops, d->id};
        c->placed = kb_roofline_place(s->ceil, &q, &c->pl, c->why, sizeof c->why) == 0;
        char name[256];
        if (c->placed && d->id[0] && strcmp(c->pl.device->uuid, d->id) != 0)
            snprintf(c->why, sizeof c->why, "under %s's ceilings: none were "
                     "measured on this GPU",
                     device_name(name, sizeof name, c->pl.device));
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

static void subheading(FILE *f, bool html, const char *s)
{
    fprintf(f, html ? "<h3>" : "\n### ");
    text(f, html, s);
    fprintf(f, html ? "</h3>\n" : "\n\n");
}

static void list_begin(FILE *f, bool html) { fprintf(f, html ? "<ul>\n" : ""); }
static void list_end(FILE *f, bool html) { fprintf(f, html ? "</ul>\n" : "\n"); }

static void item(FILE *f, bool html, const char *s)
{
    fprintf(f, html ? "<li>" : "- ");
    text(f, html, s);
    fprintf(f, html ? "</li>\n" : "\n");
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
             "ceilings; measure them with `kbench peaks --json FILE`.");
        return;
    }
    table_begin(f, html);
    row(f, html, head, 9, true);
    for (int p = 0; p < r->npeaks; p++) {
        for (int d = 0; d < r->peaks[p]->ndevices; d++) {
            const kb_device *dev = &r->peaks[p]->devices[d];
            for (int i = 0; i < dev->nceilings; i++) {
                const kb_ceiling *e = &dev->ceilings[i];
                char v[32], t[32], name[256];
                const char *cells[] = {r->peaks_path[p],
                    device_name(name, sizeof name, dev),
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

/* The conventions every device's table follows. */
static void roofline_intro(FILE *f, bool html, const report *r)
{
    char line[400];
    heading(f, html, "Roofline");
    para(f, html, "One chart per device the cases ran on: CPU cases under the "
         "CPU's ceilings, each GPU's under the ceilings of the GPU of the same "
         "uuid (else the first of its kind, said in the note).");
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
}

/* Which ceilings result file k's cases on chart ch are under, or why
 * none. */
static void roof_line(char *line, size_t len, const report *r, const chart *ch, int k)
{
    char why[700], name[256];
    const char *from = r->nseries > 1 ? r->s[k].path : "";
    if (!r->s[k].ceil)
        snprintf(why, sizeof why, "no ceilings file (--peaks)");
    else if (!ch->roof[k])
        kb_roofline_no_device(ch->dev.kind, ch->dev.id, why, sizeof why);
    else
        snprintf(why, sizeof why, "%s, device %s%s", r->s[k].ceil_path,
                 device_name(name, sizeof name, ch->roof[k]),
                 ch->dev.id[0] && strcmp(ch->roof[k]->uuid, ch->dev.id) != 0
                     ? " (another GPU: none were measured on this one)" : "");
    snprintf(line, len, "Ceilings%s%s: %s", from[0] ? " of " : "", from, why);
}

/* "12 cases: 9 PASSED (9 placed, 0 above their roof), 1 MISTRUSTED, ..." */
static void summary_line(char *line, size_t len, const report *r, int chart_index)
{
    static const char *const states[] = {"MISTRUSTED", "FAILED", "ERROR", "SKIPPED"};
    int n = 0, passed = 0, placed = 0, above = 0, other = 0, count[4] = {0};
    for (size_t i = 0; i < r->ncases; i++) {
        const report_case *c = &r->cases[i];
        if (c->chart != chart_index)
            continue;
        n++;
        bool known = strcmp(c->status, "PASSED") == 0;
        passed += known;
        placed += c->placed;
        above += c->placed && c->pl.above_roof;
        for (int s = 0; s < 4 && !known; s++)
            if (strcmp(c->status, states[s]) == 0)
                count[s]++, known = true;
        other += !known;
    }
    size_t used = (size_t)snprintf(line, len, "%d case(s): %d PASSED (%d placed, "
                                   "%d above their roof)", n, passed, placed, above);
    for (int s = 0; s < 4 && used < len; s++)
        if (count[s])
            used += (size_t)snprintf(line + used, len - used, ", %d %s", count[s],
                                     states[s]);
    if (other && used < len)
        snprintf(line + used, len - used, ", %d with another status", other);
}

/* One device: whose ceilings, its chart, the table of its PASSED cases,
 * those not placed and why, and those that did not pass. */
static void device_section(FILE *f, bool html, const report *r, int chart_index)
{
    const chart *ch = &r->charts[chart_index];
    const char *head[MAX_COLS] = {"model", "layer", "kernel", "backend", "dtype",
                                  "GFLOP/s", "AI (FLOP/B)", "attainable", "% of attainable",
                                  "bound", "note", "results"};
    int ncol = r->nseries > 1 ? 12 : 11;
    char line[1024];
    bool cpu = strcmp(ch->dev.kind, "cpu") == 0;
    snprintf(line, sizeof line, "%s%s: %s%s%s%s", cpu ? "CPU" : ch->dev.kind,
             cpu ? "" : " GPU", ch->title, ch->dev.id[0] ? " (" : "", ch->dev.id,
             ch->dev.id[0] ? ")" : "");
    subheading(f, html, line);
    summary_line(line, sizeof line, r, chart_index);
    para(f, html, line);
    for (int k = 0; k < r->nseries; k++)
        if (ch->has[k]) {
            roof_line(line, sizeof line, r, ch, k);
            para(f, html, line);
        }
    if (!ch->file[0]) {
        para(f, html, "No PASSED case ran on this device: no chart.");
    } else if (html) {
        fputs(ch->svg, f);
    } else {
        fprintf(f, "![Roofline: ");
        text(f, html, ch->title);
        fprintf(f, "](%s)\n\n", ch->file);
    }
    int passed = 0, unplaced = 0, failed = 0;
    for (size_t i = 0; i < r->ncases; i++) {
        const report_case *c = &r->cases[i];
        bool ok = strcmp(c->status, "PASSED") == 0;
        if (c->chart != chart_index)
            continue;
        passed += ok, failed += !ok;
        /* without any ceilings file the Ceilings section says it once */
        unplaced += ok && !c->placed && r->npeaks > 0;
    }
    if (passed) {
        table_begin(f, html);
        row(f, html, head, ncol, true);
        for (size_t i = 0; i < r->ncases; i++) {
            const report_case *c = &r->cases[i];
            if (c->chart != chart_index || strcmp(c->status, "PASSED") != 0)
                continue;
            char g[32], ai[32], att[32], pct[32], bound[32];
            const char *cells[MAX_COLS] = {c->model, c->layer, c->kernel, c->backend,
                c->dtype, fmt(g, sizeof g, c->gflops), fmt(ai, sizeof ai, c->flops / c->bytes),
                c->placed ? fmt(att, sizeof att, c->pl.attainable) : "-",
                c->placed ? fmt(pct, sizeof pct, c->pl.pct) : "-",
                c->placed ? bound_cell(bound, sizeof bound, &c->pl) : "-",
                c->placed && c->pl.above_roof ? "ABOVE ROOF: counting or timing error"
                                              : c->why,
                r->s[c->series].path};
            row(f, html, cells, ncol, false);
        }
        table_end(f, html);
    }
    if (unplaced) {
        para(f, html, "PASSED but not placed:");
        list_begin(f, html);
        for (size_t i = 0; i < r->ncases; i++) {
            const report_case *c = &r->cases[i];
            if (c->chart != chart_index || strcmp(c->status, "PASSED") != 0 || c->placed)
                continue;
            snprintf(line, sizeof line, "%s %s %s on %s: %s", c->model, c->layer,
                     c->kernel, c->backend, c->why);
            item(f, html, line);
        }
        list_end(f, html);
    }
    if (failed) {
        para(f, html, "Not PASSED (not placed):");
        list_begin(f, html);
        for (size_t i = 0; i < r->ncases; i++) {
            const report_case *c = &r->cases[i];
            if (c->chart != chart_index || strcmp(c->status, "PASSED") == 0)
                continue;
            snprintf(line, sizeof line, "%s %s %s on %s: %s%s%s", c->model, c->layer,
                     c->kernel, c->backend, c->status, c->reason[0] ? ": " : "", c->reason);
            item(f, html, line);
        }
        list_end(f, html);
    }
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

static void write_doc(FILE *f, bool html, const report *r)
{
    char line[400];
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
    roofline_intro(f, html, r);
    for (int i = 0; i < r->ncharts; i++)
        device_section(f, html, r, i);
    if (r->nsteps > 0)
        training_section(f, html, r);
    if (html)
        fprintf(f, "</body></html>\n");
}

/* Write dir/name: the text of a chart (kind 0), report.md (1) or
 * report.html (2).  Returns 0, or -1 after a message. */
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
        write_doc(f, kind == 2, r);
    int bad = ferror(f);
    bad |= fclose(f) != 0;
    if (bad)
        fprintf(stderr, "kbench report: cannot write %s: %s\n", path, strerror(errno));
    return bad ? -1 : 0;
}

/* The chart of charts[i] as text: its cases, its ceilings.  Returns it
 * (free it), or NULL after a message. */
static char *make_svg(const report *r, int chart_index)
{
    const chart *ch = &r->charts[chart_index];
    kb_svg_point *pts = calloc(r->ncases + 1, sizeof *pts);
    char *labels = calloc(r->ncases + 1, 200);
    char *text = NULL, title[260];
    size_t len = 0;
    FILE *f = pts && labels ? open_memstream(&text, &len) : NULL;
    if (!f) {
        fprintf(stderr, "kbench report: out of memory for the chart of %zu cases\n", r->ncases);
        free(pts);
        free(labels);
        return NULL;
    }
    snprintf(title, sizeof title, "kbench roofline: %s", ch->title);
    kb_svg_chart chart = {title, r->nseries, {NULL, NULL}, {NULL, NULL},
                          r->npeaks == 0 ? "No ceilings file given: no roofs drawn"
                          : "No ceilings for this device: no roofs drawn "
                            "(run kbench peaks on its machine)"};
    for (int k = 0; k < r->nseries; k++) {
        chart.series_names[k] = r->s[k].name;
        chart.devices[k] = ch->roof[k];
    }
    int n = 0;
    for (size_t i = 0; i < r->ncases; i++) {
        const report_case *c = &r->cases[i];
        if (c->chart != chart_index || strcmp(c->status, "PASSED") != 0)
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

/* Name charts[i] the nth chart (roofline.svg, then roofline-2.svg, ...)
 * and draw it.  Returns 0, or -1 after a message. */
static int draw_chart(report *r, int i, int nth)
{
    chart *ch = &r->charts[i];
    if (nth == 1)
        snprintf(ch->file, sizeof ch->file, "roofline.svg");
    else
        snprintf(ch->file, sizeof ch->file, "roofline-%d.svg", nth);
    ch->svg = make_svg(r, i);
    return ch->svg ? 0 : -1;
}

/* A chart for every device with a PASSED case; when none has one, the
 * first device's (empty) chart.  Returns 0, or -1 after a message. */
static int make_charts(report *r)
{
    int nth = 0;
    for (int i = 0; i < r->ncharts; i++) {
        bool passed = false;
        for (size_t j = 0; j < r->ncases && !passed; j++)
            passed = r->cases[j].chart == i && strcmp(r->cases[j].status, "PASSED") == 0;
        if (passed && draw_chart(r, i, ++nth))
            return -1;
    }
    return nth == 0 ? draw_chart(r, 0, 1) : 0;
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

/* Load the ceilings, read the results and group the cases by device.
 * Returns an exit code. */
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
        int p = k < r->npeaks ? k : r->npeaks - 1;
        r->s[k].ceil = r->npeaks == 0 ? NULL : r->peaks[p];
        r->s[k].ceil_path = r->npeaks == 0 ? NULL : r->peaks_path[p];
    }
    return assign_charts(r) == 0 ? KB_EXIT_OK : KB_EXIT_USAGE;
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
    for (int i = 0; i < r->ncharts; i++)
        free(r->charts[i].svg);
}

/* Every output into r->out.  Returns 0, or -1 after a message. */
static int write_outputs(const report *r)
{
    if (mkdir(r->out, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "kbench report: cannot create %s: %s\n", r->out, strerror(errno));
        return -1;
    }
    for (int i = 0; i < r->ncharts; i++)
        if (r->charts[i].file[0] &&
            write_file(r->out, r->charts[i].file, r, r->charts[i].svg, 0))
            return -1;
    if (write_file(r->out, "report.md", r, NULL, 1) ||
        write_file(r->out, "report.html", r, NULL, 2) ||
        (r->nsteps > 0 && write_file(r->out, "training.svg", r, r->training_svg, 0)))
        return -1;
    printf("kbench report: wrote %s/", r->out);
    for (int i = 0; i < r->ncharts; i++)
        if (r->charts[i].file[0])
            printf("%s, ", r->charts[i].file);
    printf("report.md, report.html%s (%zu cases on %d device(s), %zu training "
           "steps)\n", r->nsteps > 0 ? ", training.svg" : "", r->ncases,
           r->ncharts, r->nsteps);
    return 0;
}

int kb_cmd_report(int argc, char **argv)
{
    report r = {0};
    int rc = parse_opts(argc, argv, &r);
    if (rc)
        return rc > 0 ? KB_EXIT_OK : KB_EXIT_USAGE;
    rc = load_inputs(&r);
    if (rc == KB_EXIT_OK) {
        place_all(&r);
        if (make_charts(&r) ||
            (r.nsteps > 0 && !(r.training_svg = make_training_svg(&r))))
            rc = KB_EXIT_RUNTIME;
    }
    if (rc == KB_EXIT_OK && write_outputs(&r))
        rc = KB_EXIT_RUNTIME;
    free(r.training_svg);
    free_report(&r);
    return rc;
}
