/* merge_md.c - the merged table as Markdown: the rule that flags outliers
 * (stated with its threshold), the node x case table with an overall row,
 * then every outlier, unjudged, missing, unpassed and duplicate case. */
#include "drivers/merge/merge.h"
#include "drivers/common/escape.h"
#include "drivers/common/md_table.h"
#include "drivers/common/numfmt.h"

#include <math.h>
#include <string.h>

static const char *arrow(kb_merge_flag f)
{
    return f < 0 ? " ↓" : f > 0 ? " ↑" : "";
}

static void rule(FILE *f, const kb_merge *m, const char *svg_link)
{
    fprintf(f, "# kbench merge: %zu nodes, %zu cases\n\n", m->nnodes, m->ncases);
    fprintf(f,
        "Cells: each node's median GFLOP/s per case (a case that did not pass shows "
        "its status; `missing`: the node has no record of it). Outliers: robust "
        "z = (x - median over nodes) / spread, spread = max(1.4826 x MAD, %g %% of "
        "the median), flagged when **|z| > %g** (Iglewicz-Hoaglin): **bold ↓** "
        "slower, **bold ↑** faster. A case is judged when at least %d nodes timed "
        "it. Overall row: the node's geometric mean of x / case median over the "
        "judged cases, and the median of its per-case z, flagged with the same "
        "threshold (off on at least half its cases). Outliers do not change the "
        "exit code: `kbench check` gives the verdict.\n\n",
        100 * KB_MERGE_MIN_SPREAD, m->zmax, KB_MERGE_MIN_NODES);
    if (svg_link) {
        fputs("![Each case's nodes, relative to the case median](", f);
        kb_md_escape(f, svg_link);
        fputs(")\n\n", f);
    }
}

static void cell(FILE *f, const kb_merge_cell *c)
{
    char b[32];
    if (!c->rc)
        kb_md_cell(f, "missing");
    else if (isnan(c->gflops))
        kb_md_cell(f, strcmp(c->rc->status, "PASSED") ? c->rc->status : "no figure");
    else if (c->flag)
        kb_md_cellf(f, "**%s%s**", kb_fmt_num(b, sizeof b, c->gflops), arrow(c->flag));
    else
        kb_md_cell(f, kb_fmt_num(b, sizeof b, c->gflops));
}

static void table(FILE *f, const kb_merge *m)
{
    char b[32], s[32];
    kb_md_row_begin(f);
    kb_md_cell(f, "case");
    for (size_t i = 0; i < m->nnodes; i++)
        kb_md_cell(f, m->nodes[i].name);
    kb_md_cell(f, "median");
    kb_md_cell(f, "spread");
    kb_md_row_end(f);
    kb_md_table_rule(f, (int)m->nnodes + 3, "lr");
    for (size_t c = 0; c < m->ncases; c++) {
        const kb_merge_case *k = &m->cases[c];
        kb_md_row_begin(f);
        kb_md_cell(f, k->label);
        for (size_t i = 0; i < m->nnodes; i++)
            cell(f, kb_merge_cell_at(m, c, i));
        kb_md_cell(f, kb_fmt_num(b, sizeof b, k->median));
        kb_md_cell(f, k->judged ? kb_fmt_num(s, sizeof s, k->spread) : "not judged");
        kb_md_row_end(f);
    }
    kb_md_row_begin(f);
    kb_md_cellf(f, "**overall**");
    for (size_t i = 0; i < m->nnodes; i++) {
        const kb_merge_node *n = &m->nodes[i];
        if (n->njudged == 0)
            kb_md_cell(f, "-");
        else
            kb_md_cellf(f, "%s%.2fx z %.1f%s%s", n->flag ? "**" : "", n->relative, n->z,
                        arrow(n->flag), n->flag ? "**" : "");
    }
    kb_md_cell(f, "");   /* no median or spread of the overall row */
    kb_md_cell(f, "");
    kb_md_row_end(f);
    fputc('\n', f);
}

static void outliers(FILE *f, const kb_merge *m)
{
    char x[32], med[32], s[32];
    int n = 0;
    fprintf(f, "## Outliers (|z| > %g)\n\n", m->zmax);
    for (size_t i = 0; i < m->nnodes; i++) {
        const kb_merge_node *node = &m->nodes[i];
        if (!node->flag)
            continue;
        fputs("- ", f);
        kb_md_escape(f, node->name);
        fprintf(f, ": %s overall, %.2fx the case medians, median z %.1f over %d cases\n",
                kb_merge_flag_name(node->flag), node->relative, node->z, node->njudged);
        n++;
    }
    for (size_t c = 0; c < m->ncases; c++)
        for (size_t i = 0; i < m->nnodes; i++) {
            const kb_merge_cell *cl = kb_merge_cell_at(m, c, i);
            if (!cl->flag)
                continue;
            fputs("- ", f);
            kb_md_escape(f, m->nodes[i].name);
            fputs(" on ", f);
            kb_md_escape(f, m->cases[c].label);
            fprintf(f, ": %s, %s GFLOP/s against a median of %s (spread %s), z %.1f\n",
                    kb_merge_flag_name(cl->flag), kb_fmt_num(x, sizeof x, cl->gflops),
                    kb_fmt_num(med, sizeof med, m->cases[c].median),
                    kb_fmt_num(s, sizeof s, m->cases[c].spread), cl->z);
            n++;
        }
    fputs(n ? "\n" : "None.\n\n", f);
}

/* Cases too few nodes timed to judge; cases some nodes lack. */
static void gaps(FILE *f, const kb_merge *m)
{
    int n = 0;
    fputs("## Cases not judged or missing\n\n", f);
    for (size_t c = 0; c < m->ncases; c++) {
        const kb_merge_case *k = &m->cases[c];
        bool first = true;
        for (size_t i = 0; i < m->nnodes; i++) {
            if (kb_merge_cell_at(m, c, i)->rc)
                continue;
            if (first) {
                fputs("- ", f);
                kb_md_escape(f, k->label);
                fputs(": missing on ", f);
            } else {
                fputs(", ", f);
            }
            kb_md_escape(f, m->nodes[i].name);
            first = false;
        }
        if (!first) {
            fputs("\n", f);
            n++;
        }
        if (!k->judged) {
            fputs("- ", f);
            kb_md_escape(f, k->label);
            fprintf(f, ": not judged, %d node(s) timed it (at least %d needed)\n",
                    k->ntimed, KB_MERGE_MIN_NODES);
            n++;
        }
    }
    fputs(n ? "\n" : "None.\n\n", f);
}

/* Records that did not pass, and records given twice in one file. */
static void unpassed(FILE *f, const kb_merge *m)
{
    int n = 0;
    fputs("## Cases that did not pass\n\n", f);
    for (size_t c = 0; c < m->ncases; c++)
        for (size_t i = 0; i < m->nnodes; i++) {
            const kb_merge_cell *cl = kb_merge_cell_at(m, c, i);
            if (!cl->rc || !isnan(cl->gflops))
                continue;
            fputs("- ", f);
            kb_md_escape(f, m->nodes[i].name);
            fputs(" on ", f);
            kb_md_escape(f, m->cases[c].label);
            fprintf(f, ": %s%s", cl->rc->status, cl->rc->reason[0] ? ": " : "");
            kb_md_escape(f, cl->rc->reason);
            fputs("\n", f);
            n++;
        }
    for (size_t d = 0; d < m->ndups; d++) {
        const kb_merge_node *node = &m->nodes[m->dups[d].node];
        fprintf(f, "- %s:%ld: a second record of a case on ", node->file->path,
                m->dups[d].dup->line);
        kb_md_escape(f, node->name);
        fputs(", ignored (the first one is merged)\n", f);
        n++;
    }
    fputs(n ? "\n" : "None.\n\n", f);
}

static void nodes(FILE *f, const kb_merge *m)
{
    static const char *const head[] = {"node", "file", "cases"};
    fputs("## Nodes\n\n", f);
    kb_md_table_head(f, head, 3, "llr");
    for (size_t i = 0; i < m->nnodes; i++) {
        kb_md_row_begin(f);
        kb_md_cell(f, m->nodes[i].name);
        kb_md_cell(f, m->nodes[i].file->path);
        kb_md_cellf(f, "%zu", m->nodes[i].file->ncases);
        kb_md_row_end(f);
    }
    fputs("\n", f);
}

int kb_merge_write_md(FILE *f, const kb_merge *m, const char *svg_link)
{
    rule(f, m, svg_link);
    table(f, m);
    outliers(f, m);
    gaps(f, m);
    unpassed(f, m);
    nodes(f, m);
    return ferror(f) ? -1 : 0;
}
