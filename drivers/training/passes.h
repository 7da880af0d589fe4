/* passes.h - a model's training step as problems (`kbench run
 * --training`): every catalog layer's forward and backward passes. */
#ifndef KB_PASSES_H
#define KB_PASSES_H

#include "kernels/batch.h"

#include <stdio.h>

/* What a fully connected layer's backward GEMMs are named in the
 * MODEL.training files: the forward layer's name, this separator, the
 * pass (kernels/batch.h). */
#define KB_PASS_SEP ':'

/* The pass p is of a training step: its direction, except for a GEMM
 * named "LAYER:BWD_D" or "LAYER:BWD_W", which is that backward pass of
 * the fully connected layer LAYER.  Can't fail. */
kb_dir kb_training_pass(const kb_problem *p);

/* The layer p is a pass of: its name without the ":BWD_D" or ":BWD_W" of
 * a backward GEMM, into buf.  Returns buf. */
const char *kb_training_layer(const kb_problem *p, char *buf, size_t len);

/* Load model's training step at batch size mb into out, in catalog
 * order, each layer followed by its backward passes:
 *   conv   its forward (the catalog's direction), BWD_D (the model's first
 *          convolution, the first conv line, has none: its input is the
 *          data), then BWD_WB when the forward has a bias, else BWD_W;
 *   bnorm  its forward (FWD_D, training), then BWD_DW;
 *   gemm   its forward, then LAYER:BWD_D and LAYER:BWD_W from
 *          MODEL.training.  A GEMM with neither is not a layer of the
 *          step (DeepCAM's GEMM form of a conv) and is left out with a
 *          note on `notes`.
 * Each pass's count is how often it runs in one step (the layer's count;
 * one less for the first convolution's BWD_D).  Returns 0, or -1 with err
 * (the catalogs' own errors; a backward GEMM without its forward layer,
 * without its partner, of an unknown pass or of a shape that is not the
 * forward's backward; out of memory). */
int kb_training_load(const char *model, int64_t mb, const kb_settings *s,
                     kb_problem_list *out, FILE *notes, char *err,
                     size_t errlen);

#endif
