/* md_table.c - the Markdown table writer (md_table.h). */
#include "drivers/common/md_table.h"

#include "drivers/common/escape.h"

#include <stdarg.h>
#include <string.h>

void kb_md_row_begin(FILE *f)
{
    fputc('|', f);
}

void kb_md_cell(FILE *f, const char *text)
{
    fputc(' ', f);
    kb_md_escape(f, text);
    fputs(" |", f);
}

void kb_md_cellf(FILE *f, const char *fmt, ...)
{
    va_list ap;
    fputc(' ', f);
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputs(" |", f);
}

void kb_md_row_end(FILE *f)
{
    fputc('\n', f);
}

void kb_md_table_row(FILE *f, const char *const *cells, int n)
{
    kb_md_row_begin(f);
    for (int i = 0; i < n; i++)
        kb_md_cell(f, cells[i]);
    kb_md_row_end(f);
}

void kb_md_table_rule(FILE *f, int n, const char *align)
{
    size_t last = align && align[0] ? strlen(align) - 1 : 0;
    fputc('|', f);
    for (int i = 0; i < n; i++) {
        char a = align && align[0] ? align[(size_t)i < last ? (size_t)i : last] : 'l';
        fputs(a == 'r' ? "---:|" : "---|", f);
    }
    fputc('\n', f);
}

void kb_md_table_head(FILE *f, const char *const *cells, int n, const char *align)
{
    kb_md_table_row(f, cells, n);
    kb_md_table_rule(f, n, align);
}
