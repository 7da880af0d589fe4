/* verdict.h - `kbench check`'s judgement: every case of one node's results
 * against the bands, PASS or FAIL with the reason. */
#ifndef KB_VERDICT_H
#define KB_VERDICT_H

#include "drivers/acceptance/bands.h"
#include "drivers/results/results.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum {
    KB_CHECK_PASS,       /* within its band (above the upper bound: flagged) */
    KB_CHECK_FAIL,       /* below the band, validation failed, MISTRUSTED,
                            SKIPPED although banded, missing */
    KB_CHECK_ERROR,      /* the case is ERROR: a backend or library failed */
    KB_CHECK_UNJUDGED,   /* PASSED or SKIPPED with no band: not judged */
} kb_check_result;

/* One case of a node judged. */
typedef struct {
    const kb_band *band;           /* NULL: the case has no band */
    const kb_result_case *c;       /* NULL: the band's case is missing */
    bool repeated;                 /* the file holds its key more than once */
    kb_check_result result;
    const char *what;              /* "within band", "above band", "below
                                      band", "validation failed", "error",
                                      "mistrusted", "skipped", "missing",
                                      "no band" */
    char reason[768];              /* the figures and bounds, or the
                                      record's own reason */
    double value;                  /* the case's GFLOP/s; NAN when none */
} kb_check_item;

/* One node (one results file) judged. */
typedef struct {
    const kb_result_file *file;
    char *name;                    /* see kb_check_name_nodes */
    kb_check_item *items;          /* the bands in file order, then the
                                      node's cases without one */
    size_t nitems;
    size_t passed, failed, errors, unjudged;
} kb_check_node;

/* Judge case c against band b; either may be NULL, not both.  A
 * correctness failure (FAILED, ERROR, MISTRUSTED) fails whatever the
 * band.  Can't fail. */
void kb_check_case(const kb_band *b, const kb_result_case *c,
                   kb_check_item *it);

/* Judge every case of f against bands into n (zeroed first).  Returns 0,
 * or -1 when out of memory (n then holds nothing to free). */
int kb_check_node_judge(const kb_result_file *f, const kb_band_set *bands,
                        kb_check_node *n);

/* Name each node by its run record's host, with the path added,
 * "host (path)", when another node has the same host; the path alone when
 * the host is empty.  Returns 0, or -1 when out of memory. */
int kb_check_name_nodes(kb_check_node *nodes, size_t n);

/* The node passes: no case FAIL or ERROR. */
bool kb_check_node_passed(const kb_check_node *n);

void kb_check_node_free(kb_check_node *n);

#endif
