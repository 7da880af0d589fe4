/* results.h - kbench run results (JSON Lines, results/SCHEMA.md) read back
 * into memory for the verbs that judge and merge them: compare, baseline,
 * check and merge.  One reader, so every verb refuses bad input the same
 * way: exit 2 and "FILE:LINE: what is wrong". */
#ifndef KB_RESULTS_H
#define KB_RESULTS_H

#include <cjson/cJSON.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One case record.  Strings are owned by the file and never NULL ("" when
 * the record has null, e.g. no model). */
typedef struct {
    long line;                 /* 1-based line of the record in its file */
    int64_t seq;
    char *desc, *model, *layer, *kernel, *backend, *dtype, *layout, *dir;
    char *status;              /* PASSED FAILED MISTRUSTED SKIPPED ERROR */
    char *reason;
    int64_t count;             /* occurrences in the model (weights totals) */
    double flops, bytes;       /* per execution */
    double *samples;           /* seconds, every timed repetition */
    int64_t nsamples;          /* 0 for SKIPPED/ERROR cases */
    double median_s;           /* median of samples; NAN when none */
    double gflops;             /* from the median; NAN when none */
    double roof_pct;           /* % of attainable; NAN when not placed */
} kb_result_case;

/* One results file: its run record and its cases, in file order. */
typedef struct {
    char *path;
    cJSON *run;                /* the run record as parsed, owned */
    const char *host;          /* run.host, points into run */
    kb_result_case *cases;
    size_t ncases;
    bool complete;             /* ended with its summary record (a run that
                                  was interrupted or killed has none) */
} kb_result_file;

/* Read path.  Returns 0, or -1 with "PATH:LINE: what is wrong" in err:
 * unreadable file, empty file, a line that is not JSON (a truncated last
 * line included), a first record that is not a run record, a schema other
 * than KB_SCHEMA_VERSION, a case record missing a field it needs or with
 * a field of the wrong type.  On -1 *out holds nothing to free. */
int kb_result_file_load(const char *path, kb_result_file *out, char *err,
                        size_t len);
void kb_result_file_free(kb_result_file *f);

/* What identifies a case across files: descriptor, kernel, backend,
 * dtype, layout and direction, joined with '|' into buf (the backend left
 * out when with_backend is false, for `compare --backends X,Y` within one
 * file).  Returns buf. */
const char *kb_result_case_key(const kb_result_case *c, bool with_backend,
                               char *buf, size_t len);

/* True for a case whose figure may be compared: it ran and validated
 * (PASSED, or MISTRUSTED when mistrusted_ok) and has samples. */
bool kb_result_case_timed(const kb_result_case *c, bool mistrusted_ok);

#endif
