/* kernel_table.c - the one list of kernels (kernel_table.h). */
#include "kernels/kernel_table.h"

#include <string.h>

const kb_kernel_info kb_kernel_table[KB_KERNEL_COUNT] = {
    [KB_KERNEL_CONV2D] = {"conv2d", KB_CONV, 2,
                          "2D convolution (NCHW/NHWC; groups, stride, padding, "
                          "dilation, bias)",
                          KB_MARK_CIRCLE, "#56B4E9"},
    [KB_KERNEL_CONV3D] = {"conv3d", KB_CONV, 3, "3D convolution (NCDHW/NDHWC)",
                          KB_MARK_SQUARE, "#E69F00"},
    [KB_KERNEL_GEMM] = {"gemm", KB_GEMM, 0,
                        "matrix multiply C = alpha*op(A)*op(B) + beta*C, "
                        "row-major",
                        KB_MARK_TRIANGLE, "#000000"},
    [KB_KERNEL_BNORM] = {"bnorm", KB_BNORM, 0,
                         "batch normalisation: training (batch statistics) or "
                         "inference",
                         KB_MARK_DIAMOND, "#999999"},
};

int kb_kernel_find(const char *name)
{
    for (int i = 0; i < KB_KERNEL_COUNT; i++)
        if (strcmp(kb_kernel_table[i].name, name) == 0)
            return i;
    return -1;
}

kb_kernel_id kb_kernel_of(const kb_problem *p)
{
    switch (p->kind) {
    case KB_CONV: return p->conv.ndims == 3 ? KB_KERNEL_CONV3D : KB_KERNEL_CONV2D;
    case KB_GEMM: return KB_KERNEL_GEMM;
    case KB_BNORM: return KB_KERNEL_BNORM;
    }
    return KB_KERNEL_GEMM;
}
