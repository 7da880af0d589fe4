/* tensors.c - the tensor table of a problem: roles, logical shapes and the
 * physical offset of each logical element. */
#include "tensors.h"

#include "convert.h"

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

/* The tensor each gradient is the gradient of: it has that one's shape. */
static kb_arg primal_of(kb_arg a)
{
    switch (a) {
    case KB_ARG_DIFF_SRC: return KB_ARG_SRC;
    case KB_ARG_DIFF_WEI: return KB_ARG_WEI;
    case KB_ARG_DIFF_BIA: return KB_ARG_BIA;
    case KB_ARG_DIFF_DST: return KB_ARG_DST;
    case KB_ARG_DIFF_SCALE: return KB_ARG_SCALE;
    case KB_ARG_DIFF_SHIFT: return KB_ARG_SHIFT;
    default: return a;
    }
}

/* Logical shape of tensor a of p into dims (every tensor the kind can
 * have, whether or not p's direction uses it); returns its number of
 * dims, or 0 when the kind has no such tensor.  Kept apart from the roles
 * because kb_arg_offset needs only this, once per element. */
static int arg_shape(const kb_problem *p, kb_arg a, int64_t *dims)
{
    a = primal_of(a);
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
            return 1;
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

#define B(a) (1u << KB_ARG_##a)

/* What each direction reads and writes, per kind.  GEMM's forward passes
 * are all alike; its dst is also read when beta != 0 (arg_roles).  A
 * direction the kind lacks (names.c) has no row and is never parsed. */
static const struct {
    unsigned in, out;
} roles[KB_KIND_COUNT][KB_DIR_COUNT] = {
    [KB_CONV] = {
        [KB_FWD_B] = {B(SRC) | B(WEI) | B(BIA), B(DST)},
        [KB_FWD_D] = {B(SRC) | B(WEI), B(DST)},
        [KB_FWD_I] = {B(SRC) | B(WEI), B(DST)},
        [KB_BWD_D] = {B(DIFF_DST) | B(WEI), B(DIFF_SRC)},
        [KB_BWD_W] = {B(SRC) | B(DIFF_DST), B(DIFF_WEI)},
        [KB_BWD_WB] = {B(SRC) | B(DIFF_DST), B(DIFF_WEI) | B(DIFF_BIA)},
    },
    [KB_GEMM] = {
        [KB_FWD_B] = {B(SRC) | B(WEI), B(DST)},
        [KB_FWD_D] = {B(SRC) | B(WEI), B(DST)},
        [KB_FWD_I] = {B(SRC) | B(WEI), B(DST)},
    },
    [KB_BNORM] = {
        [KB_FWD_D] = {B(SRC) | B(SCALE) | B(SHIFT), B(DST) | B(MEAN) | B(VAR)},
        [KB_FWD_I] = {B(SRC) | B(MEAN) | B(VAR) | B(SCALE) | B(SHIFT), B(DST)},
        [KB_BWD_D] = {B(SRC) | B(MEAN) | B(VAR) | B(SCALE) | B(DIFF_DST),
                      B(DIFF_SRC)},
        [KB_BWD_DW] = {B(SRC) | B(MEAN) | B(VAR) | B(SCALE) | B(DIFF_DST),
                       B(DIFF_SRC) | B(DIFF_SCALE) | B(DIFF_SHIFT)},
    },
};

#undef B

static void arg_roles(const kb_problem *p, kb_arg a, bool *in, bool *out)
{
    unsigned bit = 1u << a;
    *in = roles[p->kind][p->dir].in & bit;
    *out = roles[p->kind][p->dir].out & bit;
    if (p->kind == KB_GEMM && a == KB_ARG_DST)
        *in = p->gemm.beta != 0.0;
}

static const char *arg_name(const kb_problem *p, kb_arg a)
{
    static const char *const names[KB_ARG_MAX] = {
        "src", "wei", "bia", "dst", "mean", "var", "scale", "shift",
        "diff_src", "diff_wei", "diff_bia", "diff_dst", "diff_scale",
        "diff_shift"};
    if (p->kind == KB_GEMM && a == KB_ARG_SRC)
        return "a";
    if (p->kind == KB_GEMM && a == KB_ARG_WEI)
        return "b";
    return names[a];
}

kb_dtype kb_arg_dtype(const kb_problem *p, kb_arg a)
{
    a = primal_of(a);
    if (p->kind == KB_BNORM)
        return a == KB_ARG_SRC || a == KB_ARG_DST ? p->dt.src
                                                  : kb_problem_acc_dtype(p);
    switch (a) {
    case KB_ARG_SRC: return p->dt.src;
    case KB_ARG_WEI: return p->dt.wei;
    default: return p->dt.dst;
    }
}

void kb_problem_args(const kb_problem *p, kb_arg_info info[KB_ARG_MAX])
{
    memset(info, 0, sizeof(kb_arg_info) * KB_ARG_MAX);
    for (int a = 0; a < KB_ARG_MAX; a++) {
        kb_arg_info *t = &info[a];
        arg_roles(p, (kb_arg)a, &t->is_input, &t->is_output);
        if (!t->is_input && !t->is_output)
            continue;
        t->ndims = arg_shape(p, (kb_arg)a, t->dims);
        t->used = true;
        t->dt = kb_arg_dtype(p, (kb_arg)a);
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
    kb_arg primal = primal_of(a);
    bool activation = primal == KB_ARG_SRC || primal == KB_ARG_DST;
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
                                   kb_dtype_size(info[a].dt), &bytes) ||
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
                                   kb_dtype_size(info[a].dt), &bytes))
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
    switch (dt) {
    case KB_F64: return ((const double *)base)[off];
    case KB_BF16: return kb_bf16_to_f32(((const uint16_t *)base)[off]);
    case KB_F16: return kb_f16_to_f32(((const uint16_t *)base)[off]);
    case KB_F32: break;
    }
    return ((const float *)base)[off];
}

void kb_store(kb_dtype dt, void *base, int64_t off, double v)
{
    switch (dt) {
    case KB_F64: ((double *)base)[off] = v; return;
    case KB_BF16: ((uint16_t *)base)[off] = kb_f32_to_bf16((float)v); return;
    case KB_F16: ((uint16_t *)base)[off] = kb_f32_to_f16((float)v); return;
    case KB_F32: break;
    }
    ((float *)base)[off] = (float)v;
}
