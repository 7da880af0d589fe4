/* bands.h - reference bands: what `kbench baseline` makes from result files
 * and writes, and what `kbench check` reads and judges nodes against
 * (results/SCHEMA.md, "Bands file").  Bands are on GFLOP/s: higher is
 * better, so the lower bound decides; the upper bound only flags. */
#ifndef KB_BANDS_H
#define KB_BANDS_H

#include "drivers/results/results.h"

#include <cjson/cJSON.h>

#include <stddef.h>
#include <stdint.h>

#define KB_BANDS_SCHEMA "kbench.bands/1"

/* How bands are made.  "mad": lower = centre - k * spread.
 * "roof-fraction": lower = fraction * attainable, upper = attainable. */
typedef struct {
    const char *method;     /* "mad" or "roof-fraction" */
    double k;               /* mad: spreads below the centre */
    double fraction;        /* roof-fraction: of the attainable, (0, 1] */
    double min_spread;      /* the spread is never below this fraction of
                               the centre: the MAD is 0 when most values
                               are equal (timer-quantised samples, equal
                               nodes), and a band of width 0 would fail
                               half of the nodes equal to the reference */
} kb_band_rule;

/* One case's band, or (why != NULL) a case baseline left without one.
 * The identity strings are those of a case record; model and layer are
 * there for people and never matched. */
typedef struct {
    long line;              /* line in the bands file; 0 when made here */
    char *desc, *kernel, *backend, *dtype, *layout, *dir, *model, *layer;
    char *key;              /* kb_result_case_key of the identity */
    double centre;          /* GFLOP/s: median of the pooled values */
    double spread;          /* their MAD (x 1.4826, see kb_mad), at least
                               rule.min_spread x centre */
    double lower, upper;    /* GFLOP/s */
    double attainable;      /* roof-fraction: median attainable; else NAN */
    char *over;             /* what was pooled: "nodes" or "samples" */
    int64_t n;              /* how many values were pooled */
    char *why;              /* left out: why there is no band; else NULL */
} kb_band;

/* A bands file in memory: its header record, its bands in file order and
 * the cases left without a band. */
typedef struct {
    char *path;             /* for messages; NULL when made here */
    cJSON *header;          /* the "bands" record: how and from which runs */
    kb_band *bands;
    size_t nbands;
    kb_band *left;
    size_t nleft;
} kb_band_set;

/* Make the bands of the case keys in files[nfiles] by rule (bands_make.c).
 * Per case key: several files (nodes) with a PASSED record pool the
 * nodes' GFLOP/s (each node's median); a single one pools its samples'
 * GFLOP/s.  Keys with no PASSED record, or not placed on the roofline for
 * roof-fraction, go to out->left with the reason.  out->header is left
 * NULL for the caller.  Returns 0, or -1 with err set (out of memory). */
int kb_bands_make(const kb_result_file *files, size_t nfiles,
                  const kb_band_rule *rule, kb_band_set *out, char *err,
                  size_t len);

/* Write set as the bands file at path (bands_io.c), atomically: a
 * temporary file renamed into place, so path is never half-written.
 * Returns 0, or -1 with err naming the path and the reason. */
int kb_bands_write(const kb_band_set *set, const char *path, char *err,
                   size_t len);

/* Read the bands file at path.  Returns 0, or -1 with "PATH:LINE: what is
 * wrong" in err: unreadable or empty, a line that is not JSON, a schema
 * other than KB_BANDS_SCHEMA, a band missing a field or with one of the
 * wrong type, a case banded twice, no end record (truncated) or one whose
 * counts disagree.  On -1 out holds nothing to free. */
int kb_bands_read(const char *path, kb_band_set *out, char *err, size_t len);

/* Free what b holds (not b); then all of set. */
void kb_band_free(kb_band *b);
void kb_band_set_free(kb_band_set *set);

#endif
