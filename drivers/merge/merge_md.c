/* merge_md.c - the merged table as Markdown: the rule that flags outliers
 * (stated with its threshold), the node x case table with an overall row,
 * then every outlier, unjudged, missing, unpassed and duplicate case. */
#include "drivers/merge/merge.h"
#include "drivers/common/escape.h"

#include <math.h>
#include <string.h>

/* GFLOP/s with three or so significant figures, "-" when not finite. */
static const char *num(char *buf, size_t len, double v)
{
    if (!isfinite(v))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, fabs(v) >= 100 ? "%.0f" : fabs(v) >= 1 ? "%.2f" : "%.3g", v);
    return buf;
}

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
        fputs(" missing |", f);
    else if (isnan(c->gflops))
        fprintf(f, " %s |", strcmp(c->rc->status, "PASSED") ? c->rc->status : "no figure");
    else if (c->flag)
        fprintf(f, " **%s%s** |", num(b, sizeof b, c->gflops), arrow(c->flag));
    else
        fprintf(f, " %s |", num(b, sizeof b, c->gflops));
}

static void table(FILE *f, const kb_merge *m)
{
    char b[32], s[32];
    fputs("| case |", f);
    for (size_t i = 0; i < m->nnodes; i++) {
        fputc(' ', f);
        kb_md_escape(f, m->nodes[i].name);
        fputs(" |", f);
    }
    fputs(" median | spread |\n|---|", f);
    for (size_t i = 0; i < m->nnodes; i++)
        fputs("---:|", f);
    fputs("---:|---:|\n", f);
    for (size_t c = 0; c < m->ncases; c++) {
        const kb_merge_case *k = &m->cases[c];
        fputs("| ", f);
        kb_md_escape(f, k->label);
        fputs(" |", f);
        for (size_t i = 0; i < m->nnodes; i++)
            cell(f, kb_merge_cell_at(m, c, i));
        fprintf(f, " %s | %s |\n", num(b, sizeof b, k->median),
                k->judged ? num(s, sizeof s, k->spread) : "not judged");
    }
    fputs("| **overall** |", f);
    for (size_t i = 0; i < m->nnodes; i++) {
        const kb_merge_node *n = &m->nodes[i];
        if (n->njudged == 0)
            fputs(" - |", f);
        else
            fprintf(f, " %s%.2fx z %.1f%s%s |", n->flag ? "**" : "", n->relative, n->z,
                    arrow(n->flag), n->flag ? "**" : "");
    }
    fputs(" | |\n\n", f);
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
                    kb_merge_flag_name(cl->flag), num(x, sizeof x, cl->gflops),
                    num(med, sizeof med, m->cases[c].median),
                    num(s, sizeof s, m->cases[c].spread), cl->z);
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
    fputs("## Nodes\n\n| node | file | cases |\n|---|---|---:|\n", f);
    for (size_t i = 0; i < m->nnodes; i++) {
        fputs("| ", f);
        kb_md_escape(f, m->nodes[i].name);
        fputs(" | ", f);
        kb_md_escape(f, m->nodes[i].file->path);
        fprintf(f, " | %zu |\n", m->nodes[i].file->ncases);
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
