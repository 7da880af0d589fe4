/* report_doc.c - the sections of `kbench report`'s document, written once
 * for both formats (kb_report_format): the result files, the ceilings,
 * the conventions, one section per device (its chart, its cases, those
 * not placed and why) and the training steps (report.h). */
#include "drivers/report/report.h"

#include "drivers/common/numfmt.h"

#include <string.h>

#define MAX_COLS 12

static bool passed(const kb_report_case *c)
{
    return strcmp(c->rc->status, "PASSED") == 0;
}

static void results_section(FILE *f, const kb_report_format *fmt, const kb_report *r)
{
    char line[400];
    fmt->heading(f, 2, "Results");
    for (int k = 0; k < r->nseries; k++) {
        const cJSON *date = cJSON_GetObjectItemCaseSensitive(r->s[k].file.run, "date");
        const cJSON *cpu = cJSON_GetObjectItemCaseSensitive(r->s[k].file.run, "cpu_model");
        snprintf(line, sizeof line, "%s%s: %s, %s, %s",
                 r->nseries > 1 ? (k ? "hollow " : "filled ") : "", r->s[k].path,
                 r->s[k].name, cJSON_IsString(cpu) ? cpu->valuestring : "CPU unknown",
                 cJSON_IsString(date) ? date->valuestring : "date unknown");
        fmt->para(f, line);
    }
}

static void ceilings_section(FILE *f, const kb_report_format *fmt, const kb_report *r)
{
    static const char *const head[] = {"file", "device", "kind", "level", "kernel",
                                       "measured", "unit", "theoretical", "STREAM rule"};
    fmt->heading(f, 2, "Ceilings");
    if (r->npeaks == 0) {
        fmt->para(f, "No ceilings file was given (--peaks): there are no roofs, and "
                  "no attainable, % of attainable or bound figures. kbench never "
                  "invents ceilings; measure them with `kbench peaks --json FILE`.");
        return;
    }
    fmt->table_head(f, head, 9);
    for (int p = 0; p < r->npeaks; p++)
        for (int d = 0; d < r->peaks[p]->ndevices; d++) {
            const kb_device *dev = &r->peaks[p]->devices[d];
            for (int i = 0; i < dev->nceilings; i++) {
                const kb_ceiling *e = &dev->ceilings[i];
                char v[32], t[32], name[256];
                const char *cells[] = {r->peaks_path[p],
                    kb_report_device_name(name, sizeof name, dev),
                    e->kind == KB_CEIL_COMPUTE ? "compute" : "memory", e->level,
                    e->kernel, kb_fmt_num(v, sizeof v, e->value), e->unit,
                    e->theoretical > 0 ? kb_fmt_num(t, sizeof t, e->theoretical) : "-",
                    e->kind == KB_CEIL_COMPUTE ? "" : e->stream_rule ? "yes" : "no"};
                fmt->table_row(f, cells, 9);
            }
        }
    fmt->table_end(f);
    fmt->para(f, "Memory bytes are counted as STREAM does (write-allocate traffic not "
              "counted); theoretical compute = cores x lanes x 2 x FMA ports x "
              "observed clock.");
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
static void roofline_intro(FILE *f, const kb_report_format *fmt, const kb_report *r)
{
    char line[400];
    fmt->heading(f, 2, "Roofline");
    fmt->para(f, "One chart per device the cases ran on: CPU cases under the "
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
    fmt->para(f, line);
    fmt->para(f, "FLOP and bytes as the result files count them (kbench's "
              "results/COUNTING.md): conv FLOPs count only the taps that fall inside "
              "the input, as benchdnn does; bytes are the minimum compulsory traffic, "
              "with a training bnorm's src read twice when it does not fit in the "
              "last-level cache.");
}

/* Which ceilings result file k's cases on chart ch are under, or why
 * none. */
static void roof_line(char *line, size_t len, const kb_report *r,
                      const kb_report_chart *ch, int k)
{
    char why[700], name[256];
    const char *from = r->nseries > 1 ? r->s[k].path : "";
    if (!r->s[k].ceil)
        snprintf(why, sizeof why, "no ceilings file (--peaks)");
    else if (!ch->roof[k])
        kb_roofline_no_device(ch->dev.kind, ch->dev.id, why, sizeof why);
    else
        snprintf(why, sizeof why, "%s, device %s%s", r->s[k].ceil_path,
                 kb_report_device_name(name, sizeof name, ch->roof[k]),
                 ch->dev.id[0] && strcmp(ch->roof[k]->uuid, ch->dev.id) != 0
                     ? " (another GPU: none were measured on this one)" : "");
    snprintf(line, len, "Ceilings%s%s: %s", from[0] ? " of " : "", from, why);
}

/* "12 cases: 9 PASSED (9 placed, 0 above their roof), 1 MISTRUSTED, ..." */
static void summary_line(char *line, size_t len, const kb_report *r, int chart_index)
{
    static const char *const states[] = {"MISTRUSTED", "FAILED", "ERROR", "SKIPPED"};
    int n = 0, npassed = 0, placed = 0, above = 0, other = 0, count[4] = {0};
    for (size_t i = 0; i < r->ncases; i++) {
        const kb_report_case *c = &r->cases[i];
        if (c->chart != chart_index)
            continue;
        n++;
        bool known = passed(c);
        npassed += known;
        placed += c->placed;
        above += c->placed && c->pl.above_roof;
        for (int s = 0; s < 4 && !known; s++)
            if (strcmp(c->rc->status, states[s]) == 0)
                count[s]++, known = true;
        other += !known;
    }
    size_t used = (size_t)snprintf(line, len, "%d case(s): %d PASSED (%d placed, "
                                   "%d above their roof)", n, npassed, placed, above);
    for (int s = 0; s < 4 && used < len; s++)
        if (count[s])
            used += (size_t)snprintf(line + used, len - used, ", %d %s", count[s],
                                     states[s]);
    if (other && used < len)
        snprintf(line + used, len - used, ", %d with another status", other);
}

/* The table of the chart's PASSED cases. */
static void cases_table(FILE *f, const kb_report_format *fmt, const kb_report *r,
                        int chart_index)
{
    static const char *const head[MAX_COLS] = {"model", "layer", "kernel", "backend",
        "dtype", "GFLOP/s", "AI (FLOP/B)", "attainable", "% of attainable", "bound",
        "note", "results"};
    int ncol = r->nseries > 1 ? 12 : 11;   /* the results column with two files */
    fmt->table_head(f, head, ncol);
    for (size_t i = 0; i < r->ncases; i++) {
        const kb_report_case *c = &r->cases[i];
        const kb_result_case *rc = c->rc;
        if (c->chart != chart_index || !passed(c))
            continue;
        char g[32], ai[32], att[32], pct[32], bound[32];
        const char *cells[MAX_COLS] = {rc->model, rc->layer, rc->kernel, rc->backend,
            rc->dtype, kb_fmt_num(g, sizeof g, rc->gflops),
            kb_fmt_num(ai, sizeof ai, rc->flops / rc->bytes),
            c->placed ? kb_fmt_num(att, sizeof att, c->pl.attainable) : "-",
            c->placed ? kb_fmt_num(pct, sizeof pct, c->pl.pct) : "-",
            c->placed ? bound_cell(bound, sizeof bound, &c->pl) : "-",
            c->placed && c->pl.above_roof ? "ABOVE ROOF: counting or timing error"
                                          : c->why,
            r->s[c->series].path};
        fmt->table_row(f, cells, ncol);
    }
    fmt->table_end(f);
}

/* The chart's cases that passed (want_passed) and were not placed, with
 * why; or those that did not pass, with their status and reason. */
static void case_list(FILE *f, const kb_report_format *fmt, const kb_report *r,
                      int chart_index, bool want_passed)
{
    char line[1024];
    fmt->para(f, want_passed ? "PASSED but not placed:" : "Not PASSED (not placed):");
    fmt->list_begin(f);
    for (size_t i = 0; i < r->ncases; i++) {
        const kb_report_case *c = &r->cases[i];
        const kb_result_case *rc = c->rc;
        if (c->chart != chart_index || passed(c) != want_passed || c->placed)
            continue;
        if (want_passed)
            snprintf(line, sizeof line, "%s %s %s on %s: %s", rc->model, rc->layer,
                     rc->kernel, rc->backend, c->why);
        else
            snprintf(line, sizeof line, "%s %s %s on %s: %s%s%s", rc->model, rc->layer,
                     rc->kernel, rc->backend, rc->status, rc->reason[0] ? ": " : "",
                     rc->reason);
        fmt->item(f, line);
    }
    fmt->list_end(f);
}

/* One device: whose ceilings, its chart, the table of its PASSED cases,
 * those not placed and why, and those that did not pass. */
static void device_section(FILE *f, const kb_report_format *fmt, const kb_report *r,
                           int chart_index)
{
    const kb_report_chart *ch = &r->charts[chart_index];
    char line[1024], alt[260];
    bool cpu = strcmp(ch->dev.kind, "cpu") == 0;
    snprintf(line, sizeof line, "%s%s: %s%s%s%s", cpu ? "CPU" : ch->dev.kind,
             cpu ? "" : " GPU", ch->title, ch->dev.id[0] ? " (" : "", ch->dev.id,
             ch->dev.id[0] ? ")" : "");
    fmt->heading(f, 3, line);
    summary_line(line, sizeof line, r, chart_index);
    fmt->para(f, line);
    for (int k = 0; k < r->nseries; k++)
        if (ch->has[k]) {
            roof_line(line, sizeof line, r, ch, k);
            fmt->para(f, line);
        }
    if (ch->file[0]) {
        snprintf(alt, sizeof alt, "Roofline: %s", ch->title);
        fmt->figure(f, alt, ch->file, ch->svg);
    } else {
        fmt->para(f, "No PASSED case ran on this device: no chart.");
    }
    int npassed = 0, unplaced = 0, failed = 0;
    for (size_t i = 0; i < r->ncases; i++) {
        const kb_report_case *c = &r->cases[i];
        if (c->chart != chart_index)
            continue;
        npassed += passed(c), failed += !passed(c);
        /* without any ceilings file the Ceilings section says it once */
        unplaced += passed(c) && !c->placed && r->npeaks > 0;
    }
    if (npassed)
        cases_table(f, fmt, r, chart_index);
    if (unplaced)
        case_list(f, fmt, r, chart_index, true);
    if (failed)
        case_list(f, fmt, r, chart_index, false);
}

/* "FWD 35.1%, BWD_D 30.0%" of a stack, shares of the measured time. */
static const char *shares_cell(char *buf, size_t len, const kb_step_stack *s,
                               double total)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < s->n && used < len; i++) {
        char share[32];
        used += (size_t)snprintf(buf + used, len - used, "%s%s %s", i ? ", " : "",
                                 s->name[i], kb_fmt_share(share, sizeof share,
                                                          s->t[i], total));
    }
    return buf;
}

/* The training steps: a table and the stacked bars. */
static void training_section(FILE *f, const kb_report_format *fmt, const kb_report *r)
{
    static const char *const head[] = {"model", "backend", "dtype", "step (s)",
        "measured (s)", "by pass", "by kind", "missing passes", "results"};
    fmt->heading(f, 2, "Training steps");
    fmt->para(f, "Kernel time per training step (kbench run --training): the sum "
              "over the model's layers of count x median of every pass the step needs. "
              "A step with a pass that did not run and validate has no step time: "
              "only what was measured is shown, and the passes missing are counted. "
              "Shares are of the measured time.");
    fmt->table_head(f, head, 9);
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
        fmt->table_row(f, cells, 9);
    }
    fmt->table_end(f);
    fmt->figure(f, "Training steps", "training.svg", r->training_svg);
}

int kb_report_write_doc(FILE *f, const kb_report_format *fmt, const kb_report *r)
{
    fmt->begin(f);
    results_section(f, fmt, r);
    ceilings_section(f, fmt, r);
    roofline_intro(f, fmt, r);
    for (int i = 0; i < r->ncharts; i++)
        device_section(f, fmt, r, i);
    if (r->nsteps > 0)
        training_section(f, fmt, r);
    fmt->end(f);
    return ferror(f) ? -1 : 0;
}
