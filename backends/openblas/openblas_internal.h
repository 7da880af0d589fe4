/* openblas_internal.h - the OpenBLAS backend's plan and the pieces its
 * convolution passes share (openblas_im2col.c, openblas_conv.c,
 * openblas_conv_bwd.c). */
#ifndef KB_OPENBLAS_INTERNAL_H
#define KB_OPENBLAS_INTERNAL_H

#include "kernels/problem.h"
#include "kernels/tensors.h"

typedef struct {
    kb_problem p;
    kb_tensors host;
    float *col;                /* column matrix, NULL for pointwise conv */
} ob_plan;

/* Column matrix of one image and group: krows = C/G * T * R * S rows
 * (row ((c * T + t) * R + r) * S + s, the order of a weight row) by
 * ncols = OD * OH * OW columns, one per output point. */
int64_t ob_col_rows(const kb_conv_desc *c);
int64_t ob_col_cols(const kb_conv_desc *c);

/* vol2col of image n, group g of src (NCX): each entry is the input
 * element that tap meets at that output point, or 0 in the padding.
 * 2D problems are the D = T = 1 case.  Cannot fail. */
void ob_im2col(const kb_conv_desc *c, const float *src, int64_t n, int64_t g,
               float *col);

/* The column matrix of image n, group g of pl's src: built by ob_im2col
 * into pl->col, or, for a pointwise conv (no pl->col), src's own channels,
 * which already are it.  Cannot fail. */
const float *ob_columns(const ob_plan *pl, const float *src, int64_t n,
                        int64_t g);

/* The adjoint of ob_im2col: the channels of group g of image n of img
 * (NCX) are overwritten with the sum of every column entry that
 * ob_im2col would have read from each element (0 for an element no tap
 * reaches).  Cannot fail. */
void ob_col2im(const kb_conv_desc *c, const float *col, int64_t n, int64_t g,
               float *img);

/* The convolution passes over pl->host; cannot fail. */
void ob_conv_fwd(ob_plan *pl);
void ob_conv_bwd_d(ob_plan *pl);
void ob_conv_bwd_w(ob_plan *pl);   /* BWD_W, and BWD_WB's diff_bia */

#endif
