/* svg_axes.h - what every kbench chart shares around its marks: the SVG
 * document, the plot box, log and linear axes (value to pixel, round
 * ticks), and the grid lines, tick labels and titles drawn from them. */
#ifndef KB_SVG_AXES_H
#define KB_SVG_AXES_H

#include <stdbool.h>
#include <stdio.h>

/* The plot box, in SVG user units (pixels at 100 %); y grows downwards. */
typedef struct {
    double left, right, top, bottom;
} kb_svg_box;

/* One axis: the values at its two ends and where they fall.  A log axis
 * is base 10 and its ends are > 0. */
typedef struct {
    bool log;
    bool vertical;           /* a y axis: lo at the box's bottom */
    double lo, hi;           /* the values at the ends, lo < hi */
    double p0, p1;           /* their pixels */
} kb_axis;

/* An x axis from lo (at box->left) to hi (at box->right), or a y axis
 * from lo (at box->bottom) to hi (at box->top).  lo == hi gives a
 * degenerate axis (see kb_axis_px).  Can't fail; the caller keeps the
 * ends finite, and > 0 on a log axis. */
kb_axis kb_axis_x(bool log, double lo, double hi, const kb_svg_box *box);
kb_axis kb_axis_y(bool log, double lo, double hi, const kb_svg_box *box);

/* The pixel of v.  Values off the axis sit on its nearest end (so do 0
 * and negatives on a log axis, and NaN on the lo end); a degenerate axis
 * puts everything at p0.  Can't fail. */
double kb_axis_px(const kb_axis *a, double v);

/* Pixels per unit of the axis's scale: per decade on a log axis, per
 * unit of value on a linear one; negative on a y axis; 0 when
 * degenerate.  For lengths (a bar's width) and slopes. */
double kb_axis_scale(const kb_axis *a);

/* A round tick step giving at most max_steps steps over the axis: on a
 * linear axis 1, 2, 2.5 or 5 times a power of ten; on a log axis a
 * factor whose powers are the ticks, from 1.01 to 1e4 (10: decades).
 * Can't fail (a span too wide for the list gets its largest factor). */
double kb_axis_step(const kb_axis *a, int max_steps);

/* Each end moved out to the nearest whole step (a multiple on a linear
 * axis, a power of the factor on a log one); an end within 1e-9 of a
 * step stays.  Can't fail. */
void kb_axis_widen(kb_axis *a, double step);

/* Each end moved out by frac of the span, in the axis's scale (on a log
 * axis, a fraction of the decades).  Can't fail. */
void kb_axis_pad(kb_axis *a, double frac);

/* The ticks of step on the axis (multiples, or powers of the factor),
 * ends included, increasing, into t: at most max of them, the rest left
 * out.  Returns how many.  Can't fail. */
int kb_axis_ticks(const kb_axis *a, double step, double *t, int max);

/* The start of the document, width x height, on white, with kbench's
 * font; ended by kb_svg_end.  Can't fail (a write error stays in
 * ferror(f)). */
void kb_svg_begin(FILE *f, int width, int height);

/* The end of the document.  Returns 0, or -1 when any write to f
 * failed. */
int kb_svg_end(FILE *f);

/* The plot box's outline.  Can't fail (as kb_svg_begin). */
void kb_svg_box_draw(FILE *f, const kb_svg_box *box);

/* How kb_svg_ticks draws. */
typedef struct {
    const char *grid;        /* a grid line's attributes: stroke="#ddd" */
    double ref;              /* the value whose line stands out (1: no
                              * change); NaN for none */
    const char *ref_grid;    /* that line's attributes */
    double over;             /* grid lines start this far outside the box,
                              * as tick marks: above it, or left of it */
    double gap;              /* from the box's edge to a label's baseline
                              * (x), or its end (y) */
} kb_tick_style;

/* A grid line across the box and a label at each of the n ticks t of
 * axis a: vertical lines labelled under the box for an x axis,
 * horizontal lines labelled left of it for a y axis.  A label has 3
 * significant digits, a whole number >= 1 all its digits.  Can't fail
 * (as kb_svg_begin). */
void kb_svg_ticks(FILE *f, const kb_axis *a, const kb_svg_box *box,
                  const double *t, int n, const kb_tick_style *st);

/* The axis's title, escaped, font_size units high: centred under the box
 * with its baseline gap below it (x), or turned upwards and centred
 * gap left of it (y).  Can't fail (as kb_svg_begin). */
void kb_svg_axis_title(FILE *f, const kb_axis *a, const kb_svg_box *box,
                       double gap, int font_size, const char *title);

#endif
