/* outliers.c - robust z-scores over nodes (Iglewicz and Hoaglin's
 * modified z): per case z = (x - median over nodes) / spread, spread =
 * max(1.4826 x MAD, 1 % of the median); per node, the median of its
 * per-case z, so a node is an outlier overall when it is off on at least
 * half of its cases, and a node slow on one case only is flagged there. */
#include "drivers/merge/merge.h"

#include "drivers/stats.h"

#include <math.h>
#include <stdlib.h>

const char *kb_merge_flag_name(kb_merge_flag f)
{
    return f < 0 ? "slow" : f > 0 ? "fast" : NULL;
}

static kb_merge_flag flag_of(double z, double zmax)
{
    return !(fabs(z) > zmax) ? 0 : z < 0 ? -1 : 1;
}

/* A cell's figure: the median GFLOP/s of a PASSED case with samples.  A
 * MISTRUSTED figure is above its roof, so it judges nothing. */
static double figure(const kb_result_case *rc)
{
    if (!rc || !kb_result_case_timed(rc, false) || !(rc->gflops > 0) ||
        !isfinite(rc->gflops))
        return NAN;
    return rc->gflops;
}

/* Median and spread of case c over its timed nodes, then each cell's z.
 * xs holds nnodes values of scratch. */
static void judge_case(kb_merge *m, size_t c, double *xs)
{
    kb_merge_case *k = &m->cases[c];
    int n = 0;
    for (size_t i = 0; i < m->nnodes; i++) {
        kb_merge_cell *cell = kb_merge_cell_at(m, c, i);
        cell->gflops = figure(cell->rc);
        cell->z = NAN;
        cell->flag = 0;
        if (!isnan(cell->gflops))
            xs[n++] = cell->gflops;
    }
    k->ntimed = n;
    k->median = n ? kb_median(xs, n) : NAN;
    k->spread = n ? fmax(kb_mad(xs, n), KB_MERGE_MIN_SPREAD * k->median) : NAN;
    k->judged = n >= KB_MERGE_MIN_NODES && k->spread > 0;   /* false on NAN */
    for (size_t i = 0; k->judged && i < m->nnodes; i++) {
        kb_merge_cell *cell = kb_merge_cell_at(m, c, i);
        if (isnan(cell->gflops))
            continue;
        cell->z = (cell->gflops - k->median) / k->spread;
        cell->flag = flag_of(cell->z, m->zmax);
    }
}

/* Node i over the judged cases it has a figure for.  zs holds ncases
 * values of scratch. */
static void judge_node(kb_merge *m, size_t i, double *zs)
{
    kb_merge_node *node = &m->nodes[i];
    double logsum = 0;
    int n = 0;
    for (size_t c = 0; c < m->ncases; c++) {
        const kb_merge_cell *cell = kb_merge_cell_at(m, c, i);
        if (isnan(cell->z))
            continue;
        zs[n++] = cell->z;
        logsum += log(cell->gflops / m->cases[c].median);
    }
    node->njudged = n;
    node->relative = n ? exp(logsum / n) : NAN;
    node->z = n ? kb_median(zs, n) : NAN;
    node->flag = flag_of(node->z, m->zmax);
}

int kb_merge_outliers(kb_merge *m, double zmax)
{
    size_t most = m->nnodes > m->ncases ? m->nnodes : m->ncases;
    double *scratch = malloc((most + 1) * sizeof *scratch);
    if (!scratch)
        return -1;
    m->zmax = zmax;
    for (size_t c = 0; c < m->ncases; c++)
        judge_case(m, c, scratch);
    for (size_t i = 0; i < m->nnodes; i++)
        judge_node(m, i, scratch);
    free(scratch);
    return 0;
}
