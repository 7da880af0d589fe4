/* merge_svg.c - the merge figure: one strip per case, one dot per node at
 * its GFLOP/s over the case's median (one axis for every case), the band
 * that is not an outlier shaded, outliers coloured and labelled with the
 * node; a last strip holds each node's overall geometric mean. */
#include "drivers/merge/merge.h"

#include "drivers/common/escape.h"
#include "drivers/common/svg_axes.h"

#include <math.h>
#include <string.h>

/* Geometry, in SVG user units. */
enum { WIDTH = 1000, LEFT = 340, RIGHT = 860, TOP = 80, ROW = 24, FOOT = 60,
       LABEL_MAX = 52 };
/* Okabe-Ito: vermillion slow, blue fast, grey the rest. */
static const char *const SLOW = "#D55E00", *const FAST = "#0072B2", *const PLAIN = "#555";

typedef struct {
    kb_axis x;                   /* the ratio axis, on whole ticks */
    double step;                 /* its tick step */
} axis;

static double px(const axis *a, double r)
{
    return kb_axis_px(&a->x, r);   /* off-scale values sit on the edge */
}

/* 0.8 to 1.2 at least, widened to hold every dot, on whole ticks of a
 * round step (at most 10 steps before widening); never below 0. */
static axis fit(const kb_merge *m, const kb_svg_box *box)
{
    double lo = 0.8, hi = 1.2;
    for (size_t c = 0; c < m->ncases; c++)
        for (size_t i = 0; i < m->nnodes; i++) {
            double r = kb_merge_cell_at(m, c, i)->gflops / m->cases[c].median;
            if (isfinite(r))
                lo = fmin(lo, r), hi = fmax(hi, r);
        }
    for (size_t i = 0; i < m->nnodes; i++)
        if (isfinite(m->nodes[i].relative))
            lo = fmin(lo, m->nodes[i].relative), hi = fmax(hi, m->nodes[i].relative);
    axis a = {kb_axis_x(false, fmax(0, lo), hi, box), 0};
    a.step = kb_axis_step(&a.x, 10);
    kb_axis_widen(&a.x, a.step);
    return a;
}

/* s, cut at LABEL_MAX bytes on a UTF-8 character boundary, escaped. */
static void short_label(FILE *f, const char *s)
{
    char buf[LABEL_MAX + 4];
    size_t n = strlen(s);
    if (n <= LABEL_MAX) {
        kb_xml_escape(f, s);
        return;
    }
    n = LABEL_MAX;
    while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
        n--;
    memcpy(buf, s, n);
    strcpy(buf + n, "...");
    kb_xml_escape(f, buf);
}

static void frame(FILE *f, const kb_merge *m, const axis *a, const kb_svg_box *box)
{
    /* the 1.0 line (a node at the case's median) darker */
    static const kb_tick_style st = {"stroke=\"#e4e4e4\"", 1, "stroke=\"#999\"", 6, 16};
    double t[32];
    fprintf(f, "<text x=\"20\" y=\"30\" font-size=\"17\" font-weight=\"bold\">kbench "
            "merge: %zu nodes, %zu cases</text>\n", m->nnodes, m->ncases);
    fprintf(f, "<text x=\"20\" y=\"52\" font-size=\"12\">Dot: a node's GFLOP/s / the "
            "case median. Shaded: |z| &lt;= %g. <tspan fill=\"%s\">Slow</tspan> and "
            "<tspan fill=\"%s\">fast</tspan> outliers labelled.</text>\n",
            m->zmax, SLOW, FAST);
    fprintf(f, "<g class=\"axis\" font-size=\"11\" fill=\"#222\">\n");
    kb_svg_ticks(f, &a->x, box, t, kb_axis_ticks(&a->x, a->step, t, 32), &st);
    kb_svg_axis_title(f, &a->x, box, 36, 13,
                      "GFLOP/s / the case's median over nodes");
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\">median GFLOP/s</text>\n</g>\n",
            RIGHT + 12, TOP - 10);
}

/* One dot: grey, or coloured and labelled with its node when flagged. */
static void dot(FILE *f, const axis *a, double y, double r, const char *node,
                double gflops, double z, kb_merge_flag flag)
{
    double x = px(a, r);
    fprintf(f, "<g class=\"dot%s\"><title>", flag ? " outlier" : "");
    kb_xml_escape(f, node);
    if (isfinite(gflops))
        fprintf(f, ": %.4g GFLOP/s, %.3gx the median", gflops, r);
    else
        fprintf(f, ": %.3gx the case medians", r);
    if (isfinite(z))
        fprintf(f, ", z %.2f", z);
    fprintf(f, "</title><circle cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" fill=\"%s\" "
            "fill-opacity=\"%s\"/>", x, y, flag ? 5 : 4,
            flag < 0 ? SLOW : flag > 0 ? FAST : PLAIN, flag ? "1" : "0.6");
    if (flag) {
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"%s\">", x + 7,
                y - 5, flag < 0 ? SLOW : FAST);
        kb_xml_escape(f, node);
        fprintf(f, "</text>");
    }
    fprintf(f, "</g>\n");
}

/* The strip's name on the left, its median (or why none) on the right. */
static void strip_text(FILE *f, double y, const char *label, const char *right)
{
    fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\"><title>",
            LEFT - 10, y + 4);
    kb_xml_escape(f, label);
    fprintf(f, "</title>");
    short_label(f, label);
    fprintf(f, "</text><text x=\"%d\" y=\"%.1f\" font-size=\"11\">%s</text>\n",
            RIGHT + 12, y + 4, right);
}

static void case_strip(FILE *f, const kb_merge *m, const axis *a, size_t c, double y)
{
    const kb_merge_case *k = &m->cases[c];
    char right[48];
    if (k->ntimed == 0)
        snprintf(right, sizeof right, "no figures");
    else
        snprintf(right, sizeof right, "%.4g%s", k->median, k->judged ? "" : " (not judged)");
    fprintf(f, "<g class=\"strip\">\n");
    if (k->judged) {
        double half = m->zmax * k->spread / k->median;
        double x0 = px(a, 1 - half), x1 = px(a, 1 + half);
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" "
                "fill=\"#009E73\" fill-opacity=\"0.15\"/>\n", x0, y - ROW / 2 + 3, x1 - x0,
                ROW - 6);
    }
    strip_text(f, y, k->label, right);
    for (size_t i = 0; i < m->nnodes; i++) {
        const kb_merge_cell *cl = kb_merge_cell_at(m, c, i);
        if (!isnan(cl->gflops))
            dot(f, a, y, cl->gflops / k->median, m->nodes[i].name, cl->gflops, cl->z,
                cl->flag);
    }
    fprintf(f, "</g>\n");
}

/* The overall strip: each node's geometric mean, flagged by its median z. */
static void overall_strip(FILE *f, const kb_merge *m, const axis *a, double y)
{
    fprintf(f, "<g class=\"strip overall\">\n<line x1=\"20\" y1=\"%.1f\" x2=\"%d\" "
            "y2=\"%.1f\" stroke=\"#999\"/>\n", y - ROW / 2, WIDTH - 20, y - ROW / 2);
    strip_text(f, y, "overall (geometric mean)", "");
    for (size_t i = 0; i < m->nnodes; i++) {
        const kb_merge_node *n = &m->nodes[i];
        if (n->njudged > 0)
            dot(f, a, y, n->relative, n->name, NAN, n->z, n->flag);
    }
    fprintf(f, "</g>\n");
}

int kb_merge_write_svg(FILE *f, const kb_merge *m)
{
    int bottom = TOP + (int)(m->ncases + 1) * ROW;
    kb_svg_box box = {LEFT, RIGHT, TOP, bottom};
    axis a = fit(m, &box);
    kb_svg_begin(f, WIDTH, bottom + FOOT);
    frame(f, m, &a, &box);
    for (size_t c = 0; c < m->ncases; c++)
        case_strip(f, m, &a, c, TOP + ROW / 2.0 + (double)c * ROW);
    overall_strip(f, m, &a, TOP + ROW / 2.0 + (double)m->ncases * ROW);
    return kb_svg_end(f);
}
