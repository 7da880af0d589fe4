/* dnn_shape.h - a kbench tensor and convolution as a DNN library's
 * descriptors take them (cuDNN's cudnnSet*NdDescriptor, MIOpen's
 * miopenSetTensorDescriptor): int dims in the logical order, the strides
 * of the problem's layout, the convolution's int parameters, and an NXC
 * conv's weights copied channels-last.  Plain C, no library headers:
 * built in every configuration, and tested on the CPU. */
#ifndef KB_DNN_SHAPE_H
#define KB_DNN_SHAPE_H

#include "kernels/problem.h"
#include "kernels/tensors.h"

#include <stddef.h>

typedef struct {
    int nbdims;                /* 4 (2D) or 5 (3D) */
    int dims[KB_MAX_DIMS];     /* [N, C, (D,) H, W]; weights [K, C/G, ...] */
    int strides[KB_MAX_DIMS];  /* in elements */
} kb_dnn_shape;

/* Tensor a of p (one p uses).  Activations keep their logical dims,
 * with the strides kb_arg_offset implies (NHWC is NCHW's dims with
 * channels-last strides); so do the weights of an NCX problem, while an
 * NXC problem's are described channels-last, [K][(T,) R, S][C/G], the
 * copy kb_dnn_filter_nxc makes (cuDNN's CUDNN_TENSOR_NHWC filter; MIOpen
 * takes one layout for a convolution's x, w and y).  A per-channel
 * tensor (conv bias, bnorm statistics, scale and shift) becomes
 * [1, C, 1, 1(, 1)], the broadcast shape both libraries take.  Returns
 * 0, or -1 with why ("miopen: src stride 2621440000 is past int ...",
 * lib naming the backend) when a size does not fit. */
int kb_dnn_shape_of(const kb_problem *p, kb_arg a, kb_dnn_shape *s,
                    const char *lib, char *why, size_t len);

/* Copy an NXC conv's weights from kbench's [K][C/G][spatial] (src) into
 * dst as kb_dnn_shape_of describes them, element by element.  It can't
 * fail. */
void kb_dnn_filter_nxc(const kb_problem *p, const void *src, void *dst);

typedef struct {
    int nbdims;                /* spatial dims: 2 or 3 */
    int pad[3], stride[3];     /* depth first for 3D */
    int dilation[3];           /* 1-based: kbench's 0-based + 1 */
    int groups;
} kb_dnn_conv;

/* c's padding, strides, dilations and groups as ints.  Returns 0, or -1
 * with why ("cudnn: padding 3000000000 is past int ...") when one does
 * not fit. */
int kb_dnn_conv_of(const kb_conv_desc *c, kb_dnn_conv *cv, const char *lib,
                   char *why, size_t len);

#endif
