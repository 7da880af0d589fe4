/* omp_conv_bwd_data.c - convolution backward data (BWD_D: diff_src from
 * diff_dst and the weights) for the omp backend, 2D and 3D, NCX and NXC,
 * groups, stride, padding, dilation; f32, bf16 or f16 (the GEMM paths
 * widen as they pack, col2im rounds each diff_src element once; the
 * depthwise loops see f32, omp_conv_bwd.c converts around them).
 *
 *   diff_src[n, c, i] = sum over k in c's group and taps t with
 *                       o = (i + pad - t*dil) / stride integral, in range,
 *                       of diff_dst[n, k, o] * wei[k, c % CG, t].
 *
 * Stride 1: that is the forward convolution of diff_dst with the weights
 * flipped in every spatial dimension and transposed in K and C, padded by
  * (kernel-1)*dil - pad (negative when the padding is wider: the forward's
 * bounds checks take it), so omp_conv.c runs it, with its implicit GEMM
 * and depthwise loops.  Strided: per group, for as many images at once
 * as kb_omp_bwd_col_images allows, the engine computes col = W^T x
 * diff_dst (W^T [CG*taps, KG], the reduction only KG long) into a
 * buffer, and col2im gathers into each input row what its taps
 * contributed; depthwise skips the GEMM (K would be 1) and gathers
 * w * diff_dst straight from diff_dst.  Each input row is one thread's
 * and is built in a per-thread row buffer, so nothing is zeroed first
 * and no two threads add into one element:
 *   NCX: the row buffer is phase-major (input column ix at
 *        (ix % sw) * ceil(iw/sw) + ix / sw), where the columns one tap
 *        reaches from consecutive output columns are adjacent, so every
 *        tap is a contiguous multiply-add; one strided copy per row
 *        interleaves the phases into diff_src;
 *   NXC: the channels are contiguous, the stride does not matter; the
 *        depthwise row buffer holds one channel block of the row. */
#include "omp_conv_bwd.h"

#include <omp.h>
#include <string.h>

enum { CB = KB_OMP_BWD_CB, NR = KB_OMP_NR };

/* The forward problem whose dst is diff_src: input diff_dst, output
 * diff_src, channels swapped, padding (k-1)*dil - pad, stride 1. */
kb_problem kb_omp_bwd_data_transposed_problem(const kb_problem *p)
{
    const kb_conv_desc *o = &p->conv;
    kb_problem f = *p;
    kb_conv_desc *d = &f.conv;
    f.dir = KB_FWD_D;
    /* its src is diff_dst (stored as dst), its dst diff_src (as src) */
    f.dt = (kb_dts){ p->dt.dst, p->dt.wei, p->dt.src };
    d->ic = o->oc;
    d->oc = o->ic;
    d->id = o->od;
    d->ih = o->oh;
    d->iw = o->ow;
    d->od = o->id;
    d->oh = o->ih;
    d->ow = o->iw;
    d->pd = (o->kd - 1) * (o->dd + 1) - o->pd;
    d->ph = (o->kh - 1) * (o->dh + 1) - o->ph;
    d->pw = (o->kw - 1) * (o->dw + 1) - o->pw;
    return f;
}

/* out[g*CG + c][k][taps-1-t] = wei[g*KG + k][c][t], elements copied as
 * they are stored: reversing the flat tap index flips every spatial
 * dimension at once. */
void kb_omp_bwd_data_transposed_weights(const kb_problem *p, const void *wei,
                                        void *out)
{
    kb_omp_bwd_geom q = kb_omp_bwd_geom_of(p);
    size_t es = kb_dtype_size(p->dt.wei);
    for (int64_t g = 0; g < q.g; g++)
        for (int64_t k = 0; k < q.kg; k++)
            for (int64_t c = 0; c < q.cg; c++) {
                int64_t w = ((g * q.kg + k) * q.cg + c) * q.taps;
                int64_t o = ((g * q.cg + c) * q.kg + k) * q.taps;
                for (int64_t t = 0; t < q.taps; t++)
                    memcpy((char *)out + (size_t)(o + q.taps - 1 - t) * es,
                           (const char *)wei + (size_t)(w + t) * es, es);
            }
}

void kb_omp_bwd_data_transposed(const kb_omp_conv_bwd_plan *pl)
{
    kb_tensors ft = {0};
    ft.ptr[KB_ARG_SRC] = pl->t.ptr[KB_ARG_DIFF_DST];
    ft.ptr[KB_ARG_WEI] = pl->wei;
    ft.ptr[KB_ARG_DST] = pl->t.ptr[KB_ARG_DIFF_SRC];
    kb_omp_conv(&pl->fwd, &ft, pl->wei_nxc, &pl->ws, pl->nthreads);
}

/* tmp (input row (iz, iy) of one channel, phase-major) += w[t] * the
 * output row tap t reaches it from, of plane base + t*tstride, for every
 * tap; w NULL means 1. */
static void gather_row_ncx(const kb_omp_bwd_geom *q, int64_t iz, int64_t iy,
                           const float *base, int64_t tstride,
                           const float *w, float *tmp)
{
    for (int64_t kz = 0; kz < q->kd; kz++) {
        int64_t oz = kb_omp_bwd_source_of(iz, kz, q->sd, q->pd, q->dd, q->od);
        for (int64_t ky = 0; oz >= 0 && ky < q->kh; ky++) {
            int64_t oy = kb_omp_bwd_source_of(iy, ky, q->sh, q->ph, q->dh, q->oh);
            if (oy < 0)
                continue;
            for (int64_t kx = 0; kx < q->kw; kx++) {
                int64_t t = (kz * q->kh + ky) * q->kw + kx;
                int64_t lo = q->xt[kx].lo, hi = q->xt[kx].hi, m0 = q->xt[kx].m0;
                const float *srow = base + t * tstride +
                                    (oz * q->oh + oy) * q->ow;
                float wv = w ? w[t] : 1.0f;
#pragma omp simd
                for (int64_t ox = lo; ox < hi; ox++)
                    tmp[m0 + ox] += wv * srow[ox];
            }
        }
    }
}

/* diff_src's row at element off = the phase-major row buffer tmp,
 * interleaved and rounded to dt. */
static void store_row_ncx(const kb_omp_bwd_geom *q, const float *tmp,
                          kb_dtype dt, void *diff_src, int64_t off)
{
    int64_t pl = kb_omp_bwd_phase_len(q), sw = q->sw;
    if (sw == 1) {
        kb_omp_narrow(dt, tmp, q->iw, diff_src, off);
        return;
    }
    if (dt == KB_F32) {
        kb_omp_bwd_unphase_row(q, tmp, (float *)diff_src + off);
        return;
    }
    for (int64_t r = 0; r < sw; r++)
        for (int64_t m = 0; m * sw + r < q->iw; m++)
            kb_omp_store_elem(dt, diff_src, off + m * sw + r, tmp[r * pl + m]);
}

/* A thread's row buffer (rows, rows_elems floats per thread). */
static float *row_buffer(const kb_omp_conv_bwd_plan *pl)
{
    return pl->rows + omp_get_thread_num() * pl->row_elems;
}

/* col2im of images [n0, n0+nb), NCX: col is [G][CG*taps][nb*P], so
 * channel c's taps are the rows from c*taps of it, image i's pixels the
 * columns from i*P; one input row per step. */
static void col2im_ncx(const kb_omp_conv_bwd_plan *pl, int64_t n0, int64_t nb)
{
    const kb_omp_bwd_geom *q = &pl->q;
    void *diff_src = pl->t.ptr[KB_ARG_DIFF_SRC];
    int64_t rows = q->id * q->ih, tmp_len = q->sw * kb_omp_bwd_phase_len(q);
    int64_t cols = nb * q->out_px;
#pragma omp parallel for schedule(static) num_threads(pl->nthreads)
    for (int64_t icr = 0; icr < nb * q->ic * rows; icr++) {
        int64_t i = icr / (q->ic * rows), c = icr / rows % q->ic;
        int64_t iz = icr % rows / q->ih, iy = icr % q->ih;
        float *tmp = row_buffer(pl);
        memset(tmp, 0, (size_t)tmp_len * sizeof(float));
        gather_row_ncx(q, iz, iy,
                       pl->scratch + c * q->taps * cols + i * q->out_px, cols,
                       NULL, tmp);
        store_row_ncx(q, tmp, pl->dt.src, diff_src,
                      ((n0 + i) * q->ic + c) * q->in_px +
                          (iz * q->ih + iy) * q->iw);
    }
}

/* col2im of images [n0, n0+nb), NXC: col is [nb*P][G][taps*CG], and one
 * input row (all its pixels and channels) is one thread's, summed in its
 * row buffer and rounded into diff_src. */
static void col2im_nxc(const kb_omp_conv_bwd_plan *pl, int64_t n0, int64_t nb)
{
    const kb_omp_bwd_geom *q = &pl->q;
    int64_t rows = q->cg * q->taps, ld = q->ic * q->taps;
#pragma omp parallel for schedule(static) num_threads(pl->nthreads)
    for (int64_t r = 0; r < nb * q->id * q->ih; r++) {
        int64_t i = r / (q->id * q->ih), iz = r / q->ih % q->id, iy = r % q->ih;
        const float *col = pl->scratch + i * q->out_px * ld;
        float *drow = row_buffer(pl);
        memset(drow, 0, (size_t)(q->iw * q->ic) * sizeof(float));
        for (int64_t kz = 0; kz < q->kd; kz++) {
            int64_t oz = kb_omp_bwd_source_of(iz, kz, q->sd, q->pd, q->dd, q->od);
            for (int64_t ky = 0; oz >= 0 && ky < q->kh; ky++) {
                int64_t oy = kb_omp_bwd_source_of(iy, ky, q->sh, q->ph, q->dh, q->oh);
                if (oy < 0)
                    continue;
                for (int64_t kx = 0; kx < q->kw; kx++) {
                    int64_t t = (kz * q->kh + ky) * q->kw + kx;
                    for (int64_t ox = q->xt[kx].lo; ox < q->xt[kx].hi; ox++) {
                        float *d = drow + (ox * q->sw - q->pw + kx * q->dw) *
                                   q->ic;
                        const float *s = col + ((oz * q->oh + oy) * q->ow +
                                                ox) * ld + t * q->cg;
                        for (int64_t g = 0; g < q->g; g++) {
#pragma omp simd
                            for (int64_t c = 0; c < q->cg; c++)
                                d[g * q->cg + c] += s[g * rows + c];
                        }
                    }
                }
            }
        }
        kb_omp_narrow(pl->dt.src, drow, q->iw * q->ic,
                      pl->t.ptr[KB_ARG_DIFF_SRC],
                      (((n0 + i) * q->id + iz) * q->ih + iy) * q->iw * q->ic);
    }
}

/* What the NCX col GEMM's B packer reads: diff_dst from element off
 * (group g's first channel of image n0), its images' pixels side by
 * side as the columns. */
typedef struct {
    const kb_omp_bwd_geom *q;
    const void *dd;
    int64_t off;
    kb_dtype dt;
} dd_images;

/* B rows are the group's output channels (the reduction), columns the
 * pixels of consecutive images; panel j holds rows x NR floats,
 * channel-major, copied in runs that stay inside one image. */
static inline __attribute__((always_inline)) void
pack_b_dd_images_body(kb_dtype DT, const dd_images *x, int64_t r0,
                      int64_t c0, int64_t rows, int64_t cols, float *buf)
{
    const kb_omp_bwd_geom *q = x->q;
    int64_t P = q->out_px;
    for (int64_t jp = 0; jp < cols; jp += NR) {
        float *panel = buf + jp * rows;
        int64_t nr = cols - jp < NR ? cols - jp : NR;
        for (int64_t j = 0; j < nr;) {
            int64_t col = c0 + jp + j, n = col / P, p = col % P;
            int64_t seg = nr - j < P - p ? nr - j : P - p;
            for (int64_t kk = 0; kk < rows; kk++) {
                int64_t s = x->off + (n * q->oc + r0 + kk) * P + p;
                for (int64_t u = 0; u < seg; u++)
                    panel[kk * NR + j + u] = kb_omp_elem(DT, x->dd, s + u);
            }
            j += seg;
        }
        for (int64_t kk = 0; kk < rows; kk++)
            for (int64_t j = nr; j < NR; j++)
                panel[kk * NR + j] = 0.0f;
    }
}

static void pack_b_dd_images(const kb_omp_operand *op, int64_t r0, int64_t c0,
                             int64_t rows, int64_t cols, float *buf)
{
    const dd_images *x = op->ctx;
    KB_OMP_PER_DTYPE(x->dt, pack_b_dd_images_body, x, r0, c0, rows, cols,
                     buf);
}

/* col of images [n0, n0+nb), group g, on the engine: NCX
 * col_g[CG*taps, nb*P] = W_g^T x diff_dst_g, NXC col_g[nb*P, taps*CG] =
 * diff_dst_g x W'_g (W' the [taps*CG][KG] reorder, read transposed; NXC
 * stores the images' pixels one after another, a plain stride). */
static void col_gemm(const kb_omp_conv_bwd_plan *pl, int64_t n0, int64_t nb,
                     int64_t g)
{
    const kb_omp_bwd_geom *q = &pl->q;
    const void *dd = pl->t.ptr[KB_ARG_DIFF_DST], *wei = pl->t.ptr[KB_ARG_WEI];
    kb_dtype ddt = pl->dt.dst, wdt = pl->dt.wei;
    int64_t rows = q->cg * q->taps, cols = nb * q->out_px;
    dd_images x = { q, dd, (n0 * q->oc + g * q->kg) * q->out_px, ddt };
    kb_omp_gemm_args a = { .k = q->kg, .c_dt = KB_F32, .alpha = 1.0f,
                           .beta = 0.0f };
    if (!q->nxc) {
        a.m = rows;
        a.n = cols;
        a.a = (kb_omp_operand){ .pack = kb_omp_pack_a_strided,
                                .base = kb_omp_at(wdt, wei, g * q->kg * rows),
                                .rs = 1, .cs = rows, .dt = wdt };
        /* one image is a plain strided matrix, its packer the engine's */
        a.b = nb > 1 ? (kb_omp_operand){ .pack = pack_b_dd_images,
                                         .ctx = &x, .dt = ddt }
                     : (kb_omp_operand){ .pack = kb_omp_pack_b_strided,
                                         .base = kb_omp_at(ddt, dd, x.off),
                                         .rs = q->out_px, .cs = 1,
                                         .dt = ddt };
        a.c = pl->scratch + g * rows * cols;
        a.rs_c = cols;
    } else {
        a.m = cols;
        a.n = rows;
        a.a = (kb_omp_operand){ .pack = kb_omp_pack_a_strided,
                                .base = kb_omp_at(ddt, dd,
                                                  n0 * q->out_px * q->oc +
                                                  g * q->kg),
                                .rs = q->oc, .cs = 1, .dt = ddt };
        a.b = (kb_omp_operand){ .pack = kb_omp_pack_b_strided,
                                .base = kb_omp_at(wdt, pl->wei,
                                                  g * rows * q->kg),
                                .rs = 1, .cs = q->kg, .dt = wdt };
        a.c = pl->scratch + g * rows;
        a.rs_c = q->ic * q->taps;
    }
    a.cs_c = 1;
    kb_omp_gemm(&a, &pl->ws);
}

void kb_omp_bwd_data_col2im(const kb_omp_conv_bwd_plan *pl)
{
    int64_t per = kb_omp_bwd_col_images(&pl->q);
    for (int64_t n0 = 0; n0 < pl->q.mb; n0 += per) {
        int64_t nb = pl->q.mb - n0 < per ? pl->q.mb - n0 : per;
        for (int64_t g = 0; g < pl->q.g; g++)
            col_gemm(pl, n0, nb, g);
        if (pl->q.nxc)
            col2im_nxc(pl, n0, nb);
        else
            col2im_ncx(pl, n0, nb);
    }
}

/* Depthwise NCX (CG == 1, any multiplier KG): input row (iz, iy) of
 * plane (n, c) gathers from the KG output channels of its group. */
void kb_omp_bwd_data_dw_ncx(const kb_omp_conv_bwd_plan *pl)
{
    const kb_omp_bwd_geom *q = &pl->q;
    const float *dd = pl->t.ptr[KB_ARG_DIFF_DST], *wei = pl->t.ptr[KB_ARG_WEI];
    float *diff_src = pl->t.ptr[KB_ARG_DIFF_SRC];
    int64_t rows = q->id * q->ih, tmp_len = q->sw * kb_omp_bwd_phase_len(q);
#pragma omp parallel for schedule(static) num_threads(pl->nthreads)
    for (int64_t ncr = 0; ncr < q->mb * q->ic * rows; ncr++) {
        int64_t nc = ncr / rows, iz = ncr % rows / q->ih, iy = ncr % q->ih;
        int64_t n = nc / q->ic, c = nc % q->ic;
        float *tmp = row_buffer(pl);
        memset(tmp, 0, (size_t)tmp_len * sizeof(float));
        for (int64_t k = c * q->kg; k < (c + 1) * q->kg; k++)
            gather_row_ncx(q, iz, iy, dd + (n * q->oc + k) * q->out_px, 0,
                           wei + k * q->taps, tmp);
        store_row_ncx(q, tmp, KB_F32, diff_src,
                      nc * q->in_px + (iz * q->ih + iy) * q->iw);
    }
}

/* The depthwise NXC weights as [ceil(C/CB)][taps][CB] (zero past C),
 * widened to f32, so that a block's taps are whole vectors. */
void kb_omp_bwd_data_dw_nxc_weights(const kb_problem *p, const void *wei,
                                    float *out)
{
    kb_omp_bwd_geom q = kb_omp_bwd_geom_of(p);
    int64_t nblocks = (q.ic + CB - 1) / CB;
    for (int64_t b = 0; b < nblocks; b++)
        for (int64_t t = 0; t < q.taps; t++)
            for (int64_t c = 0; c < CB; c++) {
                int64_t ch = b * CB + c;
                out[(b * q.taps + t) * CB + c] =
                    ch < q.ic ? kb_omp_elem(p->dt.wei, wei, ch * q.taps + t)
                              : 0.0f;
            }
}

/* Depthwise NXC (CG == KG == 1): channels [c0, c0+cn) of input row
 * (iz, iy) of image n, built in tmp ([iw][CB]) with whole-vector
 * multiply-adds and copied out. */
static void dw_nxc_row(const kb_omp_conv_bwd_plan *pl, int64_t n, int64_t iz,
                       int64_t iy, int64_t blk, float *tmp)
{
    const kb_omp_bwd_geom *q = &pl->q;
    int64_t c0 = blk * CB, cn = q->ic - c0 < CB ? q->ic - c0 : CB;
    const float *wt = (const float *)pl->wei + blk * q->taps * CB;
    const float *d0 = (const float *)pl->t.ptr[KB_ARG_DIFF_DST] +
                      n * q->out_px * q->oc + c0;
    float *ds = (float *)pl->t.ptr[KB_ARG_DIFF_SRC] +
                (((n * q->id + iz) * q->ih + iy) * q->iw) * q->ic + c0;
    memset(tmp, 0, (size_t)(q->iw * CB) * sizeof(float));
    for (int64_t kz = 0; kz < q->kd; kz++) {
        int64_t oz = kb_omp_bwd_source_of(iz, kz, q->sd, q->pd, q->dd, q->od);
        for (int64_t ky = 0; oz >= 0 && ky < q->kh; ky++) {
            int64_t oy = kb_omp_bwd_source_of(iy, ky, q->sh, q->ph, q->dh, q->oh);
            if (oy < 0)
                continue;
            const float *srow = d0 + (oz * q->oh + oy) * q->ow * q->oc;
            for (int64_t kx = 0; kx < q->kw; kx++) {
                int64_t i0 = q->xt[kx].i0;
                const float *w = wt + ((kz * q->kh + ky) * q->kw + kx) * CB;
                for (int64_t ox = q->xt[kx].lo; ox < q->xt[kx].hi; ox++) {
                    float *y = tmp + (i0 + ox * q->sw) * CB;
                    if (cn == CB)
                        kb_omp_bwd_axpy_block(y, w, srow + ox * q->oc, CB);
                    else
                        kb_omp_bwd_axpy_block(y, w, srow + ox * q->oc, cn);
                }
            }
        }
    }
    for (int64_t ix = 0; ix < q->iw; ix++)
        memcpy(ds + ix * q->ic, tmp + ix * CB, (size_t)cn * sizeof(float));
}

void kb_omp_bwd_data_dw_nxc(const kb_omp_conv_bwd_plan *pl)
{
    const kb_omp_bwd_geom *q = &pl->q;
    int64_t nblocks = (q->ic + CB - 1) / CB, rows = q->mb * q->id * q->ih;
#pragma omp parallel for collapse(2) schedule(static) num_threads(pl->nthreads)
    for (int64_t r = 0; r < rows; r++)
        for (int64_t b = 0; b < nblocks; b++)
            dw_nxc_row(pl, r / (q->id * q->ih), r / q->ih % q->id, r % q->ih,
                       b, row_buffer(pl));
}
