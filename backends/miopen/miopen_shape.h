/* miopen_shape.h - a kbench tensor as MIOpen's tensor descriptors take
 * it (miopenSetTensorDescriptor): int dims in the logical order and the
 * strides of the problem's layout.  Plain C, no MIOpen: tests check it
 * on the CPU. */
#ifndef KB_MIOPEN_SHAPE_H
#define KB_MIOPEN_SHAPE_H

#include "kernels/problem.h"
#include "kernels/tensors.h"

#include <stddef.h>

typedef struct {
    int nbdims;                /* 4 (2D) or 5 (3D) */
    int dims[KB_MAX_DIMS];     /* [N, C, (D,) H, W]; weights [K, C/G, ...] */
    int strides[KB_MAX_DIMS];  /* in elements */
} kb_miopen_shape;

/* Tensor a of p (one p uses).  Activations keep their logical dims,
 * with the strides kb_arg_offset implies (NHWC is NCHW's dims with
 * channels-last strides); so do the weights of an NCX problem, while an
 * NXC problem's are described channels-last, [K][(T,) R, S][C/G], the
 * copy kb_miopen_filter_nxc makes: MIOpen takes one layout for a
 * convolution's x, w and y.  A per-channel tensor (conv bias, bnorm
 * statistics, scale and shift) becomes [1, C, 1, 1(, 1)], the broadcast
 * shape MIOpen takes.  Returns 0, or -1 with why ("miopen: src stride
 * 2621440000 is past int") when a size does not fit. */
int kb_miopen_shape_of(const kb_problem *p, kb_arg a, kb_miopen_shape *s,
                       char *why, size_t len);

/* Copy an NXC conv's weights from kbench's [K][C/G][spatial] (src) into
 * dst as kb_miopen_shape_of describes them, element by element. */
void kb_miopen_filter_nxc(const kb_problem *p, const void *src, void *dst);

#endif
