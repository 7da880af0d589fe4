/* batch.h - lists of problems, benchdnn batch files and model catalogs.
 *
 * A batch file has one descriptor a line, `#` comments, blank lines, and
 * option lines that apply to the lines after them:
 *   --mb=N  --dir=FWD_D|FWD_B|FWD_I  --dt=f32|f64  --tag=nchw|nhwc|ncdhw|ndhwc|abx|axb
 *   --reset   (back to the settings the file was opened with)
 * A model catalog (kernels/catalog/MODEL.txt) is a batch file without
 * batch sizes; the run's --mb supplies it. */
#ifndef KB_BATCH_H
#define KB_BATCH_H

#include "problem.h"

typedef struct {
    kb_problem *items;
    size_t n, cap;
} kb_problem_list;

/* Returns 0, or -1 when out of memory. */
int kb_problem_list_push(kb_problem_list *l, const kb_problem *p);
void kb_problem_list_free(kb_problem_list *l);

/* Parse batch text; `origin` names it in messages ("file.txt").  Appends
 * to out.  Returns 0, or -1 with "origin:line:column: what, expected
 * what" in err (nothing appended on error). */
int kb_batch_parse(const char *text, const char *origin, const kb_settings *s,
                   kb_problem_list *out, char *err, size_t errlen);

/* Read and parse a batch file.  A missing or unreadable file is an error
 * naming the path and errno's reason. */
int kb_batch_load(const char *path, const kb_settings *s,
                  kb_problem_list *out, char *err, size_t errlen);

/* ---- model catalogs ---- */
#define KB_MODEL_NAME_MAX 32

/* Directory holding the catalogs: $KBENCH_CATALOG_DIR if set, else
 * catalog/ in the data directory (kernels/data_dir.h).  NULL, with err
 * saying why, when there is no data directory. */
const char *kb_catalog_dir(char *err, size_t errlen);

/* Sorted model names (file stems of *.txt) into names; returns how many
 * (at most max), or -1 with err when the directory cannot be read. */
int kb_catalog_models(char names[][KB_MODEL_NAME_MAX], int max, char *err,
                      size_t errlen);

/* Load model's catalog with batch size mb (>= 1).  Unknown model: -1 and
 * err lists the valid ones. */
int kb_catalog_load(const char *model, int64_t mb, const kb_settings *s,
                    kb_problem_list *out, char *err, size_t errlen);

/* The descriptors model's training step needs beyond its catalog,
 * MODEL.training beside MODEL.txt: the backward GEMMs of its fully
 * connected layers, each named after its forward layer plus ":BWD_D"
 * (the input's gradient) or ":BWD_W" (the weights').  Appends them with
 * batch size mb; a model without the file appends nothing.  Call after
 * kb_catalog_load (which checks the model's name).  Returns 0, or -1
 * with err (the file's own errors). */
int kb_catalog_load_training(const char *model, int64_t mb,
                             const kb_settings *s, kb_problem_list *out,
                             char *err, size_t errlen);

#endif
