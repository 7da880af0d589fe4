/* cudnn_shape.c - descriptor dims and strides, convolution parameters and
 * the channels-last filter copy (cudnn_shape.h). */
#include "backends/cudnn/cudnn_shape.h"

#include <limits.h>
#include <string.h>

static bool fits_int(int64_t v)
{
    return v >= 0 && v <= INT_MAX;
}

int kb_cudnn_activation(const kb_problem *p, const kb_arg_info *a,
                        int dims[KB_MAX_DIMS], int strides[KB_MAX_DIMS])
{
    const int nd = a->ndims;
    int64_t st[KB_MAX_DIMS];
    if (p->layout == KB_LAYOUT_NXC) {
        /* physical order N, spatial..., C */
        int64_t s = 1;
        st[1] = s;
        s *= a->dims[1];
        for (int i = nd - 1; i >= 2; i--) {
            st[i] = s;
            s *= a->dims[i];
        }
        st[0] = s;
    } else {
        int64_t s = 1;
        for (int i = nd - 1; i >= 0; i--) {
            st[i] = s;
            s *= a->dims[i];
        }
    }
    for (int i = 0; i < nd; i++) {
        if (!fits_int(a->dims[i]) || !fits_int(st[i]))
            return -1;
        dims[i] = (int)a->dims[i];
        strides[i] = (int)st[i];
    }
    return nd;
}

int kb_cudnn_filter(const kb_arg_info *wei, int dims[KB_MAX_DIMS])
{
    for (int i = 0; i < wei->ndims; i++) {
        if (!fits_int(wei->dims[i]))
            return -1;
        dims[i] = (int)wei->dims[i];
    }
    return wei->ndims;
}

int kb_cudnn_conv_params(const kb_conv_desc *c, int pad[3], int stride[3],
                         int dilation[3])
{
    const int64_t p[3] = {c->pd, c->ph, c->pw}, s[3] = {c->sd, c->sh, c->sw},
                  d[3] = {c->dd, c->dh, c->dw};
    const int first = c->ndims == 3 ? 0 : 1;   /* 2D has no depth */
    int n = 0;
    for (int i = first; i < 3; i++, n++) {
        if (!fits_int(p[i]) || !fits_int(s[i]) || !fits_int(d[i] + 1))
            return -1;
        pad[n] = (int)p[i];
        stride[n] = (int)s[i];
        dilation[n] = (int)d[i] + 1;
    }
    return n;
}

/* This function can't fail. */
void kb_cudnn_filter_to_nxc(const kb_arg_info *wei, size_t elem,
                            const void *src, void *dst)
{
    const int64_t k = wei->dims[0], c = wei->dims[1];
    int64_t sp = 1;   /* (T x) R x S */
    for (int i = 2; i < wei->ndims; i++)
        sp *= wei->dims[i];
    const char *s = src;
    char *d = dst;
    for (int64_t ki = 0; ki < k; ki++)
        for (int64_t ci = 0; ci < c; ci++)
            for (int64_t x = 0; x < sp; x++)
                memcpy(d + (size_t)((ki * sp + x) * c + ci) * elem,
                       s + (size_t)((ki * c + ci) * sp + x) * elem, elem);
}
