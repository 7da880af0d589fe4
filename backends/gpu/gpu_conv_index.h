/* gpu_conv_index.h - where the GPU GEMM and implicit-GEMM convolution
 * find their operands: plain C index math, the same functions on the host
 * (tests/backends/gpu/test_gpu_conv_index.c proves them against the reference) and in
 * the kernels (gpu_gemm.cu, gpu_conv.cu).
 *
 * GEMM: op(A)[m,k] and op(B)[k,n] in the storage kb_arg_offset gives A
 * and B (A [M,K] or [K,M] when ta, B [K,N] or [N,K] when tb).
 *
 * Convolution as an implicit GEMM per group g: rows m are output
 * positions (n, od, oh, ow), columns the group's OC/G output channels,
 * the reduction index r a (channel c of the group, tap kd, kh, kw):
 *   dst[m, g*OCG + j] = sum_r src[gather(m, r)] * wei[g*OCG + j, r'].
 * Offsets are linear in the logical index (tensors.c, both layouts), so a
 * src offset splits into a row part and a tap part: the kernel computes
 * each row's part (kb_conv_row) once and each reduction index's part
 * (kb_conv_tap) once per tile, and a gather is one addition plus the
 * bounds check that makes padding taps read zero.  The reduction order
 * follows src's storage: NCX c slowest (r = c*KDHW + tap, which is also
 * the weights' order), NXC c fastest (r = tap*CG + c), so neighbouring
 * reduction indices are neighbouring src elements. */
#ifndef KB_GPU_CONV_INDEX_H
#define KB_GPU_CONV_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "kernels/problem.h"

/* Functions the kernels call on the device and the tests on the host. */
#if defined(__CUDACC__) || defined(__HIPCC__)
#define KB_GPU_HD __host__ __device__
#else
#define KB_GPU_HD
#endif

/* Offset of op(A)[m,k] (A is M x K logically) and of op(B)[k,n]. */
static inline KB_GPU_HD int64_t kb_gemm_a_at(int64_t m_dim, int64_t k_dim,
                                             bool ta, int64_t m, int64_t k)
{
    return ta ? k * m_dim + m : m * k_dim + k;
}

static inline KB_GPU_HD int64_t kb_gemm_b_at(int64_t k_dim, int64_t n_dim,
                                             bool tb, int64_t k, int64_t n)
{
    return tb ? n * k_dim + k : k * n_dim + n;
}

/* A convolution's shape as the index math needs it (2D problems have
 * id = od = kd = 1 and no depth padding). */
typedef struct {
    bool nxc;                  /* src and dst channels-last */
    int64_t mb, g, cg, ocg;    /* images, groups, channels per group */
    int64_t id, ih, iw, od, oh, ow, kd, kh, kw;
    int64_t sd, sh, sw, pd, ph, pw;
    int64_t dd, dh, dw;        /* effective dilations: the desc's + 1 */
    int64_t rows;              /* GEMM rows: mb * od * oh * ow */
    int64_t red;               /* reduction length: cg * kd * kh * kw */
    /* element strides of the logical dims (n, c, d, h, w) */
    int64_t src_n, src_c, src_d, src_h, src_w;
    int64_t dst_n, dst_c, dst_d, dst_h, dst_w;
} kb_conv_geom;

/* Strides of an activation [n, c, d, h, w] stored NCX or NXC. */
static inline void kb_conv_strides(bool nxc, int64_t c, int64_t d,
                                   int64_t h, int64_t w, int64_t *s)
{
    s[4] = nxc ? c : 1;
    s[3] = s[4] * w;
    s[2] = s[3] * h;
    s[1] = nxc ? 1 : s[2] * d;
    s[0] = nxc ? s[2] * d : s[1] * c;
}

/* Written field by field: the header is C and C++ (no designators). */
static inline kb_conv_geom kb_conv_geom_of(const kb_conv_desc *c,
                                           kb_layout layout)
{
    kb_conv_geom q;
    q.nxc = layout == KB_LAYOUT_NXC;
    q.mb = c->mb;
    q.g = c->g;
    q.cg = c->ic / c->g;
    q.ocg = c->oc / c->g;
    q.id = c->id, q.ih = c->ih, q.iw = c->iw;
    q.od = c->od, q.oh = c->oh, q.ow = c->ow;
    q.kd = c->kd, q.kh = c->kh, q.kw = c->kw;
    q.sd = c->sd, q.sh = c->sh, q.sw = c->sw;
    q.pd = c->pd, q.ph = c->ph, q.pw = c->pw;
    q.dd = c->dd + 1, q.dh = c->dh + 1, q.dw = c->dw + 1;
    q.rows = c->mb * c->od * c->oh * c->ow;
    q.red = q.cg * c->kd * c->kh * c->kw;
    int64_t s[5];
    kb_conv_strides(q.nxc, c->ic, c->id, c->ih, c->iw, s);
    q.src_n = s[0], q.src_c = s[1], q.src_d = s[2], q.src_h = s[3];
    q.src_w = s[4];
    kb_conv_strides(q.nxc, c->oc, c->od, c->oh, c->ow, s);
    q.dst_n = s[0], q.dst_c = s[1], q.dst_d = s[2], q.dst_h = s[3];
    q.dst_w = s[4];
    return q;
}

/* Output position (n, od, oh, ow) of GEMM row m (m = ((n*OD + od)*OH +
 * oh)*OW + ow). */
typedef struct {
    int64_t n, d, h, w;
} kb_conv_pos;

static inline KB_GPU_HD kb_conv_pos kb_conv_pos_of(const kb_conv_geom *q,
                                                   int64_t m)
{
    kb_conv_pos p;
    p.w = m % q->ow;
    m /= q->ow;
    p.h = m % q->oh;
    m /= q->oh;
    p.d = m % q->od;
    p.n = m / q->od;
    return p;
}

/* Row m's part of a src gather in group g: the input coordinates its
 * window starts at (before the taps; negative over the padding) and the
 * offset of (n, first channel of g, those coordinates). */
typedef struct {
    int64_t base;
    int64_t z, y, x;
} kb_conv_row;

static inline KB_GPU_HD kb_conv_row kb_conv_row_of(const kb_conv_geom *q,
                                                   int64_t m, int64_t g)
{
    kb_conv_pos p = kb_conv_pos_of(q, m);
    kb_conv_row r;
    r.z = p.d * q->sd - q->pd;
    r.y = p.h * q->sh - q->ph;
    r.x = p.w * q->sw - q->pw;
    r.base = p.n * q->src_n + g * q->cg * q->src_c + r.z * q->src_d +
             r.y * q->src_h + r.x * q->src_w;
    return r;
}

/* Reduction index r's part: the tap's displacement (dilated) from the
 * window's start, its src offset within the group, and its weight offset
 * within an output channel's [C/G, KD, KH, KW]. */
typedef struct {
    int64_t soff, woff;
    int64_t dz, dy, dx;
} kb_conv_tap;

/* The tap of channel c (within the group) and kernel position kd, kh, kw. */
static inline KB_GPU_HD kb_conv_tap kb_conv_tap_at(const kb_conv_geom *q,
                                                   int64_t c, int64_t kd,
                                                   int64_t kh, int64_t kw)
{
    kb_conv_tap t;
    t.dz = kd * q->dd;
    t.dy = kh * q->dh;
    t.dx = kw * q->dw;
    t.soff = c * q->src_c + t.dz * q->src_d + t.dy * q->src_h +
             t.dx * q->src_w;
    t.woff = ((c * q->kd + kd) * q->kh + kh) * q->kw + kw;
    return t;
}

/* Reduction index r, 0 <= r < red, in the layout's order (see the top). */
static inline KB_GPU_HD kb_conv_tap kb_conv_tap_of(const kb_conv_geom *q,
                                                   int64_t r)
{
    const int64_t taps = q->kd * q->kh * q->kw;
    const int64_t c = q->nxc ? r % q->cg : r / taps;
    const int64_t t = q->nxc ? r / q->cg : r % taps;
    return kb_conv_tap_at(q, c, t / (q->kh * q->kw), (t / q->kw) % q->kh,
                          t % q->kw);
}

/* The src offset row r reads at tap t, or -1 when the tap falls on the
 * padding. */
static inline KB_GPU_HD int64_t kb_conv_src_at(const kb_conv_geom *q,
                                               const kb_conv_row *r,
                                               const kb_conv_tap *t)
{
    const int64_t z = r->z + t->dz, y = r->y + t->dy, x = r->x + t->dx;
    if (z < 0 || z >= q->id || y < 0 || y >= q->ih || x < 0 || x >= q->iw)
        return -1;
    return r->base + t->soff;
}

/* The weight output channel oc (over all groups) multiplies at tap t. */
static inline KB_GPU_HD int64_t kb_conv_wei_at(const kb_conv_geom *q,
                                               int64_t oc,
                                               const kb_conv_tap *t)
{
    return oc * q->red + t->woff;
}

/* Offset of dst at GEMM row m, channel 0; channel oc adds oc * dst_c. */
static inline KB_GPU_HD int64_t kb_conv_dst_row(const kb_conv_geom *q,
                                                int64_t m)
{
    kb_conv_pos p = kb_conv_pos_of(q, m);
    return p.n * q->dst_n + p.d * q->dst_d + p.h * q->dst_h +
           p.w * q->dst_w;
}

/* The GEMM row m and output channel oc of dst's element at offset e: the
 * inverse of kb_conv_dst_row(m) + oc * dst_c, so that a kernel walking
 * dst in storage order writes it contiguously. */
static inline KB_GPU_HD void kb_conv_dst_elem(const kb_conv_geom *q,
                                              int64_t e, int64_t *m,
                                              int64_t *oc)
{
    const int64_t oc_all = q->g * q->ocg;
    if (q->nxc) {
        *oc = e % oc_all;
        *m = e / oc_all;
        return;
    }
    const int64_t spatial = q->od * q->oh * q->ow;
    const int64_t pos = e % spatial, nc = e / spatial;
    *oc = nc % oc_all;
    *m = nc / oc_all * spatial + pos;
}

#endif
