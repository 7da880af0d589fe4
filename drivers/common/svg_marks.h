/* svg_marks.h - the point markers every kbench chart draws, one shape per
 * kb_mark of the kernel table (kernels/kernel_table.h). */
#ifndef KB_SVG_MARKS_H
#define KB_SVG_MARKS_H

#include "kernels/kernel_table.h"

#include <stdio.h>

/* One marker centred on (x, y), about 12 units across, with style (SVG
 * attributes: fill, stroke) inside the element.  mark < 0 draws a cross,
 * for a kernel the table does not know.  Can't fail (a write error stays
 * in ferror(f)). */
void kb_svg_marker(FILE *f, int mark, double x, double y, const char *style);

#endif
