/* cudnn_shape.h - kbench's tensors as cuDNN's descriptors take them: the
 * dims and strides of an activation in either layout, a filter's dims,
 * the convolution's padding, strides and (1-based) dilations, and the
 * filter reordered channels-last for NXC problems.  Plain C, no cuDNN:
 * tests check it against kb_arg_offset on the CPU. */
#ifndef KB_CUDNN_SHAPE_H
#define KB_CUDNN_SHAPE_H

#include "kernels/problem.h"
#include "kernels/tensors.h"

#include <stddef.h>

/* An activation's [N, C, (D,) H, W] and its strides in p's layout (NCX
 * packed, or NXC: C's stride 1).  Returns the number of dims (4 or 5),
 * or -1 when a dim or stride does not fit cuDNN's int. */
int kb_cudnn_activation(const kb_problem *p, const kb_arg_info *a,
                        int dims[KB_MAX_DIMS], int strides[KB_MAX_DIMS]);

/* A filter's [K, C/G, (T,) R, S].  Returns the number of dims, or -1
 * when one does not fit an int. */
int kb_cudnn_filter(const kb_arg_info *wei, int dims[KB_MAX_DIMS]);

/* Padding, strides and dilations (kbench's 0-based dilation + 1) of the
 * spatial dims, depth first for 3D.  Returns their number (2 or 3), or
 * -1 when one does not fit an int. */
int kb_cudnn_conv_params(const kb_conv_desc *c, int pad[3], int stride[3],
                         int dilation[3]);

/* Copy kbench's filter [K][C/G][spatial] into dst as [K][spatial][C/G],
 * cuDNN's CUDNN_TENSOR_NHWC filter order, elem bytes per element. */
void kb_cudnn_filter_to_nxc(const kb_arg_info *wei, size_t elem,
                            const void *src, void *dst);

#endif
