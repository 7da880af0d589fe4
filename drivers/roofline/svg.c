/* svg.c - a tiny SVG writer for the roofline chart (svg.h). */
#include "drivers/roofline/svg.h"

#include "drivers/common/escape.h"
#include "drivers/common/svg_axes.h"
#include "drivers/common/svg_marks.h"
#include "drivers/roofline/placement.h"

#include <math.h>
#include <string.h>

/* Geometry, in SVG user units (pixels at 100 %). */
enum { WIDTH = 1000, HEIGHT = 640, LEFT = 80, RIGHT = 740, TOP = 50, BOTTOM = 570 };
static const kb_svg_box BOX = {LEFT, RIGHT, TOP, BOTTOM};

/* One colour per precision, for the cases and their compute roofs
 * (Okabe-Ito: distinct for colour-blind readers and in greyscale print);
 * a dtype kbench does not know is black. */
static const struct {
    const char *precision, *colour;
} precisions[] = {{"fp32", "#0072B2"}, {"fp64", "#D55E00"},
                  {"bf16", "#009E73"}, {"fp16", "#CC79A7"}};
#define NPRECISIONS (int)(sizeof precisions / sizeof precisions[0])
#define OTHER_COLOUR "#000000"

typedef struct {
    kb_axis x, y;                /* AI and GFLOP/s, whole decades */
    bool used[NPRECISIONS + 1];  /* precisions drawn; the last: unknown */
} frame;

static double px(const frame *fr, double x)
{
    return kb_axis_px(&fr->x, x);
}

static double py(const frame *fr, double y)
{
    return kb_axis_px(&fr->y, y);
}

static bool drawable(const kb_svg_point *p)
{
    return p->ai > 0 && p->gflops > 0 && isfinite(p->ai) && isfinite(p->gflops);
}

/* Index into precisions of a ceilings precision name ("fp32") or a
 * record dtype ("f32", "bf16:bf16:f32"); NPRECISIONS when unknown. */
static int precision_index(const char *name)
{
    const char *p = kb_roofline_precision(name);
    int i = 0;
    while (i < NPRECISIONS && !(p && strcmp(precisions[i].precision, p) == 0))
        i++;
    return i;
}

static const char *precision_colour(int i)
{
    return i < NPRECISIONS ? precisions[i].colour : OTHER_COLOUR;
}

/* Whole decades around every point, ceiling and ridge point, so nothing
 * falls off the chart. */
static void fit_axes(frame *fr, const kb_svg_chart *c, const kb_svg_point *pts, int n)
{
    double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
    for (int i = 0; i < n; i++) {
        if (!drawable(&pts[i]))
            continue;
        x0 = fmin(x0, pts[i].ai), x1 = fmax(x1, pts[i].ai);
        y0 = fmin(y0, pts[i].gflops), y1 = fmax(y1, pts[i].gflops);
    }
    for (int s = 0; s < c->nseries; s++) {
        const kb_device *d = c->devices[s];
        for (int i = 0; d && i < d->nceilings; i++) {
            const kb_ceiling *e = &d->ceilings[i];
            if (e->kind == KB_CEIL_COMPUTE) {
                y0 = fmin(y0, e->value), y1 = fmax(y1, e->value);
                continue;
            }
            for (int j = 0; j < d->nceilings; j++)   /* ridge points */
                if (d->ceilings[j].kind == KB_CEIL_COMPUTE) {
                    x0 = fmin(x0, d->ceilings[j].value / e->value);
                    x1 = fmax(x1, d->ceilings[j].value / e->value);
                }
        }
    }
    if (!isfinite(x0))
        x0 = 0.1, x1 = 100;
    if (!isfinite(y0))
        y0 = 1, y1 = 1000;
    fr->x = kb_axis_x(true, x0 / 2, x1 * 2, &BOX);
    fr->y = kb_axis_y(true, y0 / 2, y1 * 2, &BOX);
    kb_axis_widen(&fr->x, 10);
    kb_axis_widen(&fr->y, 10);
}

/* A grid line and a label per decade, the box, the axes' titles. */
static void axes(FILE *f, const frame *fr)
{
    static const kb_tick_style xs = {"stroke=\"#ddd\"", NAN, NULL, 0, 20};
    static const kb_tick_style ys = {"stroke=\"#ddd\"", NAN, NULL, 0, 6};
    double t[64];
    fprintf(f, "<g class=\"axes\" font-size=\"13\" fill=\"#222\">\n");
    kb_svg_ticks(f, &fr->x, &BOX, t, kb_axis_ticks(&fr->x, 10, t, 64), &xs);
    kb_svg_ticks(f, &fr->y, &BOX, t, kb_axis_ticks(&fr->y, 10, t, 64), &ys);
    kb_svg_box_draw(f, &BOX);
    kb_svg_axis_title(f, &fr->x, &BOX, 45, 14,
                      "Arithmetic intensity (FLOP/byte, compulsory traffic)");
    kb_svg_axis_title(f, &fr->y, &BOX, LEFT - 22, 14, "Performance (GFLOP/s)");
    fprintf(f, "</g>\n");
}

/* One device's ceilings: a horizontal line per precision, labelled at the
 * right; a diagonal per memory level (its best kernel), from the left edge
 * to the highest compute ceiling, labelled along the line. */
static void ceilings(FILE *f, const frame *fr, const kb_device *d, const char *dash)
{
    double top = 0;
    for (int i = 0; i < d->nceilings; i++)
        if (d->ceilings[i].kind == KB_CEIL_COMPUTE)
            top = fmax(top, d->ceilings[i].value);
    double ymax = fr->y.hi, ymin = fr->y.lo, xmin = fr->x.lo, xmax = fr->x.hi;
    /* slope of a diagonal in pixels (one decade up per decade across),
     * for its label */
    double angle = atan2(kb_axis_scale(&fr->y), kb_axis_scale(&fr->x)) * 180 / M_PI;
    fprintf(f, "<g class=\"ceilings\" stroke=\"#555\" stroke-width=\"1.5\" "
            "stroke-dasharray=\"%s\" font-size=\"12\">\n", dash);
    for (int i = 0; i < d->nceilings; i++) {
        const kb_ceiling *e = &d->ceilings[i];
        if (e->kind == KB_CEIL_COMPUTE) {
            const char *colour = precision_colour(precision_index(e->level));
            double y = py(fr, e->value);
            fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\"/>\n",
                    LEFT, y, RIGHT, y, colour);
            fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" stroke=\"none\" "
                    "fill=\"%s\">", RIGHT - 4, y - 4, colour);
            kb_xml_escape(f, e->level);
            fprintf(f, " %.1f GFLOP/s</text>\n", e->value);
            continue;
        }
        if (kb_device_best(d, KB_CEIL_MEMORY, e->level) != e)
            continue;   /* one diagonal per level: its best kernel */
        double x0 = fmax(xmin, ymin / e->value);
        double x1 = fmin(xmax, (top > 0 ? top : ymax) / e->value);
        if (x1 <= x0)
            continue;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
                px(fr, x0), py(fr, x0 * e->value), px(fr, x1), py(fr, x1 * e->value));
        fprintf(f, "<text transform=\"translate(%.1f %.1f) rotate(%.1f)\" stroke=\"none\" "
                "fill=\"#222\">", px(fr, x0) + 8, py(fr, x0 * e->value) - 10, angle);
        kb_xml_escape(f, e->level);
        fprintf(f, " %.1f GB/s (", e->value);
        kb_xml_escape(f, e->kernel);
        fprintf(f, ")</text>\n");
    }
    fprintf(f, "</g>\n");
}

/* The marker of a kernel named in a record: its kernel table row's, a
 * cross for a name the table does not know. */
static void marker(FILE *f, const char *kernel, double x, double y, const char *style)
{
    int k = kb_kernel_find(kernel);
    kb_svg_marker(f, k < 0 ? -1 : (int)kb_kernel_table[k].mark, x, y, style);
}

/* Series 0 filled, series 1 hollow with a thick outline. */
static void point_style(char *buf, size_t len, const char *colour, int series)
{
    if (series == 0)
        snprintf(buf, len, "fill=\"%s\" stroke=\"#000\" stroke-width=\"0.6\"", colour);
    else
        snprintf(buf, len, "fill=\"#fff\" fill-opacity=\"0.6\" stroke=\"%s\" "
                 "stroke-width=\"2.2\"", colour);
}

static int points(FILE *f, frame *fr, const kb_svg_point *pts, int n)
{
    int drawn = 0;
    char style[160];
    fprintf(f, "<g class=\"points\">\n");
    for (int i = 0; i < n; i++) {
        const kb_svg_point *p = &pts[i];
        if (!drawable(p))
            continue;
        double x = px(fr, p->ai), y = py(fr, p->gflops);
        int prec = precision_index(p->dtype);
        fr->used[prec] = true;
        point_style(style, sizeof style, precision_colour(prec), p->series);
        fprintf(f, "<g class=\"point\"><title>");
        kb_xml_escape(f, p->label);
        fprintf(f, " (");
        kb_xml_escape(f, p->backend);
        fprintf(f, ", %s, ", p->kernel);
        kb_xml_escape(f, p->dtype);
        fprintf(f, "): %.3g GFLOP/s at AI %.3g%s</title>", p->gflops, p->ai,
                p->above_roof ? " - ABOVE ITS ROOF" : "");
        marker(f, p->kernel, x, y, style);
        if (p->above_roof)
            fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"11\" fill=\"none\" "
                    "stroke=\"#d00\" stroke-width=\"2\"/>", x, y);
        fprintf(f, "</g>\n");
        drawn++;
    }
    fprintf(f, "</g>\n");
    return drawn;
}

/* The legend, right of the plot: precisions drawn (colours), kernels
 * (markers), result sets (fill styles) when two, and the above-roof ring
 * if used. */
static void legend(FILE *f, const frame *fr, const kb_svg_chart *c, bool any_above)
{
    int x = RIGHT + 25, y = TOP + 10;
    char style[160];
    fprintf(f, "<g class=\"legend\" font-size=\"13\" fill=\"#222\">\n"
            "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">Precision</text>\n", x, y);
    for (int i = 0; i <= NPRECISIONS; i++) {
        if (!fr->used[i])
            continue;
        y += 20;
        fprintf(f, "<rect class=\"precision\" x=\"%d\" y=\"%d\" width=\"12\" "
                "height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">%s</text>\n",
                x, y - 10, precision_colour(i), x + 20, y,
                i < NPRECISIONS ? precisions[i].precision : "other");
    }
    y += 30;
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">Kernel</text>\n", x, y);
    point_style(style, sizeof style, "#888", 0);
    for (int i = 0; i < KB_KERNEL_COUNT; i++) {
        y += 20;
        kb_svg_marker(f, (int)kb_kernel_table[i].mark, x + 6, y - 4, style);
        fprintf(f, "<text x=\"%d\" y=\"%d\">%s</text>\n", x + 20, y,
                kb_kernel_table[i].name);
    }
    if (c->nseries > 1) {
        y += 30;
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">Results</text>\n", x, y);
        for (int s = 0; s < c->nseries; s++) {
            y += 20;
            point_style(style, sizeof style, "#555", s);
            kb_svg_marker(f, KB_MARK_CIRCLE, x + 6, y - 4, style);
            fprintf(f, "<text x=\"%d\" y=\"%d\">", x + 20, y);
            kb_xml_escape(f, c->series_names[s]);
            fprintf(f, "</text>\n");
        }
    }
    if (any_above) {
        y += 30;
        fprintf(f, "<circle cx=\"%d\" cy=\"%d\" r=\"8\" fill=\"none\" stroke=\"#d00\" "
                "stroke-width=\"2\"/><text x=\"%d\" y=\"%d\">above its roof:</text>"
                "<text x=\"%d\" y=\"%d\">counting/timing error</text>\n",
                x + 6, y - 4, x + 20, y, x + 20, y + 16);
    }
    fprintf(f, "</g>\n");
}

int kb_svg_write(FILE *f, const kb_svg_chart *c, const kb_svg_point *pts, int n)
{
    frame fr = {0};
    bool any_above = false;
    for (int i = 0; i < n; i++)
        any_above |= drawable(&pts[i]) && pts[i].above_roof;
    fit_axes(&fr, c, pts, n);
    kb_svg_begin(f, WIDTH, HEIGHT);
    fprintf(f, "<text x=\"%d\" y=\"30\" font-size=\"17\" font-weight=\"bold\">", LEFT);
    kb_xml_escape(f, c->title);
    fprintf(f, "</text>\n");
    axes(f, &fr);
    for (int s = 0; s < c->nseries; s++)
        if (c->devices[s] && (s == 0 || c->devices[s] != c->devices[0]))
            ceilings(f, &fr, c->devices[s], s == 0 ? "none" : "6 4");
    if (!c->devices[0] && (c->nseries < 2 || !c->devices[1])) {
        fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"14\" fill=\"#a00\">",
                LEFT + 10, TOP + 22);
        kb_xml_escape(f, c->no_roofs ? c->no_roofs : "No ceilings: no roofs drawn");
        fprintf(f, "</text>\n");
    }
    int drawn = points(f, &fr, pts, n);
    legend(f, &fr, c, any_above);
    return kb_svg_end(f) ? -1 : drawn;
}
