/* report_md.c - `kbench report`'s document as Markdown (report.md): the
 * tables through the shared Markdown table writer, the charts linked as
 * the SVG files written beside it (report.h). */
#include "drivers/report/report.h"

#include "drivers/common/escape.h"
#include "drivers/common/md_table.h"

static void begin(FILE *f)
{
    fputs("# kbench roofline report\n", f);
}

static void end(FILE *f)
{
    (void)f;   /* Markdown has nothing to close */
}

static void heading(FILE *f, int level, const char *s)
{
    fprintf(f, "\n%s ", level == 2 ? "##" : "###");
    kb_md_escape(f, s);
    fputs("\n\n", f);
}

static void para(FILE *f, const char *s)
{
    kb_md_escape(f, s);
    fputs("\n\n", f);
}

static void list_begin(FILE *f)
{
    (void)f;   /* a Markdown list is its items */
}

static void item(FILE *f, const char *s)
{
    fputs("- ", f);
    kb_md_escape(f, s);
    fputc('\n', f);
}

/* A blank line ends a list or a table. */
static void blank(FILE *f)
{
    fputc('\n', f);
}

static void table_head(FILE *f, const char *const *cells, int n)
{
    kb_md_table_head(f, cells, n, NULL);
}

static void figure(FILE *f, const char *alt, const char *file, const char *svg)
{
    (void)svg;   /* the chart is its own file */
    fputs("![", f);
    kb_md_escape(f, alt);
    fprintf(f, "](%s)\n\n", file);
}

const kb_report_format kb_report_md = {
    .begin = begin,
    .end = end,
    .heading = heading,
    .para = para,
    .list_begin = list_begin,
    .item = item,
    .list_end = blank,
    .table_head = table_head,
    .table_row = kb_md_table_row,
    .table_end = blank,
    .figure = figure,
};
