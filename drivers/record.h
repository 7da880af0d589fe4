/* record.h - what a run produces: the run's provenance and one record per
 * case (problem x backend), and the writers that print or store them.
 *
 * The run loop (run.c) fills records; each writer (table, JSON Lines, CSV,
 * RESULT lines) implements kb_writer and is called once per finished case,
 * so an interrupted run keeps everything it measured. */
#ifndef KB_RECORD_H
#define KB_RECORD_H

#include "kernels/problem.h"
#include "reference/reference.h"
#include "drivers/stats.h"
#include "drivers/roofline/placement.h"
#include "machine/cpu_id.h"
#include "drivers/provenance.h"
#include "backends/backend.h"

#include <stdio.h>

#define KB_SCHEMA_VERSION "kbench.results/2"

/* MISTRUSTED (benchdnn's state): validated like PASSED, but measured
 * more than KB_MISTRUST_PCT % of its roof (--peaks), which only a
 * counting or timing error, or data served from a faster level, explains.
 * It does not change the exit code by itself. */
typedef enum { KB_PASSED, KB_FAILED, KB_SKIPPED, KB_ERROR, KB_MISTRUSTED } kb_status;
#define KB_MISTRUST_PCT 110.0
const char *kb_status_name(kb_status s);   /* "PASSED", ... */
/* The case was validated and timed: PASSED, FAILED or MISTRUSTED. */
bool kb_status_ran(kb_status s);

/* One case: a problem on a backend. */
typedef struct {
    int64_t seq;                     /* 1-based, in run order */
    const kb_problem *problem;
    char desc[256];                  /* canonical descriptor */
    const char *model;               /* catalog name, or "" (--desc/--batch) */
    const char *backend;
    kb_status status;
    char reason[256];                /* SKIPPED or ERROR: why; FAILED: first
                                        mismatch, or why the last timed run
                                        failed its check; MISTRUSTED: the
                                        measured % of its roof */
    double flops, bytes;             /* per execution (results/COUNTING.md) */
    double flops_dense, llc_bytes;   /* every conv tap; the LLC bytes assumed */
    size_t workspace_bytes;          /* the backend's own allocations for the
                                        case (extra_bytes: im2col buffer,
                                        reordered copies), 0 when none */
    /* timing; valid when kb_status_ran(status) */
    int64_t nsamples;
    double *samples;                 /* seconds, every timed repetition */
    int64_t warmup;
    double settle_s;                 /* seconds waited, before the warm-up,
                                        for other threads to go idle; < 0
                                        when timed without (settle.h) */
    bool backend_timed;              /* samples came from the backend's own timer */
    kb_stats stats;                  /* over samples */
    double gflops, gbps;             /* from the median */
    /* validation; valid when kb_status_ran(status).  validation is the
     * first run's check, or the last timed repetition's when that one
     * failed where the first passed (the reason says so). */
    bool validated;
    kb_validation validation;
    bool last_checked;               /* the last timed repetition's output
                                        was checked too (not when the first
                                        run already FAILED) */
    /* roofline; for cases that ran.  roof_placed only with a ceilings
     * file (--peaks) holding the case's device, precision and level;
     * otherwise roof_note says why (never an invented ceiling). */
    bool roof_placed;
    kb_placement roof;
    char roof_note[192];
    /* the backend's plan_info(): tuning, algorithm, math mode, timing
     * method (n == 0 when it has none or nothing was prepared) */
    kb_info plan_info;
} kb_case_record;

/* Summary counts, for the last record and the exit code.  left_out
 * counts the cases of the backends a default run left out (their device
 * is absent), apart from those SKIPPED; left_out_backends names them. */
typedef struct {
    int64_t passed, failed, skipped, errors, mistrusted, left_out;
    const kb_backend *const *left_out_backends;
    int nleft_out_backends;
    bool interrupted;
} kb_summary;

/* A result writer.  Each call returns 0, or -1 after printing the reason
 * (the run then stops with exit code 3: results could not be stored). */
typedef struct kb_writer {
    int (*begin)(struct kb_writer *w, const kb_provenance *prov);
    int (*write_case)(struct kb_writer *w, const kb_case_record *r);
    int (*end)(struct kb_writer *w, const kb_summary *s);
    void (*close)(struct kb_writer *w);   /* frees w */
    FILE *out;
    void *state;
} kb_writer;

/* Constructors; each returns NULL with err set when path cannot be opened.
 * The table and RESULT-line writers print to the given stream. */
kb_writer *kb_writer_table(FILE *out);
kb_writer *kb_writer_result_lines(FILE *out);
kb_writer *kb_writer_jsonl(const char *path, char *err, size_t errlen);
/* Write o (consumed, may be NULL after a failed allocation) as one line of
 * the JSON Lines writer w and flush it, for records other writers build
 * (the training roll-up).  Returns 0, or -1 after naming the file and the
 * reason. */
struct cJSON;
int kb_writer_jsonl_object(kb_writer *w, struct cJSON *o);
kb_writer *kb_writer_csv(const char *path, char *err, size_t errlen);

#endif
