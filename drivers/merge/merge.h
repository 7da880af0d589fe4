/* merge.h - `kbench merge`: many nodes' result files as one node x case
 * table, with outlier nodes flagged by a robust z-score, written as
 * Markdown, SVG and JSON (results/SCHEMA.md, "kbench merge JSON"). */
#ifndef KB_MERGE_H
#define KB_MERGE_H

#include "drivers/results/results.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define KB_MERGE_SCHEMA "kbench.merge/1"
#define KB_MERGE_Z_DEFAULT 3.5     /* Iglewicz and Hoaglin's cut-off */
/* The spread is never taken below this fraction of the case's median: a
 * node a few % off tight nodes is not an outlier, and MAD == 0 (most
 * nodes equal) still gives a finite z. */
#define KB_MERGE_MIN_SPREAD_PCT 1   /* as a percentage, for help texts */
#define KB_MERGE_MIN_SPREAD (KB_MERGE_MIN_SPREAD_PCT / 100.0)
/* With two nodes every z is +-0.674 whatever they measured: a case needs
 * this many timed nodes to be judged. */
#define KB_MERGE_MIN_NODES 3

/* -1 slower than the other nodes, +1 faster, 0 neither (or not judged). */
typedef int kb_merge_flag;

typedef struct {
    const kb_result_case *rc;  /* NULL: the node has no such case */
    double gflops;             /* NAN unless timed (PASSED with samples) */
    double z;                  /* NAN unless timed and the case judged */
    kb_merge_flag flag;
} kb_merge_cell;

typedef struct {
    char *key;                 /* kb_result_case_key, with the backend */
    char *label;               /* model/layer/kernel/backend or desc/...;
                                  dtype/layout/dir added when needed to
                                  tell two cases apart */
    const kb_result_case *first;  /* its first record, for the fields */
    int ntimed;                /* nodes with a figure */
    bool judged;               /* ntimed >= KB_MERGE_MIN_NODES */
    double median, spread;     /* over the timed nodes, GFLOP/s; spread =
                                  max(MAD, KB_MERGE_MIN_SPREAD x median) */
} kb_merge_case;

typedef struct {
    char *name;                /* host, plus the file when hosts repeat */
    const kb_result_file *file;
    int njudged;               /* judged cases the node has a figure for */
    double relative;           /* geometric mean of gflops / case median
                                  over those; NAN when none */
    double z;                  /* median of its per-case z over those */
    kb_merge_flag flag;
} kb_merge_node;

typedef struct {
    const kb_result_case *dup; /* a second record of a case in one file */
    size_t node;
} kb_merge_dup;

typedef struct {
    kb_merge_node *nodes;
    size_t nnodes;
    kb_merge_case *cases;      /* in order of first appearance */
    size_t ncases;
    kb_merge_cell *cells;      /* ncases x nnodes: cell(c, n) */
    kb_merge_dup *dups;        /* ignored records, listed in the output */
    size_t ndups;
    double zmax;               /* |z| > zmax flags */
} kb_merge;

static inline kb_merge_cell *kb_merge_cell_at(const kb_merge *m, size_t c, size_t n)
{
    return &m->cells[c * m->nnodes + n];
}

/* merge_table.c: the table of n loaded files (kept alive by the caller),
 * nodes named, cases in order of first appearance; a case recorded twice
 * in one file keeps its first record and lists the others in dups.
 * Returns 0, or -1 with err set (out of memory). */
int kb_merge_build(kb_merge *m, const kb_result_file *files, size_t n, char *err,
                   size_t len);
void kb_merge_free(kb_merge *m);

/* outliers.c: medians, spreads, z-scores and flags of every case and
 * node, with threshold zmax.  Returns 0, or -1 out of memory (a median
 * that kb_median cannot allocate is NAN and judges nothing). */
int kb_merge_outliers(kb_merge *m, double zmax);

/* Writers.  Each returns 0, or -1 when writing to f fails. */
/* merge_md.c: the Markdown report; svg_link (may be NULL) is the figure's
 * path relative to the Markdown. */
int kb_merge_write_md(FILE *f, const kb_merge *m, const char *svg_link);
/* merge_svg.c: one strip per case and one dot per timed node. */
int kb_merge_write_svg(FILE *f, const kb_merge *m);
/* merge_json.c: the table and flags (also -1 when out of memory). */
int kb_merge_write_json(FILE *f, const kb_merge *m);

/* "slow", "fast" or NULL. */
const char *kb_merge_flag_name(kb_merge_flag f);

#endif
