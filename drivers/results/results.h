/* results.h - kbench run results (JSON Lines, results/SCHEMA.md) read back
 * into memory for the verbs that judge, merge and report them: compare,
 * baseline, check, merge and report.  One reader, so every verb refuses
 * bad input the same way: exit 2 and "FILE:LINE: what is wrong".  Case
 * records whose timings are not performance (a correctness-only backend
 * such as gpusim: "performance": false) are left out here, once for every
 * verb; a file of nothing else is refused. */
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

/* A record kept as parsed, with where it was: the "training_step"
 * records (results/SCHEMA.md), which `kbench report` charts. */
typedef struct {
    long line;                 /* 1-based line of the record in its file */
    cJSON *json;               /* owned */
} kb_result_record;

/* One results file: its run record, its cases and its training steps, in
 * file order. */
typedef struct {
    char *path;
    cJSON *run;                /* the run record as parsed, owned */
    const char *host;          /* run.host, points into run */
    kb_result_case *cases;
    size_t ncases;
    kb_result_record *steps;   /* the training_step records (run --training) */
    size_t nsteps;
    bool complete;             /* ended with its summary record (a run that
                                  was interrupted or killed has none) */
    size_t not_performance;    /* case records left out: their timings are
                                  not performance ("performance": false) */
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
/* Room for a case key: a descriptor of a few hundred characters and the
 * five short names; a longer key is cut, and compared cut. */
#define KB_KEY_LEN 2048

const char *kb_result_case_key(const kb_result_case *c, bool with_backend,
                               char *buf, size_t len);

/* The case's key with its backend (kb_result_case_key), in new memory;
 * NULL when out of memory. */
char *kb_result_case_key_dup(const kb_result_case *c);

/* Load paths[n] into files[n] for a verb that judges or merges them
 * (results_load.c).  Beyond what kb_result_file_load refuses, a file with
 * no case record (an empty run) or without its summary record (a run
 * killed before it finished: truncated) is refused, since judging it
 * would judge cases that never ran, and so is one file given twice (one
 * node counted twice).  Returns 0, or -1 after "kbench VERB: PATH:LINE:
 * what is wrong" on stderr, with nothing left to free. */
int kb_result_files_load(const char *verb, char **paths, int n,
                         kb_result_file *files);

void kb_result_files_free(kb_result_file *files, int n);

/* True for a case whose figure may be compared: it ran and validated
 * (PASSED, or MISTRUSTED when mistrusted_ok) and has samples. */
bool kb_result_case_timed(const kb_result_case *c, bool mistrusted_ok);

#endif
