/* svg_axes.c - chart documents, axes, ticks and grids (svg_axes.h). */
#include "drivers/common/svg_axes.h"

#include "drivers/common/escape.h"

#include <math.h>

/* Ends and ticks within this many steps of a whole step count as on it:
 * 0.8 / 0.05 is 16.000000000000004 in doubles. */
#define STEP_EPS 1e-9

kb_axis kb_axis_x(bool log, double lo, double hi, const kb_svg_box *box)
{
    return (kb_axis){log, false, lo, hi, box->left, box->right};
}

kb_axis kb_axis_y(bool log, double lo, double hi, const kb_svg_box *box)
{
    return (kb_axis){log, true, lo, hi, box->bottom, box->top};
}

/* v in the axis's scale: log10 on a log axis. */
static double scaled(const kb_axis *a, double v)
{
    return a->log ? log10(v) : v;
}

static double unscaled(const kb_axis *a, double s)
{
    return a->log ? pow(10, s) : s;
}

double kb_axis_px(const kb_axis *a, double v)
{
    double s0 = scaled(a, a->lo), s1 = scaled(a, a->hi);
    if (!(s1 > s0))
        return a->p0;
    /* fmax first: NaN, and log10 of 0 or less, land on the lo end */
    double s = fmin(fmax(scaled(a, v), s0), s1);
    return a->p0 + (a->p1 - a->p0) * (s - s0) / (s1 - s0);
}

double kb_axis_scale(const kb_axis *a)
{
    double s0 = scaled(a, a->lo), s1 = scaled(a, a->hi);
    return s1 > s0 ? (a->p1 - a->p0) / (s1 - s0) : 0;
}

double kb_axis_step(const kb_axis *a, int max_steps)
{
    double span = scaled(a, a->hi) - scaled(a, a->lo);
    if (a->log) {
        /* factors with round powers, 1 among them, equal steps on the axis */
        static const double factors[] = {1.01, 1.02, 1.05, 1.1, 1.25, 1.5, 2,
                                         5, 10, 100, 1e4};
        size_t k = 0;
        while (k + 1 < sizeof factors / sizeof factors[0] &&
               span / log10(factors[k]) > max_steps)
            k++;
        return factors[k];
    }
    if (!(span > 0))
        return 1;
    /* the mantissas of a round step, over one decade of span/max_steps:
     * 10 always fits */
    static const double mantissas[] = {1, 2, 2.5, 5, 10};
    int e = (int)floor(log10(span / max_steps));
    double step = 10;
    for (size_t i = 0; i < sizeof mantissas / sizeof mantissas[0]; i++) {
        /* divided by an exact power of ten, so that 0.05 is the double
         * the literal 0.05 is */
        step = e < 0 ? mantissas[i] / pow(10, -e) : mantissas[i] * pow(10, e);
        if (span / step <= max_steps + STEP_EPS)
            break;
    }
    return step;
}

void kb_axis_widen(kb_axis *a, double step)
{
    double s = a->log ? log10(step) : step;
    a->lo = unscaled(a, floor(scaled(a, a->lo) / s + STEP_EPS) * s);
    a->hi = unscaled(a, ceil(scaled(a, a->hi) / s - STEP_EPS) * s);
}

void kb_axis_pad(kb_axis *a, double frac)
{
    double s0 = scaled(a, a->lo), s1 = scaled(a, a->hi);
    double pad = frac * (s1 - s0);
    a->lo = unscaled(a, s0 - pad);
    a->hi = unscaled(a, s1 + pad);
}

int kb_axis_ticks(const kb_axis *a, double step, double *t, int max)
{
    double s = a->log ? log10(step) : step;
    int n = 0;
    for (double i = ceil(scaled(a, a->lo) / s - STEP_EPS);
         i <= floor(scaled(a, a->hi) / s + STEP_EPS) && n < max; i++)
        /* + 0.0 turns a -0 (i == -0.0) into 0, labelled "0" not "-0" */
        t[n++] = a->log ? pow(step, i) : i * step + 0.0;
    return n;
}

void kb_svg_begin(FILE *f, int width, int height)
{
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" font-family=\"Helvetica, Arial, sans-serif\" "
            "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
            width, height, width, height);
}

int kb_svg_end(FILE *f)
{
    fputs("</svg>\n", f);
    return ferror(f) ? -1 : 0;
}

void kb_svg_box_draw(FILE *f, const kb_svg_box *b)
{
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
            "fill=\"none\" stroke=\"#222\"/>\n", b->left, b->top, b->right - b->left,
            b->bottom - b->top);
}

/* A tick's value: a whole number >= 1 in full (GFLOP/s 100000, not
 * 1e+05), else 3 significant digits (ratios 1.02, 0.85; 1e-05). */
static void tick_label(FILE *f, double v)
{
    if (fabs(v) >= 1 && fabs(v - round(v)) <= STEP_EPS * fabs(v))
        fprintf(f, "%.0f", v);
    else
        fprintf(f, "%.3g", v);
}

void kb_svg_ticks(FILE *f, const kb_axis *a, const kb_svg_box *b, const double *t,
                  int n, const kb_tick_style *st)
{
    for (int i = 0; i < n; i++) {
        double p = kb_axis_px(a, t[i]);
        const char *grid = fabs(t[i] - st->ref) <= STEP_EPS ? st->ref_grid : st->grid;
        if (a->vertical)
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" %s/>\n"
                    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
                    b->left - st->over, p, b->right, p, grid, b->left - st->gap, p + 4);
        else
            fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" %s/>\n"
                    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
                    p, b->top - st->over, p, b->bottom, grid, p, b->bottom + st->gap);
        tick_label(f, t[i]);
        fputs("</text>\n", f);
    }
}

void kb_svg_axis_title(FILE *f, const kb_axis *a, const kb_svg_box *b, double gap,
                       int font_size, const char *title)
{
    if (a->vertical)
        fprintf(f, "<text transform=\"translate(%.1f %.1f) rotate(-90)\" ",
                b->left - gap, (b->top + b->bottom) / 2);
    else
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" ", (b->left + b->right) / 2,
                b->bottom + gap);
    fprintf(f, "text-anchor=\"middle\" font-size=\"%d\">", font_size);
    kb_xml_escape(f, title);
    fputs("</text>\n", f);
}
