/* compare.h - `kbench compare`: two runs' cases matched and judged
 * (compare_match.c), their provenance set side by side
 * (compare_provenance.c), and the report written as Markdown, JSON and
 * SVG (compare_md.c, compare_json.c, compare_svg.c). */
#ifndef KB_COMPARE_H
#define KB_COMPARE_H

#include "drivers/compare/mannwhitney.h"
#include "drivers/results/results.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define KB_COMPARE_SCHEMA "kbench.compare/1"
#define KB_COMPARE_ALPHA 0.05      /* p below it, and the interval
                                      excluding 1, is a verdict */
#define KB_COMPARE_MIN_SAMPLES 10  /* fewer on a side draws a warning */

/* One matched pair of cases (A's order).  ratio = A's median time / B's:
 * above 1, B is faster. */
typedef struct {
    const kb_result_case *a, *b;
    char *label;             /* model:layer, or the descriptor */
    bool compared;           /* both sides timed: the figures below hold */
    char why[96];            /* when not compared: which side and status */
    double ratio;            /* median_a / median_b */
    double lo, hi;           /* the interval of the ratio (exp of HL's) */
    double hl_ratio;         /* exp of the Hodges-Lehmann shift */
    kb_mw_result mw;
    kb_hl_result hl;
    const char *verdict;     /* "faster" (B), "slower" (B), "~", "n/a" */
    bool few;                /* a side has < KB_COMPARE_MIN_SAMPLES */
    bool gated;              /* slower by more than --fail-if-slower */
} kb_cmp_row;

/* A case that is in one side only, or a second case with a key already
 * seen on its side (then not compared). */
typedef struct {
    const kb_result_case *c;
    char side;               /* 'A' or 'B' */
    long first_line;         /* a duplicate: the line of the first; else 0 */
} kb_cmp_unmatched;

/* A provenance field that differs between the two run records. */
typedef struct {
    char *key;               /* dotted path: "cpu_id.microcode" */
    const char *kind;        /* "build", "machine", "run setting", "other" */
    char *a, *b;             /* values as JSON text, "(absent)" if absent */
} kb_cmp_diff;

/* Geometric mean of the compared rows' ratios of one model (or all). */
typedef struct {
    const char *model;       /* "" for cases from --desc/--batch */
    double geomean;
    int n;
} kb_cmp_group;

typedef struct {
    const kb_result_file *fa, *fb;   /* the same file with --backends */
    const char *backend_a, *backend_b;   /* --backends X,Y, else NULL */
    kb_cmp_row *rows;
    size_t nrows;
    kb_cmp_unmatched *unmatched;
    size_t nunmatched;
    size_t nother;           /* --backends: cases of other backends */
    kb_cmp_diff *diffs;
    size_t ndiffs;
    kb_cmp_group *groups;    /* per model, in order of first appearance */
    size_t ngroups;
    kb_cmp_group overall;
    int nfew;                /* rows with a side under MIN_SAMPLES */
    double gate_pct;         /* --fail-if-slower, NAN when not given */
    bool gate_summary;       /* --summary: gate the overall geomean only */
    bool gate_failed;
    const char *svg_link;    /* the chart as the Markdown links it, or NULL */
} kb_compare;

/* Match the cases of c->fa and c->fb (by kb_result_case_key, without the
 * backend under --backends), judge each pair, the geometric means and
 * the gate.  Returns 0, or -1 when out of memory. */
int kb_compare_build(kb_compare *c);

/* The differing fields of the two run records (none for --backends: one
 * run).  Returns 0, or -1 when out of memory. */
int kb_compare_provenance(kb_compare *c);

void kb_compare_free(kb_compare *c);

/* The one-sentence reading of a ratio: "B faster by 12.0 %". */
void kb_compare_describe(double ratio, char *buf, size_t len);

/* The report.  Each writes to out; returns 0, or -1 when out of memory. */
int kb_compare_markdown(const kb_compare *c, FILE *out);
int kb_compare_svg(const kb_compare *c, FILE *out);
/* The JSON report (results/SCHEMA.md, "kbench compare JSON") as text in
 * new memory; NULL when out of memory. */
char *kb_compare_json(const kb_compare *c);

#endif
