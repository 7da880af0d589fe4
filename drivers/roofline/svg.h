/* svg.h - the roofline chart as a self-contained SVG: log-log axes with
 * decade ticks, labelled compute (horizontal, one colour per precision)
 * and memory (diagonal) ceilings, one point per case (the colour of its
 * precision, so that it sits under the roof of its colour; marker per
 * kernel), a legend, and up to two overlaid result sets in distinct
 * styles. */
#ifndef KB_SVG_H
#define KB_SVG_H

#include "machine/ceilings/ceilings.h"

#include <stdbool.h>
#include <stdio.h>

#define KB_SVG_MAX_SERIES 2

typedef struct {
    double ai, gflops;
    const char *backend, *kernel;
    const char *dtype;        /* the record's: "f32", "bf16:bf16:f32" */
    const char *label;        /* tooltip: "resnet50 res2a_branch2a" */
    int series;               /* 0 or 1: which result set */
    bool above_roof;
} kb_svg_point;

typedef struct {
    const char *title;
    int nseries;              /* 1 or 2 */
    const char *series_names[KB_SVG_MAX_SERIES];
    /* ceilings drawn per series (NULL: none); series 1's dashed when it
     * differs from series 0's */
    const kb_device *devices[KB_SVG_MAX_SERIES];
    const char *no_roofs;     /* shown when devices[0] is NULL: why */
} kb_svg_chart;

/* Write the chart to f.  Each point is one element of class "point" (the
 * tests count them).  Points with a non-positive AI or GFLOP/s cannot sit
 * on log axes and are left out.  Returns the number of points drawn, or
 * -1 when writing to f fails. */
int kb_svg_write(FILE *f, const kb_svg_chart *chart, const kb_svg_point *pts,
                 int n);

#endif
