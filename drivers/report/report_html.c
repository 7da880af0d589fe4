/* report_html.c - `kbench report`'s document as self-contained HTML
 * (report.html): the same sections as the Markdown, text XML-escaped,
 * the charts inline.  Its own writer: HTML tables and lists are elements,
 * not Markdown's rows (report.h). */
#include "drivers/report/report.h"

#include "drivers/common/escape.h"

static void begin(FILE *f)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>"
          "<title>kbench roofline report</title>\n<style>body{font-family:Helvetica,"
          "Arial,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;"
          "font-size:13px}td,th{border:1px solid #bbb;padding:3px 6px}"
          "th{background:#eee}svg{max-width:100%;height:auto}</style></head>\n<body>\n"
          "<h1>kbench roofline report</h1>\n", f);
}

static void end(FILE *f)
{
    fputs("</body></html>\n", f);
}

/* s inside the element tag: <tag>s</tag>, then end. */
static void element(FILE *f, const char *tag, const char *s, const char *end)
{
    fprintf(f, "<%s>", tag);
    kb_xml_escape(f, s);
    fprintf(f, "</%s>%s", tag, end);
}

static void heading(FILE *f, int level, const char *s)
{
    element(f, level == 2 ? "h2" : "h3", s, "\n");
}

static void para(FILE *f, const char *s)
{
    element(f, "p", s, "\n");
}

static void list_begin(FILE *f)
{
    fputs("<ul>\n", f);
}

static void item(FILE *f, const char *s)
{
    element(f, "li", s, "\n");
}

static void list_end(FILE *f)
{
    fputs("</ul>\n", f);
}

static void row(FILE *f, const char *cell_tag, const char *const *cells, int n)
{
    fputs("<tr>", f);
    for (int i = 0; i < n; i++)
        element(f, cell_tag, cells[i], "");
    fputs("</tr>\n", f);
}

static void table_head(FILE *f, const char *const *cells, int n)
{
    fputs("<table>\n", f);
    row(f, "th", cells, n);
}

static void table_row(FILE *f, const char *const *cells, int n)
{
    row(f, "td", cells, n);
}

static void table_end(FILE *f)
{
    fputs("</table>\n", f);
}

static void figure(FILE *f, const char *alt, const char *file, const char *svg)
{
    (void)alt, (void)file;   /* self-contained: the chart itself */
    fputs(svg, f);
}

const kb_report_format kb_report_html = {
    .begin = begin,
    .end = end,
    .heading = heading,
    .para = para,
    .list_begin = list_begin,
    .item = item,
    .list_end = list_end,
    .table_head = table_head,
    .table_row = table_row,
    .table_end = table_end,
    .figure = figure,
};
