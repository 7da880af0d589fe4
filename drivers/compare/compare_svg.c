/* compare_svg.c - the compare chart: one row per compared case, its ratio
 * as a dot and its 95 % interval as a bar on a log axis, the 1.0 line
 * (no difference), coloured by verdict. */
#include "drivers/compare/compare.h"

#include "drivers/common/escape.h"
#include "drivers/common/svg_axes.h"

#include <math.h>
#include <string.h>

#define WIDTH 1040
#define LABEL_RIGHT 450   /* labels end here, the plot starts after */
#define PLOT_LEFT 470
#define PLOT_RIGHT 1010
#define TOP 56
#define ROW 22

static const struct {
    const char *verdict, *colour, *legend;
} styles[] = {
    {"faster", "#1a7f37", "B faster (p < 0.05, interval above 1)"},
    {"slower", "#cf222e", "B slower (p < 0.05, interval below 1)"},
    {"~", "#6e7781", "~ no significant difference"},
};

static const char *colour_of(const char *verdict)
{
    for (size_t i = 0; i < sizeof styles / sizeof styles[0]; i++)
        if (strcmp(styles[i].verdict, verdict) == 0)
            return styles[i].colour;
    return "#6e7781";
}

/* The log axis, always holding 1 and every interval, with 5 % to spare
 * at each end. */
static kb_axis make_axis(const kb_compare *c, const kb_svg_box *box)
{
    double lo = 0.95, hi = 1.05;
    for (size_t i = 0; i < c->nrows; i++)
        if (c->rows[i].compared) {
            lo = fmin(lo, c->rows[i].lo);
            hi = fmax(hi, c->rows[i].hi);
        }
    kb_axis ax = kb_axis_x(true, lo, hi, box);
    kb_axis_pad(&ax, 0.05);
    return ax;
}

/* Tick ratios are the powers of one factor (kb_axis_step), so 1.0 is one
 * of them, drawn dashed: no difference.  At most 8 steps. */
static void ticks(FILE *f, const kb_axis *ax, const kb_svg_box *box)
{
    static const kb_tick_style st = {
        "stroke=\"#d0d7de\"", 1,
        "stroke=\"#24292f\" class=\"one\" stroke-dasharray=\"4 3\"", 6, 16};
    double t[16];
    kb_svg_ticks(f, ax, box, t, kb_axis_ticks(ax, kb_axis_step(ax, 8), t, 16), &st);
}

/* Labels longer than this are cut (the tooltip has them whole). */
#define LABEL_MAX 60

static void case_row(FILE *f, const kb_axis *ax, const kb_cmp_row *r, int y)
{
    const char *col = colour_of(r->verdict);
    fputs("<g class=\"case\"><title>", f);
    kb_xml_escape(f, r->label);
    fprintf(f, " %s %s: ratio %.3f, 95 %% CI %.3f - %.3f, p = %.3g, %s</title>\n",
            r->a->kernel, r->a->backend, r->ratio, r->lo, r->hi, r->mw.p, r->verdict);
    char label[LABEL_MAX + 8];
    int n = strcmp(r->a->backend, r->b->backend) == 0
                ? snprintf(label, sizeof label, "%s (%s)", r->label, r->a->backend)
                : snprintf(label, sizeof label, "%s (%s vs %s)", r->label,
                           r->a->backend, r->b->backend);
    if (n > LABEL_MAX)
        strcpy(label + LABEL_MAX - 3, "...");
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", LABEL_RIGHT, y + 4);
    kb_xml_escape(f, label);
    fputs("</text>\n", f);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" "
               "stroke-width=\"3\"/>\n"
               "<circle cx=\"%.1f\" cy=\"%d\" r=\"4.5\" fill=\"%s\"/></g>\n",
            kb_axis_px(ax, r->lo), y, kb_axis_px(ax, r->hi), y, col,
            kb_axis_px(ax, r->ratio), y, col);
}

int kb_compare_svg(const kb_compare *c, FILE *f)
{
    int n = 0;
    for (size_t i = 0; i < c->nrows; i++)
        n += c->rows[i].compared;
    int bottom = TOP + (n ? n : 1) * ROW;
    int height = bottom + 40 + 18 * (int)(sizeof styles / sizeof styles[0]);
    kb_svg_box box = {PLOT_LEFT, PLOT_RIGHT, TOP, bottom};
    kb_axis ax = make_axis(c, &box);
    kb_svg_begin(f, WIDTH, height);
    fprintf(f, "<text x=\"20\" y=\"20\" font-size=\"14\">Speed ratio A/B = A's median "
               "time / B's (above 1: B faster), with its 95 %% Hodges-Lehmann "
               "interval, log axis</text>\n");
    ticks(f, &ax, &box);
    int y = TOP + ROW / 2;
    for (size_t i = 0; i < c->nrows; i++)
        if (c->rows[i].compared) {
            case_row(f, &ax, &c->rows[i], y);
            y += ROW;
        }
    if (!n)
        fprintf(f, "<text x=\"%d\" y=\"%d\">no case was compared</text>\n",
                PLOT_LEFT, TOP + ROW / 2);
    for (size_t i = 0; i < sizeof styles / sizeof styles[0]; i++) {
        int ly = bottom + 40 + 18 * (int)i;
        fprintf(f, "<circle cx=\"%d\" cy=\"%d\" r=\"4.5\" fill=\"%s\"/>"
                   "<text x=\"%d\" y=\"%d\">",
                PLOT_LEFT, ly - 4, styles[i].colour, PLOT_LEFT + 10, ly);
        kb_xml_escape(f, styles[i].legend);
        fputs("</text>\n", f);
    }
    return kb_svg_end(f);
}
