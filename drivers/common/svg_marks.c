/* svg_marks.c - the chart markers (svg_marks.h). */
#include "drivers/common/svg_marks.h"

void kb_svg_marker(FILE *f, int mark, double x, double y, const char *style)
{
    switch (mark) {
    case KB_MARK_CIRCLE:
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"6\" %s/>", x, y, style);
        break;
    case KB_MARK_SQUARE:
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"11\" height=\"11\" %s/>",
                x - 5.5, y - 5.5, style);
        break;
    case KB_MARK_TRIANGLE:
        fprintf(f, "<path d=\"M%.1f %.1fl7 12h-14z\" %s/>", x, y - 7, style);
        break;
    case KB_MARK_DIAMOND:
        fprintf(f, "<path d=\"M%.1f %.1fl7 7l-7 7l-7 -7z\" %s/>", x, y - 7, style);
        break;
    default:
        fprintf(f, "<path d=\"M%.1f %.1fl12 12m0 -12l-12 12\" %s/>", x - 6, y - 6,
                style);
    }
}
