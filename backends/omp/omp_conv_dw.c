/* omp_conv_dw.c - depthwise convolution (CG == 1, any channel
 * multiplier KG) for the omp backend, a direct loop per layout, where
 * kb_omp_conv_path_of (omp_conv.c) sends a layer within its limits (the
 * KB_OMP_DW_* bounds of omp_kernels.h, stated with each loop below).
 * NCX 2D layers whose rows fit a copy take omp_conv_dw_rows.c instead. */
#include "omp_conv_geom.h"
#include "omp_kernels.h"

#include <string.h>

/* Little arithmetic per byte, so what matters is touching each output
 * once: all taps are applied while one output row (NCX) or one pixel's
 * channel vector (NXC) is in registers or L1, never a whole plane per
 * tap.  Both walk the taps valid for the row with the bounds of
 * tap_range. */

/* Output columns [lo[kx], hi[kx]) whose tap kx falls inside the input
 * row: the same for every row, so worked out once per call (two
 * divisions a tap cost more than a short row's multiply-adds).  They live
 * on the stack, so the NCX loop takes kernels up to KB_OMP_DW_NCX_MAX_KW
 * wide. */
typedef struct {
    int64_t lo[KB_OMP_DW_NCX_MAX_KW], hi[KB_OMP_DW_NCX_MAX_KW];
} tap_ranges;

static void tap_ranges_of(const kb_omp_conv_geom *q, tap_ranges *r)
{
    for (int64_t kx = 0; kx < q->kw; kx++) {
        int64_t ix0 = -q->pw + kx * q->dw;
        /* ox is valid when 0 <= ix0 + ox*sw < iw. */
        r->lo[kx] = ix0 >= 0 ? 0 : ceil_div(-ix0, q->sw);
        r->hi[kx] = ix0 < q->iw ? min64(q->ow, ceil_div(q->iw - ix0, q->sw))
                                : 0;
    }
}

/* NCX: output columns [x0, x1) of row (oz, oy) of one channel, into
 * acc[0 .. x1-x0) in f32.  s is the element offset of the input
 * channel's plane in q->src, w that of the channel's kd*kh*kw taps in
 * wei (stored as src is); instantiated per type DT. */
static inline __attribute__((always_inline)) void
dw_row_ncx_body(kb_dtype DT, const kb_omp_conv_geom *q, const tap_ranges *r,
                int64_t s, const void *wei, int64_t w, float b, int64_t oz,
                int64_t oy, int64_t x0, int64_t x1, float *acc)
{
    for (int64_t ox = 0; ox < x1 - x0; ox++)
        acc[ox] = b;
    for (int64_t kz = 0; kz < q->kd; kz++) {
        int64_t iz = oz * q->sd - q->pd + kz * q->dd;
        if (iz < 0 || iz >= q->id)
            continue;
        for (int64_t ky = 0; ky < q->kh; ky++) {
            int64_t iy = oy * q->sh - q->ph + ky * q->dh;
            if (iy < 0 || iy >= q->ih)
                continue;
            int64_t srow = s + (iz * q->ih + iy) * q->iw;
            for (int64_t kx = 0; kx < q->kw; kx++) {
                float wv = kb_omp_elem(DT, wei, w + (kz * q->kh + ky) * q->kw +
                                                kx);
                int64_t ix0 = -q->pw + kx * q->dw, sw = q->sw;
                int64_t lo = max64(r->lo[kx], x0), hi = min64(r->hi[kx], x1);
                if (DT == KB_F32) {
                    /* f32 as it always was; the widening loops below
                     * vectorise where they can (f16's may not).  Stride
                     * 2 gets a loop of its own: with the stride a
                     * constant GCC loads it as vectors and permutes, with
                     * it a variable it runs scalar (DeepCAM's s2_dw
                     * layers ran at 2-5 % of the FMA ceiling). */
                    const float *s32 = (const float *)q->src + srow + ix0;
                    float *a = acc - x0;
                    if (sw == 2) {
#pragma omp simd
                        for (int64_t ox = lo; ox < hi; ox++)
                            a[ox] += wv * s32[2 * ox];
                    } else {
#pragma omp simd
                        for (int64_t ox = lo; ox < hi; ox++)
                            a[ox] += wv * s32[ox * sw];
                    }
                } else {
                    for (int64_t ox = lo; ox < hi; ox++)
                        acc[ox - x0] += wv * kb_omp_elem(DT, q->src,
                                                         srow + ix0 + ox * sw);
                }
            }
        }
    }
}

/* Columns a 16-bit output row is summed in (on the stack) before it is
 * rounded; an f32 row is summed in place. */
enum { DW_NCX_CHUNK = 512 };

/* Output row (oz, oy) of one channel, at element offset o of dst. */
static void dw_row_ncx(const kb_omp_conv_geom *q, const tap_ranges *r,
                       int64_t s, const void *wei, int64_t w, float b,
                       int64_t oz, int64_t oy, kb_dtype dst_dt, void *dst,
                       int64_t o)
{
    if (dst_dt == KB_F32) {
        KB_OMP_PER_DTYPE(q->dt, dw_row_ncx_body, q, r, s, wei, w, b, oz, oy,
                         0, q->ow, (float *)dst + o);
        return;
    }
    float acc[DW_NCX_CHUNK];
    for (int64_t x0 = 0; x0 < q->ow; x0 += DW_NCX_CHUNK) {
        int64_t x1 = min64(q->ow, x0 + DW_NCX_CHUNK);
        KB_OMP_PER_DTYPE(q->dt, dw_row_ncx_body, q, r, s, wei, w, b, oz, oy,
                         x0, x1, acc);
        kb_omp_narrow(dst_dt, acc, x1 - x0, dst, o + x0);
    }
}

void kb_omp_dw_ncx(const kb_problem *p, const kb_tensors *t, int nthreads)
{
    const kb_conv_desc *d = &p->conv;
    kb_omp_conv_geom q = kb_omp_conv_geom_of(p, t->ptr[KB_ARG_SRC], 0);
    int64_t kg = d->oc / d->g, taps = d->kd * d->kh * d->kw;
    int64_t in_plane = d->id * d->ih * d->iw, out_plane = d->od * d->oh * d->ow;
    const void *wei = t->ptr[KB_ARG_WEI];
    const void *bias = kb_problem_has_bias(p) ? t->ptr[KB_ARG_BIA] : NULL;
    tap_ranges r;
    tap_ranges_of(&q, &r);

#pragma omp parallel for collapse(2) schedule(static) num_threads(nthreads)
    for (int64_t n = 0; n < d->mb; n++)
        for (int64_t oc = 0; oc < d->oc; oc++) {
            int64_t s = (n * d->ic + oc / kg) * in_plane;
            int64_t o = (n * d->oc + oc) * out_plane;
            float b = bias ? kb_omp_elem(p->dt.dst, bias, oc) : 0.0f;
            for (int64_t oz = 0; oz < d->od; oz++)
                for (int64_t oy = 0; oy < d->oh; oy++)
                    dw_row_ncx(&q, &r, s, wei, oc * taps, b, oz, oy,
                               p->dt.dst, t->ptr[KB_ARG_DST],
                               o + (oz * d->oh + oy) * d->ow);
        }
}

/* NXC: channels [c0, c0+cn) of output row (oz, oy) of image n, a pixel at
 * a time with the channel vector in registers.  wt holds the block's
 * weights tap-major (wt[tap*DW_CB + c]) and bias its bias, both widened
 * to f32, so with KG == 1 the taps are contiguous vectors in both
 * operands.  wt and the row offsets live on the stack, so the NXC loop
 * takes kernels of up to KB_OMP_DW_NXC_MAX_TAPS taps (5x5x5; wt is then
 * 32 KiB). */
enum { DW_CB = 64, DW_NV = DW_CB / 16 };

/* acc[c] += w[c] * src channel of c, for the block's cn channels; sp is
 * the pixel's element offset in src (stored as DT). */
static inline __attribute__((always_inline)) void
dw_tap(kb_dtype DT, kb_v16sf acc[DW_NV], const float *w, const void *src,
       int64_t sp, int64_t c0, int64_t cn, int64_t kg)
{
    if (kg == 1 && cn == DW_CB) {
        for (int v = 0; v < DW_NV; v++) {
            kb_v16sf wv, sv;
            memcpy(&wv, w + 16 * v, sizeof wv);
            kb_omp_widen(DT, src, sp + c0 + 16 * v, 16, (float *)&sv);
            acc[v] += wv * sv;
        }
        return;
    }
    float *a = (float *)acc;   /* a partial block, or a channel multiplier */
    for (int64_t c = 0; c < cn; c++)
        a[c] += w[c] * kb_omp_elem(DT, src, sp + (c0 + c) / kg);
}

/* img: the image's element offset in q->src; the row goes to dst from
 * element offset orow, rounded to dst_dt. */
static inline __attribute__((always_inline)) void
dw_row_nxc_body(kb_dtype DT, const kb_problem *p, const kb_omp_conv_geom *q,
                int64_t img, const float *wt, const float *bias, int64_t c0,
                int64_t cn, int64_t oz, int64_t oy, void *dst, int64_t orow)
{
    const kb_conv_desc *d = &p->conv;
    int64_t kg = d->oc / d->g;
    /* The input rows the (kz, ky) taps of this output row fall on, once
     * per row rather than once per pixel. */
    int64_t rows[KB_OMP_DW_NXC_MAX_TAPS];
    const float *wrow[KB_OMP_DW_NXC_MAX_TAPS];
    int nrows = 0;
    for (int64_t kz = 0; kz < q->kd; kz++) {
        int64_t iz = oz * q->sd - q->pd + kz * q->dd;
        for (int64_t ky = 0; iz >= 0 && iz < q->id && ky < q->kh; ky++) {
            int64_t iy = oy * q->sh - q->ph + ky * q->dh;
            if (iy < 0 || iy >= q->ih)
                continue;
            rows[nrows] = img + (iz * q->ih + iy) * q->iw * d->ic;
            wrow[nrows++] = wt + (kz * q->kh + ky) * q->kw * DW_CB;
        }
    }
    for (int64_t ox = 0; ox < q->ow; ox++) {
        kb_v16sf acc[DW_NV] = {{0}};
        if (bias)
            memcpy(acc, bias, (size_t)cn * sizeof(float));
        for (int r = 0; r < nrows; r++)
            for (int64_t kx = 0; kx < q->kw; kx++) {
                int64_t ix = ox * q->sw - q->pw + kx * q->dw;
                if (ix >= 0 && ix < q->iw)
                    dw_tap(DT, acc, wrow[r] + kx * DW_CB, q->src,
                           rows[r] + ix * d->ic, c0, cn, kg);
            }
        kb_omp_narrow(p->dt.dst, (const float *)acc, cn, dst,
                      orow + ox * d->oc + c0);
    }
}

void kb_omp_dw_nxc(const kb_problem *p, const kb_tensors *t, int nthreads)
{
    const kb_conv_desc *d = &p->conv;
    kb_omp_conv_geom q = kb_omp_conv_geom_of(p, t->ptr[KB_ARG_SRC], 0);
    int64_t taps = d->kd * d->kh * d->kw;
    int64_t nblocks = ceil_div(d->oc, DW_CB);
    const void *wei = t->ptr[KB_ARG_WEI];
    const void *bias = kb_problem_has_bias(p) ? t->ptr[KB_ARG_BIA] : NULL;

#pragma omp parallel for collapse(2) schedule(static) num_threads(nthreads)
    for (int64_t row = 0; row < d->mb * d->od * d->oh; row++)
        for (int64_t blk = 0; blk < nblocks; blk++) {
            int64_t n = row / (d->od * d->oh), oz = row / d->oh % d->od;
            int64_t oy = row % d->oh, c0 = blk * DW_CB;
            int64_t cn = min64(DW_CB, d->oc - c0);
            /* rebuilt per row because that is small next to the row's
             * work */
            float wt[KB_OMP_DW_NXC_MAX_TAPS * DW_CB], bf[DW_CB];
            for (int64_t k = 0; k < taps; k++)
                for (int64_t c = 0; c < cn; c++)
                    wt[k * DW_CB + c] = kb_omp_elem(p->dt.wei, wei,
                                                    (c0 + c) * taps + k);
            if (bias)
                kb_omp_widen(p->dt.dst, bias, c0, cn, bf);
            KB_OMP_PER_DTYPE(q.dt, dw_row_nxc_body, p, &q,
                             n * d->id * d->ih * d->iw * d->ic, wt,
                             bias ? bf : NULL, c0, cn, oz, oy,
                             t->ptr[KB_ARG_DST],
                             ((n * d->od + oz) * d->oh + oy) * d->ow * d->oc);
        }
}
