/* report_charts.c - the charts of `kbench report` drawn into memory: one
 * roofline per device with a PASSED case, and the training steps' stacked
 * bars (report.h). */
#define _GNU_SOURCE   /* open_memstream */
#include "drivers/report/report.h"

#include <stdlib.h>
#include <string.h>

#define LABEL_LEN 200

/* The chart of charts[i] as text: its cases, its ceilings.  Returns it
 * (free it), or NULL after a message. */
static char *roofline_svg(const kb_report *r, int chart_index)
{
    const kb_report_chart *ch = &r->charts[chart_index];
    kb_svg_point *pts = calloc(r->ncases + 1, sizeof *pts);
    char *labels = calloc(r->ncases + 1, LABEL_LEN);
    char *text = NULL, title[260];
    size_t len = 0;
    FILE *f = pts && labels ? open_memstream(&text, &len) : NULL;
    if (!f) {
        fprintf(stderr, "kbench report: out of memory for the chart of %zu cases\n",
                r->ncases);
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
        const kb_report_case *c = &r->cases[i];
        const kb_result_case *rc = c->rc;
        if (c->chart != chart_index || strcmp(rc->status, "PASSED") != 0)
            continue;
        char *label = labels + LABEL_LEN * (size_t)n;
        snprintf(label, LABEL_LEN, "%s %s", rc->model, rc->layer);
        pts[n++] = (kb_svg_point){rc->flops / rc->bytes, rc->gflops, rc->backend,
                                  rc->kernel, rc->dtype, label, c->series,
                                  c->placed && c->pl.above_roof};
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
static int draw_chart(kb_report *r, int i, int nth)
{
    kb_report_chart *ch = &r->charts[i];
    if (nth == 1)
        snprintf(ch->file, sizeof ch->file, "roofline.svg");
    else
        snprintf(ch->file, sizeof ch->file, "roofline-%d.svg", nth);
    ch->svg = roofline_svg(r, i);
    return ch->svg ? 0 : -1;
}

/* The training steps' chart as text.  Returns it (free it), or NULL
 * after a message. */
static char *training_svg(const kb_report *r)
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

int kb_report_draw(kb_report *r)
{
    int nth = 0;
    for (int i = 0; i < r->ncharts; i++) {
        bool passed = false;
        for (size_t j = 0; j < r->ncases && !passed; j++)
            passed = r->cases[j].chart == i && strcmp(r->cases[j].rc->status, "PASSED") == 0;
        if (passed && draw_chart(r, i, ++nth))
            return -1;
    }
    if (nth == 0 && draw_chart(r, 0, 1))
        return -1;
    if (r->nsteps > 0 && !(r->training_svg = training_svg(r)))
        return -1;
    return 0;
}
