/* dnn_shape.c - kbench tensors as DNN descriptors' dims and strides, the
 * convolution's int parameters, and an NXC conv's weights reordered to
 * match (dnn_shape.h). */
#include "backends/gpu/dnn_shape.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* Spatial dims of p's activations: 2 or 3. */
static int spatial_dims(const kb_problem *p)
{
    return p->kind == KB_CONV ? p->conv.ndims : p->bnorm.ndims;
}

static bool channels_last_filter(const kb_problem *p, kb_arg a)
{
    return p->kind == KB_CONV && a == KB_ARG_WEI &&
           p->layout == KB_LAYOUT_NXC;
}

/* [K][spatial][C/G] strides of a filter of dims [K, C/G, spatial...]. */
static void filter_nxc_strides(const kb_arg_info *t, int64_t *strides)
{
    int64_t step = t->dims[1];
    strides[1] = 1;
    for (int i = t->ndims - 1; i >= 2; i--) {
        strides[i] = step;
        step *= t->dims[i];
    }
    strides[0] = step;
}

/* Each dim's stride: how far one step along it moves the element, in
 * kbench's layout (kb_arg_offset, the one layout table) or in the
 * channels-last filter copy.  The layouts are strided, so these place
 * every element where it is stored. */
static void strides_of(const kb_problem *p, kb_arg a, const kb_arg_info *t,
                       int64_t *strides)
{
    if (channels_last_filter(p, a)) {
        filter_nxc_strides(t, strides);
        return;
    }
    int64_t idx[KB_MAX_DIMS] = {0};
    const int64_t base = kb_arg_offset(p, a, idx);
    for (int i = 0; i < t->ndims; i++) {
        idx[i] = 1;
        strides[i] = kb_arg_offset(p, a, idx) - base;
        idx[i] = 0;
    }
}

/* v as an int in *out, or -1 with why ("cudnn: src stride 4294967296
 * is past int ..."). */
static int to_int(int64_t v, int *out, const char *lib, const char *of,
                  const char *what, char *why, size_t len)
{
    if (v >= 0 && v <= INT_MAX) {
        *out = (int)v;
        return 0;
    }
    snprintf(why, len, "%s: %s %s %lld is past int (the library's "
             "descriptors take int sizes)", lib, of, what, (long long)v);
    return -1;
}

int kb_dnn_shape_of(const kb_problem *p, kb_arg a, kb_dnn_shape *s,
                    const char *lib, char *why, size_t len)
{
    kb_arg_info info[KB_ARG_MAX];
    kb_problem_args(p, info);
    const kb_arg_info *t = &info[a];

    s->nbdims = spatial_dims(p) + 2;
    if (t->ndims == 1) {
        for (int i = 0; i < s->nbdims; i++)
            s->dims[i] = s->strides[i] = 1;
        if (to_int(t->dims[0], &s->dims[1], lib, t->name, "size", why,
                   len) != 0)
            return -1;
        s->strides[0] = s->dims[1];
        return 0;
    }
    int64_t strides[KB_MAX_DIMS];
    strides_of(p, a, t, strides);
    for (int i = 0; i < t->ndims; i++)
        if (to_int(t->dims[i], &s->dims[i], lib, t->name, "size", why,
                   len) != 0 ||
            to_int(strides[i], &s->strides[i], lib, t->name, "stride", why,
                   len) != 0)
            return -1;
    return 0;
}

void kb_dnn_filter_nxc(const kb_problem *p, const void *src, void *dst)
{
    kb_arg_info info[KB_ARG_MAX];
    kb_problem_args(p, info);
    const kb_arg_info *w = &info[KB_ARG_WEI];
    const size_t elem = kb_dtype_size(w->dt);
    int64_t strides[KB_MAX_DIMS], idx[KB_MAX_DIMS] = {0};
    filter_nxc_strides(w, strides);
    for (int64_t e = 0; e < w->nelems; e++) {
        int64_t to = 0;
        for (int i = 0; i < w->ndims; i++)
            to += idx[i] * strides[i];
        memcpy((char *)dst + to * elem,
               (const char *)src + kb_arg_offset(p, KB_ARG_WEI, idx) * elem,
               elem);
        /* next logical index, last dim fastest */
        for (int i = w->ndims - 1; i >= 0 && ++idx[i] == w->dims[i]; i--)
            idx[i] = 0;
    }
}

int kb_dnn_conv_of(const kb_conv_desc *c, kb_dnn_conv *cv, const char *lib,
                   char *why, size_t len)
{
    const int64_t pad[3] = {c->pd, c->ph, c->pw};
    const int64_t stride[3] = {c->sd, c->sh, c->sw};
    const int64_t dil[3] = {c->dd, c->dh, c->dw};
    const int first = c->ndims == 3 ? 0 : 1;   /* 2D has no depth */
    cv->nbdims = 3 - first;
    for (int i = first; i < 3; i++) {
        const int n = i - first;
        if (to_int(pad[i], &cv->pad[n], lib, "conv", "padding", why,
                   len) != 0 ||
            to_int(stride[i], &cv->stride[n], lib, "conv", "stride", why,
                   len) != 0 ||
            to_int(dil[i] + 1, &cv->dilation[n], lib, "conv",
                   "1-based dilation", why, len) != 0)
            return -1;
    }
    return to_int(c->g, &cv->groups, lib, "conv", "groups", why, len);
}
