/* tensors.c - the tensor table of a problem: roles, logical shapes and the
 * physical offset of each logical element. */
#include "tensors.h"

#include <stdlib.h>
#include <string.h>

/* Activation shape [N, C, (D,) H, W]: 3D problems keep the depth.
 * Returns the number of dims. */
static int activation_dims(int ndims, int64_t n, int64_t c, int64_t d,
                           int64_t h, int64_t w, int64_t *dims)
{
    int k = 0;
    dims[k++] = n;
    dims[k++] = c;
    if (ndims == 3)
        dims[k++] = d;
    dims[k++] = h;
    dims[k++] = w;
    return k;
}

/* Logical shape of tensor a of p into dims; returns its number of dims,
 * or 0 when p has no such tensor.  Kept separate from the rest of the
 * table because kb_arg_offset needs only this, once per element. */
static int arg_shape(const kb_problem *p, kb_arg a, int64_t *dims)
{
    if (p->kind == KB_CONV) {
        const kb_conv_desc *c = &p->conv;
        switch (a) {
        case KB_ARG_SRC:
            return activation_dims(c->ndims, c->mb, c->ic, c->id, c->ih, c->iw, dims);
        case KB_ARG_WEI:
            return activation_dims(c->ndims, c->oc, c->ic / c->g, c->kd, c->kh,
                                   c->kw, dims);
        case KB_ARG_BIA:
            dims[0] = c->oc;
            return kb_problem_has_bias(p) ? 1 : 0;
        case KB_ARG_DST:
            return activation_dims(c->ndims, c->mb, c->oc, c->od, c->oh, c->ow, dims);
        default:
            return 0;
        }
    }
    if (p->kind == KB_GEMM) {
        const kb_gemm_desc *g = &p->gemm;
        switch (a) {
        case KB_ARG_SRC: dims[0] = g->m; dims[1] = g->k; return 2;
        case KB_ARG_WEI: dims[0] = g->k; dims[1] = g->n; return 2;
        case KB_ARG_DST: dims[0] = g->m; dims[1] = g->n; return 2;
        default: return 0;
        }
    }
    const kb_bnorm_desc *b = &p->bnorm;
    switch (a) {
    case KB_ARG_SRC:
    case KB_ARG_DST:
        return activation_dims(b->ndims, b->mb, b->ic, b->id, b->ih, b->iw, dims);
    case KB_ARG_MEAN:
    case KB_ARG_VAR:
    case KB_ARG_SCALE:
    case KB_ARG_SHIFT:
        dims[0] = b->ic;
        return 1;
    default:
        return 0;
    }
}

/* Which tensors are read and which written.  GEMM reads dst when
 * beta != 0; bnorm training computes the statistics that inference is
 * given. */
static void arg_roles(const kb_problem *p, kb_arg a, bool *in, bool *out)
{
    *in = a != KB_ARG_DST;
    *out = a == KB_ARG_DST;
    if (p->kind == KB_GEMM && a == KB_ARG_DST)
        *in = p->gemm.beta != 0.0;
    if (p->kind == KB_BNORM && p->dir != KB_FWD_I &&
        (a == KB_ARG_MEAN || a == KB_ARG_VAR)) {
        *in = false;
        *out = true;
    }
}

static const char *arg_name(const kb_problem *p, kb_arg a)
{
    static const char *const names[KB_ARG_MAX] = {
        "src", "wei", "bia", "dst", "mean", "var", "scale", "shift"};
    if (p->kind == KB_GEMM && a == KB_ARG_SRC)
        return "a";
    if (p->kind == KB_GEMM && a == KB_ARG_WEI)
        return "b";
    return names[a];
}

void kb_problem_args(const kb_problem *p, kb_arg_info info[KB_ARG_MAX])
{
    memset(info, 0, sizeof(kb_arg_info) * KB_ARG_MAX);
    for (int a = 0; a < KB_ARG_MAX; a++) {
        kb_arg_info *t = &info[a];
        t->ndims = arg_shape(p, (kb_arg)a, t->dims);
        if (t->ndims == 0)
            continue;
        t->used = true;
        arg_roles(p, (kb_arg)a, &t->is_input, &t->is_output);
        t->name = arg_name(p, (kb_arg)a);
        if (t->is_input && t->is_output)
            t->input_name = "c";   /* only GEMM's dst is both */
        /* nelems is -1 when the product overflows int64 (absurd user
         * sizes); callers treat that as "does not fit". */
        t->nelems = 1;
        for (int i = 0; i < t->ndims; i++)
            if (__builtin_mul_overflow(t->nelems, t->dims[i], &t->nelems)) {
                t->nelems = -1;
                break;
            }
    }
}

/* Row-major offset of idx within dims. */
static int64_t row_major(int ndims, const int64_t *dims, const int64_t *idx)
{
    int64_t off = 0;
    for (int i = 0; i < ndims; i++)
        off = off * dims[i] + idx[i];
    return off;
}

/* Channels-last offset of a logical [N, C, spatial...] index: the
 * physical order is [N, spatial..., C]. */
static int64_t channels_last(int ndims, const int64_t *dims, const int64_t *idx)
{
    int64_t off = idx[0];
    for (int i = 2; i < ndims; i++)
        off = off * dims[i] + idx[i];
    return off * dims[1] + idx[1];
}

int64_t kb_arg_offset(const kb_problem *p, kb_arg a, const int64_t *idx)
{
    int64_t dims[KB_MAX_DIMS];
    int ndims = arg_shape(p, a, dims);

    if (p->kind == KB_GEMM) {
        const kb_gemm_desc *g = &p->gemm;
        /* A transposed is stored [K, M]; B transposed is stored [N, K]. */
        if (a == KB_ARG_SRC && g->ta)
            return idx[1] * g->m + idx[0];
        if (a == KB_ARG_WEI && g->tb)
            return idx[1] * g->k + idx[0];
        return row_major(ndims, dims, idx);
    }
    bool activation = a == KB_ARG_SRC || a == KB_ARG_DST;
    if (activation && p->layout == KB_LAYOUT_NXC)
        return channels_last(ndims, dims, idx);
    return row_major(ndims, dims, idx);
}

size_t kb_problem_tensor_bytes(const kb_problem *p)
{
    kb_arg_info info[KB_ARG_MAX];
    size_t total = 0, bytes;

    kb_problem_args(p, info);
    for (int a = 0; a < KB_ARG_MAX; a++) {
        if (!info[a].used)
            continue;
        /* Overflow means the problem cannot fit anywhere: saturate. */
        if (info[a].nelems < 0 ||
            __builtin_mul_overflow((size_t)info[a].nelems,
                                   kb_dtype_size(p->dt), &bytes) ||
            __builtin_add_overflow(total, bytes, &total))
            return SIZE_MAX;
    }
    return total;
}

int kb_tensors_alloc(const kb_problem *p, kb_tensors *t)
{
    kb_arg_info info[KB_ARG_MAX];

    memset(t, 0, sizeof(*t));
    kb_problem_args(p, info);
    for (int a = 0; a < KB_ARG_MAX; a++) {
        if (!info[a].used)
            continue;
        size_t bytes;
        if (info[a].nelems < 0 ||
            __builtin_mul_overflow((size_t)info[a].nelems,
                                   kb_dtype_size(p->dt), &bytes))
            goto fail;
        /* aligned_alloc wants a multiple of the alignment; 64 B keeps
         * every tensor on its own cache lines and suits AVX-512 loads. */
        bytes = (bytes + 63) & ~(size_t)63;
        t->ptr[a] = aligned_alloc(64, bytes ? bytes : 64);
        if (!t->ptr[a])
            goto fail;
    }
    return 0;
fail:
    kb_tensors_free(t);
    return -1;
}

void kb_tensors_free(kb_tensors *t)
{
    for (int a = 0; a < KB_ARG_MAX; a++) {
        free(t->ptr[a]);
        t->ptr[a] = NULL;
    }
}

double kb_load(kb_dtype dt, const void *base, int64_t off)
{
    if (dt == KB_F64)
        return ((const double *)base)[off];
    return ((const float *)base)[off];
}

void kb_store(kb_dtype dt, void *base, int64_t off, double v)
{
    if (dt == KB_F64)
        ((double *)base)[off] = v;
    else
        ((float *)base)[off] = (float)v;
}
