/* miopen_shape.c - kbench tensors as MIOpen descriptors' dims and
 * strides, and an NXC conv's weights reordered to match
 * (miopen_shape.h). */
#include "backends/miopen/miopen_shape.h"

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

static int fits(const kb_arg_info *t, const char *what, int64_t v, char *why,
                size_t len)
{
    if (v >= 0 && v <= INT_MAX)
        return 0;
    snprintf(why, len, "miopen: %s %s %lld is past int (MIOpen's "
             "descriptors take int sizes)", t->name, what, (long long)v);
    return -1;
}

int kb_miopen_shape_of(const kb_problem *p, kb_arg a, kb_miopen_shape *s,
                       char *why, size_t len)
{
    kb_arg_info info[KB_ARG_MAX];
    kb_problem_args(p, info);
    const kb_arg_info *t = &info[a];

    s->nbdims = spatial_dims(p) + 2;
    if (t->ndims == 1) {
        for (int i = 0; i < s->nbdims; i++)
            s->dims[i] = s->strides[i] = 1;
        if (fits(t, "size", t->dims[0], why, len) != 0)
            return -1;
        s->dims[1] = (int)t->dims[0];
        s->strides[0] = (int)t->dims[0];
        return 0;
    }
    int64_t strides[KB_MAX_DIMS];
    strides_of(p, a, t, strides);
    for (int i = 0; i < t->ndims; i++) {
        if (fits(t, "size", t->dims[i], why, len) != 0 ||
            fits(t, "stride", strides[i], why, len) != 0)
            return -1;
        s->dims[i] = (int)t->dims[i];
        s->strides[i] = (int)strides[i];
    }
    return 0;
}

void kb_miopen_filter_nxc(const kb_problem *p, const void *src, void *dst)
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
