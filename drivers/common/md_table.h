/* md_table.h - Markdown tables written one way for every report (report,
 * compare, merge): "| a | b |" rows, a rule row under the header, cells
 * from input files escaped with kb_md_escape. */
#ifndef KB_MD_TABLE_H
#define KB_MD_TABLE_H

#include <stdio.h>

/* The rule row under a header of n columns.  align is NULL for "---"
 * under every column, or one character per column, the last repeated for
 * the columns beyond it: 'r' right-aligns ("---:"), any other leaves
 * "---"; "lr" is a left column then right-aligned ones.  Can't fail (a
 * write error stays in ferror(f)). */
void kb_md_table_rule(FILE *f, int n, const char *align);

/* The header row of n cells (escaped) and its rule (kb_md_table_rule).
 * Can't fail. */
void kb_md_table_head(FILE *f, const char *const *cells, int n, const char *align);

/* A body row of n cells, each escaped.  Can't fail. */
void kb_md_table_row(FILE *f, const char *const *cells, int n);

/* A row written cell by cell, for cells that carry Markdown of their own
 * (bold, arrows): kb_md_row_begin, then kb_md_cell (escaped text) or
 * kb_md_cellf (Markdown as formatted, not escaped) per cell, then
 * kb_md_row_end.  Every cell is " TEXT |", so an empty one is "|  |".
 * Can't fail. */
void kb_md_row_begin(FILE *f);
void kb_md_cell(FILE *f, const char *text);
__attribute__((format(printf, 2, 3)))
void kb_md_cellf(FILE *f, const char *fmt, ...);
void kb_md_row_end(FILE *f);

#endif
