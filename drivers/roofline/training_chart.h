/* training_chart.h - `kbench report`'s chart of training steps: per model
 * and backend, a bar of the step's kernel time stacked by pass and one
 * stacked by kernel kind (the "training_step" records of
 * results/SCHEMA.md). */
#ifndef KB_TRAINING_CHART_H
#define KB_TRAINING_CHART_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

#define KB_STEP_PARTS 8

/* One stack: its parts' names and seconds, in record order. */
typedef struct {
    int n;
    const char *name[KB_STEP_PARTS];
    double t[KB_STEP_PARTS];
} kb_step_stack;

/* One training_step record. */
typedef struct {
    const char *model, *backend, *dtype;
    const char *series;       /* the result file's legend name */
    bool complete;
    double measured_s;        /* = the step time when complete */
    int missing;              /* passes missing */
    kb_step_stack by_pass, by_kind;
} kb_step_bar;

/* Read a "training_step" record into b; b's strings point into o (and
 * series), which must outlive it.  Returns 0, or -1 with err naming the
 * field that is missing or of the wrong type. */
int kb_step_bar_read(const cJSON *o, const char *series, kb_step_bar *b,
                     char *err, size_t errlen);

/* Write the chart of n steps (n >= 1) to f: one group of class
 * "step-bar" per step, holding one rect of class "segment" per part of
 * each of its two stacks.  An incomplete step's bars show what was
 * measured, labelled INCOMPLETE with the number of passes missing.
 * Returns 0, or -1 when writing fails. */
int kb_training_chart_write(FILE *f, const kb_step_bar *bars, int n);

#endif
