/* rollup.h - the training-step roll-up of `kbench run --training`: per
 * model and backend, the kernel time of one step, its split by pass and
 * by kernel kind, and the costliest layers. */
#ifndef KB_ROLLUP_H
#define KB_ROLLUP_H

#include "drivers/record.h"
#include "drivers/run.h"

/* A writer that keeps every case's median and status, and at the end
 * works out each (model, backend) step of o as the sum over its passes
 * of count x median (o's problems are kb_training_load's, so each pass's
 * count is how often it runs in a step).  A pass that did not run and
 * validate (SKIPPED, FAILED, ERROR, or never run) makes the step
 * incomplete: its total is then not given, and the passes missing are
 * listed instead.  It prints the roll-up to `print` (NULL: not at all)
 * and writes one "training_step" record per step to the JSON Lines
 * writer given to kb_writer_rollup_json (results/SCHEMA.md).  Put it
 * after the table and before the JSON writer, so that its end() comes
 * after the table's and before the JSON summary.  Returns NULL when out
 * of memory. */
kb_writer *kb_writer_rollup(const kb_run_opts *o, FILE *print);

/* Send rollup's records to json, a kb_writer_jsonl.  Can't fail. */
void kb_writer_rollup_json(kb_writer *rollup, kb_writer *json);

#endif
